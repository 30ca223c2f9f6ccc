/* SPDX-License-Identifier: MIT */
/* Unprivileged isolation applied in the sandboxed child just before exec: a Landlock
 * filesystem policy (--fs) and network denial (--net none) by seccomp plus, where the kernel
 * has it, Landlock's TCP rights and scopes.  Nothing here needs privilege: both Landlock and
 * seccomp only need PR_SET_NO_NEW_PRIVS, which the caller sets first.
 *
 * The parent decides (isolate_plan, here) and the child applies (isolate_apply,
 * isolate-apply.c), so that the report can say what enforces each part before anything runs
 * and a policy the kernel cannot enforce is refused with exit 125 instead of being silently
 * dropped.
 * docs/isolation.md is the user-facing description; keep the two in step. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errbuf.h"
#include "isolate/isolate.h"
#include "log.h"
#include "macro.h"
#include "isolate/seccomp-rules.h"
#include "isolate/seccomp-tpl.h"
#include "stage.h"

#include "isolate/landlock-compat.h"

#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif

#define LL_ABI1_FS ((LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1) /* bits 0..12 */

#define FS_READ \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* A writable tree gets every right but creating device nodes (which needs CAP_MKNOD anyway). */
#define FS_WRITE (~(uint64_t) (LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK))
#define DEV_RW                                                          \
	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define DEV_RO (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

int
isolate_parse_fs(const char *s, enum policy_fs *ret)
{
	if (s == NULL)
		return -EINVAL;
	if (streq(s, "none"))
		*ret = POLICY_FS_NONE;
	else if (streq(s, "ro"))
		*ret = POLICY_FS_RO;
	else if (streq(s, "strict"))
		*ret = POLICY_FS_STRICT;
	else
		return -EINVAL;
	return 0;
}

int
isolate_parse_net(const char *s, enum policy_net *ret)
{
	return policy_net_parse(s, ret);
}

int
isolate_landlock_abi(void)
{
	/* Asked once per process: the kernel's answer cannot change while sandcap runs, and a
	 * run asks for the mode's choice and again for the plan. */
	static int abi = -1;

	if (abi < 0) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
				 LANDLOCK_CREATE_RULESET_VERSION);

		/* ENOSYS: not built in; EOPNOTSUPP: built in but not in the lsm= list. */
		abi = v > 0 ? (int) v : 0;
	}
	return abi;
}

bool
isolate_seccomp_available(void)
{
	static int avail = -1; /* as isolate_landlock_abi(): asked once */

	if (avail < 0) {
		uint32_t action = SECCOMP_RET_ERRNO;

		/* Needs CONFIG_SECCOMP_FILTER (and Linux 4.14 for the query itself). */
		avail = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
	}
	return avail > 0;
}

uint64_t
isolate_landlock_fs_mask(int abi)
{
	uint64_t m = 0;

	if (abi >= 1)
		m |= LL_ABI1_FS;
	if (abi >= 2)
		m |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		m |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		m |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return m;
}

/* The system directories --fs strict makes readable (and executable).  Missing ones are
 * skipped (a usr-merged system has /lib as a symlink; /libx32 rarely exists). */
static const char *const strict_read_dirs[] = {
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/etc",
	"/opt",
	"/proc",
	"/sys/devices/system/cpu",
};

/* Devices every mode with a filesystem policy keeps usable. */
static const struct {
	const char *path;
	uint64_t access;
} dev_rules[] = {
	{ "/dev/null", DEV_RW },   { "/dev/zero", DEV_RW },
	{ "/dev/full", DEV_RW },   { "/dev/tty", DEV_RW },
	{ "/dev/ptmx", DEV_RW },   { "/dev/pts", DEV_RW | LANDLOCK_ACCESS_FS_READ_DIR },
	{ "/dev/random", DEV_RO }, { "/dev/urandom", DEV_RO },
};

