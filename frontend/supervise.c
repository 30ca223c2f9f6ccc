/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "env.h"
#include "log.h"
#include "macro.h"
#include "sigreset.h"
#include "stage.h"
#include "procstat.h"
#include "rawproc.h"
#include "supervise.h"
#include "unixgate.h"
#include "time-util.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

_Static_assert(STAGE_EXIT_FAILURE == SC_EXIT_FAILURE && STAGE_EXIT_NOEXEC == SC_EXIT_NOEXEC &&
	       STAGE_EXIT_NOTFOUND == SC_EXIT_NOTFOUND, "lib/stage.h's exit statuses");

/* ---- the child (between fork and exec: only _exit, no stdio) ---- */

/* What the parent works out before starting the child, so that the child only uses it
 * (issue 19: every page the child writes or code it runs first before its exec is a
 * fault). */
struct child_prep {
	char **envp;                    /* the command's environment, PWD and TMPDIR set */
	uint64_t sig_todo, sig_ign;     /* sig_nondefault(): the child's dispositions too */
};

/* What the child gets: it runs on its own stack in the supervisor's memory, which is
 * suspended until the child execs or exits (start_cloned()). */
struct child_args {
	const struct sv_spec *spec;
	const struct child_prep *cp;
	pid_t parent;
	int msg_fd, tty_fd;
	int notify_sock;                /* the filter's listener goes there (-1: none) */
	uint64_t *start_ms;             /* the supervisor's: set once in the cgroup */
	int attach_err;                 /* spec->attach()'s error, for the supervisor */
#ifdef __SANITIZE_ADDRESS__
	const void *asan_bottom;        /* the supervisor's stack, for ASan (asan_*() below) */
	size_t asan_size;
	bool asan_switched;
#endif
};

/* ASan (make SANITIZE=1) keeps one record per thread of where its stack is, in memory the
 * child shares: the child switches it to its own stack and the supervisor back, by ASan's
 * fiber protocol; and the redzones the last child left on that stack are forgotten.
 * Otherwise ASan warns of an unknown stack and reports those redzones as overflows. */
#ifdef __SANITIZE_ADDRESS__
static void
asan_before_clone(char *stack_top, size_t size, void **fake)
{
	ASAN_UNPOISON_MEMORY_REGION(stack_top - size, size);
	__sanitizer_start_switch_fiber(fake, stack_top - size, size);
}

static void
asan_in_child(struct child_args *a)
{
	__sanitizer_finish_switch_fiber(NULL, &a->asan_bottom, &a->asan_size);
	a->asan_switched = true;
}

static void
asan_after_clone(struct child_args *a, void *fake)
{
	if (!a->asan_switched)          /* the child never ran: finish the switch first */
		__sanitizer_finish_switch_fiber(NULL, &a->asan_bottom, &a->asan_size);
	__sanitizer_start_switch_fiber(NULL, a->asan_bottom, a->asan_size);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
}
#else
static void asan_before_clone(char *stack_top, size_t size, void **fake) { }
static void asan_in_child(struct child_args *a) { }
static void asan_after_clone(struct child_args *a, void *fake) { }
#endif

/* Hand ourselves to spec->attach (user-cgroup mode: the user cgroup's cgroup.procs)
 * before anything of the command runs: nothing below may run outside the sandbox's
 * cgroup.  The pidfd is close-on-exec. */
static int
child_attach(const struct sv_spec *spec)
{
	int pidfd = pidfd_open(getpid(), 0);

	if (pidfd < 0)
		return log_error_errno(-errno, "pidfd_open: %m (Linux 5.3 or later is needed)");
	return spec->attach(pidfd, spec->userdata);
}

/* isolate_apply() as the stage's isolation (stage_tail()). */
static int
child_isolate(const void *ud, char *err, size_t errlen)
{
	const struct child_args *a = ud;

	return isolate_apply_notify(a->spec->iso, a->spec->plan, a->notify_sock, err, errlen);
}

/* sv_note_stdio(): bit i set when fd i was closed as sandcap started. */
static _run_data_ unsigned sv_stdio_closed;

static _noreturn_ void
child_run(struct child_args *a)
{
	const struct sv_spec *spec = a->spec;
	const struct child_prep *cp = a->cp;
	int r;

	/* Our own process group, so the whole tree can be signalled at once. */
	(void) setpgid(0, 0);
	/* Take the terminal's foreground, so the command reads it and ^C/^Z reach it.
	 * SIGTTOU is blocked (inherited mask), as tcsetpgrp() from a background group
	 * requires. */
	if (a->tty_fd >= 0)
		(void) tcsetpgrp(a->tty_fd, getpid());
	/* If sandcap is killed, the command dies with it rather than running unsupervised. */
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->parent)
		_exit(SC_EXIT_FAILURE);

	/* --output-limit: stdout and stderr are the relay's pipes. */
	if (spec->relay != NULL && output_relay_child(spec->relay) < 0)
		_exit(SC_EXIT_FAILURE);
	/* What was closed when sandcap started is closed for the command (sv_note_stdio()
	 * put /dev/null there, so that nothing of ours took the number). */
	for (int i = 0; i < 3; i++)
		if ((sv_stdio_closed & (1u << i)) != 0)
			(void) close(i);

	/* In user-cgroup mode: into the sandbox's cgroup first.  A failure is the
	 * supervisor's to report (it printed why). */
	if (spec->attach != NULL) {
		r = child_attach(spec);
		if (r < 0) {
			a->attach_err = r;
			_exit(SC_EXIT_FAILURE);
		}
	}
	/* The wall clock and --timeout start here, where the supervisor used to release the
	 * child: the set-up below and the exec count. */
	*a->start_ms = mono_ms();
	stage_tail(&(const struct stage_tail) {
		.argv = spec->argv, .envp = cp->envp, .chdir = spec->chdir, .rl = spec->rl,
		.n_rl = spec->n_rl, .keep_fds = spec->keep_fds, .msg_fd = a->msg_fd,
		.sig_todo = cp->sig_todo, .sig_ign = cp->sig_ign,
		.isolate = spec->iso != NULL ? child_isolate : NULL, .isolate_ud = a,
	});
}

static int
child_main(void *userdata)
{
	asan_in_child(userdata);
	child_run(userdata);
}

