with open("copia.in") as f:
    word = f.read().strip()
with open("copia.out", "w") as f:
    f.write(word[::-1] + "\n")
