/* SPDX-License-Identifier: MIT */
/* `sandcap session start|end|show|ls`: the arguments and what is printed; the session itself
 * is run/session.c's (calls: `sandcap run --session ID`). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "report/json.h"
#include "run/opt.h"
#include "run/session.h"

#define TTL_DEFAULT_MS (3600ULL * 1000)
#define TTL_MAX_MS     (366ULL * 24 * 3600 * 1000)

enum {
	O_MEMORY = 1,
	O_PIDS,
	O_CPU,
	O_DISK,
	O_CPU_TIME,
	O_TIMEOUT,
	O_AS,
	O_TTL,
	O_NAME,
	O_FS,
	O_NET,
	O_REPORT,
	O_RW,
	O_NO_CGROUP,
	O_JSON,
	O_HELP,
};

static const struct opt_def start_options[] = {
	{ "--memory", 0, true, O_MEMORY, 0 },
	{ "--pids", 0, true, O_PIDS, 0 },
	{ "--cpu", 0, true, O_CPU, 0 },
	{ "--disk", 0, true, O_DISK, 0 },
	{ "--cpu-time", 0, true, O_CPU_TIME, 0 },
	{ "--timeout", 0, true, O_TIMEOUT, 0 },
	{ "--as", 0, true, O_AS, 0 },
	{ "--ttl", 0, true, O_TTL, 0 },
	{ "--name", 0, true, O_NAME, 0 },
	{ "--fs", 0, true, O_FS, 0 },
	{ "--net", 0, true, O_NET, 0 },
	{ "--report", 0, true, O_REPORT, 0 },
	{ "--rw", 0, true, O_RW, 0 },
	{ "--no-cgroup", 0, false, O_NO_CGROUP, 0 },
	{ "--json", 0, false, O_JSON, 0 },
	{ "--help", 'h', false, O_HELP, 0 },
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: sandcap session start [--ttl DUR] [--cpu-time DUR] [--timeout DUR] "
		"[--as SIZE]\n                             [--memory SIZE] [--pids N] [--cpu PCT] "
		"[--disk SIZE]\n                             [--fs MODE [--rw PATH]...] [--net MODE] "
		"[--name NAME] [--report FILE]\n                             [--no-cgroup] [--json]\n"
		"       sandcap run --session ID [OPTIONS] "
		"-- COMMAND [ARG...]\n       sandcap session show|end ID [--json]\n"
		"       sandcap session ls [--json]\n\n"
		"A session is many runs under one TTL (default 1h), one CPU-time budget across its "
		"calls (--cpu-time), per-call defaults and ceilings (--timeout, --as), one "
		"workspace (each call's working directory, kept across calls) and one report; "
		"--rw PATH (with --fs ro|strict) is writable by every call. "
		"Calls run one at a time, in the mode sandcap run would use.  In cgroup mode (the "
		"helper) the session is a cgroup of its own with --memory, --pids, --cpu and --disk "
		"(its workspace) and each call a cgroup in it; in user-cgroup mode it is a scope of "
		"your own systemd and --memory, --pids, --cpu bind all its calls (--disk is "
		"refused); rlimit mode (--no-cgroup) refuses all four.  --fs and --net apply "
		"to every call.  'end' kills what runs, removes everything and prints the report; "
		"at the TTL a keeper process does the same (the report to --report FILE).  See "
		"sandcap(1) and docs/usage.md \"Sessions\".\n");
}

static int
bad(const char *opt, const char *v, const char *forms)
{
	char esc[64];

	fprintf(stderr, "sandcap: session start: %s: invalid value '%s': expected %s\n", opt,
		log_escape(v, esc, sizeof(esc)), forms);
	return -EINVAL;
}

/* The keeper writes the report from /, and calls run in the workspace: paths are made
 * absolute now. */