/* ---- finding and signalling descendants ---- */

/* A list of pids, in inl until it outgrows it: a scan of a sandbox with few processes
 * allocates nothing (issue 19: a plain run then never starts malloc). */
struct pidvec {
	pid_t *v;
	size_t n, cap;
	pid_t inl[32];
};

static void
pidvec_init(struct pidvec *pv)
{
	pv->v = pv->inl;
	pv->n = 0;
	pv->cap = ELEMENTSOF(pv->inl);
}

static int
pidvec_push(struct pidvec *pv, pid_t p)
{
	if (pv->n == pv->cap) {
		size_t cap = pv->cap * 2;
		pid_t *v = reallocarray(pv->v == pv->inl ? NULL : pv->v, cap, sizeof(pid_t));

		if (v == NULL)
			return -ENOMEM;
		if (pv->v == pv->inl)
			memcpy(v, pv->inl, sizeof(pv->inl));
		pv->v = v;
		pv->cap = cap;
	}
	pv->v[pv->n++] = p;
	return 0;
}

static void
pidvec_free(struct pidvec *pv)
{
	if (pv->v != pv->inl)
		free(pv->v);
}

/* The parent pid from /proc/PID/stat (procstat.c), -1 when it cannot be read. */
static pid_t
proc_ppid(pid_t pid)
{
	struct procstat ps;

	return procstat_read(pid, &ps) < 0 ? -1 : ps.ppid;
}

/* Append the children of thread tid of pid to pv.  The file is read in pieces and parsed
 * across them (rawproc.h), so a pid is never cut in two however many children there are
 * (one 8 KiB read used to cut the list, and its last pid, short: a cut pid of our own
 * children was signalled as it was, whichever process had it).  -ENOMEM, or -errno when
 * the thread is gone. */
static int
collect_task_children(pid_t pid, pid_t tid, struct pidvec *pv)
{
	char cpath[96], buf[512];
	pid_t got[sizeof(buf) / 2 + 2];         /* "1 2 3 ...", and one carried over */
	struct rawpids rp = { .out = got, .max = ELEMENTSOF(got), .cur = -1 };
	_cleanup_close_ int fd = -EBADF;
	bool end = false;

	snprintf(cpath, sizeof(cpath), "/proc/%d/task/%d/children", (int) pid, (int) tid);
	fd = open(cpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while (!end) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* The kernel fills the buffer while records (12 bytes at most) remain: a read
		 * that returns less than half of it is the end, and saves the read that
		 * would return 0 (issue 19). */
		end = (size_t) n < sizeof(buf) / 2;
		rawpids_feed(&rp, buf, (size_t) n);
		if (end)
			rawpids_end(&rp);
		for (size_t i = 0; i < rp.n; i++)
			if (pidvec_push(pv, got[i]) < 0)
				return -ENOMEM;
		rp.n = 0;
	}
	return 0;
}

/* Append the children of every thread of pid to pv; self: pid is this process. */
static int
collect_children(pid_t pid, bool self, struct pidvec *pv)
{
	char path[64];
	_cleanup_close_ int fd = -EBADF;
	union {
		struct dirent64 de;
		char b[2048];   /* a process's tasks, 2048 / 24 at a time */
	} buf;

	/* sandcap itself never starts a thread (no pthread_create in it: tools/lint.sh checks
	 * the binary), so its children are those of its one task: read that file, without
	 * listing /proc/self/task (5 system calls and a 32 KiB buffer per scan; issue 19). */
	if (self)
		return collect_task_children(pid, pid, pv);
	/* getdents64 into the stack, not opendir()'s 32 KiB heap buffer (issue 19). */
	snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = getdents64(fd, buf.b, sizeof(buf.b));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;       /* as readdir(): an error ends the listing */
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *) (buf.b + off);
			long tid;
			char *end;

			off += de->d_reclen;
			if (de->d_name[0] == '.')
				continue;
			errno = 0;
			tid = strtol(de->d_name, &end, 10);
			if (errno != 0 || *end != '\0' || tid <= 0 || tid > INT_MAX)
				continue;
			if (collect_task_children(pid, (pid_t) tid, pv) == -ENOMEM)
				return -ENOMEM;
		}
	}
}

/* A child of sandcap that is not part of the sandbox (the helper). */
static _run_data_ pid_t sv_exclude_pid;
/* The main process once it has ended and until it is reaped: a zombie, whose children the
 * kernel gave to us (the subreaper) before its end could be seen, so it has nothing left to
 * signal or to list (issue 19: 8 system calls).  0 otherwise: once reaped, its pid may name
 * another process. */
static _run_data_ pid_t sv_ended_pid;
/* The supervisor's own pid, set by sv_run() (issue 19: asked once, not per scan); 0 in
 * another process (the keeper), which asks the kernel. */
static _run_data_ pid_t sv_self;

static pid_t
self_pid(void)
{
	return sv_self > 0 ? sv_self : getpid();
}

/* Not a member of group pgrp (0: no group to skip), which a group kill already reached. */
static bool
outside_group(pid_t p, pid_t pgrp)
{
	return pgrp <= 0 || getpgid(p) != pgrp;
}

int
sv_signal_descendants(int sig, pid_t skip_pgrp)
{
	/* Breadth first: pv holds (pid) entries; the parent of entry i is recorded in par. */
	struct pidvec pv, par;
	pid_t self = self_pid();
	int count = 0;

	pidvec_init(&pv);
	pidvec_init(&par);

	if (collect_children(self, true, &pv) < 0)
		goto out;
	while (par.n < pv.n)
		if (pidvec_push(&par, self) < 0)
			goto out;
	for (size_t i = 0; i < pv.n; i++) {
		pid_t p = pv.v[i];

		if (p == sv_exclude_pid || (p == sv_ended_pid && par.v[i] == self))
			continue;
		if (par.v[i] == self) {
			/* Our own child: its pid cannot be recycled before we reap it.  A member
			 * of skip_pgrp got the signal from the group kill already. */
			if (outside_group(p, skip_pgrp) && kill(p, sig) == 0)
				count++;
		} else {
			/* A grandchild may die and its pid be reused at any time: pin it with
			 * a pidfd, then check it is still the child of the process we found it
			 * under.  If the pid was recycled before pidfd_open, the parent check
			 * fails (or it is still a descendant); if after, the pidfd names a
			 * dead process and the signal is not delivered. */
			_cleanup_close_ int pfd = pidfd_open(p, 0);

			if (pfd < 0 || proc_ppid(p) != par.v[i])
				continue;
			/* Its children are still walked: they may be in another group.  (Had
			 * p died and its pid been reused since the check, the pidfd names
			 * the dead p: no signal either way.) */
			if (outside_group(p, skip_pgrp) &&
			    pidfd_send_signal(pfd, sig, NULL, 0) == 0)
				count++;
		}
		size_t before = pv.n;

		if (collect_children(p, false, &pv) == -ENOMEM)
			goto out;
		for (size_t k = before; k < pv.n; k++)
			if (pidvec_push(&par, p) < 0)
				goto out;
	}
out:
	pidvec_free(&pv);
	pidvec_free(&par);
	return count;
}

