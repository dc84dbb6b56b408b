# Expected: MLE. Builds a list of distinct ints until the 256 MiB limit
# (resident memory) is passed: about 36 bytes each, so ~8 million suffice.
keep = []
i = 0
while True:
    keep.append(i * 1000003)
    i += 1
