/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/isolate/seccomp-tpl.c (issue 19): a build-time program patched with the
 * pids is the same filter as the program libseccomp generates now from the same rules
 * (seccomp-rules.h) for the same inputs.  A small classic-BPF interpreter runs both on the
 * same seccomp_data probes, for every key and many pid sets (random, reversed, repeated,
 * pgid equal to a pid, pid 1, values near 2^31), and requires the same action (return
 * value, errno included) for each: every system call the rules name, for the native, i386
 * and x32 arch values, with the argument values the rules test (each pid, its neighbours,
 * its negation as 32 and 64 bits, junk in the high bits, 0, -1, the fcntl/ioctl/socket
 * constants, the generator's placeholders), plus unrelated system calls.  It must be able
 * to fail: a template patched with another pid is found different. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "macro.h"
#include "isolate/seccomp-rules.h"
#include "isolate/seccomp-tpl.h"

#define X32_BIT 0x40000000u

/* Every system call a rule names (seccomp-rules.c, protect.c), then unrelated ones. */
static const char *const names[] = {
	"ioctl", "socket", "socketpair", "socketcall", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "unshare", "clone", "clone3", "setns", "ptrace",
	"process_vm_writev", "process_vm_readv", "pidfd_getfd", "kill", "tkill", "tgkill",
	"rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "prlimit64", "kcmp",
	"sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity",
	"setpriority", "ioprio_set", "migrate_pages", "move_pages", "process_madvise",
	"process_mrelease", "get_robust_list", "fcntl", "fcntl64", "setpgid",
	"pidfd_send_signal",
	/* unrelated */
	"read", "write", "openat", "getpid", "execve", "exit_group", "connect", "bind",
	"sendto", "getpgid", "wait4", "mmap",
};

/* The constants the rules compare with, and some neighbours. */
static const uint64_t consts[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 132, 262,
	F_SETOWN, F_GETOWN, F_SETOWN_EX, F_SETSIG, FIOSETOWN, SIOCSPGRP, TIOCSTI, TIOCLINUX,
	AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET,
	SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET, SOCK_DGRAM | SOCK_CLOEXEC,
	SOCK_STREAM | SOCK_NONBLOCK, SOCK_PACKET,
	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, IPPROTO_MPTCP,
	CLONE_NEWUSER, CLONE_NEWUSER | CLONE_NEWNET, CLONE_NEWNET,
	PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_PEEKDATA,
	UINT32_MAX, UINT64_MAX, 0x7fffffff, 0x80000000u, 0xdead000000000000ull,
	0xdead000000000000ull | AF_UNIX, 0xdead000000000000ull | F_SETOWN,
	0xffffffff00000000ull | TIOCSTI,
	/* the generator's placeholders (tools/seccomp-gen.c) */
	1000003, 1000005, 1000007, 1000009, 1000011, 2000003, 2000009, 2000011,
};

#define VALUES_MAX 256

/* Every value a probe's argument takes for this pid set. */
static size_t
values_for(const struct protect_pids *set, uint64_t *v)
{
	size_t n = 0;

	for (size_t i = 0; i < ELEMENTSOF(consts); i++)
		v[n++] = consts[i];
	for (size_t i = 0; i <= set->n; i++) {
		uint32_t p = (uint32_t) (i < set->n ? set->pid[i] : set->pgid);
		const uint32_t base[] = { p, p - 1, p + 1, -p, -p - 1, -p + 1 };

		for (size_t b = 0; b < ELEMENTSOF(base); b++) {
			v[n++] = base[b];
			v[n++] = (uint64_t) (int64_t) (int32_t) base[b];     /* sign-extended */
			v[n++] = 0xdead000000000000ull | base[b];            /* junk above */
		}
	}
	assert_true(n <= VALUES_MAX);
	return n;
}

/* Classic BPF as the kernel runs a seccomp filter (every opcode the kernel's checker
 * allows for seccomp; any other fails the test). */
static uint32_t
bpf_run(const struct sock_filter *f, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t k = i->k;
		size_t off = 0;
		bool jump = false;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k % 4 != 0 || k + 4 > sizeof(*d))
				fail_msg("load of %u at %zu: out of seccomp_data", k, pc);
			memcpy(&a, (const char *) d + k, 4);
			break;
		case BPF_LD | BPF_W | BPF_LEN: a = sizeof(*d); break;
		case BPF_LDX | BPF_W | BPF_LEN: x = sizeof(*d); break;
		case BPF_LD | BPF_IMM: a = k; break;
		case BPF_LDX | BPF_IMM: x = k; break;
		case BPF_LD | BPF_MEM: assert_true(k < BPF_MEMWORDS); a = mem[k]; break;
		case BPF_LDX | BPF_MEM: assert_true(k < BPF_MEMWORDS); x = mem[k]; break;
		case BPF_ST: assert_true(k < BPF_MEMWORDS); mem[k] = a; break;
		case BPF_STX: assert_true(k < BPF_MEMWORDS); mem[k] = x; break;
		case BPF_ALU | BPF_AND | BPF_K: a &= k; break;
		case BPF_ALU | BPF_AND | BPF_X: a &= x; break;
		case BPF_ALU | BPF_OR | BPF_K: a |= k; break;
		case BPF_ALU | BPF_OR | BPF_X: a |= x; break;
		case BPF_ALU | BPF_XOR | BPF_K: a ^= k; break;
		case BPF_ALU | BPF_ADD | BPF_K: a += k; break;
		case BPF_ALU | BPF_SUB | BPF_K: a -= k; break;
		case BPF_ALU | BPF_LSH | BPF_K: assert_true(k < 32); a <<= k; break;
		case BPF_ALU | BPF_RSH | BPF_K: assert_true(k < 32); a >>= k; break;
		case BPF_ALU | BPF_NEG: a = -a; break;
		case BPF_MISC | BPF_TAX: x = a; break;
		case BPF_MISC | BPF_TXA: a = x; break;
		case BPF_JMP | BPF_JA: off = k; jump = true; break;
		case BPF_JMP | BPF_JEQ | BPF_K: off = a == k ? i->jt : i->jf; jump = true; break;
		case BPF_JMP | BPF_JGT | BPF_K: off = a > k ? i->jt : i->jf; jump = true; break;
		case BPF_JMP | BPF_JGE | BPF_K: off = a >= k ? i->jt : i->jf; jump = true; break;
		case BPF_JMP | BPF_JSET | BPF_K: off = (a & k) ? i->jt : i->jf; jump = true; break;
		case BPF_JMP | BPF_JEQ | BPF_X: off = a == x ? i->jt : i->jf; jump = true; break;
		case BPF_JMP | BPF_JGT | BPF_X: off = a > x ? i->jt : i->jf; jump = true; break;
		case BPF_JMP | BPF_JGE | BPF_X: off = a >= x ? i->jt : i->jf; jump = true; break;
		case BPF_RET | BPF_K: return k;
		case BPF_RET | BPF_A: return a;
		default: fail_msg("opcode %#x at %zu: not interpreted", i->code, pc);
		}
		if (jump && off >= len - pc - 1)        /* as the kernel's checker */
			fail_msg("jump out of the program at %zu", pc);
		pc += off;
	}
	fail_msg("the program ran off its end");
	return 0;
}