/* ---- the supervisor ---- */

struct sv_state {
	const struct sv_spec *spec;
	struct sv_outcome *out;
	pid_t pid;                      /* main process, also the process group id */
	int pidfd;
	int sigfd;
	int msg_fd;
	bool msg_done;
	int epfd;
	int tfd;                        /* the timeout */
	int gfd;                        /* the grace period after it */
	int cfd;                        /* the next CPU-budget check */
	int extra_fd;                   /* spec->open_extra()'s, -1: none */
	int tty_fd;                     /* our controlling terminal on stdin, or -1 */
	bool tty_fg;                    /* we were its foreground job at the start */
	bool have_tios;                 /* tios: its settings when the sandbox got it */
	struct termios tios;
	bool main_reaped;
	bool main_ended;                /* seen ended (waitid), reaped or not */
	uint64_t start_ms;
	bool ugate_on;                  /* sv_ugate answers the command's connect() */
};

/* Static: a run without it never touches its pages. */
static struct ugate sv_ugate;

/* plan->unix_notify: the socket the child sends its filter's listener on; our end goes to
 * sv_ugate, the child's end in *ret_theirs.  0 or -errno (said). */
static int
ugate_prepare(struct sv_state *st, int *ret_theirs)
{
	int pair[2], r;

	*ret_theirs = -EBADF;
	if (st->spec->plan == NULL || !st->spec->plan->unix_notify)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return log_error_errno(-errno, "socketpair: %m");
	r = ugate_start(&sv_ugate, pair[0], sv_self, st->spec->exclude_pid);
	sv_ugate.scope_abstract = st->spec->plan->landlock_scope;
	st->ugate_on = true;
	if (r < 0) {
		(void) close(pair[1]);
		return log_error_errno(r, "cannot answer the sandbox's connect() (seccomp user "
				       "notification): %m; pass --unix host");
	}
	*ret_theirs = pair[1];
	return 0;
}

/* Signal the whole sandbox, each process once: the process group (only while the main
 * process is unreaped, so the group id cannot have been recycled; one kill(2) that a fork
 * in progress cannot escape), then every descendant outside that group.  Signalling the
 * group's members again sent them two: a SIGTERM handler that exits 0 was killed by the
 * second, and a handler ran twice.  A process that leaves the group between the two steps
 * can still get it twice, one that joins it can miss it: a window of a few system calls
 * that only the sandbox's own setpgid() opens.  SIGKILL goes to every descendant by
 * list as well: a second SIGKILL changes nothing, and one that joined the group after
 * the group kill must not be missed. */
static void
signal_sandbox(struct sv_state *st, int sig)
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
 * end_sandbox(), which runs next: it kills by list only if we still have a child once the
 * main process is reaped, and without one nothing of the sandbox is left (every process of
 * it is our child or below one: we are the subreaper, and a process's children come to us
 * when it ends, before its end can be reaped).  A plain run so scans no /proc list (issue
 * 19: 25 us of the time between the command's end and sandcap's). */
static void
kill_ended_sandbox(struct sv_state *st)
{
	(void) kill(-st->pid, SIGKILL);
	if (st->spec->kill_all != NULL)
		st->spec->kill_all(st->spec->userdata);
}

void
sv_signal(struct sv_state *sv, int sig)
{
	signal_sandbox(sv, sig);
}

/* Signals that ask the sandbox to end (the forwarded ones and SIGKILL). */
static bool
is_end_signal(int sig)
{
	return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP ||
	       sig == SIGQUIT;
}

/* Record a request to end the sandbox; true if this one was recorded.  The latest one is
 * kept, so the report names the request the command met last (a SIGHUP it ignored, then
 * the SIGTERM that ended it: the SIGTERM), except that nothing replaces a SIGKILL or the
 * keeper's death, after which the end is certain. */
