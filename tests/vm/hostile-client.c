/* SPDX-License-Identifier: MIT */
/*
 * hostile-client: a client that does not play by the rules.  It starts sandcap-helper itself
 * (socket on fd 3, like sandcap) under hostile conditions and speaks raw protocol to it.  Each
 * case starts a fresh helper and prints one line, "ok - DESC" or "not ok - DESC # why",
 * which the VM scenarios turn into TAP.  Usage:  hostile-client GROUP
 *   frames   malformed frames, wrong header fields, fd counts, requests out of order
 *   attach   ATTACH of things that are not the caller's fresh child, and the reap race
 *   exec     the helper exec'd with argc 0, LD_PRELOAD/GCONV_PATH, fds 0-2 closed,
 *            hostile rlimits, signals blocked/ignored, no_new_privs, ptrace, SIGSTOP
 *   escape   a sandboxed process trying to leave its leaf or raise its limits
 *   flood, attach2, workspace, tmprace N, cap N: issue #14 (hostile-core.inc)
 * The helper path is $SANDCAP_HELPER.  After every case the workspace dir of the caller
 * ($SANDCAP_WSROOT/<uid>, default /run/sandcap) must hold no sandbox; the harness checks the
 * cgroup parent and the mounts after the scenario.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

static const char *helper_path;
static int nfail;

static void
result(bool good, const char *desc, const char *fmt, ...)
{
	char why[512] = "";
	va_list ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		(void) vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	if (good)
		printf("ok - %s\n", desc);
	else
		printf("not ok - %s # %s\n", desc, why);
	nfail += !good;
	fflush(stdout);
}

/* ---- a helper under test ---- */

enum cond {
	C_NONE, C_ARGC0, C_PRELOAD, C_FDS_CLOSED, C_NOFILE4, C_NOFILE6, C_FSIZE0, C_SIGBLOCK, C_SIGIGN,
	C_NNP, C_PTRACE,
};

struct helper {
	pid_t pid;
	int sock;
	uint32_t seq;
};

static void
child_setup(enum cond c, int sock)
{
	struct rlimit rl;
	sigset_t all;

	if (dup2(sock, 3) != 3)
		_exit(120);
	switch (c) {
	case C_FDS_CLOSED:
		close(0);
		close(1);
		close(2);
		break;
	case C_NOFILE4:
		rl = (struct rlimit) { 4, 4 };
		(void) setrlimit(RLIMIT_NOFILE, &rl);
		break;
	case C_NOFILE6:
		rl = (struct rlimit) { 6, 6 };
		(void) setrlimit(RLIMIT_NOFILE, &rl);
		break;
	case C_FSIZE0:
		rl = (struct rlimit) { 0, 0 };
		(void) setrlimit(RLIMIT_FSIZE, &rl);
		break;
	case C_SIGBLOCK:
		sigfillset(&all);
		(void) sigprocmask(SIG_BLOCK, &all, NULL);
		break;
	case C_SIGIGN:
		for (int s = 1; s < NSIG; s++)
			(void) signal(s, SIG_IGN);
		break;
	case C_NNP:
		(void) prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		break;
	case C_PTRACE:
		(void) ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		break;
	case C_NONE:
	case C_ARGC0:
	case C_PRELOAD:
		break;
	}
}

static int
helper_start(struct helper *h, enum cond c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	h->seq = 1;
	h->pid = fork();
	if (h->pid < 0)
		return -errno;
	if (h->pid == 0) {
		char *argv0[] = { NULL }, *argv1[] = { (char *) "sandcap-helper", NULL };
		static char pre[512];
		char *env_preload[] = { pre, (char *) "GCONV_PATH=/tmp/hostile-gconv", NULL };
		char *env_none[] = { NULL };

		(void) snprintf(pre, sizeof(pre), "LD_PRELOAD=%s",
				getenv("HOSTILE_PRELOAD") ? getenv("HOSTILE_PRELOAD") : "");
		child_setup(c, sv[1]);
		if (c == C_PTRACE)
			raise(SIGSTOP);         /* let the tracer see the exec */
		execve(helper_path, c == C_ARGC0 ? argv0 : argv1,
		       c == C_PRELOAD ? env_preload : env_none);
		_exit(127);
	}
	close(sv[1]);
	h->sock = sv[0];
	if (c == C_PTRACE) {
		int st;

		/* We are the tracer: the exec under ptrace must not gain file capabilities. */
		if (waitpid(h->pid, &st, 0) == h->pid && WIFSTOPPED(st))
			(void) ptrace(PTRACE_CONT, h->pid, NULL, NULL);
		if (waitpid(h->pid, &st, 0) == h->pid && WIFSTOPPED(st))       /* exec trap */
			(void) ptrace(PTRACE_DETACH, h->pid, NULL, NULL);
	}
	return 0;
}

