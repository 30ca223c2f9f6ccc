/* SPDX-License-Identifier: MIT */
/* Inside run/: struct run, one `sandcap run` from the command line to the report, and the
 * steps the files of run/ share.  run.c drives the steps; mode.c chooses how each limit is
 * enforced, mode-cgroup.c with the helper; message.c puts the verdict into words and
 * message-notes.c adds what they must not leave out; policy.c reads the caller's policy
 * and profile. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup/client.h"
#include "cgroup/usercg.h"
#include "isolate/isolate.h"
#include "macro.h"
#include "net/proxy.h"
#include "policy.h"
#include "report/report-sink.h"
#include "report/report.h"
#include "report/verdict.h"
#include "run/args.h"
#include "run/ctl.h"
#include "run/profile.h"
#include "run/run.h"
#include "stage.h"
#include "supervise/keeper.h"
#include "supervise/output.h"
#include "supervise/supervise.h"

/* One run of `sandcap run`, from the command line to the report. */
struct run {
	const struct trace_opts *trace;
	struct run_opts o;
	struct report rep;
	struct report_sink sink;
	char **pargv; /* the command line with the profile expanded */
	char **envp;  /* the command's environment (--env ...), or NULL */
	bool have_pol;
	bool cgroup, ucgroup, refused;
	int helper_r;           /* client_open()'s result (open_policy_and_helper()) */
	int pol_r;              /* load_policy()'s result (its refusal in err) */
	struct policy *polfile; /* the policy as parsed, until resolve_policy() */
	uint64_t cpu_budget_ms; /* whole-sandbox CPU budget (cgroup modes), 0: none */
	struct stage_rlimit rl[_RUN_RL_MAX];
	size_t n_rl;
	const char *chdir_to;
	struct keeper_info keeper;
	struct output_relay relay;
	int drain_end;        /* output_relay_drain()'s result: why its wait ended */
	int drain_sig;        /* ... the signal that ended it, if one did */
	bool teardown_failed; /* run_collect(): why in err */
	struct sv_outcome out;
	struct verdict_input in;
	uint64_t fsize_max; /* --trace: the largest file left in the workspace */
	char id[64], err[512], message[512];
	char helper_err[CLIENT_ERR_MAX]; /* client_open()'s reason, when it failed */
	char start_error[512];           /* why cgroup mode could not start the sandbox */
	struct run_ctl ctl;
	struct net_proxy proxy; /* --net proxy */
	struct sc_session sess; /* cgroup mode: the helper */
	struct usercg ucg;      /* user-cgroup mode */
	/* The session's cgroup and the per-user level above the leaf (oom-above.c), as the
	 * kernel names them through the leaf's descriptor; "" when not read. */
	char session_cg[256], level_cg[256];
	struct policy_resolved pol;
	struct profile prof;
	struct isolate_plan plan;
};

/* What a step returns to go on; any other value is the exit status. */
#define RUN_GO (-1)

/* ---- run.c ---- */

/* A refusal after option parsing (policy, ceilings, helper, isolation): the reason on
 * stderr (unless already printed) and in a setup-error report.  Returns 125. */
int run_refuse(struct run *R, bool printed, const char *fmt, ...) _printf_(3, 4);

/* ---- mode.c: how each limit is enforced ---- */

/* cgroup mode unless --no-cgroup, when the helper is there and takes us; else user-cgroup
 * mode; else rlimit mode, where the policy and the options allow it.  RUN_GO, or the exit
 * status of a refusal. */
int run_choose_mode(struct run *R);

/* ---- mode-cgroup.c: cgroup mode, the helper's side ---- */

/* Ask the helper for a sandbox, unless --no-cgroup: 1 (cgroup mode), 0 (rlimit mode; why in
 * R->err, R->refused if the policy said no), or -errno when the helper refused this sandbox
 * (the reason in R->err).  pol: the caller's policy, if readable. */
int open_helper(struct run *R, const struct policy_resolved *pol);
/* cgroup mode: the limits as the helper applied them, into o and the report.  Returns the
 * whole-sandbox CPU budget (ms; 0 = none), which replaces RLIMIT_CPU. */
uint64_t use_cgroup(struct run_opts *o, struct report *rep, struct sc_session *sess);
/* A workspace bigger than the memory limit fills at that limit: say so.  req_disk and
 * req_memory are the values asked for (0: the policy's). */
void warn_disk_over_memory(const struct run *R, uint64_t req_disk, uint64_t req_memory);
/* The supervisor's hooks for the mode: cgroup (the helper) or user-cgroup. */
void run_spec_hooks(struct run *R, struct sv_spec *spec);

/* ---- collect.c: the end of a cgroup-mode or user-cgroup-mode run ---- */

/* The final counters of the sandbox's cgroup into R->rep and R->in, then its teardown
 * (R->teardown_failed and R->err when incomplete). */
void run_collect(struct run *R);

/* ---- oom-above.c: the cgroups above the leaf, for the verdict's evidence ---- */

/* The counters of the session's cgroup (a session's call: the leaf's parent) and of the
 * per-user level (cgroup mode: above the session's, or the leaf's parent) into R->in, before
 * the command starts (after false) or once it has ended. */
void run_levels_read(struct run *R, bool after);
/* After the verdict: the report's oom_at, for a session-memory or total-memory in
 * limits_hit. */
void run_oom_evidence(struct run *R);

/* ---- policy.c: the caller's policy and profile ---- */

/* The installed policy, parsed: 0; -ENOENT, none; any other -errno, refuse with msg. */
int load_policy(struct policy **ret, char *msg, size_t msglen);
/* p resolved for the calling user (p is freed): 0, or -errno. */
int resolve_policy(struct policy *p, struct policy_resolved *ret);
/* The policy's timeout ceiling and default where sandcap enforces them: 0, or -EPERM. */
int policy_timeout(struct run_opts *o, const struct policy_resolved *pol, char *err, size_t errlen);
/* argv with --profile NAME's words before the command line's (*ret_argv NULL: none). */
int expand_profile(int argc, char **argv, struct profile *prof, int *ret_argc, char ***ret_argv);

/* ---- message.c: the verdict and its words ---- */

/* "sandcap: " off the front of a message that goes into the report. */
const char *strip_sandcap_prefix(const char *s);
/* The verdict from the evidence (in: the cgroup's part, already filled), its message,
 * and the usage figures, into rep. */
void run_decide(const struct run_opts *o, const struct sv_outcome *out,
		const struct output_relay *relay, const char *const *total_src,
		struct verdict_input *in, struct report *rep, char *message, size_t msglen);

/* ---- message-notes.c: what the verdict's sentence must not leave out ---- */

/* After a death by SIGXCPU or SIGXFSZ that is not this run's limit, in buf: where it may
 * have come from. */
void rlimit_signal_note(const struct run_opts *o, const struct verdict_input *in, int sig,
			char *buf, size_t bufsz);
/* After the verdict's sentence in buf: the per-process limits, and the other processes
 * they killed. */
void per_process_note(const struct run_opts *o, const struct verdict_input *in,
		      const struct verdict *v, char *buf, size_t bufsz);
/* The notes after the verdict's sentence in R->message. */
void run_notes(struct run *R);

/* id.c: the run's id into buf, the one run_use_id() set or a random "<uid>-<12 hex>". */
void run_make_id(char (*buf)[64]);
/* Did a session choose the id (run_use_id()): the run is one of its calls? */
bool run_id_preset(void);
