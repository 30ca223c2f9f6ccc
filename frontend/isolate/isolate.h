/* SPDX-License-Identifier: MIT */
/* Unprivileged isolation applied in the sandboxed child just before exec: a Landlock
 * filesystem policy and seccomp network denial.  See docs/isolation.md. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isolate/cgprotect.h"
#include "policy.h"
#include "isolate/protect.h"

struct sock_filter;

#define ISOLATE_PATHS_MAX 64

struct isolate_opts {
	enum policy_fs fs;                 /* --fs */
	enum policy_net net;               /* --net */
	const char *rw[ISOLATE_PATHS_MAX]; /* --rw PATH */
	size_t n_rw;
	const char *ro[ISOLATE_PATHS_MAX]; /* --ro PATH */
	size_t n_ro;
	const char *workspace; /* writable when fs != none; may be NULL */
	const char *tmpdir;    /* the sandbox's TMPDIR as it gets it; may be NULL */
	bool fallback;         /* --fallback: accept weaker substitutes */
	bool unix_host;        /* --unix host: keep socket(AF_UNIX) */
	uint16_t proxy_port;   /* --net proxy: the proxy's port on 127.0.0.1 */
	bool cgroup_bpf;       /* the helper attached the --net BPF programs */
};

/* What will enforce each part, decided in the parent before fork (for the report). */
struct isolate_plan {
	int landlock_abi;         /* 0 = unavailable */
	char fs_enforcement[64];  /* "landlock (ABI 7)", "none", ... */
	char net_enforcement[96]; /* "seccomp+landlock (ABI 7)", "none", ... */
	/* Added by the isolation work; filled by isolate_plan(), read by isolate_apply(). */
	bool landlock_fs;    /* apply a Landlock filesystem ruleset */
	bool landlock_net;   /* handle TCP bind/connect (ABI >= 4) */
	bool landlock_scope; /* scope abstract UNIX sockets, signals (ABI >= 6) */
	bool seccomp;        /* install the seccomp filter */
	/* The sandbox cannot touch its supervisors (protect.h), on every run. */
	bool landlock_signal;         /* Landlock SCOPE_SIGNAL (ABI >= 6) */
	char protect_enforcement[64]; /* "seccomp+landlock (ABI 7)", "seccomp", ... */
	/* --net host without --unix host: connect() is notified to sandcap (unixgate.h), the
	 * filter loaded with a listener the child sends back. */
	bool unix_notify;
	char unix_enforcement[96];   /* what keeps the user's services out */
	struct protect_pids protect; /* filled by the caller before the fork */
	/* The seccomp program, built before the fork (isolate_seccomp_prepare()); NULL: the
	 * child builds it itself. */
	struct sock_filter *seccomp_prog;
	size_t seccomp_len; /* instructions */
	char cwd[PATH_MAX]; /* the parent's cwd: base of relative --rw/--ro */
	/* user-cgroup mode: the n_cg_protect cgroup mounts a second Landlock layer keeps
	 * unwritable (cgprotect.h), in that mode's storage (run_usercg_protect()); set by the
	 * caller after isolate_plan(), 0 = no such layer. */
	size_t n_cg_protect;
	const char (*cg_protect)[PATH_MAX];
};

/* "none", "ro", "strict" / "host", "none"; -EINVAL otherwise. */
int isolate_parse_fs(const char *s, enum policy_fs *ret);
int isolate_parse_net(const char *s, enum policy_net *ret);

/* Probe the kernel and decide.  Returns 0, or -EOPNOTSUPP with the reason and the fix in
 * err when a requested policy cannot be enforced and fallback is false. */
int isolate_plan(const struct isolate_opts *o, struct isolate_plan *ret, char *err, size_t errlen);

/* Before the fork, once plan is final (its protect set included): build the seccomp filter
 * isolate_apply() would build, as a BPF program the child only loads (perf: the child
 * does not run libseccomp's compiler); from its build-time program where there is one
 * (seccomp-tpl.h), else with libseccomp.  Nothing to do when plan->seccomp is false.
 * Returns 0 or -errno with a message in err. */
