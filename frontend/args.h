/* SPDX-License-Identifier: MIT */
/* `sandcap run` options: parsed strictly with lib/parse-util.h; every bad value is refused with
 * "sandcap: --OPT: invalid KIND 'VALUE': expected FORMS" and exit status 125. */
#pragma once

#include <stdbool.h>
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

/* Print `sandcap run --help`. */
void run_args_usage(FILE *f);

/* Report key ("as", "cpu_time_ms", ...), option name ("--as") and RLIMIT_* resource. */
const char *run_rlimit_key(enum run_rlimit l);
const char *run_rlimit_option(enum run_rlimit l);
int run_rlimit_resource(enum run_rlimit l);