static bool
note_end_request(struct sv_state *st, int sig, bool by_control, pid_t pid, uid_t uid)
{
	const struct sv_end_request *r = &st->out->end_request;

	if (st->main_reaped || !is_end_signal(sig) ||
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
	(void) note_end_request(sv, sig, by_control, pid, uid);
	signal_sandbox(sv, sig);
}

uint64_t
sv_age_ms(const struct sv_state *sv)
{
	return mono_ms() - sv->start_ms;
}

static void
read_child_msg(struct sv_state *st)
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

/* Our job has the terminal's foreground (fg) and the sandbox has not: give it, with the
 * terminal's settings kept the first time (a job started in the background gets it only
 * now, to restore them at the end). */
static void
give_terminal(struct sv_state *st)
{
	pid_t home = st->spec->home_pgrp > 0 ? st->spec->home_pgrp : getpgrp();

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
 * that stops itself must not hold off --timeout or outlive its keeper (reviews). */
static bool
may_stop(const struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	pid_t home = spec->home_pgrp > 0 ? spec->home_pgrp : getpgrp();

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
static void
job_stopped(struct sv_state *st, int stopsig)
{
	pid_t home = st->spec->home_pgrp > 0 ? st->spec->home_pgrp : getpgrp();

	if (stopsig != SIGTSTP && stopsig != SIGTTIN && stopsig != SIGTTOU)
		return;         /* SIGSTOP from someone else: leave sandcap running, timers too */
	if (st->tty_fd < 0)
		return;
	if (stopsig != SIGTSTP && tcgetpgrp(st->tty_fd) == home) {
		give_terminal(st);
		signal_sandbox(st, SIGCONT);
		return;
	}
	if (!may_stop(st))
		return;         /* the main process stays stopped; the kill continues it */
	signal_sandbox(st, SIGSTOP);
	if (tcgetpgrp(st->tty_fd) == st->pid)
		(void) tcsetpgrp(st->tty_fd, home);
	(void) kill(getpid(), SIGSTOP);
	/* Continued: in the foreground (fg), the terminal goes to the sandbox; in the
	 * background (bg), not, and a read of it stops the sandbox again. */
	give_terminal(st);
	signal_sandbox(st, SIGCONT);
}

/* Children of sandcap other than the helper (zombies included). */
static size_t
count_children(void)
{
	struct pidvec pv;
	size_t n = 0;

	pidvec_init(&pv);

	if (collect_children(self_pid(), true, &pv) < 0) {
		pidvec_free(&pv);
		return 1;       /* unknown: keep waiting for SIGCHLD */
	}
	for (size_t i = 0; i < pv.n; i++)
		if (pv.v[i] != sv_exclude_pid)
			n++;
	pidvec_free(&pv);
	return n;
}

/* A process other than the main one, reaped here: a death by a resource limit's signal is
 * counted, so that the report can name a limit hit below the main process. */
static void
note_other_end(struct sv_outcome *out, int status)
{
	if (!WIFSIGNALED(status))
		return;
	if (WTERMSIG(status) == SIGXCPU)
		out->other_sigxcpu++;
	else if (WTERMSIG(status) == SIGXFSZ)
		out->other_sigxfsz++;
}

/* Reap what can be reaped.  The main process is first checked without reaping: when it
 * has ended, its group is killed while the zombie still pins the group id.
 * ret_no_children: NULL when the caller does not need to know whether children are left
 * (that takes a scan of our children while the helper is one). */
static void
reap(struct sv_state *st, bool *ret_no_children)
{
	if (ret_no_children != NULL)
		*ret_no_children = false;
	if (!st->main_reaped) {
		siginfo_t si = {};

		if (waitid(P_PID, (id_t) st->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == st->pid) {
			uint64_t end = mono_ms();

			sv_ended_pid = st->pid;
			st->main_ended = true;

			st->out->wall_ms = end - st->start_ms;
			/* The sandbox ends with its command -- unless the timeout's grace
			 * period is running: the rest got SIGTERM and may finish cleaning up
			 * until it expires. */
			if (!st->out->timeout_fired || st->out->grace_expired)
				kill_ended_sandbox(st);
		}
	}
	for (;;) {
		struct rusage ru;
		int status;
		/* Stops and continues matter only for the main process (job control): once it
		 * is reaped, only ends, so that processes stopping and continuing each other
		 * cannot keep this loop from the kill (outside review). */
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
				*ret_no_children = count_children() == 0;
			return;
		}
		if (p != st->pid || st->main_reaped) {
			/* Ended by SIGKILL after the command: almost always what it left
			 * running, killed with it (a process it SIGKILLed itself just before
			 * its end counts too). */
			if (st->main_ended && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
				st->out->killed_at_end++;
			note_other_end(st->out, status);
			continue;
		}
		if (WIFSTOPPED(status)) {
			job_stopped(st, WSTOPSIG(status));
			continue;
		}
		if (WIFCONTINUED(status))
			continue;
		st->main_reaped = st->main_ended = true;
		sv_ended_pid = 0;       /* reaped: its pid is free for reuse */
		st->out->main_ru = ru;
		if (WIFEXITED(status)) {
			st->out->exited = true;
			st->out->exit_code = WEXITSTATUS(status);
		} else {
			st->out->signaled = true;
			st->out->signal = WTERMSIG(status);
		}
		if (st->out->wall_ms == 0)
			st->out->wall_ms = mono_ms() - st->start_ms;
		/* Supervision ends here; end_sandbox() reaps the rest (one wait4 saved). */
		if (ret_no_children == NULL)
			return;
	}
}

static int
arm_timer(int fd, uint64_t ms)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = (time_t) (ms / 1000), .tv_nsec = (long) (ms % 1000) * 1000000 },
	};

	if (ms == 0)
		its.it_value.tv_nsec = 1;       /* 0 would disarm */
	return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}

/* Check the CPU budget; re-arm the timer for the earliest time it can be spent. */
static void
cpu_budget_check(struct sv_state *st, int cfd)
{
	const struct sv_spec *spec = st->spec;
	uint64_t used = 0, budget = spec->cpu_budget_ms * 1000, rate, wait_us;

	if (spec->cpu_used_usec(spec->userdata, &used) < 0)
		used = 0;       /* unreadable: check again after the whole budget */
	if (used >= budget) {
		st->out->cpu_budget_fired = true;
		signal_sandbox(st, SIGKILL);
		return;
	}
	rate = spec->cpu_rate_percent > 0 ? spec->cpu_rate_percent : 100;
	wait_us = (budget - used) * 100 / rate;
	/* At least 1 ms: a sandbox idling a few microseconds short of its budget must not
	 * turn this into a busy loop. */
	(void) arm_timer(cfd, wait_us < 1000 ? 1 : (wait_us + 999) / 1000);
}

static void
drain(int fd)
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

/* The main process has ended (or supervision failed): let the rest use what is left of a
 * timeout's grace, kill and reap everything until ECHILD, and give the terminal back as
 * it was (st->tios, when known). */
static void
end_sandbox(struct sv_state *st)
{
	struct sv_outcome *out = st->out;
	bool no_children;

	read_child_msg(st);

	/* Timed out and the main process ended within the grace period: give the others the
	 * rest of it (they got SIGTERM), ending early when nothing is left. */
	while (out->timeout_fired && !out->grace_expired) {
		struct pollfd p[2] = { { .fd = st->sigfd, .events = POLLIN },
				       { .fd = st->gfd, .events = POLLIN } };

		reap(st, &no_children);
		if (no_children)
			break;
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		drain(st->sigfd);
		if (p[1].revents & POLLIN)
			out->grace_expired = true;
	}

	/* The main process is gone: kill and reap everything left, until ECHILD.  Each round
	 * kills what reparented to us since the last; SIGCHLD wakes us, never a timer. */
	for (;;) {
		struct pollfd p = { .fd = st->sigfd, .events = POLLIN };

		reap(st, &no_children);
		if (no_children)
			break;
		(void) sv_signal_descendants(SIGKILL, 0);
		reap(st, &no_children);
		if (no_children)
			break;
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		drain(st->sigfd);
	}
	(void) getrusage(RUSAGE_CHILDREN, &out->tree_ru);

	/* What the sandbox wrote and is still in the relay's pipes is passed on by sandcap
	 * after the teardown (run_drain_output(), cmd-run.c): nothing of the sandbox's is held
	 * while a slow reader takes it. */

	/* Give the terminal back to sandcap's group if the sandbox still holds it, with the
	 * settings it had when the sandbox got it (SIGTTOU is blocked, so this works even if
	 * the sandbox's group kept the foreground). */
	pid_t home = st->spec->home_pgrp > 0 ? st->spec->home_pgrp : getpgrp();

	if (st->tty_fd >= 0 && tcgetpgrp(st->tty_fd) == st->pid)
		(void) tcsetpgrp(st->tty_fd, home);
	if (st->tty_fd >= 0 && st->have_tios && tcgetpgrp(st->tty_fd) == home)
		(void) tcsetattr(st->tty_fd, TCSADRAIN, &st->tios);     /* not another job's */
}

void
sv_forwarded_signals(sigset_t *set)
{
	sigemptyset(set);
	for (const int *s = (const int[]) { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP,
					    SIGCONT, 0 }; *s != 0; s++)
		sigaddset(set, *s);
}

/* Before the child: block the signals sandcap handles (they wait, pending, for the signalfd
 * that open_watch() makes), and become the subreaper of the sandbox. */
static int
setup_supervision(void)
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

/* Once the command has started (issue 19: alongside its exec, not before it): the signalfd
 * (what arrived meanwhile is pending), the epoll set, the timers this run can arm, and
 * spec->open_extra()'s fd.  Nothing is lost by the wait: the main process's pidfd, the
 * keeper's and the signals are levels, and the timeout is armed for what is left. */
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
	/* Only the timers this run can arm (issue 19: 3 system calls each otherwise); an
	 * unmade one stays -EBADF, matches no event and is not watched. */
	if (st->spec->has_timeout &&
	    ((st->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0 ||
	     (st->gfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0))
		return log_error_errno(-errno, "cannot set up supervision: %m");
	if (st->spec->cpu_budget_ms > 0 && st->spec->cpu_used_usec != NULL &&
	    (st->cfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return log_error_errno(-errno, "cannot set up supervision: %m");
	if (st->spec->open_extra != NULL)
		st->extra_fd = st->spec->open_extra(st->spec->extra_userdata);
	return 0;
}

/* A child that was never released: kill and reap it, and pass r on. */
static int
abort_child(pid_t pid, int r)
{
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, 0);
	return r;
}

/* The child's message pipe is not watched (issue 19: its end of file at the exec cost an
 * epoll_ctl, a wake-up, a read and another epoll_ctl): the child writes its message just
 * before _exit(), so it is read when the main process has ended (read_child_msg() from
 * on_event() and end_sandbox()), when its write end is closed either way. */
static int
watch_all(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	int epfd = st->epfd;

	if (epoll_add(epfd, st->pidfd) < 0 || epoll_add(epfd, st->sigfd) < 0 ||
	    (st->tfd >= 0 && epoll_add(epfd, st->tfd) < 0) ||
	    (st->gfd >= 0 && epoll_add(epfd, st->gfd) < 0) ||
	    (st->cfd >= 0 && epoll_add(epfd, st->cfd) < 0) ||
	    (st->extra_fd >= 0 && spec->on_extra != NULL && epoll_add(epfd, st->extra_fd) < 0) ||
	    (spec->relay != NULL && output_relay_watch(spec->relay, epfd) < 0) ||
	    (spec->keeper_pidfd >= 0 && epoll_add(epfd, spec->keeper_pidfd) < 0))
		return log_error_errno(-errno, "epoll: %m");
	return 0;
}

/* The child's stack (start_cloned()): mapped once, with a guard page below it, so that an
 * overflow faults in the child instead of writing over the supervisor's memory. */
#define CHILD_STACK_SIZE (256 * 1024)
#define STACK_MAP (MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE)

static char *
child_stack_top(void)
{
	static _run_data_ char *top;
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	char *base;

	if (top != NULL)
		return top;
	/* fd -1 with MAP_ANONYMOUS, as mmap(2) asks; cppcheck knows only file mappings. */
	// cppcheck-suppress invalidFunctionArg
	base = mmap(NULL, CHILD_STACK_SIZE + page, PROT_READ | PROT_WRITE, STACK_MAP, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base, page, PROT_NONE) < 0) {
		(void) munmap(base, CHILD_STACK_SIZE + page);
		return NULL;
	}
	top = base + page + CHILD_STACK_SIZE;
	return top;
}

/* rlimit and user-cgroup mode: start the child with clone(CLONE_VM | CLONE_VFORK) rather
 * than fork() (issue 19): no copy of our page tables, no copy-on-write faults in either
 * process.  We are suspended until it execs or exits, so it has our memory to itself
 * meanwhile; in user-cgroup mode it first hands itself to spec->attach, so the command
 * never runs outside the sandbox's cgroup.  Every signal is blocked across it: none of our handlers may run on
 * its stack.  Then open what watches it (open_watch()), watch everything and arm the
 * timers.  On failure the child is killed and reaped. */
static int watch_child(struct sv_state *st);

static int
start_cloned(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	_cleanup_close_ int msg_w = -EBADF, notify_w = -EBADF;
	_cleanup_free_ char **envp = NULL;
	struct child_prep cp;
	struct child_args a;
	char **our_environ = environ;
	char *stack = child_stack_top();
	sigset_t all, old;
	void *fake = NULL;              /* ASan's (asan_before_clone()) */
	int fds[2], r, e;
	pid_t pid;

	if (stack == NULL)
		return log_error_errno(-errno, "cannot map the child's stack: %m");
	cp.envp = spec->envp != NULL ? spec->envp : environ;
	r = env_for_exec(cp.envp, spec->chdir != NULL && spec->chdir[0] == '/' ? spec->chdir : NULL,
			 spec->tmpdir, &envp);
	if (r < 0)
		return log_error_errno(r, "cannot build the command's environment: %m");
	if (envp != NULL)
		cp.envp = envp;

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return log_error_errno(-errno, "pipe: %m");
	st->msg_fd = fds[0];
	msg_w = fds[1];

	r = ugate_prepare(st, &notify_w);
	if (r < 0)
		return r;
	cp.sig_todo = sig_nondefault(&cp.sig_ign);
	a = (struct child_args) { .spec = spec, .cp = &cp, .parent = sv_self, .msg_fd = msg_w,
				  .tty_fd = st->tty_fg ? st->tty_fd : -1, .start_ms = &st->start_ms,
				  .notify_sock = notify_w };
	sigfillset(&all);
	(void) sigprocmask(SIG_SETMASK, &all, &old);
	asan_before_clone(stack, CHILD_STACK_SIZE, &fake);
	pid = clone(child_main, stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	e = errno;
	asan_after_clone(&a, fake);
	environ = our_environ;
	(void) sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return log_error_errno(-e, "cannot start the sandbox's process: %s", strerror(e));
	msg_w = safe_close(msg_w);
	notify_w = safe_close(notify_w);
	if (spec->relay != NULL)
		output_relay_parent(spec->relay);
	st->pid = pid;
	if (a.attach_err < 0)
		return abort_child(pid, a.attach_err);
	/* The child sets it once in its cgroup; one that failed before that ran from now. */
	if (st->start_ms == 0)
		st->start_ms = mono_ms();
	return watch_child(st);
}

/* The started child st->pid: open what watches it (open_watch()), watch everything and arm
 * the timers.  On failure the child is killed and reaped. */
static int
watch_child(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	pid_t pid = st->pid;
	int r;

	st->pidfd = pidfd_open(pid, 0);
	if (st->pidfd < 0)
		return abort_child(pid, log_error_errno(-errno,
					"pidfd_open: %m (Linux 5.3 or later is needed)"));
	r = open_watch(st);
	if (r < 0)
		return abort_child(pid, r);
	r = watch_all(st);
	if (r >= 0 && st->ugate_on) {
		r = ugate_watch(&sv_ugate, st->epfd);
		if (r < 0)
			r = log_error_errno(r, "epoll: %m");
	}
	if (r < 0)
		return abort_child(pid, r);
	if (spec->cpu_budget_ms > 0 && spec->cpu_used_usec != NULL)
		cpu_budget_check(st, st->cfd);
	if (spec->has_timeout) {
		/* From start_ms (the child's set-up and exec count). */
		uint64_t ran = mono_ms() - st->start_ms;

		if (arm_timer(st->tfd, spec->timeout_ms > ran ? spec->timeout_ms - ran : 0) < 0)
			return abort_child(pid, log_error_errno(-errno, "timerfd: %m"));
	}
	return 0;
}

static void
on_timeout(struct sv_state *st)
{
	drain(st->tfd);
	st->out->timeout_fired = true;
	signal_sandbox(st, SIGTERM);
	signal_sandbox(st, SIGCONT);    /* stopped processes must see it */
	if (st->spec->grace_ms == 0) {
		st->out->grace_expired = true;
		signal_sandbox(st, SIGKILL);
	} else if (arm_timer(st->gfd, st->spec->grace_ms) < 0) {
		signal_sandbox(st, SIGKILL);
	}
}

/* Signals to sandcap: SIGCHLD reaps, the others go to every process of the sandbox (its
 * group, and those outside it, each once) and are noted as an end request (with the sender
 * the keeper saw, if it forwarded them).  A SIGCONT follows, as after `sandcap kill` and the
 * timeout: a stopped process would otherwise keep the signal pending, and sandcap would
 * wait for ever (real-workload review). */
static void
on_signals(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	struct signalfd_siginfo si;

	while (read(st->sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(st, NULL);
		} else if (!st->main_reaped) {
			pid_t from = (pid_t) si.ssi_pid;
			uid_t uid = (uid_t) si.ssi_uid;

			if (spec->keeper_pid > 0 && from == spec->keeper_pid &&
			    si.ssi_code == SI_QUEUE) {
				from = (pid_t) (uint32_t) si.ssi_ptr;
				uid = (uid_t) (si.ssi_ptr >> 32);
			}
			(void) note_end_request(st, (int) si.ssi_signo, false, from, uid);
			/* fg of a job started in the background that has not stopped: the
			 * terminal is the sandbox's now. */
			if (si.ssi_signo == SIGCONT)
				give_terminal(st);
			signal_sandbox(st, (int) si.ssi_signo);
			/* Only after a signal that asks for the end (a SIGTSTP stays a stop). */
			if (is_end_signal((int) si.ssi_signo))
				signal_sandbox(st, SIGCONT);
		}
	}
}

static void
on_event(struct sv_state *st, int fd, uint32_t events)
{
	const struct sv_spec *spec = st->spec;
	struct sv_outcome *out = st->out;

	if (st->ugate_on && ugate_owns(&sv_ugate, fd)) {
		ugate_event(&sv_ugate, st->epfd, fd, events);
	} else if (fd == st->pidfd) {
		read_child_msg(st);     /* written before the child exited */
		reap(st, NULL);
	} else if (fd == st->tfd) {
		on_timeout(st);
	} else if (spec->relay != NULL && output_relay_owns(spec->relay, fd)) {
		if (output_relay_event(spec->relay, fd, events) > 0) {
			out->output_limit_hit = true;
			signal_sandbox(st, SIGKILL);
		}
	} else if (spec->keeper_pidfd >= 0 && fd == spec->keeper_pidfd) {
		/* The keeper was killed (keeper.h): so is the sandbox.  Only SIGKILL ends
		 * it and its sender is unknown: the end request is recorded as the keeper's
		 * death (pid: the keeper), so the report says why the sandbox ended. */
		(void) epoll_ctl(st->epfd, EPOLL_CTL_DEL, fd, NULL);
		if (note_end_request(st, SIGKILL, false, spec->keeper_pid, getuid()))
			out->end_request.keeper_died = true;
		signal_sandbox(st, SIGKILL);
	} else if (fd == st->extra_fd && spec->on_extra != NULL) {
		spec->on_extra(spec->extra_userdata, st);
	} else if (fd == st->cfd) {
		drain(st->cfd);
		cpu_budget_check(st, st->cfd);
	} else if (fd == st->gfd) {
		drain(st->gfd);
		out->grace_expired = true;
		signal_sandbox(st, SIGKILL);
	} else if (fd == st->sigfd) {
		on_signals(st);
	}
}

/* Until the main process is reaped. */
static void
supervise(struct sv_state *st)
{
	while (!st->main_reaped) {
		struct epoll_event evs[8];
		int n = epoll_wait(st->epfd, evs, ELEMENTSOF(evs), -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot supervise any more: end the sandbox rather than leave it. */
			log_error_errno(-errno, "epoll_wait: %m; killing the sandbox");
			signal_sandbox(st, SIGKILL);
			break;
		}
		for (int i = 0; i < n && !st->main_reaped; i++)
			on_event(st, evs[i].data.fd, evs[i].events);
	}
}

static void
state_close(struct sv_state *st)
{
	st->sigfd = safe_close(st->sigfd);
	st->epfd = safe_close(st->epfd);
	st->tfd = safe_close(st->tfd);
	st->gfd = safe_close(st->gfd);
	st->cfd = safe_close(st->cfd);
	st->pidfd = safe_close(st->pidfd);
	st->msg_fd = safe_close(st->msg_fd);
	if (st->ugate_on) {
		ugate_close(&sv_ugate);
		st->ugate_on = false;
	}
}

/* ---- cgroup mode: the child the helper makes (SPAWN) ---- */

/* --keep-fds: the numbers of our fds >= 3 that an exec would pass on (not close-on-exec),
 * which the helper's process cannot inherit from us: they travel with the stage. */
static int
kept_fds(struct stage_spec *ss)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int r = 0;

	if (d == NULL)
		return log_error_errno(-errno, "--keep-fds: cannot list /proc/self/fd: %m");
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		int fl;

		if (end == de->d_name || *end != '\0' || fd < 3 || fd == dirfd(d))
			continue;
		fl = fcntl((int) fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC) != 0)
			continue;
		if (ss->n_keep == STAGE_KEEP_MAX) {
			r = log_error_errno(-EMFILE, "--keep-fds: more than %d open descriptors to "
					    "pass on in cgroup mode; close some, or use --no-cgroup",
					    STAGE_KEEP_MAX);
			break;
		}
		ss->keep[ss->n_keep++] = (uint32_t) fd;
	}
	(void) closedir(d);
	return r;
}

