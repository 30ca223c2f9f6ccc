/* SPDX-License-Identifier: MIT */
/* The cgroup BPF programs that enforce --net none|loopback|proxy in cgroup mode, built as
 * raw instructions.  Pure: no I/O, no allocation.  The helper loads and attaches them
 * (helper/op_net.c); docs/net-bpf.md lists every instruction (tools: `sandcap-bpf-listing`
 * is the unit test that keeps it true). */
#pragma once

#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

enum netbpf_mode {
	NETBPF_NONE,     /* no inet socket at all */
	NETBPF_LOOPBACK, /* TCP/UDP to and bind on 127.0.0.0/8 and ::1 only */
	NETBPF_PROXY,    /* TCP connect to 127.0.0.1:port only, no bind */
};

enum netbpf_prog {
	NETBPF_SOCK_CREATE,
	NETBPF_CONNECT4,
	NETBPF_CONNECT6,
	NETBPF_SENDMSG4,
	NETBPF_SENDMSG6,
	NETBPF_BIND4,
	NETBPF_BIND6,
	NETBPF_INGRESS,
	NETBPF_EGRESS,
	_NETBPF_PROG_MAX,
};

struct netbpf_info {
	uint32_t prog_type;   /* BPF_PROG_TYPE_* */
	uint32_t attach_type; /* expected_attach_type and the attach type */
	const char *name;     /* the section name libbpf would use */
};

extern const struct netbpf_info netbpf_progs[_NETBPF_PROG_MAX];

#define NETBPF_INSNS_MAX        64
#define NETBPF_LOOPBACK_IFINDEX 1 /* the kernel fixes lo's ifindex to 1 in every netns */

/* Build program p for mode (port: the proxy's TCP port, host byte order, used in
 * NETBPF_PROXY only).  Returns the instruction count, or -EINVAL (bad mode or port) /
 * -E2BIG (max too small). */
int netbpf_build(enum netbpf_prog p, enum netbpf_mode mode, uint16_t port, struct bpf_insn *out,
		 size_t max);

/* One instruction as text ("r2 = *(u32 *)(r1 + 4)"), for the listing in docs. */
void netbpf_format(const struct bpf_insn *insn, char *buf, size_t len);
