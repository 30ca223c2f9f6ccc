/* SPDX-License-Identifier: MIT */
/*
 * The egress proxy's I/O (parsers: proxy-parse.c; decisions: allow.c).
 *
 * Process model: sandcap forks the proxy before the sandbox exists.  The proxy is not
 * dumpable (the sandbox runs as the same user: without this it could ptrace the proxy or
 * write its memory and make it connect anywhere), is not sandcap's child (the supervisor
 * owns those) but ends when sandcap's end of the stop pipe closes, and forks one child per connection, which reads the request with a
 * deadline, decides, resolves, connects, relays, and writes one record line (<= PIPE_BUF,
 * so atomic) into a pipe the proxy reads.  When sandcap closes the stop pipe, the proxy
 * gives its children a short grace, kills what is left (all unreaped children of its own,
 * so no pid can have been recycled), writes the records to the result pipe and exits.
 * Nothing here waits without a deadline on the sandbox's side of a connection except the
 * relay itself, which the sandbox's end (killed with the sandbox) or the stop ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "allow.h"
#include "macro.h"
#include "proxy-parse.h"
#include "proxy.h"

#define HEAD_DEADLINE_MS    30000       /* the whole request head */
#define CONNECT_DEADLINE_MS 10000       /* per address tried */
#define STOP_GRACE_MS       1000        /* for children to report after the stop */
#define RESULT_DEADLINE_MS  5000        /* sandcap's wait for the result */
#define RELAY_BUF           16384

static int64_t
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
left_ms(int64_t deadline)
{
	int64_t l = deadline - now_ms();

	return l < 0 ? 0 : l > INT_MAX ? INT_MAX : (int) l;
}

/* ---- records ---- */

static void
put_field(char *buf, size_t len, size_t *off, const char *s, bool last)
{
	for (; *s && *off + 2 < len; s++) {
		unsigned char c = (unsigned char) *s;

		buf[(*off)++] = c < 0x20 || c >= 0x7f ? '?' : (char) c;
	}
	if (*off + 1 < len)
		buf[(*off)++] = last ? '\n' : '\t';
	buf[*off] = '\0';
}

size_t
net_record_format(const struct net_conn *c, char *buf, size_t len)
{
	char n[3][24];
	size_t off = 0;

	(void) snprintf(n[0], sizeof(n[0]), "%u", (unsigned) c->port);
	(void) snprintf(n[1], sizeof(n[1]), "%llu", (unsigned long long) c->bytes_out);
	(void) snprintf(n[2], sizeof(n[2]), "%llu", (unsigned long long) c->bytes_in);
	if (len == 0)
		return 0;
	buf[0] = '\0';
	put_field(buf, len, &off, c->denied ? "D" : "A", false);
	put_field(buf, len, &off, c->host, false);
	put_field(buf, len, &off, n[0], false);
	put_field(buf, len, &off, c->address, false);
	put_field(buf, len, &off, n[1], false);
	put_field(buf, len, &off, n[2], false);
	put_field(buf, len, &off, c->reason, true);
	return off;
}

static int
field(const char **p, const char *end, char *out, size_t outlen)
{
	const char *t = memchr(*p, '\t', (size_t) (end - *p));
	size_t n;

	if (t == NULL)
		t = end;
	n = (size_t) (t - *p);
	if (n >= outlen)
		return -EINVAL;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = t < end ? t + 1 : t;
	return 0;
}