/* What the helper's process needs from us, in ss and rulesets (closed by the caller). */
static int
spawn_prepare(const struct sv_state *st, char **envp, struct stage_spec *ss, int rulesets[2],
	      size_t *n_rulesets)
{
	const struct sv_spec *spec = st->spec;
	char err[256] = "";
	int r;

	struct rlimit stack;

	/* What the helper's secure exec took from what it passes on (the kernel's
	 * begin_new_exec()): the soft stack limit, capped at 8 MiB, and the personality flags
	 * of PER_CLEAR_ON_SETID.  Ours go back first; an asked --stack comes after. */
	if (getrlimit(RLIMIT_STACK, &stack) < 0)
		return log_error_errno(-errno, "getrlimit: %m");
	*ss = (struct stage_spec) { .parent = sv_self, .argv = spec->argv,
				    .personality = (uint32_t) personality(0xffffffff),
				    .envp = envp, .chdir = spec->chdir, .n_rl = spec->n_rl + 1 };
	ss->rl[0] = (struct stage_rlimit) { .resource = RLIMIT_STACK, .soft = stack.rlim_cur,
					    .hard = stack.rlim_max,
					    .option = "the stack limit sandcap runs with" };
	if (spec->chdir != NULL)
		ss->flags |= STAGE_F_CHDIR;
	if (spec->keep_fds)
		ss->flags |= STAGE_F_KEEP_FDS;
	if (st->tty_fg)
		ss->flags |= STAGE_F_TTY;
	if (spec->n_rl + 1 > STAGE_RLIMITS_MAX)
		return log_error_errno(-E2BIG, "too many limits");
	memcpy(ss->rl + 1, spec->rl, spec->n_rl * sizeof(spec->rl[0]));
	if (spec->keep_fds) {
		r = kept_fds(ss);
		if (r < 0)
			return r;
	}
	if (spec->iso != NULL) {
		r = isolate_rulesets(spec->iso, spec->plan, rulesets, n_rulesets, err, sizeof(err));
		if (r >= 0)
			r = isolate_seccomp_program(spec->iso, spec->plan, &ss->prog, &ss->prog_len,
						    err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "sandcap: isolation: %s\n",
				strneq(err, "sandcap: ", 9) ? err + 9 : err);
			return r;
		}
		ss->n_rulesets = *n_rulesets;
	}
	return 0;
}

