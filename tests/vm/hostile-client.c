/* SPDX-License-Identifier: MIT */
/*
 * hostile-client: a client that does not play by the rules.  It starts sandcap-helper itself
 * (socket on fd 3, like sandcap) under hostile conditions and speaks raw protocol to it.  Each
 * case starts a fresh helper and prints one line, "ok - DESC" or "not ok - DESC # why",
 * which the VM scenarios turn into TAP.  Usage:  hostile-client GROUP
 *   frames   malformed frames, wrong header fields, fd counts, requests out of order
 *   spawn    SPAWN of fds that are not a unix socket, with 0 or 2 fds, twice; the spawned
 *            process: our child, in the leaf, no capability, one fd; its stage missing,
 *            malformed, valid; signals before its stage; EOF on the session meanwhile
 *   exec     the helper exec'd with argc 0, LD_PRELOAD/GCONV_PATH, fds 0-2 closed,
 *            hostile rlimits, signals blocked/ignored, no_new_privs, ptrace, SIGSTOP
 *   escape   a sandboxed process trying to leave its leaf or raise its limits
 *   flood, workspace, tmprace N, cap N: issue #14 (hostile-core.inc)
 *   join NAME  CREATE of a call in session NAME: prints "created" or "refused ERRNO REASON"
 *   level    a session level: SPAWN into it refused, DESTROY removes it
 *   createsteps  CREATE with a timeout under each resource limit (RLIMIT_NOFILE 5..24 set
 *            after HELLO fails each step in turn) and SIGKILLed at points spread over it;
 *            the limits the helper refuses with their reason; then SIGKILLed by root at
 *            each system call of a CREATE in turn (killat PID N, run as root, traces the
 *            helper and kills it at its N-th call); after each, and
 *            after the user's next session, the root half ($HOSTILE_SYNC) looks at what
 *            is left
 * The helper path is $SANDCAP_HELPER.  After every case the workspace dir of the caller
 * ($SANDCAP_WSROOT/<uid>, default /run/sandcap) must hold no sandbox; the harness checks the
 * cgroup parent and the mounts after the scenario.  With $HOSTILE_SYNC set (a directory shared
 * with the root half of a scenario), spawn hands the spawned process's /proc/PID/fd, which
 * only root can read, to root: it writes "spawned" (the pid) there and waits for "fdchecked".
 * "hostile-client escapee LEAF" is the escape group's sandboxed process (its stage's argv).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
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

#include "macro.h"
#include "stage.h"
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
	C_NNP, C_PTRACE, C_LIMIT,
};

/* C_LIMIT: the resource limit (soft and hard) the helper starts with; -1: the nice value.
 * With limit_after_hello, createstep() sets it with prlimit(2) after HELLO instead. */
static int limit_res;
static rlim_t limit_val;
static bool limit_after_hello;

struct helper {
	pid_t pid;
	int sock;
	uint32_t seq;
	uint32_t u32;           /* the last reply's body as a u32 (SPAWN's pid), else 0 */
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
	case C_LIMIT:
		rl = (struct rlimit) { limit_val, limit_val };
		if (limit_res < 0)
			(void) setpriority(PRIO_PROCESS, 0, (int) limit_val);
		else
			(void) setrlimit(limit_res, &rl);
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
	char why[WIRE_STR_MAX + 1];
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
	/* The reason, then the body: one u32 (SPAWN's pid) is kept in h->u32. */
	h->u32 = 0;
	if (wire_get_str(&rd, why, sizeof(why)) < 0)
		why[0] = '\0';
	else if (wire_get_u32(&rd, &h->u32) < 0 || wire_get_end(&rd) < 0)
		h->u32 = 0;
	if (reason != NULL)
		(void) snprintf(reason, reasonlen, "%s", why);
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
	uint8_t body[5 * 8 + 5 * 4] = { 0 }; /* defaults, net host, fs none, no session */

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
	uint8_t buf[WIRE_MSG_MAX], body[60] = { 0 };
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
	buf[5] = (uint8_t) (WIRE_VERSION + 1);     /* the version's low byte */
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
	bad_frame("SPAWN without its fd", 2, buf, (size_t) len, NULL, 0);
	bad_frame("SPAWN with two fds", 2, buf, (size_t) len, fds, 2);
	bad_frame("SPAWN with three fds", 2, buf, (size_t) len, fds, 3);
	len = frame(buf, WIRE_REQ_SPAWN, 3, "\0\0\0\0", 4);
	bad_frame("SPAWN with a payload", 2, buf, (size_t) len, fds, 1);
	/* A string where a number is expected: a NUL-laden, an over-long and a 4 GiB length. */
	memcpy(body, "\0\0\0\x05" "a\0b\0c", 9);
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 9);
	bad_frame("CREATE body with NULs, too short", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0xff, sizeof(body));
	len = frame(buf, WIRE_REQ_CREATE, 2, body, sizeof(body));
	bad_frame("CREATE body too long (64 bytes)", 1, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 59);
	bad_frame("CREATE body one byte short", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[43] = 9;           /* net = 9 */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 60);
	bad_frame("CREATE with an out-of-range net level", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[50] = 0x1f;        /* net host with a proxy port */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 60);
	bad_frame("CREATE with a proxy port but not --net proxy", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[43] = 1;           /* net proxy without a port */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 60);
	bad_frame("CREATE with --net proxy but no port", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[55] = 3;           /* session role 3 */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 60);
	bad_frame("CREATE with an out-of-range session role", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[55] = 2;           /* a call, naming no session */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 60);
	bad_frame("CREATE of a call naming no session", 1, buf, (size_t) len, NULL, 0);
	memset(body, 0, sizeof(body));
	body[59] = 1, body[60] = 'x'; /* role none, naming a session */
	len = frame(buf, WIRE_REQ_CREATE, 2, body, 61);
	bad_frame("CREATE of a plain sandbox naming a session", 1, buf, (size_t) len, NULL, 0);
	len = frame(buf, WIRE_REQ_HELLO, 1, &v, 2);
	bad_frame("HELLO with a 2-byte version", 0, buf, (size_t) len, NULL, 0);
	close(fd);

	out_of_order("CREATE before HELLO", 0, WIRE_REQ_CREATE, 0);
	out_of_order("SPAWN before CREATE", 1, WIRE_REQ_SPAWN, 1);
	out_of_order("KILL before CREATE", 1, WIRE_REQ_KILL, 0);
	out_of_order("DESTROY before CREATE", 1, WIRE_REQ_DESTROY, 0);
	out_of_order("two HELLOs", 1, WIRE_REQ_HELLO, 0);
	out_of_order("two CREATEs", 2, WIRE_REQ_CREATE, 0);
	out_of_order("KILL after DESTROY", 3, WIRE_REQ_KILL, 0);
	out_of_order("CREATE after DESTROY", 3, WIRE_REQ_CREATE, 0);
}

/* ---- spawn ---- */

/* Wait (30 s at most) for $HOSTILE_SYNC/name, made by the root half of a scenario. */
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

