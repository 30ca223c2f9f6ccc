"""blackhole.py PORTFILE: a TCP listener on 127.0.0.1 whose backlog is full, so that a new
connect() to it waits for the kernel's SYN retries (minutes); its port goes to PORTFILE.
Runs until killed."""
import os
import signal
import socket
import sys

lis = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
lis.bind(("127.0.0.1", 0))
lis.listen(0)
port = lis.getsockname()[1]
fill = []
for _ in range(4):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.setblocking(False)
    try:
        c.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    fill.append(c)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % port)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()
