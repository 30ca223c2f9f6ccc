/* SPDX-License-Identifier: MIT */
/* rlimit mode's keeper; see keeper.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "keeper.h"
#include "macro.h"
#include "supervise.h"

/* Kill and reap everything below us until nothing is left.  Each round kills what was
 * reparented to us since the last; SIGCHLD (through sigfd) wakes us, never a timer. */
static unsigned
kill_everything(int sigfd)
{
	unsigned killed = 0;

	for (;;) {
		struct pollfd p = { .fd = sigfd, .events = POLLIN };
		char buf[sizeof(struct signalfd_siginfo) * 8];
		int n;

		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		n = sv_signal_descendants(SIGKILL);
		if (n > 0)
			killed += (unsigned) n;
		for (;;) {
			pid_t p2 = waitpid(-1, NULL, WNOHANG | __WALL);

			if (p2 < 0 && errno == EINTR)
				continue;
			if (p2 < 0)
				return killed;  /* ECHILD: nothing left */
			if (p2 == 0)
				break;
		}
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return killed;
		while (read(sigfd, buf, sizeof(buf)) > 0)
			;
	}
}

static _noreturn_ void
keeper_run(pid_t sup, int sigfd)
{
	int status = 0;
	bool done = false;

	while (!done) {
		struct signalfd_siginfo si;
		struct pollfd p = { .fd = sigfd, .events = POLLIN };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		while (!done && read(sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
			if (si.ssi_signo != SIGCHLD) {
				/* SIGCONT is the shell's (fg): continue the supervisor too.  The
				 * original sender rides along (uid << 32 | pid), so that the report
				 * names who asked, not the keeper (keeper_sender()). */
				union sigval v = { .sival_ptr = (void *) (uintptr_t)
					(((uint64_t) si.ssi_uid << 32) | (uint32_t) si.ssi_pid) };

				if (sigqueue(sup, (int) si.ssi_signo, v) < 0)
					(void) kill(sup, (int) si.ssi_signo);
				continue;
			}
			for (;;) {
				int st;
				pid_t w = waitpid(-1, &st, WNOHANG | WUNTRACED | __WALL);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					break;
				if (w != sup)
					continue;       /* an orphan of the sandbox: reaped */
				if (WIFSTOPPED(st)) {
					/* Job control: the supervisor stopped with the command;
					 * stop too, so the caller's shell sees the job stopped. */
					(void) kill(getpid(), SIGSTOP);
					(void) kill(sup, SIGCONT);
					continue;
				}
				status = st;
				done = true;
				break;
			}
		}
	}
	if (!done) {
		/* Cannot wait any more: end the supervisor rather than leave it unwatched. */
		(void) kill(sup, SIGKILL);
		(void) waitpid(sup, &status, __WALL);
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		unsigned n = kill_everything(sigfd);

		fprintf(stderr, "sandcap: the supervisor (pid %d) was killed by SIG%s; the keeper "
			"killed the %u process%s left in the sandbox\n", (int) sup,
			sigabbrev_np(sig) != NULL ? sigabbrev_np(sig) : "?", n, n == 1 ? "" : "es");
		_exit(128 + sig);
	}
	(void) kill_everything(sigfd);  /* normally nothing: the supervisor reaped it all */
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : SC_EXIT_FAILURE);
}

int
keeper_start(struct keeper_info *ret)
{
	sigset_t set, old;
	int sigfd, r;
	pid_t sup, keeper = getpid(), home = getpgrp();

	sigemptyset(&set);
	/* What the supervisor itself handles (supervise.c): passed on to it. */
	for (const int *s = (const int[]) { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP,
					    SIGCONT, 0 }; *s != 0; s++)
		sigaddset(&set, *s);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		return -errno;
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		r = -errno;
		(void) sigprocmask(SIG_SETMASK, &old, NULL);
		return r;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		r = -errno;
		(void) close(sigfd);
		(void) sigprocmask(SIG_SETMASK, &old, NULL);
		return r;
	}
	(void) fflush(stdout);
	(void) fflush(stderr);
	sup = fork();
	if (sup < 0) {
		r = -errno;
		(void) close(sigfd);
		(void) prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		(void) sigprocmask(SIG_SETMASK, &old, NULL);
		return r;
	}
	if (sup > 0) {
		/* The keeper holds nothing of the run: a pipe or socket end kept here would
		 * hide the supervisor's close from its peer (the proxy's stop pipe, the
		 * helper's socket).  Only the terminal's 0-2 and its signalfd stay. */
		if (sigfd > 3)
			(void) close_range(3, (unsigned) sigfd - 1, 0);
		(void) close_range((unsigned) sigfd + 1, ~0U, 0);
		keeper_run(sup, sigfd);
	}

	/* The supervisor. */
	(void) close(sigfd);
	(void) sigprocmask(SIG_SETMASK, &old, NULL);
	/* Its own process group: a signal to the caller's job reaches the keeper, which passes
	 * it on once (both would get it otherwise, and the command twice). */
	(void) setpgid(0, 0);
	ret->keeper_pidfd = (int) pidfd_open(keeper, 0);
	if (ret->keeper_pidfd < 0)
		return -errno;
	/* The keeper may have died before the pidfd existed: then our parent is someone else. */
	if (getppid() != keeper) {
		(void) close(ret->keeper_pidfd);
		return -ESRCH;
	}
	ret->keeper = keeper;
	ret->home_pgrp = home;
	return 0;
}
