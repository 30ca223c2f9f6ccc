/* SPDX-License-Identifier: MIT */
/* `sbx run`: parse, decide how each limit is enforced, run the sandbox (supervise.c), decide
 * the verdict (verdict.c) and report it (report.c).  DESIGN.md "The flow of one sbx run". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cgstats.h"
#include "client.h"
#include "commands.h"
#include "isolate.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "report.h"
#include "supervise.h"
#include "verdict.h"

static void
fclosep_(FILE **f)
{
	if (*f != NULL && *f != stdout)
		(void) fclose(*f);
}

/* "<uid>-<12 hex>", chosen by sbx in rlimit mode. */
static void
make_id(char *buf, size_t bufsz)
{
	uint8_t rnd[6] = {};

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd)) {
		uint64_t t = (uint64_t) getpid() ^ ((uint64_t) time(NULL) << 16);

		memcpy(rnd, &t, sizeof(rnd));
	}
	snprintf(buf, bufsz, "%u-%02x%02x%02x%02x%02x%02x", (unsigned) getuid(), rnd[0], rnd[1],
		 rnd[2], rnd[3], rnd[4], rnd[5]);
}

static const char *
strip_sbx_prefix(const char *s)
{
	return strneq(s, "sbx: ", 5) ? s + 5 : s;
}

/* The cgroup limits cannot be enforced as asked (no helper, or --no-cgroup): refuse, or
 * with --fallback substitute rlimits and say so.  Returns 0 or -EINVAL after printing. */
static int
resolve_cgroup_fallback(struct run_opts *o, struct report *rep, const char *reason)
{
	static const char *const names[] = { "--memory", "--cpu", "--pids", "--disk" };
	const uint64_t vals[] = { o->memory, o->cpu_percent, o->pids, o->disk };
	bool any = false;

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		if (vals[i] == 0)
			continue;
		any = true;
		if (!o->fallback) {
			fprintf(stderr, "sbx: %s needs the sbx helper (cgroup v2), which is not "
				"available: %s; install it (see sbx doctor) or pass --fallback to "
				"accept %s instead\n", names[i], reason,
				i == 0 ? "RLIMIT_AS" : i == 1 ? "no CPU limit" :
				i == 2 ? "RLIMIT_NPROC" : "RLIMIT_FSIZE");
			return -EINVAL;
		}
	}
	if (!any)
		return 0;

	/* Substitutes (documented in sbx(1) and docs/report.md).  An explicit rlimit of the
	 * same kind is kept if it is tighter. */
	if (o->memory > 0) {
		if (!o->rl[RUN_RL_AS].set || o->rl[RUN_RL_AS].value > o->memory) {
			o->rl[RUN_RL_AS] = (struct run_rlimit_req) { true, o->memory, "--memory" };
		}
		report_add_limit(rep, "memory", o->memory);
		report_add_enforcement(rep, "memory", "rlimit (RLIMIT_AS, --fallback)");
	}
	if (o->cpu_percent > 0) {
		report_add_limit(rep, "cpu_percent", o->cpu_percent);
		report_add_enforcement(rep, "cpu", "none (not enforced)");
	}
	if (o->pids > 0) {
		if (!o->rl[RUN_RL_NPROC].set || o->rl[RUN_RL_NPROC].value > o->pids)
			o->rl[RUN_RL_NPROC] = (struct run_rlimit_req) { true, o->pids, "--pids" };
		report_add_limit(rep, "pids", o->pids);
		report_add_enforcement(rep, "pids", "rlimit (RLIMIT_NPROC, per user, --fallback)");
	}
	if (o->disk > 0) {
		if (!o->rl[RUN_RL_FSIZE].set || o->rl[RUN_RL_FSIZE].value > o->disk)
			o->rl[RUN_RL_FSIZE] = (struct run_rlimit_req) { true, o->disk, "--disk" };
		report_add_limit(rep, "disk", o->disk);
		report_add_enforcement(rep, "disk", "rlimit (RLIMIT_FSIZE, per file, --fallback)");
	}
	if (!o->quiet)
		fprintf(stderr, "sbx: warning: %s; --fallback: memory -> RLIMIT_AS, pids -> "
			"RLIMIT_NPROC (per user), disk -> RLIMIT_FSIZE (per file), cpu -> not "
			"enforced\n", reason);
	return 0;
}