/* Exit status of the helper (-1: killed by a signal, -2: still running after 15 s). */
static int
helper_wait(struct helper *h)
{
	int st;

	close(h->sock);
	h->sock = -1;
	for (int i = 0; i < 1500; i++) {
		pid_t p = waitpid(h->pid, &st, WNOHANG);

		if (p == h->pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (p < 0)
			return -3;
		(void) nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
	}
	(void) kill(h->pid, SIGKILL);
	(void) waitpid(h->pid, &st, 0);
	return -2;
}

static int
send_raw(struct helper *h, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * 8)];
	} ctl;
	struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(h->sock, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Reply status (>= 0), -1 on EOF (session dropped), -2 on timeout or garbage.
 * Reply fds are stored in rfds (up to 2) when given. */
static int
recv_reply(struct helper *h, int *rfds, size_t *nrfds, char *reason, size_t reasonlen)
{
	uint8_t buf[WIRE_MSG_MAX + 1];
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			     .msg_controllen = sizeof(ctl.b) };
	struct pollfd p = { .fd = h->sock, .events = POLLIN };
	struct wire_hdr hd;
	struct wire_rd rd;
	uint32_t status;
	size_t got = 0;
	ssize_t n;

	if (nrfds != NULL)
		*nrfds = 0;
	if (poll(&p, 1, 15000) <= 0)
		return -2;
	n = recvmsg(h->sock, &mh, MSG_CMSG_CLOEXEC);
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return -1;
	if (n < 0)
		return -2;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (rfds != NULL && got < 2)
				rfds[got++] = fd;
			else
				close(fd);
		}
	if (nrfds != NULL)
		*nrfds = got;
	if (wire_parse(buf, (size_t) n, &hd, &rd) < 0 || wire_get_u32(&rd, &status) < 0)
		return -2;
	if (reason != NULL && wire_get_str(&rd, reason, reasonlen) < 0)
		reason[0] = '\0';
	return (int) status;
}

static int
frame(uint8_t *buf, uint16_t type, uint32_t seq, const void *payload, size_t n)
{
	struct wire_wr wr;

	wire_msg_begin(&wr, buf, WIRE_MSG_MAX, type, seq);
	wire_put_bytes(&wr, payload, n);
	return wire_msg_end(&wr);
}

static int
request(struct helper *h, uint16_t type, const void *payload, size_t n, const int *fds,
	size_t nfds, int *rfds, size_t *nrfds, char *reason, size_t reasonlen)
{
	uint8_t buf[WIRE_MSG_MAX];
	int len = frame(buf, type, h->seq++, payload, n);

	if (len < 0 || send_raw(h, buf, (size_t) len, fds, nfds) < 0)
		return -3;
	return recv_reply(h, rfds, nrfds, reason, reasonlen);
}

static int
hello(struct helper *h)
{
	uint32_t v = htobe32(WIRE_VERSION);

	return request(h, WIRE_REQ_HELLO, &v, sizeof(v), NULL, 0, NULL, NULL, NULL, 0);
}

static int
create(struct helper *h, int *rfds, size_t *nrfds)
{
	uint8_t body[5 * 8 + 3 * 4] = { 0 };   /* all defaults, net host, fs none, no port */

	return request(h, WIRE_REQ_CREATE, body, sizeof(body), NULL, 0, rfds, nrfds, NULL, 0);
}

static int
simple(struct helper *h, uint16_t type)
{
	return request(h, type, NULL, 0, NULL, 0, NULL, NULL, NULL, 0);
}

/* No sandbox of ours may be left in the workspace dir. */
static bool
no_workspace_left(char *why, size_t len)
{
	const char *root = getenv("SANDCAP_WSROOT") ? getenv("SANDCAP_WSROOT") : "/run/sandcap";
	char path[256];
	DIR *d;
	int n = 0;

	(void) snprintf(path, sizeof(path), "%s/%u", root, (unsigned) getuid());
	d = opendir(path);
	if (d == NULL)
		return true;
	for (struct dirent *de; (de = readdir(d)) != NULL;)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			(void) snprintf(why, len, "left behind: %s/%s", path, de->d_name);
			n++;
		}
	closedir(d);
	return n == 0;
}

/* ---- frames ---- */

/* One bad datagram after a good HELLO (or as the first message): the helper must drop the
 * session (EOF, no reply) and exit 1. */
static int expect_exit = 1;

static void
bad_frame(const char *desc, int setup, const void *buf, size_t len, const int *fds,
	  size_t nfds)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r, st;
	size_t nr = 0;
	char why[256] = "";

	if (helper_start(&h, C_NONE) < 0) {
		result(false, desc, "cannot start the helper");
		return;
	}
	r = setup >= 1 ? hello(&h) : 0;
	if (r == 0 && setup >= 2)
		r = create(&h, rfds, &nr);
	for (size_t i = 0; i < nr; i++)
		close(rfds[i]);
	if (r != 0) {
		result(false, desc, "setup failed (%d)", r);
		(void) helper_wait(&h);
		return;
	}
	if (send_raw(&h, buf, len, fds, nfds) < 0 && errno != EPIPE) {
		result(false, desc, "send: %s", strerror(errno));
		(void) helper_wait(&h);
		return;
	}
	r = recv_reply(&h, NULL, NULL, NULL, 0);
	st = helper_wait(&h);
	result(r == -1 && st == expect_exit && no_workspace_left(why, sizeof(why)), desc,
	       "reply %d, exit %d %s", r, st, why);
}

