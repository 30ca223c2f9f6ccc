/* SPDX-License-Identifier: MIT */
/* The sandboxed process's last steps before the command's exec: see stage.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#include "sigreset.h"
#include "stage.h"

void
stage_fail(int fd, int stage, int err, const char *fmt, ...)
{
	struct stage_msg m = { .stage = stage, .err = err };
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(m.msg, sizeof(m.msg), fmt, ap);
	va_end(ap);
	if (fd >= 0)
		(void) !write(fd, &m, sizeof(m));
	if (stage == STAGE_EXEC)
		_exit(err == ENOENT ? STAGE_EXIT_NOTFOUND : STAGE_EXIT_NOEXEC);
	_exit(STAGE_EXIT_FAILURE);
}

/* Does a file named name exist in a directory of $PATH?  Only after a failed exec: never
 * inlined, so that its buffer is not in the child's frame on every run (perf). */
static _noinline_ bool
on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (path == NULL)
		path = "/bin:/usr/bin"; /* execvp's default */
	while (*path != '\0') {
		size_t len = strcspn(path, ":");
		struct stat st;

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int) len, len > 0 ? path : ".", name) <
			    (int) sizeof(buf) &&
		    stat(buf, &st) == 0)
			return true;
		path += len;
		if (*path == ':')
			path++;
	}
	return false;
}

/* The handler of the terminal's stop signals until the exec (stage_tail()). */
static void
drop_stop(int sig)
{
	(void) sig;
}

void
stage_tail(const struct stage_tail *t)
{
	extern char **environ;
	int msg_fd = t->msg_fd;
	sigset_t none;
	char err[200] = "";
	int r;

	/* Default dispositions for the command: ignored signals would survive exec, and our
	 * handlers are ours until then.  Only those the kernel reports as ignored or caught
	 * (lib/sigreset.c); every signal is blocked until cleared below. */
	(void) sig_reset_these(t->sig_todo, t->sig_ign);

	/* Always, and only here: sandcap itself must keep the ability to exec the helper with
	 * its file capabilities. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		stage_fail(msg_fd, STAGE_SETUP, errno, "cannot set no_new_privs: %s",
			   strerror(errno));
	if (t->chdir != NULL && chdir(t->chdir) < 0)
		stage_fail(msg_fd, STAGE_SETUP, errno, "--chdir: cannot enter '%s': %s", t->chdir,
			   strerror(errno));
	if (t->isolate != NULL) {
		r = t->isolate(t->isolate_ud, err, sizeof(err));
		if (r < 0)
			stage_fail(msg_fd, STAGE_SETUP, -r, "isolation: %s",
				   strneq(err, "sandcap: ", 9) ? err + 9 : err);
	}

	/* PWD (else it names where sandcap was started) and TMPDIR set by the caller. */
	environ = t->envp;

	/* A ^Z, or a terminal stop of a background job, would stop us before the exec, where
	 * our supervisor waits for the exec and cannot see the stop to stop the job too: the
	 * terminal would hang.  Until the exec those three go to a handler that does nothing
	 * (one pending since the set-up included: the command gets the next one); the exec
	 * makes them default again, as it does every caught signal. */
	for (const int *sig = (const int[]){ SIGTSTP, SIGTTIN, SIGTTOU, 0 }; *sig != 0; sig++)
		(void) sigaction(*sig,
				 &(const struct sigaction){ .sa_handler = drop_stop,
							    .sa_flags = SA_RESTART },
				 NULL);
	/* A clean signal state for the command: nothing blocked (dispositions were reset
	 * above, those the parent found not default: sig_nondefault(), or the helper's). */
	sigemptyset(&none);
	(void) sigprocmask(SIG_SETMASK, &none, NULL);

	/* Only stdin, stdout and stderr reach the command unless --keep-fds: an inherited
	 * socket or directory fd would bypass --net none and --fs.  Close-on-exec rather than
	 * close, so msg_fd still reports an exec failure. */
	if (!t->keep_fds && close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		for (int fd = 3; fd < 65536; fd++)
			(void) fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* The rlimits last: nothing of sandcap's own set-up (the seccomp filter, the
	 * environment) runs under --as, --nofile or --nproc. */
	for (size_t i = 0; i < t->n_rl; i++) {
		struct rlimit rl = { .rlim_cur = t->rl[i].soft, .rlim_max = t->rl[i].hard };

		if (setrlimit(t->rl[i].resource, &rl) < 0)
			stage_fail(msg_fd, STAGE_SETUP, errno,
				   "%s: cannot set the limit to %llu: %s%s", t->rl[i].option,
				   (unsigned long long) t->rl[i].hard, strerror(errno),
				   errno == EPERM ? " (over your hard limit; see ulimit -H)" : "");
	}
	execvp(t->argv[0], t->argv);
	r = errno;
	/* execvp() reports EACCES when a PATH directory cannot be searched even if no
	 * directory holds the command; like the shells, call that "not found" (127) unless a
	 * file of that name exists somewhere on PATH. */
	if (r == EACCES && strchr(t->argv[0], '/') == NULL && !on_path(t->argv[0]))
		r = ENOENT;
	stage_fail(msg_fd, STAGE_EXEC, r, "cannot execute '%s': %s", t->argv[0], strerror(r));
}

