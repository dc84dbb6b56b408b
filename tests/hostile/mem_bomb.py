# Grows a list of 1 MiB byte strings without end (each one written, so
# resident), as a Python submission would.
chunks = []
while True:
    chunks.append(bytearray(b"x" * (1 << 20)))
