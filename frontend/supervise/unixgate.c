/* SPDX-License-Identifier: MIT */
/* The sandbox's connect() calls, made by sandcap; see unixgate.h.  The notifications and
 * the connections; which listener a UNIX connect() reaches is unixgate-lookup.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "macro.h"
#include "procstat.h"
#include "supervise/rawproc.h"
#include "supervise/unixdiag.h"
#include "supervise/unixgate.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/* The kernel's notification and response, in buffers at least as large as the kernel's
 * (SECCOMP_GET_NOTIF_SIZES), which may be newer than our headers. */
#define NOTIF_BUF 512

static _Alignas(8) unsigned char notif_buf[NOTIF_BUF];
static _Alignas(8) unsigned char resp_buf[NOTIF_BUF];
static struct seccomp_notif_sizes notif_sizes;

bool
ugate_id_valid(const struct ugate *g, uint64_t id)
{
	return ioctl(g->notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void
respond(const struct ugate *g, uint64_t id, int err)
{
	struct seccomp_notif_resp *resp = (struct seccomp_notif_resp *) resp_buf;

	memset(resp_buf, 0, sizeof(resp_buf));
	resp->id = id;
	resp->error = err < 0 ? err : 0;
	resp->val = 0;
	/* ENOENT: the thread was interrupted or is gone; nothing waits for the answer. */
	(void) ioctl(g->notify_fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

void
ugate_addr_str(const void *sa_, unsigned len, char *buf, size_t size)
{
	const struct sockaddr_un *sa = sa_;
	size_t n = len > offsetof(struct sockaddr_un, sun_path)
			   ? len - offsetof(struct sockaddr_un, sun_path)
			   : 0;
	size_t o = 0;

	if (size == 0)
		return;
	if (n > sizeof(sa->sun_path))
		n = sizeof(sa->sun_path);
	for (size_t i = 0; i < n && o + 5 < size; i++) {
		unsigned char c = (unsigned char) sa->sun_path[i];

		if (c == '\0' && i == 0)
			buf[o++] = '@';
		else if (c == '\0')
			break;
		else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			o += (size_t) snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char) c;
	}
	buf[o < size ? o : size - 1] = '\0';
}

/* A pidfd for the thread tid, or for its process where the kernel has no thread pidfds
 * (before 6.9): its descriptor table then, which every thread shares unless it was made
 * with a table of its own; the descriptor read there decides nothing but the kind of
 * socket, and what is put in goes into the calling thread's table (ADDFD). */
static int
thread_pidfd(pid_t tid)
{
	char path[64], buf[1024];
	const char *t;
	int fd = pidfd_open(tid, PIDFD_THREAD);

	if (fd >= 0 || errno != EINVAL)
		return fd < 0 ? -errno : fd;
	fd = pidfd_open(tid, 0);
	if (fd >= 0 || errno != EINVAL)
		return fd < 0 ? -errno : fd;
	(void) snprintf(path, sizeof(path), "/proc/%d/status", (int) tid);
	if (read_full_at(AT_FDCWD, path, buf, sizeof(buf), NULL) < 0)
		return -ESRCH;
	t = strstr(buf, "\nTgid:");
	if (t == NULL)
		return -ESRCH;
	fd = pidfd_open((pid_t) strtol(t + 6, NULL, 10), 0);
	return fd < 0 ? -errno : fd;
}

static int connect_in(const struct ugate *g, uint64_t id, pid_t tid, int fd,
		      const struct sockaddr_un *sa, socklen_t len);

/* connect(fd, sa, len) as thread tid would resolve the path: a relative one from its
 * working directory, its /proc/self as its own.  0 or -errno. */
static int
connect_as(const struct ugate *g, uint64_t id, pid_t tid, int fd, const struct sockaddr_un *sa,
	   socklen_t len)
{
	struct sockaddr_un re;
	socklen_t re_len = 0;
	int rw = sa->sun_family == AF_UNIX ? ugate_proc_self(sa, len, tid, &re, &re_len) : 0;

	if (rw < 0)
		return rw;
	if (rw > 0) {
		sa = &re;
		len = re_len;
	}
	return connect_in(g, id, tid, fd, sa, len);
}

static int
connect_in(const struct ugate *g, uint64_t id, pid_t tid, int fd, const struct sockaddr_un *sa,
	   socklen_t len)
{
	bool relative = sa->sun_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
			sa->sun_path[0] != '\0' && sa->sun_path[0] != '/';
	_cleanup_close_ int dir = -EBADF;
	char path[64];
	int r;

	if (relative) {
		(void) snprintf(path, sizeof(path), "/proc/%d/cwd", (int) tid);
		dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0 || !ugate_id_valid(g, id))
			return -ENOENT;
		if (fchdir(dir) < 0)
			return -errno;
	}
	r = connect(fd, (const struct sockaddr *) sa, len) < 0 ? -errno : 0;
	if (relative && fchdir(g->cwd) < 0)
		abort(); /* our own directory is gone from under us */
	return r;
}

/* Whether the command's descriptor tfd of thread tid is close-on-exec (fdinfo's flags). */
static bool
fd_cloexec(pid_t tid, int tfd)
{
	char path[80], buf[256];
	const char *f;

	(void) snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int) tid, tfd);
	if (read_full_at(AT_FDCWD, path, buf, sizeof(buf), NULL) < 0)
		return true;
	f = strstr(buf, "flags:");
	return f == NULL || (strtoul(f + 6, NULL, 8) & O_CLOEXEC) != 0;
}