/* A request that is well-formed but not permitted now: session dropped. */
static void
out_of_order(const char *desc, int setup, uint16_t type, size_t nfds)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r = 0, st, fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int fds[2] = { fd, fd };
	size_t nr = 0;
	uint8_t buf[WIRE_MSG_MAX], body[52] = { 0 };
	uint32_t v = htobe32(WIRE_VERSION);
	char why[256] = "";
	int len;

	if (helper_start(&h, C_NONE) < 0) {
		result(false, desc, "cannot start the helper");
		return;
	}
	if (setup >= 1)
		r = hello(&h);
	if (r == 0 && setup >= 2)
		r = create(&h, rfds, &nr);
	for (size_t i = 0; i < nr; i++)
		close(rfds[i]);
	if (r == 0 && setup >= 3)
		r = simple(&h, WIRE_REQ_DESTROY);
	if (r != 0) {
		result(false, desc, "setup failed (%d)", r);
		(void) helper_wait(&h);
		close(fd);
		return;
	}
	len = type == WIRE_REQ_HELLO ? frame(buf, type, h.seq, &v, sizeof(v)) :
	      type == WIRE_REQ_CREATE ? frame(buf, type, h.seq, body, sizeof(body)) :
	      frame(buf, type, h.seq, NULL, 0);
	(void) send_raw(&h, buf, (size_t) len, fds, nfds);
	r = recv_reply(&h, NULL, NULL, NULL, 0);
	st = helper_wait(&h);
	close(fd);
	/* After DESTROY the helper has exited 0 already; otherwise it must exit 1. */
	result(r == -1 && st == (setup >= 3 ? 0 : 1) && no_workspace_left(why, sizeof(why)),
	       desc, "reply %d, exit %d %s", r, st, why);
}

static void
group_frames(void)
{
	uint8_t buf[WIRE_MSG_MAX + 64], body[64];
	uint32_t v = htobe32(WIRE_VERSION);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), fds[3] = { fd, fd, fd };
	int len;

	len = frame(buf, WIRE_REQ_KILL, 2, NULL, 0);
	bad_frame("truncated frame (header cut)", 1, buf, 10, NULL, 0);
	expect_exit = 0;        /* on SEQPACKET, 0 bytes read is EOF: a clean teardown */
	bad_frame("zero-length datagram: session ends", 1, buf, 0, NULL, 0);
	expect_exit = 1;
	memset(buf, 'A', sizeof(buf));
	bad_frame("oversized datagram (4096+64 bytes)", 1, buf, WIRE_MSG_MAX + 64, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 3, "junk", 4);
	bad_frame("trailing garbage after KILL", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 3, NULL, 0);
	buf[0] ^= 0xff;
	bad_frame("wrong magic", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 3, NULL, 0);
	buf[5] = 2;
	bad_frame("wrong version", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, 0x0042, 3, NULL, 0);
	bad_frame("unknown type", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL | WIRE_REPLY, 3, NULL, 0);
	bad_frame("a reply type as request", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 3, NULL, 0);
	buf[15] = 7;
	bad_frame("length field larger than the datagram", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 3, "abcd", 4);
	buf[15] = 0;
	bad_frame("length field smaller than the datagram", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 99, NULL, 0);
	bad_frame("wrong sequence number", 2, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_KILL, 3, NULL, 0);
	bad_frame("KILL with an fd", 2, buf, (size_t) len, fds, 1);
	len = frame(buf, WIRE_REQ_SPAWN, 3, NULL, 0);
	bad_frame("ATTACH without its fd", 2, buf, (size_t) len, NULL, 0);
	bad_frame("ATTACH with two fds", 2, buf, (size_t) len, fds, 2);
	bad_frame("ATTACH with three fds", 2, buf, (size_t) len, fds, 3);
	len = frame(buf, WIRE_REQ_SPAWN, 3, "\0\0\0\0", 4);
	bad_frame("ATTACH with a payload", 2, buf, (size_t) len, fds, 1);
	/* A string where a number is expected: a NUL-laden, an over-long and a 4 GiB length. */
	memcpy(body, "\0\0\0\x05" "a\0b\0c", 9);
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 9);
	bad_frame("CREATE body with NULs, too short", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0xff, sizeof(body));
	len = frame(buf, WIRE_REQ_CREATE, 2, body, sizeof(body));
	bad_frame("CREATE body too long (64 bytes)", 1, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 51);
	bad_frame("CREATE body one byte short", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[43] = 9;           /* net = 9 */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 52);
	bad_frame("CREATE with an out-of-range net level", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[50] = 0x1f;        /* net host with a proxy port */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 52);
	bad_frame("CREATE with a proxy port but not --net proxy", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[43] = 1;           /* net proxy without a port */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 52);
	bad_frame("CREATE with --net proxy but no port", 1, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_HELLO, 1, &v, 2);
	bad_frame("HELLO with a 2-byte version", 0, buf, (size_t) len, NULL, 0);
	close(fd);

	out_of_order("CREATE before HELLO", 0, WIRE_REQ_CREATE, 0);
	out_of_order("ATTACH before CREATE", 1, WIRE_REQ_SPAWN, 1);
	out_of_order("KILL before CREATE", 1, WIRE_REQ_KILL, 0);
	out_of_order("DESTROY before CREATE", 1, WIRE_REQ_DESTROY, 0);
	out_of_order("two HELLOs", 1, WIRE_REQ_HELLO, 0);
	out_of_order("two CREATEs", 2, WIRE_REQ_CREATE, 0);
	out_of_order("KILL after DESTROY", 3, WIRE_REQ_KILL, 0);
	out_of_order("CREATE after DESTROY", 3, WIRE_REQ_CREATE, 0);
}