/* ---- cgroup mode: sandcap's side ---- */

int
stage_send(int sock, const void *blob, size_t len, const int *fds, size_t n_fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * STAGE_FDS_MAX)];
	} c;
	uint32_t n = (uint32_t) (n_fds + 1);
	bool inline_blob = len <= STAGE_INLINE_MAX;
	struct iovec iov[2] = { { .iov_base = &n, .iov_len = sizeof(n) },
				{ .iov_base = (void *) blob, .iov_len = len } };
	struct msghdr mh = { .msg_iov = iov,
			     .msg_iovlen = inline_blob ? 2 : 1,
			     .msg_control = c.buf,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * (n_fds + !inline_blob)) };
	_cleanup_close_ int memfd = -EBADF;
	struct cmsghdr *cm;
	const char *p = blob;
	size_t left = len;

	if (n_fds + 1 > STAGE_FDS_MAX || len == 0)
		return -E2BIG;
	memset(c.buf, 0, sizeof(c.buf));
	cm = CMSG_FIRSTHDR(&mh);
	if (cm == NULL)
		return -EINVAL;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (n_fds + !inline_blob));
	if (inline_blob) { /* the usual case: one datagram, no memfd */
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
		return sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
	}
	memfd = memfd_create("sandcap-stage", MFD_CLOEXEC);
	if (memfd < 0)
		return -errno;
	while (left > 0) {
		ssize_t w = write(memfd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		left -= (size_t) w;
	}
	memcpy(CMSG_DATA(cm), &memfd, sizeof(int));
	memcpy(CMSG_DATA(cm) + sizeof(int), fds, sizeof(int) * n_fds);
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/* ---- cgroup mode: the helper's process, without capabilities ---- */

/* The fds of one stage message, in its order (stage.h). */
struct stage_fds {
	int v[STAGE_FDS_MAX];
	size_t n;
};

/* One message of at most STAGE_FDS_MAX fds, all close-on-exec, and the blob when it came
 * inline (into inl, *ret_len bytes; then f->v[0] is -1), else 0 in *ret_len. */
static int
recv_fds(int sock, struct stage_fds *f, char *inl, size_t *ret_len)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * STAGE_FDS_MAX)];
	} c;
	uint32_t n = 0;
	struct iovec iov[2] = { { .iov_base = &n, .iov_len = sizeof(n) },
				{ .iov_base = inl, .iov_len = STAGE_INLINE_MAX } };
	struct msghdr mh = { .msg_iov = iov,
			     .msg_iovlen = 2,
			     .msg_control = c.buf,
			     .msg_controllen = sizeof(c.buf) };
	ssize_t got;

	f->n = 0;
	do
		got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got < (ssize_t) sizeof(n))
		return -EBADMSG;
	*ret_len = (size_t) got - sizeof(n);
	if (*ret_len > 0)
		f->v[f->n++] = -1; /* the blob's slot: it came inline */
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > STAGE_FDS_MAX - f->n)
			k = STAGE_FDS_MAX - f->n;
		memcpy(f->v + f->n, CMSG_DATA(cm), k * sizeof(int));
		f->n += k;
	}
	if ((mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0 || n != f->n || f->n < STAGE_FIXED_FDS)
		return -EBADMSG;
	return 0;
}

/* A large blob, from fd (a memfd): read, not mapped, so that what is checked is what is
 * used (a mapping would show the sender's later writes, and fault on its truncation).
 * Page-aligned, as stage_unpack() reads the filter program where it lies.  NULL on any
 * failure. */
static void *
read_blob(int fd, size_t *ret_len)
{
	struct stat st;
	size_t len, got = 0;
	char *p;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t) st.st_size > 64u << 20)
		return NULL;
	len = (size_t) st.st_size;
	p = aligned_alloc(4096, (len + 4095) & ~(size_t) 4095);
	while (p != NULL && got < len) {
		ssize_t r = pread(fd, p + got, len - got, (off_t) got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL; /* the process ends at once: nothing to free */
		got += (size_t) r;
	}
	*ret_len = len;
	return p;
}

