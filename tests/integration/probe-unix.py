#!/usr/bin/env python3
"""Inside the sandbox: try every way to the outside UNIX server, and what must keep working.

probe-unix.py OUTSIDE_PATH OUTSIDE_ABSTRACT OUTSIDE_SEQPACKET SCRATCH
Prints one "name: RESULT" line each: OK (connected to ours / it worked), REFUSED (errno name),
OUTSIDE (connected to the outside server: an escape), or FAIL (detail).
"""
import ctypes
import errno
import multiprocessing as mp
import os
import socket
import sys
import threading


def say(name, what):
    print(f"{name}: {what}", flush=True)


def try_outside(name, addr, family_type=socket.SOCK_STREAM, before=None, nonblocking=False):
    """Connect to addr; the outside server greets with OUTSIDE, ours with INSIDE."""
    s = socket.socket(socket.AF_UNIX, family_type)
    try:
        if before:
            before()
        if nonblocking:
            s.setblocking(False)
        s.connect(addr)
        s.settimeout(5)
    except OSError as e:
        say(name, "REFUSED " + errno.errorcode.get(e.errno, str(e.errno)))
        return
    try:
        s.sendall(b"PWN\n")
        got = s.recv(16)
    except OSError as e:
        got = repr(e).encode()
    say(name, "OUTSIDE" if got.startswith(b"OUTSIDE") else "FAIL connected: %r" % got)


def serve(path_or_name, kind=socket.SOCK_STREAM):
    ls = socket.socket(socket.AF_UNIX, kind)
    ls.bind(path_or_name)
    ls.listen(64)

    def loop():
        while True:
            c, _ = ls.accept()
            try:
                c.sendall(b"INSIDE\n")
            except OSError:
                pass
            c.close()
    threading.Thread(target=loop, daemon=True).start()
    return ls


def check_inside(name, addr, kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_UNIX, kind)
    try:
        s.connect(addr)
        s.settimeout(5)
        got = s.recv(16)
        say(name, "OK" if got.startswith(b"INSIDE") else "FAIL got %r" % got)
    except OSError as e:
        say(name, "FAIL " + errno.errorcode.get(e.errno, str(e.errno)))


def race(outside, own, rounds=300):
    """A thread rewrites the address between our own socket and the outside one while
    connect() runs: whatever was read, the outside one must never be reached."""
    libc = ctypes.CDLL(None, use_errno=True)

    def sun(path):
        b = bytearray(110)
        b[0:2] = socket.AF_UNIX.to_bytes(2, sys.byteorder)
        p = path.encode()
        b[2:2 + len(p)] = p
        return bytes(b)
    a, b = sun(own), sun(outside)
    buf = ctypes.create_string_buffer(a, 110)
    stop = False

    def flip():
        while not stop:
            ctypes.memmove(buf, b, 110)
            ctypes.memmove(buf, a, 110)
    t = threading.Thread(target=flip, daemon=True)
    t.start()
    outside_hits = inside = refused = 0
    for _ in range(rounds):
        s = socket.socket(socket.AF_UNIX)
        r = libc.connect(s.fileno(), buf, 110)
        if r == 0:
            s.settimeout(5)
            try:
                got = s.recv(16)
            except OSError:
                got = b""
            if got.startswith(b"OUTSIDE"):
                outside_hits += 1
            else:
                inside += 1
        else:
            refused += 1
        s.close()
    stop = True
    t.join()
    say("race", "OUTSIDE" if outside_hits else f"OK inside={inside} refused={refused}")


def rename_race(outside, own, scratch, rounds=300):
    """A thread swaps the name connected to between a link to our own socket and one to
    the outside socket (hard links where the file system allows them, else symbolic
    links), by rename(), while connect() runs: sandcap checks and connects one file."""
    swap = os.path.join(scratch, "swap.sock")
    kind = "hardlink"
    try:
        os.link(outside, os.path.join(scratch, "hl-probe"))
        os.unlink(os.path.join(scratch, "hl-probe"))
        mk = os.link
    except OSError:
        kind, mk = "symlink", os.symlink
    mk(own, swap)
    stop = False

    def flip():
        i = 0
        while not stop:
            for target in (outside, own):
                tmp = os.path.join(scratch, "swap-%d" % i)
                i += 1
                try:
                    mk(target, tmp)
                    os.rename(tmp, swap)
                except OSError:
                    pass
    t = threading.Thread(target=flip, daemon=True)
    t.start()
    outside_hits = inside = refused = 0
    for _ in range(rounds):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(swap)
            s.settimeout(5)
            got = s.recv(16)
            if got.startswith(b"OUTSIDE"):
                outside_hits += 1
            else:
                inside += 1
        except OSError:
            refused += 1
        s.close()
    stop = True
    t.join()
    say("rename-race", "OUTSIDE" if outside_hits else
        f"OK {kind} inside={inside} refused={refused}")