/* The stage's fds after the blob (lib/stage.h): msg, cwd, stdin, stdout, stderr, [tty],
 * rulesets, kept.  A closed fd 0-2 of ours is flagged, its slot filled with msg_w. */
static size_t
spawn_fds(const struct sv_state *st, struct stage_spec *ss, int msg_w, int cwd,
	  const int *rulesets, int *fds)
{
	const struct sv_spec *spec = st->spec;
	size_t n = 0;

	fds[n++] = msg_w;
	fds[n++] = cwd;
	for (int i = 0; i < 3; i++) {
		int fd = spec->relay != NULL && i > 0 ? spec->relay->child_fd[i - 1] : i;

		/* Closed when sandcap started (sv_note_stdio(): /dev/null holds the number
		 * since, so every fd here is open): closed for the command too, relayed or
		 * not. */
		if ((sv_stdio_closed & (1u << i)) != 0) {
			ss->flags |= STAGE_F_CLOSED(i);
			fd = msg_w;
		}
		fds[n++] = fd;
	}
	if (st->tty_fg)
		fds[n++] = st->tty_fd;
	for (size_t i = 0; i < ss->n_rulesets; i++)
		fds[n++] = rulesets[i];
	for (size_t i = 0; i < ss->n_keep; i++)
		fds[n++] = (int) ss->keep[i];
	return n;
}

