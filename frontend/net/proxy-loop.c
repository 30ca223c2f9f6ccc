/* SPDX-License-Identifier: MIT */
/* The proxy process's event loop: one poll() over the listener, the control pipe and two
 * fds per slot; the end, when the records go to the result pipe. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "net/proxy-int.h"
#include "net/proxy-peer.h"

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
		if (px->slots[i].st != ST_FREE && !px->slots[i].authed)
			px_conn_end(px, &px->slots[i]);
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
		const struct pconn *c = &px->slots[i];
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
			want(up, c->up, !c->up_eof && c->out_len < sizeof(c->out),
			     px_c2u_pending(c));
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
		struct pconn *c = &px->slots[i];
		short cl_ev = p[2 + 2 * i].revents, up_ev = p[3 + 2 * i].revents;

		switch (c->st) {
		case ST_HEAD:
		case ST_SOCKS_AUTH:
		case ST_SOCKS_REQ:
			px_on_head_event(px, c, cl_ev);
			break;
		case ST_CONNECTING:
			px_on_connecting(px, c, up_ev);
			break;
		case ST_RELAY:
			if (cl_ev != 0 || up_ev != 0)
				px_on_relay(px, c, cl_ev, up_ev);
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
		if (px->slots[i].st != ST_FREE)
			return true;
	return false;
}

static void
write_results(struct px *px, int res_w)
{
	char line[PIPE_BUF];
	FILE *f;

	for (size_t i = 0; i < px->max_conn; i++) {
		struct pconn *c = &px->slots[i];

		if (c->st == ST_FREE)
			continue;
		if (c->rec.reason[0] == '\0')
			px_conn_reason(c, c->rec.denied, "%s when the run ended",
				       c->st == ST_RELAY ? "still open" : "not yet connected");
		px_conn_end(px, c);
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
_Noreturn void
px_main(struct px *px, int res_w)
{
	static struct pollfd p[2 + 2 * NET_CONCURRENT_MAX];

	px->nl = proxy_peer_open();
	if (px->nl < 0)
		_exit(1);
	for (size_t i = 0; i < px->max_conn; i++)
		px->slots[i].cl = px->slots[i].up = -EBADF;
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
			px_on_accept(px);
	}
	write_results(px, res_w);
	_exit(0);
}
