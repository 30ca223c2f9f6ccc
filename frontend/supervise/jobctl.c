/* SPDX-License-Identifier: MIT */
/* The terminal and job control: the sandbox gets the terminal's foreground while sandcap's
 * job has it, a stop of the main process stops sandcap's job, and the terminal goes back
 * to the caller's group, with its settings, at the end. */
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include "supervise/sv-internal.h"

/* The process group the terminal goes back to: the caller's (spec->home_pgrp) or ours. */
static pid_t
home_pgrp(const struct sv_state *st)
{
	return st->spec->home_pgrp > 0 ? st->spec->home_pgrp : getpgrp();
}

/* Our controlling terminal on stdin: job control is followed (sv_job_stopped()).  It goes
 * to the sandbox at once only if we are its foreground job, its settings kept: a command
 * killed in raw or no-echo mode (a timeout, sandcap kill) cannot restore them itself.  A
 * job started in the background gets it at its fg (else it would stay stopped on SIGTTIN
 * for ever). */
void
sv_tty_take(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	pid_t fg = isatty(STDIN_FILENO) ? tcgetpgrp(STDIN_FILENO) : -1;
	pid_t home = home_pgrp(st);

	/* In the background only as the leader of our job (the keeper, or sandcap in cgroup
	 * mode): the shell continues a job through its leader; under another leader
	 * (sh -c 'sandcap ...' &) nothing would continue a stopped sandcap, so there the
	 * terminal stays out of it. */
	if (fg > 0 &&
	    (fg == home || home == (spec->keeper_pid > 0 ? spec->keeper_pid : getpid()))) {
		st->tty_fd = STDIN_FILENO;
		st->tty_fg = fg == home;
		if (st->tty_fg)
			st->have_tios = tcgetattr(st->tty_fd, &st->tios) == 0;
	}
}

/* Give the terminal back to sandcap's group if the sandbox still holds it, with the
 * settings it had when the sandbox got it (SIGTTOU is blocked, so this works even if the
 * sandbox's group kept the foreground). */
void
sv_tty_restore(struct sv_state *st)
{
	pid_t home = home_pgrp(st);

	if (st->tty_fd >= 0 && tcgetpgrp(st->tty_fd) == st->pid)
		(void) tcsetpgrp(st->tty_fd, home);
	if (st->tty_fd >= 0 && st->have_tios && tcgetpgrp(st->tty_fd) == home)
		(void) tcsetattr(st->tty_fd, TCSADRAIN, &st->tios); /* not another job's */
}

/* Our job has the terminal's foreground (fg) and the sandbox has not: give it, with the
 * terminal's settings kept the first time (a job started in the background gets it only
 * now, to restore them at the end). */
void
sv_give_terminal(struct sv_state *st)
{
	pid_t home = home_pgrp(st);

	if (st->tty_fd < 0 || tcgetpgrp(st->tty_fd) != home)
		return;
	if (!st->have_tios)
		st->have_tios = tcgetattr(st->tty_fd, &st->tios) == 0;
	(void) tcsetpgrp(st->tty_fd, st->pid);
}

/* No stop of sandcap once the end is on its way (the timeout fired or its deadline
 * passed, an end was asked for), with no keeper left to be continued through, or with no
 * shell to continue it: our job leads its own session (ssh -t, script -c, setsid -c), where
 * nothing does job control and a stopped sandcap would stay stopped for ever.  A sandbox
 * that stops itself must not hold off --timeout or outlive its keeper. */
static bool
may_stop(const struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	pid_t home = home_pgrp(st);

	if (st->out->timeout_fired || st->out->end_request.requested)
		return false;
	if (getsid(0) == home)
		return false;
	if (spec->has_timeout && mono_ms() - st->start_ms >= spec->timeout_ms)
		return false;
	return spec->keeper_pid <= 0 || getppid() == spec->keeper_pid;
}

/* The main process stopped for job control (^Z on its terminal, or a forwarded SIGTSTP):
 * stop sandcap as well, so the shell sees the job stopped; when continued, give the terminal
 * back to the sandbox (if we have the foreground) and continue it.  Only with a terminal:
 * without one there is no job control to follow, and a sandbox that stops its own main
 * process must not stop its supervisor (and with it --timeout) while the rest runs on.
 * The whole sandbox is stopped first, so nothing of it runs while sandcap is stopped.  A
 * read or write of the terminal while our job has its foreground (fg of a job started in
 * the background) is no stop: the sandbox gets the terminal and goes on. */
void
sv_job_stopped(struct sv_state *st, int stopsig)
{
	pid_t home = home_pgrp(st);

	if (stopsig != SIGTSTP && stopsig != SIGTTIN && stopsig != SIGTTOU)
		return; /* SIGSTOP from someone else: leave sandcap running, timers too */
	if (st->tty_fd < 0)
		return;
	if (stopsig != SIGTSTP && tcgetpgrp(st->tty_fd) == home) {
		sv_give_terminal(st);
		sv_signal(st, SIGCONT);
		return;
	}
	if (!may_stop(st))
		return; /* the main process stays stopped; the kill continues it */
	sv_signal(st, SIGSTOP);
	if (tcgetpgrp(st->tty_fd) == st->pid)
		(void) tcsetpgrp(st->tty_fd, home);
	(void) kill(getpid(), SIGSTOP);
	/* Continued: in the foreground (fg), the terminal goes to the sandbox; in the
	 * background (bg), not, and a read of it stops the sandbox again. */
	sv_give_terminal(st);
	sv_signal(st, SIGCONT);
}
