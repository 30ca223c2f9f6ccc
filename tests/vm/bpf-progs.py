#!/usr/bin/env python3
"""List the kernel's BPF programs through bpf(2) (no bpftool in the guest), for the VM
scenarios; run as root (CAP_SYS_ADMIN: every command below needs it).

    bpf-progs.py ids            every loaded program: "ID TYPE" per line
    bpf-progs.py query CGROUP   the programs attached to the cgroup directory CGROUP, per
                                cgroup-sock hook sandcap uses: "HOOK ID..." per line
                                (BPF_PROG_QUERY, programs of this cgroup only)
    bpf-progs.py alive ID...    the IDs of those programs that still exist, one per line

Numbers from <linux/bpf.h> (checked with a C program against Debian 12's headers): the
commands BPF_PROG_GET_NEXT_ID 11, BPF_PROG_GET_FD_BY_ID 13, BPF_OBJ_GET_INFO_BY_FD 15,
BPF_PROG_QUERY 16; union bpf_attr is 144 bytes here (query.prog_ids at 16, prog_cnt at 24).
"""

import ctypes
import errno
import os
import struct
import sys

NR_BPF = {"x86_64": 321, "aarch64": 280}[os.uname().machine if os.uname().machine != "um"
                                           else "x86_64"]
GET_NEXT_ID, GET_FD_BY_ID, GET_INFO, QUERY = 11, 13, 15, 16
HOOKS = {"ingress": 0, "egress": 1, "sock_create": 2, "bind4": 8, "bind6": 9,
         "connect4": 10, "connect6": 11, "sendmsg4": 14, "sendmsg6": 15}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(bytes(attr), 144)
    r = libc.syscall(NR_BPF, cmd, buf, 144)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r, buf.raw


def ids():
    out, cur = [], 0
    while True:
        try:
            _, raw = bpf(GET_NEXT_ID, struct.pack("=I", cur))
        except OSError as e:
            if e.errno == errno.ENOENT:
                return out
            raise
        cur = struct.unpack_from("=I", raw, 4)[0]
        out.append(cur)


def prog_type(pid):
    fd, _ = bpf(GET_FD_BY_ID, struct.pack("=I", pid))
    try:
        info = ctypes.create_string_buffer(64)
        bpf(GET_INFO, struct.pack("=IIQ", fd, 64, ctypes.addressof(info)))
        return struct.unpack_from("=I", info.raw, 0)[0]
    finally:
        os.close(fd)


def query(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        res = {}
        for name, at in HOOKS.items():
            arr = (ctypes.c_uint32 * 64)()
            _, raw = bpf(QUERY, struct.pack("=IIIIQI", fd, at, 0, 0, ctypes.addressof(arr), 64))
            n = struct.unpack_from("=I", raw, 24)[0]
            res[name] = list(arr[:n])
        return res
    finally:
        os.close(fd)


def main():
    cmd = sys.argv[1]
    if cmd == "ids":
        for i in ids():
            try:
                print(i, prog_type(i))
            except OSError as e:
                if e.errno != errno.ENOENT:  # freed between the two calls
                    raise
    elif cmd == "query":
        for name, progs in query(sys.argv[2]).items():
            print(name, *progs)
    elif cmd == "alive":
        have = set(ids())
        for a in sys.argv[2:]:
            if int(a) in have:
                print(a)
    else:
        sys.exit(f"bpf-progs.py: unknown command {cmd!r}")


if __name__ == "__main__":
    main()
