/* SPDX-License-Identifier: MIT */
/* Keep the cgroup filesystem unwritable for the sandbox, and nothing else: a Landlock layer
 * that handles every filesystem right, grants read and execute on each ancestor of a
 * protected mount point (so `ls /sys/fs` still works) and every right on every sibling of
 * those ancestors.  The protected trees are left with what the ancestors grant: read only.
 * Used in user-cgroup mode, where the user owns the sandbox's cgroup (usercg.h).
 *
 * Stacks with the --fs layer of isolate.c (Landlock layers intersect).  Applied in the
 * child after PR_SET_NO_NEW_PRIVS.  See docs/isolation.md. */
#pragma once

#include <limits.h>
#include <stddef.h>

#define CGPROTECT_MAX 8

/* The mount points of every cgroup and cgroup2 filesystem in mountinfo text (octal escapes
 * decoded).  cgroup2_first, if not NULL, gets the first cgroup2 one ("" if none).  Pure.
 * Returns the number found (at most max). */
size_t cgprotect_parse_mountinfo(const char *text, char (*ret)[PATH_MAX], size_t max,
				 char *cgroup2_first, size_t cgroup2_len);

/* Read /proc/self/mountinfo and do the above.  -errno on read failure. */
int cgprotect_mounts(char (*ret)[PATH_MAX], size_t max, size_t *ret_n, char *cgroup2_first,
		     size_t cgroup2_len);

/* Apply the layer: root is "/" in production (a stand-in tree in tests); protect lists
 * absolute paths under root.  abi is the kernel's Landlock ABI (>= 1).  Returns 0 or
 * -errno with the reason in err. */
int cgprotect_apply(int abi, const char *root, const char (*protect)[PATH_MAX], size_t n, char *err,
		    size_t errlen);
/* The layer's ruleset, not applied (cgroup mode: the helper's process restricts itself with
 * it): its fd, -ENODATA when no protected path is under root, or -errno with err. */
int cgprotect_ruleset(int abi, const char *root, const char (*protect)[PATH_MAX], size_t n,
		      char *err, size_t errlen);

/* Restrict this process with a Landlock ruleset (this layer's or isolate.c's --fs one) and
 * close it.  Returns 0 or -errno with the reason in err; needs no_new_privs. */
int landlock_restrict(int ruleset, char *err, size_t errlen);
