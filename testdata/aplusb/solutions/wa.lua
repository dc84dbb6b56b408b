-- Expected: WA: a - b.
local a, b = io.read("n", "n")
print(math.tointeger(a - b))
