/* SPDX-License-Identifier: MIT */
/* `sandcap run` and `sandcap trace` options: the table and the parsers of argv (args.h); the
 * checks of each value are in args-value.c. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "run/args.h"
#include "run/run.h"
#include "log.h"
#include "macro.h"
#include "run/opt.h"
#include "parse-util.h"
#include "run/trace.h"

static const struct {
	const char *key;
	const char *option;
	int resource;
} rlimit_table[_RUN_RL_MAX] = {
	[RUN_RL_AS] = { "as", "--as", RLIMIT_AS },
	[RUN_RL_CPU] = { "cpu_time_ms", "--cpu-time", RLIMIT_CPU },
	[RUN_RL_FSIZE] = { "fsize", "--fsize", RLIMIT_FSIZE },
	[RUN_RL_NOFILE] = { "nofile", "--nofile", RLIMIT_NOFILE },
	[RUN_RL_STACK] = { "stack", "--stack", RLIMIT_STACK },
	[RUN_RL_CORE] = { "core", "--core", RLIMIT_CORE },
	[RUN_RL_NPROC] = { "nproc", "--nproc", RLIMIT_NPROC },
};

const char *
run_rlimit_key(enum run_rlimit l)
{
	return rlimit_table[l].key;
}

const char *
run_rlimit_option(enum run_rlimit l)
{
	return rlimit_table[l].option;
}

int
run_rlimit_resource(enum run_rlimit l)
{
	return rlimit_table[l].resource;
}

void
run_args_usage(FILE *f)
{
	fprintf(f,
		"Usage: sandcap run [OPTIONS] [--] COMMAND [ARG...]\n"
		"\n"
		"Run COMMAND under enforced limits, wait for it, and report what happened.\n"
		"\n"
		"Time:\n"
		"  --timeout DUR     wall-clock limit: SIGTERM to every process, SIGKILL after\n"
		"                    --grace; exit 124\n"
		"  --grace DUR       time between SIGTERM and SIGKILL (default 5s; 0 = at once)\n"
		"  --cpu-time DUR    CPU time limit: rlimit mode RLIMIT_CPU, per process, whole\n"
		"                    seconds; cgroup modes a budget for the whole sandbox\n"
		"Resource limits (setrlimit):\n"
		"  --as SIZE         address space          --fsize SIZE   largest file written\n"
		"  --stack SIZE      stack size             --core SIZE    core dumps (default 0)\n"
		"  --nofile N        open files             --nproc N      processes of your uid\n"
		"cgroup limits (cgroup v2 and the sandcap helper, or your systemd user manager:\n"
		"user-cgroup mode, all but --disk):\n"
		"  --memory SIZE  --cpu PERCENT  --pids N  --disk SIZE\n"
		"                    --disk bounds the workspace only (a tmpfs of SIZE at\n"
		"                    $TMPDIR): files written anywhere else (the current\n"
		"                    directory, --rw paths, $HOME) are not counted; use\n"
		"                    --chdir @workspace, --fs strict or --fsize as well\n"
		"  --no-cgroup       use neither the helper nor the user manager (rlimit mode)\n"
		"  --keep-fds        pass open file descriptors other than 0-2 to the command\n"
		"                    (by default they are closed: an inherited socket would\n"
		"                    bypass --net none)\n"
		"  --fallback        accept documented weaker substitutes when a limit cannot be\n"
		"                    enforced as asked (memory->RLIMIT_AS, pids->RLIMIT_NPROC,\n"
		"                    disk->RLIMIT_FSIZE, cpu->not enforced)\n"
		"Isolation:\n"
		"  --fs none|ro|strict   --rw PATH   --ro PATH\n"
		"  --net host|proxy|loopback|none\n"
		"                    loopback: 127.0.0.0/8 and ::1 only (cgroup mode); proxy: only\n"
		"                    sandcap's HTTP/SOCKS5 proxy, which reaches what --allow lists\n"
		"  --allow HOST[:PORT]  (repeatable; implies --net proxy) a name, *.suffix, address\n"
		"                    or CIDR; PORT a number or *; no port = 80 and 443\n"
		"  --unix host|none  host: the user's UNIX sockets (systemd --user, D-Bus, tmux)\n"
		"                    reachable; by default only those the sandbox made (--net host)\n"
		"                    or no new AF_UNIX socket at all (none, other --net)\n"
		"Environment and directory:\n"
		"  --env-clear       start from nothing but PATH HOME USER LOGNAME SHELL TERM LANG\n"
		"                    LC_* TZ TMPDIR\n"
		"  --env NAME        pass NAME through (even if --env-deny matches it)\n"
		"  --env NAME=VALUE  set NAME\n"
		"  --env-deny GLOB   drop the variables matching GLOB, e.g. '*TOKEN*'\n"
		"  --chdir DIR       start the command in DIR; @workspace: in the workspace\n"
		"                    (cgroup mode), where --disk bounds what it writes\n"
		"Output:\n"
		"  -q, --quiet       no verdict and usage lines on stderr\n"
		"  --output-limit SIZE  stdout and stderr pass through sandcap, counted together;\n"
		"                    past SIZE bytes the sandbox is ended (verdict output).  The\n"
		"                    command then writes to pipes, not to your terminal\n"
		"  --report FILE     write the JSON report to FILE ('-' = stdout); FILE appears\n"
		"                    whole (written unnamed, then linked in; a killed\n"
		"                    sandcap leaves nothing)\n"
		"  --report-fd N     write the JSON report to file descriptor N (3 or more; not\n"
		"                    passed to the command); also on a refusal (setup-error)\n"
		"Profiles and sessions:\n"
		"  --profile NAME    take options from the profile NAME (sandcap profile list);\n"
		"                    the command line's override them; at most one profile\n"
		"  --session ID      run as a call of session ID (sandcap session --help): in\n"
		"                    its workspace, within its limits, recorded in its report\n"
		"  -h, --help        this text\n"
		"\n"
		"Options are matched whole (no abbreviations); OPTION VALUE and OPTION=VALUE are the\n"
		"same.  Given twice, the last counts; --rw, --ro, --allow, --env and --env-deny add up.\n"
		"DUR: %s; at most 366 days.\n"
		"SIZE: %s; at most 1 EiB.\n"
		"PERCENT: %s; at most %d%%.\n"
		"Exit status: the command's own; 128+N if it died of signal N; 124 timeout;\n"
		"125 sandcap failed or refused; 126 not executable; 127 not found.  See sandcap(1).\n",
		parse_duration_forms, parse_size_forms, parse_percent_forms, POLICY_CPU_MAX);
}

/* Every option of sandcap run (and sandcap trace's own, RUN_OPTF_TRACE): whether it takes a
 * value is said here only, for run_args_parse(), trace_args_parse() and the profile finder. */
