-- bench_languages: the sieve of Eratosthenes with plain loops (a mutable
-- unboxed array in ST, as contestants write it).
import Control.Monad
import Control.Monad.ST
import Data.Array.ST
import Data.Array.Unboxed

sieve :: Int -> Int
sieve n = length (filter not (drop 2 (elems composite)))
  where
    composite :: UArray Int Bool
    composite = runSTUArray $ do
      a <- newArray (0, n) False
      forM_ [2 .. n] $ \i -> do
        c <- readArray a i
        unless c $ forM_ [i * i, i * i + i .. n] $ \j -> writeArray a j True
      return a

main :: IO ()
main = do
  n <- readLn
  print (sieve n)
