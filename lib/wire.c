/* SPDX-License-Identifier: MIT */
/* Framing and field codec of the helper protocol (docs/PROTOCOL.md).  Pure. */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "wire.h"

int
wire_req_nfds(uint16_t type)
{
	switch (type) {
	case WIRE_REQ_HELLO:
	case WIRE_REQ_CREATE:
	case WIRE_REQ_KILL:
	case WIRE_REQ_DESTROY:
		return 0;
	case WIRE_REQ_SPAWN:
		return 1;
	default:
		return -EPROTO;
	}
}

static int
get_bytes(struct wire_rd *rd, void *buf, size_t n)
{
	if (rd->left < n)
		return -EBADMSG;
	memcpy(buf, rd->p, n);
	rd->p += n;
	rd->left -= n;
	return 0;
}

int
wire_get_u32(struct wire_rd *rd, uint32_t *ret)
{
	uint32_t v;

	if (get_bytes(rd, &v, sizeof(v)) < 0)
		return -EBADMSG;
	*ret = be32toh(v);
	return 0;
}

int
wire_get_u64(struct wire_rd *rd, uint64_t *ret)
{
	uint64_t v;

	if (get_bytes(rd, &v, sizeof(v)) < 0)
		return -EBADMSG;
	*ret = be64toh(v);
	return 0;
}

/*
 * Copy a length-prefixed string into buf and NUL-terminate it.  Rejects, never truncates,
 * and rejects embedded NULs, so that what the helper checks is exactly what it later uses.
 * The cursor moves only on success.
 */
int
wire_get_str(struct wire_rd *rd, char *buf, size_t bufsz)
{
	struct wire_rd tmp = *rd;
	uint32_t len;
	int r;

	r = wire_get_u32(&tmp, &len);
	if (r < 0)
		return r;
	if (len > tmp.left) /* truncated before the length check: -EBADMSG */
		return -EBADMSG;
	if (len > WIRE_STR_MAX || len >= bufsz)
		return -ENAMETOOLONG;
	if (memchr(tmp.p, '\0', len) != NULL)
		return -EBADMSG;

	memcpy(buf, tmp.p, len);
	buf[len] = '\0';
	tmp.p += len;
	tmp.left -= len;
	*rd = tmp;
	return 0;
}

int
wire_get_session(struct wire_rd *rd, uint32_t *ret_role, char *name, size_t namesz)
{
	struct wire_rd tmp = *rd;
	uint32_t role;

	if (wire_get_u32(&tmp, &role) < 0 || role > WIRE_SESSION_CALL)
		return -EBADMSG;
	if (wire_get_str(&tmp, name, namesz) < 0)
		return -EBADMSG;
	if ((role == WIRE_SESSION_CALL) != (name[0] != '\0'))
		return -EBADMSG;
	*ret_role = role;
	*rd = tmp;
	return 0;
}

int
wire_get_end(const struct wire_rd *rd)
{
	return rd->left == 0 ? 0 : -EBADMSG;
}

int
wire_parse(const uint8_t *buf, size_t n, struct wire_hdr *ret, struct wire_rd *ret_payload)
{
	struct wire_rd rd = { buf, n };
	struct wire_hdr h;
	uint32_t vt;

	if (n < WIRE_HDR_SIZE || n > WIRE_MSG_MAX)
		return -EBADMSG;
	(void) wire_get_u32(&rd, &h.magic);
	(void) wire_get_u32(&rd, &vt);
	(void) wire_get_u32(&rd, &h.seq);
	(void) wire_get_u32(&rd, &h.len);
	h.version = (uint16_t) (vt >> 16);
	h.type = (uint16_t) (vt & 0xffff);
	if (h.magic != WIRE_MAGIC)
		return -EBADMSG;
	/* The length equation (s6-sudod): the header must describe exactly this datagram. */
	if (h.len != n - WIRE_HDR_SIZE)
		return -EBADMSG;
	if (h.version != WIRE_VERSION)
		return -EPROTONOSUPPORT;
	*ret = h;
	*ret_payload = rd;
	return 0;
}

void
wire_put_bytes(struct wire_wr *wr, const void *p, size_t n)
{
	if (wr->err < 0)
		return;
	if (n > wr->cap - wr->len) {
		wr->err = -EMSGSIZE;
		return;
	}
	memcpy(wr->buf + wr->len, p, n);
	wr->len += n;
}

void
wire_put_u32(struct wire_wr *wr, uint32_t v)
{
	v = htobe32(v);
	wire_put_bytes(wr, &v, sizeof(v));
}

void
wire_put_u64(struct wire_wr *wr, uint64_t v)
{
	v = htobe64(v);
	wire_put_bytes(wr, &v, sizeof(v));
}

void
wire_put_str(struct wire_wr *wr, const char *s)
{
	size_t n = strlen(s);

	if (n > WIRE_STR_MAX) {
		if (wr->err == 0)
			wr->err = -ENAMETOOLONG;
		return;
	}
	wire_put_u32(wr, (uint32_t) n);
	wire_put_bytes(wr, s, n);
}

void
wire_msg_begin(struct wire_wr *wr, uint8_t *buf, size_t cap, uint16_t type, uint32_t seq)
{
	*wr = (struct wire_wr){ .buf = buf, .cap = cap < WIRE_MSG_MAX ? cap : WIRE_MSG_MAX };
	wire_put_u32(wr, WIRE_MAGIC);
	wire_put_u32(wr, (uint32_t) WIRE_VERSION << 16 | type);
	wire_put_u32(wr, seq);
	wire_put_u32(wr, 0);
}

int
wire_msg_end(struct wire_wr *wr)
{
	uint32_t len;

	if (wr->err < 0)
		return wr->err;
	len = htobe32((uint32_t) (wr->len - WIRE_HDR_SIZE));
	memcpy(wr->buf + 12, &len, sizeof(len));
	return (int) wr->len;
}

void
wire_reply_begin(struct wire_wr *wr, uint8_t *buf, size_t cap, uint16_t req_type, uint32_t seq,
		 uint32_t status, const char *reason)
{
	wire_msg_begin(wr, buf, cap, req_type | WIRE_REPLY, seq);
	wire_put_u32(wr, status);
	wire_put_str(wr, reason != NULL ? reason : "");
}