static void
make_absolute(char *buf, size_t len, const char *v)
{
	char cwd[PATH_MAX];

	if (v[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(buf, len, "%s", v);
	else
		snprintf(buf, len, "%s/%s", cwd, v);
}

static const char *
absolute(const char *v)
{
	static char path[PATH_MAX];

	make_absolute(path, sizeof(path), v);
	return path;
}

/* --rw PATH: made absolute now (calls run in the workspace) and checked to exist, as
 * sandcap run checks its own when a call starts. */
static int
add_rw(struct session_opts *o, const char *v)
{
	static char paths[SESSION_RW_MAX][PATH_MAX];
	struct stat st;

	if (o->n_rw >= SESSION_RW_MAX) {
		fprintf(stderr, "sandcap: session start: --rw: too many paths (at most %d)\n",
			SESSION_RW_MAX);
		return -EINVAL;
	}
	if (v[0] == '\0' || strchr(v, '\n') != NULL)
		return bad("--rw", v, "a path");
	make_absolute(paths[o->n_rw], sizeof(paths[0]), v);
	if (stat(paths[o->n_rw], &st) < 0) {
		fprintf(stderr, "sandcap: session start: --rw %s: %s\n", paths[o->n_rw],
			strerror(errno));
		return -EINVAL;
	}
	o->rw[o->n_rw] = paths[o->n_rw];
	o->n_rw++;
	return 0;
}

static int
start_option(struct session_opts *o, int id, const char *v, bool *json)
{
	uint64_t *d[] = {
		[O_CPU_TIME] = &o->cpu_budget_ms, [O_TIMEOUT] = &o->timeout_ms, [O_TTL] = &o->ttl_ms
	};

	switch (id) {
	case O_MEMORY:
	case O_DISK:
	case O_AS:
		if (parse_size(v, id == O_MEMORY ? &o->memory
				  : id == O_DISK ? &o->disk
						 : &o->as) < 0)
			return bad(start_options[id - 1].name, v, parse_size_forms);
		return 0;
	case O_PIDS:
		return parse_u64_range(v, 1, 4194304, &o->pids) < 0
			       ? bad("--pids", v, "a count from 1 to 4194304")
			       : 0;
	case O_CPU:
		return parse_percent(v, &o->cpu_percent) < 0 || o->cpu_percent == 0
			       ? bad("--cpu", v, parse_percent_forms)
			       : 0;
	case O_CPU_TIME:
	case O_TIMEOUT:
	case O_TTL:
		if (parse_duration_ms(v, d[id]) < 0 || *d[id] == 0 || *d[id] > TTL_MAX_MS)
			return bad(start_options[id - 1].name, v,
				   "a duration from 1ms to 366 days "
				   "(30, 1.5s, 250ms, 5m, 1h)");
		return 0;
	case O_NAME:
		o->name = v;
		return session_name_valid(v) ? 0
					     : bad("--name", v,
						   "1 to 64 of A-Z a-z 0-9 . _ "
						   "-, not starting with - or .");
	case O_FS:
		o->fs = v;
		return word_in_list("none ro strict", v) ? 0 : bad("--fs", v, "none, ro or strict");
	case O_NET:
		o->net = v;
		return word_in_list("host none loopback", v)
			       ? 0
			       : bad("--net", v, "host, none or loopback");
	case O_REPORT:
		o->report = absolute(v);
		return v[0] != '\0' ? 0 : bad("--report", v, "a file name");
	case O_NO_CGROUP:
		o->no_cgroup = true;
		return 0;
	case O_JSON:
		*json = true;
		return 0;
	default:
		usage(stdout);
		return 1;
	}
}

static void
print_started(const struct session_state *s, bool json)
{
	char ws[PATH_MAX] = "";

	if (!json) {
		printf("%s\n", s->id);
		return;
	}
	printf("{\"sandcap_session\": 1, \"id\": \"%s\", \"name\": %s%s%s, \"mode\": \"%s\", "
	       "\"ttl_ms\": %llu, \"cpu_budget_ms\": %llu, \"timeout_ms\": %llu, \"as\": %llu, "
	       "\"keeper_pid\": %d, \"workspace\": ",
	       s->id, s->name[0] ? "\"" : "", s->name[0] ? s->name : "null", s->name[0] ? "\"" : "",
	       s->mode, (unsigned long long) s->ttl_ms, (unsigned long long) s->cpu_budget_ms,
	       (unsigned long long) s->timeout_ms, (unsigned long long) s->as, s->keeper_pid);
	(void) session_workspace(s->id, ws, sizeof(ws));
	json_write_string(stdout, ws, strlen(ws));
	printf(", \"rw\": [");
	for (unsigned i = 0; i < s->n_rw; i++) {
		fputs(i > 0 ? ", " : "", stdout);
		json_write_string(stdout, s->rw[i], strlen(s->rw[i]));
	}
	printf("]}\n");
}

static int
cmd_start(int argc, char **argv)
{
	struct session_opts o = { .ttl_ms = TTL_DEFAULT_MS };
	struct session_state s = {};
	struct opt_iter it;
	char msg[512];
	bool json = false;
	int c, r;

	opt_init(&it, argc, argv, 1, start_options, ELEMENTSOF(start_options), 0);
	while ((c = opt_next(&it)) != 0) {
		if (c < 0) {
			opt_error(&it, c, msg, sizeof(msg));
			fprintf(stderr,
				"sandcap: session start: %s; see 'sandcap session --help'\n", msg);
			return SC_EXIT_FAILURE;
		}
		r = c == O_RW ? add_rw(&o, it.value) : start_option(&o, c, it.value, &json);
		if (r != 0)
			return r > 0 ? 0 : SC_EXIT_FAILURE;
	}
	if (it.i < argc) {
		fprintf(stderr, "sandcap: session start: unexpected argument '%.64s'\n",
			argv[it.i]);
		return SC_EXIT_FAILURE;
	}
	if (o.n_rw > 0 && (o.fs == NULL || streq(o.fs, "none"))) {
		fprintf(stderr,
			"sandcap: session start: --rw %s: needs a filesystem policy; add "
			"--fs ro or --fs strict\n",
			o.rw[0]);
		return SC_EXIT_FAILURE;
	}
	if (session_start(&o, &s, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "sandcap: session start: %s\n", msg);
		return SC_EXIT_FAILURE;
	}
	print_started(&s, json);
	return 0;
}

/* end, show and ls: an ID (not for ls) and --json. */
static int
cmd_other(const char *what, int argc, char **argv)
{
	const char *id = NULL;
	char msg[512] = "";
	bool json = false;
	int r;

	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--json"))
			json = true;
		else if (streq(argv[i], "--help") || streq(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (id == NULL && argv[i][0] != '-' && !streq(what, "ls"))
			id = argv[i];
		else {
			fprintf(stderr,
				"sandcap: session %s: unexpected argument '%.64s'; see "
				"'sandcap session --help'\n",
				what, argv[i]);
			return SC_EXIT_FAILURE;
		}
	}
	if (!streq(what, "ls") && id == NULL) {
		fprintf(stderr,
			"sandcap: session %s: which session? give an ID from sandcap "
			"session ls\n",
			what);
		return SC_EXIT_FAILURE;
	}
	if (streq(what, "ls"))
		r = session_list(stdout, json, msg, sizeof(msg));
	else if (streq(what, "end"))
		r = session_end(id, stdout, json, msg, sizeof(msg));
	else
		r = session_show(id, stdout, json, msg, sizeof(msg));
	if (r != 0)
		fprintf(stderr, "sandcap: session %s: %s\n", what, msg[0] ? msg : strerror(-r));
	return r == 0 ? 0 : r == 1 ? 1 : SC_EXIT_FAILURE;
}

int
cmd_session(int argc, char **argv)
{
	if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h") ||
	    streq(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? SC_EXIT_FAILURE : 0;
	}
	if (streq(argv[1], "start"))
		return cmd_start(argc - 1, argv + 1);
	if (streq(argv[1], "end") || streq(argv[1], "show") || streq(argv[1], "ls"))
		return cmd_other(argv[1], argc - 1, argv + 1);
	fprintf(stderr, "sandcap: session: unknown subcommand '%.64s': start, end, show or ls\n",
		argv[1]);
	return SC_EXIT_FAILURE;
}