/* $HOSTILE_SYNC/name holding v, for the root half of a scenario. */
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

/* The leaf's cgroup.procs through the leaf dirfd of a CREATE reply. */
static void
leaf_procs(int leaf, char *buf, size_t len)
{
	int fd = openat(leaf, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* The value of "KEY:" in a /proc/PID/status text, blanks and newline cut ("" if none). */
static void
status_field(const char *text, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	buf[0] = '\0';
	for (const char *p = text; p != NULL && *p != '\0';) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			p += klen + 1;
			p += strspn(p, " \t");
			(void) snprintf(buf, len, "%.*s", (int) strcspn(p, "\n"), p);
			return;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
}

/* /proc/PID/status ("" if it cannot be read: the process is gone). */
static void
proc_status(pid_t pid, char *buf, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	(void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Are CapPrm, CapEff, CapInh and CapAmb all zero in this status text?  The four values go
 * to why. */
static bool
caps_zero(const char *status, char *why, size_t len)
{
	static const char *const keys[] = { "CapPrm", "CapEff", "CapInh", "CapAmb" };
	bool zero = true;
	size_t at = 0;

	why[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		char v[64];

		status_field(status, keys[i], v, sizeof(v));
		zero = zero && strcmp(v, "0000000000000000") == 0;
		if (at < len)
			at += (size_t) snprintf(why + at, len - at, "%s%s '%s'", i ? "," : "",
						keys[i], v);
	}
	return zero;
}

/* Reap our child pid within ms milliseconds: 0 (status in *st), -2 on timeout, -errno. */
static int
wait_child(pid_t pid, int *st, int ms)
{
	for (int i = 0; i <= ms / 10; i++) {
		pid_t p = waitpid(pid, st, WNOHANG);

		if (p == pid)
			return 0;
		if (p < 0)
			return -errno;
		(void) nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
	}
	return -2;
}

/* A wait status in words, for the lines. */
static const char *
status_str(int r, int st, char *buf, size_t len)
{
	if (r == -2)
		(void) snprintf(buf, len, "still running");
	else if (r < 0)
		(void) snprintf(buf, len, "waitpid: %s", strerror(-r));
	else if (WIFEXITED(st))
		(void) snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		(void) snprintf(buf, len, "killed by %s", strsignal(WTERMSIG(st)));
	else
		(void) snprintf(buf, len, "status %#x", (unsigned) st);
	return buf;
}

/* Did a child of ours show up that we did not reap?  (Each case reaps what it spawned.) */
static bool
no_child_left(void)
{
	int st;

	return waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD;
}

/* HELLO and CREATE on a fresh helper, the leaf dirfd in *ret_leaf. */
static int
session_start(struct helper *h, int *ret_leaf)
{
	int rfds[2] = { -1, -1 };
	size_t nr = 0;

	*ret_leaf = -1;
	if (helper_start(h, C_NONE) < 0)
		return -1;
	if (hello(h) != 0 || create(h, rfds, &nr) != 0 || nr < 1) {
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		(void) helper_wait(h);
		return -1;
	}
	if (nr > 1)
		close(rfds[1]);
	*ret_leaf = rfds[0];
	return 0;
}

/* A fresh session and a successful SPAWN: our end of the stage socket in *ret_sock, the
 * new process in *ret_pid.  On failure the session is gone and nothing is open. */
static int
spawn_start(struct helper *h, int *ret_leaf, int *ret_sock, pid_t *ret_pid, char *why,
	    size_t len)
{
	char reason[WIRE_STR_MAX + 1] = "";
	int sv[2], r;

	if (session_start(h, ret_leaf) < 0) {
		(void) snprintf(why, len, "HELLO/CREATE failed");
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		(void) snprintf(why, len, "socketpair: %s", strerror(errno));
		close(*ret_leaf);
		(void) helper_wait(h);
		return -1;
	}
	r = request(h, WIRE_REQ_SPAWN, NULL, 0, &sv[1], 1, NULL, NULL, reason, sizeof(reason));
	close(sv[1]);
	if (r != 0 || h->u32 == 0) {
		(void) snprintf(why, len, "SPAWN: status %d (%s), pid %u", r, reason,
				(unsigned) h->u32);
		close(sv[0]);
		close(*ret_leaf);
		(void) helper_wait(h);
		return -1;
	}
	*ret_sock = sv[0];
	*ret_pid = (pid_t) h->u32;
	return 0;
}

/* The spawned process's stage (as sandcap builds it, without isolation): argv with a
 * minimal environment, the working directory /, stdin /dev/null, stdout out (ours if
 * -1), our stderr.  The read end of the message pipe goes to *ret_msg. */
static int
send_stage(int sock, char **argv, int out, int *ret_msg)
{
	static char *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
	struct stage_spec ss = { .parent = getpid(), .argv = argv, .envp = envp };
	int msg[2], fds[5], r;
	void *blob = NULL;
	size_t len = 0;

	if (pipe2(msg, O_CLOEXEC) < 0)
		return -errno;
	fds[0] = msg[1];
	fds[1] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fds[2] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[3] = out >= 0 ? out : 1;
	fds[4] = 2;
	r = fds[1] < 0 || fds[2] < 0 ? -EBADF : stage_pack(&ss, &blob, &len);
	if (r == 0)
		r = stage_send(sock, blob, len, fds, ELEMENTSOF(fds));
	free(blob);
	close(msg[1]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (fds[2] >= 0)
		close(fds[2]);
	if (r < 0) {
		close(msg[0]);
		return r;
	}
	*ret_msg = msg[0];
	return 0;
}

/* DESTROY, the helper's exit, nothing left: true if all went well (why says otherwise). */
static bool
spawn_end(struct helper *h, char *why, size_t len)
{
	int d = simple(h, WIRE_REQ_DESTROY), st = helper_wait(h);
	char left[256] = "";
	bool clean = no_workspace_left(left, sizeof(left));

	(void) snprintf(why, len, "destroy %d, helper exit %d %s", d, st, left);
	return d == 0 && st == 0 && clean;
}

/* a. SPAWN with fd after HELLO+CREATE: a protocol violation (the helper must not close a
 * file before its teardown: a FUSE flush could hold it): no reply, the helper exits 1
 * after its teardown, nothing is left and no process was made. */
static void
spawn_refused(const char *desc, int fd, pid_t kid)
{
	struct helper h;
	int leaf, r, st;
	char reason[WIRE_STR_MAX + 1] = "", why[300], procs[256] = "";
	bool clean;

	if (fd < 0 || session_start(&h, &leaf) < 0) {
		result(false, desc, fd < 0 ? "cannot make the fd: %s" : "setup failed",
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		if (kid > 0)
			(void) kill(kid, SIGKILL);
		while (kid > 0 && waitpid(kid, NULL, 0) < 0 && errno == EINTR)
			;
		return;
	}
	r = request(&h, WIRE_REQ_SPAWN, NULL, 0, &fd, 1, NULL, NULL, reason, sizeof(reason));
	close(fd);
	leaf_procs(leaf, procs, sizeof(procs));
	close(leaf);
	if (kid > 0) {          /* the process the fd names: ours to end before the checks */
		(void) kill(kid, SIGKILL);
		(void) waitpid(kid, NULL, 0);
	}
	st = helper_wait(&h);
	clean = no_workspace_left(why, sizeof(why));
	result(r == -1 && st == 1 && procs[0] == '\0' && clean && no_child_left(), desc,
	       "reply %d (%s), helper exit %d, leaf procs '%s' %s", r, reason, st, procs, why);
}

/* b. SPAWN with n unix sockets (n != 1): a protocol violation, no reply, no process. */
static void
spawn_fd_count(const char *desc, size_t n)
{
	struct helper h;
	int leaf, sv[2][2] = { { -1, -1 }, { -1, -1 } }, fds[2], r, st;
	uint8_t buf[WIRE_MSG_MAX];
	char left[256] = "";
	int len;

	if (session_start(&h, &leaf) < 0) {
		result(false, desc, "setup failed");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv[i]) < 0)
			break;
		fds[i] = sv[i][1];
	}
	len = frame(buf, WIRE_REQ_SPAWN, h.seq++, NULL, 0);
	(void) send_raw(&h, buf, (size_t) len, fds, n);
	r = recv_reply(&h, NULL, NULL, NULL, 0);
	st = helper_wait(&h);
	for (size_t i = 0; i < ELEMENTSOF(sv); i++)
		for (size_t j = 0; j < 2; j++)
			if (sv[i][j] >= 0)
				close(sv[i][j]);
	close(leaf);
	result(r == -1 && st == 1 && no_workspace_left(left, sizeof(left)) && no_child_left(),
	       desc, "reply %d, helper exit %d, %s %s", r, st,
	       no_child_left() ? "no process" : "a process was spawned", left);
}

/* c. A SPAWN whose process never gets a stage. */
static void
spawn_no_stage(void)
{
	struct helper h;
	int leaf, sock = -1, r, st = 0;
	pid_t pid = 0;
	char why[300] = "", status[4096] = "", ppid[32], want[32], procs[256] = "", caps[200];
	char path[64];
	const char *sync = getenv("HOSTILE_SYNC");
	bool zero = false, alive;
	DIR *d;

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0) {
		result(false, "SPAWN: the reply's pid is our child", "%s", why);
		return;
	}
	proc_status(pid, status, sizeof(status));
	status_field(status, "PPid", ppid, sizeof(ppid));
	alive = waitpid(pid, &st, WNOHANG) == 0;
	result(atoi(ppid) == getpid() && alive, "SPAWN: the reply's pid is our child",
	       "pid %d: PPid '%s' (we are %d), waitpid %s", (int) pid, ppid, (int) getpid(),
	       alive ? "ok" : strerror(errno));
	(void) snprintf(want, sizeof(want), "%d\n", (int) pid);
	leaf_procs(leaf, procs, sizeof(procs));
	result(strcmp(procs, want) == 0, "SPAWN: the process is born in the leaf (and is alone "
	       "there)", "leaf cgroup.procs '%s', want '%d'", procs, (int) pid);
	/* The drop is the process's first step after clone3: give it 5 s on a busy machine. */
	for (int i = 0; i < 500 && !zero; i++) {
		proc_status(pid, status, sizeof(status));
		zero = caps_zero(status, caps, sizeof(caps));
		if (!zero)
			(void) nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
	}
	result(zero, "SPAWN: the process holds no capability (CapPrm, CapEff, CapInh, CapAmb 0)",
	       "%s", caps);
	/* Its fds: the helper's copy of the dumpable flag (0) makes /proc/PID/fd root's. */
	(void) snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);
	d = opendir(path);
	if (d != NULL) {
		int n = 0, socks = 0;
		char list[256] = "";

		/* Closing comes right after the drop: wait for it like for the drop. */
		for (int i = 0; i < 500; i++) {
			n = socks = 0;
			list[0] = '\0';
			rewinddir(d);
			for (struct dirent *de; (de = readdir(d)) != NULL;) {
				char fp[300], to[128];
				ssize_t k;

				if (de->d_name[0] == '.')
					continue;
				(void) snprintf(fp, sizeof(fp), "%s/%s", path, de->d_name);
				k = readlink(fp, to, sizeof(to) - 1);
				to[k > 0 ? k : 0] = '\0';
				n++;
				socks += strncmp(to, "socket:", 7) == 0;
				(void) snprintf(list + strlen(list), sizeof(list) - strlen(list),
						" %s->%s", de->d_name, to);
			}
			if (n == 1 && socks == 1)
				break;
			(void) nanosleep(&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
		}
		closedir(d);
		result(n == 1 && socks == 1, "SPAWN: the process holds exactly one fd, a socket",
		       "/proc/%d/fd:%s", (int) pid, list);
	} else if (sync != NULL) {
		/* Not root: the root half of the scenario looks at /proc/PID/fd now. */
		sync_put(sync, "spawned", pid);
		if (!sync_wait(sync, "fdchecked"))
			result(false, "SPAWN: root looked at the process's fds",
			       "no word from root");
	} else {
		printf("ok - SPAWN: the process holds exactly one fd, a socket # SKIP %s: %s "
		       "(not root; 32-hostile-spawn.root.sh checks it as root)\n", path,
		       strerror(errno));
		fflush(stdout);
	}
	/* No stage ever: its recvmsg sees EOF, and that is a failed set-up. */
	close(sock);
	r = wait_child(pid, &st, 15000);
	result(r == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 125,
	       "SPAWN: when we close the stage socket unused, the process exits 125", "%s",
	       status_str(r, st, status, sizeof(status)));
	close(leaf);
	result(spawn_end(&h, why, sizeof(why)) && no_child_left(),
	       "SPAWN without a stage: DESTROY leaves nothing", "%s", why);
}

/* d. A second SPAWN after a successful one: out of order (OP_ONCE). */
static void
spawn_twice(void)
{
	const char *desc = "a second SPAWN is a protocol violation: helper exits 1, no reply, "
			   "torn down (leaf gone, first process killed)";
	struct helper h;
	int leaf, sock = -1, sv[2], r, w, st = 0, gone, hst;
	pid_t pid = 0;
	uint8_t buf[WIRE_MSG_MAX];
	char why[300] = "", left[256] = "", s[64];
	int len;

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		result(false, desc, "setup: %s", why);
		return;
	}
	len = frame(buf, WIRE_REQ_SPAWN, h.seq++, NULL, 0);
	(void) send_raw(&h, buf, (size_t) len, &sv[1], 1);
	close(sv[1]);
	r = recv_reply(&h, NULL, NULL, NULL, 0);
	hst = helper_wait(&h);
	/* We hold our end of the first stage socket: only a kill ends that process. */
	w = wait_child(pid, &st, 15000);
	gone = openat(leaf, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (gone >= 0)
		close(gone);
	result(r == -1 && hst == 1 && gone < 0 && w == 0 && WIFSIGNALED(st) &&
	       WTERMSIG(st) == SIGKILL && no_workspace_left(left, sizeof(left)) &&
	       no_child_left(), desc, "reply %d, helper exit %d, leaf %s, first process %s, "
	       "%s %s", r, hst, gone < 0 ? "gone" : "still there",
	       status_str(w, st, s, sizeof(s)), no_child_left() ? "" : "another child", left);
	close(sv[0]);
	close(sock);
	close(leaf);
}

/* e. A stage that is not one: the process exits 125 (a message on the pipe if it got
 * one), and the session ends cleanly. */
static void
spawn_bad_stage(const char *desc, int kind)
{
	static char *argv[] = { (char *) "/bin/true", NULL };
	struct helper h;
	int leaf, sock = -1, r = 0, w, st = 0, msg[2] = { -1, -1 }, fds[5];
	pid_t pid = 0;
	char why[300] = "", s[64];
	struct stage_msg m = { 0 };
	ssize_t got = -1;
	void *blob = NULL;
	size_t len = 0;

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0 ||
	    pipe2(msg, O_CLOEXEC) < 0) {
		result(false, desc, "setup: %s", why);
		return;
	}
	fds[0] = msg[1];
	fds[1] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fds[2] = fds[3] = fds[4] = 2;
	if (kind == 0) {                /* garbage in the memfd, fds all there */
		char junk[200];

		memset(junk, 'A', sizeof(junk));
		r = stage_send(sock, junk, sizeof(junk), fds, ELEMENTSOF(fds));
	} else if (kind == 1) {         /* a good blob, but 3 fds of the 6 */
		struct stage_spec ss = { .parent = getpid(), .argv = argv,
					 .envp = argv + 1 };

		r = stage_pack(&ss, &blob, &len);
		if (r == 0)
			r = stage_send(sock, blob, len, fds, 2);
		free(blob);
	} else {                        /* a count of 6 fds, and no fd at all */
		uint32_t n = 6;

		r = send(sock, &n, sizeof(n), MSG_NOSIGNAL) < 0 ? -errno : 0;
	}
	close(msg[1]);
	close(fds[1]);
	w = wait_child(pid, &st, 15000);
	if (kind == 0) {
		struct pollfd p = { .fd = msg[0], .events = POLLIN };

		if (poll(&p, 1, 5000) > 0)
			got = read(msg[0], &m, sizeof(m));
	}
	close(msg[0]);
	close(sock);
	close(leaf);
	{
		bool clean = spawn_end(&h, why, sizeof(why));

		result(r == 0 && w == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 125 &&
		       (kind != 0 || (got == (ssize_t) sizeof(m) && m.stage == STAGE_SETUP &&
				      m.err == EBADMSG)) && clean && no_child_left(), desc,
		       "send %d, process %s, message %zd bytes (stage %d err %d '%.60s'), %s", r,
		       status_str(w, st, s, sizeof(s)), got, m.stage, m.err, m.msg, why);
	}
}

/* f. The session socket closed while the process waits for its stage. */
static void
spawn_eof(void)
{
	const char *desc = "EOF on the session while the process waits for its stage: "
			   "torn down, the process killed";
	struct helper h;
	int leaf, sock = -1, w, st = 0, hst;
	pid_t pid = 0;
	char why[300] = "", left[256] = "", s[64];

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0) {
		result(false, desc, "setup: %s", why);
		return;
	}
	hst = helper_wait(&h);          /* closes the session socket first */
	w = wait_child(pid, &st, 15000);
	result(hst == 0 && w == 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL &&
	       no_workspace_left(left, sizeof(left)) && no_child_left(), desc,
	       "helper exit %d, process %s %s", hst, status_str(w, st, s, sizeof(s)), left);
	close(sock);
	close(leaf);
}

/* g. A full SPAWN: the stage's command runs (the status is its own) with no capability and
 * with no_new_privs. */
static void
spawn_run(void)
{
	static char *argv_exit[] = { (char *) "/bin/sh", (char *) "-c", (char *) "exit 7", NULL };
	static char *argv_cat[] = { (char *) "cat", (char *) "/proc/self/status", NULL };
	struct helper h;
	int leaf, sock = -1, msg = -1, w, st = 0, r, out[2] = { -1, -1 };
	pid_t pid = 0;
	char why[300] = "", s[64], text[4096] = "", caps[200], nnp[16];
	ssize_t got, n = 0;
	bool clean;

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0) {
		result(false, "SPAWN with a stage: the command runs", "setup: %s", why);
		return;
	}
	r = send_stage(sock, argv_exit, -1, &msg);
	close(sock);
	w = wait_child(pid, &st, 15000);
	/* A successful exec closes the message pipe with nothing in it. */
	got = msg < 0 ? -1 : read(msg, text, sizeof(text));
	if (msg >= 0)
		close(msg);
	close(leaf);
	clean = spawn_end(&h, why, sizeof(why));
	result(r == 0 && w == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 7 && got == 0 && clean &&
	       no_child_left(), "SPAWN with a stage running sh -c 'exit 7': exit status 7",
	       "stage %d, process %s, message pipe %zd, %s", r, status_str(w, st, s, sizeof(s)),
	       got, why);

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0 ||
	    pipe2(out, O_CLOEXEC) < 0) {
		result(false, "SPAWN with a stage: the command has no capability", "setup: %s",
		       why);
		return;
	}
	r = send_stage(sock, argv_cat, out[1], &msg);
	close(sock);
	close(out[1]);
	while (n < (ssize_t) sizeof(text) - 1 &&
	       (got = read(out[0], text + n, sizeof(text) - 1 - (size_t) n)) > 0)
		n += got;
	text[n] = '\0';
	close(out[0]);
	w = wait_child(pid, &st, 15000);
	if (msg >= 0)
		close(msg);
	close(leaf);
	clean = spawn_end(&h, why, sizeof(why));
	status_field(text, "NoNewPrivs", nnp, sizeof(nnp));
	result(r == 0 && w == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	       caps_zero(text, caps, sizeof(caps)) && strcmp(nnp, "1") == 0 && clean &&
	       no_child_left(), "SPAWN with a stage running cat /proc/self/status: "
	       "CapPrm, CapEff, CapInh, CapAmb 0, NoNewPrivs 1", "stage %d, process %s, %s, "
	       "NoNewPrivs '%s', %s", r, status_str(w, st, s, sizeof(s)), caps, nnp, why);
}

