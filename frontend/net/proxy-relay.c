/* SPDX-License-Identifier: MIT */
/* The relay: bytes both ways between the client and upstream through fixed buffers, with
 * half-closes passed on, counted for the record. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "net/proxy-int.h"

/* Read into buf[*len, cap).  1 data, 0 end of stream, -EAGAIN, or -errno. */
int
px_pull(int fd, uint8_t *buf, size_t cap, size_t *len, uint64_t *count)
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

bool
px_c2u_pending(const struct pconn *c)
{
	return (c->req.kind == PROXY_HTTP_FORWARD && c->fwd_off < c->req.fwd_len) ||
	       c->in_off < c->in_len;
}

/* One relay step on what poll() said; ends the connection when both ways are done or on
 * an error, which the record names. */
void
px_on_relay(struct px *px, struct pconn *c, short cl_ev, short up_ev)
{
	const char *host = c->rec.host;
	int r;

	if ((up_ev & (POLLOUT | POLLERR | POLLHUP)) && px_c2u_pending(c)) {
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
		r = px_pull(c->cl, c->in, sizeof(c->in), &c->in_len, NULL);
		if (r == 0)
			c->cl_eof = true;
		else if (r < 0 && r != -EAGAIN)
			goto fail_cl_r;
	}
	if ((up_ev & (POLLIN | POLLHUP | POLLERR)) && !c->up_eof && c->out_len < sizeof(c->out)) {
		r = px_pull(c->up, c->out, sizeof(c->out), &c->out_len, &c->rec.bytes_in);
		if (r == 0)
			c->up_eof = true;
		else if (r < 0 && r != -EAGAIN)
			goto fail_up_r;
	}
	/* Half-close: an end of stream goes on once what came before it is written. */
	if (c->cl_eof && !px_c2u_pending(c) && !c->up_shut) {
		(void) shutdown(c->up, SHUT_WR);
		c->up_shut = true;
	}
	if (c->up_eof && c->out_off == c->out_len && !c->cl_shut) {
		(void) shutdown(c->cl, SHUT_WR);
		c->cl_shut = true;
	}
	if (c->cl_shut && c->up_shut)
		px_conn_end(px, c);
	return;
fail_up_w:
	px_conn_reason(c, false, "relay ended: writing to %s: %s", host, strerror(-r));
	goto end;
fail_cl_w:
	px_conn_reason(c, false, "relay ended: writing to the client: %s", strerror(-r));
	goto end;
fail_cl_r:
	px_conn_reason(c, false, "relay ended: reading from the client: %s", strerror(-r));
	goto end;
fail_up_r:
	px_conn_reason(c, false, "relay ended: reading from %s: %s", host, strerror(-r));
end:
	px_conn_end(px, c);
}
