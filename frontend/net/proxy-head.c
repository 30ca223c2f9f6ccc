/* SPDX-License-Identifier: MIT */
/* The request head: reading it under a deadline and acting on it, HTTP (CONNECT or an
 * absolute URI with Proxy-Authorization) or SOCKS5 (greeting, username/password,
 * request).  The parsing itself is proxy-parse.c's. */
#include <errno.h>
#include <string.h>

#include "net/proxy-int.h"

/* Drop the first n bytes of the head buffer (a SOCKS5 message that was handled). */
static void
consume(struct pconn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* What a step of the head made of the bytes that have arrived. */
enum head_step {
	HEAD_MORE, /* an incomplete message: wait for more bytes */
	HEAD_NEXT, /* a message handled: parse what follows it */
	HEAD_DONE, /* the connection was ended, or its request begun */
};

/* The SOCKS5 greeting: username/password is the one method offered. */
static enum head_step
socks_greeting(struct px *px, struct pconn *c)
{
	static const uint8_t userpass[2] = { 5, 2 }, none[2] = { 5, 0xff };
	int used = proxy_parse_socks5_greeting(c->in, c->in_len);

	if (used == 0)
		return HEAD_MORE;
	if (used < 0) {
		px_say(c->cl, none, sizeof(none));
		px_conn_end(px, c);
		return HEAD_DONE;
	}
	px_say(c->cl, userpass, sizeof(userpass));
	consume(c, (size_t) used);
	c->st = ST_SOCKS_AUTH;
	return HEAD_NEXT;
}

/* The SOCKS5 username/password: the per-run secret, or the connection ends. */
static enum head_step
socks_auth(struct px *px, struct pconn *c)
{
	static const uint8_t good[2] = { 1, 0 }, bad[2] = { 1, 1 };
	char cred[PROXY_CRED_MAX + 1];
	size_t cl;
	int used = proxy_parse_socks5_userpass(c->in, c->in_len, cred, &cl);

	if (used == 0)
		return HEAD_MORE;
	if (used < 0 || !px_cred_equal(px, cred, cl)) {
		px_say(c->cl, bad, sizeof(bad));
		px_conn_end(px, c);
		return HEAD_DONE;
	}
	px_say(c->cl, good, sizeof(good));
	consume(c, (size_t) used);
	c->authed = true;
	c->st = ST_SOCKS_REQ;
	return HEAD_NEXT;
}

static enum head_step
socks_request(struct px *px, struct pconn *c)
{
	uint8_t rep = 1;
	int used = proxy_parse_socks5_request(c->in, c->in_len, &c->req, &rep);

	if (used == 0)
		return HEAD_MORE;
	if (used < 0) {
		px_conn_reason(c, true, "bad SOCKS5 request");
		px_socks_reply(c->cl, rep);
		px_conn_end(px, c);
		return HEAD_DONE;
	}
	c->in_off = (size_t) used;
	px_begin(px, c);
	return HEAD_DONE;
}

/* An HTTP request head, which must carry the per-run secret in Proxy-Authorization. */
static enum head_step
http_request(struct px *px, struct pconn *c)
{
	char cred[PROXY_CRED_MAX + 1], err[128];
	size_t cl;
	int status = 400;
	int used = proxy_parse_http(c->in, c->in_len, &c->req, &status, err, sizeof(err));

	if (used == 0)
		return HEAD_MORE;
	if (used < 0) {
		px_http_error(c->cl, status, err);
		px_conn_end(px, c);
		return HEAD_DONE;
	}
	if (c->req.auth_len == 0 ||
	    proxy_parse_basic(c->req.auth, c->req.auth_len, cred, &cl) < 0 ||
	    !px_cred_equal(px, cred, cl)) {
		px_http_error(c->cl, 407,
			      "the proxy URL's credentials are required "
			      "(HTTP_PROXY as sandcap set it)");
		px_conn_end(px, c);
		return HEAD_DONE;
	}
	c->authed = true;
	c->in_off = (size_t) used;
	px_begin(px, c);
	return HEAD_DONE;
}

/* Parse what has arrived in ST_HEAD, ST_SOCKS_AUTH, ST_SOCKS_REQ; act on it. */
static void
on_head(struct px *px, struct pconn *c)
{
	enum head_step step = HEAD_NEXT;

	while (step == HEAD_NEXT && c->in_len > 0) {
		if (c->st == ST_HEAD && c->in[0] == 5)
			step = socks_greeting(px, c);
		else if (c->st == ST_SOCKS_AUTH)
			step = socks_auth(px, c);
		else if (c->st == ST_SOCKS_REQ)
			step = socks_request(px, c);
		else
			step = http_request(px, c);
	}
}

void
px_on_head_event(struct px *px, struct pconn *c, short ev)
{
	int r;

	if (ev != 0 && c->in_len < sizeof(c->in)) {
		r = px_pull(c->cl, c->in, sizeof(c->in), &c->in_len, NULL);
		if (r == 0 || (r < 0 && r != -EAGAIN)) {
			px_conn_reason(c, true, "no complete request: %s",
				       r == 0 ? "the client closed the connection" : strerror(-r));
			px_conn_end(px, c);
			return;
		}
		on_head(px, c);
		return;
	}
	if (left_ms(c->deadline) == 0) {
		px_conn_reason(c, true, "no complete request within %d s", HEAD_DEADLINE_MS / 1000);
		px_conn_end(px, c);
	}
}