/* Every signal, 1-64, but SIGKILL and SIGSTOP, as a /proc/PID/status mask (glibc's own 32
 * and 33 included: the helper blocks them with the raw system call). */
static uint64_t
blockable(void)
{
	uint64_t m = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			m |= UINT64_C(1) << (sig - 1);
	return m;
}

/* h. The user signals the process before its stage: it has every signal blocked and
 * nothing of the helper's to run, so the signals wait, and it still takes its stage.  No
 * assertion depends on timing: a blocked signal is pending as soon as kill() returns. */
static void
spawn_signalled(void)
{
	static char *argv_exit[] = { (char *) "/bin/sh", (char *) "-c", (char *) "exit 7", NULL };
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	const char *desc = "SIGTERM/SIGINT/SIGHUP to the process before its stage: blocked, "
			   "pending, the process alive";
	struct helper h;
	int leaf, sock = -1, msg = -1, w, st = 0, r;
	pid_t pid = 0;
	char why[300] = "", s[64], status[4096], blk[32], pnd[32], cgt[32];
	uint64_t sent = 0, b, p;
	bool alive, ok;

	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0) {
		result(false, desc, "setup: %s", why);
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(sigs); i++) {
		(void) kill(pid, sigs[i]);
		sent |= UINT64_C(1) << (sigs[i] - 1);
	}
	proc_status(pid, status, sizeof(status));
	status_field(status, "SigBlk", blk, sizeof(blk));
	status_field(status, "ShdPnd", pnd, sizeof(pnd));
	status_field(status, "SigCgt", cgt, sizeof(cgt));
	b = strtoull(blk, NULL, 16);
	p = strtoull(pnd, NULL, 16);
	alive = waitpid(pid, &st, WNOHANG) == 0;
	result(alive && (b & blockable()) == blockable() && (p & sent) == sent, desc,
	       "%s, SigBlk '%s' (want all of %016llx), ShdPnd '%s', SigCgt '%s'",
	       alive ? "alive" : "dead", blk, (unsigned long long) blockable(), pnd, cgt);
	/* Then the stage: the command runs, or the process dies of one of our signals with
	 * its default action when the stage unblocks them before the exec; or teardown's
	 * SIGKILL.  Any other end (exit 125, 0, ...) means code of the helper's reacted. */
	r = send_stage(sock, argv_exit, -1, &msg);
	close(sock);
	w = wait_child(pid, &st, 15000);
	if (msg >= 0)
		close(msg);
	ok = r == 0 && w == 0 &&
	     ((WIFEXITED(st) && WEXITSTATUS(st) == 7) ||
	      (WIFSIGNALED(st) && (WTERMSIG(st) == SIGKILL ||
				   (sent & (UINT64_C(1) << (WTERMSIG(st) - 1))) != 0)));
	printf("# spawn: signalled before its stage, the process: %s\n",
	       status_str(w, st, s, sizeof(s)));
	close(leaf);
	ok = spawn_end(&h, why, sizeof(why)) && ok && no_child_left();
	result(ok, "after those signals the process still takes its stage: exit 7, or killed "
	       "by one of them (default action) or by SIGKILL", "stage %d, process %s, %s", r,
	       status_str(w, st, s, sizeof(s)), why);
}