static const struct opt_def run_option_defs[] = {
	{ "--timeout", 0, true, RUN_OPT_TIMEOUT, 0 },
	{ "--grace", 0, true, RUN_OPT_GRACE, 0 },
	{ "--cpu-time", 0, true, RUN_OPT_CPU_TIME, 0 },
	{ "--as", 0, true, RUN_OPT_AS, 0 },
	{ "--fsize", 0, true, RUN_OPT_FSIZE, 0 },
	{ "--stack", 0, true, RUN_OPT_STACK, 0 },
	{ "--core", 0, true, RUN_OPT_CORE, 0 },
	{ "--nofile", 0, true, RUN_OPT_NOFILE, 0 },
	{ "--nproc", 0, true, RUN_OPT_NPROC, 0 },
	{ "--memory", 0, true, RUN_OPT_MEMORY, 0 },
	{ "--cpu", 0, true, RUN_OPT_CPU, 0 },
	{ "--pids", 0, true, RUN_OPT_PIDS, 0 },
	{ "--disk", 0, true, RUN_OPT_DISK, 0 },
	{ "--no-cgroup", 0, false, RUN_OPT_NO_CGROUP, 0 },
	{ "--keep-fds", 0, false, RUN_OPT_KEEP_FDS, 0 },
	{ "--fallback", 0, false, RUN_OPT_FALLBACK, 0 },
	{ "--fs", 0, true, RUN_OPT_FS, 0 },
	{ "--net", 0, true, RUN_OPT_NET, 0 },
	{ "--allow", 0, true, RUN_OPT_ALLOW, 0 },
	{ "--unix", 0, true, RUN_OPT_UNIX, 0 },
	{ "--rw", 0, true, RUN_OPT_RW, 0 },
	{ "--ro", 0, true, RUN_OPT_RO, 0 },
	{ "--env-clear", 0, false, RUN_OPT_ENV_CLEAR, 0 },
	{ "--env", 0, true, RUN_OPT_ENV, 0 },
	{ "--env-deny", 0, true, RUN_OPT_ENV_DENY, 0 },
	{ "--chdir", 0, true, RUN_OPT_CHDIR, 0 },
	{ "--output-limit", 0, true, RUN_OPT_OUTPUT_LIMIT, 0 },
	{ "--report", 0, true, RUN_OPT_REPORT, 0 },
	{ "--report-fd", 0, true, RUN_OPT_REPORT_FD, 0 },
	{ "--profile", 0, true, RUN_OPT_PROFILE, 0 },
	{ "--quiet", 'q', false, RUN_OPT_QUIET, 0 },
	{ "--help", 'h', false, RUN_OPT_HELP, 0 },
	{ "--headroom", 0, true, RUN_OPT_HEADROOM, RUN_OPTF_TRACE },
	{ "--runs", 0, true, RUN_OPT_RUNS, RUN_OPTF_TRACE },
};

