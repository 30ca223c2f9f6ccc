/* SPDX-License-Identifier: MIT */
/*
 * The egress proxy's I/O (parsers: proxy-parse.c; decisions: allow.c).
 *
 * Process model: sandcap forks the proxy before the sandbox exists.  The proxy is not
 * dumpable (the sandbox runs as the same user: without this it could ptrace the proxy,
 * read its secret or write its memory and make it connect anywhere), is not sandcap's child
 * (the supervisor owns those) but ends when sandcap's end of the stop pipe closes.  It is
 * one process with one poll() loop: no fork, no thread, so the sandbox cannot make it
 * grow past max_conn connections of fixed-size buffers (struct pconn), whatever it does.
 *
 * Who may use it: the proxy serves its own sandbox and nobody else.  An accepted
 * connection is first looked up in the kernel (sock_diag, proxy-peer.h): a peer socket of
 * another uid, or outside the sandbox's cgroup in cgroup and user-cgroup mode, is closed at
 * once, before it has a slot, and leaves no record.  Then the request must carry the
 * per-run secret (HTTP Proxy-Authorization: Basic, SOCKS5 username/password), the only
 * discriminator between two sandboxes of one user in rlimit mode.  A connection that has
 * not authenticated yet holds a slot only until a new one needs it (the oldest such is
 * dropped), so idle connections of someone else cannot starve the sandbox's.
 *
 * Nothing here waits without a deadline on the sandbox's side of a connection except the
 * relay itself, which the sandbox's end (closed with the sandbox) or the stop ends.  When
 * sandcap closes the stop pipe, the proxy gives the open relays a short grace, records
 * what is left as open at the end, writes the records to the result pipe and exits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/allow.h"
#include "macro.h"
#include "net/proxy-parse.h"
#include "net/proxy-peer.h"
#include "net/proxy.h"
#include "time-util.h"

#define HEAD_DEADLINE_MS    30000       /* the whole request head */
#define CONNECT_DEADLINE_MS 10000       /* per address tried */
#define STOP_GRACE_MS       1000        /* for children to report after the stop */
#define RESULT_DEADLINE_MS  5000        /* sandcap's wait for the result */
#define RELAY_BUF           16384       /* upstream -> client, per connection */
#define ADDRS_MAX           16          /* addresses of one name tried */
#define PROXY_CTL_MAGIC     UINT64_C(0x73616e6463617031)

