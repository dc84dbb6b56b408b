# the task's grader in Python: the contestant's module is named after the task
import sys
import addup
data = sys.stdin.read().split()
n = int(data[0])
print(addup.addup(n, [int(x) for x in data[1:1 + n]]))
