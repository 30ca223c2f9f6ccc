/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "args.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"

/* Upper bounds for counts: far above anything sensible, well inside the kernel's types. */
#define COUNT_MAX (UINT64_C(1) << 30)
#define CPU_PERCENT_MAX (UINT64_C(100) * 4096)

static const struct {
	const char *key;
	const char *option;
	int resource;
} rlimit_table[_RUN_RL_MAX] = {
	[RUN_RL_AS]     = { "as",          "--as",       RLIMIT_AS },
	[RUN_RL_CPU]    = { "cpu_time_ms", "--cpu-time", RLIMIT_CPU },
	[RUN_RL_FSIZE]  = { "fsize",       "--fsize",    RLIMIT_FSIZE },
	[RUN_RL_NOFILE] = { "nofile",      "--nofile",   RLIMIT_NOFILE },
	[RUN_RL_STACK]  = { "stack",       "--stack",    RLIMIT_STACK },
	[RUN_RL_CORE]   = { "core",        "--core",     RLIMIT_CORE },
	[RUN_RL_NPROC]  = { "nproc",       "--nproc",    RLIMIT_NPROC },
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
		"  --unix host|none  new AF_UNIX sockets with --net other than host (default none)\n"
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
		"                    whole (written under a temporary name, then renamed)\n"
		"  --report-fd N     write the JSON report to file descriptor N (3 or more; not\n"
		"                    passed to the command); also on a refusal (setup-error)\n"
		"  -h, --help        this text\n"
		"\n"
		"DUR: %s.\n"
		"SIZE: %s.\n"
		"PERCENT: %s.\n"
		"Exit status: the command's own; 128+N if it died of signal N; 124 timeout;\n"
		"125 sandcap failed or refused; 126 not executable; 127 not found.  See sandcap(1).\n",
		parse_duration_forms, parse_size_forms, parse_percent_forms);
}

enum {
	OPT_TIMEOUT = 0x100,
	OPT_GRACE,
	OPT_AS,
	OPT_CPU_TIME,
	OPT_FSIZE,
	OPT_NOFILE,
	OPT_STACK,
	OPT_CORE,
	OPT_NPROC,
	OPT_MEMORY,
	OPT_CPU,
	OPT_PIDS,
	OPT_DISK,
	OPT_NO_CGROUP,
	OPT_KEEP_FDS,
	OPT_FALLBACK,
	OPT_FS,
	OPT_NET,
	OPT_ALLOW,
	OPT_UNIX,
	OPT_RW,
	OPT_RO,
	OPT_REPORT,
	OPT_REPORT_FD,
	OPT_ENV,
	OPT_ENV_CLEAR,
	OPT_ENV_DENY,
	OPT_CHDIR,
	OPT_OUTPUT_LIMIT,
};

static const struct option long_options[] = {
	{ "timeout",   required_argument, NULL, OPT_TIMEOUT },
	{ "grace",     required_argument, NULL, OPT_GRACE },
	{ "as",        required_argument, NULL, OPT_AS },
	{ "cpu-time",  required_argument, NULL, OPT_CPU_TIME },
	{ "fsize",     required_argument, NULL, OPT_FSIZE },
	{ "nofile",    required_argument, NULL, OPT_NOFILE },
	{ "stack",     required_argument, NULL, OPT_STACK },
	{ "core",      required_argument, NULL, OPT_CORE },
	{ "nproc",     required_argument, NULL, OPT_NPROC },
	{ "memory",    required_argument, NULL, OPT_MEMORY },
	{ "cpu",       required_argument, NULL, OPT_CPU },
	{ "pids",      required_argument, NULL, OPT_PIDS },
	{ "disk",      required_argument, NULL, OPT_DISK },
	{ "no-cgroup", no_argument,       NULL, OPT_NO_CGROUP },
	{ "keep-fds",  no_argument,       NULL, OPT_KEEP_FDS },
	{ "fallback",  no_argument,       NULL, OPT_FALLBACK },
	{ "fs",        required_argument, NULL, OPT_FS },
	{ "net",       required_argument, NULL, OPT_NET },
	{ "allow",     required_argument, NULL, OPT_ALLOW },
	{ "unix",      required_argument, NULL, OPT_UNIX },
	{ "rw",        required_argument, NULL, OPT_RW },
	{ "ro",        required_argument, NULL, OPT_RO },
	{ "report",    required_argument, NULL, OPT_REPORT },
	{ "report-fd", required_argument, NULL, OPT_REPORT_FD },
	{ "env",       required_argument, NULL, OPT_ENV },
	{ "env-clear", no_argument,       NULL, OPT_ENV_CLEAR },
	{ "env-deny",  required_argument, NULL, OPT_ENV_DENY },
	{ "chdir",     required_argument, NULL, OPT_CHDIR },
	{ "output-limit", required_argument, NULL, OPT_OUTPUT_LIMIT },
	{ "quiet",     no_argument,       NULL, 'q' },
	{ "help",      no_argument,       NULL, 'h' },
	{}
};

