# daemon.py MARKER PORT: a Python submission that daemonizes (double fork,
# setsid) to outlive the run and, a second later, writes MARKER and tries to
# phone home on 127.0.0.1:PORT. The parent prints "parent done" and exits 0.
import os
import socket
import sys
import time

marker, port = sys.argv[1], int(sys.argv[2])
if os.fork() > 0:
    time.sleep(0.05)
    print("parent done", flush=True)
    sys.exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
time.sleep(1)
with open(marker, "w") as f:
    f.write("escaped\n")
try:
    socket.create_connection(("127.0.0.1", port), timeout=1).sendall(b"hello")
except OSError:
    pass
