/* SPDX-License-Identifier: MIT */
/* `sandcap run --session ID [OPTIONS] -- CMD`: one call of a session.  The call's options are
 * checked against the session's (a ceiling asked above is refused, the CPU-time budget caps
 * --cpu-time, the TTL caps --timeout), then run_main() runs it in rlimit mode with its report
 * in the session, and the ledger gets its figures.  Calls hold the session's lock while they
 * run: one at a time, so that the budget left is known when a call starts and `end` knows
 * which call to kill. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exit.h"
#include "fd-util.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "run/args.h"
#include "run/run.h"
#include "run/session-cgroup.h"
#include "run/session-io.h"
#include "run/session-level.h"
#include "run/session-usercg.h"
#include "run/session.h"
#include "supervise/control.h"

#define OPT_SESSION     1000
#define CALL_REPORT_MAX SESSION_REPORT_MAX

struct call {
	const char *session;
	uint64_t timeout_ms, cpu_ms, as;
	uint64_t memory, pids, cpu_percent; /* checked here in user-cgroup mode, passed on */
	bool has_chdir, has_fs, has_disk, no_cgroup, help;
	const char *report_path; /* the caller's --report, copied there after */
	int report_fd;           /* the caller's --report-fd */
	char **pass;             /* run options passed on as they are */
	int n_pass;
	char **cmd; /* after "--" */
	int n_cmd;
};

static void
call_done(struct call *c)
{
	free(c->pass);
}

bool
session_call_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && !streq(argv[i], "--"); i++)
		if (streq(argv[i], "--session") || strneq(argv[i], "--session=", 10))
			return true;
	return false;
}

static int fail(const char *fmt, ...) _printf_(1, 2);

static int
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("sandcap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return SC_EXIT_FAILURE;
}

/* --memory, --pids, --cpu: kept for a user-cgroup session's check, passed on (1). */
static int
call_limit(struct call *c, int id, const char *v)
{
	char esc[64];

	switch (id) {
	case RUN_OPT_MEMORY:
		return parse_size(v, &c->memory) < 0
			       ? -fail("--memory: invalid size '%s': expected %s",
				       log_escape(v, esc, sizeof(esc)), parse_size_forms)
			       : 1;
	case RUN_OPT_PIDS:
		return parse_u64_range(v, 1, UINT64_MAX, &c->pids) < 0
			       ? -fail("--pids: invalid count '%s'",
				       log_escape(v, esc, sizeof(esc)))
			       : 1;
	case RUN_OPT_CPU:
		return parse_percent(v, &c->cpu_percent) < 0
			       ? -fail("--cpu: invalid value '%s': expected %s",
				       log_escape(v, esc, sizeof(esc)), parse_percent_forms)
			       : 1;
	default:
		return 1;
	}
}

/* One option the session looks at; 1 when it is passed on as it is. */
static int
call_option(struct call *c, int id, const char *v)
{
	char esc[64];
	uint64_t u;

	switch (id) {
	case OPT_SESSION:
		c->session = v;
		return 0;
	case RUN_OPT_TIMEOUT:
	case RUN_OPT_CPU_TIME:
		if (parse_duration_ms(v, &u) < 0 || u == 0)
			return -fail("%s: invalid duration '%s': expected %s",
				     id == RUN_OPT_TIMEOUT ? "--timeout" : "--cpu-time",
				     log_escape(v, esc, sizeof(esc)), parse_duration_forms);
		*(id == RUN_OPT_TIMEOUT ? &c->timeout_ms : &c->cpu_ms) = u;
		return 0;
	case RUN_OPT_AS:
		if (parse_size(v, &c->as) < 0 || c->as == 0)
			return -fail("--as: invalid size '%s': expected %s",
				     log_escape(v, esc, sizeof(esc)), parse_size_forms);
		return 0;
	case RUN_OPT_MEMORY:
	case RUN_OPT_PIDS:
	case RUN_OPT_CPU:
		return call_limit(c, id, v);
	case RUN_OPT_REPORT:
		c->report_path = v;
		return 0;
	case RUN_OPT_REPORT_FD:
		if (parse_u64_range(v, 0, INT_MAX, &u) < 0)
			return -fail("--report-fd: invalid file descriptor '%s'",
				     log_escape(v, esc, sizeof(esc)));
		c->report_fd = (int) u;
		return 0;
	case RUN_OPT_PROFILE:
		return -fail("--profile: not on a call of a session (its limits would not be "
			     "checked against the session's); give the options themselves");
	case RUN_OPT_NO_CGROUP:
		c->no_cgroup = true; /* a session's calls run in its mode */
		return 0;
	case RUN_OPT_DISK:
		c->has_disk = true;
		return 1;
	case RUN_OPT_HELP:
		c->help = true;
		return 0;
	case RUN_OPT_CHDIR:
		c->has_chdir = true;
		return 1;
	case RUN_OPT_FS:
		c->has_fs = true;
		return 1;
	default:
		return 1;
	}
}

