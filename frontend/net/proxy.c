/* SPDX-License-Identifier: MIT */
/* The egress proxy seen from sandcap: starting its process (proxy-int.h says how it is
 * built and whom it serves), telling it its sandbox, and collecting its records. */
#include <arpa/inet.h>
#include <errno.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/proxy-int.h"
#include "net/proxy-peer.h"

/* Close every fd from 3 up but those in keep[] (the proxy must hold nothing of sandcap's:
 * the report file, the terminal's other fds, later the helper's socket). */
static void
close_all_but(const int *keep, size_t n)
{
	unsigned lo = 3;

	for (;;) {
		unsigned next = ~0u;

		for (size_t i = 0; i < n; i++)
			if (keep[i] >= (int) lo && (unsigned) keep[i] < next)
				next = (unsigned) keep[i];
		if (next > lo)
			(void) syscall(SYS_close_range, lo, next == ~0u ? ~0u : next - 1, 0);
		if (next == ~0u)
			return;
		lo = next + 1;
	}
}

static int
sys_pidfd_open(pid_t pid)
{
	return (int) syscall(SYS_pidfd_open, pid, 0);
}

/* The proxy's own view of the kernel: can sock_diag name a loopback peer's uid (and its
 * cgroup)?  Asked once through a connection to the listener itself. */
static int
probe_peer(int lfd, const struct sockaddr_in *sa, bool *ret_cgroup)
{
	_cleanup_close_ int nl = proxy_peer_open(), c = -EBADF, a = -EBADF;
	struct proxy_peer peer;
	int r;

	if (nl < 0)
		return nl;
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (const struct sockaddr *) sa, sizeof(*sa)) < 0)
		return -errno;
	a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (a < 0)
		return -errno;
	r = proxy_peer_lookup(nl, a, &peer);
	if (r < 0)
		return r;
	if (peer.uid != geteuid())
		return -EPROTO;
	*ret_cgroup = peer.has_cgroup;
	return 0;
}

#define PROXY_FDS (2 * NET_CONCURRENT_MAX + 16) /* two per connection, and its own */

/* Connections at once: NET_CONCURRENT_MAX, fewer when RLIMIT_NOFILE's hard limit leaves
 * less.  The proxy raises its own soft limit up to that (raise_nofile()); sandcap's, which
 * the sandbox inherits, stays as it is. */
static size_t
conn_cap(void)
{
	struct rlimit rl;
	rlim_t fds;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	fds = rl.rlim_max < PROXY_FDS ? rl.rlim_max : PROXY_FDS;
	if (fds < 16 + 2)
		return 0;
	return (size_t) (fds - 16) / 2;
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < PROXY_FDS) {
		rl.rlim_cur = rl.rlim_max < PROXY_FDS ? rl.rlim_max : PROXY_FDS;
		(void) setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The per-run secret, as hex, into p->secret. */
static int
make_secret(struct net_proxy *p, char *err, size_t errlen)
{
	uint8_t rnd[PROXY_SECRET_BYTES];
	int r;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd)) {
		r = -errno;
		(void) snprintf(err, errlen, "sandcap: --net proxy: no random secret: %s",
				strerror(-r));
		return r;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		(void) snprintf(p->secret + 2 * i, 3, "%02x", rnd[i]);
	explicit_bzero(rnd, sizeof(rnd));
	return 0;
}

/* The listener on 127.0.0.1 and an ephemeral port, checked: sock_diag must name its peers'
 * owners, or the proxy could not tell its sandbox from other local users. */
static int
open_listener(struct net_proxy *p, struct sockaddr_in *sa, char *err, size_t errlen)
{
	socklen_t sl = sizeof(*sa);
	_cleanup_close_ int lfd = -EBADF;
	int r;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *) sa, sizeof(*sa)) < 0 || listen(lfd, 128) < 0 ||
	    getsockname(lfd, (struct sockaddr *) sa, &sl) < 0) {
		r = -errno;
		(void) snprintf(err, errlen, "sandcap: --net proxy: cannot listen on 127.0.0.1: %s",
				strerror(-r));
		return r;
	}
	r = probe_peer(lfd, sa, &p->peer_cgroup);
	if (r < 0) {
		(void) snprintf(err, errlen,
				"sandcap: --net proxy: the kernel's sock_diag cannot "
				"name a connection's owner (%s), so the proxy could not tell its "
				"sandbox from other local users (Linux with CONFIG_INET_DIAG is "
				"needed); use --net none or --net host",
				strerror(-r));
		return r;
	}
	return TAKE_FD(lfd);
}

