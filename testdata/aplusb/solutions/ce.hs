-- Expected: CE: a String is not a number.
main :: IO ()
main = print ("1" + 2 :: Int)
