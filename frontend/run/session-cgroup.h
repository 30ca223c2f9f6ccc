/* SPDX-License-Identifier: MIT */
/* Sessions in cgroup mode (docs/usage.md "Sessions", docs/PROTOCOL.md 3.2): the keeper holds
 * one helper connection, whose CREATE made the session level cgroup_root/<uid>/<level>
 * (the session's limits, its workspace, its TTL as the deadline the helper and the reaper
 * enforce); each call's own connection makes a leaf in that level.  The keeper writes two
 * files into the session's directory: `cgroup` (the level, its workspace, its limits as
 * applied; written once) and `usage` (the level's counters, refreshed while a call runs). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgroup/client.h"
#include "run/session-state.h"
#include "run/session.h"

/* The keeper reads the level this often while something runs in it. */
#define SESSCG_TICK_MS 1000

struct sesscg {
	char level[CLIENT_ID_MAX];
	char workspace[SESSION_PATH_MAX];
	uint64_t memory, cpu_percent, pids, disk; /* as applied; 0: not limited */
	/* usage: -1 for a counter the kernel does not have */
	bool has_usage;
	uint64_t cpu_usec, memory_peak, pids_peak, oom_kill;
	bool has_memory_peak, has_pids_peak;
};

bool sesscg_is(const struct session_state *s);
/* Pure: parse the `cgroup` and `usage` files' text into *g (either may be NULL).  -EINVAL
 * on anything not written by the keeper. */
int sesscg_parse(const char *cgroup, const char *usage, struct sesscg *g);
/* Read both files of the session directory dfd. */
int sesscg_read(int dfd, struct sesscg *g);
/* The workspace of session id if it is a cgroup-mode one (-ENOENT if not). */
int sesscg_workspace(const char *id, char *buf, size_t len);

/* The keeper: open the helper and make the level with o's limits and s's TTL; write
 * `cgroup`.  On failure err has the helper's reason. */
int sesscg_keeper_begin(int dfd, const struct session_opts *o, const struct session_state *s,
			struct sc_session *cs, char *err, size_t errlen);
/* Refresh `usage` from the level; kill what runs in it once the CPU-time budget is spent.
 * Returns the poll timeout until the next tick (-1: nothing runs; cgroup.events wakes). */
int sesscg_keeper_tick(int dfd, const struct session_state *s, struct sc_session *cs,
		       int events_fd);
/* The session's totals from the level, after the ledger's. */
void sesscg_report(int dfd, FILE *out, bool json);