struct arch {
	uint32_t audit;                 /* seccomp_data.arch */
	uint32_t token;                 /* libseccomp's, to resolve names */
	uint32_t nr_or;
};

struct ctx {
	const struct scrules_key *k;
	const struct protect_pids *set;
	const struct sock_filter *tpl, *ref;
	size_t tpl_len, ref_len;
	size_t probes;
	bool count_only;                /* count differences instead of failing on one */
	size_t diffs;
};

static void
probe(struct ctx *c, const struct seccomp_data *d)
{
	uint32_t t = bpf_run(c->tpl, c->tpl_len, d);
	uint32_t r = bpf_run(c->ref, c->ref_len, d);

	c->probes++;
	if (t != r && c->count_only)
		c->diffs++;
	else if (t != r)
		fail_msg("key net=%d unix_closed=%d landlock_domain=%d landlock_signal=%d, pids "
			 "%d %d %d %d (n %zu) pgid %d: arch %#x nr %d args %#llx %#llx %#llx: "
			 "template %#x, libseccomp %#x", (int) c->k->net, c->k->unix_closed,
			 c->k->landlock_domain, c->k->landlock_signal, c->set->pid[0],
			 c->set->pid[1], c->set->pid[2], c->set->pid[3], c->set->n, c->set->pgid,
			 d->arch, d->nr, (unsigned long long) d->args[0],
			 (unsigned long long) d->args[1], (unsigned long long) d->args[2], t, r);
}

