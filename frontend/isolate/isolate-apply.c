/* SPDX-License-Identifier: MIT */
/* The child side of isolate.h: the Landlock rulesets and the seccomp filter isolate.c's plan
 * decided, built and applied in the sandboxed child just before exec. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
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

/* The ABI 6 layout of struct landlock_ruleset_attr.  The kernel accepts a larger struct
 * than it knows as long as the extra bytes are zero, and the fields it does not know are
 * only set when the probed ABI has them. */
/* <linux/landlock.h> of older distributions lacks the network rule (ABI 4). */
#define SC_LANDLOCK_RULE_NET_PORT 2
struct sc_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));

struct sc_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/* Rights that make sense on a regular file or device (the rest are directory-only and
 * landlock_add_rule() refuses them on a non-directory with EINVAL). */
#define FS_FILE                                                       \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* base/path for a relative path, else path itself. */
static int
abs_path(const char *base, const char *path, char *buf, size_t len)
{
	int n;

	if (path[0] == '/')
		n = snprintf(buf, len, "%s", path);
	else if (base[0] == '\0')
		return -ENOENT; /* the working directory is unknown: never "/" + path */
	else
		n = snprintf(buf, len, "%s/%s", base, path);
	return n < 0 || (size_t) n >= len ? -ENAMETOOLONG : 0;
}

/* The writable temp dir in ro/strict: the sandbox's $TMPDIR (the one its command is
 * exec'd with, never sandcap's own) if it is an absolute path to a directory, else /tmp. */
static const char *
pick_tmpdir(const struct isolate_opts *o)
{
	const char *t = o->tmpdir;
	struct stat st;

	if (t != NULL && t[0] == '/' && stat(t, &st) == 0 && S_ISDIR(st.st_mode))
		return t;
	return "/tmp";
}

static int
create_ruleset(const struct sc_ruleset_attr *attr, int abi, char *err, size_t errlen)
{
	int fd = (int) syscall(SYS_landlock_create_ruleset, attr, sizeof(*attr), 0), r;

	if (fd >= 0)
		return fd;
	r = -errno;
	set_err(err, errlen, "sandcap: Landlock: cannot create the ruleset (ABI %d): %s", abi,
		strerror(-r));
	return r;
}

