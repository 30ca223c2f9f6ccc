#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# net-server.py SECONDS: loopback servers for the --net scenarios, outside the sandbox.
# Prints "tcp PORT", "tcp6 PORT" (when ::1 works), "udp PORT", "other PORT", then "ready",
# and serves for SECONDS: on tcp/tcp6 a minimal HTTP/1.0 server answering "hello PATH",
# on other the same (a second service), on udp nothing (datagrams are dropped).
import socket
import sys
import threading
import time


def http(sock):
    while True:
        try:
            c, _ = sock.accept()
        except OSError:
            return
        try:
            c.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = c.recv(4096)
                if not chunk:
                    break
                data += chunk
            line = data.split(b"\r\n", 1)[0].split(b" ")
            path = line[1] if len(line) > 1 else b"?"
            body = b"hello " + path + b"\n"
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        except OSError:
            pass
        finally:
            c.close()


def listen(fam, addr):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(addr)
    s.listen(16)
    threading.Thread(target=http, args=(s,), daemon=True).start()
    return s.getsockname()[1]


print("tcp", listen(socket.AF_INET, ("127.0.0.1", 0)), flush=True)
try:
    print("tcp6", listen(socket.AF_INET6, ("::1", 0)), flush=True)
except OSError:
    pass
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
print("udp", u.getsockname()[1], flush=True)
print("other", listen(socket.AF_INET, ("127.0.0.1", 0)), flush=True)
print("ready", flush=True)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 60)
