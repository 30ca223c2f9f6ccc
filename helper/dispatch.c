/* SPDX-License-Identifier: MIT */
/*
 * Contract: every request the helper understands, and the order it accepts them in.
 * Trusts nothing in a datagram: the frame is checked by wire_parse(), the fd count per
 * type by wire_req_nfds(), the sequence number against our own counter.  Unknown,
 * malformed or out-of-order requests mean a broken or hostile client: the session ends
 * with teardown (cf. OpenSSH monitor).  No capability is used here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "session.h"
#include "wire_io.h"

#define B_HELLO   (1u << 0)
#define B_CREATE  (1u << 1)
#define B_SPAWN   (1u << 2)
#define B_KILL    (1u << 3)
#define B_DESTROY (1u << 4)

static const struct op ops[] = {
	/* version check, policy load, caller resolution */
	{ WIRE_REQ_HELLO, B_HELLO, OP_ONCE | OP_END_ON_FAIL, B_CREATE, op_hello },
	/* leaf cgroup with limits + workspace; a failure may leave partial objects: end */
	{ WIRE_REQ_CREATE, B_CREATE, OP_ONCE | OP_END_ON_FAIL, B_SPAWN | B_KILL | B_DESTROY,
	  op_create },
	/* the sandbox's first process, made in the leaf; may be retried after a refusal */
	{ WIRE_REQ_SPAWN, B_SPAWN, OP_ONCE, 0, op_spawn },
	/* cgroup.kill; repeatable */
	{ WIRE_REQ_KILL, B_KILL, 0, 0, op_kill },
	/* teardown, reply, exit */
	{ WIRE_REQ_DESTROY, B_DESTROY, OP_ONCE | OP_END, 0, op_destroy },
};

int
dispatch_lookup(unsigned permitted, uint16_t type, const struct op **ret)
{
	for (size_t i = 0; i < ELEMENTSOF(ops); i++)
		if (ops[i].type == type) {
			if (!(permitted & ops[i].bit))
				return -EPERM;
			*ret = &ops[i];
			return 0;
		}
	return -EPROTO;
}

unsigned
dispatch_next(unsigned permitted, const struct op *op, int r)
{
	if (r < 0)
		return permitted;
	if (op->flags & OP_END)
		return 0;
	if (op->flags & OP_ONCE)
		permitted &= ~op->bit;
	return permitted | op->enables;
}

int
dispatch(struct session *s, const uint8_t *buf, size_t n, int *fds, size_t nfds, int *ret_status)
{
	uint8_t out[WIRE_MSG_MAX], bodybuf[WIRE_MSG_MAX];
	struct wire_wr body = { .buf = bodybuf, .cap = sizeof(bodybuf) - 64 };
	char msg[SESSION_MSG_MAX] = "", esc[128];
	const struct op *op = NULL;
	struct wire_hdr h;
	struct wire_rd rd;
	struct wire_wr wr;
	int r, r2, len;

	r = wire_parse(buf, n, &h, &rd);
	if (r < 0)
		helper_fatal(s, "malformed frame (%s)", strerror(-r));
	if (h.seq != s->seq)
		helper_fatal(s, "sequence number %u, expected %u", h.seq, s->seq);
	r = dispatch_lookup(s->permitted, h.type, &op);
	if (r == -EPROTO)
		helper_fatal(s, "unknown request type %#x", h.type);
	if (r < 0)
		helper_fatal(s, "request %#x not permitted in this state", h.type);
	if (wire_req_nfds(h.type) != (int) nfds)
		helper_fatal(s, "request %#x carries %zu fds", h.type, nfds);
	s->seq++;

	s->n_reply_fds = 0;
	r = op->fn(s, &rd, fds, &body, msg, sizeof(msg));
	if (r == -EBADMSG)
		helper_fatal(s, "malformed request %#x", h.type);
	if (r < 0 && msg[0] == '\0')
		(void) snprintf(msg, sizeof(msg), "%s", strerror(-r));
	if (r < 0)
		log_notice("uid %u pid %d: request %#x refused: %s", (unsigned) s->uid,
			   (int) s->peer_pid, h.type, log_escape(msg, esc, sizeof(esc)));

	wire_reply_begin(&wr, out, sizeof(out), h.type, h.seq, r < 0 ? (uint32_t) -r : 0,
			 r < 0 ? msg : "");
	if (r == 0 && body.err == 0)
		wire_put_bytes(&wr, body.buf, body.len);
	len = wire_msg_end(&wr);
	if (len < 0 || body.err < 0)
		helper_fatal(s, "cannot encode reply to %#x", h.type);
	/* Never wait for the client: requests are not pipelined, so a reply that
	 * does not fit means the client let replies pile up.  The session ends with teardown,
	 * which waits for nothing the client controls. */
	r2 = wire_send_nowait(s->sock, out, (size_t) len, s->reply_fds,
			      r == 0 ? s->n_reply_fds : 0);
	if (r2 == -EAGAIN)
		helper_fatal(s, "the client does not read its replies (reply to %#x would block)",
			     h.type);
	if (r2 < 0)
		helper_fatal(s, "cannot send reply to %#x", h.type);
	s->n_reply_fds = 0;

	s->permitted = dispatch_next(s->permitted, op, r);
	if ((op->flags & OP_END) || (r < 0 && (op->flags & OP_END_ON_FAIL))) {
		/* A failed CREATE may have made a lock, a leaf, a mount point: undo them. */
		if (r < 0 && (op->flags & OP_END_ON_FAIL))
			(void) session_teardown(s, msg, sizeof(msg));
		*ret_status = r < 0 ? 1 : 0;
		return 1;
	}
	return 0;
}
