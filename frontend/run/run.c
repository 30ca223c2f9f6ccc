/* SPDX-License-Identifier: MIT */
/* `sandcap run`, one run's steps: parse the options (args.c), choose how each limit is
 * enforced (mode.c), plan the isolation, run the sandbox (supervise/), decide the verdict
 * and put it into words (message.c), and report it (report/).  docs/design.md, "One run".
 * `sandcap trace` is the same run with trace_opts.on (cmd/trace.c); the control socket's
 * callbacks are in run/ctl.c. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "cgroup/client.h"
#include "cgroup/usercg.h"
#include "exit.h"
#include "isolate/isolate.h"
#include "isolate/protect.h"
#include "macro.h"
#include "policy.h"
#include "report/report-sink.h"
#include "report/report.h"
#include "report/verdict.h"
#include "run/args.h"
#include "run/ctl.h"
#include "run/net-run.h"
#include "run/profile.h"
#include "run/run-int.h"
#include "run/run.h"
#include "run/trace.h"
#include "run/usercg-run.h"
#include "supervise/control.h"
#include "supervise/env.h"
#include "supervise/keeper.h"
#include "supervise/output.h"
#include "supervise/supervise.h"

static void
report_sink_closep_(struct report_sink *s)
{
	report_sink_close(s);
}

static void
session_closep_(struct sc_session *s)
{
	client_close(s);
}

static void
usercg_closep_(struct usercg *u)
{
	usercg_close(u);
}

/* Deliver what was written to the sink's stream; 0, or -errno after printing why. */
static int
deliver(struct report_sink *sink)
{
	char err[512] = "";
	int r = report_sink_commit(sink, err, sizeof(err));

	if (r < 0)
		fprintf(stderr, "sandcap: %s\n", err);
	return r;
}

/* Write the report (if asked) and the summary (unless -q); returns the exit status. */
static int
finish(const struct run_opts *o, struct report_sink *sink, struct report *rep)
{
	FILE *f = sink != NULL ? report_sink_stream(sink) : NULL;

	if (f != NULL)
		(void) report_write_json(f, rep);
	if (!o->quiet || rep->v.kind == VERDICT_SETUP_ERROR) {
		if (rep->v.kind == VERDICT_SETUP_ERROR && o->quiet)
			fprintf(stderr, "sandcap: %s\n", rep->message);
		else
			report_write_summary(stderr, rep);
	}
	if (sink != NULL && deliver(sink) < 0)
		return SC_EXIT_FAILURE;
	return rep->v.sc_exit;
}

/* A refusal after option parsing (policy, ceilings, helper, isolation): the reason on
 * stderr (unless already printed) and in a setup-error report.  Returns 125. */
int _printf_(3, 4) run_refuse(struct run *R, bool printed, const char *fmt, ...)
{
	struct report_sink *sink = &R->sink;
	struct report *rep = &R->rep;
	char msg[1024];
	FILE *f = report_sink_stream(sink);
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!printed)
		fprintf(stderr, "sandcap: %s\n", strip_sandcap_prefix(msg));
	rep->v = (struct verdict){ .kind = VERDICT_SETUP_ERROR,
				   .exit_code = -1,
				   .sc_exit = SC_EXIT_FAILURE };
	/* Nothing was enforced: what the plan had added so far (a --fallback substitute, the
	 * limits of a plan refused later) must not read as a sandbox's (docs/report.md). */
	rep->n_limits = rep->n_enforcement = 0;
	rep->message = strip_sandcap_prefix(msg);
	if (f != NULL) {
		(void) report_write_json(f, rep);
		(void) deliver(sink);
	}
	rep->message = NULL;
	return SC_EXIT_FAILURE;
}

static void
freep_argv_(char ***p)
{
	free(*p);
}

static void
profile_donep_(struct profile *p)
{
	profile_done(p);
}

static void
run_close(struct run *R)
{
	run_ctl_closep(&R->ctl);
	output_relay_close(&R->relay);
	freep_argv_(&R->envp);
	freep_argv_(&R->pargv);
	profile_donep_(&R->prof);
	usercg_closep_(&R->ucg);
	session_closep_(&R->sess);
	R->polfile = policy_free(R->polfile);
	report_sink_closep_(&R->sink);
}

/* The policy file and the helper's HELLO, before the report is opened. */
static void
open_policy_and_helper(struct run *R)
{
	R->pol_r = load_policy(&R->polfile, R->err, sizeof(R->err));
	R->helper_r = -ENOENT;
	if (!R->o.no_cgroup && !run_usercg_skip_helper(R->helper_err, sizeof(R->helper_err)))
		R->helper_r = client_open(&R->sess, R->helper_err, sizeof(R->helper_err));
}