static int
add_rule(struct isolate_rule *rules, size_t max, size_t *n, const char *path, uint64_t access,
	 uint64_t mask, const char *origin)
{
	if (*n >= max)
		return -E2BIG;
	rules[*n] = (struct isolate_rule){
		.path = path,
		.access = access & mask,
		.origin = origin,
	};
	(*n)++;
	return 0;
}

int
isolate_fs_rules(const struct isolate_opts *o, int abi, const char *tmpdir,
		 struct isolate_rule *rules, size_t max, size_t *ret_n, uint64_t *ret_handled)
{
	uint64_t mask = isolate_landlock_fs_mask(abi);
	size_t n = 0;
	int r = 0;

	if (o->fs == POLICY_FS_NONE || mask == 0) {
		*ret_n = 0;
		*ret_handled = 0;
		return 0;
	}

	/* What is readable. */
	if (o->fs == POLICY_FS_RO)
		r = add_rule(rules, max, &n, "/", FS_READ, mask, NULL);
	else
		for (size_t i = 0; r == 0 && i < ELEMENTSOF(strict_read_dirs); i++)
			r = add_rule(rules, max, &n, strict_read_dirs[i], FS_READ, mask, NULL);
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(dev_rules); i++)
		r = add_rule(rules, max, &n, dev_rules[i].path, dev_rules[i].access, mask, NULL);
	for (size_t i = 0; r == 0 && i < o->n_ro; i++)
		r = add_rule(rules, max, &n, o->ro[i], FS_READ, mask, "--ro");

	/* What is writable. */
	if (r == 0 && o->workspace != NULL)
		r = add_rule(rules, max, &n, o->workspace, FS_WRITE, mask, "workspace");
	if (r == 0 && tmpdir != NULL)
		r = add_rule(rules, max, &n, tmpdir, FS_WRITE, mask, "TMPDIR");
	for (size_t i = 0; r == 0 && i < o->n_rw; i++)
		r = add_rule(rules, max, &n, o->rw[i], FS_WRITE, mask, "--rw");
	if (r < 0)
		return r;

	*ret_n = n;
	*ret_handled = mask;
	return 0;
}

/* Format into one of the plan's char arrays (an array, not a pointer: sizeof is its size). */
#define set_str(buf, ...) ((void) snprintf((buf), sizeof(buf), __VA_ARGS__))

/* "sandcap: OPT PATH: WHAT", the path escaped.  Never inlined: its buffer is on the stack
 * only when there is an error to say (perf). */
static _noinline_ void
path_err(char *err, size_t errlen, const char *opt, const char *path, const char *what)
{
	char esc[PATH_MAX];

	set_err(err, errlen, "sandcap: %s %s: %s", opt, log_escape(path, esc, sizeof(esc)), what);
}

