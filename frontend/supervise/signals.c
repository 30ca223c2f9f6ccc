/* SPDX-License-Identifier: MIT */
/* Signalling the whole sandbox, and the requests from outside to end it. */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>

#include "log.h"
#include "supervise/sv-internal.h"

/* Signal the whole sandbox, each process once: the process group (only while the main
 * process is unreaped, so the group id cannot have been recycled; one kill(2) that a fork
 * in progress cannot escape), then every descendant outside that group.  Signalling the
 * group's members again would send them two: a SIGTERM handler that exits 0 would be
 * killed by the second, and a handler would run twice.  A process that leaves the group
 * between the two steps can still get it twice, one that joins it can miss it: a window of
 * a few system calls that only the sandbox's own setpgid() opens.  SIGKILL goes to every
 * descendant by list as well: a second SIGKILL changes nothing, and one that joined the
 * group after the group kill must not be missed. */
void
sv_signal(struct sv_state *st, int sig)
{
	pid_t group = 0;

	if (!st->main_reaped && kill(-st->pid, sig) == 0 && sig != SIGKILL)
		group = st->pid;
	(void) sv_signal_descendants(sig, group);
	/* cgroup.kill last: a helper that does not answer costs a round trip's deadline,
	 * and must not delay sandcap's own kills. */
	if (sig == SIGKILL && st->spec->kill_all != NULL)
		st->spec->kill_all(st->spec->userdata);
}

/* The main process has ended (a zombie, not reaped): SIGKILL to its group while the zombie
 * pins the group id, and to the cgroup.  The descendants outside the group are left to
 * sv_end_sandbox(), which runs next: it kills by list only if we still have a child once
 * the main process is reaped, and without one nothing of the sandbox is left (every
 * process of it is our child or below one: we are the subreaper, and a process's children
 * come to us when it ends, before its end can be reaped).  perf: a plain run so scans no
 * /proc list between the command's end and sandcap's. */
void
sv_kill_ended(struct sv_state *st)
{
	(void) kill(-st->pid, SIGKILL);
	if (st->spec->kill_all != NULL)
		st->spec->kill_all(st->spec->userdata);
}

/* Signals that ask the sandbox to end (the forwarded ones and SIGKILL). */
bool
sv_is_end_signal(int sig)
{
	return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

/* Record a request to end the sandbox; true if this one was recorded.  The latest one is
 * kept, so the report names the request the command met last (a SIGHUP it ignored, then
 * the SIGTERM that ended it: the SIGTERM), except that nothing replaces a SIGKILL or the
 * keeper's death, after which the end is certain. */
bool
sv_note_end_request(struct sv_state *st, int sig, bool by_control, pid_t pid, uid_t uid)
{
	const struct sv_end_request *r = &st->out->end_request;

	if (st->main_reaped || !sv_is_end_signal(sig) ||
	    (r->requested && (r->keeper_died || r->signal == SIGKILL)))
		return false;
	st->out->end_request.requested = true;
	st->out->end_request.by_control = by_control;
	st->out->end_request.signal = sig;
	st->out->end_request.pid = pid;
	st->out->end_request.uid = uid;
	return true;
}

void
sv_request_signal(struct sv_state *sv, int sig, bool by_control, pid_t pid, uid_t uid)
{
	(void) sv_note_end_request(sv, sig, by_control, pid, uid);
	sv_signal(sv, sig);
}

void
sv_forwarded_signals(sigset_t *set)
{
	sigemptyset(set);
	for (const int *s = (const int[]){ SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP,
					   SIGCONT, 0 };
	     *s != 0; s++)
		sigaddset(set, *s);
}

/* Before the child: block the signals sandcap handles (they wait, pending, for the signalfd
 * the loop makes), and become the subreaper of the sandbox. */
int
sv_setup_signals(void)
{
	sigset_t block;

	/* SIGTTOU/SIGTTIN are only blocked so that tcsetpgrp() works from the background.
	 * The child inherits the mask and clears it just before exec. */
	sv_forwarded_signals(&block);
	sigaddset(&block, SIGTTOU);
	sigaddset(&block, SIGTTIN);
	if (sigprocmask(SIG_BLOCK, &block, NULL) < 0)
		return log_error_errno(-errno, "cannot block signals: %m");
	/* Orphans of the sandbox (setsid, double fork) reparent to us, so we can kill and
	 * reap them. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return log_error_errno(-errno, "cannot become a child subreaper: %m");
	return 0;
}