static int
number(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (*s == '\0' || strlen(s) > 20)
		return -EINVAL;
	for (; *s; s++) {
		uint64_t d = (uint64_t) (*s - '0');

		if (*s < '0' || *s > '9' || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int
net_record_parse(const char *line, size_t len, struct net_conn *ret)
{
	const char *p = line, *end = line + len;
	char d[4], port[8], o[24], i[24];
	struct net_conn c = { 0 };
	uint64_t v;

	if (len > 0 && end[-1] == '\n')
		end--;
	size_t tabs = 0;

	if (memchr(line, '\0', (size_t) (end - line)) != NULL)
		return -EINVAL;
	for (const char *q = line; q < end; q++)
		tabs += *q == '\t';
	if (tabs != 6)          /* seven fields, exactly */
		return -EINVAL;
	if (field(&p, end, d, sizeof(d)) < 0 || field(&p, end, c.host, sizeof(c.host)) < 0 ||
	    field(&p, end, port, sizeof(port)) < 0 ||
	    field(&p, end, c.address, sizeof(c.address)) < 0 ||
	    field(&p, end, o, sizeof(o)) < 0 || field(&p, end, i, sizeof(i)) < 0 ||
	    field(&p, end, c.reason, sizeof(c.reason)) < 0 || p != end)
		return -EINVAL;
	if (!streq(d, "A") && !streq(d, "D"))
		return -EINVAL;
	c.denied = d[0] == 'D';
	if (number(port, 65535, &v) < 0)
		return -EINVAL;
	c.port = (uint16_t) v;
	if (number(o, UINT64_MAX, &c.bytes_out) < 0 || number(i, UINT64_MAX, &c.bytes_in) < 0)
		return -EINVAL;
	*ret = c;
	return 0;
}

/* ---- one connection (in its own child) ---- */

static int
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t) w;
	}
	return 0;
}

static void
http_error(int fd, int status, const char *reason)
{
	char body[NET_REASON_MAX + 32], head[256];
	int bl = snprintf(body, sizeof(body), "sandcap proxy: %s\n", reason);
	int hl = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			  "Connection: close\r\nContent-Length: %d\r\n\r\n", status,
			  status == 403 ? "Forbidden" : status == 502 ? "Bad Gateway" :
			  status == 431 ? "Request Header Fields Too Large" :
			  status == 501 ? "Not Implemented" : status == 504 ? "Gateway Timeout" :
			  "Bad Request", bl);

	(void) write_all(fd, head, (size_t) hl);
	(void) write_all(fd, body, (size_t) bl);
}

static void
socks_reply(int fd, uint8_t rep)
{
	const uint8_t r[10] = { 5, rep, 0, 1, 0, 0, 0, 0, 0, 0 };

	(void) write_all(fd, r, sizeof(r));
}

/* Read more into buf until parse() is satisfied; returns the parse result or -ETIMEDOUT. */
static ssize_t
read_some(int fd, uint8_t *buf, size_t cap, size_t *n, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;

	if (*n >= cap)
		return -E2BIG;
	if (poll(&pfd, 1, left_ms(deadline)) <= 0)
		return -ETIMEDOUT;
	r = recv(fd, buf + *n, cap - *n, 0);
	if (r == 0)
		return -ECONNRESET;
	if (r < 0)
		return -errno;
	*n += (size_t) r;
	return r;
}