/* System calls whose rules compare two arguments (fcntl's F_SETOWN with a pid, socket's
 * family with a type or a protocol, socketpair's type). */
static bool
two_args(const char *name)
{
	return streq(name, "fcntl") || streq(name, "fcntl64") || streq(name, "socket") ||
	       streq(name, "socketpair");
}

/* Every probe for one key and pid set: for the native arch each of arguments 0..3 alone
 * over every value, and for the system calls whose rules compare two arguments the pairs
 * (a constant of theirs, every value) at positions (0,1), (1,2), (0,2); with full, every
 * pair of values at those positions, for every system call.  The i386 and x32 arch values
 * get argument 0 alone (libseccomp's program tests the arch before anything else). */
static void
probe_all(struct ctx *c, bool full)
{
	static const uint64_t pair_a[] = { F_SETOWN, F_SETOWN_EX, F_GETOWN, AF_INET, AF_INET6,
					   AF_UNIX, 0xdead000000000000ull | F_SETOWN };
	const struct arch arches[] = {
		{ seccomp_arch_native(), seccomp_arch_native(), 0 },
		{ 0x40000003u /* AUDIT_ARCH_I386 */, SCMP_ARCH_X86, 0 },
		{ 0xc000003eu /* AUDIT_ARCH_X86_64 */, SCMP_ARCH_X32, X32_BIT },
	};
	uint64_t v[VALUES_MAX];
	size_t nv = values_for(c->set, v);

	for (size_t ai = 0; ai < ELEMENTSOF(arches); ai++) {
		for (size_t s = 0; s < ELEMENTSOF(names) + 2; s++) {
			struct seccomp_data d = { .arch = arches[ai].audit };
			bool native = ai == 0;
			int nr;

			if (s < ELEMENTSOF(names))
				nr = seccomp_syscall_resolve_name_arch(arches[ai].token, names[s]);
			else
				nr = s == ELEMENTSOF(names) ? 999 : 0x3fffffff;   /* unknown numbers */
			if (nr < 0)
				continue;       /* not on this architecture */
			d.nr = (int) ((uint32_t) nr | arches[ai].nr_or);
			probe(c, &d);
			for (size_t a = 0; a < (native ? 4 : 1); a++)
				for (size_t i = 0; i < nv; i++) {
					struct seccomp_data e = d;

					e.args[a] = v[i];
					probe(c, &e);
				}
			if (!native)
				continue;
			if (s < ELEMENTSOF(names) && two_args(names[s]))
				for (size_t p = 0; p < ELEMENTSOF(pair_a); p++)
					for (size_t i = 0; i < nv; i++) {
						struct seccomp_data e = d;

						e.args[0] = pair_a[p];
						e.args[1] = v[i];
						probe(c, &e);
						e.args[1] = pair_a[p];
						e.args[2] = v[i];
						probe(c, &e);
						e.args[1] = 0;
						e.args[0] = pair_a[p];
						probe(c, &e);
					}
			if (!full)
				continue;
			for (size_t a = 0; a < 3; a++)
				for (size_t b = a + 1; b < 3; b++)
					for (size_t i = 0; i < nv; i++)
						for (size_t j = 0; j < nv; j++) {
							struct seccomp_data e = d;

							e.args[a] = v[i];
							e.args[b] = v[j];
							probe(c, &e);
						}
		}
	}
}

