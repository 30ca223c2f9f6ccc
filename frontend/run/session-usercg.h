/* SPDX-License-Identifier: MIT */
/* Sessions in user-cgroup mode: the session is a transient delegated scope of the user's own
 * systemd, "sandcap-sess-<id>.scope", with the session's limits as the unit's own
 * (MemoryMax, TasksMax, CPUQuota) and RuntimeMaxSec at the TTL plus a margin:
 *
 *     <scope>/keeper    the session's keeper (the scope lives as long as a process is in it)
 *     <scope>/call-N    each call's leaf, with the call's own limits
 *
 * The call's sandcap stays in a scope of its own (usercg_open(), as any user-cgroup run), so
 * that a TTL that stops the session's scope leaves it to write the call's report.  The
 * scope's path and the session's limits are in the session directory's file "ucg".  The
 * parsers are pure, for the unit tests. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "run/session-state.h"

struct session_opts;

#define SESSION_UCG_MODE "user-cgroup"
/* The user manager stops the session's scope this long after the TTL: the keeper ends the
 * session at the TTL (report included) unless it was killed. */
#define SESSION_UCG_BACKSTOP_MS 10000

/* The "ucg" file: the scope's cgroup directory and the session's limits (0: none). */
struct session_ucg {
	char scope[PATH_MAX];
	uint64_t memory, pids, cpu_percent;
};

int session_ucg_format(const struct session_ucg *u, char *buf, size_t len);
/* -EINVAL for anything session_ucg_format() did not write, or a scope path that is not an
 * absolute path below /sys/fs/cgroup ending in "/sandcap-sess-<id>.scope". */
int session_ucg_parse(const char *text, const char *id, struct session_ucg *ret);

bool session_is_usercg(const struct session_state *s);

/* Before the session exists: what a user-cgroup session cannot do (--disk) and the admin's
 * policy (its ceilings, and whether it allows the user cgroup limits at all).  0: go on in
 * user-cgroup mode; 1: the policy does not allow it (rlimit mode, as sandcap run); -errno
 * with the refusal in err. */
int session_usercg_check(const struct session_opts *o, char *err, size_t errlen);
/* The scope for the keeper (already started), and the "ucg" file in dfd. */
int session_usercg_start(const struct session_opts *o, int dfd, const struct session_state *s,
			 pid_t keeper, char *err, size_t errlen);

/* A call's --memory, --pids, --cpu (0: not asked) against the session's: prints the refusal
 * and returns -1 when one asks more. */
int session_usercg_check_call(int dfd, const struct session_state *s, uint64_t memory,
			      uint64_t pids, uint64_t cpu_percent);
/* The CPU time the session's scope has used (its cpu.stat), in ms. */
int session_usercg_cpu_used(int dfd, const struct session_state *s, uint64_t *ret_ms, char *err,
			    size_t errlen);
/* Before call n runs (the session's lock held): remove what an earlier call left (a killed
 * sandcap's leaf), and have run_main() put the call in <scope>/call-n.  call_end() undoes
 * the latter. */
int session_usercg_call_begin(int dfd, const struct session_state *s, unsigned n, char *err,
			      size_t errlen);
void session_usercg_call_end(void);
/* The session report's part (session-report.c): the scope, the session's limits, what
 * enforces them and the CPU time of its cpu.stat; JSON: ", \"user_cgroup\": {...}". */
void session_usercg_report(int dfd, const struct session_state *s, FILE *out, bool json);
/* Kill and remove every call's leaf left in the scope (teardown, the lock held). */
void session_usercg_teardown(int dfd, const struct session_state *s);