static void
group_spawn(void)
{
	pid_t c;

	/* a. Not a unix socket. */
	spawn_refused("SPAWN of a regular file ends the session",
		      open("/etc/passwd", O_RDONLY | O_CLOEXEC), 0);
	{
		int p[2] = { -1, -1 };

		if (pipe2(p, O_CLOEXEC) == 0)
			close(p[1]);
		spawn_refused("SPAWN of a pipe ends the session", p[0], 0);
	}
	spawn_refused("SPAWN of a cgroup dir fd ends the session",
		      open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC), 0);
	spawn_refused("SPAWN of /dev/null ends the session",
		      open("/dev/null", O_RDWR | O_CLOEXEC), 0);
	c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	spawn_refused("SPAWN of a pidfd of our child (ATTACH's fd) ends the session",
		      c > 0 ? (int) syscall(SYS_pidfd_open, c, 0) : -1, c);
	{
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd >= 0)
			spawn_refused("SPAWN of an AF_INET socket ends the session", fd, 0);
		else
			printf("ok - SPAWN of an AF_INET socket is refused (EBADF) # SKIP "
			       "socket(AF_INET): %s\n", strerror(errno));
	}
	/* b. The fd count is part of the frame. */
	spawn_fd_count("SPAWN without an fd: protocol violation (helper exits 1, no reply, "
		       "nothing left, no process)", 0);
	spawn_fd_count("SPAWN with two unix sockets: protocol violation (helper exits 1, no "
		       "reply, nothing left, no process)", 2);
	/* c - h. */
	spawn_no_stage();
	spawn_twice();
	spawn_bad_stage("a stage of garbage in its memfd: the process exits 125 (EBADMSG on "
			"the message pipe); DESTROY leaves nothing", 0);
	spawn_bad_stage("a stage with 3 fds of 6: the process exits 125; DESTROY leaves nothing",
			1);
	spawn_bad_stage("a stage message without any fd: the process exits 125; DESTROY "
			"leaves nothing", 2);
	spawn_eof();
	spawn_run();
	spawn_signalled();
}