/* connect(s, ...) to the listener ugate_listener_of() decided on: through the socket file it
 * opened, or to the abstract name (which stays bound to the listener we hold). */
static int
connect_decided(int s, int file, const struct sockaddr_un *sa, socklen_t len)
{
	struct sockaddr_un via = { .sun_family = AF_UNIX };
	int n;

	if (file < 0)
		return connect(s, (const struct sockaddr *) sa, len) < 0 ? -errno : 0;
	n = snprintf(via.sun_path, sizeof(via.sun_path), "/proc/thread-self/fd/%d", file);
	if (n < 0 || (size_t) n >= sizeof(via.sun_path))
		return -ENAMETOOLONG;
	return connect(s, (const struct sockaddr *) &via,
		       (socklen_t) (offsetof(struct sockaddr_un, sun_path) + (size_t) n + 1)) < 0
		       ? -errno
		       : 0;
}

/* UNIX stream or seqpacket: the listener is decided on first (ugate_listener_of()), then our
 * own socket connects to it and replaces the command's. */
static int
unix_stream(struct ugate *g, const struct seccomp_notif *req, int cmd_sock, int type,
	    const struct sockaddr_un *sa, socklen_t len)
{
	struct sockaddr_un me;
	socklen_t me_len = sizeof(me);
	_cleanup_close_ int s = -EBADF, lsock = -EBADF, file = -EBADF;
	int tfd = (int) req->data.args[0], on = 0, fl, r;
	socklen_t on_len = sizeof(on);

	if (getpeername(cmd_sock, (struct sockaddr *) &me, &me_len) == 0)
		return -EISCONN;
	me_len = sizeof(me);
	/* A bound or listening socket would lose its address to ours: not supported. */
	if (getsockname(cmd_sock, (struct sockaddr *) &me, &me_len) < 0)
		return -errno;
	if (me_len > sizeof(sa_family_t))
		return -EOPNOTSUPP;
	if (len <= offsetof(struct sockaddr_un, sun_path) || len > sizeof(struct sockaddr_un) ||
	    sa->sun_family != AF_UNIX)
		return -EINVAL;
	lsock = ugate_listener_of(g, req->id, req->pid, type, sa, len, &file);
	if (lsock == -EACCES) {
		if (g->n_refused++ == 0)
			ugate_addr_str(sa, len, g->first_refused, sizeof(g->first_refused));
		return -EACCES;
	}
	if (lsock < 0)
		return lsock;
	if (!ugate_id_valid(g, req->id))
		return -ESRCH;
	s = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -errno;
	if (getsockopt(cmd_sock, SOL_SOCKET, SO_PASSCRED, &on, &on_len) == 0 && on)
		(void) setsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	r = connect_decided(s, file, sa, len);
	/* A full backlog: the command's blocking connect would wait; ours may not. */
	if (r == -EINPROGRESS)
		r = -EAGAIN;
	if (r < 0)
		return r;
	fl = fcntl(cmd_sock, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK) == 0)
		(void) fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
	struct seccomp_notif_addfd add = {
		.id = req->id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (uint32_t) s,
		.newfd = (uint32_t) tfd,
		.newfd_flags = fd_cloexec(req->pid, tfd) ? O_CLOEXEC : 0,
	};
	/* In two steps (descriptor, then the answer 0): what goes in was decided on, and
	 * whatever the sandbox does to the number meanwhile concerns only itself. */
	if (ioctl(g->notify_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0)
		return -errno;
	g->n_allowed++;
	return 0;
}