def daemonized(name, addr):
    """A server that listens, forks and lets the listen()ing process exit (ssh-agent): its
    child keeps the socket and serves; a client of the sandbox must reach it."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        ls = socket.socket(socket.AF_UNIX)
        ls.bind(addr)
        ls.listen(8)
        if os.fork() == 0:
            os.write(w, b"x")
            while True:
                c, _ = ls.accept()
                c.sendall(b"INSIDE\n")
                c.close()
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)                  # the listen()ing process is gone (reaped)
    os.read(r, 1)                       # its child serves
    os.close(r)
    check_inside(name, addr)


def mp_manager():
    m = mp.Manager()
    d = m.dict()
    d["k"] = 1
    ok = dict(d) == {"k": 1}
    m.shutdown()
    return ok


def square(x):
    return x * x


def main():
    outside, outside_abs, outside_sp, scratch = sys.argv[1:5]
    os.chdir(scratch)
    own = os.path.join(scratch, "own.sock")
    serve(own)
    own_abs = "\0sandcap-own-%d" % os.getpid()
    serve(own_abs)
    serve(os.path.join(scratch, "own-sp.sock"), socket.SOCK_SEQPACKET)

    # The attacker's side.
    try_outside("path", outside)
    try_outside("abstract", "\0" + outside_abs)
    os.symlink(outside, os.path.join(scratch, "link.sock"))
    try_outside("symlink", os.path.join(scratch, "link.sock"))
    outdir = os.path.dirname(outside)
    try_outside("relative", "./" + os.path.basename(outside), before=lambda: os.chdir(outdir))
    os.chdir(scratch)
    dfd = os.open(outdir, os.O_PATH)
    try_outside("proc-fd", "/proc/self/fd/%d/%s" % (dfd, os.path.basename(outside)))
    try_outside("proc-cwd", "/proc/self/cwd/link.sock")
    ofd = os.open(outside, os.O_PATH)
    try_outside("proc-fd-file", "/proc/self/fd/%d" % ofd)
    os.close(ofd)
    try_outside("nonblocking", outside, nonblocking=True)
    try_outside("seqpacket", outside_sp, socket.SOCK_SEQPACKET)
    race(outside, own)
    rename_race(outside, own, scratch)
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        d.sendto(b"PWN\n", "\0" + outside_abs + "-dgram")
        say("dgram-abstract", "SENT")
    except OSError as e:
        say("dgram-abstract", "REFUSED " + errno.errorcode.get(e.errno, str(e.errno)))
    # connect() is made by sandcap, outside the sandbox's Landlock domain: it must not
    # open what sendto() may not.
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        d.connect("\0" + outside_abs + "-dgram")
        d.send(b"PWN-connected\n")
        say("dgram-connect-abstract", "SENT")
    except OSError as e:
        say("dgram-connect-abstract", "REFUSED " + errno.errorcode.get(e.errno, str(e.errno)))
    # Its own abstract datagram socket: sendto() reaches it.
    own_d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    own_d.bind("\0sandcap-own-dgram-%d" % os.getpid())
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    d.sendto(b"x", "\0sandcap-own-dgram-%d" % os.getpid())
    say("own-dgram-abstract", "OK" if own_d.recv(1) == b"x" else "FAIL")

    # What must keep working.
    a, b = socket.socketpair()
    a.send(b"x")
    say("socketpair", "OK" if b.recv(1) == b"x" else "FAIL")
    check_inside("own-path", own)
    check_inside("own-relative", "own.sock")
    check_inside("own-abstract", own_abs)
    check_inside("own-seqpacket", os.path.join(scratch, "own-sp.sock"), socket.SOCK_SEQPACKET)
    ns = socket.socket(socket.AF_UNIX)
    ns.setblocking(False)
    try:
        ns.connect(own)
        say("own-nonblocking", "OK" if not ns.getblocking() and
            os.get_blocking(ns.fileno()) is False else "FAIL flags")
    except OSError as e:
        say("own-nonblocking", "FAIL " + errno.errorcode.get(e.errno, str(e.errno)))
    daemonized("daemonized-path", os.path.join(scratch, "daemon.sock"))
    daemonized("daemonized-abstract", "\0sandcap-daemon-%d" % os.getpid())
    say("manager", "OK" if mp_manager() else "FAIL")
    with mp.get_context("forkserver").Pool(2) as pool:
        say("forkserver", "OK" if pool.map(square, [2, 3]) == [4, 9] else "FAIL")
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    t = socket.socket()
    try:
        t.connect(ls.getsockname())     # blocking: answered when the handshake is done
        say("tcp", "OK")
    except OSError as e:
        say("tcp", "FAIL " + errno.errorcode.get(e.errno, str(e.errno)))


if __name__ == "__main__":
    main()
