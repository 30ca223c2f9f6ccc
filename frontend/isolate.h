/* SPDX-License-Identifier: MIT */
/* Unprivileged isolation applied in the sandboxed child just before exec: a Landlock
 * filesystem policy and seccomp network denial.  See docs/isolation.md. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

#define ISOLATE_PATHS_MAX 64

struct isolate_opts {
	enum policy_fs fs;                      /* --fs */
	enum policy_net net;                    /* --net */
	const char *rw[ISOLATE_PATHS_MAX];      /* --rw PATH */
	size_t n_rw;
	const char *ro[ISOLATE_PATHS_MAX];      /* --ro PATH */
	size_t n_ro;
	const char *workspace;                  /* writable when fs != none; may be NULL */
	bool fallback;                          /* --fallback: accept weaker substitutes */
};

/* What will enforce each part, decided in the parent before fork (for the report). */
struct isolate_plan {
	int landlock_abi;                       /* 0 = unavailable */
	char fs_enforcement[64];                /* "landlock (ABI 7)", "none", ... */
	char net_enforcement[96];               /* "seccomp+landlock (ABI 7)", "none", ... */
};

/* "none", "ro", "strict" / "host", "none"; -EINVAL otherwise. */
int isolate_parse_fs(const char *s, enum policy_fs *ret);
int isolate_parse_net(const char *s, enum policy_net *ret);

/* Probe the kernel and decide.  Returns 0, or -EOPNOTSUPP with the reason and the fix in
 * err when a requested policy cannot be enforced and fallback is false. */
int isolate_plan(const struct isolate_opts *o, struct isolate_plan *ret, char *err,
		 size_t errlen);

/* In the child, after PR_SET_NO_NEW_PRIVS: apply Landlock, then seccomp.  Returns 0 or
 * -errno with a message in err.  Async-signal-safe enough for a forked child of a
 * single-threaded parent (allocates, but only before exec). */
int isolate_apply(const struct isolate_opts *o, const struct isolate_plan *plan, char *err,
		  size_t errlen);
