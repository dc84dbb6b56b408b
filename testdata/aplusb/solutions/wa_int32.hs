-- Expected: WA. Int32 overflows on the big tests.
import Data.Int (Int32)
main :: IO ()
main = do
  [a, b] <- map (fromIntegral . read) . words <$> getLine :: IO [Int32]
  print (a + b)