/* ---- exec conditions ---- */

/* One session under cond c: HELLO, then CREATE, then DESTROY when CREATE worked.  Each
 * step's result is -9 when it was not tried; st the helper's exit status.  -1 when the
 * helper could not be started (the result is then reported as failed). */
struct steps {
	int hello, create, destroy, st;
};

static int
session_steps(const char *desc, enum cond c, struct steps *ret)
{
	struct helper h;
	int rfds[2] = { -1, -1 };
	size_t nr = 0;

	*ret = (struct steps){ -9, -9, -9, -9 };
	if (helper_start(&h, c) < 0) {
		result(false, desc, "cannot start the helper");
		return -1;
	}
	ret->hello = hello(&h);
	if (ret->hello == 0) {
		ret->create = create(&h, rfds, &nr);
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		if (ret->create == 0)
			ret->destroy = simple(&h, WIRE_REQ_DESTROY);
	}
	ret->st = helper_wait(&h);
	return 0;
}

/* Full session (HELLO, CREATE, DESTROY) under cond: want_ok says whether it must succeed
 * (else: refused at HELLO with EPERM).  Either way: clean exit, nothing left. */
static void
session_under(const char *desc, enum cond c, bool want_ok)
{
	struct steps t;
	char why[256] = "";

	if (session_steps(desc, c, &t) < 0)
		return;
	if (want_ok)
		result(t.hello == 0 && t.create == 0 && t.destroy == 0 && t.st == 0 &&
		       no_workspace_left(why, sizeof(why)), desc,
		       "hello %d create %d destroy %d exit %d %s", t.hello, t.create, t.destroy,
		       t.st, why);
	else
		result(t.hello == EPERM && t.st == 1 && no_workspace_left(why, sizeof(why)), desc,
		       "hello %d (want EPERM) exit %d %s", t.hello, t.st, why);
}

/* Under hostile limits the helper may fail, but must fail closed: an error reply or a
 * dropped session, exit, and nothing left behind. */
