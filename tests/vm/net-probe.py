#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# net-probe.py: every way to the network --net loopback|proxy|none must shape, one line per
# attempt: "NAME: OK" or "NAME: ERRNO_NAME".  Run inside a sandbox by 41-net-bpf.sh and
# 42-net-proxy.sh.  Destinations outside loopback are documentation addresses (192.0.2.1,
# 2001:db8::1), and the VM guest has no device but lo: nothing can leave it even if a
# probe were let through.
#   net-probe.py [--tcp PORT] [--tcp6 PORT] [--udp PORT] [--proxy PORT] [--other PORT]
import errno
import socket
import sys

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
TCP = int(args.get("--tcp", "0"))
TCP6 = int(args.get("--tcp6", "0"))
UDP = int(args.get("--udp", "0"))
PROXY = int(args.get("--proxy", "0"))
OTHER = int(args.get("--other", "0"))


def say(name, fn):
    try:
        fn()
        print(f"{name}: OK", flush=True)
    except OSError as e:
        print(f"{name}: {errno.errorcode.get(e.errno, e.errno)}", flush=True)


def connect(fam, addr, typ=socket.SOCK_STREAM, proto=0):
    def f():
        with socket.socket(fam, typ, proto) as s:
            s.settimeout(3)
            s.connect(addr)
    return f


def sendto(fam, addr):
    def f():
        with socket.socket(fam, socket.SOCK_DGRAM) as s:
            s.sendto(b"x", addr)
    return f


def bind(fam, addr):
    def f():
        with socket.socket(fam, socket.SOCK_STREAM) as s:
            s.bind(addr)
    return f


def sock(fam, typ, proto=0):
    def f():
        socket.socket(fam, typ, proto).close()
    return f


if TCP:
    say("tcp4_lo", connect(socket.AF_INET, ("127.0.0.1", TCP)))
    say("tcp4_lo_other_addr", connect(socket.AF_INET, ("127.0.0.2", TCP)))
if OTHER:
    say("tcp4_lo_other_port", connect(socket.AF_INET, ("127.0.0.1", OTHER)))
if PROXY:
    say("tcp4_proxy", connect(socket.AF_INET, ("127.0.0.1", PROXY)))
    say("tcp4_proxy_other_addr", connect(socket.AF_INET, ("127.0.0.2", PROXY)))
say("tcp4_ext", connect(socket.AF_INET, ("192.0.2.1", 80)))
say("tcp6_ext", connect(socket.AF_INET6, ("2001:db8::1", 80)))
if TCP6:
    say("tcp6_lo", connect(socket.AF_INET6, ("::1", TCP6)))
if TCP:
    say("tcp6_mapped_lo", connect(socket.AF_INET6, ("::ffff:127.0.0.1", TCP)))
if UDP:
    say("udp4_lo", sendto(socket.AF_INET, ("127.0.0.1", UDP)))
say("udp4_ext", sendto(socket.AF_INET, ("192.0.2.1", 53)))
say("udp4_connect_ext", connect(socket.AF_INET, ("192.0.2.1", 53), socket.SOCK_DGRAM))
say("udp6_ext", sendto(socket.AF_INET6, ("2001:db8::1", 53)))
say("bind4_lo", bind(socket.AF_INET, ("127.0.0.1", 0)))
say("bind4_any", bind(socket.AF_INET, ("0.0.0.0", 0)))
say("bind6_any", bind(socket.AF_INET6, ("::", 0)))
say("socket_tcp4", sock(socket.AF_INET, socket.SOCK_STREAM))
say("socket_udp4", sock(socket.AF_INET, socket.SOCK_DGRAM))
say("socket_udplite4", sock(socket.AF_INET, socket.SOCK_DGRAM, 136))
say("socket_raw4", sock(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
say("socket_icmp4", sock(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP))
say("socket_mptcp4", sock(socket.AF_INET, socket.SOCK_STREAM, 262))
say("socket_sctp4", sock(socket.AF_INET, socket.SOCK_STREAM, 132))
say("socket_netlink", sock(socket.AF_NETLINK, socket.SOCK_RAW, 0))
say("socket_alg", sock(socket.AF_ALG, socket.SOCK_SEQPACKET, 0))
say("socket_packet", sock(socket.AF_PACKET, socket.SOCK_DGRAM, 0))
say("socket_vsock", sock(40, socket.SOCK_STREAM, 0))
say("socket_unix", sock(socket.AF_UNIX, socket.SOCK_STREAM))
say("socketpair_unix", lambda: [s.close() for s in socket.socketpair()])