static int
connect_to(const struct sockaddr *sa, socklen_t len, int *ret_fd)
{
	_cleanup_close_ int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
					0);
	struct pollfd pfd;
	socklen_t el = sizeof(int);
	int e = 0;

	if (fd < 0)
		return -errno;
	if (connect(fd, sa, len) < 0 && errno != EINPROGRESS)
		return -errno;
	pfd = (struct pollfd) { .fd = fd, .events = POLLOUT };
	if (poll(&pfd, 1, CONNECT_DEADLINE_MS) <= 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		return -errno;
	if (e != 0)
		return -e;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Resolve (names) and connect to the first address the allow-list accepts. */
static int
decide_and_connect(const struct allow_list *l, const struct proxy_req *req, struct net_conn *c,
		   int *ret_fd)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	struct allow_host h;
	char err[128], port[8];
	const char *why = NULL;
	int r, tried = 0, last = -EHOSTUNREACH;

	if (allow_parse_host(req->host, req->host_len, &h, err, sizeof(err)) < 0) {
		c->denied = true;
		(void) snprintf(c->reason, sizeof(c->reason), "invalid host: %s", err);
		return -EPERM;
	}
	(void) snprintf(c->host, sizeof(c->host), "%s", h.name);
	if (allow_host_ok(l, &h, c->port) == NULL) {
		c->denied = true;
		(void) snprintf(c->reason, sizeof(c->reason), "not in the allow-list");
		return -EPERM;
	}
	(void) snprintf(port, sizeof(port), "%u", (unsigned) c->port);
	if (h.is_addr)
		hints.ai_flags |= AI_NUMERICHOST;
	r = getaddrinfo(h.name, port, &hints, &res);
	if (r != 0) {
		(void) snprintf(c->reason, sizeof(c->reason), "cannot resolve: %s",
				gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
		const uint8_t *a;
		char text[INET6_ADDRSTRLEN];
		int fd = -EBADF;

		if (ai->ai_family == AF_INET)
			a = (const uint8_t *) &((struct sockaddr_in *) ai->ai_addr)->sin_addr;
		else if (ai->ai_family == AF_INET6)
			a = (const uint8_t *) &((struct sockaddr_in6 *) ai->ai_addr)->sin6_addr;
		else
			continue;
		/* A literal was named by a CIDR rule already; a name's addresses must pass. */
		if (!h.is_addr && !allow_addr_ok(l, ai->ai_family, a, c->port, &why))
			continue;
		tried++;
		(void) inet_ntop(ai->ai_family, a, text, sizeof(text));
		r = connect_to(ai->ai_addr, ai->ai_addrlen, &fd);
		if (r == 0) {
			(void) snprintf(c->address, sizeof(c->address), "%s", text);
			freeaddrinfo(res);
			*ret_fd = fd;
			return 0;
		}
		last = r;
	}
	freeaddrinfo(res);
	if (tried == 0) {
		c->denied = true;
		(void) snprintf(c->reason, sizeof(c->reason), "%s resolves only to %s addresses "
				"(allow them with an address rule)", h.name, why ? why : "refused");
		return -EPERM;
	}
	(void) snprintf(c->reason, sizeof(c->reason), "connect: %s", strerror(-last));
	return last;
}

/* Copy both ways until both directions are closed, counting bytes. */
static void
relay(int cl, int up, struct net_conn *c)
{
	static uint8_t buf[RELAY_BUF];
	bool cl_open = true, up_open = true;

	while (cl_open || up_open) {
		struct pollfd p[2] = { { .fd = cl_open ? cl : -1, .events = POLLIN },
				       { .fd = up_open ? up : -1, .events = POLLIN } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int k = 0; k < 2; k++) {
			int from = k == 0 ? cl : up, to = k == 0 ? up : cl;
			ssize_t r;

			if (p[k].revents == 0)
				continue;
			r = recv(from, buf, sizeof(buf), 0);
			if (r <= 0) {
				if (r < 0 && errno == EINTR)
					continue;
				(void) shutdown(to, SHUT_WR);
				if (k == 0)
					cl_open = false;
				else
					up_open = false;
				if (r < 0)
					return;
				continue;
			}
			if (write_all(to, buf, (size_t) r) < 0)
				return;
			if (k == 0)
				c->bytes_out += (uint64_t) r;
			else
				c->bytes_in += (uint64_t) r;
		}
	}
}

static void
serve(int cl, const struct allow_list *l, struct net_conn *c)
{
	static uint8_t buf[PROXY_HEAD_MAX];
	static struct proxy_req req;
	int64_t deadline = now_ms() + HEAD_DEADLINE_MS;
	_cleanup_close_ int up = -EBADF;
	char err[128] = "";
	size_t n = 0;
	int r, status = 400, used;
	uint8_t rep = 1;

	do
		r = (int) read_some(cl, buf, sizeof(buf), &n, deadline);
	while (r > 0 && n == 0);
	if (r < 0) {
		(void) snprintf(c->reason, sizeof(c->reason), "no request: %s", strerror(-r));
		c->denied = true;
		return;
	}

	if (buf[0] == 5) {                      /* SOCKS5 */
		static const uint8_t ok[2] = { 5, 0 }, none[2] = { 5, 0xff };

		while ((used = proxy_parse_socks5_greeting(buf, n)) == 0)
			if ((r = (int) read_some(cl, buf, sizeof(buf), &n, deadline)) < 0)
				break;
		if (used <= 0) {
			c->denied = true;
			(void) snprintf(c->reason, sizeof(c->reason), "bad SOCKS5 greeting%s",
					used == -EPERM ? " (only no-authentication is offered)" : "");
			(void) write_all(cl, none, sizeof(none));
			return;
		}
		(void) write_all(cl, ok, sizeof(ok));
		memmove(buf, buf + used, n - (size_t) used);
		n -= (size_t) used;
		while ((used = proxy_parse_socks5_request(buf, n, &req, &rep)) == 0)
			if ((r = (int) read_some(cl, buf, sizeof(buf), &n, deadline)) < 0)
				break;
		if (used <= 0) {
			c->denied = true;
			(void) snprintf(c->reason, sizeof(c->reason), "bad SOCKS5 request");
			socks_reply(cl, rep);
			return;
		}
	} else {
		while ((used = proxy_parse_http(buf, n, &req, &status, err, sizeof(err))) == 0)
			if ((r = (int) read_some(cl, buf, sizeof(buf), &n, deadline)) < 0)
				break;
		if (used <= 0) {
			c->denied = true;
			(void) snprintf(c->reason, sizeof(c->reason), "bad request: %s",
					used == 0 ? strerror(-r) : err);
			if (used < 0)
				http_error(cl, status, err);
			return;
		}
	}

	/* What the client asked for, escaped, until the allow-list normalises it. */
	(void) snprintf(c->host, sizeof(c->host), "%.*s", (int) req.host_len, req.host);
	c->port = req.port;
	r = decide_and_connect(l, &req, c, &up);
	if (r < 0) {
		if (req.kind == PROXY_SOCKS5)
			socks_reply(cl, r == -EPERM ? 2 : r == -ECONNREFUSED ? 5 : 4);
		else
			http_error(cl, r == -EPERM ? 403 : r == -ETIMEDOUT ? 504 : 502, c->reason);
		return;
	}
	if (req.kind == PROXY_SOCKS5)
		socks_reply(cl, 0);
	else if (req.kind == PROXY_HTTP_CONNECT)
		r = write_all(cl, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
	else
		r = write_all(up, req.fwd, req.fwd_len);
	if (r == 0 && req.kind == PROXY_HTTP_FORWARD)
		c->bytes_out += req.fwd_len;
	/* Bytes after the head: the tunnel's or the body's first bytes, to the decided host. */
	if (r == 0 && n > (size_t) used) {
		r = write_all(up, buf + used, n - (size_t) used);
		c->bytes_out += n - (size_t) used;
	}
	if (r == 0)
		relay(cl, up, c);
}

/* ---- the proxy process ---- */

static _Noreturn void
proxy_main(int lfd, int stop_r, int res_w, const struct allow_list *l)
{
	static struct net_conn conns[NET_CONNS_MAX];
	static pid_t kids[NET_CONCURRENT_MAX];
	static char rbuf[2 * PIPE_BUF + 2];
	size_t n_conns = 0, rlen = 0, n_kids = 0;
	uint64_t omitted = 0, denied = 0;
	int rec_p[2];
	int64_t stop_deadline = -1;
	char line[PIPE_BUF];

	sigset_t chld;
	int sfd;

	/* SIGCHLD through a signalfd: children are reaped as they end, without a timer. */
	(void) sigemptyset(&chld);
	(void) sigaddset(&chld, SIGCHLD);
	(void) sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || pipe2(rec_p, O_CLOEXEC) < 0)
		_exit(1);
	for (;;) {
		struct pollfd p[4] = {
			{ .fd = stop_deadline < 0 ? lfd : -1, .events = POLLIN },
			{ .fd = stop_deadline < 0 ? stop_r : -1, .events = POLLIN },
			{ .fd = rec_p[0], .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		struct signalfd_siginfo si;
		int r;

		if (stop_deadline >= 0 && (n_kids == 0 || left_ms(stop_deadline) == 0))
			break;
		r = poll(p, 4, stop_deadline >= 0 ? left_ms(stop_deadline) : -1);
		if (r < 0 && errno != EINTR)
			break;
		while (read(sfd, &si, sizeof(si)) == (ssize_t) sizeof(si))
			;
		if (p[1].revents)
			stop_deadline = now_ms() + STOP_GRACE_MS;
		if (p[2].revents & POLLIN) {
			ssize_t got = read(rec_p[0], rbuf + rlen, sizeof(rbuf) - 1 - rlen);
			char *nl;

			if (got > 0)
				rlen += (size_t) got;
			while ((nl = memchr(rbuf, '\n', rlen)) != NULL) {
				size_t ll = (size_t) (nl - rbuf) + 1;
				struct net_conn c;

				if (net_record_parse(rbuf, ll, &c) == 0) {
					denied += c.denied;
					if (n_conns < NET_CONNS_MAX)
						conns[n_conns++] = c;
					else
						omitted++;
				}
				memmove(rbuf, rbuf + ll, rlen - ll);
				rlen -= ll;
			}
			if (rlen == sizeof(rbuf) - 1)
				rlen = 0;       /* cannot happen: records are < PIPE_BUF */
		}
		/* Reap: a child's pid stays in kids[] until reaped, so it cannot be reused. */
		for (size_t i = 0; i < n_kids;) {
			if (waitpid(kids[i], NULL, WNOHANG) == kids[i])
				kids[i] = kids[--n_kids];
			else
				i++;
		}
		if (p[0].revents & POLLIN) {
			int cl = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			pid_t pid;

			if (cl < 0)
				continue;
			if (n_kids >= NET_CONCURRENT_MAX) {
				struct net_conn c = { .denied = true };

				(void) snprintf(c.reason, sizeof(c.reason), "more than %d connections "
						"at once", NET_CONCURRENT_MAX);
				http_error(cl, 502, c.reason);
				close(cl);
				denied++;
				if (n_conns < NET_CONNS_MAX)
					conns[n_conns++] = c;
				else
					omitted++;
				continue;
			}
			pid = fork();
			if (pid == 0) {
				struct net_conn c = { 0 };
				size_t len;

				(void) sigprocmask(SIG_UNBLOCK, &chld, NULL);
				close(sfd);
				close(lfd);
				close(stop_r);
				close(res_w);
				close(rec_p[0]);
				(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
				serve(cl, l, &c);
				len = net_record_format(&c, line, sizeof(line));
				(void) !write(rec_p[1], line, len);
				_exit(0);
			}
			close(cl);
			if (pid > 0)
				kids[n_kids++] = pid;
		}
	}
	for (size_t i = 0; i < n_kids; i++) {
		(void) kill(kids[i], SIGKILL);
		(void) waitpid(kids[i], NULL, 0);
	}
	{
		FILE *f = fdopen(res_w, "w");

		if (f == NULL)
			_exit(1);
		for (size_t i = 0; i < n_conns; i++) {
			(void) net_record_format(&conns[i], line, sizeof(line));
			(void) fputs(line, f);
		}
		(void) fprintf(f, "END\t%llu\t%llu\n", (unsigned long long) omitted,
			       (unsigned long long) denied);
		(void) fclose(f);
	}
	_exit(0);
}

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

int
net_proxy_start(struct net_proxy *p, const struct allow_list *l, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	_cleanup_close_ int lfd = -EBADF;
	int stop_p[2], res_p[2], pid_p[2] = { -EBADF, -EBADF }, r;
	pid_t mid, pid = 0;

	memset(p, 0, sizeof(*p));
	p->stop_fd = p->result_fd = p->pidfd = -EBADF;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ||
	    listen(lfd, 128) < 0 || getsockname(lfd, (struct sockaddr *) &sa, &sl) < 0) {
		r = -errno;
		(void) snprintf(err, errlen, "sandcap: --net proxy: cannot listen on 127.0.0.1: %s",
				strerror(-r));
		return r;
	}
	res_p[0] = res_p[1] = stop_p[0] = stop_p[1] = -EBADF;
	if (pipe2(stop_p, O_CLOEXEC) < 0 || pipe2(res_p, O_CLOEXEC) < 0 ||
	    pipe2(pid_p, O_CLOEXEC) < 0) {
		r = -errno;
		/* Each pipe2() that failed left its pair at -EBADF. */
		for (int i = 0; i < 2; i++) {
			(void) safe_close(stop_p[i]);
			(void) safe_close(res_p[i]);
		}
		(void) snprintf(err, errlen, "sandcap: --net proxy: cannot start the proxy: %s",
				strerror(-r));
		return r;
	}
	/* Fork twice: the proxy must not be a child of sandcap, whose supervisor treats its
	 * children as the sandbox's processes.  Its life is tied to sandcap by the stop pipe
	 * (EOF when sandcap ends, however it ends). */
	mid = fork();
	if (mid == 0) {
		pid_t px = fork();

		if (px == 0) {
			sigset_t all;
			pid_t self = getpid();

			const int keep[] = { lfd, stop_p[0], res_p[1], pid_p[1] };

			close_all_but(keep, ELEMENTSOF(keep));
			(void) !write(pid_p[1], &self, sizeof(self));
			close(pid_p[1]);
			/* Same uid as the sandbox: not dumpable, so neither the sandbox nor
			 * anything else without CAP_SYS_PTRACE can ptrace it or write its
			 * memory through /proc and make it connect elsewhere. */
			(void) prctl(PR_SET_DUMPABLE, 0);
			(void) setsid();        /* no terminal signals: sandcap handles ^C */
			(void) sigemptyset(&all);
			(void) sigprocmask(SIG_SETMASK, &all, NULL);
			(void) signal(SIGPIPE, SIG_IGN);
			(void) signal(SIGCHLD, SIG_DFL);
			proxy_main(lfd, stop_p[0], res_p[1], l);
		}
		_exit(px > 0 ? 0 : 1);
	}
	close(stop_p[0]);
	close(res_p[1]);
	close(pid_p[1]);
	if (mid > 0) {
		int st = 0;

		(void) waitpid(mid, &st, 0);
		/* Nothing of the sandbox runs yet: the pid read here is the proxy's. */
		if (read(pid_p[0], &pid, sizeof(pid)) != (ssize_t) sizeof(pid))
			pid = 0;
	}
	close(pid_p[0]);
	errno = mid < 0 ? errno : ESRCH;        /* fork()'s, or no pid read */
	p->pidfd = pid > 0 ? sys_pidfd_open(pid) : -EBADF;
	if (p->pidfd < 0) {
		r = -errno;
		(void) snprintf(err, errlen, "sandcap: --net proxy: cannot start the proxy: %s",
				strerror(-r));
		close(stop_p[1]);
		close(res_p[0]);
		return r;
	}
	p->pid = pid;
	p->port = ntohs(sa.sin_port);
	p->stop_fd = stop_p[1];
	p->result_fd = res_p[0];
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
	if (r < 0)      /* a pidfd: no recycled pid can be hit */
		(void) syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
	p->pidfd = safe_close(p->pidfd);
	p->pid = 0;
	return r;
}