static void
session_fail_closed(const char *desc, enum cond c)
{
	struct steps t;
	char why[256] = "";

	if (session_steps(desc, c, &t) < 0)
		return;
	printf("# %s: hello %d create %d destroy %d exit %d\n", desc, t.hello, t.create,
	       t.destroy, t.st);
	result(t.st >= 0 && no_workspace_left(why, sizeof(why)), desc, "exit %d %s", t.st, why);
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

/* ---- createsteps: the helper limited or killed at each step of CREATE with a timeout ---- */

static int
create_timeout(struct helper *h, int *rfds, size_t *nrfds)
{
	uint8_t body[5 * 8 + 5 * 4] = { 0 };
	uint64_t t = htobe64(60000);    /* ms: a deadline record is written */

	memcpy(body + 4 * 8, &t, sizeof(t));
	return request(h, WIRE_REQ_CREATE, body, sizeof(body), NULL, 0, rfds, nrfds, NULL, 0);
}

/* The user's next session after a broken one, which reclaims what that left: 0 when it
 * created (with a deadline) and destroyed a sandbox, else the failing step's result (-9:
 * the helper did not start).  *ret_st: its exit status, -9 when HELLO did not succeed. */
static int
next_session(int *ret_st)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r;
	size_t nr = 0;

	*ret_st = -9;
	if (helper_start(&h, C_NONE) < 0)
		return -9;
	r = hello(&h);
	if (r != 0)
		return r;
	r = create_timeout(&h, rfds, &nr);
	for (size_t i = 0; i < nr; i++)
		close(rfds[i]);
	if (r == 0)
		r = simple(&h, WIRE_REQ_DESTROY);
	*ret_st = helper_wait(&h);
	return r;
}

/* A line into the FIFO $HOSTILE_SYNC/wake, if the root half has it open: root sleeps in a
 * read on it instead of polling for the step files (a poll forks in the shell, and in this
 * guest every fork takes CPU from the helper under test).  Without a reader, nothing. */
static void
sync_wake(const char *dir)
{
	char path[256];
	int fd;

	if (dir == NULL)
		return;
	(void) snprintf(path, sizeof(path), "%s/wake", dir);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	(void) !write(fd, "\n", 1);
	close(fd);
}

/* Step n of the root half: "PHASE DESC" in $HOSTILE_SYNC/sN (and a wake), then wait for its
 * cN; returns '1' when root made no uN before cN (for phase 3: root traces the helper),
 * else '0'. */
static int
step_sync(const char *dir, int n, int phase, const char *desc)
{
	char path[256], tmp[300], name[16];
	FILE *f;

	(void) snprintf(path, sizeof(path), "%s/s%d", dir, n);
	(void) snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f == NULL)
		return EOF;
	fprintf(f, "%d %s\n", phase, desc);
	fclose(f);
	(void) rename(tmp, path);
	sync_wake(dir);
	(void) snprintf(name, sizeof(name), "c%d", n);
	if (!sync_wait(dir, name))
		return EOF;
	/* uN is made before cN: seen or not, it is settled once cN is there. */
	(void) snprintf(path, sizeof(path), "%s/u%d", dir, n);
	return access(path, F_OK) == 0 ? '0' : '1';
}

/* One case: a helper under c, its CREATE (with a timeout) left alone or answered with
 * SIGKILL kill_us microseconds after it was sent (-1: never); the root half looks at what
 * is left; then the user's next session, which must work; the root half looks again. */
static void
createstep(const char *dir, int *n, const char *desc, enum cond c, long kill_us, int *ret_hello,
	   int *ret_create)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r = -9, cr = -9, st;
	size_t nr = 0;
	bool later = c == C_LIMIT && limit_after_hello;

	if (helper_start(&h, later ? C_NONE : c) < 0) {
		result(false, desc, "cannot start the helper");
		return;
	}
	if (kill_us >= 0) {
		uint8_t buf[WIRE_MSG_MAX], body[5 * 8 + 5 * 4] = { 0 };
		uint64_t t = htobe64(60000);
		int len;

		memcpy(body + 4 * 8, &t, sizeof(t));
		len = frame(buf, WIRE_REQ_CREATE, h.seq + 1, body, sizeof(body));
		r = hello(&h);
		if (r == 0 && len > 0 && send_raw(&h, buf, (size_t) len, NULL, 0) == 0) {
			(void) nanosleep(&(struct timespec) { 0, kill_us * 1000 }, NULL);
			(void) kill(h.pid, SIGKILL);
		}
	} else if ((r = hello(&h)) == 0) {
		if (later)
			(void) prlimit(h.pid, limit_res, &(struct rlimit) { limit_val, limit_val },
				       NULL);
		cr = create_timeout(&h, rfds, &nr);
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		if (cr == 0)
			(void) simple(&h, WIRE_REQ_DESTROY);
	}
	st = helper_wait(&h);
	printf("# %s: hello %d create %d exit %d\n", desc, r, cr, st);
	if (ret_hello != NULL)
		*ret_hello = r;
	if (ret_create != NULL)
		*ret_create = cr;
	step_sync(dir, ++*n, 1, desc);
	/* The user's next session (with a timeout) reclaims whatever is left. */
	r = next_session(&st);
	result(r == 0 && st == 0, desc, "next session: %d, exit %d", r, st);
	step_sync(dir, ++*n, 2, desc);
}

/* Run by root (which may trace the capable helper): stop the helper pid at its n-th system
 * call entry from now and SIGKILL it there.  Prints "attached" once attached, then wakes
 * the reader of $HOSTILE_SYNC/wake if it is set (sync_wake).  Exit 0:
 * killed at the n-th; 1: the helper exited before; 2: ptrace failed. */
static int
killat(pid_t pid, long n)
{
	long seen = 0;
	int st, sig = 0;

	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *) PTRACE_O_TRACESYSGOOD) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) < 0 || waitpid(pid, &st, 0) != pid) {
		printf("# killat: %s\n", strerror(errno));
		return 2;
	}
	printf("attached\n");
	fflush(stdout);
	sync_wake(getenv("HOSTILE_SYNC"));
	for (bool entry = true;; entry = !entry) {
		struct __ptrace_syscall_info si = { 0 };

		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *) (long) sig) < 0 ||
		    waitpid(pid, &st, 0) != pid) {
			printf("# killat: %s after %ld calls\n", strerror(errno), seen);
			return 2;
		}
		sig = 0;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			printf("# killat: the helper ended after %ld calls\n", seen);
			return 1;
		}
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			/* A signal for the helper is passed on; a group or event stop is not. */
			if (st >> 16 == 0 && WSTOPSIG(st) != SIGSTOP && WSTOPSIG(st) != SIGTRAP)
				sig = WSTOPSIG(st);
			entry = !entry;         /* not a system call stop */
			continue;
		}
		/* Entry or exit as the kernel says, else as they alternate. */
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *) sizeof(si), &si) > 0 &&
		    (si.op == PTRACE_SYSCALL_INFO_ENTRY || si.op == PTRACE_SYSCALL_INFO_EXIT))
			entry = si.op == PTRACE_SYSCALL_INFO_ENTRY;
		if (entry && ++seen == n) {
			(void) kill(pid, SIGKILL);
			(void) waitpid(pid, &st, 0);
			printf("# killed at system call %ld\n", seen);
			return 0;
		}
	}
}

