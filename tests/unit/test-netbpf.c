/* SPDX-License-Identifier: MIT */
/* The --net cgroup BPF programs (lib/netbpf.c): shape (what the verifier insists on: no
 * backward or out-of-range jumps, no unreachable instruction, an exit at the end) and
 * meaning, by running them in a small interpreter of the few instructions they use over
 * hand-made contexts.  `test-netbpf --listing` prints docs/net-bpf.md's program listings,
 * and a test checks that file is what the code builds. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "macro.h"
#include "netbpf.h"

static const char *const mode_names[] = { "none", "loopback", "proxy" };
#define PORT 3128

static int
build(enum netbpf_prog p, enum netbpf_mode m, struct bpf_insn *i)
{
	int n = netbpf_build(p, m, m == NETBPF_PROXY ? PORT : 0, i, NETBPF_INSNS_MAX);

	assert_true(n > 0);
	return n;
}

/* Run prog over ctx: the instruction subset netbpf emits, with bounds checks. */
static int
run(const struct bpf_insn *i, int n, const void *ctx, size_t ctxlen)
{
	uint64_t r[11] = { 0 };
	int pc = 0, steps = 0;

	while (pc >= 0 && pc < n && steps++ < 1000) {
		const struct bpf_insn *x = &i[pc++];

		switch (x->code) {
		case BPF_LDX | BPF_MEM | BPF_W: {
			uint32_t v;

			assert_int_equal(x->src_reg, BPF_REG_1);
			assert_true(x->off >= 0 && (size_t) x->off + 4 <= ctxlen);
			memcpy(&v, (const uint8_t *) ctx + x->off, 4);
			r[x->dst_reg] = v;
			break;
		}
		case BPF_ALU | BPF_AND | BPF_K:
			r[x->dst_reg] = (uint32_t) r[x->dst_reg] & (uint32_t) x->imm;
			break;
		case BPF_JMP32 | BPF_JNE | BPF_K:
			if ((uint32_t) r[x->dst_reg] != (uint32_t) x->imm)
				pc += x->off;
			break;
		case BPF_JMP | BPF_JA:
			pc += x->off;
			break;
		case BPF_ALU64 | BPF_MOV | BPF_K:
			r[x->dst_reg] = (uint64_t) (int64_t) x->imm;
			break;
		case BPF_JMP | BPF_EXIT:
			return (int) r[0];
		default:
			fail_msg("unexpected instruction code 0x%02x", x->code);
		}
	}
	fail_msg("ran off the program");
	return -1;
}

static void
test_shape(void **state)
{
	(void) state;
	for (int m = NETBPF_NONE; m <= NETBPF_PROXY; m++)
		for (int p = 0; p < _NETBPF_PROG_MAX; p++) {
			struct bpf_insn i[NETBPF_INSNS_MAX];
			bool reach[NETBPF_INSNS_MAX] = { [0] = true };
			int n = build(p, m, i);

			assert_int_equal(i[n - 1].code, BPF_JMP | BPF_EXIT);
			for (int k = 0; k < n; k++) {
				uint8_t cls = BPF_CLASS(i[k].code);

				if (!reach[k])
					fail_msg("%s/%s: instruction %d unreachable", mode_names[m],
						 netbpf_progs[p].name, k);
				if (i[k].code == (BPF_JMP | BPF_EXIT))
					continue;
				if (cls == BPF_JMP || cls == BPF_JMP32) {
					assert_true(i[k].off >= 0);
					assert_true(k + 1 + i[k].off < n);
					reach[k + 1 + i[k].off] = true;
				}
				if (i[k].code != (BPF_JMP | BPF_JA))
					reach[k + 1] = true;
			}
		}
}

static void
test_bad_args(void **state)
{
	struct bpf_insn i[NETBPF_INSNS_MAX];

	(void) state;
	assert_int_equal(netbpf_build(NETBPF_CONNECT4, 7, 0, i, ELEMENTSOF(i)), -EINVAL);
	assert_int_equal(netbpf_build(NETBPF_CONNECT4, NETBPF_PROXY, 0, i, ELEMENTSOF(i)), -EINVAL);
	assert_int_equal(netbpf_build(_NETBPF_PROG_MAX, NETBPF_NONE, 0, i, ELEMENTSOF(i)), -EINVAL);
	assert_int_equal(netbpf_build(NETBPF_CONNECT6, NETBPF_LOOPBACK, 0, i, 3), -E2BIG);
}

