# Expected: MLE. Builds a list of distinct ints until the 64 MiB limit
# (resident memory) is passed: about 36 bytes each, so ~2 million suffice
# (~0.3 s of CPU, against Python's 3 s).
keep = []
i = 0
while True:
    keep.append(i * 1000003)
    i += 1
