# n/2 + n/2 for an even n: the sum is right, but the flag `distinct` refuses it
n = int(input())
a = n // 2
print(a, n - a)
