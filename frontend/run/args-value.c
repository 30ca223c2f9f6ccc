/* SPDX-License-Identifier: MIT */
/* The check of each `sandcap run` option's value and where it goes in struct run_opts, for the
 * command line and profiles alike (args.h): a table of the options by kind of value. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "run/args.h"
#include "run/run.h"
#include "log.h"
#include "macro.h"
#include "run/opt.h"
#include "parse-util.h"

/* Upper bound for --nofile and --nproc, which no policy bounds: far above anything sensible,
 * well inside the kernel's types.  The other limits take the policy's ranges (policy.h). */
#define COUNT_MAX (UINT64_C(1) << 30)

/* Messages go to err as "--OPT: ...", printed after "sandcap: " or "FILE:LINE: ". */
static int fail(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);

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

/* How an option's value is checked and where it goes: one row per option in apply_defs. */
enum apply_kind {
	KIND_SIZE,     /* bytes, min (0 or 1) to POLICY_SIZE_MAX */
	KIND_DURATION, /* milliseconds, min (0 or 1) to POLICY_TIMEOUT_MAX_MS */
	KIND_COUNT,    /* a whole number, min to max */
	KIND_PERCENT,  /* a percentage, min to max */
	KIND_FLAG,     /* no value: the field is set to true */
	KIND_STRING,   /* one value, checked and stored by fn */
	KIND_LIST,     /* a value added to a list by fn */
};

#define NO_FIELD SIZE_MAX

struct apply_def {
	int id; /* RUN_OPT_* */
	enum apply_kind kind;
	uint64_t min, max; /* size, duration, count, percent */
	size_t field;      /* offset of the uint64_t (bool for a flag) it sets, or NO_FIELD */
	int rl;            /* the rlimit it sets (field NO_FIELD), or -1 */
	size_t also;       /* offset of a bool also set when the value is taken, or NO_FIELD */
	int (*fn)(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen);
};

#define AT(f) offsetof(struct run_opts, f)
#define NUM(id, kind, min, max, f)                            \
	{                                                     \
		id, kind, min, max, AT(f), -1, NO_FIELD, NULL \
	}
#define RLIM(id, kind, min, max, l)                             \
	{                                                       \
		id, kind, min, max, NO_FIELD, l, NO_FIELD, NULL \
	}
#define FLAG(id, f, also)                                  \
	{                                                  \
		id, KIND_FLAG, 0, 0, AT(f), -1, also, NULL \
	}
#define FN(id, kind, fn, also)                         \
	{                                              \
		id, kind, 0, 0, NO_FIELD, -1, also, fn \
	}

/* A size or duration typed can never mean "unlimited": RLIM_INFINITY and the policy's "no
 * ceiling" are above the maximum. */
static int
get_size(const struct apply_def *d, const char *opt, const char *value, char *err, size_t errlen,
	 uint64_t *ret)
{
	int r = parse_size(value, ret);

	if (r == 0 && (*ret < d->min || *ret > d->max))
		r = -ERANGE;
	if (r == -ERANGE)
		return bad_value(err, errlen, opt, "size", value, r,
				 d->min == 0 ? "a size from 0 to 1 EiB (2^60 bytes)"
					     : "a size from 1 byte to 1 EiB (2^60 bytes)");
	if (r < 0)
		return bad_value(err, errlen, opt, "size", value, r, parse_size_forms);
	return 0;
}

static int
get_duration(const struct apply_def *d, const char *opt, const char *value, char *err,
	     size_t errlen, uint64_t *ret)
{
	int r = parse_duration_ms(value, ret);

	if (r == 0 && (*ret < d->min || *ret > d->max))
		r = -ERANGE;
	if (r == -ERANGE)
		return bad_value(err, errlen, opt, "duration", value, r,
				 d->min == 0 ? "a duration from 0 to 366 days (8784h)"
					     : "a duration from 1ms to 366 days (8784h)");
	if (r < 0)
		return bad_value(err, errlen, opt, "duration", value, r, parse_duration_forms);
	return 0;
}