int isolate_seccomp_prepare(struct isolate_plan *plan, const struct isolate_opts *o, char *err,
			    size_t errlen);

/* In the child, after PR_SET_NO_NEW_PRIVS: apply Landlock, then seccomp.  Returns 0 or
 * -errno with a message in err.  Async-signal-safe enough for a forked child of a
 * single-threaded parent (allocates, but only before exec). */
int isolate_apply(const struct isolate_opts *o, const struct isolate_plan *plan, char *err,
		  size_t errlen);

/* isolate_apply() with plan->unix_notify: the filter's listener is sent over notify_sock
 * (stage_send_listener()) and closed here. */
int isolate_apply_notify(const struct isolate_opts *o, const struct isolate_plan *plan,
			 int notify_sock, char *err, size_t errlen);

/* cgroup mode, in sandcap before SPAWN: what isolate_apply() would apply, as objects the
 * helper's process applies to itself (lib/stage.c, in the same order): up to two Landlock
 * rulesets (isolation, then the cgroup-filesystem layer) into fds, and the seccomp program
 * (none when plan->seccomp is false; it points into plan's or this file's storage).
 * Returns 0 or -errno with a message in err; on failure no fd is left open. */
int isolate_rulesets(const struct isolate_opts *o, const struct isolate_plan *plan,
		     int fds[static 2], size_t *ret_n, char *err, size_t errlen);
int isolate_seccomp_program(const struct isolate_opts *o, const struct isolate_plan *plan,
			    const struct sock_filter **ret_prog, size_t *ret_len, char *err,
			    size_t errlen);

/* Front-end (and helper) check of item 3: refuse a request weaker than the admin's policy.
 * Returns 0, or -EPERM with e.g. "sandcap: --net host: the policy requires --net none for you
 * ([group:students])" in err.  Also refuses --fallback when it would let a required policy
 * go unenforced on this kernel (no Landlock for a required --fs, no seccomp for --net). */
int isolate_check_required(const struct isolate_opts *o, const struct policy_resolved *r, char *err,
			   size_t errlen);

/* ---- Internals exposed for unit tests ---- */

/* The running kernel's Landlock ABI (0 = none) and whether seccomp filters work. */
int isolate_landlock_abi(void);
bool isolate_seccomp_available(void);
/* Whether seccomp filters can notify a listener (SECCOMP_RET_USER_NOTIF). */
bool isolate_unotify_available(void);

/* isolate_check_required() with the kernel facts given instead of probed. */
int isolate_check_required_on(const struct isolate_opts *o, const struct policy_resolved *r,
			      int landlock_abi, bool seccomp, char *err, size_t errlen);

/* isolate_plan() with the kernel facts given instead of probed. */
int isolate_plan_on(const struct isolate_opts *o, int landlock_abi, bool seccomp,
		    struct isolate_plan *ret, char *err, size_t errlen);

/* Every Landlock filesystem right the given ABI knows (0 for ABI 0). */
uint64_t isolate_landlock_fs_mask(int abi);

/* One path-beneath rule of the filesystem policy. */
struct isolate_rule {
	const char *path;   /* absolute, or relative to isolate_plan.cwd */
	uint64_t access;    /* already masked to the ABI */
	const char *origin; /* "--rw", "--ro", "workspace", "TMPDIR"; NULL = default */
};

#define ISOLATE_RULES_MAX (2 * ISOLATE_PATHS_MAX + 48)

/* The rules for o->fs at the given ABI; tmpdir is the writable temp dir (see
 * docs/isolation.md).  *ret_handled gets the handled_access_fs mask.  Pure. */
int isolate_fs_rules(const struct isolate_opts *o, int abi, const char *tmpdir,
		     struct isolate_rule *rules, size_t max, size_t *ret_n, uint64_t *ret_handled);
