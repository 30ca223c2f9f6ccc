/* SPDX-License-Identifier: MIT */
/* `sandcap session start`: what a session refuses, its directory and its keeper. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/client.h"
#include "cgroup/usercg.h"
#include "macro.h"
#include "run/session-io.h"
#include "run/session-cgroup.h"
#include "run/session-level.h"
#include "run/session-usercg.h"
#include "run/session.h"

/* Did teardown begin (it unlinks "state" first)?  Reads the pending inotify events. */
static bool
state_removed(int in)
{
	_Alignas(struct inotify_event) char buf[4096];
	ssize_t n = read(in, buf, sizeof(buf));

	if (n <= 0)
		return true; /* the watch is gone: so is the directory */
	for (char *p = buf; p < buf + n;) {
		const struct inotify_event *ev = (const struct inotify_event *) p;

		if ((ev->mask & (IN_IGNORED | IN_DELETE_SELF)) != 0 ||
		    (ev->len > 0 && streq(ev->name, "state")))
			return true;
		p += sizeof(*ev) + ev->len;
	}
	return false;
}

/* A timer on CLOCK_BOOTTIME at the TTL, absolute: it fires on time after a suspend too,
 * where a poll() timeout (CLOCK_MONOTONIC) would be late by the time suspended. */
static int
ttl_timer(const struct session_state *s)
{
	struct itimerspec at = {
		.it_value = { .tv_sec = (time_t) (s->expires_ms / 1000),
			      .tv_nsec = (long) (s->expires_ms % 1000) * 1000000 },
	};
	int fd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC);

	if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME, &at, NULL) < 0)
		return -1;
	return fd;
}

/* The keeper's life: wait for the TTL or for the session to end, whichever comes first.
 * An open fd delays IN_DELETE_SELF on a directory until its last close, so the keeper
 * watches for the state file's removal, teardown's first step. */
/* Tell session start that the keeper could not begin (pid 0, then the reason); exit. */
static _noreturn_ void
keeper_refuse(int ready, const char *err)
{
	pid_t none = 0;

	if (write(ready, &none, sizeof(none)) == (ssize_t) sizeof(none) &&
	    write(ready, err, strlen(err)) < 0)
		_exit(1);
	_exit(1);
}

/* In cgroup mode the level, ours for as long as this connection lives, and the session
 * named after it (session-level.h); then tell session start the keeper's pid and the
 * session's id (in one write: it reads the id right after the pid).  Returns the level's
 * cgroup.events (-1 in the other modes). */
static int
keeper_ready(int rootfd, int dfd, struct session_state *s, const struct session_opts *o,
	     struct sc_session *cs, int ready)
{
	struct {
		pid_t pid;
		char id[SESSION_ID_LEN];
	} hello = { .pid = getpid() };
	char err[CLIENT_ERR_MAX];
	int events = -1;

