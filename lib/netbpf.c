/* SPDX-License-Identifier: MIT */
/*
 * The cgroup BPF programs of --net none|loopback|proxy (docs/net-bpf.md lists them).
 *
 * Every program has the same shape: a list of clauses, each a conjunction of "load a
 * 32-bit context field, optionally mask it, compare it with a constant"; the first clause
 * whose comparisons all hold accepts (r0 = 1), and falling off the last clause denies
 * (r0 = 0).  All jumps go forward, so the verifier's job is trivial and there are no maps
 * and no helper calls.  Addresses and ports are compared in network byte order, as the
 * kernel stores them in the context (constants are converted here, on the same machine).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

#include "macro.h"
#include "netbpf.h"

const struct netbpf_info netbpf_progs[_NETBPF_PROG_MAX] = {
	[NETBPF_SOCK_CREATE] = { BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE,
				 "cgroup/sock_create" },
	[NETBPF_CONNECT4] = { BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT,
			      "cgroup/connect4" },
	[NETBPF_CONNECT6] = { BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_CONNECT,
			      "cgroup/connect6" },
	[NETBPF_SENDMSG4] = { BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_SENDMSG,
			      "cgroup/sendmsg4" },
	[NETBPF_SENDMSG6] = { BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_SENDMSG,
			      "cgroup/sendmsg6" },
	[NETBPF_BIND4] = { BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_BIND, "cgroup/bind4" },
	[NETBPF_BIND6] = { BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_BIND, "cgroup/bind6" },
	[NETBPF_INGRESS] = { BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS,
			     "cgroup_skb/ingress" },
	[NETBPF_EGRESS] = { BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, "cgroup_skb/egress" },
};

#define PEND_MAX 16

struct builder {
	struct bpf_insn *i;
	size_t max, n;
	int err;
	size_t next[PEND_MAX], n_next;     /* jumps to the next clause */
	size_t accept[PEND_MAX], n_accept; /* jumps to "accept" */
};

static void
emit(struct builder *b, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (b->n >= b->max) {
		b->err = -E2BIG;
		return;
	}
	b->i[b->n++] = (struct bpf_insn){
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
	};
}

static void
pend(struct builder *b, size_t *list, size_t *n)
{
	if (*n >= PEND_MAX) {
		b->err = -E2BIG;
		return;
	}
	if (b->err == 0)
		list[(*n)++] = b->n - 1;
}

static void
patch(struct builder *b, size_t *list, size_t *n)
{
	for (size_t k = 0; k < *n; k++)
		b->i[list[k]].off = (int16_t) (b->n - list[k] - 1);
	*n = 0;
}

/* Start a clause: the previous clause's failed comparisons land here. */
static void
clause(struct builder *b)
{
	if (b->err == 0)
		patch(b, b->next, &b->n_next);
}

/* Require (ctx->field & mask) == value; all 32-bit (JMP32, 5.1). */
static void
need(struct builder *b, size_t field, uint32_t mask, uint32_t value)
{
	emit(b, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, (int16_t) field, 0);
	if (mask != UINT32_MAX)
		emit(b, BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, (int32_t) mask);
	emit(b, BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_2, 0, 0, (int32_t) value);
	pend(b, b->next, &b->n_next);
}

/* End a clause that held: accept. */
static void
take(struct builder *b)
{
	emit(b, BPF_JMP | BPF_JA, 0, 0, 0, 0);
	pend(b, b->accept, &b->n_accept);
}

