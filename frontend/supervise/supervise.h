/* SPDX-License-Identifier: MIT */
/* Spawn the sandboxed child and supervise it to the end (docs/design.md, "One
 * run", steps 3-6, rlimit mode).
 *
 * The child runs in its own process group (and gets the terminal's foreground when sandcap has
 * it), blocks on a pipe until released, then applies the rlimits, no_new_privs and the
 * isolation, resets its signal state and execs.  sandcap is a child subreaper, so descendants
 * that escape the group (setsid, double fork) reparent to it.  Supervision is one epoll
 * loop over a pidfd (main process exit), a signalfd (SIGCHLD, forwarded signals, job
 * control), two timerfds (timeout, grace) and the exec-error pipe: no sleeping or polling.
 * When the main process ends, or the timeout's grace expires, every remaining descendant
 * is killed and reaped until ECHILD.  The parts of the supervisor are listed in
 * sv-internal.h, which nothing outside frontend/supervise/ includes. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "isolate/isolate.h"
#include "supervise/output.h"
#include "stage.h"

struct sv_state;

struct sv_spec {
	char **argv;
	const struct stage_rlimit *rl;
	size_t n_rl;
	const struct isolate_opts *iso; /* NULL: no isolation */
	const struct isolate_plan *plan;
	bool has_timeout;
	uint64_t timeout_ms;
	uint64_t grace_ms;
	const char *tmpdir;         /* set TMPDIR in the child (NULL: leave) */
	bool keep_fds;              /* else fds >= 3 are closed at exec */
	char **envp;                /* the command's environment (NULL: ours) */
	struct output_relay *relay; /* --output-limit (output.h); NULL: none */
	const char *chdir;          /* start the command there (NULL: stay) */

	/* cgroup mode (all NULL/0 in rlimit mode). */
	pid_t exclude_pid; /* the helper: our child, not the sandbox's */
	void *userdata;
	/* User-cgroup mode: called with the blocked child's pidfd before it is released; < 0
	 * aborts (the callee has printed why). */
	int (*attach)(int pidfd, void *userdata);
	/* cgroup mode instead: the helper's SPAWN, which creates the child in the leaf as our
	 * child and hands it stage_sock's peer; its pid in *ret_pid.  < 0 aborts (the callee
	 * has printed why). */
	int (*spawn)(int stage_sock, pid_t *ret_pid, void *userdata);
	/* SIGKILL every process of the sandbox (cgroup.kill), besides sandcap's own kills. */
	void (*kill_all)(void *userdata);
	/* Whole-sandbox CPU budget: total CPU time of the sandbox read through cpu_used_usec;
	 * checked by a timer set to when the budget could at the earliest be spent at
	 * cpu_rate_percent (100 = one core), so there is no polling. */
	uint64_t cpu_budget_ms;
	uint64_t cpu_rate_percent;
	int (*cpu_used_usec)(void *userdata, uint64_t *ret);

	/* rlimit mode's keeper (keeper.h): its pidfd (-1: none), readable when it died, which
	 * kills the whole sandbox; and the caller's process group, to which the terminal is
	 * given back (0: our own). */
	int keeper_pidfd;
	pid_t keeper_pid; /* its pid: a signal it forwards names the sender */
	pid_t home_pgrp;

	/* One more fd to watch (the control socket of `sandcap ps`/`sandcap kill`): open_extra()
	 * returns it, or -1 for none, before the command is started (so that the command
	 * cannot make it fail by changing its directory's mode), or -errno (below -1: never
	 * -EPERM) when the run must not start without it; when it is readable, on_extra() is
	 * called with the supervisor, which it may pass to sv_signal() to signal the whole
	 * sandbox.  NULL open_extra: none. */
	int (*open_extra)(void *extra_userdata);
	void (*on_extra)(void *extra_userdata, struct sv_state *sv);
	void *extra_userdata;
};

enum sv_setup {
	SV_SETUP_OK,
	SV_SETUP_FAILED, /* the child's set-up failed (message in setup_msg): 125 */
	SV_SETUP_EXEC,   /* execvp failed with setup_errno */
};