static void
on_tick(int sig)
{
	(void) sig;
}

/* connect(fd, sa, len) on a socket whose file the sandbox shares: it may clear O_NONBLOCK
 * between our setting it and the call, and a blocking connect would hold the supervisor
 * (timeouts, signals) for as long as the kernel retries.  A repeating SIGALRM with a
 * handler that does not restart the call makes it return EINTR within a tick; nothing
 * else in sandcap uses SIGALRM or the real-time interval timer.  A tick left pending when
 * the timer stops is taken while blocked, before the default action (termination) is put
 * back.  -errno as connect() sets it, or 0. */
static int
connect_bounded(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct sigaction tick = { .sa_handler = on_tick }, old;
	struct itimerval on = { .it_interval = { 0, 20000 }, .it_value = { 0, 20000 } }, off = {};
	struct timespec zero = { 0, 0 };
	sigset_t alrm, mask;
	int r;

	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	if (sigaction(SIGALRM, &tick, &old) < 0)
		return -errno;
	if (setitimer(ITIMER_REAL, &on, NULL) < 0) {
		r = -errno;
		(void) sigaction(SIGALRM, &old, NULL);
		return r;
	}
	(void) sigprocmask(SIG_UNBLOCK, &alrm, &mask); /* also where our parent blocked it */
	r = connect(fd, sa, len) < 0 ? -errno : 0;
	(void) sigprocmask(SIG_BLOCK, &alrm, NULL);
	(void) setitimer(ITIMER_REAL, &off, NULL);
	while (sigtimedwait(&alrm, NULL, &zero) == SIGALRM)
		;
	(void) sigaction(SIGALRM, &old, NULL);
	(void) sigprocmask(SIG_SETMASK, &mask, NULL);
	return r;
}

/* Any other family: the command's own socket connects to the address it gave (no new
 * policy for it here), without blocking us; 1 when the answer waits in g->pend.  A
 * connect cut short by connect_bounded() goes on in the kernel for TCP and SCTP (IPv4,
 * IPv6: the state stays "connecting") and is waited for like one that would block; other
 * families may abort it (vsock does), so their caller gets EINTR as from a signal. */
