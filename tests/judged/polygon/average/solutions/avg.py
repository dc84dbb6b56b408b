data = open(0).read().split()
n = int(data[0])
print(sum(float(x) for x in data[1:1 + n]) / n)