/* The dispositions sandcap itself needs while it supervises; the child resets every
 * signal to its default before the command (sig_nondefault()). */
static void
set_signal_dispositions(void)
{
	/* A file size limit sandcap's caller set binds the command, and sandcap's own report
	 * too: past it the write must fail with EFBIG, which sandcap reports, not kill sandcap
	 * with SIGXFSZ and lose the report. */
	(void) signal(SIGXFSZ, SIG_IGN);
	/* Likewise a report or summary written to a pipe whose reader went away: EPIPE, said
	 * as an error that cannot write the report, not a supervisor killed by SIGPIPE. */
	(void) signal(SIGPIPE, SIG_IGN);
	/* A caller that ignores SIGCHLD (or sets SA_NOCLDWAIT) would have the kernel reap our
	 * children unseen: the supervisor would wait forever for an end that waitid() cannot
	 * report, and the keeper for a SIGCHLD never sent. */
	(void) sigaction(SIGCHLD, &(const struct sigaction){ .sa_handler = SIG_DFL }, NULL);
}

/* The caller's policy (load_policy()'s result), resolved for the caller, and the
 * isolation it requires.  RUN_GO, or the exit status of a refusal. */
static int
run_caller_policy(struct run *R)
{
	int r = R->pol_r;

	if (r == 0) {
		r = resolve_policy(TAKE_PTR(R->polfile), &R->pol);
		if (r == -E2BIG)
			snprintf(R->err, sizeof(R->err),
				 "cannot resolve the policy %s for you: you "
				 "are in more groups than sandcap matches against its [group:] "
				 "sections (1024); ask the admin",
				 SC_POLICY_PATH);
		else if (r < 0 && r != -ENOENT)
			snprintf(R->err, sizeof(R->err), "cannot resolve the policy %s for you: %s",
				 SC_POLICY_PATH, strerror(-r));
	}
	/* Even with --no-cgroup or --fallback: an admin's policy that cannot be read as
	 * written must not fail open. */
	if (r < 0 && r != -ENOENT)
		return run_refuse(R, false, "%s", R->err);
	R->have_pol = r == 0;
	if (R->have_pol) {
		/* The front-end refuses what the helper would refuse, with the section named. */
		r = isolate_check_required(&R->o.iso, &R->pol, R->err, sizeof(R->err));
		if (r < 0)
			return run_refuse(R, false, "%s", R->err);
	}
	return RUN_GO;
}

/* The command line (with its profile), the report's sink, the environment, the caller's
 * policy and, for --net proxy, the proxy. */
static int
run_prepare(struct run *R, int argc, char **argv, struct net_proxy *proxy)
{
	char rerr[512] = "";
	int pargc = 0, r;

	if (expand_profile(argc, argv, &R->prof, &pargc, &R->pargv) < 0)
		return SC_EXIT_FAILURE;
	if (R->pargv != NULL) {
		argc = pargc;
		argv = R->pargv;
	}
	r = run_args_parse(argc, argv, &R->o);
	if (r != 0)
		return r > 0 ? 0 : SC_EXIT_FAILURE;
	run_make_id(&R->id);
	R->rep.id = R->id;
	net_run_report_refused(&R->o, proxy, &R->rep);
	R->rep.argv = R->o.argv;
	R->rep.message = R->message;
	R->rep.env = environ;
	open_policy_and_helper(R);
	set_signal_dispositions();

	/* Open the report before anything runs, so a bad path costs nothing. */
	r = report_sink_open(&R->sink, R->o.report_path, R->o.report_fd, rerr, sizeof(rerr));
	if (r < 0) {
		fprintf(stderr, "sandcap: %s\n", rerr[0] != '\0' ? rerr : strerror(-r));
		return SC_EXIT_FAILURE;
	}
	if (env_active(&R->o.env)) {
		if (env_build(&R->o.env, environ, &R->envp) < 0)
			return run_refuse(R, false, "cannot build the environment: %s",
					  strerror(ENOMEM));
		R->rep.env = R->envp;
	}

	r = run_caller_policy(R);
	if (r != RUN_GO)
		return r;

	/* --net proxy: the proxy runs (outside the sandbox) before the helper hears its port;
	 * a refusal like any other after the options, with its report. */
	if (net_run_prepare(&R->o, proxy, R->err, sizeof(R->err)) < 0)
		return run_refuse(R, false, "%s",
				  R->err[0] != '\0' ? R->err
						    : "--net proxy: cannot start the proxy");
	return RUN_GO;
}