static int
get_count(const struct apply_def *d, const char *opt, const char *value, char *err, size_t errlen,
	  uint64_t *ret)
{
	int r = parse_u64_range(value, d->min, d->max, ret);

	if (r < 0) {
		char forms[96];

		snprintf(forms, sizeof(forms), "a whole number from %llu to %llu",
			 (unsigned long long) d->min, (unsigned long long) d->max);
		return bad_value(err, errlen, opt, "number", value, r, forms);
	}
	return 0;
}

static int
get_percent(const struct apply_def *d, const char *opt, const char *value, char *err, size_t errlen,
	    uint64_t *ret)
{
	int r = parse_percent(value, ret);

	if (r == 0 && (*ret < d->min || *ret > d->max))
		r = -ERANGE;
	if (r == -ERANGE) {
		char forms[64];

		snprintf(forms, sizeof(forms), "a percentage from %llu%% to %llu%%",
			 (unsigned long long) d->min, (unsigned long long) d->max);
		return bad_value(err, errlen, opt, "percentage", value, r, forms);
	}
	if (r < 0)
		return bad_value(err, errlen, opt, "percentage", value, r, parse_percent_forms);
	return 0;
}

void
run_args_set_rlimit(struct run_opts *o, enum run_rlimit l, uint64_t v)
{
	o->rl[l].set = true;
	o->rl[l].value = v;
	o->rl[l].source = run_rlimit_option(l);
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

static int
set_fs(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	int r = isolate_parse_fs(a, &o->iso.fs);

	return r < 0 ? bad_value(err, errlen, opt, "value", a, r, "none, ro or strict") : 0;
}

static int
set_net(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	int r = isolate_parse_net(a, &o->iso.net);

	return r < 0 ? bad_value(err, errlen, opt, "value", a, r, "host, proxy, loopback or none")
		     : 0;
}

static int
set_unix(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	if (a != NULL && streq(a, "host"))
		o->iso.unix_host = true;
	else if (a != NULL && streq(a, "none"))
		o->iso.unix_host = false;
	else
		return bad_value(err, errlen, opt, "value", a, -EINVAL, "host or none");
	return 0;
}

static int
set_report(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	o->report_path = a;
	if (a[0] == '\0')
		return fail(err, errlen, "%s: empty file name (use - for stdout)", opt);
	return 0;
}

static int
set_report_fd(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	uint64_t v;
	/* 0-2 are the command's own stdin, stdout and stderr: never withheld. */
	int r = parse_u64_range(a, 3, INT_MAX, &v);

	if (r < 0)
		return bad_value(err, errlen, opt, "file descriptor", a, r,
				 "a number from 3 to 2147483647 (--report - writes to stdout)");
	o->report_fd = (int) v;
	return 0;
}

static int
set_chdir(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	char esc[64];

	o->chdir = a;
	if (a[0] == '\0')
		return fail(err, errlen, "%s: empty directory name (a path, or @workspace)", opt);
	if (a[0] == '@' && !streq(a, "@workspace"))
		return fail(err, errlen,
			    "%s: unknown place '%s': expected a directory or "
			    "@workspace",
			    opt, log_escape(a, esc, sizeof(esc)));
	return 0;
}

static int
add_allow(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	struct allow_rule rule;
	char e[160], esc[128];

	if (allow_parse_rule(a, &rule, e, sizeof(e)) < 0)
		return fail(err, errlen, "%s: invalid rule '%s': %s", opt,
			    log_escape(a, esc, sizeof(esc)), e);
	if (allow_add(&o->allow, &rule) < 0)
		return fail(err, errlen, "%s: more than %d rules", opt, ALLOW_RULES_MAX);
	return 0;
}

static int
add_rw(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	return add_path(err, errlen, opt, a, o->iso.rw, &o->iso.n_rw);
}

static int
add_ro(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	return add_path(err, errlen, opt, a, o->iso.ro, &o->iso.n_ro);
}

static int
add_env(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	(void) opt;
	return env_add(&o->env, a, err, errlen);
}

static int
add_env_deny(struct run_opts *o, const char *opt, const char *a, char *err, size_t errlen)
{
	(void) opt;
	return env_add_deny(&o->env, a, err, errlen);
}

/* An address space or stack of 0 bytes leaves the command nothing to run in: the kernel kills
 * it with SIGSEGV during its exec, so they start at 1.  --fsize 0 (write nothing) and
 * --core 0 (no core dumps) are real limits.  --nofile and --nproc have no policy range. */
static const struct apply_def apply_defs[] = {
	{ RUN_OPT_TIMEOUT, KIND_DURATION, 1, POLICY_TIMEOUT_MAX_MS, AT(timeout_ms), -1,
	  AT(has_timeout), NULL },
	NUM(RUN_OPT_GRACE, KIND_DURATION, 0, POLICY_TIMEOUT_MAX_MS, grace_ms),
	RLIM(RUN_OPT_CPU_TIME, KIND_DURATION, 1, POLICY_TIMEOUT_MAX_MS, RUN_RL_CPU),
	RLIM(RUN_OPT_AS, KIND_SIZE, 1, POLICY_SIZE_MAX, RUN_RL_AS),
	RLIM(RUN_OPT_FSIZE, KIND_SIZE, 0, POLICY_SIZE_MAX, RUN_RL_FSIZE),
	RLIM(RUN_OPT_STACK, KIND_SIZE, 1, POLICY_SIZE_MAX, RUN_RL_STACK),
	RLIM(RUN_OPT_CORE, KIND_SIZE, 0, POLICY_SIZE_MAX, RUN_RL_CORE),
	RLIM(RUN_OPT_NOFILE, KIND_COUNT, 1, COUNT_MAX, RUN_RL_NOFILE),
	RLIM(RUN_OPT_NPROC, KIND_COUNT, 1, COUNT_MAX, RUN_RL_NPROC),
	NUM(RUN_OPT_MEMORY, KIND_SIZE, 1, POLICY_SIZE_MAX, memory),
	NUM(RUN_OPT_DISK, KIND_SIZE, 1, POLICY_SIZE_MAX, disk),
	NUM(RUN_OPT_OUTPUT_LIMIT, KIND_SIZE, 1, POLICY_SIZE_MAX, output_limit),
	NUM(RUN_OPT_CPU, KIND_PERCENT, 1, POLICY_CPU_MAX, cpu_percent),
	NUM(RUN_OPT_PIDS, KIND_COUNT, 1, POLICY_PIDS_MAX, pids),
	FLAG(RUN_OPT_NO_CGROUP, no_cgroup, NO_FIELD),
	FLAG(RUN_OPT_KEEP_FDS, keep_fds, NO_FIELD),
	FLAG(RUN_OPT_FALLBACK, fallback, AT(iso.fallback)),
	FLAG(RUN_OPT_ENV_CLEAR, env.clear, NO_FIELD),
	FLAG(RUN_OPT_QUIET, quiet, NO_FIELD),
	FN(RUN_OPT_FS, KIND_STRING, set_fs, AT(has_fs)),
	FN(RUN_OPT_NET, KIND_STRING, set_net, AT(has_net)),
	FN(RUN_OPT_UNIX, KIND_STRING, set_unix, AT(has_unix)),
	FN(RUN_OPT_REPORT, KIND_STRING, set_report, NO_FIELD),
	FN(RUN_OPT_REPORT_FD, KIND_STRING, set_report_fd, NO_FIELD),
	FN(RUN_OPT_CHDIR, KIND_STRING, set_chdir, NO_FIELD),
	FN(RUN_OPT_ALLOW, KIND_LIST, add_allow, AT(has_allow)),
	FN(RUN_OPT_RW, KIND_LIST, add_rw, NO_FIELD),
	FN(RUN_OPT_RO, KIND_LIST, add_ro, NO_FIELD),
	FN(RUN_OPT_ENV, KIND_LIST, add_env, NO_FIELD),
	FN(RUN_OPT_ENV_DENY, KIND_LIST, add_env_deny, NO_FIELD),
};

/* The value of a numeric kind, checked against d's range. */
static int
get_number(const struct apply_def *d, const char *opt, const char *a, char *err, size_t errlen,
	   uint64_t *ret)
{
	switch (d->kind) {
	case KIND_SIZE:
		return get_size(d, opt, a, err, errlen, ret);
	case KIND_DURATION:
		return get_duration(d, opt, a, err, errlen, ret);
	case KIND_COUNT:
		return get_count(d, opt, a, err, errlen, ret);
	case KIND_PERCENT:
		return get_percent(d, opt, a, err, errlen, ret);
	case KIND_FLAG:
	case KIND_STRING:
	case KIND_LIST:
		break;
	}
	return fail(err, errlen, "%s: not a number option", opt); /* a bug in apply_defs */
}

static const char *
option_name(int id)
{
	size_t n;
	const struct opt_def *defs = run_args_options(&n);

	for (size_t i = 0; i < n; i++)
		if (defs[i].id == id)
			return defs[i].name;
	return "run";
}

/* *o as parsed from no option at all. */
void
run_args_reset(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->grace_ms = 5000;
	o->report_fd = -1;
	o->iso.fs = POLICY_FS_NONE;
	o->iso.net = POLICY_NET_HOST;
}

int
run_args_apply_id(struct run_opts *o, int c, const char *a, char *err, size_t errlen)
{
	const struct apply_def *d = NULL;
	const char *opt = option_name(c);
	char *base = (char *) o;
	uint64_t v = 0;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(apply_defs) && d == NULL; i++)
		if (apply_defs[i].id == c)
			d = &apply_defs[i];
	if (d == NULL)
		return fail(err, errlen, "run: option %d has no handler",
			    c); /* a bug: see callers */
	if (d->kind == KIND_FLAG) {
		*(bool *) (base + d->field) = true;
	} else if (d->fn != NULL) {
		r = d->fn(o, opt, a, err, errlen);
		if (r < 0)
			return -EINVAL;
	} else {
		r = get_number(d, opt, a, err, errlen, &v);
		if (r < 0)
			return -EINVAL;
		if (d->rl >= 0)
			run_args_set_rlimit(o, d->rl, v);
		else
			*(uint64_t *) (base + d->field) = v;
	}
	if (d->also != NO_FIELD)
		*(bool *) (base + d->also) = true;
	return 0;
}