/* The helper SIGKILLed at the n-th system call from the end of HELLO, by root's tracer
 * (step_sync phase 3: "PID N"): the CREATE that follows dies at that call.  Returns whether
 * CREATE still completed under the tracer (n is past its last call). */
static bool
createstep_at(const char *dir, int *n, long at)
{
	struct helper h;
	int rfds[2] = { -1, -1 }, r, cr = -9, st;
	size_t nr = 0;
	char desc[160], arg[64];
	bool traced;

	(void) snprintf(desc, sizeof(desc), "SIGKILL at the helper's system call %ld of CREATE",
			at);
	if (helper_start(&h, C_NONE) < 0 || (r = hello(&h)) != 0) {
		result(false, desc, "cannot start the helper");
		return true;
	}
	(void) snprintf(arg, sizeof(arg), "%d %ld", (int) h.pid, at);
	traced = step_sync(dir, ++*n, 3, arg) == '1';
	cr = create_timeout(&h, rfds, &nr);
	for (size_t i = 0; i < nr; i++)
		close(rfds[i]);
	if (cr == 0)
		(void) simple(&h, WIRE_REQ_DESTROY);
	st = helper_wait(&h);
	printf("# %s: create %d exit %d\n", desc, cr, st);
	step_sync(dir, ++*n, 1, desc);
	r = next_session(&st);
	if (traced)
		result(r == 0 && st == 0, desc, "next session: %d, exit %d", r, st);
	else
		printf("ok - %s # SKIP root could not trace the helper this time\n", desc);
	step_sync(dir, ++*n, 2, desc);
	return traced && cr == 0;
}