/* ---- attach ---- */

/* ATTACH fd after HELLO+CREATE: must be refused with a reply, leave the leaf empty, and
 * the session must still end cleanly with DESTROY. */
static void
attach_refused(const char *desc, int fd)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r, d, st;
	size_t nr = 0;
	char reason[WIRE_STR_MAX + 1] = "", why[256] = "", procs[256] = "";

	if (fd < 0) {
		result(false, desc, "cannot make the fd: %s", strerror(errno));
		return;
	}
	if (helper_start(&h, C_NONE) < 0 || hello(&h) != 0 || create(&h, rfds, &nr) != 0 ||
	    nr != 1) {
		result(false, desc, "setup failed");
		(void) helper_wait(&h);
		close(fd);
		return;
	}
	r = request(&h, WIRE_REQ_SPAWN, NULL, 0, &fd, 1, NULL, NULL, reason, sizeof(reason));
	close(fd);
	{       /* the leaf's cgroup.procs, through the read-only leaf dirfd */
		int pfd = openat(rfds[0], "cgroup.procs", O_RDONLY | O_CLOEXEC);
		ssize_t n = pfd < 0 ? -1 : read(pfd, procs, sizeof(procs) - 1);

		procs[n > 0 ? n : 0] = '\0';
		if (pfd >= 0)
			close(pfd);
	}
	close(rfds[0]);
	close(rfds[1]);
	d = simple(&h, WIRE_REQ_DESTROY);
	st = helper_wait(&h);
	result(r > 0 && procs[0] == '\0' && d == 0 && st == 0 &&
	       no_workspace_left(why, sizeof(why)), desc,
	       "status %d (%s), leaf procs '%s', destroy %d, exit %d %s", r, reason, procs, d,
	       st, why);
}

static void *
thread_main(void *arg)
{
	(void) arg;
	pause();
	return NULL;
}