int
run_args_apply(struct run_opts *o, const char *name, const char *value, char *err, size_t errlen)
{
	size_t n;
	const struct opt_def *defs = run_args_options(&n);

	for (size_t i = 0; i < n; i++) {
		const struct opt_def *d = &defs[i];

		/* Not options a profile can set: --help, --profile, trace's own. */
		if (d->id == RUN_OPT_HELP || d->id == RUN_OPT_PROFILE || d->flags != 0)
			continue;
		if (streq(d->name + 2, name))
			return run_args_apply_id(o, d->id, d->has_value ? value : NULL, err,
						 errlen);
	}
	return fail(err, errlen, "run: unknown option '--%s'", name);
}

int
run_args_check_net(struct run_opts *o, char *err, size_t errlen)
{
	if (o->has_allow && !o->has_net) {
		o->iso.net = POLICY_NET_PROXY; /* --allow implies --net proxy */
		o->has_net = true;
	}
	if (o->has_allow && o->iso.net != POLICY_NET_PROXY)
		return fail(err, errlen, "--allow: only with --net proxy (not --net %s)",
			    policy_net_name(o->iso.net));
	if (o->has_unix && !o->iso.unix_host && o->iso.net == POLICY_NET_HOST)
		return fail(err, errlen,
			    "--unix none: only with --net proxy, loopback or none "
			    "(with --net host the sandbox reaches only the UNIX sockets it made; "
			    "--unix host opens the user's)");
	return 0;
}
