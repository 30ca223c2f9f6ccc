/* SPDX-License-Identifier: MIT */
/* Upstream: the allow-list's decision on a request, resolving its name, and connecting
 * to each address it passed in turn until one answers. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy-int.h"

static void
connected(struct pconn *c)
{
	const struct sockaddr *sa = (const struct sockaddr *) &c->addr[c->i_addr - 1];
	const void *a = sa->sa_family == AF_INET
				? (const void *) &((const struct sockaddr_in *) sa)->sin_addr
				: (const void *) &((const struct sockaddr_in6 *) sa)->sin6_addr;
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
	px_conn_reason(c, false, "connect: %s", strerror(-c->last_err));
	px_refuse_client(c, c->last_err);
	px_conn_end(px, c);
}

/* The allow-list's decision on the request, and the addresses to try. */
static int
decide(const struct allow_list *l, struct pconn *c)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
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
		px_conn_reason(c, true, "invalid host: %s", err);
		return -EPERM;
	}
	(void) snprintf(c->rec.host, sizeof(c->rec.host), "%s", h.name);
	if (allow_host_ok(l, &h, c->rec.port) == NULL) {
		px_conn_reason(c, true, "not in the allow-list");
		return -EPERM;
	}
	(void) snprintf(port, sizeof(port), "%u", (unsigned) c->rec.port);
	if (h.is_addr)
		hints.ai_flags |= AI_NUMERICHOST;
	/* Resolution blocks the proxy: the resolver's own timeouts bound it. */
	r = getaddrinfo(h.name, port, &hints, &res);
	if (r != 0) {
		px_conn_reason(c, false, "cannot resolve: %s", gai_strerror(r));
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
		px_conn_reason(c, true,
			       "%s %s only to %s addresses (allow them with an address "
			       "rule inside that range)",
			       h.name, h.is_addr ? "points" : "resolves",
			       why != NULL ? why : "refused");
		return -EPERM;
	}
	c->last_err = -EHOSTUNREACH;
	return 0;
}

void
px_begin(struct px *px, struct pconn *c)
{
	int r = decide(px->l, c);

	if (r < 0) {
		px_refuse_client(c, r);
		px_conn_end(px, c);
		return;
	}
	try_next(px, c);
}

void
px_on_connecting(struct px *px, struct pconn *c, short up_ev)
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