static int64_t
now_ms(void)
{
	return (int64_t) mono_ms();
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

/* ---- the connections ---- */

enum pstate {
	ST_FREE,
	ST_HEAD,                /* reading the request (HTTP) or the SOCKS5 greeting */
	ST_SOCKS_AUTH,          /* reading the SOCKS5 username/password */
	ST_SOCKS_REQ,           /* authenticated: reading the SOCKS5 request */
	ST_CONNECTING,
	ST_RELAY,
};

struct pconn {
	int64_t since, deadline;        /* deadline: ST_HEAD .. ST_CONNECTING */
	/* client -> upstream: the head, then the payload (in_off: what was sent or parsed) */
	size_t in_off, in_len;
	/* upstream -> client, and the proxy's own reply first */
	size_t out_off, out_len;
	size_t fwd_off;                 /* PROXY_HTTP_FORWARD: req.fwd sent so far */
	size_t n_addr, i_addr;
	struct net_conn rec;
	struct sockaddr_storage addr[ADDRS_MAX];
	struct proxy_req req;
	enum pstate st;
	int cl, up;
	int last_err;
	socklen_t addr_len[ADDRS_MAX];
	bool authed;                    /* the secret was right: the connection is recorded */
	bool cl_eof, up_eof, cl_shut, up_shut;
	uint8_t in[PROXY_HEAD_MAX];
	uint8_t out[RELAY_BUF];
};

struct px {
	const struct allow_list *l;
	int lfd, ctl, nl;
	size_t max_conn;
	uid_t uid;
	uint64_t cgroup;                /* the sandbox's cgroup v2 id; 0: not checked */
	bool configured, stopping;
	int64_t stop_deadline;
	char cred[8 + 2 * PROXY_SECRET_BYTES + 1];      /* "sandcap:HEX" */
	size_t cred_len;
	size_t n_rec;
	uint64_t omitted, denied;
	struct net_conn rec[NET_CONNS_MAX];
};

static struct pconn slots[NET_CONCURRENT_MAX];

/* Same length and same bytes, in a time that depends on the length only. */
static bool
cred_equal(const struct px *px, const char *c, size_t len)
{
	volatile uint8_t d = 0;

	if (len != px->cred_len)
		return false;
	for (size_t i = 0; i < len; i++)
		d |= (uint8_t) (c[i] ^ px->cred[i]);
	return d == 0;
}

static void
add_record(struct px *px, const struct net_conn *c)
{
	px->denied += c->denied;
	if (px->n_rec < NET_CONNS_MAX)
		px->rec[px->n_rec++] = *c;
	else
		px->omitted++;
}

/* Best effort: a short reply into a fresh socket's empty buffer. */
static void
say(int fd, const void *p, size_t n)
{
	(void) !send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void
http_error(int fd, int status, const char *reason)
{
	char body[NET_REASON_MAX + 32], head[320];
	int bl = snprintf(body, sizeof(body), "sandcap proxy: %s\n", reason);
	int hl = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain\r\n"
			  "Connection: close\r\nContent-Length: %d\r\n\r\n", status,
			  status == 403 ? "Forbidden" : status == 502 ? "Bad Gateway" :
			  status == 407 ? "Proxy Authentication Required" :
			  status == 431 ? "Request Header Fields Too Large" :
			  status == 501 ? "Not Implemented" : status == 504 ? "Gateway Timeout" :
			  "Bad Request", status == 407 ?
			  "Proxy-Authenticate: Basic realm=\"sandcap\"\r\n" : "", bl);

	say(fd, head, (size_t) hl);
	say(fd, body, (size_t) bl);
}

static void
socks_reply(int fd, uint8_t rep)
{
	const uint8_t r[10] = { 5, rep, 0, 1, 0, 0, 0, 0, 0, 0 };

	say(fd, r, sizeof(r));
}

/* End a connection; it leaves a record when it was authenticated. */
static void
conn_end(struct px *px, struct pconn *c)
{
	c->cl = safe_close(c->cl);
	c->up = safe_close(c->up);
	if (c->authed)
		add_record(px, &c->rec);
	c->st = ST_FREE;
}

static void _printf_(3, 4)
conn_reason(struct pconn *c, bool denied, const char *fmt, ...)
{
	va_list ap;

	c->rec.denied = denied;
	va_start(ap, fmt);
	(void) vsnprintf(c->rec.reason, sizeof(c->rec.reason), fmt, ap);
	va_end(ap);
}

/* The refusal the client gets for a decision or a failed connect. */
static void
refuse_client(struct pconn *c, int r)
{
	if (c->req.kind == PROXY_SOCKS5)
		socks_reply(c->cl, r == -EPERM ? 2 : r == -ECONNREFUSED ? 5 : 4);
	else
		http_error(c->cl, r == -EPERM ? 403 : r == -ETIMEDOUT ? 504 : 502, c->rec.reason);
}

static void
connected(struct pconn *c)
{
	const struct sockaddr *sa = (const struct sockaddr *) &c->addr[c->i_addr - 1];
	const void *a = sa->sa_family == AF_INET ?
			(const void *) &((const struct sockaddr_in *) sa)->sin_addr :
			(const void *) &((const struct sockaddr_in6 *) sa)->sin6_addr;
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static const uint8_t socks_ok[10] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

	(void) inet_ntop(sa->sa_family, a, c->rec.address, sizeof(c->rec.address));
	c->out_off = c->out_len = 0;
	if (c->req.kind == PROXY_HTTP_CONNECT) {
		memcpy(c->out, ok, sizeof(ok) - 1);
		c->out_len = sizeof(ok) - 1;
	} else if (c->req.kind == PROXY_SOCKS5) {
		memcpy(c->out, socks_ok, sizeof(socks_ok));
		c->out_len = sizeof(socks_ok);
	}
	c->fwd_off = 0;
	c->st = ST_RELAY;
}

/* Connect to the next address; when none is left, refuse with the last error. */
static void
try_next(struct px *px, struct pconn *c)
{
	while (c->i_addr < c->n_addr) {
		const struct sockaddr *sa = (const struct sockaddr *) &c->addr[c->i_addr];
		int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		c->i_addr++;
		if (fd < 0) {
			c->last_err = -errno;
			continue;
		}
		if (connect(fd, sa, c->addr_len[c->i_addr - 1]) == 0) {
			c->up = fd;
			connected(c);
			return;
		}
		if (errno == EINPROGRESS) {
			c->up = fd;
			c->st = ST_CONNECTING;
			c->deadline = now_ms() + CONNECT_DEADLINE_MS;
			return;
		}
		c->last_err = -errno;
		close(fd);
	}
	conn_reason(c, false, "connect: %s", strerror(-c->last_err));
	refuse_client(c, c->last_err);
	conn_end(px, c);
}

/* The allow-list's decision on the request, and the addresses to try. */
static int
decide(const struct allow_list *l, struct pconn *c)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	struct allow_host h;
	char err[128], port[8];
	const char *why = NULL;
	int r;

	/* What the client asked for, escaped, until the allow-list normalises it. */
	(void) snprintf(c->rec.host, sizeof(c->rec.host), "%.*s", (int) c->req.host_len,
			c->req.host);
	c->rec.port = c->req.port;
	if (allow_parse_host(c->req.host, c->req.host_len, &h, err, sizeof(err)) < 0) {
		conn_reason(c, true, "invalid host: %s", err);
		return -EPERM;
	}
	(void) snprintf(c->rec.host, sizeof(c->rec.host), "%s", h.name);
	if (allow_host_ok(l, &h, c->rec.port) == NULL) {
		conn_reason(c, true, "not in the allow-list");
		return -EPERM;
	}
	(void) snprintf(port, sizeof(port), "%u", (unsigned) c->rec.port);
	if (h.is_addr)
		hints.ai_flags |= AI_NUMERICHOST;
	/* Resolution blocks the proxy: the resolver's own timeouts bound it. */
	r = getaddrinfo(h.name, port, &hints, &res);
	if (r != 0) {
		conn_reason(c, false, "cannot resolve: %s", gai_strerror(r));
		return -EHOSTUNREACH;
	}
	c->n_addr = c->i_addr = 0;
	for (struct addrinfo *ai = res; ai != NULL && c->n_addr < ADDRS_MAX; ai = ai->ai_next) {
		const uint8_t *a;

		if (ai->ai_family == AF_INET)
			a = (const uint8_t *) &((struct sockaddr_in *) ai->ai_addr)->sin_addr;
		else if (ai->ai_family == AF_INET6)
			a = (const uint8_t *) &((struct sockaddr_in6 *) ai->ai_addr)->sin6_addr;
		else
			continue;
		/* Literals and a name's addresses pass the same screen (allow.h). */
		if (!allow_addr_ok(l, ai->ai_family, a, c->rec.port, &why))
			continue;
		memcpy(&c->addr[c->n_addr], ai->ai_addr, ai->ai_addrlen);
		c->addr_len[c->n_addr++] = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	if (c->n_addr == 0) {
		conn_reason(c, true, "%s %s only to %s addresses (allow them with an address rule "
			    "inside that range)", h.name, h.is_addr ? "points" : "resolves",
			    why != NULL ? why : "refused");
		return -EPERM;
	}
	c->last_err = -EHOSTUNREACH;
	return 0;
}

static void
begin(struct px *px, struct pconn *c)
{
	int r = decide(px->l, c);

	if (r < 0) {
		refuse_client(c, r);
		conn_end(px, c);
		return;
	}
	try_next(px, c);
}

/* Drop the first n bytes of the head buffer (a SOCKS5 message that was handled). */
static void
consume(struct pconn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* Parse what has arrived in ST_HEAD, ST_SOCKS_AUTH, ST_SOCKS_REQ; act on it. */
static void
on_head(struct px *px, struct pconn *c)
{
	char cred[PROXY_CRED_MAX + 1], err[128];
	size_t cl;
	int used, status = 400;
	uint8_t rep = 1;

	for (;;) {
		if (c->in_len == 0)
			return;
		if (c->st == ST_HEAD && c->in[0] == 5) {
			static const uint8_t userpass[2] = { 5, 2 }, none[2] = { 5, 0xff };

			used = proxy_parse_socks5_greeting(c->in, c->in_len);
			if (used == 0)
				return;
			if (used < 0) {
				say(c->cl, none, sizeof(none));
				conn_end(px, c);
				return;
			}
			say(c->cl, userpass, sizeof(userpass));
			consume(c, (size_t) used);
			c->st = ST_SOCKS_AUTH;
		} else if (c->st == ST_SOCKS_AUTH) {
			static const uint8_t good[2] = { 1, 0 }, bad[2] = { 1, 1 };

			used = proxy_parse_socks5_userpass(c->in, c->in_len, cred, &cl);
			if (used == 0)
				return;
			if (used < 0 || !cred_equal(px, cred, cl)) {
				say(c->cl, bad, sizeof(bad));
				conn_end(px, c);
				return;
			}
			say(c->cl, good, sizeof(good));
			consume(c, (size_t) used);
			c->authed = true;
			c->st = ST_SOCKS_REQ;
		} else if (c->st == ST_SOCKS_REQ) {
			used = proxy_parse_socks5_request(c->in, c->in_len, &c->req, &rep);
			if (used == 0)
				return;
			if (used < 0) {
				conn_reason(c, true, "bad SOCKS5 request");
				socks_reply(c->cl, rep);
				conn_end(px, c);
				return;
			}
			c->in_off = (size_t) used;
			begin(px, c);
			return;
		} else {
			used = proxy_parse_http(c->in, c->in_len, &c->req, &status, err,
						sizeof(err));
			if (used == 0)
				return;
			if (used < 0) {
				http_error(c->cl, status, err);
				conn_end(px, c);
				return;
			}
			if (c->req.auth_len == 0 ||
			    proxy_parse_basic(c->req.auth, c->req.auth_len, cred, &cl) < 0 ||
			    !cred_equal(px, cred, cl)) {
				http_error(c->cl, 407, "the proxy URL's credentials are required "
					   "(HTTP_PROXY as sandcap set it)");
				conn_end(px, c);
				return;
			}
			c->authed = true;
			c->in_off = (size_t) used;
			begin(px, c);
			return;
		}
	}
}

/* Read into buf[*len, cap).  1 data, 0 end of stream, -EAGAIN, or -errno. */
static int
pull(int fd, uint8_t *buf, size_t cap, size_t *len, uint64_t *count)
{
	ssize_t r = recv(fd, buf + *len, cap - *len, MSG_DONTWAIT);

	if (r < 0)
		return errno == EINTR || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (r == 0)
		return 0;
	*len += (size_t) r;
	if (count != NULL)
		*count += (uint64_t) r;
	return 1;
}

/* Write buf[*off, len).  0 (all or part of it written, or would block), or -errno. */
static int
push(int fd, const uint8_t *buf, size_t *off, size_t len, uint64_t *count)
{
	ssize_t r = send(fd, buf + *off, len - *off, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (r < 0)
		return errno == EINTR || errno == EWOULDBLOCK ? 0 : -errno;
	*off += (size_t) r;
	if (count != NULL)
		*count += (uint64_t) r;
	return 0;
}

static bool
c2u_pending(const struct pconn *c)
{
	return (c->req.kind == PROXY_HTTP_FORWARD && c->fwd_off < c->req.fwd_len) ||
	       c->in_off < c->in_len;
}

/* One relay step on what poll() said; ends the connection when both ways are done or on
 * an error, which the record names. */
static void
on_relay(struct px *px, struct pconn *c, short cl_ev, short up_ev)
{
	const char *host = c->rec.host;
	int r;

	if ((up_ev & (POLLOUT | POLLERR | POLLHUP)) && c2u_pending(c)) {
		if (c->req.kind == PROXY_HTTP_FORWARD && c->fwd_off < c->req.fwd_len)
			r = push(c->up, (const uint8_t *) c->req.fwd, &c->fwd_off, c->req.fwd_len,
				 &c->rec.bytes_out);
		else
			r = push(c->up, c->in, &c->in_off, c->in_len, &c->rec.bytes_out);
		if (r < 0)
			goto fail_up_w;
	}
	if ((cl_ev & (POLLOUT | POLLERR | POLLHUP)) && c->out_off < c->out_len) {
		r = push(c->cl, c->out, &c->out_off, c->out_len, NULL);
		if (r < 0)
			goto fail_cl_w;
	}
	if (c->in_off == c->in_len)
		c->in_off = c->in_len = 0;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if ((cl_ev & (POLLIN | POLLHUP | POLLERR)) && !c->cl_eof && c->in_len < sizeof(c->in)) {
		r = pull(c->cl, c->in, sizeof(c->in), &c->in_len, NULL);
		if (r == 0)
			c->cl_eof = true;
		else if (r < 0 && r != -EAGAIN)
			goto fail_cl_r;
	}
	if ((up_ev & (POLLIN | POLLHUP | POLLERR)) && !c->up_eof && c->out_len < sizeof(c->out)) {
		r = pull(c->up, c->out, sizeof(c->out), &c->out_len, &c->rec.bytes_in);
		if (r == 0)
			c->up_eof = true;
		else if (r < 0 && r != -EAGAIN)
			goto fail_up_r;
	}
	/* Half-close: an end of stream goes on once what came before it is written. */
	if (c->cl_eof && !c2u_pending(c) && !c->up_shut) {
		(void) shutdown(c->up, SHUT_WR);
		c->up_shut = true;
	}
	if (c->up_eof && c->out_off == c->out_len && !c->cl_shut) {
		(void) shutdown(c->cl, SHUT_WR);
		c->cl_shut = true;
	}
	if (c->cl_shut && c->up_shut)
		conn_end(px, c);
	return;
fail_up_w:
	conn_reason(c, false, "relay ended: writing to %s: %s", host, strerror(-r));
	goto end;
fail_cl_w:
	conn_reason(c, false, "relay ended: writing to the client: %s", strerror(-r));
	goto end;
fail_cl_r:
	conn_reason(c, false, "relay ended: reading from the client: %s", strerror(-r));
	goto end;
fail_up_r:
	conn_reason(c, false, "relay ended: reading from %s: %s", host, strerror(-r));
end:
	conn_end(px, c);
}

static void
on_connecting(struct px *px, struct pconn *c, short up_ev)
{
	socklen_t el = sizeof(int);
	int e = 0;

	if (up_ev == 0) {
		if (left_ms(c->deadline) > 0)
			return;
		e = ETIMEDOUT;
	} else if (getsockopt(c->up, SOL_SOCKET, SO_ERROR, &e, &el) < 0) {
		e = errno;
	}
	if (e == 0) {
		connected(c);
		return;
	}
	c->up = safe_close(c->up);
	c->last_err = -e;
	try_next(px, c);
}

/* Is the peer of an accepted connection the sandbox (its uid, and its cgroup where there
 * is one)?  Anything else is closed at once and leaves no trace. */
static bool
peer_ok(const struct px *px, int fd)
{
	struct proxy_peer peer;

	if (proxy_peer_lookup(px->nl, fd, &peer) < 0 || peer.uid != px->uid)
		return false;
	return px->cgroup == 0 || (peer.has_cgroup && peer.cgroup == px->cgroup);
}

/* A slot for a new connection: a free one, else the oldest one that has not authenticated
 * (idle connections of someone else cannot starve the sandbox's), else none. */
static struct pconn *
slot_for_new(struct px *px)
{
	struct pconn *old = NULL;

	for (size_t i = 0; i < px->max_conn; i++) {
		if (slots[i].st == ST_FREE)
			return &slots[i];
		if (!slots[i].authed && (old == NULL || slots[i].since < old->since))
			old = &slots[i];
	}
	if (old != NULL)
		conn_end(px, old);
	return old;
}

static void
on_accept(struct px *px)
{
	for (int k = 0; k < NET_CONCURRENT_MAX; k++) {
		int fd = accept4(px->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct pconn *c;

		if (fd < 0)
			return;
		if (!peer_ok(px, fd)) {
			close(fd);
			continue;
		}
		c = slot_for_new(px);
		if (c == NULL) {
			struct net_conn rec = { .denied = true };

			(void) snprintf(rec.reason, sizeof(rec.reason), "more than %zu connections "
					"at once", px->max_conn);
			http_error(fd, 502, rec.reason);
			close(fd);
			add_record(px, &rec);
			continue;
		}
		c->st = ST_HEAD;
		c->authed = c->cl_eof = c->up_eof = c->cl_shut = c->up_shut = false;
		c->cl = fd;
		c->up = -EBADF;
		c->since = now_ms();
		c->deadline = c->since + HEAD_DEADLINE_MS;
		c->in_off = c->in_len = c->out_off = c->out_len = c->fwd_off = 0;
		c->req.kind = PROXY_HTTP_CONNECT;
		c->req.fwd_len = 0;
		memset(&c->rec, 0, sizeof(c->rec));
	}
}

/* Read the sandbox's cgroup id once (the run's mode is known after the proxy starts); EOF:
 * the run is over. */
static void
on_ctl(struct px *px)
{
	uint64_t msg[2];
	ssize_t r = read(px->ctl, msg, sizeof(msg));

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r == (ssize_t) sizeof(msg) && !px->configured && msg[0] == PROXY_CTL_MAGIC) {
		px->cgroup = msg[1];
		px->configured = true;
		return;
	}
	px->stopping = true;
	px->stop_deadline = now_ms() + STOP_GRACE_MS;
	for (size_t i = 0; i < px->max_conn; i++)
		if (slots[i].st != ST_FREE && !slots[i].authed)
			conn_end(px, &slots[i]);
}

static void
on_head_event(struct px *px, struct pconn *c, short ev)
{
	int r;

	if (ev != 0 && c->in_len < sizeof(c->in)) {
		r = pull(c->cl, c->in, sizeof(c->in), &c->in_len, NULL);
		if (r == 0 || (r < 0 && r != -EAGAIN)) {
			conn_reason(c, true, "no complete request: %s", r == 0 ?
				    "the client closed the connection" : strerror(-r));
			conn_end(px, c);
			return;
		}
		on_head(px, c);
		return;
	}
	if (left_ms(c->deadline) == 0) {
		conn_reason(c, true, "no complete request within %d s", HEAD_DEADLINE_MS / 1000);
		conn_end(px, c);
	}
}

static void
want(struct pollfd *p, int fd, bool in, bool out)
{
	p->fd = in || out ? fd : -1;
	p->events = (short) ((in ? POLLIN : 0) | (out ? POLLOUT : 0));
	p->revents = 0;
}

/* The poll() set: [0] listener, [1] control pipe, then two per slot (client, upstream). */
static int
fill_poll(struct px *px, struct pollfd *p)
{
	int64_t next = px->stopping ? px->stop_deadline : -1;

	want(&p[0], px->lfd, px->configured && !px->stopping, false);
	want(&p[1], px->ctl, !px->stopping, false);
	for (size_t i = 0; i < px->max_conn; i++) {
		const struct pconn *c = &slots[i];
		struct pollfd *cp = &p[2 + 2 * i], *up = cp + 1;

		want(cp, -1, false, false);
		want(up, -1, false, false);
		switch (c->st) {
		case ST_HEAD:
		case ST_SOCKS_AUTH:
		case ST_SOCKS_REQ:
			want(cp, c->cl, c->in_len < sizeof(c->in), false);
			break;
		case ST_CONNECTING:
			want(up, c->up, false, true);
			break;
		case ST_RELAY:
			want(cp, c->cl, !c->cl_eof && c->in_len < sizeof(c->in),
			     c->out_off < c->out_len);
			want(up, c->up, !c->up_eof && c->out_len < sizeof(c->out), c2u_pending(c));
			break;
		case ST_FREE:
		default:
			break;
		}
		if (c->st != ST_FREE && c->st != ST_RELAY && (next < 0 || c->deadline < next))
			next = c->deadline;
	}
	return next < 0 ? -1 : left_ms(next);
}

static void
on_events(struct px *px, const struct pollfd *p)
{
	for (size_t i = 0; i < px->max_conn; i++) {
		struct pconn *c = &slots[i];
		short cl_ev = p[2 + 2 * i].revents, up_ev = p[3 + 2 * i].revents;

		switch (c->st) {
		case ST_HEAD:
		case ST_SOCKS_AUTH:
		case ST_SOCKS_REQ:
			on_head_event(px, c, cl_ev);
			break;
		case ST_CONNECTING:
			on_connecting(px, c, up_ev);
			break;
		case ST_RELAY:
			if (cl_ev != 0 || up_ev != 0)
				on_relay(px, c, cl_ev, up_ev);
			break;
		case ST_FREE:
		default:
			break;
		}
	}
}

static bool
any_open(const struct px *px)
{
	for (size_t i = 0; i < px->max_conn; i++)
		if (slots[i].st != ST_FREE)
			return true;
	return false;
}

static void
write_results(struct px *px, int res_w)
{
	char line[PIPE_BUF];
	FILE *f;

	for (size_t i = 0; i < px->max_conn; i++) {
		struct pconn *c = &slots[i];

		if (c->st == ST_FREE)
			continue;
		if (c->rec.reason[0] == '\0')
			conn_reason(c, c->rec.denied, "%s when the run ended", c->st == ST_RELAY ?
				    "still open" : "not yet connected");
		conn_end(px, c);
	}
	f = fdopen(res_w, "w");
	if (f == NULL)
		_exit(1);
	for (size_t i = 0; i < px->n_rec; i++) {
		(void) net_record_format(&px->rec[i], line, sizeof(line));
		(void) fputs(line, f);
	}
	(void) fprintf(f, "END\t%llu\t%llu\n", (unsigned long long) px->omitted,
		       (unsigned long long) px->denied);
	(void) fclose(f);
}

/* The proxy process: one event loop, no other process, no thread. */
static _Noreturn void
proxy_main(struct px *px, int res_w)
{
	static struct pollfd p[2 + 2 * NET_CONCURRENT_MAX];

	px->nl = proxy_peer_open();
	if (px->nl < 0)
		_exit(1);
	for (size_t i = 0; i < px->max_conn; i++)
		slots[i].cl = slots[i].up = -EBADF;
	for (;;) {
		int timeout = fill_poll(px, p);
		int r;

		if (px->stopping && (!any_open(px) || left_ms(px->stop_deadline) == 0))
			break;
		r = poll(p, 2 + 2 * px->max_conn, timeout);
		if (r < 0 && errno != EINTR)
			break;
		if (r < 0)
			continue;
		if (p[1].revents != 0)
			on_ctl(px);
		on_events(px, p);
		if (p[0].revents & POLLIN)
			on_accept(px);
	}
	write_results(px, res_w);
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

#define PROXY_FDS (2 * NET_CONCURRENT_MAX + 16)  /* two per connection, and its own */

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

int
net_proxy_start(struct net_proxy *p, const struct allow_list *l, char *err, size_t errlen)
{
	static struct px px;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	_cleanup_close_ int lfd = -EBADF;
	uint8_t rnd[PROXY_SECRET_BYTES];
	int stop_p[2], res_p[2], pid_p[2] = { -EBADF, -EBADF }, r;
	pid_t mid, pid = 0;

	memset(p, 0, offsetof(struct net_proxy, conn));
	p->stop_fd = p->result_fd = p->pidfd = -EBADF;
	p->max_conn = conn_cap();
	if (p->max_conn == 0) {
		(void) snprintf(err, errlen, "sandcap: --net proxy: RLIMIT_NOFILE leaves the proxy "
				"no descriptors; raise it (ulimit -n 256)");
		return -EMFILE;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd)) {
		r = -errno;
		(void) snprintf(err, errlen, "sandcap: --net proxy: no random secret: %s",
				strerror(-r));
		return r;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		(void) snprintf(p->secret + 2 * i, 3, "%02x", rnd[i]);
	explicit_bzero(rnd, sizeof(rnd));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ||
	    listen(lfd, 128) < 0 || getsockname(lfd, (struct sockaddr *) &sa, &sl) < 0) {
		r = -errno;
		(void) snprintf(err, errlen, "sandcap: --net proxy: cannot listen on 127.0.0.1: %s",
				strerror(-r));
		return r;
	}
	r = probe_peer(lfd, &sa, &p->peer_cgroup);
	if (r < 0) {
		(void) snprintf(err, errlen, "sandcap: --net proxy: the kernel's sock_diag cannot "
				"name a connection's owner (%s), so the proxy could not tell its "
				"sandbox from other local users (Linux with CONFIG_INET_DIAG is "
				"needed); use --net none or --net host", strerror(-r));
		return r;
	}
	/* Field by field: the records array stays untouched in sandcap (issue 19's rule). */
	px.l = l;
	px.lfd = lfd;
	px.max_conn = p->max_conn;
	px.uid = geteuid();
	px.configured = px.stopping = false;
	px.n_rec = 0;
	px.omitted = px.denied = 0;
	px.cred_len = (size_t) snprintf(px.cred, sizeof(px.cred), "sandcap:%s", p->secret);
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
		pid_t px_pid = fork();

		if (px_pid == 0) {
			sigset_t all;
			pid_t self = getpid();

			const int keep[] = { lfd, stop_p[0], res_p[1], pid_p[1] };

			close_all_but(keep, ELEMENTSOF(keep));
			(void) !write(pid_p[1], &self, sizeof(self));
			close(pid_p[1]);
			/* Same uid as the sandbox: not dumpable, so neither the sandbox nor
			 * anything else without CAP_SYS_PTRACE can ptrace it or read its secret
			 * or write its memory through /proc and make it connect elsewhere. */
			(void) prctl(PR_SET_DUMPABLE, 0);
			(void) setsid();        /* no terminal signals: sandcap handles ^C */
			(void) sigemptyset(&all);
			(void) sigprocmask(SIG_SETMASK, &all, NULL);
			(void) signal(SIGPIPE, SIG_IGN);
			raise_nofile();
			px.ctl = stop_p[0];
			proxy_main(&px, res_p[1]);
		}
		_exit(px_pid > 0 ? 0 : 1);
	}
	explicit_bzero(px.cred, sizeof(px.cred));
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
net_proxy_authorize(struct net_proxy *p, int cgroup_fd)
{
	uint64_t msg[2] = { PROXY_CTL_MAGIC, 0 };
	char who[64];

	if (p->pid <= 0)
		return 0;
	if (cgroup_fd >= 0 && p->peer_cgroup)
		msg[1] = proxy_cgroup_id(cgroup_fd);
	if (cgroup_fd >= 0 && msg[1] == 0)
		fprintf(stderr, "sandcap: warning: --net proxy: this kernel's sock_diag reports no "
			"cgroup id (Linux 5.7+ with CONFIG_SOCK_CGROUP_DATA): the proxy knows its "
			"sandbox by uid and secret only\n");
	if (msg[1] != 0)
		(void) snprintf(who, sizeof(who), ", cgroup id %llu", (unsigned long long) msg[1]);
	else if (cgroup_fd >= 0)
		(void) snprintf(who, sizeof(who), ", cgroup unchecked: no cgroup id from this kernel");
	else
		who[0] = '\0';
	(void) snprintf(p->authentication, sizeof(p->authentication), "peer uid %u%s (sock_diag), "
			"per-run secret in the proxy URL", (unsigned) geteuid(), who);
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
	if (r < 0)      /* a pidfd: no recycled pid can be hit */
		(void) syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
	p->pidfd = safe_close(p->pidfd);
	p->pid = 0;
	return r;
}