	if (sesscg_is(s) && sesscg_keeper_begin(dfd, o, s, cs, err, sizeof(err)) < 0)
		keeper_refuse(ready, err);
	if (sesscg_is(s) && sesscg_adopt_id(rootfd, dfd, s, cs->id, err, sizeof(err)) < 0) {
		client_close(cs);
		keeper_refuse(ready, err);
	}
	if (sesscg_is(s))
		events = openat(cs->leaf_fd, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	memcpy(hello.id, s->id, sizeof(hello.id));
	if (write(ready, &hello, sizeof(hello)) != (ssize_t) sizeof(hello))
		_exit(1);
	close(ready);
	return events;
}

static _noreturn_ void
keeper_main(int rootfd, int dfd, const struct session_state *s0, const struct session_opts *o,
	    int ready)
{
	static struct session_state own; /* large for the stack; the id may change */
	const struct session_state *s = &own;
	char path[64], err[CLIENT_ERR_MAX];
	pid_t self = getpid();
	int lock, in, timer, events, tick = -1;
	struct sc_session cs;

	own = *s0;
	client_init(&cs); /* no connection but in cgroup mode */
	(void) prctl(PR_SET_NAME, "sandcap-sess");
	if (session_lock(dfd, "keeper", LOCK_EX, 0, &lock) < 0)
		_exit(1);
	in = inotify_init1(IN_CLOEXEC);
	timer = ttl_timer(s);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", dfd);
	if (in < 0 || timer < 0 ||
	    inotify_add_watch(in, path, IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_ONLYDIR) <
		    0)
		_exit(1);
	if (faccessat(dfd, "state", F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		_exit(0); /* ended before the watch was in place */
	events = keeper_ready(rootfd, dfd, &own, o, &cs, ready);
	while (session_now_ms() < s->expires_ms) {
		struct pollfd p[4] = { { .fd = in, .events = POLLIN },
				       { .fd = timer, .events = POLLIN },
				       { .fd = events, .events = POLLPRI },
				       { .fd = sesscg_is(s) ? cs.sock : -1, .events = POLLIN } };

		if (poll(p, 4, tick) > 0 && (p[0].revents & POLLIN) && state_removed(in))
			break;
		/* The helper gone (or talking out of turn): the level is gone with it. */
		if (p[3].revents != 0)
			break;
		if (sesscg_is(s))
			tick = sesscg_keeper_tick(dfd, s, &cs, events);
	}
	if (faccessat(dfd, "state", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		session_repair(dfd);
		if (session_teardown(rootfd, dfd, s,
				     session_now_ms() >= s->expires_ms ? "ttl" : "helper", NULL,
				     true, false, err, sizeof(err)) < 0)
			self = 0;
	}
	/* Everything of the level goes (the helper's DESTROY) before the keeper's lock. */
	if (sesscg_is(s) && client_destroy(&cs, err, sizeof(err)) < 0)
		self = 0;
	_exit(self == 0 ? 1 : 0);
}

/* Only what the keeper needs, at fixed numbers: no fd of the caller's (a pipe a shell waits
 * on, a terminal) stays open in it. */
static void
keeper_fds(int *rootfd, int *dfd, int *ready)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	int a = fcntl(*rootfd, F_DUPFD, 100), b = fcntl(*dfd, F_DUPFD, 100);
	int c = fcntl(*ready, F_DUPFD, 100);

	if (nul < 0 || a < 0 || b < 0 || c < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
	    dup2(nul, 2) < 0 || dup2(a, 3) < 0 || dup2(b, 4) < 0 || dup2(c, 5) < 0)
		_exit(1);
	if (close_range(6, ~0U, 0) < 0)
		_exit(1);
	*rootfd = 3, *dfd = 4, *ready = 5;
}

static void
keeper_signals(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		(void) signal(sig, SIG_DFL);
	(void) signal(SIGHUP, SIG_IGN);
	(void) signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Fork twice, the keeper in a session of its own; wait (bounded) until it holds its lock. */
static int
start_keeper(int rootfd, int dfd, struct session_state *s, const struct session_opts *o,
	     pid_t *ret_pid, char *err, size_t errlen)
{
	int p[2], st;
	pid_t pid;
	struct pollfd pf;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(p[0]);
		keeper_fds(&rootfd, &dfd, &p[1]);
		keeper_signals();
		if (setsid() < 0 || chdir("/") < 0)
			_exit(1);
		pid = fork();
		if (pid != 0)
			_exit(pid < 0 ? 1 : 0);
		keeper_main(rootfd, dfd, s, o, p[1]);
	}
	close(p[1]);
	(void) waitpid(pid, &st, 0);
	pf = (struct pollfd){ .fd = p[0], .events = POLLIN };
	/* In cgroup mode the keeper's helper may first wait for this user's other helpers. */
	st = poll(&pf, 1,
		  sesscg_is(s) ? CLIENT_SETUP_DEADLINE_MS + CLIENT_LOCKED_DEADLINE_MS
			       : SESSION_KEEPER_WAIT_MS) == 1 &&
			     read(p[0], ret_pid, sizeof(*ret_pid)) == (ssize_t) sizeof(*ret_pid)
		     ? 0
		     : -ECHILD;
	if (st == 0 && *ret_pid == 0) {
		ssize_t n = read(p[0], err, errlen - 1);

		err[n > 0 ? n : 0] = '\0';
		st = -EPERM;
	} else if (st == 0 && read(p[0], s->id, SESSION_ID_LEN) != SESSION_ID_LEN) {
		st = -ECHILD; /* the keeper's id (in cgroup mode, the level's) */
	}
	close(p[0]);
	return st;
}

/* What rlimit mode cannot enforce for a whole session, refused with the fix. */
static int
refuse_unenforceable(const struct session_opts *o, char *err, size_t errlen)
{
	const char *opt = o->memory        ? "--memory"
			  : o->pids        ? "--pids"
			  : o->cpu_percent ? "--cpu"
			  : o->disk        ? "--disk"
					   : NULL;

	if (opt == NULL)
		return 0;
	snprintf(err, errlen,
		 "%s: a session's %s across its calls needs cgroup mode (%s), and this "
		 "session runs in rlimit mode (no helper and no usable user manager, or "
		 "--no-cgroup); drop %s (bound each call with --as, --nproc or --fsize instead; "
		 "see docs/usage.md \"Sessions\")",
		 opt, opt + 2,
		 streq(opt, "--disk") ? "the helper" : "the helper, or your own systemd", opt);
	return -ENOTSUP;
}

/* The mode sandcap run would pick here: cgroup (the helper), user-cgroup (the user's own
 * systemd) or rlimit. */
static const char *
pick_mode(const struct session_opts *o)
{
	struct sc_session cs;
	char info[256];
	int r;

	if (o->no_cgroup)
		return "rlimit";
	client_init(&cs);
	r = client_open(&cs, info, sizeof(info));
	client_close(&cs);
	if (r == 0)
		return "cgroup";
	if (cgroup2_mounted() && usercg_probe(info, sizeof(info)) == 0)
		return SESSION_UCG_MODE;
	return "rlimit";
}

/* What the session's mode cannot do, refused; *mode may become rlimit (a policy that gives
 * the user no cgroup limits, as sandcap run). */
static int
check_mode(const struct session_opts *o, const char **mode, char *err, size_t errlen)
{
	int r;

	*mode = pick_mode(o);
	if (streq(*mode, "cgroup"))
		return 0; /* the helper applies the limits, or refuses them with its reason */
	if (streq(*mode, SESSION_UCG_MODE)) {
		r = session_usercg_check(o, err, errlen);
		if (r <= 0)
			return r;
		*mode = "rlimit";
	}
	return refuse_unenforceable(o, err, errlen);
}

static int
new_session_dir(int rootfd, const char *mode, struct session_state *s, int *ret_dfd)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t rnd[SESSION_ID_LEN / 2];
	int dfd;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd))
		return -errno;
	for (size_t i = 0; i < sizeof(rnd); i++) {
		s->id[2 * i] = hex[rnd[i] >> 4];
		s->id[2 * i + 1] = hex[rnd[i] & 15];
	}
	s->id[SESSION_ID_LEN] = '\0';
	/* The first digit says the mode (session_id_mode()); a cgroup-mode session is named
	 * after its level once the keeper has it. */
	if (streq(mode, "cgroup"))
		s->id[0] = SESSION_ID_CGROUP;
	else if (streq(mode, SESSION_UCG_MODE))
		s->id[0] = SESSION_ID_USERCG;
	else if (s->id[0] == SESSION_ID_CGROUP || s->id[0] == SESSION_ID_USERCG)
		s->id[0] = s->id[0] == SESSION_ID_CGROUP ? 'a' : 'b';
	if (mkdirat(rootfd, s->id, 0700) < 0)
		return -errno;
	dfd = session_private_dir(rootfd, s->id, false);
	if (dfd < 0)
		return dfd;
	if (mkdirat(dfd, "workspace", 0700) < 0) {
		close(dfd);
		return -errno;
	}
	*ret_dfd = dfd;
	return 0;
}