/* Every key a plan can make (seccomp-rules.h). */
static size_t
all_keys(struct scrules_key *k)
{
	static const enum policy_net nets[] = { POLICY_NET_HOST, POLICY_NET_PROXY,
						POLICY_NET_LOOPBACK, POLICY_NET_NONE };
	size_t n = 0;

	for (size_t i = 0; i < ELEMENTSOF(nets); i++)
		for (int uc = 0; uc < 2; uc++)
			for (int ld = 0; ld < 2; ld++)
				for (int ls = 0; ls < 2; ls++)
					if (!(ls && !ld))
						k[n++] = (struct scrules_key) {
							.net = nets[i], .unix_closed = uc,
							.landlock_domain = ld, .landlock_signal = ls };
	return n;
}

static struct sock_filter tpl_buf[BPF_MAXINSNS], ref_buf[BPF_MAXINSNS];

static size_t
compare(const struct scrules_key *k, const struct protect_pids *set, bool full)
{
	struct ctx c = { .k = k, .set = set, .tpl = tpl_buf, .ref = ref_buf };
	const char *what;

	assert_int_equal(sctpl_fill(k, set, tpl_buf, ELEMENTSOF(tpl_buf), &c.tpl_len), 0);
	assert_int_equal(scrules_compile(k, set, ref_buf, ELEMENTSOF(ref_buf), &c.ref_len,
					 &what), 0);
	probe_all(&c, full);
	return c.probes;
}

static uint32_t rng = 0x2545f491;

static uint32_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static pid_t
random_pid(void)
{
	switch (next() % 4) {
	case 0: return (pid_t) (1 + next() % 4194304);         /* pid_max's ceiling */
	case 1: return (pid_t) (1 + next() % 32768);
	case 2: return (pid_t) (0x7fffffff - next() % 16);      /* near 2^31 */
	default: return (pid_t) (1 + next() % 64);
	}
}

static const struct protect_pids fixed_sets[] = {
	{ .pid = { 4242, 4100 }, .n = 2, .pgid = 4242 },                /* cgroup mode, leader */
	{ .pid = { 4100, 4242 }, .n = 2, .pgid = 4000 },                /* pgid below */
	{ .pid = { 4242, 4100 }, .n = 2, .pgid = 5000 },                /* reversed, above */
	{ .pid = { 9, 3, 7 }, .n = 3, .pgid = 5 },                      /* pgid between */
	{ .pid = { 1 }, .n = 1, .pgid = 1 },                            /* -1 is kill(-1) */
	{ .pid = { 8, 15 }, .n = 2, .pgid = 8 },                        /* F_SETOWN, _EX */
	{ .pid = { 7, 7, 7, 7 }, .n = 4, .pgid = 7 },                   /* repeated */
	{ .pid = { 300, 200, 300, 100 }, .n = 4, .pgid = 200 },
	{ .pid = { 0x7fffffff, 0x7ffffffe, 1, 2 }, .n = 4, .pgid = 0x7fffffff },
	{ .pid = { 4194304, 4194303 }, .n = 2, .pgid = 4194302 },
	{ .pid = { 1000003, 2000011 }, .n = 2, .pgid = 1000005 },       /* the placeholders */
	{ .pid = { TIOCSTI, FIOSETOWN, SIOCSPGRP }, .n = 3, .pgid = TIOCLINUX },
};

/* The fixed sets, for every key. */
static void
test_fixed_sets_full(void **state)
{
	struct scrules_key keys[32];
	size_t nk = all_keys(keys), probes = 0;

	(void) state;
	assert_int_equal(nk, sctpl_count);
	for (size_t i = 0; i < ELEMENTSOF(fixed_sets); i++)
		for (size_t k = 0; k < nk; k++)
			/* Every pair of argument values: for the first set, with the keys
			 * of --net none without a Landlock domain (the longest rule lists). */
			probes += compare(&keys[k], &fixed_sets[i], i == 0 &&
					  keys[k].net == POLICY_NET_NONE && !keys[k].landlock_domain);
	print_message("  %zu probes\n", probes);
}

