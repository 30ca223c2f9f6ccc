/* SPDX-License-Identifier: MIT */
/* `sandcap run` options: parsed strictly with lib/parse-util.h; every bad value is refused with
 * "sandcap: --OPT: invalid KIND 'VALUE': expected FORMS" and exit status 125. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "allow.h"
#include "env.h"
#include "isolate.h"

/* Resource limits applied with setrlimit() in the child. */
enum run_rlimit {
	RUN_RL_AS,
	RUN_RL_CPU,             /* value in ms; RLIMIT_CPU gets whole seconds, rounded up */
	RUN_RL_FSIZE,
	RUN_RL_NOFILE,
	RUN_RL_STACK,
	RUN_RL_CORE,
	RUN_RL_NPROC,
	_RUN_RL_MAX,
};

struct run_rlimit_req {
	bool set;
	uint64_t value;         /* bytes, a count, or ms (RUN_RL_CPU) */
	const char *source;     /* option that set it, for messages: "--as", "--memory" */
};

struct run_opts {
	bool has_timeout;
	uint64_t timeout_ms;
	uint64_t grace_ms;                      /* default 5 s */
	struct run_rlimit_req rl[_RUN_RL_MAX];  /* core is set to 0 by default */

	/* cgroup limits; 0 = not asked */
	uint64_t memory;
	uint64_t cpu_percent;
	uint64_t pids;
	uint64_t disk;
	bool no_cgroup;
	bool keep_fds;                          /* pass fds other than 0-2 to the command */
	bool fallback;

	bool quiet;
	const char *report_path;                /* NULL, "-" (stdout) or a file */
	int report_fd;                          /* --report-fd N; -1 = none */

	struct isolate_opts iso;
	bool has_fs, has_net;
	struct allow_list allow;                /* --allow: what the --net proxy may reach */
	bool has_allow, has_unix;

	struct env_opts env;                    /* --env-clear, --env, --env-deny */
	const char *chdir;                      /* --chdir DIR or "@workspace"; NULL = stay */
	uint64_t output_limit;                  /* --output-limit SIZE; 0 = not interposed */

	char **argv;                            /* the command, NULL-terminated */
	int argc;
};

/* Parse argv (argv[0] is "run") into *ret, in place (any prior content is reset; the
 * arrays read only below their counts are not rewritten).  Returns 0, 1 when --help was
 * printed (exit 0), or -EINVAL after printing the reason (exit 125); *ret is then
 * partly filled and must not be used. */
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

/* Print `sandcap run --help`. */
void run_args_usage(FILE *f);

/* Report key ("as", "cpu_time_ms", ...), option name ("--as") and RLIMIT_* resource. */
const char *run_rlimit_key(enum run_rlimit l);
const char *run_rlimit_option(enum run_rlimit l);
int run_rlimit_resource(enum run_rlimit l);