/* cgroup mode: the helper creates the child in the leaf (SPAWN), as our child and without
 * capabilities, and we send it its stage (lib/stage.h): everything is prepared first, so
 * that nothing but the send follows the spawn.  The command never runs outside the leaf:
 * the process was made in it, and no number is ever written to cgroup.procs. */
static int
start_spawned(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	_cleanup_close_ int msg_w = -EBADF, cwd = -EBADF, ours = -EBADF, theirs = -EBADF;
	_cleanup_free_ char **envp = NULL;
	_cleanup_free_ void *blob = NULL;
	int rulesets[STAGE_RULESETS_MAX] = { -EBADF, -EBADF }, fds[STAGE_FDS_MAX], pair[2];
	size_t n_rulesets = 0, len = 0, n;
	struct stage_spec ss = { .flags = 0 };
	pid_t pid = 0;
	int r;

	r = env_for_exec(spec->envp != NULL ? spec->envp : environ,
			 spec->chdir != NULL && spec->chdir[0] == '/' ? spec->chdir : NULL,
			 spec->tmpdir, &envp);
	if (r < 0)
		return log_error_errno(r, "cannot build the command's environment: %m");
	r = spawn_prepare(st, envp != NULL ? envp : spec->envp != NULL ? spec->envp : environ,
			  &ss, rulesets, &n_rulesets);
	if (r < 0)
		goto out;
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0 || pipe2(pair, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = log_error_errno(-errno, "cannot prepare the sandbox's process: %m");
		goto out;
	}
	st->msg_fd = pair[0];
	msg_w = pair[1];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		r = log_error_errno(-errno, "socketpair: %m");
		goto out;
	}
	ours = pair[0];
	theirs = pair[1];
	if (spec->plan != NULL && spec->plan->unix_notify && ss.prog_len > 0)
		ss.flags |= STAGE_F_NOTIFY;
	n = spawn_fds(st, &ss, msg_w, cwd, rulesets, fds);
	r = stage_pack(&ss, &blob, &len);
	if (r < 0) {
		r = log_error_errno(r, "cannot encode the sandbox's start: %m");
		goto out;
	}

	r = spec->spawn(theirs, &pid, spec->userdata);
	if (r < 0)
		goto out;
	st->pid = pid;
	st->start_ms = mono_ms();
	/* Its own process group from now on, as it makes itself: a signal to the group
	 * before it got there would be lost. */
	(void) setpgid(pid, pid);
	theirs = safe_close(theirs);
	r = stage_send(ours, blob, len, fds, n);
	if (r < 0) {
		r = abort_child(pid, log_error_errno(r, "cannot start the sandbox's process: %m"));
		goto out;
	}
	/* The stage socket brings the filter's listener back (STAGE_F_NOTIFY). */
	if ((ss.flags & STAGE_F_NOTIFY) != 0) {
		st->ugate_on = true;
		r = ugate_start(&sv_ugate, TAKE_FD(ours), sv_self, spec->exclude_pid);
		sv_ugate.scope_abstract = spec->plan != NULL && spec->plan->landlock_scope;
		if (r < 0) {
			r = abort_child(pid, log_error_errno(r, "cannot answer the sandbox's "
							     "connect(): %m; pass --unix host"));
			goto out;
		}
	}
	if (spec->relay != NULL)
		output_relay_parent(spec->relay);
	r = watch_child(st);
