/* SPDX-License-Identifier: MIT */
/* The seccomp filter's rules; see seccomp-rules.h.  Built from a key rather than from the
 * options and the plan, so that the build-time generator runs the same code: the key
 * carries exactly what the rules read (isolate-apply.c, seccomp_key()). */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"
#include "isolate/seccomp-rules.h"

static void
seccomp_freep(scmp_filter_ctx *ctx)
{
	if (*ctx != NULL)
		seccomp_release(*ctx);
}

/* One rule.  A system call this architecture does not have (libseccomp resolves it to a
 * negative pseudo-number, e.g. socketcall on x86_64) needs no rule. */
static int
deny(scmp_filter_ctx ctx, int err, const char *name, unsigned n, const struct scmp_arg_cmp *a)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR || nr < 0)
		return 0; /* not a syscall on this architecture (e.g. socketcall) */
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n, a);
}

#define DENY(ctx, err, name, ...)                                 \
	({                                                        \
		const struct scmp_arg_cmp _a[] = { __VA_ARGS__ }; \
		deny((ctx), (err), (name), ELEMENTSOF(_a), _a);   \
	})
#define DENY0(ctx, err, name) deny((ctx), (err), (name), 0, NULL)

/* --net loopback|proxy: socket() only for AF_UNIX, AF_INET and AF_INET6; for the inet
 * families only stream (and, with udp, datagram) sockets of protocol 0, TCP (or UDP).  The
 * cgroup BPF program checks the resolved protocol again in cgroup mode; in rlimit mode
 * this is what keeps UDP, raw, SCTP and MPTCP out.  Every comparison is 64-bit: junk in
 * the high bits of an argument makes it larger than any allowed value, hence refused. */
static int
deny_inet_only(scmp_filter_ctx ctx, bool udp)
{
	static const int other_families[] = { AF_UNSPEC, 3, 4, 5, 6, 7, 8, 9 };
	static const int bad_types[] = {
		SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET, 0, 7, 8, 9, 11, 12, 13,
		14,       15
	};
	const int families[] = { AF_INET, AF_INET6 };
	unsigned max_proto = udp ? IPPROTO_UDP : IPPROTO_TCP;
	int r;

	/* AF_UNIX = 1, AF_INET = 2, AF_INET6 = 10: refuse the others below 10 one by one,
	 * and everything above 10. */
	r = DENY(ctx, EAFNOSUPPORT, "socket", SCMP_A0(SCMP_CMP_GT, AF_INET6));
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(other_families); i++)
		r = DENY(ctx, EAFNOSUPPORT, "socket", SCMP_A0(SCMP_CMP_EQ, other_families[i]));
	for (size_t f = 0; r == 0 && f < ELEMENTSOF(families); f++) {
		for (size_t i = 0; r == 0 && i < ELEMENTSOF(bad_types); i++)
			r = DENY(ctx, EPROTONOSUPPORT, "socket", SCMP_A0(SCMP_CMP_EQ, families[f]),
				 SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, bad_types[i]));
		if (r == 0 && !udp)
			r = DENY(ctx, EPROTONOSUPPORT, "socket", SCMP_A0(SCMP_CMP_EQ, families[f]),
				 SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM));
		if (r == 0)
			r = DENY(ctx, EPROTONOSUPPORT, "socket", SCMP_A0(SCMP_CMP_EQ, families[f]),
				 SCMP_A2(SCMP_CMP_GT, max_proto));
		for (unsigned pr = 1; r == 0 && pr < max_proto; pr++)
			if (pr != IPPROTO_TCP)
				r = DENY(ctx, EPROTONOSUPPORT, "socket",
					 SCMP_A0(SCMP_CMP_EQ, families[f]),
					 SCMP_A2(SCMP_CMP_EQ, pr));
	}
	return r;
}

bool
scrules_tree(void)
{
	/* The library's version, not the header's: the shared library may differ from it. */
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	const struct scmp_version *v = seccomp_version();

	return v != NULL && (v->major > 2 ||
			     (v->major == 2 && (v->minor > 5 || (v->minor == 5 && v->micro >= 4))));
#else
	return false;
#endif
}

/* Refuse what reaches into another process of the same user: attaching with ptrace,
 * reading or writing its memory, taking its descriptors.  For a sandbox without a Landlock
 * domain, which would otherwise confine them to the sandbox.  PTRACE_TRACEME and tracing
 * a child the tracer starts stay (strace CMD inside the sandbox still works). */
