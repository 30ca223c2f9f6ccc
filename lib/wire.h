/* SPDX-License-Identifier: MIT */
/* The helper protocol's framing and field codec.  Pure: no I/O, no allocation, no logging.
 *
 * One request or reply per SOCK_SEQPACKET datagram; integers big-endian.
 *   u32 magic | u16 version | u16 type | u32 seq | u32 len | payload[len]
 * len must equal datagram size - WIRE_HDR_SIZE.  See docs/PROTOCOL.md, which is the
 * reference; each type below cites its section. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC    UINT32_C(0x53435031) /* "SCP1" */
#define WIRE_VERSION  4 /* 2: SPAWN replaced ATTACH; 3: totals' sections; 4: session role */
#define WIRE_HDR_SIZE 16
#define WIRE_MSG_MAX  4096 /* whole datagram */
#define WIRE_STR_MAX  1024 /* any one string field (reasons, paths) */
#define WIRE_FDS_MAX  2

enum wire_type {
	WIRE_REQ_HELLO = 0x0001,   /* PROTOCOL.md 3.1: u32 version */
	WIRE_REQ_CREATE = 0x0002,  /* 3.2: limits + isolation; reply carries 2 fds */
	WIRE_REQ_SPAWN = 0x0003,   /* 3.3: no payload, 1 fd (the stage socket); reply: u32 pid */
	WIRE_REQ_KILL = 0x0004,    /* 3.4: no payload */
	WIRE_REQ_DESTROY = 0x0005, /* 3.5: no payload; the helper exits after replying */
	WIRE_REPLY = 0x8000,       /* OR'ed into the request type */
};

struct wire_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t seq;
	uint32_t len;
};

/* Read cursor; never passes the end.  Getters move it only on success and write *ret only
 * on success.  A short buffer is -EBADMSG. */
struct wire_rd {
	const uint8_t *p;
	size_t left;
};

/* Write cursor over a caller buffer.  The first failure (-EMSGSIZE, -EINVAL) is sticky in
 * err, so a message can be built with unchecked puts and checked once in wire_msg_end(). */
struct wire_wr {
	uint8_t *buf;
	size_t cap;
	size_t len;
	int err;
};

/* CREATE's session role (PROTOCOL.md 3.2). */
enum wire_session_role {
	WIRE_SESSION_NONE = 0,  /* a sandbox of its own */
	WIRE_SESSION_LEVEL = 1, /* a session's level: limits, workspace, children only */
	WIRE_SESSION_CALL = 2,  /* a call: a child leaf of the caller's session level named */
};

/* CREATE's trailing session fields: u32 role, str session.  The name is "" unless role is
 * WIRE_SESSION_CALL, and then not "" (its owner is the helper's to check); anything else,
 * or a role out of range, is -EBADMSG. */
int wire_get_session(struct wire_rd *rd, uint32_t *ret_role, char *name, size_t namesz);

/* Does the request type expect this many fds?  Returns the exact fd count a request type
 * carries, or -EPROTO for a type that is not a request. */
int wire_req_nfds(uint16_t type);

/* Parse and check a whole datagram: size within [WIRE_HDR_SIZE, WIRE_MSG_MAX], magic,
 * version, len == n - WIRE_HDR_SIZE.  On success *ret and *ret_payload are set.
 * -EBADMSG for a malformed frame, -EPROTONOSUPPORT for a wrong version. */
int wire_parse(const uint8_t *buf, size_t n, struct wire_hdr *ret, struct wire_rd *ret_payload);

int wire_get_u32(struct wire_rd *rd, uint32_t *ret);
int wire_get_u64(struct wire_rd *rd, uint64_t *ret);
/* Length-prefixed string, copied and NUL-terminated.  Rejects (never truncates) strings
 * longer than WIRE_STR_MAX or than bufsz-1 (-ENAMETOOLONG), and embedded NULs (-EBADMSG). */
int wire_get_str(struct wire_rd *rd, char *buf, size_t bufsz);
/* 0 if every byte was consumed, else -EBADMSG (trailing bytes). */
int wire_get_end(const struct wire_rd *rd);

/* Start a message: writes the header with len 0. */
void wire_msg_begin(struct wire_wr *wr, uint8_t *buf, size_t cap, uint16_t type, uint32_t seq);
void wire_put_u32(struct wire_wr *wr, uint32_t v);
void wire_put_u64(struct wire_wr *wr, uint64_t v);
/* A string (C strings carry no NUL, so none can be embedded);
 * sticky -ENAMETOOLONG if longer than WIRE_STR_MAX. */
void wire_put_str(struct wire_wr *wr, const char *s);
/* Raw bytes (an already-encoded body). */
void wire_put_bytes(struct wire_wr *wr, const void *p, size_t n);
/* Finish: patch len.  Returns the datagram size, or the sticky error. */
int wire_msg_end(struct wire_wr *wr);

/* Start a reply to a request: type | WIRE_REPLY, same seq, then u32 status and the reason
 * string ("" on success).  status is 0 or a positive errno. */
void wire_reply_begin(struct wire_wr *wr, uint8_t *buf, size_t cap, uint16_t req_type, uint32_t seq,
		      uint32_t status, const char *reason);
