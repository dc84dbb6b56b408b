import random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
random.seed(seed)
big = n > 10
print(n)
print(" ".join(str(random.randint(1, 10**9 if big else 9)) for _ in range(n)))