static void
fill_state(const struct session_opts *o, const char *mode, struct session_state *s)
{
	snprintf(s->name, sizeof(s->name), "%s", o->name != NULL ? o->name : "");
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	snprintf(s->fs, sizeof(s->fs), "%s", o->fs != NULL ? o->fs : "");
	snprintf(s->net, sizeof(s->net), "%s", o->net != NULL ? o->net : "");
	snprintf(s->report, sizeof(s->report), "%s", o->report != NULL ? o->report : "");
	s->created_s = (uint64_t) time(NULL);
	s->ttl_ms = o->ttl_ms;
	s->expires_ms = session_now_ms() + o->ttl_ms;
	s->cpu_budget_ms = o->cpu_budget_ms;
	s->timeout_ms = o->timeout_ms;
	s->as = o->as;
	for (unsigned i = 0; i < o->n_rw; i++)
		snprintf(s->rw[s->n_rw++], sizeof(s->rw[0]), "%s", o->rw[i]);
}

int
session_start(const struct session_opts *o, struct session_state *ret, char *err, size_t errlen)
{
	_cleanup_close_ int rootfd = -EBADF, dfd = -EBADF, rl = -EBADF;
	struct session_state s = {};
	char text[SESSION_STATE_MAX], kerr[CLIENT_ERR_MAX] = "";
	const char *mode = "rlimit";
	int r, n;

	r = check_mode(o, &mode, err, errlen);
	if (r == 0)
		r = session_root(true, &rootfd, err, errlen);
	if (r == 0)
		r = session_check_ctl(NULL, err, errlen);
	if (r < 0)
		return r;
	/* Shared on the root until the state is written: session ls removes a directory
	 * without one only under this lock, exclusive, so never one still being made. */
	rl = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = rl < 0 ? -errno : session_flock(rl, LOCK_SH, SESSION_END_LOCK_MS);
	if (r == 0)
		r = new_session_dir(rootfd, mode, &s, &dfd);
	if (r < 0) {
		snprintf(err, errlen, "cannot make the session's directory: %s", strerror(-r));
		return r;
	}
	fill_state(o, mode, &s);
	n = session_state_format(&s, text, sizeof(text));
	r = n < 0 ? n : session_write_file(dfd, "state", text, (size_t) n);
	if (r == 0)
		r = session_write_file(dfd, "calls", "", 0);
	rl = safe_close(rl);
	if (r == 0)
		r = start_keeper(rootfd, dfd, &s, o, &s.keeper_pid, kerr, sizeof(kerr));
	if (r < 0) {
		snprintf(err, errlen, "cannot start the session: %s",
			 r == -EPERM    ? kerr
			 : r == -ECHILD ? "its keeper did not start"
					: strerror(-r));
	} else if (session_is_usercg(&s)) {
		r = session_usercg_start(o, dfd, &s, s.keeper_pid, text, sizeof(text));
		if (r < 0)
			snprintf(err, errlen, "cannot start the session in user-cgroup mode: %s",
				 text);
	}
	if (r < 0) {
		/* The keeper sees the state go and exits; with it, a cgroup-mode level or a
		 * user-cgroup scope goes too. */
		(void) session_remove(rootfd, dfd, s.id);
		return r;
	}
	*ret = s;
	return 0;
}