static int
parse_call(int argc, char **argv, struct call *c)
{
	size_t n_run;
	const struct opt_def *run = run_args_options(&n_run);
	_cleanup_free_ struct opt_def *defs = calloc(n_run + 1, sizeof(*defs));
	struct opt_iter it;
	char msg[160];
	int r, id;

	c->pass = calloc((size_t) argc * 2 + 1, sizeof(char *));
	if (defs == NULL || c->pass == NULL)
		return -fail("run --session: %s", strerror(ENOMEM));
	memcpy(defs, run, n_run * sizeof(*defs));
	defs[n_run] = (struct opt_def){ "--session", 0, true, OPT_SESSION, 0 };
	opt_init(&it, argc, argv, 1, defs, n_run + 1, RUN_OPTF_TRACE);
	while ((id = opt_next(&it)) != 0) {
		if (id < 0) {
			opt_error(&it, id, msg, sizeof(msg));
			return -fail("run: %s; see 'sandcap run --help'", msg);
		}
		r = call_option(c, id, it.value);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		c->pass[c->n_pass++] = (char *) it.def->name;
		if (it.value != NULL)
			c->pass[c->n_pass++] = (char *) it.value;
	}
	if (c->help)
		return 0;
	if (it.i == 0 || it.i > argc || !streq(argv[it.i - 1], "--"))
		return -fail("run --session: put -- between the options and the command "
			     "(sandcap run --session ID [OPTIONS] -- COMMAND [ARG...])");
	c->cmd = argv + it.i;
	c->n_cmd = argc - it.i;
	return 0;
}

/* Refusals that do not depend on the ledger. */
static int
check_ceilings(const struct call *c, const struct session_state *s)
{
	char a[32], b[32];

	if (c->timeout_ms && s->timeout_ms && c->timeout_ms > s->timeout_ms) {
		format_duration_ms(c->timeout_ms, a, sizeof(a));
		format_duration_ms(s->timeout_ms, b, sizeof(b));
		return -fail("--timeout %s: above session %s's per-call ceiling of %s; ask at "
			     "most %s (or none: the session's applies)",
			     a, s->id, b, b);
	}
	if (c->as && s->as && c->as > s->as) {
		format_size(c->as, a, sizeof(a));
		format_size(s->as, b, sizeof(b));
		return -fail("--as %s: above session %s's per-call ceiling of %s; ask at most %s "
			     "(or none: the session's applies)",
			     a, s->id, b, b);
	}
	if ((c->has_fs && s->fs[0] != '\0'))
		return -fail("--fs: session %s gives every call --fs %s; drop it from the call",
			     s->id, s->fs);
	if (c->has_disk && sesscg_is(s))
		return -fail("--disk: a call of session %s works in the session's workspace, "
			     "whose size the session set; drop it from the call",
			     s->id);
	if (c->no_cgroup && sesscg_is(s))
		return -fail("--no-cgroup: session %s is in cgroup mode, and its calls run in "
			     "its cgroup; drop it, or start a session with --no-cgroup",
			     s->id);
	return 0;
}

