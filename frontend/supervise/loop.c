/* SPDX-License-Identifier: MIT */
/* The event loop: one epoll set over the main process's pidfd, a signalfd (SIGCHLD,
 * forwarded signals, job control), the timers (timeout, grace, CPU budget), the keeper's
 * pidfd, the output relay, the UNIX gate and the control socket.  No sleeping or polling. */
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "supervise/output.h"
#include "supervise/sv-internal.h"

static int
arm_timer(int fd, uint64_t ms)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = (time_t) (ms / 1000),
			      .tv_nsec = (long) (ms % 1000) * 1000000 },
	};

	if (ms == 0)
		its.it_value.tv_nsec = 1; /* 0 would disarm */
	return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}

/* Check the CPU budget; re-arm the timer for the earliest time it can be spent. */
static void
cpu_budget_check(struct sv_state *st, int cfd)
{
	const struct sv_spec *spec = st->spec;
	uint64_t used = 0, budget = spec->cpu_budget_ms * 1000, rate, wait_us;

	if (spec->cpu_used_usec(spec->userdata, &used) < 0)
		used = 0; /* unreadable: check again after the whole budget */
	if (used >= budget) {
		st->out->cpu_budget_fired = true;
		sv_signal(st, SIGKILL);
		return;
	}
	rate = spec->cpu_rate_percent > 0 ? spec->cpu_rate_percent : 100;
	wait_us = (budget - used) * 100 / rate;
	/* At least 1 ms: a sandbox idling a few microseconds short of its budget must not
	 * turn this into a busy loop. */
	(void) arm_timer(cfd, wait_us < 1000 ? 1 : (wait_us + 999) / 1000);
}