static void
group_attach(void)
{
	pthread_t t;
	pid_t c;
	int st, ok = 0, refused = 0, other = 0;
	char path[64];

	attach_refused("ATTACH of a socket is refused",
		       socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	attach_refused("ATTACH of a regular file is refused",
		       open("/etc/passwd", O_RDONLY | O_CLOEXEC));
	attach_refused("ATTACH of a cgroup dir fd is refused",
		       open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	/* pidfd_send_signal accepts /proc/<pid> dirfds too: still not a pidfd. */
	c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	(void) snprintf(path, sizeof(path), "/proc/%d", (int) c);
	attach_refused("ATTACH of a /proc/<child> dirfd is refused",
		       open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	/* A pidfd of our child that we already reaped. */
	kill(c, SIGKILL);
	(void) waitpid(c, &st, 0);
	c = fork();
	if (c == 0)
		_exit(0);
	{
		int pfd = (int) syscall(SYS_pidfd_open, c, 0);

		(void) waitpid(c, &st, 0);
		attach_refused("ATTACH of a reaped child is refused", pfd);
	}
	/* A thread: pidfd_open() of a non-leader tid fails (before 6.9's PIDFD_THREAD), so a
	 * client cannot even name one; our own pid (multi-threaded, not a child) is refused. */
	if (pthread_create(&t, NULL, thread_main, NULL) == 0) {
		pid_t tid = 0;
		DIR *d = opendir("/proc/self/task");

		for (struct dirent *de; d != NULL && (de = readdir(d)) != NULL;)
			if (atoi(de->d_name) > 0 && atoi(de->d_name) != getpid())
				tid = atoi(de->d_name);
		if (d != NULL)
			closedir(d);
		errno = 0;
		{
			int pfd = tid > 0 ? (int) syscall(SYS_pidfd_open, tid, 0) : -1;

			if (pfd >= 0)
				attach_refused("ATTACH of a thread's pidfd is refused", pfd);
			else
				result(errno == EINVAL || errno == ENOENT,
				       "a thread cannot be named by pidfd_open (no ATTACH possible)",
				       "pidfd_open(tid %d): %s", (int) tid, strerror(errno));
		}
		attach_refused("ATTACH of the (multi-threaded) caller itself is refused",
			       (int) syscall(SYS_pidfd_open, getpid(), 0));
	}

	/* The race: a child that exits and is reaped while ATTACH runs.  The helper must
	 * either attach it (it was alive) or refuse; never move anything else, never hang,
	 * and always tear down. */
	for (int i = 0; i < 40; i++) {
		struct helper h;
		int rfds[2] = { -1, -1 }, pfd, r, d;
		size_t nr = 0;
		char why[256] = "";

		if (helper_start(&h, C_NONE) < 0 || hello(&h) != 0 || create(&h, rfds, &nr) != 0) {
			other++;
			(void) helper_wait(&h);
			continue;
		}
		c = fork();
		if (c == 0) {
			/* exit after a short, varying delay */
			(void) nanosleep(&(struct timespec) { 0, (i % 8) * 50000 }, NULL);
			_exit(0);
		}
		pfd = (int) syscall(SYS_pidfd_open, c, 0);
		{
			uint8_t buf[WIRE_MSG_MAX];
			int len = frame(buf, WIRE_REQ_SPAWN, h.seq++, NULL, 0);

			(void) send_raw(&h, buf, (size_t) len, &pfd, 1);
			(void) waitpid(c, &st, 0);      /* reap while the helper works */
			r = recv_reply(&h, NULL, NULL, NULL, 0);
		}
		while (waitpid(-1, &st, WNOHANG) > 0)
			;
		close(pfd);
		close(rfds[0]);
		close(rfds[1]);
		d = simple(&h, WIRE_REQ_DESTROY);
		st = helper_wait(&h);
		if (r == 0 && d == 0 && st == 0 && no_workspace_left(why, sizeof(why)))
			ok++;
		else if (r == ESRCH && st == 0 && no_workspace_left(why, sizeof(why)))
			refused++;
		else if (r == ESRCH && d == EBUSY)
			other += 100;   /* poisoned: must not happen for our own child */
		else {
			other++;
			printf("# race %d: attach %d destroy %d exit %d %s\n", i, r, d, st, why);
		}
	}
	result(other == 0, "ATTACH racing exit+reap: attached or refused, torn down each time",
	       "%d attached, %d refused, %d other", ok, refused, other);
	printf("# race: %d attached, %d refused\n", ok, refused);
}

/* ---- exec conditions ---- */

/* Full session (HELLO, CREATE, DESTROY) under cond: want_ok says whether it must succeed
 * (else: refused at HELLO with EPERM).  Either way: clean exit, nothing left. */
static void
session_under(const char *desc, enum cond c, bool want_ok)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r, cr = -9, d = -9, st;
	size_t nr = 0;
	char why[256] = "";

	if (helper_start(&h, c) < 0) {
		result(false, desc, "cannot start the helper");
		return;
	}
	r = hello(&h);
	if (r == 0) {
		cr = create(&h, rfds, &nr);
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		d = simple(&h, WIRE_REQ_DESTROY);
	}
	st = helper_wait(&h);
	if (want_ok)
		result(r == 0 && cr == 0 && d == 0 && st == 0 &&
		       no_workspace_left(why, sizeof(why)), desc,
		       "hello %d create %d destroy %d exit %d %s", r, cr, d, st, why);
	else
		result(r == EPERM && st == 1 && no_workspace_left(why, sizeof(why)), desc,
		       "hello %d (want EPERM) exit %d %s", r, st, why);
}

/* Under hostile limits the helper may fail, but must fail closed: an error reply or a
 * dropped session, exit, and nothing left behind. */
static void
session_fail_closed(const char *desc, enum cond c)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r, cr = -9, d = -9, st;
	size_t nr = 0;
	char why[256] = "";

	if (helper_start(&h, c) < 0) {
		result(false, desc, "cannot start the helper");
		return;
	}
	r = hello(&h);
	if (r == 0) {
		cr = create(&h, rfds, &nr);
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		if (cr == 0)
			d = simple(&h, WIRE_REQ_DESTROY);
	}
	st = helper_wait(&h);
	printf("# %s: hello %d create %d destroy %d exit %d\n", desc, r, cr, d, st);
	result(st >= 0 && no_workspace_left(why, sizeof(why)), desc, "exit %d %s", st, why);
}

static void
group_exec(void)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, st, r;
	size_t nr = 0;
	char why[256] = "";

	/* Linux >= 5.18 turns argc 0 into argv { "" }; argv is never read either way. */
	session_under("argc 0: works, argv unused", C_ARGC0, true);
	session_under("LD_PRELOAD and GCONV_PATH set: works, preload ignored", C_PRELOAD, true);
	session_under("fds 0-2 closed: works", C_FDS_CLOSED, true);
	/* With fd 3 taken, 4 leaves ld.so no fd: the helper never runs (exit 127). */
	session_fail_closed("RLIMIT_NOFILE 4: fails closed", C_NOFILE4);
	session_fail_closed("RLIMIT_NOFILE 6: fails closed", C_NOFILE6);
	session_under("RLIMIT_FSIZE 0: works", C_FSIZE0, true);
	session_under("every signal blocked: works", C_SIGBLOCK, true);
	session_under("every signal ignored: works", C_SIGIGN, true);
	session_under("no_new_privs: refused with EPERM", C_NNP, false);
	session_under("under ptrace: refused with EPERM (no file capabilities)", C_PTRACE,
		      false);

	/* Signals blocked and ignored, then SIGTERM after CREATE: still tears down. */
	if (helper_start(&h, C_SIGIGN) == 0 && hello(&h) == 0 && create(&h, rfds, &nr) == 0) {
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		kill(h.pid, SIGTERM);
		r = recv_reply(&h, NULL, NULL, NULL, 0);
		st = helper_wait(&h);
		result(r == -1 && st == 0 && no_workspace_left(why, sizeof(why)),
		       "SIGTERM after CREATE (inherited SIG_IGN): torn down",
		       "eof %d exit %d %s", r, st, why);
	} else {
		result(false, "SIGTERM after CREATE (inherited SIG_IGN): torn down", "setup");
		(void) helper_wait(&h);
	}

	/* SIGSTOP between requests, then SIGCONT: the session goes on. */
	nr = 0;
	if (helper_start(&h, C_NONE) == 0 && hello(&h) == 0) {
		kill(h.pid, SIGSTOP);
		(void) nanosleep(&(struct timespec) { 0, 300 * 1000 * 1000 }, NULL);
		kill(h.pid, SIGCONT);
		r = create(&h, rfds, &nr);
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		kill(h.pid, SIGSTOP);
		kill(h.pid, SIGCONT);
		st = simple(&h, WIRE_REQ_DESTROY);
		r = r == 0 && st == 0 ? helper_wait(&h) : -5;
		result(r == 0 && no_workspace_left(why, sizeof(why)),
		       "SIGSTOP/SIGCONT between requests: session completes", "%d %s", r, why);
	} else {
		result(false, "SIGSTOP/SIGCONT between requests: session completes", "setup");
	}
	/* Stopped, and the client goes away meanwhile: after SIGCONT it sees EOF, tears down. */
	nr = 0;
	if (helper_start(&h, C_NONE) == 0 && hello(&h) == 0 && create(&h, rfds, &nr) == 0) {
		pid_t hp = h.pid;

		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		kill(hp, SIGSTOP);
		close(h.sock);
		h.sock = -1;
		kill(hp, SIGCONT);
		st = helper_wait(&h);
		result(st == 0 && no_workspace_left(why, sizeof(why)),
		       "stopped helper, client gone: tears down after SIGCONT", "exit %d %s",
		       st, why);
	} else {
		result(false, "stopped helper, client gone: tears down after SIGCONT", "setup");
	}
}