const struct opt_def *
run_args_options(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(run_option_defs);
	return run_option_defs;
}

/* "sandcap: run: unknown option '-x'; see 'sandcap run --help'" for an opt_next() error. */
static int
usage_error(const char *cmd, const struct opt_iter *it, int r)
{
	char msg[256];

	opt_error(it, r, msg, sizeof(msg));
	fprintf(stderr, "sandcap: %s: %s; see 'sandcap %s --help'\n", cmd, msg, cmd);
	return -EINVAL;
}

int
run_args_parse(int argc, char **argv, struct run_opts *ret)
{
	struct run_opts *o = ret;
	struct opt_iter it;
	char err[512];
	int c;

	run_args_reset(o);
	run_args_set_rlimit(o, RUN_RL_CORE, 0); /* no core dumps unless asked */
	opt_init(&it, argc, argv, 1, run_option_defs, ELEMENTSOF(run_option_defs), RUN_OPTF_TRACE);
	/* A repeated option: the last one counts, except those that add up (--rw, --ro,
	 * --allow, --env, --env-deny). */
	while ((c = opt_next(&it)) != 0) {
		if (c < 0)
			return usage_error(argv[0], &it, c);
		switch (c) {
		case RUN_OPT_PROFILE:
			/* Read by run_args_find_profile() before this parse: the profile's words
			 * are already in argv, ahead of the command line's. */
			break;
		case RUN_OPT_HELP:
			run_args_usage(stdout);
			return 1;
		case RUN_OPT_HEADROOM:
		case RUN_OPT_RUNS: /* sandcap trace's own: hidden, opt_next() never returns them */
			return usage_error(argv[0], &it, -ENOENT);
		default:
			if (run_args_apply_id(o, c, it.value, err, sizeof(err)) < 0) {
				fprintf(stderr, "sandcap: %s\n", err);
				return -EINVAL;
			}
			break;
		}
	}
	if (o->report_path != NULL && o->report_fd >= 0) {
		fprintf(stderr,
			"sandcap: --report-fd: cannot be combined with --report; give one\n");
		return -EINVAL;
	}
	if (it.i >= argc) {
		fprintf(stderr,
			"sandcap: %s: no command given; usage: sandcap %s [OPTIONS] -- COMMAND "
			"[ARG...]\n",
			argv[0], argv[0]);
		return -EINVAL;
	}
	if (argv[it.i][0] == '\0') {
		fprintf(stderr, "sandcap: run: the command name is empty\n");
		return -EINVAL;
	}
	if (run_args_check_net(o, err, sizeof(err)) < 0) {
		fprintf(stderr, "sandcap: %s\n", err);
		return -EINVAL;
	}
	o->argv = argv + it.i;
	o->argc = argc - it.i;
	return 0;
}