/* Random sets: random order, size, repeats, pgid equal to a pid or not. */
static void
test_random_sets(void **state)
{
	struct scrules_key keys[32];
	size_t nk = all_keys(keys), probes = 0;

	(void) state;
	for (int round = 0; round < 12; round++) {
		struct protect_pids set = { .n = 1 + next() % PROTECT_PIDS_MAX };

		for (size_t i = 0; i < set.n; i++)
			set.pid[i] = next() % 5 == 0 && i > 0 ? set.pid[next() % i] : random_pid();
		set.pgid = next() % 2 ? set.pid[next() % set.n] : random_pid();
		for (size_t k = 0; k < nk; k++)
			probes += compare(&keys[k], &set, false);
	}
	print_message("  %zu probes\n", probes);
}

/* The probes see a wrong pid: a template patched for one set is not the filter of a set
 * that differs in one pid, or only in its process group. */
static void
test_probes_can_fail(void **state)
{
	const struct protect_pids a = { .pid = { 4242, 4100 }, .n = 2, .pgid = 4242 };
	const struct protect_pids others[] = {
		{ .pid = { 4242, 4101 }, .n = 2, .pgid = 4242 },
		{ .pid = { 4242, 4100 }, .n = 2, .pgid = 4100 },
		{ .pid = { 4242 }, .n = 1, .pgid = 4242 },
	};
	struct scrules_key keys[32];
	size_t nk = all_keys(keys);

	(void) state;
	for (size_t k = 0; k < nk; k++)
		for (size_t o = 0; o < ELEMENTSOF(others); o++) {
			/* Probe values from a: its pids, their neighbours (4101). */
			struct ctx c = { .k = &keys[k], .set = &a, .tpl = tpl_buf,
					 .ref = ref_buf, .count_only = true };
			const char *what;

			assert_int_equal(sctpl_fill(&keys[k], &a, tpl_buf, BPF_MAXINSNS,
						    &c.tpl_len), 0);
			assert_int_equal(scrules_compile(&keys[k], &others[o], ref_buf,
							 BPF_MAXINSNS, &c.ref_len, &what), 0);
			probe_all(&c, false);
			assert_true(c.diffs > 0);
		}
}

/* The program of the same rules as a list of system calls (libseccomp's default), for
 * comparison with ours, a binary tree (seccomp-rules.c). */
static size_t
compile_as_list(const struct scrules_key *k, const struct protect_pids *set,
		struct sock_filter *buf, size_t max)
{
	void *ctx = NULL;
	int fd = memfd_create("test-seccomp", MFD_CLOEXEC);
	off_t size;

	assert_true(fd >= 0);
	assert_int_equal(seccomp_api_set(5), 0);
	assert_int_equal(scrules_build(k, set, &ctx), 0);
	assert_int_equal(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 1), 0);
	assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
	seccomp_release(ctx);
	size = lseek(fd, 0, SEEK_CUR);
	assert_true(size > 0 && (size_t) size <= max * sizeof(*buf));
	assert_int_equal(pread(fd, buf, (size_t) size, 0), size);
	close(fd);
	return (size_t) size / sizeof(*buf);
}

/* One key and set: our program (a tree) against the list form, on the probes of
 * probe_all(), every system call number up to 1023 (and the x32 and i386 ones) with
 * arguments 0 and with a protected pid in each of the first three, and each rule's system
 * call with each of its first three arguments set to every rule's system call number (a
 * tree that compared an argument as if it were the number would differ there).  Returns
 * whether the two differ in form. */