/* The TTL and the budget, under the lock.  *ret_cpu: the call's --cpu-time (0: none). */
static int
check_budget(const struct call *c, const struct session_state *s, int dfd, unsigned *ret_n,
	     uint64_t *ret_cpu)
{
	struct session_totals t;
	char a[32], b[32];

	if (session_now_ms() >= s->expires_ms) {
		format_duration_ms(s->ttl_ms, a, sizeof(a));
		return -fail("session %s has expired (its TTL of %s has passed); end it with "
			     "sandcap session end %s and start another",
			     s->id, a, s->id);
	}
	if (session_totals_read(dfd, &t) < 0)
		return -fail("session %s: its ledger is unreadable", s->id);
	/* cgroup mode: the level's own CPU time, as the keeper last read it, when more. */
	if (sesscg_is(s)) {
		struct sesscg g;

		if (sesscg_read(dfd, &g) < 0)
			return -fail("session %s: its cgroup record is unreadable (a call may have "
				     "changed it, or its level is gone); end it with sandcap "
				     "session end %s",
				     s->id, s->id);
		if (g.has_usage && g.cpu_usec / 1000 > t.cpu_ms)
			t.cpu_ms = g.cpu_usec / 1000;
	}
	if (t.calls >= SESSION_CALLS_MAX)
		return -fail("session %s has run %u calls, as many as a session may; end it and "
			     "start another",
			     s->id, t.calls);
	*ret_n = t.calls + 1;
	*ret_cpu = c->cpu_ms;
	if (session_is_usercg(s)) {
		char err[512];
		uint64_t used = 0;

		/* The scope's cpu.stat: every process of every call, whatever the ledger. */
		if (session_usercg_cpu_used(dfd, s, &used, err, sizeof(err)) < 0)
			return -fail("session %s: %s", s->id, err);
		t.cpu_ms = used > t.cpu_ms ? used : t.cpu_ms;
	}
	if (s->cpu_budget_ms == 0)
		return 0;
	if (t.cpu_ms >= s->cpu_budget_ms) {
		format_duration_ms(s->cpu_budget_ms, a, sizeof(a));
		format_duration_ms(t.cpu_ms, b, sizeof(b));
		return -fail("session %s: its CPU-time budget of %s is spent (%s used by %u "
			     "calls); end it and start another with a larger --cpu-time",
			     s->id, a, b, t.calls);
	}
	*ret_cpu = session_cap(c->cpu_ms, s->cpu_budget_ms - t.cpu_ms);
	return 0;
}

/* "<uid>-<12 hex>", as sandcap run names its sandboxes: the control socket's name. */
static void
call_id(char *buf, size_t len)
{
	uint8_t rnd[6] = {};
	int n = snprintf(buf, len, "%u-", (unsigned) control_uid());

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd))
		memset(rnd, 0, sizeof(rnd)); /* unique anyway: one call at a time */
	for (size_t i = 0; i < sizeof(rnd) && (size_t) n + 2 < len; i++)
		n += snprintf(buf + n, len - (size_t) n, "%02x", rnd[i]);
}

static char *
dup_ms(uint64_t ms)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llums", (unsigned long long) ms);
	return strdup(buf);
}

static char *
tmpdir_env(const char *ws)
{
	char *e = NULL;

	return asprintf(&e, "TMPDIR=%s", ws) < 0 ? NULL : e;
}

