/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the helper's request path.  lib/wire.c's frame parser and field
 * getters, and helper/dispatch.c itself (compiled in) with the state machine, the fd-count
 * check, the sequence check and the reply encoder.  The request handlers are replaced by
 * stubs that decode their bodies exactly as helper/op_cgroup.c does (the decoding is the
 * first thing each handler does; what follows is privileged work that cannot run here).
 *
 * Input: a sequence of datagrams, each "u8 nfds | u16 len (LE) | len bytes", dispatched
 * one after the other to one session, like a client that sends them in that order.
 * Checked properties (abort() on violation):
 *   - a protocol violation ends the session (helper_fatal), never anything else;
 *   - every reply that is sent parses, is a reply to the request's type and seq;
 *   - a frame accepted by wire_parse() re-encodes to the same bytes;
 *   - wire_get_str() never moves the cursor on failure and yields NUL-free strings;
 *   - nothing is accepted after DESTROY, and no request runs before HELLO succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The real dispatcher: helper/ headers are found next to it. */
#include "../../helper/dispatch.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jmp_buf fatal_jmp;
static int devnull = -1;
static unsigned n_handled;      /* handler calls in this session */

_Noreturn void
helper_fatal(struct session *s, const char *fmt, ...)
{
	(void) s;
	(void) fmt;
	longjmp(fatal_jmp, 1);
}

int
session_teardown(struct session *s, char *msg, size_t msglen)
{
	(void) s;
	(void) msg;
	(void) msglen;
	return 0;
}

/* Stubs: the body decoding of helper/op_cgroup.c, verbatim, then a canned answer. */
int
op_hello(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	 char *msg, size_t msglen)
{
	uint32_t version;

	n_handled++;
	if (wire_get_u32(rd, &version) < 0 || wire_get_end(rd) < 0)
		return -EBADMSG;
	if (version != WIRE_VERSION) {
		snprintf(msg, msglen, "protocol version %u not supported", version);
		return -EPROTONOSUPPORT;
	}
	wire_put_u32(body, WIRE_VERSION);
	return 0;
}

int
op_create(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	  char *msg, size_t msglen)
{
	uint64_t req[5];
	uint32_t net, fs, port, role;
	char sess[40];

	n_handled++;
	if (!(s->permitted & B_CREATE))
		abort();        /* dispatch ran a handler it did not permit */
	for (size_t i = 0; i < ELEMENTSOF(req); i++)
		if (wire_get_u64(rd, &req[i]) < 0)
			return -EBADMSG;
	if (wire_get_u32(rd, &net) < 0 || wire_get_u32(rd, &fs) < 0 ||
	    wire_get_u32(rd, &port) < 0 || wire_get_session(rd, &role, sess, sizeof(sess)) < 0 ||
	    wire_get_end(rd) < 0)
		return -EBADMSG;
	if (net > POLICY_NET_NONE || fs > POLICY_FS_STRICT || port > 65535)
		return -EBADMSG;
	if (req[0] == 1) {      /* some refusal, so that the refusal path is covered too */
		snprintf(msg, msglen, "memory %llu is below the floor", (unsigned long long) req[0]);
		return -EPERM;
	}
	wire_put_str(body, "4201-0123456789abcdef");
	for (size_t i = 0; i < ELEMENTSOF(req); i++)
		wire_put_u64(body, req[i]);
	wire_put_str(body, "/run/sandcap/4201/4201-0123456789abcdef");
	wire_put_str(body, "");
	s->reply_fds[0] = devnull;
	s->reply_fds[1] = devnull;
	s->n_reply_fds = 2;
	return 0;
}

int
op_spawn(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	 char *msg, size_t msglen)
{
	n_handled++;
	if (wire_get_end(rd) < 0)
		return -EBADMSG;
	if (fds[0] < 0)
		abort();        /* the fd-count check let a SPAWN without its fd through */
	return 0;
}

int
op_kill(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	char *msg, size_t msglen)
{
	n_handled++;
	return wire_get_end(rd) < 0 ? -EBADMSG : 0;
}

int
op_destroy(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	   char *msg, size_t msglen)
{
	n_handled++;
	return wire_get_end(rd) < 0 ? -EBADMSG : 0;
}