static int
other_family(struct ugate *g, int epfd, const struct seccomp_notif *req, int *cmd_sock, int domain,
	     const struct sockaddr_un *sa, socklen_t len)
{
	int fl = fcntl(*cmd_sock, F_GETFL), r, e;
	bool blocking = fl >= 0 && (fl & O_NONBLOCK) == 0;
	bool goes_on = domain == AF_INET || domain == AF_INET6;

	if (fl < 0)
		return -errno;
	if (blocking)
		(void) fcntl(*cmd_sock, F_SETFL, fl | O_NONBLOCK);
	r = connect_bounded(*cmd_sock, (const struct sockaddr *) sa, len);
	e = -r;
	if (blocking)
		(void) fcntl(*cmd_sock, F_SETFL, fl);
	if (e == EINTR && goes_on)
		e = EINPROGRESS;
	if (r == 0)
		return 0;
	if (!blocking || (e != EINPROGRESS && e != EALREADY))
		return -e;
	if (g->n_pend == UGATE_PENDING_MAX)
		return -EAGAIN;
	for (unsigned i = 0; i < UGATE_PENDING_MAX; i++) {
		struct ugate_pending *p = &g->pend[i];
		struct epoll_event ev = { .events = EPOLLOUT | EPOLLONESHOT, .data.fd = *cmd_sock };

		if (p->fd >= 0)
			continue;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, *cmd_sock, &ev) < 0)
			return -EAGAIN;
		p->fd = *cmd_sock;
		p->id = req->id;
		*cmd_sock = -EBADF; /* the pending entry's now */
		g->n_pend++;
		return 1;
	}
	return -EAGAIN;
}

/* One connect(): 0, -errno, or 1 when it is answered later. */
static int
handle_connect(struct ugate *g, int epfd, const struct seccomp_notif *req)
{
	union {
		struct sockaddr_un un;
		struct sockaddr_storage ss;
	} a;
	_cleanup_close_ int pidfd = -EBADF, cmd_sock = -EBADF;
	uint64_t tfd = req->data.args[0], len = req->data.args[2] & 0xffffffffu;
	struct iovec local = { .iov_base = &a, .iov_len = (size_t) len };
	struct iovec remote = { .iov_base = (void *) (uintptr_t) req->data.args[1],
				.iov_len = (size_t) len };
	int domain = 0, type = 0;
	socklen_t ol = sizeof(domain);

	if (req->data.nr != SYS_connect)
		return -ENOSYS;
	if (tfd > INT_MAX)
		return -EBADF;
	if ((int) len < 0 || len > sizeof(a.ss))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	pidfd = thread_pidfd(req->pid);
	if (pidfd < 0 || !ugate_id_valid(g, req->id))
		return -ESRCH;
	cmd_sock = pidfd_getfd(pidfd, (int) tfd, 0);
	if (cmd_sock < 0 && errno == EPERM)
		g->n_undumpable++; /* no ptrace access: it made itself non-dumpable */
	if (cmd_sock < 0)
		return errno == EBADF ? -EBADF : -EPERM;
	/* The address, read once: what is connected to is this copy. */
	if (len > 0 && process_vm_readv(req->pid, &local, 1, &remote, 1, 0) != (ssize_t) len)
		return -EFAULT;
	if (!ugate_id_valid(g, req->id))
		return -ESRCH;
	if (getsockopt(cmd_sock, SOL_SOCKET, SO_DOMAIN, &domain, &ol) < 0)
		return -errno;
	if (domain != AF_UNIX)
		return other_family(g, epfd, req, &cmd_sock, domain, &a.un, (socklen_t) len);
	ol = sizeof(type);
	if (getsockopt(cmd_sock, SOL_SOCKET, SO_TYPE, &type, &ol) < 0)
		return -errno;
	if (type == SOCK_STREAM || type == SOCK_SEQPACKET)
		return unix_stream(g, req, cmd_sock, type, &a.un, (socklen_t) len);
	/* Datagrams: the command's socket, as asked (unixgate.h); an abstract name not where
	 * the scope would refuse the same datagram sent by the sandbox itself. */
	if (g->scope_abstract && a.un.sun_family == AF_UNIX &&
	    len > offsetof(struct sockaddr_un, sun_path) && a.un.sun_path[0] == '\0')
		return -EPERM;
	return connect_as(g, req->id, req->pid, cmd_sock, &a.un, (socklen_t) len);
}