/* The proxy process, forked twice from sandcap: it tells sandcap its pid, drops what it
 * must not hold, and runs the event loop until the stop. */
static _Noreturn void
proxy_child(struct px *px, int stop_r, int res_w, int pid_w)
{
	const int keep[] = { px->lfd, stop_r, res_w, pid_w };
	pid_t self = getpid();
	sigset_t all;

	close_all_but(keep, ELEMENTSOF(keep));
	(void) !write(pid_w, &self, sizeof(self));
	close(pid_w);
	/* Same uid as the sandbox: not dumpable, so neither the sandbox nor anything else
	 * without CAP_SYS_PTRACE can ptrace it or read its secret or write its memory through
	 * /proc and make it connect elsewhere. */
	(void) prctl(PR_SET_DUMPABLE, 0);
	(void) setsid(); /* no terminal signals: sandcap handles ^C */
	(void) sigemptyset(&all);
	(void) sigprocmask(SIG_SETMASK, &all, NULL);
	(void) signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	px->ctl = stop_r;
	px_main(px, res_w);
}

/* Fork twice: the proxy must not be a child of sandcap, whose supervisor treats its
 * children as the sandbox's processes.  Its life is tied to sandcap by the stop pipe (EOF
 * when sandcap ends, however it ends).  Returns the proxy's pidfd, or -errno. */
static int
spawn_proxy(struct px *px, const int stop_p[2], const int res_p[2], pid_t *ret_pid)
{
	int pid_p[2] = { -EBADF, -EBADF }, fd;
	pid_t mid, pid = 0;

	if (pipe2(pid_p, O_CLOEXEC) < 0)
		return -errno;
	mid = fork();
	if (mid == 0) {
		pid_t px_pid = fork();

		if (px_pid == 0)
			proxy_child(px, stop_p[0], res_p[1], pid_p[1]);
		_exit(px_pid > 0 ? 0 : 1);
	}
	close(pid_p[1]);
	if (mid > 0) {
		int st = 0;

		(void) waitpid(mid, &st, 0);
		/* Nothing of the sandbox runs yet: the pid read here is the proxy's. */
		if (read(pid_p[0], &pid, sizeof(pid)) != (ssize_t) sizeof(pid))
			pid = 0;
	}
	close(pid_p[0]);
	errno = mid < 0 ? errno : ESRCH; /* fork()'s, or no pid read */
	fd = pid > 0 ? sys_pidfd_open(pid) : -EBADF;
	if (fd < 0)
		return -errno;
	*ret_pid = pid;
	return fd;
}

