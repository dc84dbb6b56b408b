-- Expected: CE (luac -p: a syntax error).
local a, b = io.read("n", "n"
print(a + b)
