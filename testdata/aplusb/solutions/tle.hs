-- Expected: TLE. A loop that never ends (strict, so no memory grows).
{-# LANGUAGE BangPatterns #-}
loop :: Int -> Int
loop !x = loop (x * 31 + 7)

main :: IO ()
main = print (loop 1)
