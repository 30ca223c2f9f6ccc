/* SPDX-License-Identifier: MIT */
/* The result of one `sandcap run`: the JSON report (docs/report.md) and the two stderr lines. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cgroup/cgstats.h"
#include "net/proxy.h"
#include "report/verdict.h"

#define REPORT_ITEMS_MAX 24

/* The report's network object (docs/report.md); mode NULL = no object. */
struct report_network {
	const char *mode;               /* "none", "loopback", "proxy", "host" */
	char enforcement[96];           /* "cgroup-bpf + seccomp", ... */
	const struct allow_list *allow; /* proxy: the normalised rules */
	const struct net_proxy *proxy;  /* proxy: the connection records */
};

struct report {
	const char *version;
	const char *mode; /* "rlimit" | "cgroup" */
	const char *id;
	char *const *argv; /* the command, NULL-terminated */
	struct verdict v;
	const char *message;

	struct {
		const char *key;
		uint64_t value;
	} limits[REPORT_ITEMS_MAX];
	size_t n_limits;
	struct {
		const char *key;
		char value[96];
	} enforcement[REPORT_ITEMS_MAX];
	size_t n_enforcement;

	uint64_t wall_ms, cpu_user_ms, cpu_system_ms;
	uint64_t max_rss; /* bytes */
	bool has_max_rss;
	uint64_t output_bytes;   /* --output-limit: bytes passed on */
	uint64_t output_dropped; /* --output-limit: never taken by the output */
	unsigned killed_at_end;  /* left running by the command, then killed */
	/* connects to UNIX listeners outside the sandbox refused (unixgate.h); has_: the
	 * gate was on. */
	bool has_unix_refused;
	uint64_t unix_refused;
	bool has_output_bytes;
	struct cg_usage cg; /* cgroup mode; has_* false otherwise */

	/* The command's environment ("NAME=VALUE", NULL-terminated): only the names are
	 * written.  tmpdir_set: sandcap set TMPDIR (listed if env lacks it). */
	char *const *env;
	bool tmpdir_set;
	struct report_network net;

	/* The cgroup above the leaf whose OOM put session-memory or total-memory in
	 * limits_hit (docs/report.md, "oom_at"); limit NULL: no such object. */
	struct report_oom_at {
		const char *limit;   /* "session-memory" or "total-memory" */
		char cgroup[256];    /* its path */
		uint64_t memory_max; /* UINT64_MAX: "max" */
		uint64_t oom;        /* its memory.events.local "oom" while the command ran */
		uint64_t oom_kill;   /* its memory.events "oom_kill" (itself and below) */
		bool has_memory_max, has_oom_kill;
		char read_by[192]; /* who read it, and how far the files can be trusted */
	} oom_at;

	/* Who asked the sandbox to end (verdict killed, or a limit verdict that won). */
	struct {
		bool set;
		const char *by; /* "sandcap kill" or "signal" */
		int signal;
		pid_t pid; /* 0: the kernel */
		uid_t uid;
	} killed_by;
};

/* Append to the limits / enforcement maps (silently ignored past REPORT_ITEMS_MAX, which
 * the callers never reach). */
void report_add_limit(struct report *r, const char *key, uint64_t value);
void report_add_enforcement(struct report *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write the JSON object and a newline.  Returns 0 or -errno. */
int report_write_json(FILE *f, const struct report *r);

/* "sandcap: VERDICT: MESSAGE; exit N" and "sandcap: usage: wall ..., cpu ... user ... sys, peak
 * rss ..." */
void report_write_summary(FILE *f, const struct report *r);