static void
group_createsteps(void)
{
	static const struct { const char *desc; int res; rlim_t v; } lim[] = {
		{ "RLIMIT_FSIZE 1", RLIMIT_FSIZE, 1 },
		{ "RLIMIT_CPU 0", RLIMIT_CPU, 0 },
		{ "RLIMIT_AS 16 MiB", RLIMIT_AS, 16 << 20 },
		{ "RLIMIT_DATA 0", RLIMIT_DATA, 0 },
		{ "RLIMIT_STACK 16 KiB", RLIMIT_STACK, 16 << 10 },
		{ "RLIMIT_CORE 0", RLIMIT_CORE, 0 },
		{ "RLIMIT_NICE 0", RLIMIT_NICE, 0 },
		{ "RLIMIT_RTPRIO 0", RLIMIT_RTPRIO, 0 },
		{ "RLIMIT_MEMLOCK 0", RLIMIT_MEMLOCK, 0 },
		{ "RLIMIT_SIGPENDING 0", RLIMIT_SIGPENDING, 0 },
		{ "RLIMIT_MSGQUEUE 0", RLIMIT_MSGQUEUE, 0 },
		{ "nice 19", -1, 19 },
	};
	const char *dir = getenv("HOSTILE_SYNC");
	struct timespec t0, t1;
	struct helper h;
	char desc[160];
	long t_us;
	int n = 0, hr = -9, cr = -9;

	if (dir == NULL) {
		result(false, "createsteps", "HOSTILE_SYNC is not set");
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(lim); i++) {
		limit_res = lim[i].res;
		limit_val = lim[i].v;
		(void) snprintf(desc, sizeof(desc), "%s: CREATE with a timeout", lim[i].desc);
		createstep(dir, &n, desc, C_LIMIT, -1, NULL, NULL);
	}
	/* Refused with the reason, not killed by SIGXFSZ or failing a step later. */
	limit_res = RLIMIT_FSIZE;
	limit_val = 0;
	createstep(dir, &n, "RLIMIT_FSIZE 0 at exec: CREATE with a timeout", C_LIMIT, -1, &hr,
		   &cr);
	result(hr == 0 && cr == EFBIG, "RLIMIT_FSIZE 0 at exec: CREATE with a timeout refused "
	       "with EFBIG", "hello %d create %d", hr, cr);
	limit_res = RLIMIT_NOFILE;
	limit_val = 32;
	createstep(dir, &n, "RLIMIT_NOFILE 32 at exec", C_LIMIT, -1, &hr, &cr);
	result(hr == EMFILE, "RLIMIT_NOFILE 32 at exec: HELLO refused with EMFILE", "hello %d", hr);
	/* Set with prlimit(2) after HELLO, as the user may: RLIMIT_NOFILE k fails the step
	 * that needs the k-th descriptor, each in turn. */
	limit_after_hello = true;
	for (rlim_t k = 5; k <= 24; k++) {
		limit_val = k;
		(void) snprintf(desc, sizeof(desc), "RLIMIT_NOFILE %u after HELLO: CREATE with a "
				"timeout", (unsigned) k);
		createstep(dir, &n, desc, C_LIMIT, -1, NULL, NULL);
	}
	limit_res = RLIMIT_FSIZE;
	limit_val = 0;
	createstep(dir, &n, "RLIMIT_FSIZE 0 after HELLO: CREATE with a timeout", C_LIMIT, -1,
		   &hr, &cr);
	result(cr == EFBIG, "RLIMIT_FSIZE 0 after HELLO: CREATE with a timeout refused with "
	       "EFBIG", "hello %d create %d", hr, cr);
	limit_after_hello = false;
	/* SIGKILL at points spread over a CREATE's length (as measured here), and after. */
	t_us = 0;
	if (helper_start(&h, C_NONE) == 0 && hello(&h) == 0) {
		int rfds[2] = { -1, -1 };
		size_t nr = 0;

		(void) clock_gettime(CLOCK_MONOTONIC, &t0);
		if (create_timeout(&h, rfds, &nr) == 0)
			(void) simple(&h, WIRE_REQ_DESTROY);
		(void) clock_gettime(CLOCK_MONOTONIC, &t1);
		for (size_t i = 0; i < nr; i++)
			close(rfds[i]);
		t_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
	}
	(void) helper_wait(&h);
	printf("# a CREATE and DESTROY take about %ld us here\n", t_us);
	for (long i = 0; i <= 12; i++) {
		(void) snprintf(desc, sizeof(desc), "SIGKILL %ld/10 of a CREATE after it was sent",
				i);
		createstep(dir, &n, desc, C_NONE, i * t_us / 10, NULL, NULL);
	}
	/* Each system call of a CREATE in turn, until one completes. */
	for (long at = 1; at <= 400 && !createstep_at(dir, &n, at); at++)
		;
	step_sync(dir, ++n, 0, "done");
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

/* Runs inside the sandbox (the stage's command of a SPAWN); exit status = number of
 * escapes, or 99 if it does not find itself in the leaf. */
static int
escapee(const char *leaf)
{
	char path[512], me[32], cg[512] = "";
	int escapes = 0, r, cgfd;
	ssize_t n;
	static const char *const files[] = { "memory.max", "memory.swap.max", "pids.max",
		"cpu.max", "memory.oom.group", "cgroup.subtree_control", "cgroup.kill" };

	/* "0::/sandcap/..." names the leaf below the cgroup2 mount (/sys/fs/cgroup). */
	cgfd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	n = cgfd < 0 ? -1 : read(cgfd, cg, sizeof(cg) - 1);
	cg[n > 0 ? n : 0] = '\0';
	cg[strcspn(cg, "\n")] = '\0';
	if (cgfd >= 0)
		close(cgfd);
	(void) snprintf(path, sizeof(path), "0::%s", leaf + strlen("/sys/fs/cgroup"));
	printf("# escape: running in %s\n", cg);
	if (strncmp(leaf, "/sys/fs/cgroup/", 15) != 0 || strcmp(cg, path) != 0)
		return 99;
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
	int leaf, sock = -1, msg = -1, st = 0, r, w;
	pid_t pid = 0;
	char why[300] = "", path[256], self[256], idpath[64], s[64];
	char *argv[] = { self, (char *) "escapee", path, NULL };
	ssize_t n;

	/* The sandboxed process is SPAWN's: this program again, as its stage's command. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (spawn_start(&h, &leaf, &sock, &pid, why, sizeof(why)) < 0) {
		result(false, "SPAWN of the escapee", "%s", why);
		return;
	}
	/* The leaf's path, from the leaf dirfd the helper gave us. */
	(void) snprintf(idpath, sizeof(idpath), "/proc/self/fd/%d", leaf);
	n = readlink(idpath, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	fflush(stdout);         /* the escapee writes its "#" lines to our stdout */
	r = send_stage(sock, argv, -1, &msg);
	close(sock);
	w = wait_child(pid, &st, 60000);
	if (msg >= 0)
		close(msg);
	result(r == 0 && w == 0 && WIFEXITED(st) && WEXITSTATUS(st) != 99 &&
	       WEXITSTATUS(st) < 125, "SPAWN of the escapee: it runs in the leaf",
	       "stage %d, escapee %s (99: not in the leaf)", r, status_str(w, st, s, sizeof(s)));
	result(w == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "sandboxed process: no cgroup.procs, limit file or userns cgroup2 write succeeded",
	       "escapee %s (exit N: N escapes)", status_str(w, st, s, sizeof(s)));
	close(leaf);
	result(spawn_end(&h, why, sizeof(why)), "torn down after the escape attempts", "%s",
	       why);
}

#include "hostile-core.inc"

/* level: a session level (CREATE role 1) runs no process: SPAWN into it is refused (the
 * kernel: controllers are enabled below it), the connection goes on, DESTROY removes all. */
static void
group_level(void)
{
	uint8_t body[5 * 8 + 5 * 4] = { 0 };
	uint32_t role = htobe32(1);
	uint64_t ttl = htobe64(60000);
	int rfds[2], sv[2], r, st;
	char why[512] = "";
	struct helper h;
	size_t n = 0;

	memcpy(body + 4 * 8, &ttl, sizeof(ttl));
	memcpy(body + 52, &role, sizeof(role));
	if (helper_start(&h, C_NONE) < 0 || hello(&h) != 0 ||
	    request(&h, WIRE_REQ_CREATE, body, sizeof(body), NULL, 0, rfds, &n, why,
		    sizeof(why)) != 0) {
		result(false, "a session level is made", "%s", why);
		return;
	}
	for (size_t i = 0; i < n; i++)
		close(rfds[i]);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	r = request(&h, WIRE_REQ_SPAWN, NULL, 0, &sv[0], 1, NULL, NULL, why, sizeof(why));
	result(r == EBUSY, "SPAWN into a session level: refused (EBUSY)", "status %d: %s", r, why);
	close(sv[0]);
	close(sv[1]);
	r = simple(&h, WIRE_REQ_DESTROY);
	st = helper_wait(&h);
	result(r == 0 && st == 0 && no_workspace_left(why, sizeof(why)),
	       "... and DESTROY then removes the level and its workspace", "reply %d, exit %d %s",
	       r, st, why);
}

/* join NAME: HELLO, then CREATE of a call in session NAME (as the session's calls do);
 * prints "created" or "refused ERRNO REASON" and ends the connection (the helper then
 * removes whatever it made). */
static int
join(const char *name)
{
	uint8_t body[5 * 8 + 5 * 4 + 64] = { 0 };
	uint32_t role = htobe32(2), len = htobe32((uint32_t) strlen(name));
	int rfds[2], st, r;
	char why[512] = "";
	struct helper h;
	size_t n = 0;

	if (strlen(name) > 64 || helper_start(&h, C_NONE) < 0 || hello(&h) != 0)
		return 2;
	memcpy(body + 52, &role, 4);
	memcpy(body + 56, &len, 4);
	memcpy(body + 60, name, strlen(name));
	r = request(&h, WIRE_REQ_CREATE, body, 60 + strlen(name), NULL, 0, rfds, &n, why,
		    sizeof(why));
	for (size_t i = 0; i < n; i++)
		close(rfds[i]);
	if (r == 0)
		printf("created\n");
	else
		printf("refused %d %s\n", r, why);
	close(h.sock);
	st = helper_wait(&h);
	return r == 0 || r > 0 ? (st >= 0 ? 0 : 3) : 2;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "escapee") == 0)
		return escapee(argv[2]);
	if (argc == 4 && strcmp(argv[1], "killat") == 0)
		return killat((pid_t) atoi(argv[2]), atol(argv[3]));
	helper_path = getenv("SANDCAP_HELPER");
	if (argc == 3 && helper_path != NULL && strcmp(argv[1], "cap") == 0) {
		(void) signal(SIGPIPE, SIG_IGN);
		group_cap(atoi(argv[2]));
		return 0;
	}
	if (argc == 3 && helper_path != NULL && strcmp(argv[1], "join") == 0)
		return join(argv[2]);
	if (argc == 3 && helper_path != NULL && strcmp(argv[1], "tmprace") == 0) {
		(void) signal(SIGPIPE, SIG_IGN);
		group_tmprace(atoi(argv[2]));
		return nfail == 0 ? 0 : 1;
	}
	if (argc != 2 || helper_path == NULL) {
		fprintf(stderr, "usage: SANDCAP_HELPER=PATH hostile-client frames|spawn|exec|"
			"escape|flood|workspace|createsteps|level|join NAME|tmprace N|cap N\n");
		return 64;
	}
	(void) signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[1], "frames") == 0)
		group_frames();
	else if (strcmp(argv[1], "spawn") == 0)
		group_spawn();
	else if (strcmp(argv[1], "exec") == 0)
		group_exec();
	else if (strcmp(argv[1], "escape") == 0)
		group_escape();
	else if (strcmp(argv[1], "flood") == 0)
		group_flood();
	else if (strcmp(argv[1], "workspace") == 0)
		group_workspace();
	else if (strcmp(argv[1], "createsteps") == 0)
		group_createsteps();
	else if (strcmp(argv[1], "level") == 0)
		group_level();
	else
		return 64;
	return nfail == 0 ? 0 : 1;
}