void
sv_drain(int fd)
{
	char buf[sizeof(struct signalfd_siginfo) * 8];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int
epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Once the command has started (perf: alongside its exec, not before it): the signalfd
 * (what arrived meanwhile is pending), the epoll set and the timers this run can arm but
 * the grace timer, which only a timeout that fires needs (arm_grace()).  Nothing is lost
 * by the wait: the main process's pidfd, the keeper's and the signals are levels, and the
 * timeout is armed for what is left. */
static int
open_watch(struct sv_state *st)
{
	sigset_t fwd;

	sv_forwarded_signals(&fwd);
	st->sigfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);
	if (st->sigfd < 0)
		return log_error_errno(-errno, "signalfd: %m");
	st->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (st->epfd < 0)
		return log_error_errno(-errno, "cannot set up supervision: %m");
	/* perf: only the timers this run can arm; an unmade one stays -EBADF, matches no
	 * event and is not watched. */
	if (st->spec->has_timeout &&
	    (st->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return log_error_errno(-errno, "cannot set up supervision: %m");
	if (st->spec->cpu_budget_ms > 0 && st->spec->cpu_used_usec != NULL &&
	    (st->cfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return log_error_errno(-errno, "cannot set up supervision: %m");
	return 0;
}

/* perf: the child's message pipe is not watched (its end of file at the exec would wake
 * the loop for nothing): the child writes its message just before _exit(), so it is read
 * when the main process has ended (sv_read_child_msg() from on_event() and
 * sv_end_sandbox()), when its write end is closed either way. */
static int
watch_all(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	int epfd = st->epfd;

	if (epoll_add(epfd, st->pidfd) < 0 || epoll_add(epfd, st->sigfd) < 0 ||
	    (st->tfd >= 0 && epoll_add(epfd, st->tfd) < 0) ||
	    (st->cfd >= 0 && epoll_add(epfd, st->cfd) < 0) ||
	    (st->extra_fd >= 0 && spec->on_extra != NULL && epoll_add(epfd, st->extra_fd) < 0) ||
	    (spec->relay != NULL && output_relay_watch(spec->relay, epfd) < 0) ||
	    (spec->keeper_pidfd >= 0 && epoll_add(epfd, spec->keeper_pidfd) < 0))
		return log_error_errno(-errno, "epoll: %m");
	return 0;
}

/* The started child st->pid: open what watches it (open_watch()), watch everything and arm
 * the timers.  On failure the child is killed and reaped. */
int
sv_watch_child(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	pid_t pid = st->pid;
	int r;

	st->pidfd = pidfd_open(pid, 0);
	if (st->pidfd < 0)
		return sv_abort_child(
			pid,
			log_error_errno(-errno, "pidfd_open: %m (Linux 5.3 or later is needed)"));
	r = open_watch(st);
	if (r < 0)
		return sv_abort_child(pid, r);
	r = watch_all(st);
	if (r >= 0 && st->ugate_on) {
		r = ugate_watch(&sv_ugate, st->epfd);
		if (r < 0)
			r = log_error_errno(r, "epoll: %m");
	}
	if (r < 0)
		return sv_abort_child(pid, r);
	if (spec->cpu_budget_ms > 0 && spec->cpu_used_usec != NULL)
		cpu_budget_check(st, st->cfd);
	if (spec->has_timeout) {
		/* From start_ms (the child's set-up and exec count). */
		uint64_t ran = mono_ms() - st->start_ms;

		if (arm_timer(st->tfd, spec->timeout_ms > ran ? spec->timeout_ms - ran : 0) < 0)
			return sv_abort_child(pid, log_error_errno(-errno, "timerfd: %m"));
	}
	return 0;
}

/* The grace period after the timeout: its timer is made, watched and armed now.  0 or
 * -errno; the caller kills at once when it cannot be. */
static int
arm_grace(struct sv_state *st)
{
	if (st->gfd < 0) {
		st->gfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (st->gfd < 0)
			return -errno;
		if (epoll_add(st->epfd, st->gfd) < 0)
			return -errno;
	}
	return arm_timer(st->gfd, st->spec->grace_ms);
}

static void
on_timeout(struct sv_state *st)
{
	sv_drain(st->tfd);
	st->out->timeout_fired = true;
	sv_signal(st, SIGTERM);
	sv_signal(st, SIGCONT); /* stopped processes must see it */
	if (st->spec->grace_ms == 0) {
		st->out->grace_expired = true;
		sv_signal(st, SIGKILL);
	} else if (arm_grace(st) < 0) {
		sv_signal(st, SIGKILL);
	}
}

/* Signals to sandcap: SIGCHLD reaps, the others go to every process of the sandbox (its
 * group, and those outside it, each once) and are noted as an end request (with the sender
 * the keeper saw, if it forwarded them).  A SIGCONT follows, as after `sandcap kill` and the
 * timeout: a stopped process would otherwise keep the signal pending, and sandcap would
 * wait for ever. */
static void
on_signals(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	struct signalfd_siginfo si;

	while (read(st->sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			sv_reap(st, NULL);
		} else if (!st->main_reaped) {
			pid_t from = (pid_t) si.ssi_pid;
			uid_t uid = (uid_t) si.ssi_uid;

			if (spec->keeper_pid > 0 && from == spec->keeper_pid &&
			    si.ssi_code == SI_QUEUE) {
				from = (pid_t) (uint32_t) si.ssi_ptr;
				uid = (uid_t) (si.ssi_ptr >> 32);
			}
			(void) sv_note_end_request(st, (int) si.ssi_signo, false, from, uid);
			/* fg of a job started in the background that has not stopped: the
			 * terminal is the sandbox's now. */
			if (si.ssi_signo == SIGCONT)
				sv_give_terminal(st);
			sv_signal(st, (int) si.ssi_signo);
			/* Only after a signal that asks for the end (a SIGTSTP stays a stop). */
			if (sv_is_end_signal((int) si.ssi_signo))
				sv_signal(st, SIGCONT);
		}
	}
}

/* The keeper was killed (keeper.h): so is the sandbox.  Only SIGKILL ends it and its
 * sender is unknown: the end request is recorded as the keeper's death (pid: the keeper),
 * so the report says why the sandbox ended. */
static void
on_keeper_death(struct sv_state *st, int fd)
{
	(void) epoll_ctl(st->epfd, EPOLL_CTL_DEL, fd, NULL);
	if (sv_note_end_request(st, SIGKILL, false, st->spec->keeper_pid, getuid()))
		st->out->end_request.keeper_died = true;
	sv_signal(st, SIGKILL);
}

static void
on_event(struct sv_state *st, int fd, uint32_t events)
{
	const struct sv_spec *spec = st->spec;
	struct sv_outcome *out = st->out;

	if (st->ugate_on && ugate_owns(&sv_ugate, fd)) {
		ugate_event(&sv_ugate, st->epfd, fd, events);
	} else if (fd == st->pidfd) {
		sv_read_child_msg(st); /* written before the child exited */
		sv_reap(st, NULL);
	} else if (fd == st->tfd) {
		on_timeout(st);
	} else if (spec->relay != NULL && output_relay_owns(spec->relay, fd)) {
		if (output_relay_event(spec->relay, fd, events) > 0) {
			out->output_limit_hit = true;
			sv_signal(st, SIGKILL);
		}
	} else if (spec->keeper_pidfd >= 0 && fd == spec->keeper_pidfd) {
		on_keeper_death(st, fd);
	} else if (fd == st->extra_fd && spec->on_extra != NULL) {
		spec->on_extra(spec->extra_userdata, st);
	} else if (fd == st->cfd) {
		sv_drain(st->cfd);
		cpu_budget_check(st, st->cfd);
	} else if (fd == st->gfd) {
		sv_drain(st->gfd);
		out->grace_expired = true;
		sv_signal(st, SIGKILL);
	} else if (fd == st->sigfd) {
		on_signals(st);
	}
}

/* Until the main process is reaped. */
void
sv_loop(struct sv_state *st)
{
	while (!st->main_reaped) {
		struct epoll_event evs[8];
		int n = epoll_wait(st->epfd, evs, ELEMENTSOF(evs), -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot supervise any more: end the sandbox rather than leave it. */
			log_error_errno(-errno, "epoll_wait: %m; killing the sandbox");
			sv_signal(st, SIGKILL);
			break;
		}
		for (int i = 0; i < n && !st->main_reaped; i++)
			on_event(st, evs[i].data.fd, evs[i].events);
	}
}