out:
	for (size_t i = 0; i < n_rulesets; i++)
		(void) close(rulesets[i]);
	return r;
}

int
sv_run(const struct sv_spec *spec, struct sv_outcome *ret)
{
	struct sv_outcome out = {};
	struct sv_state st = { .spec = spec, .out = &out, .tty_fd = -EBADF, .pidfd = -EBADF,
			       .sigfd = -EBADF, .msg_fd = -EBADF, .epfd = -EBADF,
			       .tfd = -EBADF, .gfd = -EBADF, .cfd = -EBADF, .extra_fd = -1 };
	int r;

	sv_self = getpid();
	sv_exclude_pid = spec->exclude_pid;
	r = setup_supervision();
	if (r >= 0) {
		/* Our controlling terminal on stdin: job control is followed (job_stopped()).
		 * It goes to the sandbox at once only if we are its foreground job, its
		 * settings kept: a command killed in raw or no-echo mode (a timeout, sandcap
		 * kill) cannot restore them itself.  A job started in the background gets it
		 * at its fg (real-workload review: it stayed stopped on SIGTTIN for ever). */
		pid_t fg = isatty(STDIN_FILENO) ? tcgetpgrp(STDIN_FILENO) : -1;
		pid_t home = spec->home_pgrp > 0 ? spec->home_pgrp : getpgrp();

		/* In the background only as the leader of our job (the keeper, or sandcap in
		 * cgroup mode): the shell continues a job through its leader; under another
		 * leader (sh -c 'sandcap ...' &) nothing would continue a stopped sandcap
		 * (review), so there the terminal stays out of it, as before. */
		if (fg > 0 && (fg == home ||
			       home == (spec->keeper_pid > 0 ? spec->keeper_pid : getpid()))) {
			st.tty_fd = STDIN_FILENO;
			st.tty_fg = fg == home;
			if (st.tty_fg)
				st.have_tios = tcgetattr(st.tty_fd, &st.tios) == 0;
		}
		r = spec->spawn != NULL ? start_spawned(&st) : start_cloned(&st);
	}
	if (r >= 0) {
		supervise(&st);
		end_sandbox(&st);
		if (st.ugate_on) {
			out.unix_refused = sv_ugate.n_refused;
			out.unix_undumpable = sv_ugate.n_undumpable;
			memcpy(out.unix_refused_first, sv_ugate.first_refused,
			       sizeof(out.unix_refused_first));
		}
		*ret = out;
	}
	state_close(&st);
	return r < 0 ? r : 0;
}

int
sv_note_stdio(void)
{
	for (int i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) < 0) {
			sv_stdio_closed |= 1u << i;
			/* The lowest free number, so i itself (0 to i-1 are open by now). */
			int fd = open("/dev/null", O_RDWR);

			if (fd != i)
				return fd < 0 ? -errno : -EBADF;
		}
	return 0;
}

bool
sv_stdio_was_closed(int fd)
{
	return fd >= 0 && fd < 3 && (sv_stdio_closed & (1u << fd)) != 0;
}