static bool
tree_against_list(const struct scrules_key *k, const struct protect_pids *set, size_t *probes)
{
	const uint32_t arches[] = { seccomp_arch_native(), 0x40000003u, 0xc000003eu };
	struct ctx c = { .k = k, .set = set, .tpl = tpl_buf, .ref = ref_buf };
	int nrs[ELEMENTSOF(names)];
	const char *what;

	assert_int_equal(scrules_compile(k, set, tpl_buf, BPF_MAXINSNS, &c.tpl_len, &what), 0);
	c.ref_len = compile_as_list(k, set, ref_buf, BPF_MAXINSNS);
	probe_all(&c, false);
	for (size_t a = 0; a < ELEMENTSOF(arches); a++)
		for (uint32_t nr = 0; nr < 1024; nr++) {
			struct seccomp_data d = { .arch = arches[a], .nr = (int) nr };

			if (a == 2)
				d.nr = (int) (nr | X32_BIT);
			probe(&c, &d);
			for (size_t arg = 0; arg < 3; arg++) {
				struct seccomp_data e = d;

				e.args[arg] = (uint64_t) set->pid[0];
				probe(&c, &e);
			}
		}
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		nrs[i] = seccomp_syscall_resolve_name(names[i]);
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		for (size_t j = 0; nrs[i] >= 0 && j < ELEMENTSOF(names); j++)
			for (size_t arg = 0; nrs[j] >= 0 && arg < 3; arg++) {
				struct seccomp_data e = { .arch = seccomp_arch_native(), .nr = nrs[i] };

				e.args[arg] = (uint64_t) nrs[j];
				probe(&c, &e);
			}
	*probes += c.probes;
	return c.tpl_len != c.ref_len || memcmp(tpl_buf, ref_buf, c.tpl_len * sizeof(*tpl_buf)) != 0;
}

/* The binary tree decides as the list does (issue 19): every key, for the fixed sets and
 * for random ones (tree_against_list()); and it is a tree: the programs differ in form
 * where libseccomp makes one. */
static void
test_tree_is_list(void **state)
{
	struct scrules_key keys[32];
	size_t nk = all_keys(keys), probes = 0, differ = 0, programs = 0;

	(void) state;
	for (size_t i = 0; i < ELEMENTSOF(fixed_sets); i++)
		for (size_t k = 0; k < nk; k++, programs++)
			differ += tree_against_list(&keys[k], &fixed_sets[i], &probes);
	for (int round = 0; round < 4; round++) {
		struct protect_pids set = { .n = 1 + next() % PROTECT_PIDS_MAX };

		for (size_t i = 0; i < set.n; i++)
			set.pid[i] = random_pid();
		set.pgid = next() % 2 ? set.pid[next() % set.n] : random_pid();
		for (size_t k = 0; k < nk; k++, programs++)
			differ += tree_against_list(&keys[k], &set, &probes);
	}
	if (scrules_tree())
		assert_int_equal(differ, programs);
	print_message("  %zu probes, %zu of %zu programs differ in form\n", probes, differ,
		      programs);
}

/* No template without a process group or a pid: the caller uses libseccomp then. */
static void
test_no_template(void **state)
{
	const struct protect_pids no_pgid = { .pid = { 4242 }, .n = 1, .pgid = 0 };
	const struct protect_pids no_pid = { .n = 0, .pgid = 4242 };
	const struct scrules_key k = { .net = POLICY_NET_NONE, .unix_closed = true };
	const struct scrules_key bad = { .net = POLICY_NET_HOST, .landlock_signal = true };
	const struct protect_pids ok = { .pid = { 4242 }, .n = 1, .pgid = 4242 };
	size_t len = 0;

	(void) state;
	assert_int_equal(sctpl_fill(&k, &no_pgid, tpl_buf, BPF_MAXINSNS, &len), -ENOENT);
	assert_int_equal(sctpl_fill(&k, &no_pid, tpl_buf, BPF_MAXINSNS, &len), -ENOENT);
	assert_int_equal(sctpl_fill(&bad, &ok, tpl_buf, BPF_MAXINSNS, &len), -ENOENT);
	assert_int_equal(sctpl_fill(&k, &ok, tpl_buf, 10, &len), -ENOENT);     /* too small */
	assert_int_equal(len, 0);
	assert_int_equal(sctpl_fill(&k, &ok, tpl_buf, BPF_MAXINSNS, &len), 0);
	assert_true(len > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_template),
		cmocka_unit_test(test_probes_can_fail),
		cmocka_unit_test(test_fixed_sets_full),
		cmocka_unit_test(test_random_sets),
		cmocka_unit_test(test_tree_is_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
