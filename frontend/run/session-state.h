/* SPDX-License-Identifier: MIT */
/* A session's state, as text: the description written once by `sandcap session start`
 * (`state`), the ledger of its calls (`calls`, one line per call) and the figures a call's
 * JSON report gives the ledger.  Pure: no I/O, so that the parsers can be unit-tested and
 * fuzzed (tests/unit/test-session-state.c); run/session.c does the files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SESSION_ID_LEN   12 /* hex digits */
#define SESSION_NAME_MAX 64
#define SESSION_PATH_MAX 4096
#define SESSION_RW_MAX   8 /* --rw paths */
/* A state file at most: its numbers and words, the report's path and the --rw paths. */
#define SESSION_STATE_MAX ((SESSION_RW_MAX + 2) * (SESSION_PATH_MAX + 8))

/* What `session start` fixed.  0 means "not set" for every limit. */
struct session_state {
	char id[SESSION_ID_LEN + 1];
	char name[SESSION_NAME_MAX + 1];
	char mode[16];       /* "rlimit" */
	uint64_t created_s;  /* CLOCK_REALTIME, for people */
	uint64_t expires_ms; /* CLOCK_BOOTTIME, the TTL's deadline; 0: none */
	uint64_t ttl_ms;
	uint64_t cpu_budget_ms;        /* the CPU time all calls together may use */
	uint64_t timeout_ms;           /* each call's default and ceiling */
	uint64_t as;                   /* each call's RLIMIT_AS default and ceiling */
	char fs[16], net[16];          /* given to every call; "" for run's default */
	char report[SESSION_PATH_MAX]; /* where the session's report goes at the TTL */
	int keeper_pid;                /* session start's answer only; not in the file */
	/* Given to every call as --rw; absolute. */
	char rw[SESSION_RW_MAX][SESSION_PATH_MAX];
	unsigned n_rw;
};

/* One call of the ledger. */
struct session_call {
	unsigned n;  /* 1, 2, ... */
	char id[64]; /* the sandbox id (sandcap ps) */
	char verdict[24];
	int exit_code; /* -1: none (killed by a signal) */
	uint64_t wall_ms, cpu_ms;
};

bool session_id_valid(const char *s);
/* A session's mode, from its id's first digit: 'c' cgroup, 'd' user-cgroup (delegated),
 * any other rlimit.  The id comes from the caller's command line, so a call that rewrites
 * the session's state cannot move the session's later calls out of its cgroup level or
 * scope. */
#define SESSION_ID_CGROUP 'c'
#define SESSION_ID_USERCG 'd'
const char *session_id_mode(const char *id);
/* Is level (the helper's "<uid>-<16 hex>") the one session id's was named after: its
 * first 11 hex digits are the id's last 11, its uid is uid? */
bool session_level_matches(const char *id, const char *level, unsigned uid);
/* A name: 1 to SESSION_NAME_MAX of [A-Za-z0-9._-], not starting with '-' or '.'. */
bool session_name_valid(const char *s);

/* "key=value" lines.  Format returns the length written (< len) or -ENOBUFS; parse returns
 * 0, or -EINVAL for anything not written by format (an unknown key, a bad number, a
 * missing id or mode). */
int session_state_format(const struct session_state *s, char *buf, size_t len);
int session_state_parse(const char *text, struct session_state *ret);

/* One ledger line ("N ID VERDICT EXIT WALL_MS CPU_MS\n"; EXIT "-" when none). */
int session_call_format(const struct session_call *c, char *buf, size_t len);
/* Parse the whole ledger: calls fn for each line in order; -EINVAL on a malformed line. */
int session_calls_parse(const char *text, int (*fn)(const struct session_call *c, void *ud),
			void *ud);

/* The figures of a call from its JSON report as sandcap writes it (docs/report.md):
 * "id", "verdict", "exit_code", usage "wall_ms", "cpu_user_ms", "cpu_system_ms".  -EINVAL
 * when one is missing. */
int session_call_from_report(const char *json, struct session_call *ret);

/* What a call may use: the smaller of what it asks (0: nothing asked) and the session's
 * ceiling (0: none).  *ret 0 means no limit. */
uint64_t session_cap(uint64_t asked, uint64_t ceiling);