static void
on_notify(struct ugate *g, int epfd)
{
	struct seccomp_notif *req = (struct seccomp_notif *) notif_buf;
	int r;

	memset(notif_buf, 0, sizeof(notif_buf));
	if (ioctl(g->notify_fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return; /* ENOENT: the thread went away meanwhile */
	r = handle_connect(g, epfd, req);
	if (r <= 0)
		respond(g, req->id, r);
}

static void
on_pending(struct ugate *g, int epfd, int fd)
{
	for (unsigned i = 0; i < UGATE_PENDING_MAX; i++) {
		struct ugate_pending *p = &g->pend[i];
		int err = 0;
		socklen_t len = sizeof(err);

		if (p->fd != fd)
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		respond(g, p->id, -err);
		(void) epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
		p->fd = safe_close(p->fd);
		g->n_pend--;
		return;
	}
}

/* The listener from the child (stage_load_notify_filter()). */
static void
on_sock(struct ugate *g, int epfd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char one;
	struct iovec iov = { .iov_base = &one, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = c.buf,
			     .msg_controllen = sizeof(c.buf) };
	ssize_t n = recvmsg(g->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;

	if (n < 0 && errno == EAGAIN)
		return;
	(void) epoll_ctl(epfd, EPOLL_CTL_DEL, g->sock, NULL);
	g->sock = safe_close(g->sock);
	if (cm == NULL || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return; /* the child ended before its filter: nothing to answer */
	memcpy(&g->notify_fd, CMSG_DATA(cm), sizeof(int));
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = g->notify_fd };
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, g->notify_fd, &ev) < 0)
		g->notify_fd = safe_close(g->notify_fd); /* connect() fails: ENOSYS */
}

int
ugate_start(struct ugate *g, int sock, pid_t self, pid_t exclude)
{
	int r;

	*g = (struct ugate){
		.sock = sock, .notify_fd = -EBADF, .cwd = -EBADF, .self = self, .exclude = exclude
	};
	for (unsigned i = 0; i < UGATE_PENDING_MAX; i++)
		g->pend[i].fd = -EBADF;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &notif_sizes) < 0)
		return -errno;
	if (notif_sizes.seccomp_notif > NOTIF_BUF || notif_sizes.seccomp_notif_resp > NOTIF_BUF)
		return -EOVERFLOW;
	g->cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (g->cwd < 0)
		return -errno;
	/* Without unix_diag nothing tells the sandbox's listeners from the user's services
	 * before connecting: the run is refused rather than connecting first. */
	r = udiag_probe();
	if (r < 0)
		return log_error_errno(r,
				       "this kernel does not answer UNIX socket diagnostics "
				       "(sock_diag: CONFIG_UNIX_DIAG, module unix_diag): %m; "
				       "sandcap cannot tell the sandbox's own UNIX listeners from "
				       "the user's services without connecting to them");
	return 0;
}

int
ugate_watch(struct ugate *g, int epfd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = g->sock };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, g->sock, &ev) < 0 ? -errno : 0;
}

bool
ugate_owns(const struct ugate *g, int fd)
{
	if (fd < 0)
		return false;
	if (fd == g->sock || fd == g->notify_fd)
		return true;
	for (unsigned i = 0; g->n_pend > 0 && i < UGATE_PENDING_MAX; i++)
		if (g->pend[i].fd == fd)
			return true;
	return false;
}

void
ugate_event(struct ugate *g, int epfd, int fd, uint32_t events)
{
	if (fd == g->sock) {
		on_sock(g, epfd);
	} else if (fd == g->notify_fd) {
		if ((events & EPOLLIN) != 0)
			on_notify(g, epfd);
		else if ((events & (EPOLLHUP | EPOLLERR)) != 0)
			/* No process uses the filter any more. */
			(void) epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
	} else {
		on_pending(g, epfd, fd);
	}
}

void
ugate_close(struct ugate *g)
{
	g->sock = safe_close(g->sock);
	g->notify_fd = safe_close(g->notify_fd);
	g->cwd = safe_close(g->cwd);
	for (unsigned i = 0; i < UGATE_PENDING_MAX; i++)
		g->pend[i].fd = safe_close(g->pend[i].fd);
	g->n_pend = 0;
}