static void
free_words(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Append the option name and its value (already allocated; NULL fails below). */
static void
add2(char **v, int *n, const char *name, char *value)
{
	v[(*n)++] = strdup(name);
	v[(*n)++] = value;
}

/* run_main()'s argv: ours first, then the caller's options, "--", the command. */
static char **
call_argv(const struct call *c, const struct session_state *s, const char *ws, int report_fd,
	  uint64_t timeout, uint64_t cpu, int *ret_n)
{
	char **v =
		calloc((size_t) (c->n_pass + c->n_cmd) + 24 + 2 * SESSION_RW_MAX, sizeof(char *));
	uint64_t as = session_cap(c->as, s->as);
	char num[32];
	int n = 0;

	if (v == NULL)
		return NULL;
	v[n++] = strdup("run");
	if (!sesscg_is(s) && !session_is_usercg(s))
		v[n++] = strdup("--no-cgroup");
	snprintf(num, sizeof(num), "%d", report_fd);
	add2(v, &n, "--report-fd", strdup(num));
	if (timeout)
		add2(v, &n, "--timeout", dup_ms(timeout));
	if (cpu)
		add2(v, &n, "--cpu-time", dup_ms(cpu));
	snprintf(num, sizeof(num), "%llu", (unsigned long long) as);
	if (as)
		add2(v, &n, "--as", strdup(num));
	if (s->fs[0] != '\0')
		add2(v, &n, "--fs", strdup(s->fs));
	/* The temporary directory --fs keeps writable is the workspace, not /tmp, where an
	 * XDG_RUNTIME_DIR (and so the session's state) may be. */
	if (s->fs[0] != '\0' || c->has_fs) {
		add2(v, &n, "--rw", strdup(ws));
		add2(v, &n, "--env", tmpdir_env(ws));
	}
	for (unsigned i = 0; i < s->n_rw; i++)
		add2(v, &n, "--rw", strdup(s->rw[i]));
	if (s->net[0] != '\0')
		add2(v, &n, "--net", strdup(s->net));
	if (!c->has_chdir)
		add2(v, &n, "--chdir", strdup(ws));
	for (int i = 0; i < c->n_pass; i++)
		v[n++] = strdup(c->pass[i]);
	v[n++] = strdup("--");
	for (int i = 0; i < c->n_cmd; i++)
		v[n++] = strdup(c->cmd[i]);
	for (int i = 0; i < n; i++)
		if (v[i] == NULL) {
			free_words(v, n);
			return NULL;
		}
	*ret_n = n;
	return v;
}

/* Into the ledger (whole, by rename); the call's report stays as call-N.json.  Without a
 * readable report (none written, or not sandcap's), the call still counts: its CPU time
 * from getrusage() of the processes run_main() waited for, its verdict "unknown". */
static void
record_call(int dfd, unsigned n, const char *rep, const struct session_call *measured)
{
	struct session_call sc = { .n = n };
	char line[256], *all;
	size_t len = 0;

	if (rep == NULL || session_call_from_report(rep, &sc) < 0)
		sc = *measured;
	all = malloc(SESSION_LEDGER_MAX);
	if (all == NULL ||
	    read_full_at(dfd, "calls", all, SESSION_LEDGER_MAX - sizeof(line), &len) < 0 ||
	    session_call_format(&sc, line, sizeof(line)) < 0 ||
	    (memcpy(all + len, line, strlen(line)),
	     session_write_file(dfd, "calls", all, len + strlen(line)) < 0))
		fprintf(stderr,
			"sandcap: session: cannot record call %u; the session's next "
			"call will find its ledger wrong\n",
			n);
	free(all);
}

/* The call's report, also where its caller asked for it. */
static void
copy_report(const struct call *c, const char *rep, size_t len)
{
	int fd = c->report_fd;
	bool close_it = false;

	if (c->report_path != NULL && streq(c->report_path, "-"))
		fd = STDOUT_FILENO;
	else if (c->report_path != NULL) {
		fd = open(c->report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		close_it = true;
	}
	if (fd < 0)
		return;
	if (write(fd, rep, len) != (ssize_t) len)
		fprintf(stderr, "sandcap: --report: cannot write the report: %s\n",
			strerror(errno));
	if (close_it)
		close(fd);
}

static int
finish_call(int dfd, const struct call *c, const char *name, int status,
	    const struct session_call *measured)
{
	_cleanup_free_ char *rep = malloc(CALL_REPORT_MAX);
	size_t len = 0;

	if (rep == NULL || read_full_at(dfd, name, rep, CALL_REPORT_MAX, &len) < 0 || len == 0) {
		/* sandcap run refused its options before it had a report to write: the
		 * command never ran, there is nothing to count. */
		if (len == 0 && status == SC_EXIT_FAILURE)
			(void) unlinkat(dfd, name, 0);
		else
			record_call(dfd, measured->n, NULL, measured);
		return status;
	}
	record_call(dfd, measured->n, rep, measured);
	copy_report(c, rep, len);
	return status;
}

static uint64_t
children_cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (uint64_t) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

static int
run_in_session(const struct call *c, const struct session_state *s, int dfd, unsigned n,
	       uint64_t cpu)
{
	const struct trace_opts t = { .on = false };
	char name[32], id[64], ws[PATH_MAX], err[512];
	uint64_t now = session_now_ms(), cpu0, timeout;
	uint64_t left = s->expires_ms > now ? s->expires_ms - now : 1;
	struct session_call m;
	struct sesscg g;
	_cleanup_close_ int fd = -EBADF;
	char **v;
	int argc, status, rootfd;

	timeout = session_cap(session_cap(c->timeout_ms, s->timeout_ms), left);
	snprintf(name, sizeof(name), "call-%u.json", n);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || session_workspace_path(s->id, ws, sizeof(ws)) < 0)
		return fail("session %s: cannot open the call's report: %s", s->id,
			    strerror(errno));
	call_id(id, sizeof(id));
	if (session_check_ctl(id, err, sizeof(err)) < 0)
		return fail("--session %s: %s", s->id, err);
	if (session_is_usercg(s) && session_usercg_call_begin(dfd, s, n, err, sizeof(err)) < 0)
		return fail("--session %s: %s", s->id, err);
	if (session_write_file(dfd, "running", id, strlen(id)) < 0)
		return fail("session %s: cannot record the call: %s", s->id, strerror(errno));
	v = call_argv(c, s, ws, fd, timeout, cpu, &argc);
	if (v == NULL)
		return fail("run --session: %s", strerror(ENOMEM));
	run_use_id(id);
	if (sesscg_is(s)) {
		if (sesscg_read_own(dfd, s->id, &g, err, sizeof(err)) < 0) {
			free_words(v, argc);
			(void) unlinkat(dfd, "running", 0);
			return fail("%s", err);
		}
		run_use_session(g.level);
	}
	m = (struct session_call){ .n = n, .verdict = "unknown", .exit_code = -1 };
	snprintf(m.id, sizeof(m.id), "%s", id);
	cpu0 = children_cpu_ms();
	status = run_main(argc, v, &t);
	m.cpu_ms = children_cpu_ms() - cpu0;
	run_use_id(NULL);
	run_use_session(NULL);
	session_usercg_call_end();
	free_words(v, argc);
	m.wall_ms = session_now_ms() - now;
	session_repair(dfd);
	/* The call may have taken the modes of $XDG_RUNTIME_DIR/sandcap and sessions/ away
	 * before its control socket was made, and then nothing of the run gave them back. */
	if (session_root(false, &rootfd, err, sizeof(err)) == 0)
		safe_close(rootfd);
	(void) unlinkat(dfd, "running", 0);
	return finish_call(dfd, c, name, status, &m);
}

int
session_call(int argc, char **argv)
{
	_cleanup_close_ int rootfd = -EBADF, dfd = -EBADF, lock = -EBADF;
	_cleanup_(call_done) struct call c = { .report_fd = -1 };
	struct session_state s = {};
	char err[512];
	uint64_t cpu = 0;
	unsigned n = 0;
	int r;

	if (parse_call(argc, argv, &c) < 0)
		return SC_EXIT_FAILURE;
	if (c.help) {
		run_args_usage(stdout);
		return 0;
	}
	r = session_root(false, &rootfd, err, sizeof(err));
	if (r == 0)
		r = session_open(rootfd, c.session, &dfd, &s, err, sizeof(err));
	if (r < 0)
		return fail("--session %s: %s", c.session, err);
	if (check_ceilings(&c, &s) < 0)
		return SC_EXIT_FAILURE;
	if (session_is_usercg(&s) &&
	    session_usercg_check_call(dfd, &s, c.memory, c.pids, c.cpu_percent) < 0)
		return SC_EXIT_FAILURE;
	/* Wait for the call that runs, at most until the TTL (which ends it). */
	r = session_lock(dfd, "lock", LOCK_EX,
			 s.expires_ms > session_now_ms() ? s.expires_ms - session_now_ms() : 0,
			 &lock);
	if (r < 0)
		return fail("--session %s: %s", c.session,
			    r == -ETIMEDOUT
				    ? "another call still runs and the session's TTL has passed"
				    : strerror(-r));
	if (faccessat(dfd, "state", F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return fail("--session %s: the session has ended", c.session);
	if (faccessat(dfd, "ending", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return fail("--session %s: the session is being ended (if that sandcap session "
			    "end was interrupted, run it again)",
			    c.session);
	if (check_budget(&c, &s, dfd, &n, &cpu) < 0)
		return SC_EXIT_FAILURE;
	return run_in_session(&c, &s, dfd, n, cpu);
}