/* "--rw PATH" must name something that exists, and must not be given without a policy. */
static int
check_paths(const struct isolate_opts *o, const char *opt, const char *const *paths, size_t n,
	    char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (paths[i] == NULL || paths[i][0] == '\0') {
			set_err(err, errlen, "sandcap: %s: empty path", opt);
			return -EINVAL;
		}
		if (o->fs == POLICY_FS_NONE) {
			path_err(err, errlen, opt, paths[i],
				 "needs a filesystem policy; add --fs ro or --fs strict");
			return -EINVAL;
		}
		if (stat(paths[i], &st) < 0) {
			int r = -errno;

			path_err(err, errlen, opt, paths[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

static bool
has_relative(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (paths[i] != NULL && paths[i][0] != '/')
			return true;
	return false;
}

bool
isolate_unotify_available(void)
{
	static int avail = -1;

	if (avail < 0) {
		uint32_t action = SECCOMP_RET_USER_NOTIF;

		avail = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
	}
	return avail > 0;
}

/* The report's words (96 bytes at most) where nothing keeps them out. */
#define UNIX_OPEN "the user's services are reachable; limits bind runaway code only"

/* --net host: the user's services over UNIX sockets (unixgate.h).  seccomp is the kernel's
 * filters; user notification came with Linux 5.0, the descriptor injection sandcap needs
 * with 5.9, the oldest kernel sandcap runs on. */
static int
plan_unix_notify(const struct isolate_opts *o, int abi, bool seccomp, struct isolate_plan *p,
		 char *err, size_t errlen)
{
	if (o->unix_host) {
		set_str(p->unix_enforcement, "none (--unix host): " UNIX_OPEN);
		return 0;
	}
	if (seccomp && isolate_unotify_available()) {
		p->unix_notify = p->seccomp = true;
		/* Where Landlock scopes abstract sockets (ABI 6), datagrams to abstract names
		 * outside are refused too: sendto() by the scope, connect() (which sandcap
		 * makes, outside the domain) by sandcap for every abstract name. */
		p->landlock_scope = abi >= 6;
		if (p->landlock_scope)
			set_str(p->unix_enforcement,
				"seccomp-notify + "
				"landlock: UNIX only to its own sockets, except datagrams to paths "
				"(unchecked)");
		else
			set_str(p->unix_enforcement,
				"seccomp-notify: "
				"UNIX stream/seqpacket only to the sandbox's listeners; datagrams "
				"unchecked");
		return 0;
	}
	if (o->fallback) {
		set_str(p->unix_enforcement,
			"none (no seccomp user "
			"notification; --fallback): the user's services are reachable");
		return 0;
	}
	set_err(err, errlen,
		"sandcap: --net host: this kernel has no seccomp user notification "
		"(needs CONFIG_SECCOMP_FILTER, Linux 5.9), which keeps the sandbox from the user's "
		"services over UNIX sockets (systemd --user, D-Bus, tmux); pass --unix host to "
		"open them, or --fallback");
	return -EOPNOTSUPP;
}

/* --rw and --ro: each path exists and has a policy to go into; the base of relative ones. */
static int
plan_paths(const struct isolate_opts *o, struct isolate_plan *p, char *err, size_t errlen)
{
	int r;

	if (o->n_rw > ISOLATE_PATHS_MAX || o->n_ro > ISOLATE_PATHS_MAX) {
		set_err(err, errlen, "sandcap: too many --rw/--ro paths (at most %d each)",
			ISOLATE_PATHS_MAX);
		return -E2BIG;
	}
	r = check_paths(o, "--rw", o->rw, o->n_rw, err, errlen);
	if (r < 0)
		return r;
	r = check_paths(o, "--ro", o->ro, o->n_ro, err, errlen);
	if (r < 0)
		return r;
	/* The base of relative --rw/--ro paths, asked only when there is one. */
	if (has_relative(o->rw, o->n_rw) || has_relative(o->ro, o->n_ro)) {
		if (getcwd(p->cwd, sizeof(p->cwd)) == NULL)
			p->cwd[0] = '\0'; /* relative paths then fail in the child, loudly */
	}
	return 0;
}

/* --fs: Landlock, or nothing with --fallback. */
static int
plan_fs(const struct isolate_opts *o, int abi, struct isolate_plan *p, char *err, size_t errlen)
{
	if (o->fs == POLICY_FS_NONE)
		set_str(p->fs_enforcement, "none");
	else if (abi >= 1) {
		p->landlock_fs = true;
		set_str(p->fs_enforcement, "landlock (ABI %d)", abi);
	} else if (o->fallback)
		set_str(p->fs_enforcement, "none (no Landlock; --fallback)");
	else {
		set_err(err, errlen,
			"sandcap: --fs %s: this kernel has no Landlock (needs Linux 5.13 "
			"with CONFIG_SECURITY_LANDLOCK and landlock in the lsm= list); pass "
			"--fallback to run without a filesystem policy",
			policy_fs_name(o->fs));
		return -EOPNOTSUPP;
	}
	return 0;
}

/* --net none in rlimit mode: seccomp refuses every socket, Landlock's TCP rights add a
 * layer where the kernel has them; with --fallback either alone. */
static int
plan_net_none(const struct isolate_opts *o, int abi, bool seccomp, struct isolate_plan *p,
	      char *err, size_t errlen)
{
	p->landlock_net = abi >= 4;
	p->landlock_scope = abi >= 6;
	if (seccomp) {
		p->seccomp = true;
		if (p->landlock_net)
			set_str(p->net_enforcement, "seccomp+landlock (ABI %d)", abi);
		else
			set_str(p->net_enforcement, "seccomp");
	} else if (!o->fallback) {
		set_err(err, errlen,
			"sandcap: --net none: this kernel has no seccomp filters "
			"(needs CONFIG_SECCOMP_FILTER); pass --fallback to run with %s",
			p->landlock_net ? "Landlock's TCP-only denial" : "the host's network");
		return -EOPNOTSUPP;
	} else if (p->landlock_net)
		set_str(p->net_enforcement, "landlock (ABI %d; TCP only, no seccomp; --fallback)",
			abi);
	else
		set_str(p->net_enforcement, "none (no seccomp; --fallback)");
	return 0;
}

/* --net none (cgroup mode), loopback, proxy: the families, types and protocols BPF cannot
 * see (AF_UNIX, AF_NETLINK, AF_PACKET, AF_ALG, AF_VSOCK...) and io_uring need seccomp; no
 * --fallback here. */
static int
plan_net_filtered(const struct isolate_opts *o, int abi, bool seccomp, struct isolate_plan *p,
		  char *err, size_t errlen)
{
	const char *mode = policy_net_name(o->net);

	p->landlock_scope = abi >= 6;
	if (!seccomp) {
		set_err(err, errlen,
			"sandcap: --net %s: this kernel has no seccomp filters "
			"(needs CONFIG_SECCOMP_FILTER), which must refuse the socket families "
			"other than IPv4 and IPv6; use --net host",
			mode);
		return -EOPNOTSUPP;
	}
	p->seccomp = true;
	if (o->cgroup_bpf) {
		/* Landlock's port rule too where there is one: no address check, but
		 * a second, independent layer for TCP. */
		p->landlock_net = o->net != POLICY_NET_LOOPBACK && abi >= 4;
		set_str(p->net_enforcement, "cgroup-bpf + seccomp%s",
			p->landlock_net ? " + landlock" : "");
	} else if (o->net == POLICY_NET_LOOPBACK) {
		set_err(err, errlen,
			"sandcap: --net loopback: needs cgroup mode (the sandcap "
			"helper with cap_bpf and cap_net_admin, see 'sandcap doctor'): without "
			"it nothing can limit connections to loopback addresses; use --net "
			"proxy --allow 127.0.0.1:PORT, or --net none");
		return -EOPNOTSUPP;
	} else if (abi >= 4) {
		p->landlock_net = true;
		set_str(p->net_enforcement, "landlock ABI %d + seccomp", abi);
	} else {
		set_err(err, errlen,
			"sandcap: --net proxy: rlimit mode needs Landlock ABI 4 "
			"(Linux 6.7) to limit TCP connections to the proxy's port, and this "
			"kernel has %s; use cgroup mode (the sandcap helper) or --net none",
			abi > 0 ? "an older ABI" : "no Landlock");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* --net and --unix. */
static int
plan_net(const struct isolate_opts *o, int abi, bool seccomp, struct isolate_plan *p, char *err,
	 size_t errlen)
{
	int r;

	if (o->net == POLICY_NET_HOST) {
		set_str(p->net_enforcement, "none");
		return plan_unix_notify(o, abi, seccomp, p, err, errlen);
	}
	if (o->net == POLICY_NET_NONE && !o->cgroup_bpf)
		r = plan_net_none(o, abi, seccomp, p, err, errlen);
	else
		r = plan_net_filtered(o, abi, seccomp, p, err, errlen);
	if (r < 0)
		return r;

	if (o->unix_host)
		set_str(p->unix_enforcement, "none (--unix host): " UNIX_OPEN);
	else if (p->seccomp)
		set_str(p->unix_enforcement, "seccomp (no new AF_UNIX "
					     "sockets; socketpair stream/seqpacket only)");
	else
		set_str(p->unix_enforcement, "none (no seccomp; "
					     "--fallback): the user's services are reachable");
	return 0;
}

/* The supervisors' protection (protect.h) is on every run: seccomp rules wherever seccomp
 * filters work, and Landlock signal scoping wherever the kernel has it.  The
 * terminal-injection guard (TIOCSTI) rides on the same filter. */
static void
plan_protect(int abi, bool seccomp, struct isolate_plan *p)
{
	p->landlock_signal = abi >= 6;
	if (seccomp)
		p->seccomp = true;
	if (seccomp && p->landlock_signal)
		set_str(p->protect_enforcement, "seccomp+landlock (ABI %d)", abi);
	else if (seccomp)
		set_str(p->protect_enforcement, "seccomp");
	else if (p->landlock_signal)
		set_str(p->protect_enforcement, "landlock (ABI %d; signals only, no seccomp)", abi);
	else
		set_str(p->protect_enforcement, "none (no seccomp, no Landlock ABI 6)");
}

int
isolate_plan_on(const struct isolate_opts *o, int abi, bool seccomp, struct isolate_plan *ret,
		char *err, size_t errlen)
{
	struct isolate_plan *p = ret;
	int r;

	memset(p, 0, sizeof(*p));
	p->landlock_abi = abi;
	r = plan_paths(o, p, err, errlen);
	if (r < 0)
		return r;
	r = plan_fs(o, abi, p, err, errlen);
	if (r < 0)
		return r;
	r = plan_net(o, abi, seccomp, p, err, errlen);
	if (r < 0)
		return r;
	plan_protect(abi, seccomp, p);
	return 0;
}

int
isolate_plan(const struct isolate_opts *o, struct isolate_plan *ret, char *err, size_t errlen)
{
	/* seccomp on every run: the supervisors' protection needs it (protect.h). */
	return isolate_plan_on(o, isolate_landlock_abi(), isolate_seccomp_available(), ret, err,
			       errlen);
}

int
isolate_check_required_on(const struct isolate_opts *o, const struct policy_resolved *r, int abi,
			  bool seccomp, char *err, size_t errlen)
{
	char why[2 * POLICY_SRC_MAX + 128];

	/* Every requirement the run misses at once, not one per try. */
	if (policy_check_required(r, o->net, o->fs, why, sizeof(why)) < 0) {
		set_err(err, errlen, "sandcap: --net %s --fs %s: %s (see 'sandcap policy show')",
			policy_net_name(o->net), policy_fs_name(o->fs), why);
		return -EPERM;
	}
	/* --fallback must not turn a required policy into an unenforced one. */
	if (o->fallback && r->fs_required > POLICY_FS_NONE && abi < 1) {
		set_err(err, errlen,
			"sandcap: --fallback: the policy requires --fs %s for you and "
			"this kernel has no Landlock to enforce it",
			policy_fs_name(r->fs_required));
		return -EPERM;
	}
	if (o->fallback && r->net_required > POLICY_NET_HOST && !seccomp) {
		set_err(err, errlen,
			"sandcap: --fallback: the policy requires --net %s for you and "
			"this kernel has no seccomp filters to enforce it",
			policy_net_name(r->net_required));
		return -EPERM;
	}
	return 0;
}

int
isolate_check_required(const struct isolate_opts *o, const struct policy_resolved *r, char *err,
		       size_t errlen)
{
	return isolate_check_required_on(o, r, isolate_landlock_abi(), isolate_seccomp_available(),
					 err, errlen);
}