static void
compose_message(const struct run_opts *o, const struct sv_outcome *out, const struct verdict *v,
		const struct cg_usage *cg, char *buf, size_t bufsz)
{
	char a[32], b[32], esc[128];
	const char *sig = v->signal > 0 ? sigabbrev_np(v->signal) : NULL;

	switch (v->kind) {
	case VERDICT_OK:
	case VERDICT_EXIT:
		snprintf(buf, bufsz, "the command exited with status %d", v->exit_code);
		break;
	case VERDICT_SIGNAL:
		snprintf(buf, bufsz, "the command was killed by signal %d (SIG%s)", v->signal,
			 sig != NULL ? sig : "?");
		break;
	case VERDICT_TIMEOUT:
		format_duration_ms(out->wall_ms, a, sizeof(a));
		format_duration_ms(o->timeout_ms, b, sizeof(b));
		if (out->grace_expired) {
			char g[32];

			format_duration_ms(o->grace_ms, g, sizeof(g));
			snprintf(buf, bufsz, "killed after %s (limit %s): SIGTERM, then SIGKILL "
				 "after the %s grace", a, b, g);
		} else {
			snprintf(buf, bufsz, "stopped after %s (limit %s): ended on SIGTERM", a, b);
		}
		break;
	case VERDICT_CPU_TIME:
		if (out->cpu_budget_fired) {
			snprintf(buf, bufsz, "the sandbox's CPU time budget was spent: killed");
			break;
		}
		format_duration_ms(o->rl[RUN_RL_CPU].value, b, sizeof(b));
		snprintf(buf, bufsz, "CPU time limit reached (limit %s per process, RLIMIT_CPU): "
			 "killed by SIG%s", b, sig != NULL ? sig : "?");
		break;
	case VERDICT_FSIZE:
		format_size(o->rl[RUN_RL_FSIZE].value, b, sizeof(b));
		snprintf(buf, bufsz, "file size limit reached (limit %s, %s): killed by SIGXFSZ", b,
			 o->rl[RUN_RL_FSIZE].source);
		break;
	case VERDICT_SETUP_ERROR:
		if (out->setup == SV_SETUP_EXEC)
			snprintf(buf, bufsz, "cannot execute '%s': %s",
				 log_escape(o->argv[0], esc, sizeof(esc)), strerror(out->setup_errno));
		else
			snprintf(buf, bufsz, "%s", strip_sbx_prefix(out->setup_msg));
		break;
	case VERDICT_MEMORY:
		format_size(o->memory, b, sizeof(b));
		snprintf(buf, bufsz, "memory limit hit: the OOM killer ended %llu process%s%s%s%s",
			 (unsigned long long) cg->oom_kill, cg->oom_kill == 1 ? "" : "es",
			 o->memory > 0 ? " (limit " : "", o->memory > 0 ? b : "",
			 o->memory > 0 ? ")" : "");
		break;
	case VERDICT_PIDS:
		snprintf(buf, bufsz, "process limit hit: %llu fork%s refused",
			 (unsigned long long) cg->pids_max_events,
			 cg->pids_max_events == 1 ? " was" : "s were");
		break;
	case VERDICT_DISK:
		format_size(cg->disk_used, b, sizeof(b));
		snprintf(buf, bufsz, "the workspace is full (%s used)", b);
		break;
	case _VERDICT_MAX:
		snprintf(buf, bufsz, "%s limit hit", verdict_name(v->kind));
		break;
	}
}

/* ---- cgroup mode: the helper session behind the supervisor's hooks ---- */

static int
cg_attach(int pidfd, void *userdata)
{
	struct sbx_session *s = userdata;
	char err[CLIENT_ERR_MAX] = "";
	int r = client_attach(s, pidfd, err, sizeof(err));

	if (r < 0)
		fprintf(stderr, "sbx: cannot move the sandbox into its cgroup: %s\n",
			err[0] != '\0' ? err : strerror(-r));
	return r;
}

static void
cg_kill(void *userdata)
{
	struct sbx_session *s = userdata;

	if (s->attached)
		(void) client_kill(s);
}

static int
cg_cpu_used(void *userdata, uint64_t *ret)
{
	struct sbx_session *s = userdata;
	struct cg_usage u;
	int r = cgstats_read(s->leaf_fd, -EBADF, &u);

	if (r < 0)
		return r;
	if (!u.has_cpu_stat)
		return -ENODATA;
	*ret = u.cpu_usage_usec;
	return 0;
}

static void
session_closep_(struct sbx_session *s)
{
	client_close(s);
}

static uint64_t
tv_ms(const struct timeval *tv)
{
	return (uint64_t) tv->tv_sec * 1000 + (uint64_t) tv->tv_usec / 1000;
}

/* Write the report (if asked) and the summary (unless -q); returns the exit status. */
static int
finish(const struct run_opts *o, FILE *report_file, struct report *rep)
{
	if (report_file != NULL && report_write_json(report_file, rep) < 0)
		fprintf(stderr, "sbx: --report: cannot write the report: %s\n", strerror(errno));
	if (!o->quiet || rep->v.kind == VERDICT_SETUP_ERROR) {
		if (rep->v.kind == VERDICT_SETUP_ERROR && o->quiet)
			fprintf(stderr, "sbx: %s\n", rep->message);
		else
			report_write_summary(stderr, rep);
	}
	if (report_file != NULL && report_file != stdout && fflush(report_file) != 0) {
		fprintf(stderr, "sbx: --report: cannot write the report: %s\n", strerror(errno));
		return SBX_EXIT_FAILURE;
	}
	return rep->v.sbx_exit;
}