static int
deny_reach_outside(scmp_filter_ctx ctx)
{
	int r = DENY(ctx, EPERM, "ptrace", SCMP_A0(SCMP_CMP_EQ, PTRACE_ATTACH));

	if (r == 0)
		r = DENY(ctx, EPERM, "ptrace", SCMP_A0(SCMP_CMP_EQ, PTRACE_SEIZE));
	if (r == 0)
		r = DENY0(ctx, EPERM, "process_vm_writev");
	if (r == 0)
		r = DENY0(ctx, EPERM, "process_vm_readv");
	if (r == 0)
		r = DENY0(ctx, EPERM, "pidfd_getfd");
	return r;
}

/* The ways to open or connect a socket that the socket rules cannot see: socketcall(2)
 * multiplexes every socket call through a pointer seccomp cannot read (refused whole on the
 * architectures that have it), and io_uring opens and connects sockets without socket(2)
 * or connect(2) (IORING_OP_SOCKET, IORING_OP_CONNECT). */
static int
deny_socket_bypass(scmp_filter_ctx ctx)
{
	int r = DENY0(ctx, ENOSYS, "socketcall");

	if (r == 0)
		r = DENY0(ctx, ENOSYS, "io_uring_setup");
	if (r == 0)
		r = DENY0(ctx, ENOSYS, "io_uring_enter");
	if (r == 0)
		r = DENY0(ctx, ENOSYS, "io_uring_register");
	return r;
}

/* A context that allows what no rule denies and kills on a foreign architecture. */
static int
init_ctx(scmp_filter_ctx ctx)
{
	/* Only the native ABI: a 64-bit process can still issue i386 (int 0x80) or x32
	 * system calls, which a filter written for x86_64 numbers would not recognise.
	 * libseccomp treats both as a foreign architecture; kill rather than allow. */
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);

	if (r < 0)
		return r;
		/* perf: the system calls in a binary tree rather than a list: the kernel, when it
	 * loads a filter, runs it for every system call number to learn which it may allow
	 * without running it again, and a walk down a list for each of them is a large part
	 * of the load.  Same actions: test-seccomp-tpl compares the two for every key and
	 * system call.  libseccomp before 2.5.4 gets the tree of a filter without rules wrong
	 * (ours always has some); with it, the list (scrules_tree()). */
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	if (scrules_tree())
		return seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#endif
	return 0;
}

/* Terminal injection: TIOCSTI pushes bytes into the input queue of a terminal the sandbox
 * inherited, i.e. types commands into the user's shell outside the sandbox (CVE-2017-5226
 * in bubblewrap).  TIOCLINUX can do the same on a virtual console.  ioctl's command is an
 * unsigned int: compare the low 32 bits only, or a command with junk in the high bits would
 * pass the filter and still reach the kernel. */
static int
deny_terminal_injection(scmp_filter_ctx ctx)
{
	int r = DENY(ctx, EPERM, "ioctl", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));

	if (r == 0)
		r = DENY(ctx, EPERM, "ioctl", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
	return r;
}

/* --net none, loopback, proxy: the sockets the mode refuses, and every way around
 * socket(2). */
