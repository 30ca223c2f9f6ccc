/* SPDX-License-Identifier: MIT */
/* `sandcap run` options: one table (args.c) read by the opt.h iterator, names matched exactly;
 * values parsed strictly with lib/parse-util.h within the policy's ranges (policy.h).  Every
 * bad value is refused with "sandcap: --OPT: invalid KIND 'VALUE': expected FORMS" (or "...
 * is out of range: expected RANGE") and exit status 125. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "net/allow.h"
#include "supervise/env.h"
#include "isolate/isolate.h"
#include "run/opt.h"

struct trace_opts;

/* The ids of run_args_options(): sandcap run's options, then sandcap trace's own. */
enum run_opt_id {
	RUN_OPT_TIMEOUT = 1,
	RUN_OPT_GRACE,
	RUN_OPT_CPU_TIME,
	RUN_OPT_AS,
	RUN_OPT_FSIZE,
	RUN_OPT_STACK,
	RUN_OPT_CORE,
	RUN_OPT_NOFILE,
	RUN_OPT_NPROC,
	RUN_OPT_MEMORY,
	RUN_OPT_CPU,
	RUN_OPT_PIDS,
	RUN_OPT_DISK,
	RUN_OPT_NO_CGROUP,
	RUN_OPT_KEEP_FDS,
	RUN_OPT_FALLBACK,
	RUN_OPT_FS,
	RUN_OPT_NET,
	RUN_OPT_ALLOW,
	RUN_OPT_UNIX,
	RUN_OPT_RW,
	RUN_OPT_RO,
	RUN_OPT_ENV_CLEAR,
	RUN_OPT_ENV,
	RUN_OPT_ENV_DENY,
	RUN_OPT_CHDIR,
	RUN_OPT_OUTPUT_LIMIT,
	RUN_OPT_REPORT,
	RUN_OPT_REPORT_FD,
	RUN_OPT_PROFILE,
	RUN_OPT_QUIET,
	RUN_OPT_HELP,
	RUN_OPT_HEADROOM, /* RUN_OPTF_TRACE from here */
	RUN_OPT_RUNS,
};
#define RUN_OPTF_TRACE 1u /* opt_def.flags: sandcap trace's own, not an option of run */

/* The table of every option (for sandcap trace and the tests); *ret_n entries. */
const struct opt_def *run_args_options(size_t *ret_n);

/* Resource limits applied with setrlimit() in the child. */
enum run_rlimit {
	RUN_RL_AS,
	RUN_RL_CPU, /* value in ms; RLIMIT_CPU gets whole seconds, rounded up */
	RUN_RL_FSIZE,
	RUN_RL_NOFILE,
	RUN_RL_STACK,
	RUN_RL_CORE,
	RUN_RL_NPROC,
	_RUN_RL_MAX,
};

struct run_rlimit_req {
	bool set;
	uint64_t value;     /* bytes, a count, or ms (RUN_RL_CPU) */
	const char *source; /* option that set it, for messages: "--as", "--memory" */
};

struct run_opts {
	bool has_timeout;
	uint64_t timeout_ms;
	uint64_t grace_ms;                     /* default 5 s */
	struct run_rlimit_req rl[_RUN_RL_MAX]; /* core is set to 0 by default */

	/* cgroup limits; 0 = not asked */
	uint64_t memory;
	uint64_t cpu_percent;
	uint64_t pids;
	uint64_t disk;
	bool no_cgroup;
	bool keep_fds; /* pass fds other than 0-2 to the command */
	bool fallback;

	bool quiet;
	const char *report_path; /* NULL, "-" (stdout) or a file */
	int report_fd;           /* --report-fd N; -1 = none */

	struct isolate_opts iso;
	bool has_fs, has_net;
	struct allow_list allow; /* --allow: what the --net proxy may reach */
	bool has_allow, has_unix;

	struct env_opts env;   /* --env-clear, --env, --env-deny */
	const char *chdir;     /* --chdir DIR or "@workspace"; NULL = stay */
	uint64_t output_limit; /* --output-limit SIZE; 0 = not interposed */

	char **argv; /* the command, NULL-terminated */
	int argc;
};

/* Parse argv (argv[0] is "run") into *ret, in place (any prior content is reset).  Returns
 * 0, 1 when --help was printed (exit 0), or -EINVAL after printing the reason (exit 125);
 * *ret is then partly filled and must not be used. */
int run_args_parse(int argc, char **argv, struct run_opts *ret);

/* For profiles (profile.c), which must accept exactly what the command line accepts:
 * run_args_reset() gives *o as parsed from no option; run_args_apply() applies the option
 * --NAME (no_argument options ignore value) exactly as run_args_parse() does, with the same
 * parsers, ranges and limits on counts; run_args_check_net() makes the checks between
 * --net, --allow and --unix that run_args_parse() makes after the last option.  They return
 * 0, or -EINVAL with "--NAME: reason" in err (run_args_parse() prints it after "sandcap: ").
 * *o keeps pointers to value. */
void run_args_reset(struct run_opts *o);
int run_args_apply(struct run_opts *o, const char *name, const char *value, char *err,
		   size_t errlen);
int run_args_check_net(struct run_opts *o, char *err, size_t errlen);

/* For run_args_parse(): apply the option with id c (a RUN_OPT_*) as run_args_apply() does;
 * and set rlimit l to v, naming its option as the source. */
int run_args_apply_id(struct run_opts *o, int c, const char *value, char *err, size_t errlen);
void run_args_set_rlimit(struct run_opts *o, enum run_rlimit l, uint64_t v);

/* Print `sandcap run --help`. */
void run_args_usage(FILE *f);

/* The NAME of --profile NAME (or --profile=NAME) among argv's options, NULL if none.  The
 * search ends at the command or at a bad option word (run_args_parse() names it).  Returns
 * 0, or -EINVAL after printing why (--profile given twice). */
int run_args_find_profile(int argc, char **argv, const char **ret_name);

/* sandcap trace's own options (--headroom, --runs; --help prints trace_args_usage()) into *t;
 * *ret_nv (malloc'ed, *ret_n words and a NULL; the words are argv's) is argv[0], the rest of
 * the options in their long form with each value a word of its own, "--" and the command.
 * Returns 0, 1 when --help was printed (exit 0), or -errno after printing why (exit 125). */
int trace_args_parse(int argc, char **argv, struct trace_opts *t, char ***ret_nv, int *ret_n);
void trace_args_usage(FILE *f);

/* Report key ("as", "cpu_time_ms", ...), option name ("--as") and RLIMIT_* resource. */
const char *run_rlimit_key(enum run_rlimit l);
const char *run_rlimit_option(enum run_rlimit l);
int run_rlimit_resource(enum run_rlimit l);
