#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# proxy-peers.py: the other ends of t-net-proxy.sh's attacker cases, on loopback only.
#   server SECONDS        an HTTP/1.1 server on 127.0.0.1 (prints "port N", then "ready"):
#                         GET /host answers "host: <the Host header it got>"; POST reads
#                         nothing until the sender's queue stops growing (a stalled,
#                         small-windowed upstream), then its Content-Length body, and
#                         answers "got <bytes>"; POST /reset resets the
#                         connection (RST) right after the head instead.
#   idle PORT N           opens N connections, sends nothing, and prints "closed K of N":
#                         how many the proxy closed (each waited for, at most 20 s).
#   hold PORT N SECONDS   opens N connections, prints "holding N", sends nothing, sleeps.
#   ask PORT CRED HOSTPORT  one absolute-form GET through the proxy with CRED as Basic
#                         credentials ("-" for none); prints the status line, or "closed"
#                         when the proxy closed the connection without a word.
#   upload PROXY_URL HOSTPORT BYTES [PATH]  a CONNECT tunnel (credentials from the URL), a
#                         POST of BYTES to PATH (/up) through it; prints the answer's body,
#                         or "ended: ERROR" when the connection broke.
import base64
import fcntl
import socket
import struct
import sys
import termios
import threading
import time
import urllib.parse


def stall(c):
    """Read nothing until the bytes queued for us stop growing (at most 5 s): the sender's
    buffers are then full, so a relay in between has had writes that would block."""
    last, still, end = -1, 0, time.monotonic() + 5
    while still < 3 and time.monotonic() < end:
        time.sleep(0.1)
        queued = struct.unpack("i", fcntl.ioctl(c, termios.FIONREAD, b"\0\0\0\0"))[0]
        still = still + 1 if queued == last else 0
        last = queued


def serve_one(c):
    try:
        c.settimeout(60)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = c.recv(4096)
            if not chunk:
                return
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        method, path = lines[0].split(b" ")[:2]
        hdr = {}
        for ln in lines[1:]:
            k, v = ln.split(b":", 1)
            hdr.setdefault(k.strip().lower(), []).append(v.strip())
        if method == b"POST" and path == b"/reset":
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        if method == b"POST":
            want = int(hdr[b"content-length"][0])
            got = len(rest)
            stall(c)
            while got < want:
                chunk = c.recv(65536)
                if not chunk:
                    break
                got += len(chunk)
            body = b"got %d\n" % got
        else:
            body = b"host: " + b",".join(hdr.get(b"host", [b"(none)"])) + b"\n"
        c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                  % len(body) + body)
    except (OSError, ValueError, KeyError):
        pass
    finally:
        c.close()


def server(seconds):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A small receive window, set before listen() so that the accepted sockets start
    # with it (a buffer below one loopback segment would stall the sender for its persist
    # timer at every step instead).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 131072)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    print("port", s.getsockname()[1], flush=True)

    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve_one, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    print("ready", flush=True)
    time.sleep(seconds)


def idle(port, n):
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    closed = 0
    for s in socks:
        s.settimeout(20)
        try:
            if s.recv(1) == b"":
                closed += 1
        except ConnectionResetError:
            closed += 1
        except OSError:
            pass
    print("closed %d of %d" % (closed, n), flush=True)


def hold(port, n, seconds):
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    print("holding", len(socks), flush=True)
    time.sleep(seconds)


def ask(port, cred, hostport):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(20)
    auth = b""
    if cred != "-":
        auth = b"Proxy-Authorization: Basic " + base64.b64encode(cred.encode()) + b"\r\n"
    s.sendall(b"GET http://%s/ask HTTP/1.1\r\nHost: x\r\n%s\r\n" % (hostport.encode(), auth))
    try:
        data = s.recv(4096)
    except ConnectionResetError:
        data = b""
    print(data.split(b"\r\n", 1)[0].decode() if data else "closed", flush=True)


def upload(url, hostport, size, path="/up"):
    u = urllib.parse.urlsplit(url)
    cred = base64.b64encode(("%s:%s" % (u.username, u.password)).encode())
    s = socket.create_connection((u.hostname, u.port))
    s.sendall(b"CONNECT %s HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n"
              % (hostport.encode(), cred))
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    if b" 200 " not in head.split(b"\r\n")[0]:
        print("refused:", head.split(b"\r\n")[0].decode())
        return
    s.sendall(b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n"
              % (path.encode(), hostport.encode(), size))
    block = b"x" * 65536
    left = size
    data = b""
    try:
        while left > 0:
            s.sendall(block[:min(left, len(block))])
            left -= min(left, len(block))
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except OSError as e:
        print("ended:", e.__class__.__name__, flush=True)
        return
    print(data.split(b"\r\n\r\n", 1)[-1].decode().strip(), flush=True)


cmd = sys.argv[1]
if cmd == "server":
    server(float(sys.argv[2]))
elif cmd == "idle":
    idle(int(sys.argv[2]), int(sys.argv[3]))
elif cmd == "hold":
    hold(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
elif cmd == "ask":
    ask(int(sys.argv[2]), sys.argv[3], sys.argv[4])
elif cmd == "upload":
    upload(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