/* Every fd of f to a number above every target (0-2 and the kept ones), close-on-exec, so
 * that placing one cannot overwrite another.  0 or -errno. */
static int
lift_fds(struct stage_fds *f, const struct stage_spec *s)
{
	int hi = 3;

	for (size_t i = 0; i < s->n_keep; i++)
		if ((int) s->keep[i] >= hi)
			hi = (int) s->keep[i] + 1;
	for (size_t i = 0; i < f->n; i++) {
		int fd;

		if (f->v[i] < 0 || f->v[i] >= hi) /* an inline blob's slot, or high */
			continue;
		fd = fcntl(f->v[i], F_DUPFD_CLOEXEC, hi);
		if (fd < 0)
			return -errno;
		(void) close(f->v[i]);
		f->v[i] = fd;
	}
	return 0;
}

int
stage_load_notify_filter(const struct sock_fprog *fp, int notify_sock, char *err, size_t errlen)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char one = 1;
	struct iovec iov = { .iov_base = &one, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = c.buf,
			     .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *cm;
	int fd, r = 0;

	fd = (int) syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			   fp);
	if (fd < 0) {
		r = -errno;
		/* EBUSY: a filter of an enclosing sandbox already has a listener (one per
		 * process tree); that sandbox answers connect() already. */
		(void) snprintf(
			err, errlen, "seccomp: cannot load the filter with a listener: %s%s",
			strerror(-r),
			r == -EBUSY
				? " (sandcap runs inside another sandbox "
				  "that watches connect(); pass --unix host to leave it to that one)"
				: "");
		(void) close(notify_sock);
		return r;
	}
	memset(c.buf, 0, sizeof(c.buf));
	cm = CMSG_FIRSTHDR(&mh);
	if (cm != NULL) {
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	/* Without the listener every connect() of the command would fail (ENOSYS): refuse
	 * to start rather than run a sandbox nobody answers. */
	if (cm == NULL || sendmsg(notify_sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
		errno = cm == NULL ? EINVAL : errno;
		r = -errno;
		(void) snprintf(err, errlen, "seccomp: cannot hand the listener to sandcap: %s",
				strerror(-r));
	}
	(void) close(fd);
	(void) close(notify_sock);
	return r;
}

struct spawned_iso {
	const int *rulesets;
	size_t n_rulesets;
	const struct sock_filter *prog;
	size_t prog_len;
	int notify_sock; /* STAGE_F_NOTIFY: the stage socket, else -1 */
};

/* Landlock (each ruleset sandcap built, in its order) and the seccomp filter, as
 * frontend/isolate/isolate.c's isolate_apply() does with the same objects. */
static int
spawned_isolate(const void *ud, char *err, size_t errlen)
{
	const struct spawned_iso *iso = ud;

	for (size_t i = 0; i < iso->n_rulesets; i++)
		if (syscall(SYS_landlock_restrict_self, iso->rulesets[i], 0) < 0) {
			int r = -errno;

			(void) snprintf(err, errlen, "Landlock: cannot restrict the sandbox: %s",
					strerror(-r));
			return r;
		}
	if (iso->prog_len > 0) {
		struct sock_fprog fp = { .len = (unsigned short) iso->prog_len,
					 .filter = (struct sock_filter *) iso->prog };

		if (iso->notify_sock >= 0)
			return stage_load_notify_filter(&fp, iso->notify_sock, err, errlen);
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0) {
			int r = -errno;

			(void) snprintf(err, errlen, "seccomp: cannot load the filter: %s",
					strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The process set up as sandcap's own child is before stage_tail() (supervise.c's
 * child_run()): its own process group and the terminal, PDEATHSIG, stdio and the kept fds
 * in place, the working directory. */
static void
spawned_setup(const struct stage_spec *s, struct stage_fds *f, int msg_fd)
{
	size_t k = STAGE_FIXED_FDS + ((s->flags & STAGE_F_TTY) != 0);
	int r;

	(void) setpgid(0, 0);
	if ((s->flags & STAGE_F_TTY) != 0)
		(void) tcsetpgrp(f->v[STAGE_FIXED_FDS], getpid());
	if (s->personality != 0 && personality(s->personality) < 0)
		stage_fail(msg_fd, STAGE_SETUP, errno, "cannot set the personality %#x: %s",
			   s->personality, strerror(errno));
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != s->parent)
		_exit(STAGE_EXIT_FAILURE);
	r = lift_fds(f, s);
	if (r < 0)
		stage_fail(msg_fd, STAGE_SETUP, -r, "cannot place the descriptors: %s",
			   strerror(-r));
	msg_fd = f->v[1];
	for (int i = 0; i < 3; i++)
		if ((s->flags & STAGE_F_CLOSED(i)) != 0)
			(void) close(i);
		else if (dup2(f->v[3 + i], i) < 0)
			stage_fail(msg_fd, STAGE_SETUP, errno, "cannot set up fd %d: %s", i,
				   strerror(errno));
	for (size_t i = 0; i < s->n_keep; i++)
		if (dup2(f->v[k + s->n_rulesets + i], (int) s->keep[i]) < 0)
			stage_fail(msg_fd, STAGE_SETUP, errno, "--keep-fds: cannot keep fd %u: %s",
				   s->keep[i], strerror(errno));
	if (fchdir(f->v[2]) < 0)
		stage_fail(msg_fd, STAGE_SETUP, errno, "cannot enter the working directory: %s",
			   strerror(errno));
}

/* The spawned process's buffers, static rather than on its stack or the heap (perf): a
 * frame of 48 KiB has every page probed (-fstack-clash-protection), where here only the
 * pages a stage fills are touched, and a process the helper forked would pay for malloc's
 * first use.  Only the spawned process uses them; the helper never touches them. */
static _Alignas(4096) char stage_inline[STAGE_INLINE_MAX];
static char *stage_vec[512];

void
stage_spawned(int sock, uint64_t sig_todo)
{
	struct stage_fds f;
	struct stage_spec s;
	struct spawned_iso iso;
	struct stage_tail t;
	/* An inline blob lies in stage_inline until the exec (argv and envp point into it). */
	void *blob = stage_inline;
	char **vec = stage_vec;
	size_t len = 0, need, cap = ELEMENTSOF(stage_vec);
	int msg_fd;

	if (recv_fds(sock, &f, stage_inline, &len) < 0 || f.n < STAGE_FIXED_FDS)
		_exit(STAGE_EXIT_FAILURE);
	msg_fd = f.v[1];
	if (len == 0)
		blob = read_blob(f.v[0], &len);
	if (blob == NULL)
		stage_fail(msg_fd, STAGE_SETUP, EBADMSG, "cannot read the stage");
	need = stage_vec_need(blob, len);
	if (need > cap) { /* a long argv or environment */
		vec = calloc(need, sizeof(char *));
		cap = need;
	}
	if (vec == NULL)
		stage_fail(msg_fd, STAGE_SETUP, ENOMEM, "cannot unpack the stage");
	if (stage_unpack(blob, len, &s, vec, cap) < 0 ||
	    f.n != STAGE_FIXED_FDS + ((s.flags & STAGE_F_TTY) != 0) + s.n_rulesets + s.n_keep)
		stage_fail(msg_fd, STAGE_SETUP, EBADMSG, "malformed stage");
	/* The stage socket carries the filter's listener back (STAGE_F_NOTIFY), and is
	 * never the command's. */
	if ((s.flags & STAGE_F_NOTIFY) == 0 || s.prog_len == 0) {
		sock = safe_close(sock);
	} else {
		/* Above every fd placed for the command, as lift_fds() does: a kept fd of
		 * the same number must not replace it (the listener would go there). */
		int hi = 3, fd;

		for (size_t i = 0; i < s.n_keep; i++)
			if ((int) s.keep[i] >= hi)
				hi = (int) s.keep[i] + 1;
		fd = fcntl(sock, F_DUPFD_CLOEXEC, hi);
		if (fd < 0)
			stage_fail(msg_fd, STAGE_SETUP, errno, "cannot keep the stage socket: %s",
				   strerror(errno));
		(void) close(sock);
		sock = fd;
	}
	spawned_setup(&s, &f, msg_fd);

	iso = (struct spawned_iso){
		.rulesets = f.v + STAGE_FIXED_FDS + ((s.flags & STAGE_F_TTY) != 0),
		.n_rulesets = s.n_rulesets,
		.prog = s.prog,
		.prog_len = s.prog_len,
		.notify_sock = sock,
	};
	t = (struct stage_tail){
		.argv = s.argv,
		.envp = s.envp,
		.chdir = s.chdir,
		.rl = s.rl,
		.n_rl = s.n_rl,
		.keep_fds = (s.flags & STAGE_F_KEEP_FDS) != 0,
		.msg_fd = f.v[1],
		.isolate = spawned_isolate,
		.isolate_ud = &iso,
		.sig_todo = sig_todo,
	};
	stage_tail(&t);
}