struct sv_outcome {
	enum sv_setup setup;
	int setup_errno;
	char setup_msg[256];

	bool exited;
	int exit_code;
	bool signaled;
	int signal;

	bool timeout_fired;
	bool cpu_budget_fired;   /* cgroup mode: the CPU budget was spent */
	bool grace_expired;      /* SIGKILL was needed after the grace period */
	bool output_limit_hit;   /* --output-limit passed: sandcap ended the sandbox */
	uint64_t output_bytes;   /* --output-limit: bytes passed on (stdout + stderr) */
	uint64_t output_dropped; /* --output-limit: within it, never taken by the output */
	/* The latest request to end the sandbox from outside (KILL, TERM, INT, HUP or QUIT)
	 * before the main process ended, none replacing a SIGKILL or the keeper's death: by
	 * `sandcap kill` (by_control) or a signal sent to sandcap and forwarded. */
	struct sv_end_request {
		bool requested;
		bool by_control;
		int signal;
		pid_t pid; /* the requester (0: the kernel, e.g. a terminal hangup) */
		uid_t uid;
		bool keeper_died; /* the request is the keeper's death (pid: the keeper) */
	} end_request;
	uint64_t wall_ms;       /* release of the child to the main process's end */
	unsigned killed_at_end; /* processes reaped after the main process's end, dead
					 * of SIGKILL: left running, then ended by sandcap */
	/* --net host without --unix host (unixgate.h): connects to UNIX listeners outside the
	 * sandbox refused, and the first of them. */
	unsigned long unix_refused;
	char unix_refused_first[112];
	unsigned long unix_undumpable; /* connect() calls refused (EPERM): the caller was not
					 * dumpable, so its socket was out of sandcap's reach */
	struct rusage main_ru;         /* the main process alone */
	struct rusage tree_ru;         /* every reaped descendant (RUSAGE_CHILDREN) */
	/* Processes other than the main one that sandcap reaped (its children, and orphans
	 * that came to it), dead of a per-process limit's signal.  One reaped by a parent of
	 * its own in the sandbox is not seen. */
	unsigned other_sigxcpu; /* RLIMIT_CPU */
	unsigned other_sigxfsz; /* RLIMIT_FSIZE */
};

/* Note which of fds 0-2 are closed, before sandcap opens anything (main(), first), and
 * open /dev/null in their place: no descriptor of sandcap's (the report's file, a socket,
 * the helper's) may take such a number, where sandcap's own messages, or the command's
 * output, would land in it.  The command gets them closed, in every mode.  0, or -errno
 * when /dev/null cannot be opened there. */
int sv_note_stdio(void);

/* Was fd (0-2) closed when sandcap started (sv_note_stdio())?  /dev/null is there now. */
bool sv_stdio_was_closed(int fd);

/* Run spec to completion.  Returns 0 (whatever the command did; see *ret), or -errno when
 * sandcap itself failed before the command could start (after printing why). */
int sv_run(const struct sv_spec *spec, struct sv_outcome *ret);

/* Signal the whole sandbox as sandcap itself does (SIGKILL also through kill_all, i.e.
 * cgroup.kill in cgroup mode).  For on_extra callbacks. */
void sv_signal(struct sv_state *sv, int sig);

/* A request from outside to signal the whole sandbox (`sandcap kill`: by_control), recorded
 * in the outcome when it asks the sandbox to end, then delivered as sv_signal(). */
void sv_request_signal(struct sv_state *sv, int sig, bool by_control, pid_t pid, uid_t uid);

/* Milliseconds since the child was released. */
uint64_t sv_age_ms(const struct sv_state *sv);

/* Signal every descendant of the calling process (found through /proc/<pid>/task/<tid>/
 * children, recursively), except those in process group skip_pgrp (> 0; 0: none), which
 * the caller signalled with kill(-skip_pgrp); their descendants are still walked.  Returns
 * how many were signalled.  Exposed for tests. */
int sv_signal_descendants(int sig, pid_t skip_pgrp);

/* The signals the supervisor handles (its signalfd's), into *set: the keeper passes on
 * the same ones (keeper.c). */
void sv_forwarded_signals(sigset_t *set);