/* The supervisors (sandcap, its helper, the keeper) are off limits to the sandbox
 * (protect.h); not dumpable, so no /proc/PID/mem or ptrace without CAP_SYS_PTRACE.
 * Without the helper a keeper holds the tree if sandcap is killed (keeper.h); in cgroup
 * mode the helper does.  RUN_GO, or the exit status of a refusal. */
static int
run_protect(struct run *R)
{
	int r;

	(void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (!R->cgroup) {
		/* The socket's name, for the keeper to remove should the supervisor be killed
		 * (else only the user's next sandcap ps would); none is no error here:
		 * run_ctl_open() warns. */
		if (control_path(R->rep.id, R->ctl.path, sizeof(R->ctl.path)) < 0)
			R->ctl.path[0] = '\0';
		r = keeper_start(&R->keeper, R->ctl.path);
		if (r < 0)
			return run_refuse(R, false, "cannot start the keeper process: %s",
					  strerror(-r));
		protect_add(&R->plan.protect, R->keeper.keeper);
		R->plan.protect.pgid = R->keeper.home_pgrp;
	} else {
		protect_add(&R->plan.protect, R->sess.helper_pid);
		R->plan.protect.pgid = getpgrp();
	}
	protect_add(&R->plan.protect, getpid());
	return RUN_GO;
}

/* Where the command starts: --chdir, with @workspace the helper's workspace.  RUN_GO, or
 * the exit status of a refusal. */
static int
run_chdir(struct run *R)
{
	const struct run_opts *o = &R->o;

	R->chdir_to = o->chdir;
	if (o->chdir == NULL || !streq(o->chdir, "@workspace"))
		return RUN_GO;
	/* Only the helper's workspace is bounded by --disk; there is none without it. */
	if (o->iso.workspace == NULL)
		return run_refuse(R, false,
				  "--chdir @workspace: there is no workspace in %s "
				  "mode (it is the helper's tmpfs, cgroup mode only); give --disk "
				  "and use the sandcap helper, or --chdir a directory",
				  R->rep.mode);
	R->chdir_to = o->iso.workspace;
	return RUN_GO;
}

/* --chdir, --output-limit, the isolation plan (Landlock, seccomp), the proxy's variables
 * and the protection of the supervisors; in rlimit and user-cgroup mode, the keeper. */
static int
run_plan(struct run *R, struct net_proxy *proxy)
{
	struct run_opts *o = &R->o;
	struct report *rep = &R->rep;
	int r;

	r = run_chdir(R);
	if (r != RUN_GO)
		return r;
	if (o->output_limit > 0) {
		r = output_relay_open(&R->relay, o->output_limit, R->err, sizeof(R->err));
		if (r < 0)
			return run_refuse(R, false, "%s", R->err);
		report_add_limit(rep, "output", o->output_limit);
	}

	r = isolate_plan(&o->iso, &R->plan, R->err, sizeof(R->err));
	if (r < 0)
		return run_refuse(R, false, "%s", R->err);
	if (R->ucgroup)
		run_usercg_protect(rep, &R->plan);
	if (o->has_fs || o->iso.n_rw > 0 || o->iso.n_ro > 0)
		report_add_enforcement(rep, "fs", "%s", R->plan.fs_enforcement);
	if (o->has_net)
		report_add_enforcement(rep, "net", "%s", R->plan.net_enforcement);
	/* Always: what keeps the user's services (systemd --user, tmux) from working for it. */
	report_add_enforcement(rep, "unix", "%s", R->plan.unix_enforcement);
	rep->has_unix_refused = R->plan.unix_notify;
	r = net_run_environment(o, proxy, &R->envp);
	/* The report lists the command's environment as it gets it (setenv() or env_put()
	 * may have moved the array, also when a later one failed). */
	rep->env = R->envp != NULL ? R->envp : environ;
	if (r < 0)
		return run_refuse(R, false, "--net proxy: cannot set the proxy variables: %s",
				  strerror(-r));
	/* The temp dir --fs ro|strict keeps writable is the sandbox's: the workspace in cgroup
	 * mode (run_spec_hooks() points TMPDIR there), else the TMPDIR its environment carries;
	 * sandcap's own TMPDIR would grant a directory the sandbox was never given. */
	o->iso.tmpdir = R->cgroup && o->iso.workspace != NULL ? o->iso.workspace
							      : env_value(rep->env, "TMPDIR");
	if (!R->plan.seccomp && !R->plan.landlock_signal &&
	    (o->has_timeout || R->cpu_budget_ms > 0) && !o->fallback)
		return run_refuse(
			R, false,
			"--timeout/--cpu-time: this kernel has neither "
			"seccomp filters nor Landlock ABI 6, so the sandbox could stop "
			"sandcap and outlive the limit; pass --fallback to run so anyway");

	r = run_protect(R);
	if (r != RUN_GO)
		return r;
	/* The plan is final: the child only loads the filter.  A build-time program is copied
	 * and patched here (seccomp-tpl.h), in every mode, before the child starts (it shares
	 * our memory until its exec: supervise.c). */
	r = isolate_seccomp_prepare(&R->plan, &o->iso, R->err, sizeof(R->err));
	if (r < 0)
		return run_refuse(R, false, "%s", R->err);
	report_add_enforcement(rep, "supervisor", "%s", R->plan.protect_enforcement);
	return RUN_GO;
}

/* Run the command under supervision, with its control socket (sandcap ps, sandcap kill). */
static int
run_supervised(struct run *R)
{
	struct run_opts *o = &R->o;
	int r;
	struct sv_spec spec = {
		.argv = o->argv,
		.rl = R->rl,
		.n_rl = R->n_rl,
		.iso = &o->iso,
		.plan = &R->plan,
		.has_timeout = o->has_timeout,
		.timeout_ms = o->timeout_ms,
		.grace_ms = o->grace_ms,
		.keep_fds = o->keep_fds,
		.envp = R->envp,
		.relay = o->output_limit > 0 ? &R->relay : NULL,
		.chdir = R->chdir_to,
		.keeper_pidfd = R->cgroup ? -1 : R->keeper.keeper_pidfd,
		.keeper_pid = R->cgroup ? 0 : R->keeper.keeper,
		/* The keeper's group, or ours in cgroup mode (run_protect()). */
		.home_pgrp = R->plan.protect.pgid,
	};

	/* Field by field: the keeper's socket path may be set already (run_protect()). */
	R->ctl.id = R->rep.id;
	R->ctl.mode = R->rep.mode;
	R->ctl.argv = o->argv;
	R->ctl.sess = R->cgroup ? &R->sess : NULL;
	R->ctl.o = o;
	R->ctl.listen_fd = -EBADF;
	spec.open_extra = run_ctl_open;
	spec.on_extra = run_ctl_ready;
	spec.extra_userdata = &R->ctl;
	run_spec_hooks(R, &spec);
	R->start_error[0] = '\0';
	r = sv_run(&spec, &R->out);
	if (r < 0)
		return run_refuse(R, true, "%s%s",
				  R->start_error[0] != '\0' ? R->start_error
							    : "cannot start the sandbox: ",
				  R->start_error[0] != '\0' ? "" : strerror(-r));
	return RUN_GO;
}

/* sandcap trace: add this run to the figures; after the last run, suggest limits. */
static int
run_finish_trace(struct run *R)
{
	const struct trace_opts *trace = R->trace;
	struct trace_result tr;
	struct trace_figs figs;
	FILE *f = report_sink_stream(&R->sink);
	int r;

	trace_figs_from_report(&R->rep, R->fsize_max, &figs);
	trace_acc_add(trace->acc, &figs);
	/* --runs N: more to go while every run so far went well. */
	if (trace->acc->runs < trace->runs && R->rep.v.kind == VERDICT_OK)
		return finish(&R->o, NULL, &R->rep);
	trace->acc->done = true;
	trace_suggest(trace->headroom_percent, &trace->acc->max, &tr);
	r = finish(&R->o, NULL, &R->rep);
	/* Human output on stderr: stdout belongs to the command (build.sh > build.log). */
	trace->print(stderr, f, trace, &R->rep, trace->acc, &tr);
	if (f != NULL && deliver(&R->sink) < 0)
		return SC_EXIT_FAILURE;
	return r;
}

/* --output-limit: what the sandbox wrote and the relay still holds goes on once the
 * sandbox is torn down, for as long as the output takes it, as a plain pipe would wait
 * for its reader; a --timeout bounds that wait (what is left of it, at least 5 s), so the
 * run still ends by its deadline, and so does a SIGTERM, SIGINT, SIGHUP or SIGQUIT to
 * sandcap (still blocked, read here through a signalfd) or the keeper's death.  What the
 * output never took is counted as dropped: the message and a warning say so, even with
 * -q: a reader that paused must not lose output while the report says ok, nor a SIGTERM
 * during the wait go unheard. */
static void
run_drain_output(struct run *R)
{
	const struct run_opts *o = &R->o;
	struct signalfd_siginfo si;
	int64_t wait_ms = -1;
	sigset_t end;
	int stop[2] = { -1, R->cgroup ? -1 : R->keeper.keeper_pidfd };

	if (o->output_limit == 0)
		return;
	sigemptyset(&end);
	for (const int *sig = (const int[]){ SIGTERM, SIGINT, SIGHUP, SIGQUIT, 0 }; *sig; sig++)
		sigaddset(&end, *sig);
	stop[0] = signalfd(-1, &end, SFD_CLOEXEC | SFD_NONBLOCK);
	/* An end asked for during the run (a signal, sandcap kill) bounds the wait as a
	 * timeout that has run out does: 5 s for the reader. */
	if (o->has_timeout || R->out.end_request.requested) {
		uint64_t left = o->has_timeout && !R->out.end_request.requested &&
						o->timeout_ms > R->out.wall_ms
					? o->timeout_ms - R->out.wall_ms
					: 0;

		wait_ms = (int64_t) (left > 5000 ? left : 5000);
	}
	R->drain_end = output_relay_drain(&R->relay, wait_ms, stop);
	R->out.output_limit_hit |= R->relay.cap_passed;
	R->out.output_bytes = R->relay.passed;
	R->out.output_dropped = R->relay.dropped;
	if (R->drain_end == 2 && stop[0] >= 0 &&
	    read(stop[0], &si, sizeof(si)) == (ssize_t) sizeof(si))
		R->drain_sig = (int) si.ssi_signo;
	if (stop[0] >= 0)
		(void) close(stop[0]);
}

static int
run_steps(struct run *R, int argc, char **argv)
{
	const char *tsrc[3];
	int r;

	r = run_prepare(R, argc, argv, &R->proxy);
	if (r == RUN_GO)
		r = run_choose_mode(R);
	/* The proxy serves only this sandbox: its uid and, where there is one, its cgroup. */
	if (r == RUN_GO) {
		r = net_run_authorize(&R->o, &R->proxy,
				      R->cgroup    ? R->sess.leaf_fd
				      : R->ucgroup ? R->ucg.leaf_fd
						   : -EBADF);
		r = r < 0 ? run_refuse(R, false,
				       "--net proxy: cannot tell the proxy "
				       "whom to serve: %s",
				       strerror(-r))
			  : RUN_GO;
	}
	if (r == RUN_GO)
		r = run_plan(R, &R->proxy);
	if (r == RUN_GO)
		r = run_supervised(R);
	if (r != RUN_GO)
		return r;
	run_collect(R);
	run_drain_output(R);
	net_run_report(&R->o, R->plan.net_enforcement, &R->proxy, &R->rep);
	for (int t = 0; t < 3; t++)
		tsrc[t] = R->cgroup     ? R->sess.total_src[t]
			  : R->have_pol ? R->pol.total_src[t]
					: NULL;
	run_decide(&R->o, &R->out, &R->relay, tsrc, &R->in, &R->rep, R->message,
		   sizeof(R->message));
	run_oom_evidence(R);
	run_notes(R);
	if (R->out.output_dropped > 0 && R->o.quiet)
		fprintf(stderr,
			"sandcap: warning: %llu bytes of the command's output were dropped "
			"(see the report)\n",
			(unsigned long long) R->out.output_dropped);
	if (R->trace->on)
		return run_finish_trace(R);
	return finish(&R->o, &R->sink, &R->rep);
}

int
run_main(int argc, char **argv, const struct trace_opts *trace)
{
	/* On the heap: struct run is about 100 KiB.  A fresh one for each run of
	 * `sandcap trace --runs N`. */
	_cleanup_free_ struct run *R = calloc(1, sizeof(*R));
	int r;

	if (R == NULL) {
		fprintf(stderr, "sandcap: %s\n", strerror(ENOMEM));
		return SC_EXIT_FAILURE;
	}
	R->trace = trace;
	R->rep.version = SC_VERSION;
	R->rep.mode = "rlimit";
	R->sink = (struct report_sink) REPORT_SINK_INIT;
	R->relay.child_fd[0] = R->relay.child_fd[1] = -1;
	for (size_t i = 0; i < ELEMENTSOF(R->relay.s); i++)
		R->relay.s[i].in = R->relay.s[i].out = -1;
	R->keeper.keeper_pidfd = -EBADF;
	R->ctl.listen_fd = -EBADF;
	R->ctl.required = run_id_preset();
	R->ctl.error = R->start_error;
	R->ctl.errlen = sizeof(R->start_error);
	client_init(&R->sess);
	usercg_init(&R->ucg);
	r = run_steps(R, argc, argv);
	run_close(R);
	return r;
}