int
cmd_run(int argc, char **argv)
{
	_cleanup_(fclosep_) FILE *report_file = NULL;
	_cleanup_(session_closep_) struct sbx_session sess;
	bool cgroup = false;
	uint64_t cpu_budget_ms = 0;
	struct run_opts o;
	struct isolate_plan plan = {};
	struct sv_rlimit rl[_RUN_RL_MAX];
	struct sv_outcome out = {};
	struct verdict_input in = {};
	struct report rep = { .version = SBX_VERSION, .mode = "rlimit" };
	char id[64], err[512] = "", message[512] = "";
	size_t n_rl = 0;
	int r;

	client_init(&sess);
	r = run_args_parse(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : SBX_EXIT_FAILURE;
	make_id(id, sizeof(id));
	rep.id = id;
	rep.argv = o.argv;
	rep.message = message;

	/* Open the report before anything runs, so a bad path costs nothing. */
	if (o.report_path != NULL) {
		if (streq(o.report_path, "-")) {
			report_file = stdout;
		} else {
			int fd = open(o.report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				      O_NOCTTY, 0644);

			if (fd >= 0)
				report_file = fdopen(fd, "w");
			if (report_file == NULL) {
				char esc[256];

				fprintf(stderr, "sbx: --report: cannot open '%s': %s\n",
					log_escape(o.report_path, esc, sizeof(esc)), strerror(errno));
				if (fd >= 0)
					close(fd);
				return SBX_EXIT_FAILURE;
			}
		}
	}

	if (o.has_timeout) {
		report_add_limit(&rep, "timeout_ms", o.timeout_ms);
		report_add_limit(&rep, "grace_ms", o.grace_ms);
		report_add_enforcement(&rep, "timeout", "sbx");
	}

	/* cgroup mode unless --no-cgroup, when the helper is there and takes us. */
	if (o.no_cgroup) {
		snprintf(err, sizeof(err), "--no-cgroup was given");
	} else {
		r = client_open(&sess, err, sizeof(err));
		if (r == 0) {
			struct sbx_request req = {
				.memory = o.memory, .cpu_percent = o.cpu_percent, .pids = o.pids,
				.disk = o.disk, .timeout_ms = o.has_timeout ? o.timeout_ms : 0,
				.net = o.iso.net, .fs = o.iso.fs,
			};

			r = client_create(&sess, &req, err, sizeof(err));
			if (r < 0) {
				fprintf(stderr, "sbx: the sbx helper refused the sandbox: %s\n",
					err[0] != '\0' ? err : strerror(-r));
				return SBX_EXIT_FAILURE;
			}
			cgroup = true;
		}
	}
	if (cgroup) {
		const struct sbx_request *e = &sess.effective;

		rep.mode = "cgroup";
		rep.id = sess.id;
		o.iso.workspace = sess.ws_path[0] != '\0' ? sess.ws_path : NULL;
		o.memory = e->memory;   /* as applied, for the messages */
		if (e->memory > 0) {
			report_add_limit(&rep, "memory", e->memory);
			report_add_enforcement(&rep, "memory", "cgroup");
		}
		if (e->cpu_percent > 0) {
			report_add_limit(&rep, "cpu_percent", e->cpu_percent);
			report_add_enforcement(&rep, "cpu", "cgroup");
		}
		if (e->pids > 0) {
			report_add_limit(&rep, "pids", e->pids);
			report_add_enforcement(&rep, "pids", "cgroup");
		}
		if (e->disk > 0) {
			report_add_limit(&rep, "disk", e->disk);
			report_add_enforcement(&rep, "disk", "tmpfs");
		}
		if (sess.enforcement[0] != '\0')
			report_add_enforcement(&rep, "helper_notes", "%s", sess.enforcement);
		if (o.rl[RUN_RL_CPU].set) {
			/* A whole-sandbox budget from cpu.stat instead of RLIMIT_CPU. */
			report_add_limit(&rep, "cpu_time_ms", o.rl[RUN_RL_CPU].value);
			report_add_enforcement(&rep, "cpu_time", "cgroup (cpu.stat, whole sandbox)");
			cpu_budget_ms = o.rl[RUN_RL_CPU].value;
			o.rl[RUN_RL_CPU].set = false;
		}
	} else {
		r = resolve_cgroup_fallback(&o, &rep, err);
		if (r < 0)
			return SBX_EXIT_FAILURE;
	}
	for (enum run_rlimit l = 0; l < _RUN_RL_MAX; l++) {
		uint64_t v = o.rl[l].value;

		if (!o.rl[l].set)
			continue;
		if (!streq(o.rl[l].source, run_rlimit_option(l)))
			continue;       /* a --fallback substitute: reported under its own name */
		report_add_limit(&rep, run_rlimit_key(l), v);
		report_add_enforcement(&rep, l == RUN_RL_CPU ? "cpu_time" : run_rlimit_key(l),
				       "rlimit");
	}
	for (enum run_rlimit l = 0; l < _RUN_RL_MAX; l++) {
		uint64_t v = o.rl[l].value;

		if (!o.rl[l].set)
			continue;
		rl[n_rl].resource = run_rlimit_resource(l);
		rl[n_rl].option = o.rl[l].source;
		if (l == RUN_RL_CPU) {
			/* Whole seconds, rounded up; SIGXCPU at the soft limit, SIGKILL one
			 * second later if the command ignores it. */
			rl[n_rl].soft = (rlim_t) ((v + 999) / 1000);
			rl[n_rl].hard = rl[n_rl].soft + 1;
		} else {
			rl[n_rl].soft = rl[n_rl].hard = v >= (uint64_t) RLIM_INFINITY ?
				RLIM_INFINITY : (rlim_t) v;
		}
		n_rl++;
	}

	r = isolate_plan(&o.iso, &plan, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "sbx: %s\n", strip_sbx_prefix(err));
		return SBX_EXIT_FAILURE;
	}
	if (o.has_fs || o.iso.n_rw > 0 || o.iso.n_ro > 0)
		report_add_enforcement(&rep, "fs", "%s", plan.fs_enforcement);
	if (o.has_net)
		report_add_enforcement(&rep, "net", "%s", plan.net_enforcement);

	struct sv_spec spec = {
		.argv = o.argv,
		.rl = rl,
		.n_rl = n_rl,
		.iso = &o.iso,
		.plan = &plan,
		.has_timeout = o.has_timeout,
		.timeout_ms = o.timeout_ms,
		.grace_ms = o.grace_ms,
	};
	if (cgroup) {
		spec.tmpdir = o.iso.workspace;
		spec.exclude_pid = sess.helper_pid;
		spec.userdata = &sess;
		spec.attach = cg_attach;
		spec.kill_all = cg_kill;
		spec.cpu_budget_ms = cpu_budget_ms;
		spec.cpu_rate_percent = sess.effective.cpu_percent > 0 ? sess.effective.cpu_percent :
			(uint64_t) sysconf(_SC_NPROCESSORS_ONLN) * 100;
		spec.cpu_used_usec = cg_cpu_used;
	}
	r = sv_run(&spec, &out);
	if (r < 0)
		return SBX_EXIT_FAILURE;
	if (cgroup) {
		/* The final counters, before DESTROY closes the leaf. */
		r = cgstats_read(sess.leaf_fd, sess.ws_fd, &rep.cg);
		if (r < 0)
			fprintf(stderr, "sbx: warning: cannot read the sandbox's counters: %s\n",
				strerror(-r));
		r = client_destroy(&sess, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "sbx: warning: teardown incomplete: %s\n",
				err[0] != '\0' ? err : strerror(-r));
		in.counters = rep.cg;
		in.disk_limit = sess.effective.disk;
		in.cpu_budget_fired = out.cpu_budget_fired;
	}

	in.setup = out.setup == SV_SETUP_EXEC ? VERDICT_SETUP_EXEC :
		   out.setup == SV_SETUP_FAILED ? VERDICT_SETUP_FAILED : VERDICT_SETUP_NONE;
	in.exec_errno = out.setup_errno;
	in.exited = out.exited;
	in.exit_code = out.exit_code;
	in.signaled = out.signaled;
	in.signal = out.signal;
	in.timeout_fired = out.timeout_fired;
	if (o.rl[RUN_RL_CPU].set) {
		in.cpu_limit_ms = (o.rl[RUN_RL_CPU].value + 999) / 1000 * 1000;
		in.main_cpu_ms = tv_ms(&out.main_ru.ru_utime) + tv_ms(&out.main_ru.ru_stime);
	}
	verdict_decide(&in, &rep.v);
	compose_message(&o, &out, &rep.v, &rep.cg, message, sizeof(message));

	rep.wall_ms = out.wall_ms;
	rep.cpu_user_ms = tv_ms(&out.tree_ru.ru_utime);
	rep.cpu_system_ms = tv_ms(&out.tree_ru.ru_stime);
	if (rep.cg.has_cpu_stat) {
		rep.cpu_user_ms = rep.cg.cpu_user_usec / 1000;
		rep.cpu_system_ms = rep.cg.cpu_system_usec / 1000;
	}
	rep.max_rss = (uint64_t) out.tree_ru.ru_maxrss * 1024;
	rep.has_max_rss = true;
	return finish(&o, report_file, &rep);
}
