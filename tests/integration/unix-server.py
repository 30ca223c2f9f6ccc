#!/usr/bin/env python3
"""Outside the sandbox: the user's own service, on a pathname stream socket, an abstract one
and a pathname seqpacket one.  Greets every client with OUTSIDE; every connection accepted
is written to LOG-accepts and any byte a client sends to LOG ("got"): the test expects
both to stay empty while the sandbox is refused.  A datagram to the
abstract name ABSTRACT-dgram is written to LOG-dgram.

unix-server.py PATH ABSTRACT SEQPACKET-PATH LOG"""
import select
import socket
import sys

path, abstract, sp_path, log = sys.argv[1:5]
listeners = []
for addr, kind in ((path, socket.SOCK_STREAM), ("\0" + abstract, socket.SOCK_STREAM),
                   (sp_path, socket.SOCK_SEQPACKET)):
    s = socket.socket(socket.AF_UNIX, kind)
    s.bind(addr)
    s.listen(64)
    listeners.append(s)
dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
dgram.bind("\0" + abstract + "-dgram")
clients = []
print("ready", flush=True)
while True:
    r, _, _ = select.select(listeners + clients + [dgram], [], [])
    for x in r:
        if x is dgram:
            with open(log + "-dgram", "a") as f:
                f.write("got %r\n" % dgram.recv(64))
        elif x in listeners:
            c, _ = x.accept()
            with open(log + "-accepts", "a") as f:
                f.write("accepted on %r\n" % (x.getsockname(),))
            try:
                c.sendall(b"OUTSIDE\n")
                clients.append(c)
            except OSError:
                c.close()
        else:
            try:
                data = x.recv(64)
            except OSError:
                data = b""
            if data:
                with open(log, "a") as f:
                    f.write("got %r\n" % data)
            clients.remove(x)
            x.close()
