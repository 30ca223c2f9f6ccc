/* SPDX-License-Identifier: MIT */
/* Sessions: many `sandcap run` calls under one set of limits, one TTL, one workspace and one
 * report (docs/usage.md "Sessions").
 *
 * A session is a private directory $XDG_RUNTIME_DIR/sandcap/sessions/<id> (0700, ours,
 * opened with O_NOFOLLOW|O_DIRECTORY and checked): `state` (session-state.h), `calls` (the
 * ledger), `call-N.json` (each call's report), `running` (the sandbox id of the call that
 * runs), `lock` (flock: a call holds it while it runs, so calls run one at a time), `keeper`
 * (flock held by the keeper for its life) and `workspace/`, each call's working directory.
 * The keeper, a process of its own (setsid, no inherited fds), ends the session at its TTL
 * even when the shell that started it is gone.  A session runs in the mode sandcap run would
 * use: in cgroup mode the keeper also holds the helper connection of the session's cgroup
 * level (run/session-cgroup.h); in user-cgroup mode the session is a scope of the user's own
 * systemd (run/session-usercg.h); otherwise in rlimit mode. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "run/session-state.h"

/* session start's options, parsed by cmd/session.c.  0: not given. */
struct session_opts {
	uint64_t memory, pids, cpu_percent, disk; /* the session's; refused in rlimit mode */
	uint64_t ttl_ms, cpu_budget_ms, timeout_ms, as;
	const char *name, *fs, *net, *report;
	const char *rw[SESSION_RW_MAX]; /* absolute, checked to exist */
	unsigned n_rw;
	bool no_cgroup;
};

/* Every wait of a session on another process ends by these (milliseconds). */
#define SESSION_END_LOCK_MS    2000  /* start: for session ls to let go of the root */
#define SESSION_KILL_WAIT_MS   30000 /* end: for the killed call to let go */
#define SESSION_KEEPER_WAIT_MS 5000  /* end: for the keeper to exit */

/* Create the session, start its keeper; *ret gets its state.  Returns 0 or -errno with the
 * reason (naming the option and the fix) in err. */
int session_start(const struct session_opts *o, struct session_state *ret, char *err,
		  size_t errlen);
/* Kill what runs, remove everything, write the report to out.  1: no such session. */
int session_end(const char *id, FILE *out, bool json, char *err, size_t errlen);
/* The report of a running session, which goes on. */
int session_show(const char *id, FILE *out, bool json, char *err, size_t errlen);
/* One line (or JSON object) per session of ours; expired ones whose keeper is gone are
 * removed on the way. */
int session_list(FILE *out, bool json, char *err, size_t errlen);

/* $XDG_RUNTIME_DIR/sandcap/sessions/<id>/workspace. */
int session_workspace(const char *id, char *buf, size_t len);

/* Is there a --session among argv's options (before "--")? */
bool session_call_wanted(int argc, char **argv);
/* `sandcap run --session ID ...`: returns sandcap's exit status. */
int session_call(int argc, char **argv);
