/* SPDX-License-Identifier: MIT */
/* The connection table and admission: who may hold a slot (the sandbox's peer, checked
 * with sock_diag; the per-run secret), which slot a new connection gets, how one ends,
 * and the short replies that refuse a client. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy-int.h"
#include "net/proxy-peer.h"

/* Same length and same bytes, in a time that depends on the length only. */
bool
px_cred_equal(const struct px *px, const char *c, size_t len)
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
void
px_say(int fd, const void *p, size_t n)
{
	(void) !send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void
px_http_error(int fd, int status, const char *reason)
{
	char body[NET_REASON_MAX + 32], head[320];
	int bl = snprintf(body, sizeof(body), "sandcap proxy: %s\n", reason);
	int hl = snprintf(head, sizeof(head),
			  "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain\r\n"
			  "Connection: close\r\nContent-Length: %d\r\n\r\n",
			  status,
			  status == 403   ? "Forbidden"
			  : status == 502 ? "Bad Gateway"
			  : status == 407 ? "Proxy Authentication Required"
			  : status == 431 ? "Request Header Fields Too Large"
			  : status == 501 ? "Not Implemented"
			  : status == 504 ? "Gateway Timeout"
					  : "Bad Request",
			  status == 407 ? "Proxy-Authenticate: Basic realm=\"sandcap\"\r\n" : "",
			  bl);

	px_say(fd, head, (size_t) hl);
	px_say(fd, body, (size_t) bl);
}

void
px_socks_reply(int fd, uint8_t rep)
{
	const uint8_t r[10] = { 5, rep, 0, 1, 0, 0, 0, 0, 0, 0 };

	px_say(fd, r, sizeof(r));
}

/* End a connection; it leaves a record when it was authenticated. */
void
px_conn_end(struct px *px, struct pconn *c)
{
	c->cl = safe_close(c->cl);
	c->up = safe_close(c->up);
	if (c->authed)
		add_record(px, &c->rec);
	c->st = ST_FREE;
}

void
px_conn_reason(struct pconn *c, bool denied, const char *fmt, ...)
{
	va_list ap;

	c->rec.denied = denied;
	va_start(ap, fmt);
	(void) vsnprintf(c->rec.reason, sizeof(c->rec.reason), fmt, ap);
	va_end(ap);
}

/* The refusal the client gets for a decision or a failed connect. */
void
px_refuse_client(struct pconn *c, int r)
{
	if (c->req.kind == PROXY_SOCKS5)
		px_socks_reply(c->cl, r == -EPERM ? 2 : r == -ECONNREFUSED ? 5 : 4);
	else
		px_http_error(c->cl,
			      r == -EPERM       ? 403
			      : r == -ETIMEDOUT ? 504
						: 502,
			      c->rec.reason);
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
		if (px->slots[i].st == ST_FREE)
			return &px->slots[i];
		if (!px->slots[i].authed && (old == NULL || px->slots[i].since < old->since))
			old = &px->slots[i];
	}
	if (old != NULL)
		px_conn_end(px, old);
	return old;
}

void
px_on_accept(struct px *px)
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

			(void) snprintf(rec.reason, sizeof(rec.reason),
					"more than %zu connections "
					"at once",
					px->max_conn);
			px_http_error(fd, 502, rec.reason);
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
