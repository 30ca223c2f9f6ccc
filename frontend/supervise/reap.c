/* SPDX-License-Identifier: MIT */
/* Reaping, and the end of the sandbox: once the main process has ended, everything left is
 * killed and reaped until ECHILD. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stage.h"
#include "supervise/sv-internal.h"

void
sv_read_child_msg(struct sv_state *st)
{
	struct stage_msg m;
	ssize_t n;

	if (st->msg_done)
		return;
	n = read(st->msg_fd, &m, sizeof(m));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == (ssize_t) sizeof(m)) {
		m.msg[sizeof(m.msg) - 1] = '\0';
		st->out->setup = m.stage == STAGE_EXEC ? SV_SETUP_EXEC : SV_SETUP_FAILED;
		st->out->setup_errno = m.err;
		snprintf(st->out->setup_msg, sizeof(st->out->setup_msg), "%s", m.msg);
	}
	/* EOF (exec succeeded), a message, or garbage: done with the pipe either way. */
	st->msg_done = true;
}

/* A process other than the main one, reaped here: a death by a resource limit's signal is
 * counted, so that the report can name a limit hit below the main process. */
static void
note_other_end(struct sv_state *st, int status)
{
	struct sv_outcome *out = st->out;

	/* Ended by SIGKILL after the command: almost always what it left running, killed with
	 * it (a process it SIGKILLed itself just before its end counts too). */
	if (st->main_ended && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		out->killed_at_end++;
	if (!WIFSIGNALED(status))
		return;
	if (WTERMSIG(status) == SIGXCPU)
		out->other_sigxcpu++;
	else if (WTERMSIG(status) == SIGXFSZ)
		out->other_sigxfsz++;
}

/* Has the main process ended?  Checked without reaping it: when it has, its group is
 * killed while the zombie still pins the group id. */
static void
check_main_ended(struct sv_state *st)
{
	siginfo_t si = {};

	if (waitid(P_PID, (id_t) st->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
	    si.si_pid != st->pid)
		return;
	sv_ended_pid = st->pid;
	st->main_ended = true;
	st->out->wall_ms = mono_ms() - st->start_ms;
	/* The sandbox ends with its command -- unless the timeout's grace period is running:
	 * the rest got SIGTERM and may finish cleaning up until it expires. */
	if (!st->out->timeout_fired || st->out->grace_expired)
		sv_kill_ended(st);
}

/* The main process, reaped with status and ru. */
static void
main_reaped(struct sv_state *st, int status, const struct rusage *ru)
{
	st->main_reaped = st->main_ended = true;
	sv_ended_pid = 0; /* reaped: its pid is free for reuse */
	st->out->main_ru = *ru;
	if (WIFEXITED(status)) {
		st->out->exited = true;
		st->out->exit_code = WEXITSTATUS(status);
	} else {
		st->out->signaled = true;
		st->out->signal = WTERMSIG(status);
	}
	if (st->out->wall_ms == 0)
		st->out->wall_ms = mono_ms() - st->start_ms;
}

/* Reap what can be reaped.  ret_no_children: NULL when the caller does not need to know
 * whether children are left (that takes a scan of our children while the helper is one). */
void
sv_reap(struct sv_state *st, bool *ret_no_children)
{
	if (ret_no_children != NULL)
		*ret_no_children = false;
	if (!st->main_reaped)
		check_main_ended(st);
	for (;;) {
		struct rusage ru;
		int status;
		/* Stops and continues matter only for the main process (job control): once it
		 * is reaped, only ends, so that processes stopping and continuing each other
		 * cannot keep this loop from the kill. */
		int flags = WNOHANG | __WALL | (st->main_reaped ? 0 : WUNTRACED | WCONTINUED);
		pid_t p = wait4(-1, &status, flags, &ru);

		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			if (ret_no_children != NULL)
				*ret_no_children = errno == ECHILD;
			return;
		}
		if (p == 0) {
			/* Nothing to reap: done if no child but the helper is left. */
			if (st->spec->exclude_pid > 0 && ret_no_children != NULL)
				*ret_no_children = sv_count_children() == 0;
			return;
		}
		if (p != st->pid || st->main_reaped) {
			note_other_end(st, status);
			continue;
		}
		if (WIFSTOPPED(status)) {
			sv_job_stopped(st, WSTOPSIG(status));
			continue;
		}
		if (WIFCONTINUED(status))
			continue;
		main_reaped(st, status, &ru);
		/* Supervision ends here; sv_end_sandbox() reaps the rest. */
		if (ret_no_children == NULL)
			return;
	}
}

/* Timed out and the main process ended within the grace period: give the others the rest
 * of it (they got SIGTERM), ending early when nothing is left. */
static void
wait_grace(struct sv_state *st)
{
	struct sv_outcome *out = st->out;
	bool no_children;

	while (out->timeout_fired && !out->grace_expired) {
		struct pollfd p[2] = { { .fd = st->sigfd, .events = POLLIN },
				       { .fd = st->gfd, .events = POLLIN } };

		sv_reap(st, &no_children);
		if (no_children)
			break;
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		sv_drain(st->sigfd);
		if (p[1].revents & POLLIN)
			out->grace_expired = true;
	}
}

/* The main process has ended (or supervision failed): let the rest use what is left of a
 * timeout's grace, kill and reap everything until ECHILD, and give the terminal back as
 * it was. */
void
sv_end_sandbox(struct sv_state *st)
{
	bool no_children;

	sv_read_child_msg(st);
	wait_grace(st);

	/* The main process is gone: kill and reap everything left, until ECHILD.  Each round
	 * kills what reparented to us since the last; SIGCHLD wakes us, never a timer. */
	for (;;) {
		struct pollfd p = { .fd = st->sigfd, .events = POLLIN };

		sv_reap(st, &no_children);
		if (no_children)
			break;
		(void) sv_signal_descendants(SIGKILL, 0);
		sv_reap(st, &no_children);
		if (no_children)
			break;
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		sv_drain(st->sigfd);
	}
	(void) getrusage(RUSAGE_CHILDREN, &st->out->tree_ru);

	/* What the sandbox wrote and is still in the relay's pipes is passed on by sandcap
	 * after the teardown (run_drain_output(), run/run.c): nothing of the sandbox's is held
	 * while a slow reader takes it. */
	sv_tty_restore(st);
}