int
run_args_find_profile(int argc, char **argv, const char **ret_name)
{
	const char *name = NULL;
	struct opt_iter it;
	int c;

	opt_init(&it, argc, argv, 1, run_option_defs, ELEMENTSOF(run_option_defs), RUN_OPTF_TRACE);
	/* A bad word ends the search: run_args_parse() names it. */
	while ((c = opt_next(&it)) > 0) {
		char e1[64], e2[64];

		if (c != RUN_OPT_PROFILE)
			continue;
		if (name != NULL) {
			/* Two profiles would be merged in some order: refuse instead of guessing. */
			fprintf(stderr,
				"sandcap: --profile: given twice ('%s', then '%s'); a run "
				"takes one profile (put the other's settings on the command line)\n",
				log_escape(name, e1, sizeof(e1)),
				log_escape(it.value, e2, sizeof(e2)));
			return -EINVAL;
		}
		name = it.value;
	}
	*ret_name = name;
	return 0;
}

void
trace_args_usage(FILE *f)
{
	fprintf(f,
		"Usage: sandcap trace [--headroom PERCENT] [--runs N] [sandcap run OPTIONS] "
		"-- COMMAND [ARG...]\n\nRun COMMAND under your ceilings from the policy (or the "
		"limits given), then print on stderr what it used (peak memory and pids, CPU and "
		"wall time, workspace bytes, largest file) and the sandcap run flags and profile "
		"that fit it with PERCENT headroom (0%% to 1000%%, default 25%%), suggesting a limit "
		"only where the measurement covers all it applies to (never --fsize), with floors "
		"for short runs (timeout >= 2s and 3x the wall time, CPU time >= 1s and 2x).  "
		"--runs N (1 to %d) runs it N times (stopping at a failed run) and takes the "
		"largest figures, showing the spread.  --report FILE or --report-fd N writes the "
		"same as JSON.  See sandcap(1).\n",
		TRACE_RUNS_MAX);
}

int
trace_args_parse(int argc, char **argv, struct trace_opts *t, char ***ret_nv, int *ret_n)
{
	_cleanup_free_ char **nv = NULL;
	struct opt_iter it;
	size_t cap = 2; /* "--" and the NULL */
	char esc[64];
	int c, n = 0;

	/* Each word gives at most two ("--as=1G": "--as" "1G"), a bundle one per letter. */
	for (int i = 0; i < argc; i++)
		cap += 2 + strlen(argv[i]);
	nv = calloc(cap, sizeof(char *));
	if (nv == NULL) {
		fprintf(stderr, "sandcap: trace: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	nv[n++] = argv[0];
	opt_init(&it, argc, argv, 1, run_option_defs, ELEMENTSOF(run_option_defs), 0);
	while ((c = opt_next(&it)) != 0) {
		if (c < 0)
			return usage_error(argv[0], &it, c);
		switch (c) {
		case RUN_OPT_HELP:
			trace_args_usage(stdout);
			return 1;
		case RUN_OPT_HEADROOM:
			if (parse_percent(it.value, &t->headroom_percent) < 0 ||
			    t->headroom_percent > 1000) {
				fprintf(stderr,
					"sandcap: --headroom: invalid percentage '%s': "
					"expected a whole percentage from 0%% to 1000%%, e.g. 25%%\n",
					log_escape(it.value, esc, sizeof(esc)));
				return -EINVAL;
			}
			break;
		case RUN_OPT_RUNS: {
			uint64_t runs;

			if (parse_u64_range(it.value, 1, TRACE_RUNS_MAX, &runs) < 0) {
				fprintf(stderr,
					"sandcap: --runs: invalid number '%s': expected a whole "
					"number from 1 to %d\n",
					log_escape(it.value, esc, sizeof(esc)), TRACE_RUNS_MAX);
				return -EINVAL;
			}
			t->runs = (unsigned) runs;
			break;
		}
		default:
			/* sandcap run's: passed on in the long form, the value as its own word,
			 * but "--name=VALUE" as it was: a value "--" is only taken attached. */
			if (it.value != NULL && it.word != NULL && it.word[0] == '-' &&
			    it.word[1] == '-' && strchr(it.word, '=') != NULL) {
				nv[n++] = (char *) it.word;
				break;
			}
			nv[n++] = (char *) it.def->name;
			if (it.value != NULL)
				nv[n++] = (char *) it.value;
			break;
		}
	}
	nv[n++] = (char *) "--";
	for (int i = it.i; i < argc; i++)
		nv[n++] = argv[i];
	nv[n] = NULL;
	*ret_n = n;
	*ret_nv = TAKE_PTR(nv);
	return 0;
}