int
net_proxy_start(struct net_proxy *p, const struct allow_list *l, char *err, size_t errlen)
{
	static struct px px;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	_cleanup_close_ int lfd = -EBADF;
	int stop_p[2] = { -EBADF, -EBADF }, res_p[2] = { -EBADF, -EBADF }, r;

	memset(p, 0, offsetof(struct net_proxy, conn));
	p->stop_fd = p->result_fd = p->pidfd = -EBADF;
	p->max_conn = conn_cap();
	if (p->max_conn == 0) {
		(void) snprintf(err, errlen,
				"sandcap: --net proxy: RLIMIT_NOFILE leaves the proxy "
				"no descriptors; raise it (ulimit -n 256)");
		return -EMFILE;
	}
	r = make_secret(p, err, errlen);
	if (r < 0)
		return r;
	lfd = open_listener(p, &sa, err, errlen);
	if (lfd < 0)
		return lfd;
	/* Field by field: the records and slots arrays stay untouched in sandcap. */
	px.l = l;
	px.lfd = lfd;
	px.max_conn = p->max_conn;
	px.uid = geteuid();
	px.configured = px.stopping = false;
	px.n_rec = 0;
	px.omitted = px.denied = 0;
	px.cred_len = (size_t) snprintf(px.cred, sizeof(px.cred), "sandcap:%s", p->secret);
	if (pipe2(stop_p, O_CLOEXEC) < 0 || pipe2(res_p, O_CLOEXEC) < 0)
		r = -errno;
	else
		r = spawn_proxy(&px, stop_p, res_p, &p->pid);
	explicit_bzero(px.cred, sizeof(px.cred));
	(void) safe_close(stop_p[0]);
	(void) safe_close(res_p[1]);
	if (r < 0) {
		(void) safe_close(stop_p[1]);
		(void) safe_close(res_p[0]);
		(void) snprintf(err, errlen, "sandcap: --net proxy: cannot start the proxy: %s",
				strerror(-r));
		return r;
	}
	p->pidfd = r;
	p->port = ntohs(sa.sin_port);
	p->stop_fd = stop_p[1];
	p->result_fd = res_p[0];
	return 0;
}

int
net_proxy_authorize(struct net_proxy *p, int cgroup_fd)
{
	uint64_t msg[2] = { PROXY_CTL_MAGIC, 0 };
	char who[64];

	if (p->pid <= 0)
		return 0;
	if (cgroup_fd >= 0 && p->peer_cgroup)
		msg[1] = proxy_cgroup_id(cgroup_fd);
	if (cgroup_fd >= 0 && msg[1] == 0)
		fprintf(stderr,
			"sandcap: warning: --net proxy: this kernel's sock_diag reports no "
			"cgroup id (Linux 5.7+ with CONFIG_SOCK_CGROUP_DATA): the proxy knows its "
			"sandbox by uid and secret only\n");
	if (msg[1] != 0)
		(void) snprintf(who, sizeof(who), ", cgroup id %llu", (unsigned long long) msg[1]);
	else if (cgroup_fd >= 0)
		(void) snprintf(who, sizeof(who),
				", cgroup unchecked: no cgroup id from this kernel");
	else
		who[0] = '\0';
	(void) snprintf(p->authentication, sizeof(p->authentication),
			"peer uid %u%s (sock_diag), "
			"per-run secret in the proxy URL",
			(unsigned) geteuid(), who);
	if (write(p->stop_fd, msg, sizeof(msg)) != (ssize_t) sizeof(msg))
		return -errno;
	return 0;
}

int
net_proxy_finish(struct net_proxy *p)
{
	static char buf[NET_CONNS_MAX * PIPE_BUF / 8];
	int64_t deadline = now_ms() + RESULT_DEADLINE_MS;
	size_t len = 0;
	int r = 0;

	if (p->pid <= 0 || p->collected)
		return 0;
	p->collected = true;
	p->stop_fd = safe_close(p->stop_fd);
	for (;;) {
		struct pollfd pfd = { .fd = p->result_fd, .events = POLLIN };
		ssize_t got;
		char *nl;

		if (poll(&pfd, 1, left_ms(deadline)) <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		got = read(p->result_fd, buf + len, sizeof(buf) - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t) got;
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			size_t ll = (size_t) (nl - buf) + 1;
			unsigned long long o, d;

			buf[ll - 1] = '\0';
			if (sscanf(buf, "END\t%llu\t%llu", &o, &d) == 2) {
				p->omitted = o;
				p->denied = d;
			} else if (p->n_conn < NET_CONNS_MAX &&
				   net_record_parse(buf, ll - 1, &p->conn[p->n_conn]) == 0) {
				p->n_conn++;
			}
			memmove(buf, buf + ll, len - ll);
			len -= ll;
		}
		if (len == sizeof(buf) - 1)
			len = 0;
	}
	p->result_fd = safe_close(p->result_fd);
	if (r < 0) /* a pidfd: no recycled pid can be hit */
		(void) syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
	p->pidfd = safe_close(p->pidfd);
	p->pid = 0;
	return r;
}