/* ---- escape ---- */

static int
try_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int) n;
}

/* Runs inside the sandbox (moved into the leaf); exit status = number of escapes. */
static int
escapee(const char *leaf)
{
	char path[512], me[32];
	int escapes = 0, r;
	static const char *const files[] = { "memory.max", "memory.swap.max", "pids.max",
		"cpu.max", "memory.oom.group", "cgroup.subtree_control", "cgroup.kill" };

	(void) snprintf(me, sizeof(me), "%d\n", (int) getpid());
	static const char *const procs[] = { "/sys/fs/cgroup/cgroup.procs",
		"/sys/fs/cgroup/users/sctest/cgroup.procs", "/sys/fs/cgroup/sandcap/cgroup.procs",
		"/sys/fs/cgroup/harness/cgroup.procs" };
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		r = try_write(procs[i], me);
		printf("# escape: write %s: %s\n", procs[i], r == 0 ? "SUCCEEDED" : strerror(-r));
		escapes += r == 0;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		(void) snprintf(path, sizeof(path), "%s/%s", leaf, files[i]);
		r = try_write(path, strcmp(files[i], "cpu.max") == 0 ? "max 100000" :
				    strcmp(files[i], "cgroup.subtree_control") == 0 ? "+memory" :
				    strcmp(files[i], "cgroup.kill") == 0 ? "0" : "max");
		printf("# escape: write %s: %s\n", files[i], r == 0 ? "SUCCEEDED" : strerror(-r));
		escapes += r == 0;
	}
	/* The per-user level above the leaf carries the user's totals (#14 item 5). */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		(void) snprintf(path, sizeof(path), "%s/../%s", leaf, files[i]);
		r = try_write(path, strcmp(files[i], "cpu.max") == 0 ? "max 100000" :
				    strcmp(files[i], "cgroup.subtree_control") == 0 ? "+io" :
				    strcmp(files[i], "cgroup.kill") == 0 ? "0" : "max");
		printf("# escape: write the per-user level's %s: %s\n", files[i],
		       r == 0 ? "SUCCEEDED" : strerror(-r));
		escapes += r == 0;
	}
	(void) snprintf(path, sizeof(path), "%s/../cgroup.procs", leaf);
	r = try_write(path, me);
	printf("# escape: write the per-user level's cgroup.procs: %s\n",
	       r == 0 ? "SUCCEEDED" : strerror(-r));
	escapes += r == 0;
	(void) snprintf(path, sizeof(path), "%s/sub", leaf);
	r = mkdir(path, 0755) < 0 ? -errno : 0;
	printf("# escape: mkdir a sub-cgroup: %s\n", r == 0 ? "SUCCEEDED" : strerror(-r));
	escapes += r == 0;
	/* A user namespace (and cgroup+mount namespaces) to mount cgroup2 and write there. */
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP) == 0) {
		int fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			(void) !write(fd, "deny", 4);
			close(fd);
		}
		(void) snprintf(path, sizeof(path), "0 %u 1", (unsigned) getuid());
		(void) try_write("/proc/self/uid_map", path);
		(void) mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		if (mount("cgroup2", "/tmp", "cgroup2", 0, NULL) == 0) {
			printf("# escape: userns mounted cgroup2 (its root is the leaf)\n");
			r = try_write("/tmp/memory.max", "max");
			printf("# escape: userns write memory.max: %s\n",
			       r == 0 ? "SUCCEEDED" : strerror(-r));
			escapes += r == 0;
			r = try_write("/tmp/pids.max", "max");
			escapes += r == 0;
			r = try_write("/tmp/cgroup.procs", me);
			printf("# escape: userns write cgroup.procs: %s\n",
			       r == 0 ? "ok (same leaf)" : strerror(-r));
			r = mkdir("/tmp/sub", 0755) < 0 ? -errno : 0;
			printf("# escape: userns mkdir: %s\n", r == 0 ? "SUCCEEDED" : strerror(-r));
			escapes += r == 0;
		} else {
			printf("# escape: userns mount cgroup2: %s\n", strerror(errno));
		}
	} else {
		printf("# escape: unshare(user): %s\n", strerror(errno));
	}
	fflush(stdout);
	return escapes;
}