static int
sock(enum netbpf_mode m, uint32_t type, uint32_t proto)
{
	struct bpf_insn i[NETBPF_INSNS_MAX];
	struct bpf_sock ctx = { .family = AF_INET, .type = type, .protocol = proto };
	int n = build(NETBPF_SOCK_CREATE, m, i);

	return run(i, n, &ctx, sizeof(ctx));
}

static void
test_sock_create(void **state)
{
	(void) state;
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_STREAM, IPPROTO_TCP), 1);
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_DGRAM, IPPROTO_UDP), 1);
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_STREAM, 262), 0);     /* MPTCP */
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_STREAM, IPPROTO_SCTP), 0);
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_DGRAM, IPPROTO_UDPLITE), 0);
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_DGRAM, IPPROTO_ICMP), 0);
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_RAW, IPPROTO_TCP), 0);
	assert_int_equal(sock(NETBPF_LOOPBACK, SOCK_STREAM, IPPROTO_UDP), 0);
	assert_int_equal(sock(NETBPF_PROXY, SOCK_STREAM, IPPROTO_TCP), 1);
	assert_int_equal(sock(NETBPF_PROXY, SOCK_DGRAM, IPPROTO_UDP), 0);
	assert_int_equal(sock(NETBPF_NONE, SOCK_STREAM, IPPROTO_TCP), 0);
}

static int
addr4(enum netbpf_prog p, enum netbpf_mode m, const char *ip, uint16_t port)
{
	struct bpf_insn i[NETBPF_INSNS_MAX];
	struct bpf_sock_addr ctx = { .user_family = AF_INET, .family = AF_INET,
				     .user_port = htons(port) };
	int n = build(p, m, i);

	assert_int_equal(inet_pton(AF_INET, ip, &ctx.user_ip4), 1);
	return run(i, n, &ctx, sizeof(ctx));
}

static int
addr6(enum netbpf_prog p, enum netbpf_mode m, const char *ip, uint16_t port)
{
	struct bpf_insn i[NETBPF_INSNS_MAX];
	struct bpf_sock_addr ctx = { .user_family = AF_INET6, .family = AF_INET6,
				     .user_port = htons(port) };
	int n = build(p, m, i);

	assert_int_equal(inet_pton(AF_INET6, ip, ctx.user_ip6), 1);
	return run(i, n, &ctx, sizeof(ctx));
}