static int
finish(struct builder *b)
{
	bool any = b->n_accept > 0;

	clause(b); /* deny: */
	emit(b, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	emit(b, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	/* The verifier refuses unreachable instructions: no clause, no accept block. */
	if (!any)
		return b->err < 0 ? b->err : (int) b->n;
	if (b->err == 0)
		patch(b, b->accept, &b->n_accept); /* accept: */
	emit(b, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	emit(b, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return b->err < 0 ? b->err : (int) b->n;
}

#define SA(f) offsetof(struct bpf_sock_addr, f)
#define SK(f) offsetof(struct bpf_sock, f)

/* 127.0.0.0/8 in a bpf_sock_addr's user_ip4. */
static void
need_ip4_loopback(struct builder *b)
{
	need(b, SA(user_ip4), htonl(0xff000000u), htonl(0x7f000000u));
}

/* ::1 in a bpf_sock_addr's user_ip6 (IPv4-mapped addresses are not loopback here). */
static void
need_ip6_loopback(struct builder *b)
{
	need(b, SA(user_ip6[0]), UINT32_MAX, 0);
	need(b, SA(user_ip6[1]), UINT32_MAX, 0);
	need(b, SA(user_ip6[2]), UINT32_MAX, 0);
	need(b, SA(user_ip6[3]), UINT32_MAX, htonl(1));
}

int
netbpf_build(enum netbpf_prog p, enum netbpf_mode mode, uint16_t port, struct bpf_insn *out,
	     size_t max)
{
	struct builder b = { .i = out, .max = max };
	bool lo = mode == NETBPF_LOOPBACK, px = mode == NETBPF_PROXY;

	if (mode != NETBPF_NONE && !lo && !px)
		return -EINVAL;
	if (px && port == 0)
		return -EINVAL;

	switch (p) {
	case NETBPF_SOCK_CREATE:
		/* Runs from inet_create()/inet6_create() only: AF_INET and AF_INET6.  The
		 * protocol is the resolved one (0 became IPPROTO_TCP/UDP), so raw, ICMP,
		 * SCTP, UDP-Lite and MPTCP (IPPROTO_MPTCP = 262) all fail these clauses. */
		if (lo || px) {
			clause(&b);
			need(&b, SK(type), UINT32_MAX, SOCK_STREAM);
			need(&b, SK(protocol), UINT32_MAX, IPPROTO_TCP);
			take(&b);
		}
		if (lo) {
			clause(&b);
			need(&b, SK(type), UINT32_MAX, SOCK_DGRAM);
			need(&b, SK(protocol), UINT32_MAX, IPPROTO_UDP);
			take(&b);
		}
		break;
	case NETBPF_CONNECT4:
		if (px) {
			clause(&b);
			need(&b, SA(user_ip4), UINT32_MAX, htonl(INADDR_LOOPBACK));
			need(&b, SA(user_port), UINT32_MAX, htons(port));
			take(&b);
		}
		/* fall through */
	case NETBPF_SENDMSG4:
	case NETBPF_BIND4:
		if (lo) {
			clause(&b);
			need_ip4_loopback(&b);
			take(&b);
		}
		break;
	case NETBPF_CONNECT6:
	case NETBPF_SENDMSG6:
	case NETBPF_BIND6:
		if (lo) {
			clause(&b);
			need_ip6_loopback(&b);
			take(&b);
		}
		break;
	case NETBPF_INGRESS:
	case NETBPF_EGRESS:
		/* Belt and braces, and the one guard for listen() without bind(), which
		 * binds the wildcard address with no bind hook: packets of the sandbox's
		 * sockets pass only on the loopback device. */
		if (lo || px) {
			clause(&b);
			need(&b, offsetof(struct __sk_buff, ifindex), UINT32_MAX,
			     NETBPF_LOOPBACK_IFINDEX);
			take(&b);
		}
		break;
	case _NETBPF_PROG_MAX:
	default:
		return -EINVAL;
	}
	return finish(&b);
}

void
netbpf_format(const struct bpf_insn *x, char *buf, size_t len)
{
	uint8_t cls = BPF_CLASS(x->code), op = BPF_OP(x->code);

	if (x->code == (BPF_LDX | BPF_MEM | BPF_W))
		(void) snprintf(buf, len, "r%u = *(u32 *)(r%u + %d)", x->dst_reg, x->src_reg,
				x->off);
	else if (x->code == (BPF_ALU | BPF_AND | BPF_K))
		(void) snprintf(buf, len, "w%u &= 0x%08x", x->dst_reg, (uint32_t) x->imm);
	else if (x->code == (BPF_ALU64 | BPF_MOV | BPF_K))
		(void) snprintf(buf, len, "r%u = %d", x->dst_reg, x->imm);
	else if (cls == BPF_JMP32 && op == BPF_JNE && BPF_SRC(x->code) == BPF_K)
		(void) snprintf(buf, len, "if w%u != 0x%08x goto +%d", x->dst_reg,
				(uint32_t) x->imm, x->off);
	else if (x->code == (BPF_JMP | BPF_JA))
		(void) snprintf(buf, len, "goto +%d", x->off);
	else if (x->code == (BPF_JMP | BPF_EXIT))
		(void) snprintf(buf, len, "exit");
	else
		(void) snprintf(buf, len, "code 0x%02x dst r%u src r%u off %d imm %d", x->code,
				x->dst_reg, x->src_reg, x->off, x->imm);
}