static void
group_escape(void)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, go[2], st, r, pfd;
	size_t nr = 0;
	char why[256] = "", leaf[256], line[128], idpath[64];
	pid_t c;
	ssize_t n;

	if (helper_start(&h, C_NONE) < 0 || hello(&h) != 0 || create(&h, rfds, &nr) != 0 ||
	    pipe2(go, O_CLOEXEC) < 0) {
		result(false, "sandboxed process cannot escape", "setup");
		return;
	}
	/* The leaf's path, from the leaf dirfd the helper gave us. */
	(void) snprintf(idpath, sizeof(idpath), "/proc/self/fd/%d", rfds[0]);
	n = readlink(idpath, leaf, sizeof(leaf) - 1);
	leaf[n > 0 ? n : 0] = '\0';
	c = fork();
	if (c == 0) {
		char x;

		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(100);
		_exit(escapee(leaf));
	}
	close(go[0]);
	pfd = (int) syscall(SYS_pidfd_open, c, 0);
	r = request(&h, WIRE_REQ_SPAWN, NULL, 0, &pfd, 1, NULL, NULL, NULL, 0);
	(void) !write(go[1], "g", 1);
	close(go[1]);
	(void) waitpid(c, &st, 0);
	(void) snprintf(line, sizeof(line), "attach %d", r);
	result(r == 0, "ATTACH of the escapee", "%s", line);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "sandboxed process: no cgroup.procs, limit file or userns cgroup2 write succeeded",
	       "status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(pfd);
	close(rfds[0]);
	close(rfds[1]);
	r = simple(&h, WIRE_REQ_DESTROY);
	st = helper_wait(&h);
	result(r == 0 && st == 0 && no_workspace_left(why, sizeof(why)),
	       "torn down after the escape attempts", "destroy %d exit %d %s", r, st, why);
}

#include "hostile-core.inc"

/* ---- attachlock: the ATTACH reap race, stretched by the per-user lock ---- */

/* Wait (30 s at most) for $HOSTILE_SYNC/name, made by the root half of the scenario. */
static bool
sync_wait(const char *dir, const char *name)
{
	char path[256];

	(void) snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 3000; i++) {
		if (access(path, F_OK) == 0)
			return true;
		(void) nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
	}
	return false;
}

static void
sync_put(const char *dir, const char *name, long v)
{
	char path[256], tmp[300];
	FILE *f;

	(void) snprintf(path, sizeof(path), "%s/%s", dir, name);
	(void) snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f == NULL)
		return;
	fprintf(f, "%ld\n", v);
	fclose(f);
	(void) rename(tmp, path);
}