static void
test_addresses(void **state)
{
	static const enum netbpf_prog lo4[] = { NETBPF_CONNECT4, NETBPF_SENDMSG4, NETBPF_BIND4 };
	static const enum netbpf_prog lo6[] = { NETBPF_CONNECT6, NETBPF_SENDMSG6, NETBPF_BIND6 };

	(void) state;
	for (size_t k = 0; k < ELEMENTSOF(lo4); k++) {
		assert_int_equal(addr4(lo4[k], NETBPF_LOOPBACK, "127.0.0.1", 80), 1);
		assert_int_equal(addr4(lo4[k], NETBPF_LOOPBACK, "127.255.1.2", 1), 1);
		assert_int_equal(addr4(lo4[k], NETBPF_LOOPBACK, "128.0.0.1", 80), 0);
		assert_int_equal(addr4(lo4[k], NETBPF_LOOPBACK, "126.0.0.1", 80), 0);
		assert_int_equal(addr4(lo4[k], NETBPF_LOOPBACK, "0.0.0.0", 80), 0);
		assert_int_equal(addr4(lo4[k], NETBPF_LOOPBACK, "1.0.0.127", 80), 0);
		assert_int_equal(addr4(lo4[k], NETBPF_NONE, "127.0.0.1", 80), 0);
		assert_int_equal(addr6(lo6[k], NETBPF_LOOPBACK, "::1", 80), 1);
		assert_int_equal(addr6(lo6[k], NETBPF_LOOPBACK, "::", 80), 0);
		assert_int_equal(addr6(lo6[k], NETBPF_LOOPBACK, "::2", 80), 0);
		assert_int_equal(addr6(lo6[k], NETBPF_LOOPBACK, "1::1", 80), 0);
		assert_int_equal(addr6(lo6[k], NETBPF_LOOPBACK, "::ffff:127.0.0.1", 80), 0);
		assert_int_equal(addr6(lo6[k], NETBPF_PROXY, "::1", PORT), 0);
	}
	/* proxy: exactly 127.0.0.1:PORT, by connect only. */
	assert_int_equal(addr4(NETBPF_CONNECT4, NETBPF_PROXY, "127.0.0.1", PORT), 1);
	assert_int_equal(addr4(NETBPF_CONNECT4, NETBPF_PROXY, "127.0.0.1", PORT + 1), 0);
	assert_int_equal(addr4(NETBPF_CONNECT4, NETBPF_PROXY, "127.0.0.2", PORT), 0);
	assert_int_equal(addr4(NETBPF_CONNECT4, NETBPF_PROXY, "10.0.0.1", PORT), 0);
	assert_int_equal(addr4(NETBPF_SENDMSG4, NETBPF_PROXY, "127.0.0.1", PORT), 0);
	assert_int_equal(addr4(NETBPF_BIND4, NETBPF_PROXY, "127.0.0.1", PORT), 0);
	assert_int_equal(addr4(NETBPF_BIND4, NETBPF_PROXY, "127.0.0.1", 0), 0);
}

static void
test_skb(void **state)
{
	struct bpf_insn i[NETBPF_INSNS_MAX];
	struct __sk_buff skb = { .ifindex = 1 };
	int n;

	(void) state;
	for (int p = NETBPF_INGRESS; p <= NETBPF_EGRESS; p++) {
		n = build(p, NETBPF_LOOPBACK, i);
		skb.ifindex = 1;
		assert_int_equal(run(i, n, &skb, sizeof(skb)), 1);
		skb.ifindex = 2;
		assert_int_equal(run(i, n, &skb, sizeof(skb)), 0);
		n = build(p, NETBPF_NONE, i);
		skb.ifindex = 1;
		assert_int_equal(run(i, n, &skb, sizeof(skb)), 0);
	}
}

static void
listing(FILE *f)
{
	for (int m = NETBPF_NONE; m <= NETBPF_PROXY; m++) {
		fprintf(f, "### --net %s\n\n", mode_names[m]);
		for (int p = 0; p < _NETBPF_PROG_MAX; p++) {
			struct bpf_insn i[NETBPF_INSNS_MAX];
			int n = netbpf_build(p, m, m == NETBPF_PROXY ? PORT : 0, i, ELEMENTSOF(i));

			fprintf(f, "`%s`:\n\n```\n", netbpf_progs[p].name);
			for (int k = 0; k < n; k++) {
				char buf[96];

				netbpf_format(&i[k], buf, sizeof(buf));
				fprintf(f, "%2d: %s\n", k, buf);
			}
			fprintf(f, "```\n\n");
		}
	}
}

/* docs/net-bpf.md holds, after the marker line, exactly listing()'s output. */
static void
test_docs_listing(void **state)
{
	static const char marker[] = "<!-- listing: generated by build/tests/test-netbpf --listing -->\n";
	char *doc = NULL, *want = NULL, *at;
	size_t dl = 0, wl = 0;
	FILE *f = fopen("docs/net-bpf.md", "r"), *m;

	(void) state;
	if (f == NULL)
		skip();         /* not run from the source tree */
	m = open_memstream(&doc, &dl);
	for (int c; (c = fgetc(f)) != EOF;)
		fputc(c, m);
	fclose(f);
	fclose(m);
	m = open_memstream(&want, &wl);
	listing(m);
	fclose(m);
	at = strstr(doc, marker);
	assert_non_null(at);
	assert_string_equal(at + strlen(marker), want);
	free(doc);
	free(want);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_sock_create),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_skb),
		cmocka_unit_test(test_docs_listing),
	};

	if (argc == 2 && strcmp(argv[1], "--listing") == 0) {
		listing(stdout);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