/* The messages below go to err as "--OPT: ...": run_args_parse() prints them after
 * "sandcap: ", a profile (profile.c) after "FILE:LINE: ". */
static int
fail(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
bad_value(char *err, size_t errlen, const char *opt, const char *kind, const char *value, int r,
	  const char *forms)
{
	char esc[128];

	log_escape(value, esc, sizeof(esc));
	if (r == -ERANGE)
		return fail(err, errlen, "%s: %s '%s' is out of range: expected %s", opt, kind, esc,
			    forms);
	return fail(err, errlen, "%s: invalid %s '%s': expected %s", opt, kind, esc, forms);
}

/* A size; zero is refused when !allow_zero. */
static int
get_size(char *err, size_t errlen, const char *opt, const char *value, bool allow_zero,
	 uint64_t *ret)
{
	int r = parse_size(value, ret);

	if (r < 0)
		return bad_value(err, errlen, opt, "size", value, r, parse_size_forms);
	if (*ret == 0 && !allow_zero)
		return bad_value(err, errlen, opt, "size", value, -ERANGE, "more than 0");
	return 0;
}

/* A duration; zero is refused when !allow_zero. */
static int
get_duration(char *err, size_t errlen, const char *opt, const char *value, bool allow_zero,
	     uint64_t *ret)
{
	uint64_t v;
	int r = parse_duration_ms(value, &v);

	if (r == 0 && v == 0 && !allow_zero)
		r = -ERANGE;
	if (r < 0) {
		char forms[256];

		snprintf(forms, sizeof(forms), "%s%s", allow_zero ? "" : "more than 0: ",
			 parse_duration_forms);
		return bad_value(err, errlen, opt, "duration", value, r, forms);
	}
	*ret = v;
	return 0;
}

static int
get_count(char *err, size_t errlen, const char *opt, const char *value, uint64_t min,
	  uint64_t *ret)
{
	int r = parse_u64_range(value, min, COUNT_MAX, ret);

	if (r < 0) {
		char forms[96];

		snprintf(forms, sizeof(forms), "a whole number from %llu to %llu",
			 (unsigned long long) min, (unsigned long long) COUNT_MAX);
		return bad_value(err, errlen, opt, "number", value, r, forms);
	}
	return 0;
}

static int
set_rlimit(struct run_opts *o, enum run_rlimit l, uint64_t v)
{
	o->rl[l].set = true;
	o->rl[l].value = v;
	o->rl[l].source = rlimit_table[l].option;
	return 0;
}

static int
add_path(char *err, size_t errlen, const char *opt, const char *value, const char **arr, size_t *n)
{
	if (*n >= ISOLATE_PATHS_MAX)
		return fail(err, errlen, "%s: too many paths (at most %d)", opt, ISOLATE_PATHS_MAX);
	if (value[0] == '\0')
		return fail(err, errlen, "%s: empty path", opt);
	arr[(*n)++] = value;
	return 0;
}

/* Zero the bytes of *o from member a (included) up to member b (excluded). */
#define ZERO_SPAN(o, a, b) \
	memset((char *) (o) + offsetof(struct run_opts, a), 0, \
	       offsetof(struct run_opts, b) - offsetof(struct run_opts, a))

/* *o as parsed from no option at all.  The arrays read only below their counts (allow.rule,
 * env.env, env.deny: 37 of the struct's 39 KiB) are not written: parsing into a struct that
 * was never touched costs only the pages the options fill (issue 19; the old local copy
 * and the final copy of the whole struct cost 25 page faults per run). */
void
run_args_reset(struct run_opts *o)
{
	memset(o, 0, offsetof(struct run_opts, allow));
	o->allow.n = 0;
	ZERO_SPAN(o, has_allow, env);
	o->env.clear = false;
	o->env.n_env = 0;
	o->env.n_deny = 0;
	memset((char *) o + offsetof(struct run_opts, env) + sizeof(o->env), 0,
	       sizeof(*o) - offsetof(struct run_opts, env) - sizeof(o->env));
	o->grace_ms = 5000;
	o->report_fd = -1;
	o->iso.fs = POLICY_FS_NONE;
	o->iso.net = POLICY_NET_HOST;
}

/* Apply option c (an OPT_* or 'q') with value a to *o: the one place each option's value is
 * checked, for the command line and for profiles alike.  0, or -EINVAL with the reason in
 * err. */
static int
apply(struct run_opts *o, int c, const char *a, char *err, size_t errlen)
{
	uint64_t v;
	int r = 0;

	switch (c) {
	case OPT_TIMEOUT:
		r = get_duration(err, errlen, "--timeout", a, false, &o->timeout_ms);
		o->has_timeout = r == 0;
		break;
	case OPT_GRACE:
		r = get_duration(err, errlen, "--grace", a, true, &o->grace_ms);
		break;
	case OPT_CPU_TIME:
		r = get_duration(err, errlen, "--cpu-time", a, false, &v);
		if (r == 0)
			set_rlimit(o, RUN_RL_CPU, v);
		break;
	case OPT_AS:
	case OPT_FSIZE:
	case OPT_STACK:
	case OPT_CORE: {
		enum run_rlimit l = c == OPT_AS ? RUN_RL_AS : c == OPT_FSIZE ? RUN_RL_FSIZE :
				    c == OPT_STACK ? RUN_RL_STACK : RUN_RL_CORE;

		/* An address space or stack of 0 bytes leaves the command nothing to run in: the
		 * kernel kills it with SIGSEGV during its exec.  --fsize 0 (write nothing) and
		 * --core 0 (no core dumps) are real limits. */
		r = get_size(err, errlen, rlimit_table[l].option, a,
			     l != RUN_RL_AS && l != RUN_RL_STACK, &v);
		if (r == 0)
			set_rlimit(o, l, v);
		break;
	}
	case OPT_NOFILE:
		r = get_count(err, errlen, "--nofile", a, 1, &v);
		if (r == 0)
			set_rlimit(o, RUN_RL_NOFILE, v);
		break;
	case OPT_NPROC:
		r = get_count(err, errlen, "--nproc", a, 1, &v);
		if (r == 0)
			set_rlimit(o, RUN_RL_NPROC, v);
		break;
	case OPT_MEMORY:
		r = get_size(err, errlen, "--memory", a, false, &o->memory);
		break;
	case OPT_DISK:
		r = get_size(err, errlen, "--disk", a, false, &o->disk);
		break;
	case OPT_CPU:
		r = parse_percent(a, &o->cpu_percent);
		if (r == 0 && (o->cpu_percent == 0 || o->cpu_percent > CPU_PERCENT_MAX))
			r = -ERANGE;
		if (r < 0)
			r = bad_value(err, errlen, "--cpu", "percentage", a, r, parse_percent_forms);
		break;
	case OPT_PIDS:
		r = get_count(err, errlen, "--pids", a, 1, &o->pids);
		break;
	case OPT_NO_CGROUP:
		o->no_cgroup = true;
		break;
	case OPT_KEEP_FDS:
		o->keep_fds = true;
		break;
	case OPT_FALLBACK:
		o->fallback = true;
		o->iso.fallback = true;
		break;
	case OPT_FS:
		r = isolate_parse_fs(a, &o->iso.fs);
		if (r < 0)
			r = bad_value(err, errlen, "--fs", "value", a, r, "none, ro or strict");
		o->has_fs = r == 0;
		break;
	case OPT_NET:
		r = isolate_parse_net(a, &o->iso.net);
		if (r < 0)
			r = bad_value(err, errlen, "--net", "value", a, r,
				      "host, proxy, loopback or none");
		o->has_net = r == 0;
		break;
	case OPT_ALLOW: {
		struct allow_rule rule;
		char e[160];

		r = allow_parse_rule(a, &rule, e, sizeof(e));
		if (r < 0) {
			char esc[128];

			r = fail(err, errlen, "--allow: invalid rule '%s': %s",
				 log_escape(a, esc, sizeof(esc)), e);
			break;
		}
		r = allow_add(&o->allow, &rule);
		if (r < 0)
			r = fail(err, errlen, "--allow: more than %d rules", ALLOW_RULES_MAX);
		o->has_allow = r == 0;
		break;
	}
	case OPT_UNIX:
		if (a != NULL && streq(a, "host"))
			o->iso.unix_host = true;
		else if (a != NULL && streq(a, "none"))
			o->iso.unix_host = false;
		else
			r = bad_value(err, errlen, "--unix", "value", a, -EINVAL, "host or none");
		o->has_unix = r == 0;
		break;
	case OPT_RW:
		r = add_path(err, errlen, "--rw", a, o->iso.rw, &o->iso.n_rw);
		break;
	case OPT_RO:
		r = add_path(err, errlen, "--ro", a, o->iso.ro, &o->iso.n_ro);
		break;
	case OPT_REPORT:
		if (a[0] == '\0')
			r = fail(err, errlen, "--report: empty file name (use - for stdout)");
		o->report_path = a;
		break;
	case OPT_REPORT_FD:
		/* 0-2 are the command's own stdin, stdout and stderr: never withheld. */
		r = parse_u64_range(a, 3, INT_MAX, &v);
		if (r < 0)
			r = bad_value(err, errlen, "--report-fd", "file descriptor", a, r,
				      "a number from 3 up (--report - writes to stdout)");
		else
			o->report_fd = (int) v;
		break;
	case OPT_ENV:
	case OPT_ENV_DENY:
		r = c == OPT_ENV ? env_add(&o->env, a, err, errlen) :
				   env_add_deny(&o->env, a, err, errlen);
		break;
	case OPT_OUTPUT_LIMIT:
		r = get_size(err, errlen, "--output-limit", a, false, &o->output_limit);
		break;
	case OPT_ENV_CLEAR:
		o->env.clear = true;
		break;
	case OPT_CHDIR:
		if (a[0] == '\0') {
			r = fail(err, errlen, "--chdir: empty directory name (a path, or @workspace)");
		} else if (a[0] == '@' && !streq(a, "@workspace")) {
			char esc[64];

			r = fail(err, errlen, "--chdir: unknown place '%s': expected a directory or "
				 "@workspace", log_escape(a, esc, sizeof(esc)));
		}
		o->chdir = a;
		break;
	case 'q':
		o->quiet = true;
		break;
	default:
		r = fail(err, errlen, "run: option %d has no handler", c);   /* a bug: see callers */
		break;
	}
	return r < 0 ? -EINVAL : 0;
}

int
run_args_apply(struct run_opts *o, const char *name, const char *value, char *err, size_t errlen)
{
	for (size_t i = 0; long_options[i].name != NULL; i++)
		if (streq(long_options[i].name, name) && long_options[i].val != 'h')
			return apply(o, long_options[i].val,
				     long_options[i].has_arg == no_argument ? NULL : value, err,
				     errlen);
	return fail(err, errlen, "run: unknown option '--%s'", name);
}

int
run_args_check_net(struct run_opts *o, char *err, size_t errlen)
{
	if (o->has_allow && !o->has_net) {
		o->iso.net = POLICY_NET_PROXY;   /* --allow implies --net proxy */
		o->has_net = true;
	}
	if (o->has_allow && o->iso.net != POLICY_NET_PROXY)
		return fail(err, errlen, "--allow: only with --net proxy (not --net %s)",
			    policy_net_name(o->iso.net));
	if (o->has_unix && !o->iso.unix_host && o->iso.net == POLICY_NET_HOST)
		return fail(err, errlen, "--unix none: only with --net proxy, loopback or none "
			    "(--net host leaves every socket family open)");
	return 0;
}

int
run_args_parse(int argc, char **argv, struct run_opts *ret)
{
	struct run_opts *o = ret;
	char err[512];
	int c;

	run_args_reset(o);
	set_rlimit(o, RUN_RL_CORE, 0);         /* no core dumps unless asked */
	optind = 0;                             /* full reset: cmd_run may be called twice */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hq", long_options, NULL)) != -1) {
		char esc[64];

		switch (c) {
		case 'h':
			run_args_usage(stdout);
			return 1;
		case ':':
			fprintf(stderr, "sandcap: %s: missing value; see 'sandcap run --help'\n",
				log_escape(argv[optind - 1], esc, sizeof(esc)));
			return -EINVAL;
		case '?':
			fprintf(stderr, "sandcap: run: unknown option '%s'; see 'sandcap run --help'\n",
				log_escape(argv[optind - 1], esc, sizeof(esc)));
			return -EINVAL;
		default:
			if (apply(o, c, optarg, err, sizeof(err)) < 0) {
				fprintf(stderr, "sandcap: %s\n", err);
				return -EINVAL;
			}
			break;
		}
	}
	if (o->report_path != NULL && o->report_fd >= 0) {
		fprintf(stderr, "sandcap: --report-fd: cannot be combined with --report; give one\n");
		return -EINVAL;
	}
	if (optind >= argc) {
		fprintf(stderr, "sandcap: run: no command given; usage: sandcap run [OPTIONS] -- COMMAND "
			"[ARG...]\n");
		return -EINVAL;
	}
	if (argv[optind][0] == '\0') {
		fprintf(stderr, "sandcap: run: the command name is empty\n");
		return -EINVAL;
	}
	if (run_args_check_net(o, err, sizeof(err)) < 0) {
		fprintf(stderr, "sandcap: %s\n", err);
		return -EINVAL;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	return 0;
}