/* With root (tests/vm/scenarios/47-hostile-attach-lock.root.sh) holding this uid's per-user
 * lock: ATTACH a child, which the helper must wait for the lock to move; meanwhile the child
 * is reaped and root gives its number to a process of another user.  The helper must not
 * move that process, and the sandbox must stay usable (KILL), not "poisoned". */
static void
group_attachlock(const char *dir)
{
	struct helper a;
	int rfds[2] = { -1, -1 }, pp[2], pfd, r, st;
	size_t nr = 0;
	char reason[256] = "", procs[4096] = "", want[32];
	uint8_t buf[WIRE_MSG_MAX];
	pid_t c;
	int len, fd;

	if (helper_start(&a, C_NONE) < 0 || hello(&a) != 0 || create(&a, rfds, &nr) != 0 || nr < 1) {
		result(false, "attachlock: a sandbox to attach to", "HELLO/CREATE failed");
		return;
	}
	sync_put(dir, "created", a.pid);
	if (!sync_wait(dir, "locked")) {
		result(false, "attachlock: root holds the per-user lock", "no word from root");
		return;
	}
	if (pipe(pp) < 0 || (c = fork()) < 0)
		return;
	if (c == 0) {
		char x;

		close(pp[1]);
		_exit(read(pp[0], &x, 1) < 0);
	}
	close(pp[0]);
	pfd = (int) syscall(SYS_pidfd_open, c, 0);
	len = frame(buf, WIRE_REQ_SPAWN, a.seq++, NULL, 0);
	if (pfd < 0 || len < 0 || send_raw(&a, buf, (size_t) len, &pfd, 1) < 0) {
		result(false, "attachlock: ATTACH sent", "pidfd_open or sendmsg failed");
		return;
	}
	sync_put(dir, "helper", a.pid);
	if (!sync_wait(dir, "blocked")) {
		result(false, "attachlock: the helper waits for the per-user lock", "root did not "
		       "see it wait (/proc/locks)");
		return;
	}
	/* The child is reaped while the helper waits: its number is free. */
	(void) kill(c, SIGKILL);
	(void) waitpid(c, &st, 0);
	close(pfd);
	sync_put(dir, "pid", c);
	if (!sync_wait(dir, "victim")) {
		result(false, "attachlock: root gave the number away", "no word from root");
		return;
	}
	r = recv_reply(&a, NULL, NULL, reason, sizeof(reason));
	/* ESRCH for the reaped child, not EAGAIN for a lock held past its 30 s bound. */
	result(r == ESRCH, "attachlock: the ATTACH of a child reaped during the lock wait is "
	       "refused: it is gone", "reply %d (%s)", r, reason);
	(void) snprintf(want, sizeof(want), "%d\n", (int) c);
	fd = openat(rfds[0], "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, procs, sizeof(procs) - 1) < 0)
			procs[0] = '\0';
		close(fd);
	}
	result(fd >= 0 && strstr(procs, want) == NULL,
	       "attachlock: the process that got the number is not moved into the leaf",
	       "leaf cgroup.procs: %s", procs);
	r = simple(&a, WIRE_REQ_KILL);
	result(r == 0, "attachlock: the sandbox is not poisoned (KILL is carried out)", "KILL: %d", r);
	r = simple(&a, WIRE_REQ_DESTROY);
	result(r == 0, "attachlock: DESTROY", "DESTROY: %d", r);
	(void) helper_wait(&a);
	close(rfds[0]);
	if (nr > 1)
		close(rfds[1]);
}

int
main(int argc, char **argv)
{
	helper_path = getenv("SANDCAP_HELPER");
	if (argc == 3 && helper_path != NULL && strcmp(argv[1], "cap") == 0) {
		(void) signal(SIGPIPE, SIG_IGN);
		group_cap(atoi(argv[2]));
		return 0;
	}
	if (argc == 3 && helper_path != NULL && strcmp(argv[1], "attachlock") == 0) {
		(void) signal(SIGPIPE, SIG_IGN);
		group_attachlock(argv[2]);
		return nfail == 0 ? 0 : 1;
	}
	if (argc == 3 && helper_path != NULL && strcmp(argv[1], "tmprace") == 0) {
		(void) signal(SIGPIPE, SIG_IGN);
		group_tmprace(atoi(argv[2]));
		return nfail == 0 ? 0 : 1;
	}
	if (argc != 2 || helper_path == NULL) {
		fprintf(stderr, "usage: SANDCAP_HELPER=PATH hostile-client frames|attach|exec|escape\n");
		return 64;
	}
	(void) signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[1], "frames") == 0)
		group_frames();
	else if (strcmp(argv[1], "attach") == 0)
		group_attach();
	else if (strcmp(argv[1], "exec") == 0)
		group_exec();
	else if (strcmp(argv[1], "escape") == 0)
		group_escape();
	else if (strcmp(argv[1], "flood") == 0)
		group_flood();
	else if (strcmp(argv[1], "attach2") == 0)
		group_attach2();
	else if (strcmp(argv[1], "workspace") == 0)
		group_workspace();
	else
		return 64;
	return nfail == 0 ? 0 : 1;
}