/* The path rules of --fs, --rw and --ro into ruleset (handled: its handled_access_fs). */
static int
add_path_rules(const struct isolate_plan *plan, int ruleset, uint64_t handled,
	       const struct isolate_rule *rules, size_t n, char *err, size_t errlen)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		struct landlock_path_beneath_attr pb = { .allowed_access = rules[i].access };
		_cleanup_close_ int fd = -EBADF;
		char path[PATH_MAX];
		struct stat st;

		r = abs_path(plan->cwd, rules[i].path, path, sizeof(path));
		if (r < 0) {
			set_err(err, errlen, "sandcap: %s %s: %s",
				rules[i].origin ? rules[i].origin : "--fs", rules[i].path,
				r == -ENOENT ? "relative, and the working directory is unknown "
					       "(give an absolute path)"
					     : "path too long");
			return r;
		}
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			/* Defaults that this system lacks are skipped; what the user or sandcap
			 * named must exist. */
			if (rules[i].origin == NULL && (r == -ENOENT || r == -ENOTDIR))
				continue;
			set_err(err, errlen, "sandcap: %s %s: %s",
				rules[i].origin ? rules[i].origin : "--fs", path, strerror(-r));
			return r;
		}
		if (!S_ISDIR(st.st_mode))
			pb.allowed_access &= FS_FILE;
		pb.allowed_access &= handled;
		if (pb.allowed_access == 0)
			continue;
		pb.parent_fd = fd;
		if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) <
		    0) {
			r = -errno;
			set_err(err, errlen, "sandcap: Landlock: cannot add the rule for %s: %s",
				path, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The ruleset of attr with the file-system rules (plan->landlock_fs): the fd, -ENODATA
 * when nothing at all is handled, or -errno.  A frame of its own, never inlined (perf): the
 * rules and a path are kilobytes of stack, which a run without --fs never touches. */
static _noinline_ int
fs_ruleset(const struct isolate_opts *o, const struct isolate_plan *plan,
	   struct sc_ruleset_attr *attr, char *err, size_t errlen)
{
	struct isolate_rule rules[ISOLATE_RULES_MAX];
	_cleanup_close_ int ruleset = -EBADF;
	size_t n = 0;
	int r;

	r = isolate_fs_rules(o, plan->landlock_abi, pick_tmpdir(o), rules, ELEMENTSOF(rules), &n,
			     &attr->handled_access_fs);
	if (r < 0) {
		set_err(err, errlen, "sandcap: --fs %s: too many paths", policy_fs_name(o->fs));
		return r;
	}
	if (attr->handled_access_fs == 0 && attr->handled_access_net == 0 && attr->scoped == 0)
		return -ENODATA;
	ruleset = create_ruleset(attr, plan->landlock_abi, err, errlen);
	if (ruleset < 0)
		return ruleset;
	r = add_path_rules(plan, ruleset, attr->handled_access_fs, rules, n, err, errlen);
	if (r < 0)
		return r;
	return TAKE_FD(ruleset);
}

/* The Landlock ruleset of o and plan, not applied: its fd, -ENODATA when it handles
 * nothing, or -errno with err. */
static int
landlock_ruleset(const struct isolate_opts *o, const struct isolate_plan *plan, char *err,
		 size_t errlen)
{
	struct sc_ruleset_attr attr = { 0 };
	_cleanup_close_ int ruleset = -EBADF;
	int r;

	if (plan->landlock_net) /* all TCP bind and connect refused, but the proxy */
		attr.handled_access_net =
			LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	if (plan->landlock_scope)
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	/* Every run: no signal from the sandbox reaches sandcap, its helper or its keeper. */
	if (plan->landlock_signal)
		attr.scoped |= LANDLOCK_SCOPE_SIGNAL;
	if (plan->landlock_fs)
		ruleset = fs_ruleset(o, plan, &attr, err, errlen);
	else if (attr.handled_access_net == 0 && attr.scoped == 0)
		return -ENODATA;
	else
		ruleset = create_ruleset(&attr, plan->landlock_abi, err, errlen);
	if (ruleset < 0)
		return ruleset;

	/* --net proxy: TCP connect to the proxy's port (Landlock cannot name the address:
	 * in rlimit mode the same port on other hosts is reachable too; docs/isolation.md). */
	if (plan->landlock_net && o->net == POLICY_NET_PROXY && o->proxy_port != 0) {
		struct sc_net_port_attr np = { .allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
					       .port = o->proxy_port };

		if (syscall(SYS_landlock_add_rule, ruleset, SC_LANDLOCK_RULE_NET_PORT, &np, 0) <
		    0) {
			r = -errno;
			set_err(err, errlen,
				"sandcap: Landlock: cannot allow the proxy's port %u: %s",
				(unsigned) o->proxy_port, strerror(-r));
			return r;
		}
	}
	return TAKE_FD(ruleset);
}

static int
landlock_apply(const struct isolate_opts *o, const struct isolate_plan *plan, char *err,
	       size_t errlen)
{
	int ruleset = landlock_ruleset(o, plan, err, errlen);
	char why[256];
	int r;

	if (ruleset < 0)
		return ruleset == -ENODATA ? 0 : ruleset;
	r = landlock_restrict(ruleset, why, sizeof(why));
	if (r < 0)
		set_err(err, errlen, "sandcap: %s", why);
	return r;
}

/* What the filter depends on besides the pids (seccomp-rules.h), from o and plan as the
 * rules read them before they moved out of this file. */
static struct scrules_key
seccomp_key(const struct isolate_opts *o, const struct isolate_plan *plan)
{
	return (struct scrules_key){
		.net = o->net,
		.unix_closed = !o->unix_host && (o->net != POLICY_NET_HOST || plan->unix_notify),
		.landlock_domain = plan->landlock_fs || plan->landlock_net ||
				   plan->landlock_scope || plan->landlock_signal,
		.landlock_signal = plan->landlock_signal,
	};
}

/* The program seccomp_compile() made last: one per process, reused by the next call
 * (sandcap trace --runs N zeroes the plan that points here between runs).  Static, not
 * malloc'ed: untouched pages cost nothing, and the child of rlimit mode writes only the
 * pages its program fills. */
static struct sock_filter compiled_prog[BPF_MAXINSNS];

/* The filter of o and plan as a BPF program: the build-time program libseccomp generated
 * for the same key (seccomp-tpl.h), patched with the pids, or, for inputs no template
 * covers, generated now by libseccomp from the same rules (seccomp-rules.h). */
static int
seccomp_compile(const struct isolate_opts *o, const struct isolate_plan *plan,
		struct sock_filter **ret_prog, size_t *ret_len, char *err, size_t errlen)
{
	struct scrules_key k = seccomp_key(o, plan);
	const char *what = "build";
	int r;

	r = sctpl_fill(&k, &plan->protect, compiled_prog, ELEMENTSOF(compiled_prog), ret_len);
	if (r == -ENOENT)
		r = scrules_compile(&k, &plan->protect, compiled_prog, ELEMENTSOF(compiled_prog),
				    ret_len, &what);
	if (r < 0) {
		set_err(err, errlen, "sandcap: seccomp: cannot %s the filter: %s", what,
			strerror(-r));
		return r;
	}
	*ret_prog = compiled_prog;
	return 0;
}

int
isolate_seccomp_prepare(struct isolate_plan *plan, const struct isolate_opts *o, char *err,
			size_t errlen)
{
	struct sock_filter *prog;
	size_t len;
	int r;

	plan->seccomp_prog = NULL;
	plan->seccomp_len = 0;
	if (!plan->seccomp)
		return 0;
	r = seccomp_compile(o, plan, &prog, &len, err, errlen);
	if (r < 0)
		return r;
	plan->seccomp_prog = prog;
	plan->seccomp_len = len;
	return 0;
}

static int
seccomp_apply(const struct isolate_opts *o, const struct isolate_plan *plan, int notify_sock,
	      char *err, size_t errlen)
{
	struct sock_fprog fp;
	struct sock_filter *prog = plan->seccomp_prog;
	size_t len = plan->seccomp_len;
	int r;

	/* Built before the child started (isolate_seccomp_prepare()), or here. */
	if (prog == NULL) {
		r = seccomp_compile(o, plan, &prog, &len, err, errlen);
		if (r < 0)
			return r;
	}
	/* As libseccomp's seccomp_load() would with this filter's attributes: no TSYNC,
	 * LOG, SPEC_ALLOW or listener flags, and no_new_privs is already set (the caller's,
	 * isolate.h). */
	fp = (struct sock_fprog){ .len = (unsigned short) len, .filter = prog };
	if (plan->unix_notify) {
		r = stage_load_notify_filter(&fp, notify_sock, err, errlen);
		return r;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == 0)
		return 0;
	r = -errno;
	set_err(err, errlen, "sandcap: seccomp: cannot load the filter: %s", strerror(-r));
	return r;
}

int
isolate_apply(const struct isolate_opts *o, const struct isolate_plan *plan, char *err,
	      size_t errlen)
{
	return isolate_apply_notify(o, plan, -EBADF, err, errlen);
}

int
isolate_apply_notify(const struct isolate_opts *o, const struct isolate_plan *plan, int notify_sock,
		     char *err, size_t errlen)
{
	int r;

	/* Landlock first: landlock_restrict_self() must not depend on the filter's mercy,
	 * and both only need no_new_privs, which the caller set. */
	r = landlock_apply(o, plan, err, errlen);
	if (r < 0)
		return r;
	if (plan->n_cg_protect > 0) {
		char why[256];

		r = cgprotect_apply(plan->landlock_abi, "/", plan->cg_protect, plan->n_cg_protect,
				    why, sizeof(why));
		if (r < 0) {
			set_err(err, errlen,
				"sandcap: keeping the cgroup filesystem unwritable: %s", why);
			return r;
		}
	}
	if (plan->seccomp)
		return seccomp_apply(o, plan, notify_sock, err, errlen);
	return 0;
}

int
isolate_rulesets(const struct isolate_opts *o, const struct isolate_plan *plan, int fds[static 2],
		 size_t *ret_n, char *err, size_t errlen)
{
	size_t n = 0;
	int r;

	r = landlock_ruleset(o, plan, err, errlen);
	if (r >= 0)
		fds[n++] = r;
	else if (r != -ENODATA)
		return r;
	if (plan->n_cg_protect > 0) {
		char why[256];

		r = cgprotect_ruleset(plan->landlock_abi, "/", plan->cg_protect, plan->n_cg_protect,
				      why, sizeof(why));
		if (r >= 0) {
			fds[n++] = r;
		} else if (r != -ENODATA) {
			while (n > 0)
				(void) close(fds[--n]);
			set_err(err, errlen,
				"sandcap: keeping the cgroup filesystem unwritable: %s", why);
			return r;
		}
	}
	*ret_n = n;
	return 0;
}

int
isolate_seccomp_program(const struct isolate_opts *o, const struct isolate_plan *plan,
			const struct sock_filter **ret_prog, size_t *ret_len, char *err,
			size_t errlen)
{
	struct sock_filter *prog = plan->seccomp_prog;
	size_t len = plan->seccomp_len;
	int r;

	*ret_prog = NULL;
	*ret_len = 0;
	if (!plan->seccomp)
		return 0;
	if (prog == NULL) {
		r = seccomp_compile(o, plan, &prog, &len, err, errlen);
		if (r < 0)
			return r;
	}
	*ret_prog = prog;
	*ret_len = len;
	return 0;
}
