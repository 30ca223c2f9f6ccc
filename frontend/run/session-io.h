/* SPDX-License-Identifier: MIT */
/* What the session's files share (run/session*.c); not for other groups. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run/session-state.h"

/* Bounds of what a session reads back: its ledger holds at most SESSION_CALLS_MAX lines
 * (a call beyond is refused), a call's report at most SESSION_REPORT_MAX bytes (a report
 * sandcap wrote is far smaller: its command line is bounded by ARG_MAX). */
#define SESSION_CALLS_MAX  10000
#define SESSION_LEDGER_MAX (4 << 20)
#define SESSION_REPORT_MAX (16 << 20)

/* The ledger's sums. */
struct session_totals {
	unsigned calls;
	uint64_t wall_ms, cpu_ms;
};

/* $XDG_RUNTIME_DIR/sandcap/sessions/<id>/workspace. */
int session_workspace_path(const char *id, char *buf, size_t len);
/* Now on CLOCK_BOOTTIME (the TTL's clock: it counts suspend and cannot be set). */
uint64_t session_now_ms(void);
/* $XDG_RUNTIME_DIR/sandcap/sessions, ours and 0700 (made if create). */
int session_root(bool create, int *ret_fd, char *err, size_t errlen);
/* Can a call's control socket be made (call_id, or one of this uid's length if NULL)?
 * Without it end and the keeper could not stop a running call. */
int session_check_ctl(const char *call_id, char *err, size_t errlen);
/* The session id under root: its directory and state.  -ENOENT: no such session. */
int session_open(int rootfd, const char *id, int *ret_dfd, struct session_state *ret, char *err,
		 size_t errlen);
/* flock(op) on dfd/name (made if missing), retried until ms have passed: 0 with the fd in
 * *ret_fd, -ETIMEDOUT, or -errno. */
int session_lock(int dfd, const char *name, int op, uint64_t ms, int *ret_fd);
/* flock(op) on fd, retried until ms have passed: 0, -ETIMEDOUT or -errno. */
int session_flock(int fd, int op, uint64_t ms);
/* Is the keeper gone (its lock free)? */
bool session_keeper_gone(int dfd);
/* Sum the ledger. */
int session_totals_read(int dfd, struct session_totals *ret);
/* Write a file of dfd whole, by rename from a temporary name. */
int session_write_file(int dfd, const char *name, const char *data, size_t len);
/* The report: ended is "end", "ttl" or NULL (still running). */
int session_report(int dfd, const struct session_state *s, const char *ended, FILE *out, bool json);
/* Remove the session's files and directory (never following a link in the workspace). */
int session_remove(int rootfd, int dfd, const char *id);
/* A directory of ours, 0700 (made if create): its fd or -errno. */
int session_private_dir(int at, const char *name, bool create);
/* Give the session's directory (dfd) and its files back their modes, which a call may
 * have changed. */
void session_repair(int dfd);
/* Kill the running call, write the report to out (or to s->report when out is NULL),
 * remove everything.  wait_keeper: wait for the keeper to exit (not from the keeper). */
int session_teardown(int rootfd, int dfd, const struct session_state *s, const char *why, FILE *out,
		     bool json, bool wait_keeper, char *err, size_t errlen);