static int
deny_sockets(scmp_filter_ctx ctx, const struct scrules_key *k)
{
	int r;

	if (k->net == POLICY_NET_NONE)
		/* Every socket family but AF_UNIX.  The comparison is 64-bit, so a domain
		 * with junk in the high bits is "!= AF_UNIX" and refused: the safe
		 * direction. */
		r = DENY(ctx, EAFNOSUPPORT, "socket", SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	else
		r = deny_inet_only(ctx, k->net == POLICY_NET_LOOPBACK);
	if (r == 0 && k->unix_closed)
		/* socketpair() stays, stream and seqpacket only: a datagram pair could still
		 * sendto()/connect() a socket file. */
		r = DENY(ctx, EPERM, "socket", SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	if (r == 0 && k->unix_closed)
		r = DENY(ctx, EPERM, "socketpair", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM));
	if (r == 0 && k->unix_closed)
		r = DENY(ctx, EPERM, "socketpair", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
	/* --net proxy allows no server: bind is refused (Landlock in rlimit mode, the cgroup
	 * programs in cgroup mode), but listen() on an unbound socket binds an ephemeral port
	 * by itself, where neither looks (Landlock has no listen right; the autobind passes no
	 * bind hook), and would take connections from other hosts in rlimit mode.  Refused
	 * for every socket: with --unix host a UNIX socket server too. */
	if (r == 0 && k->net == POLICY_NET_PROXY)
		r = DENY0(ctx, EPERM, "listen");
	if (r == 0)
		r = deny_socket_bypass(ctx);
	return r;
}

/* --net none, loopback, proxy: no way into another network namespace.  A new user namespace
 * gives CAP_NET_ADMIN/CAP_NET_RAW over a new network namespace and widens the kernel
 * surface; setns could join another.  clone3 passes its flags in memory: ENOSYS makes glibc
 * fall back to clone, whose flags (argument 0 on x86_64, aarch64 and most others) are
 * checked. */
static int
deny_other_netns(scmp_filter_ctx ctx, const struct scrules_key *k)
{
	int r = DENY(ctx, EPERM, "unshare",
		     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));

	if (r == 0)
		r = DENY(ctx, EPERM, "clone",
			 SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (r == 0)
		r = DENY0(ctx, ENOSYS, "clone3");
	if (r == 0)
		r = DENY0(ctx, EPERM, "setns");
	/* Without a Landlock domain nothing stops the sandbox from driving another process of
	 * the same user that has the network. */
	if (r == 0 && !k->landlock_domain)
		r = deny_reach_outside(ctx);
	return r;
}

/* --net host without --unix host: connect() goes to sandcap (unixgate.h), which connects on
 * the command's behalf and refuses UNIX sockets made outside the sandbox (the user's systemd
 * over D-Bus, a tmux server).  The family of the descriptor is not an argument the filter
 * can read: every connect() is notified. */
static int
notify_connect(scmp_filter_ctx ctx, const struct scrules_key *k)
{
	int nr = seccomp_syscall_resolve_name("connect");
	int r = 0;

	if (nr >= 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	if (r == 0)
		r = deny_socket_bypass(ctx);
	/* The gate lets a connect() through when a process of the sandbox holds the listening
	 * socket: taking one from a service of the user's (pidfd_getfd), or driving that
	 * service (ptrace), would get around it.  A Landlock domain confines both to the
	 * sandbox; without one, refuse them. */
	if (r == 0 && !k->landlock_domain)
		r = deny_reach_outside(ctx);
	return r;
}

int
scrules_build(const struct scrules_key *k, const struct protect_pids *set, void **ret_ctx)
{
	scmp_filter_ctx ctx;
	int r;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		return -ENOMEM;
	*ret_ctx = ctx;
	r = init_ctx(ctx);
	if (r == 0)
		r = deny_terminal_injection(ctx);
	/* New AF_UNIX sockets (k->unix_closed): refused with any --net but host unless --unix
	 * host (the systemd --user, D-Bus, docker.sock escapes: connect() to a socket file is
	 * not a Landlock right before ABI 9, and abstract sockets have no path at all). */
	if (r == 0 && k->net != POLICY_NET_HOST) {
		r = deny_sockets(ctx, k);
		if (r == 0)
			r = deny_other_netns(ctx, k);
	}
	if (r == 0 && k->net == POLICY_NET_HOST && k->unix_closed)
		r = notify_connect(ctx, k);
	/* The supervisors (protect.h): on every run. */
	if (r == 0)
		r = protect_seccomp_rules(ctx, set, k->landlock_signal);
	return r;
}

int
scrules_compile(const struct scrules_key *k, const struct protect_pids *set,
		struct sock_filter *buf, size_t max, size_t *ret_len, const char **ret_what)
{
	_cleanup_(seccomp_freep) scmp_filter_ctx ctx = NULL;
	_cleanup_close_ int fd = -EBADF;
	off_t size = 0;
	int r;

	/* libseccomp would otherwise probe the kernel with 9 seccomp() calls to learn which
	 * load flags and actions it has, for seccomp_load(), which we do not call.  None of
	 * them changes the program it generates (checked: byte for byte the same on Linux
	 * 6.18).  The one action we use that needs a newer kernel than seccomp filters
	 * themselves, KILL_PROCESS (for a foreign architecture), came in 4.14 with the
	 * SECCOMP_GET_ACTION_AVAIL query that plan->seccomp needs (isolate_seccomp_available()),
	 * which level 3 says (5 adds user notification, unixgate.h).  A kernel that refused the program would fail the load (a setup
	 * error), never run the sandbox without it.  The build-time generator sets the same
	 * level, so its programs are those this function makes on the same machine. */
	*ret_what = "build";
	/* Level 5: level 3's probes skipped likewise, and SCMP_ACT_NOTIFY accepted. */
	r = seccomp_api_set(5);
	if (r == 0)
		r = scrules_build(k, set, &ctx);
	if (r < 0)
		return r;
	/* libseccomp 2.5 exports to a descriptor only: a memfd, read back into buf. */
	*ret_what = "export";
	fd = memfd_create("sandcap-seccomp", MFD_CLOEXEC);
	r = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	if (r >= 0) {
		size = lseek(fd, 0, SEEK_CUR);
		if (size <= 0 || size % (off_t) sizeof(struct sock_filter) != 0 ||
		    (size_t) size / sizeof(struct sock_filter) > max)
			r = -EINVAL;
	}
	if (r < 0)
		return r;
	if (pread(fd, buf, (size_t) size, 0) != (ssize_t) size)
		return -EIO;
	*ret_len = (size_t) size / sizeof(struct sock_filter);
	return 0;
}
