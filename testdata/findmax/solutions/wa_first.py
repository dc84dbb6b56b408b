# Expected: WA. Answers the first value it is told: right only while a_1 is
# the maximum (tests 1 and 3), rejected by the validator on test 2.
n = int(input())
print("? 1", flush=True)
print("!", int(input()), flush=True)