/* Properties of the pure codec on one frame. */
static void
check_codec(const uint8_t *buf, size_t n)
{
	static uint8_t out[WIRE_MSG_MAX];
	struct wire_hdr h;
	struct wire_rd rd, before;
	struct wire_wr wr;
	char str[64], big[WIRE_STR_MAX + 1];
	int r, len;

	if (wire_parse(buf, n, &h, &rd) < 0)
		return;
	if (h.magic != WIRE_MAGIC || h.version != WIRE_VERSION || h.len != rd.left ||
	    n != WIRE_HDR_SIZE + rd.left)
		abort();
	/* Re-encoding the accepted frame gives the same bytes. */
	wire_msg_begin(&wr, out, sizeof(out), h.type, h.seq);
	wire_put_bytes(&wr, rd.p, rd.left);
	len = wire_msg_end(&wr);
	if (len != (int) n || memcmp(out, buf, n) != 0)
		abort();
	/* Walk the payload as strings, with a small and a full-size buffer. */
	for (int pass = 0; pass < 2; pass++) {
		struct wire_rd cur = rd;
		char *b = pass == 0 ? str : big;
		size_t bsz = pass == 0 ? sizeof(str) : sizeof(big);

		for (;;) {
			before = cur;
			r = wire_get_str(&cur, b, bsz);
			if (r < 0) {
				if (cur.p != before.p || cur.left != before.left)
					abort();        /* moved on failure */
				if (r != -EBADMSG && r != -ENAMETOOLONG)
					abort();
				break;
			}
			if (strlen(b) >= bsz || before.left - cur.left != 4 + strlen(b))
				abort();        /* truncated, or a NUL slipped in */
		}
	}
}

/* The reply the dispatcher sent, if any: must answer this request. */
static void
check_reply(int peer, uint16_t type, uint32_t seq)
{
	uint8_t buf[WIRE_MSG_MAX + 1];
	int fds[WIRE_FDS_MAX];
	size_t nfds = 0;
	struct wire_hdr h;
	struct wire_rd rd;
	uint32_t status;
	char reason[WIRE_STR_MAX + 1];
	int n;

	n = wire_recv(peer, buf, sizeof(buf), fds, &nfds);
	if (n == -EAGAIN)
		return;
	if (n <= 0)
		abort();
	wire_close_fds(fds, nfds);
	if (wire_parse(buf, (size_t) n, &h, &rd) < 0 || h.type != (type | WIRE_REPLY) ||
	    h.seq != seq || wire_get_u32(&rd, &status) < 0 ||
	    wire_get_str(&rd, reason, sizeof(reason)) < 0 || status > 4095 ||
	    (status != 0 && (nfds != 0 || rd.left != 0)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct session sess;
	struct session *s = &sess;
	int sv[2], fds[WIRE_FDS_MAX];
	bool hello_ok = false, destroyed = false;

	if (devnull < 0) {
		log_setup("fuzz-wire", 0, 0);   /* quiet: LOG_EMERG only */
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull < 0)
			abort();
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
	session_init(s, sv[0]);
	n_handled = 0;

	while (size >= 3) {
		size_t nfds = data[0] % (WIRE_FDS_MAX + 1);
		size_t n = (size_t) data[1] | (size_t) data[2] << 8;
		struct wire_hdr h = { 0 };
		struct wire_rd rd;
		unsigned before_permitted = s->permitted, handled = n_handled;
		int status = 0, r;

		data += 3;
		size -= 3;
		if (n > size)
			n = size;
		check_codec(data, n);
		for (size_t i = 0; i < nfds; i++)
			fds[i] = devnull;
		if (setjmp(fatal_jmp) != 0) {
			if (n_handled > handled + 1)
				abort();
			break;          /* the session is over */
		}
		if (destroyed)
			abort();        /* dispatch went on after DESTROY */
		r = dispatch(s, data, n, fds, nfds, &status);
		/* It got this far: the frame was valid, in order, with the right fd count. */
		if (wire_parse(data, n, &h, &rd) < 0 || wire_req_nfds(h.type) != (int) nfds ||
		    n_handled != handled + 1)
			abort();
		if (h.type != WIRE_REQ_HELLO && !hello_ok)
			abort();        /* something ran before a successful HELLO */
		if (h.type == WIRE_REQ_HELLO && !(before_permitted & 1u))
			abort();
		check_reply(sv[1], h.type, h.seq);
		if (h.type == WIRE_REQ_HELLO && s->permitted != before_permitted)
			hello_ok = true;
		if (r > 0) {
			destroyed = true;
			break;
		}
		data += n;
		size -= n;
	}
	(void) close(sv[0]);
	(void) close(sv[1]);
	return 0;
}
