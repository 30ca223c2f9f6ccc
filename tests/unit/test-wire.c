/* SPDX-License-Identifier: MIT */
/* lib/wire.c: the OpenSSH treatment for every decoder: each truncation, each single-bit
 * flip, oversized lengths, embedded NULs, trailing bytes; and the framing equation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"

/* str "abc" then u32 7 */
static const uint8_t good[] = { 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 7 };

static int
decode_good(const uint8_t *p, size_t n, char *buf, size_t bufsz, uint32_t *v)
{
	struct wire_rd rd = { p, n };
	int r = wire_get_str(&rd, buf, bufsz);

	if (r == 0)
		r = wire_get_u32(&rd, v);
	if (r == 0)
		r = wire_get_end(&rd);
	return r;
}

static void
test_get_str_ok(void **state)
{
	char buf[16];
	uint32_t v = 0;

	(void) state;
	assert_int_equal(decode_good(good, sizeof(good), buf, sizeof(buf), &v), 0);
	assert_string_equal(buf, "abc");
	assert_int_equal(v, 7);
}

static void
test_every_truncation_fails(void **state)
{
	(void) state;
	for (size_t n = 0; n < sizeof(good); n++) {
		char buf[16];
		uint32_t v;

		assert_int_equal(decode_good(good, n, buf, sizeof(buf), &v), -EBADMSG);
	}
}

static void
test_trailing_bytes(void **state)
{
	uint8_t m[sizeof(good) + 1];
	char buf[16];
	uint32_t v;

	(void) state;
	memcpy(m, good, sizeof(good));
	m[sizeof(good)] = 0;
	assert_int_equal(decode_good(m, sizeof(m), buf, sizeof(buf), &v), -EBADMSG);
}

static void
test_embedded_nul(void **state)
{
	static const uint8_t m[] = { 0, 0, 0, 3, 'a', 0, 'c' };
	struct wire_rd rd = { m, sizeof(m) };
	char buf[16] = "untouched";

	(void) state;
	assert_int_equal(wire_get_str(&rd, buf, sizeof(buf)), -EBADMSG);
	assert_string_equal(buf, "untouched");
	assert_int_equal(rd.left, sizeof(m));           /* cursor did not move */
}

static void
test_oversized_lengths(void **state)
{
	static uint8_t m[4 + WIRE_STR_MAX + 1];
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 'a' };
	struct wire_rd rd;
	char big[WIRE_STR_MAX + 8], small[4];

	(void) state;
	memset(m, 'x', sizeof(m));
	m[0] = 0; m[1] = 0; m[2] = (uint8_t) ((WIRE_STR_MAX + 1) >> 8);
	m[3] = (uint8_t) ((WIRE_STR_MAX + 1) & 0xff);
	rd = (struct wire_rd) { m, sizeof(m) };
	assert_int_equal(wire_get_str(&rd, big, sizeof(big)), -ENAMETOOLONG);
	rd = (struct wire_rd) { good, sizeof(good) };
	assert_int_equal(wire_get_str(&rd, small, 3), -ENAMETOOLONG);   /* no truncation */
	assert_int_equal(wire_get_str(&rd, small, 4), 0);
	rd = (struct wire_rd) { huge, sizeof(huge) };
	assert_int_equal(wire_get_str(&rd, big, sizeof(big)), -EBADMSG);
}

/* CREATE's session fields: a name exactly when the role is a call; no role past it. */
static void
test_session_fields(void **state)
{
	static const struct {
		uint32_t role;
		const char *name;
		int want;
	} cases[] = {
		{ WIRE_SESSION_NONE, "", 0 },
		{ WIRE_SESSION_LEVEL, "", 0 },
		{ WIRE_SESSION_CALL, "1000-0123456789abcdef", 0 },
		{ WIRE_SESSION_CALL, "", -EBADMSG },
		{ WIRE_SESSION_NONE, "1000-0123456789abcdef", -EBADMSG },
		{ WIRE_SESSION_LEVEL, "x", -EBADMSG },
		{ 3, "", -EBADMSG },
		{ UINT32_MAX, "", -EBADMSG },
	};
	uint8_t buf[128];
	char name[40];

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wire_wr wr = { .buf = buf, .cap = sizeof(buf) };
		struct wire_rd rd;
		uint32_t role = 99;

		wire_put_u32(&wr, cases[i].role);
		wire_put_str(&wr, cases[i].name);
		rd = (struct wire_rd){ buf, wr.len };
		assert_int_equal(wire_get_session(&rd, &role, name, sizeof(name)), cases[i].want);
		if (cases[i].want == 0) {
			assert_int_equal(role, cases[i].role);
			assert_string_equal(name, cases[i].name);
			assert_int_equal(rd.left, 0);
		} else {
			assert_int_equal(role, 99); /* untouched, the cursor too */
			assert_int_equal(rd.left, wr.len);
		}
	}
	/* Truncated after the role, and a name longer than the caller's buffer. */
	{
		struct wire_wr wr = { .buf = buf, .cap = sizeof(buf) };
		struct wire_rd rd;
		uint32_t role;

		wire_put_u32(&wr, WIRE_SESSION_CALL);
		rd = (struct wire_rd){ buf, wr.len };
		assert_int_equal(wire_get_session(&rd, &role, name, sizeof(name)), -EBADMSG);
		wire_put_str(&wr, "1000-0123456789abcdef-and-far-too-long-for-a-name");
		rd = (struct wire_rd){ buf, wr.len };
		assert_int_equal(wire_get_session(&rd, &role, name, sizeof(name)), -EBADMSG);
	}
}

/* A whole CREATE-like message: header + 2 u64 + str. */
static size_t
build(uint8_t *buf, size_t cap)
{
	struct wire_wr wr;
	int n;

	wire_msg_begin(&wr, buf, cap, WIRE_REQ_CREATE, 7);
	wire_put_u64(&wr, UINT64_C(0x0102030405060708));
	wire_put_u64(&wr, 42);
	wire_put_str(&wr, "hello");
	n = wire_msg_end(&wr);
	assert_true(n > 0);
	return (size_t) n;
}

static int
decode_msg(const uint8_t *buf, size_t n)
{
	struct wire_hdr h;
	struct wire_rd rd;
	uint64_t a, b;
	char s[16];
	int r = wire_parse(buf, n, &h, &rd);

	if (r < 0)
		return r;
	if (h.type != WIRE_REQ_CREATE || h.seq != 7)
		return -EPROTO;
	if ((r = wire_get_u64(&rd, &a)) < 0 || (r = wire_get_u64(&rd, &b)) < 0 ||
	    (r = wire_get_str(&rd, s, sizeof(s))) < 0 || (r = wire_get_end(&rd)) < 0)
		return r;
	if (a != UINT64_C(0x0102030405060708) || b != 42 || strcmp(s, "hello") != 0)
		return -EPROTO;
	return 0;
}

static void
test_msg_roundtrip(void **state)
{
	uint8_t buf[WIRE_MSG_MAX];
	size_t n = build(buf, sizeof(buf));

	(void) state;
	assert_int_equal(n, WIRE_HDR_SIZE + 8 + 8 + 4 + 5);
	assert_memory_equal(buf, "SCP1", 4);
	assert_int_equal(decode_msg(buf, n), 0);
}

static void
test_msg_every_truncation(void **state)
{
	uint8_t buf[WIRE_MSG_MAX];
	size_t n = build(buf, sizeof(buf));

	(void) state;
	/* Cutting the datagram breaks the length equation every time. */
	for (size_t k = 0; k < n; k++)
		assert_int_equal(decode_msg(buf, k), -EBADMSG);
}

static void
test_msg_every_bit_flip(void **state)
{
	uint8_t buf[WIRE_MSG_MAX];
	size_t n = build(buf, sizeof(buf));

	(void) state;
	/* Every single-bit flip is either rejected or decodes to different values: never
	 * the original message, never an over-read (ASan under SANITIZE=1). */
	for (size_t i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t) (1u << bit);
			assert_int_not_equal(decode_msg(buf, n), 0);
			buf[i] ^= (uint8_t) (1u << bit);
		}
	assert_int_equal(decode_msg(buf, n), 0);
}

static void
test_msg_length_equation_and_limits(void **state)
{
	uint8_t buf[WIRE_MSG_MAX + 8];
	struct wire_hdr h;
	struct wire_rd rd;
	size_t n = build(buf, sizeof(buf));

	(void) state;
	buf[n] = 0;     /* one byte more than len says */
	assert_int_equal(wire_parse(buf, n + 1, &h, &rd), -EBADMSG);
	assert_int_equal(wire_parse(buf, WIRE_MSG_MAX + 1, &h, &rd), -EBADMSG);
	buf[5] = WIRE_VERSION + 1;      /* another version */
	assert_int_equal(wire_parse(buf, n, &h, &rd), -EPROTONOSUPPORT);
}

static void
test_writer_limits(void **state)
{
	static char longstr[WIRE_STR_MAX + 2];
	uint8_t buf[WIRE_MSG_MAX];
	struct wire_wr wr;

	(void) state;
	memset(longstr, 'a', sizeof(longstr) - 1);
	wire_msg_begin(&wr, buf, sizeof(buf), WIRE_REQ_HELLO, 1);
	wire_put_str(&wr, longstr);
	assert_int_equal(wire_msg_end(&wr), -ENAMETOOLONG);

	wire_msg_begin(&wr, buf, sizeof(buf), WIRE_REQ_HELLO, 1);
	for (int i = 0; i < 1000; i++)
		wire_put_u64(&wr, 1);
	assert_int_equal(wire_msg_end(&wr), -EMSGSIZE);
}

static void
test_reply_and_nfds(void **state)
{
	uint8_t buf[WIRE_MSG_MAX];
	struct wire_wr wr;
	struct wire_hdr h;
	struct wire_rd rd;
	uint32_t status;
	char reason[64];
	int n;

	(void) state;
	wire_reply_begin(&wr, buf, sizeof(buf), WIRE_REQ_SPAWN, 3, 1, "no");
	n = wire_msg_end(&wr);
	assert_true(n > 0);
	assert_int_equal(wire_parse(buf, (size_t) n, &h, &rd), 0);
	assert_int_equal(h.type, WIRE_REQ_SPAWN | WIRE_REPLY);
	assert_int_equal(wire_get_u32(&rd, &status), 0);
	assert_int_equal(status, 1);
	assert_int_equal(wire_get_str(&rd, reason, sizeof(reason)), 0);
	assert_string_equal(reason, "no");
	assert_int_equal(wire_get_end(&rd), 0);

	assert_int_equal(wire_req_nfds(WIRE_REQ_SPAWN), 1);
	assert_int_equal(wire_req_nfds(WIRE_REQ_CREATE), 0);
	assert_int_equal(wire_req_nfds(WIRE_REQ_HELLO | WIRE_REPLY), -EPROTO);
	assert_int_equal(wire_req_nfds(0x0006), -EPROTO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_str_ok),
		cmocka_unit_test(test_every_truncation_fails),
		cmocka_unit_test(test_trailing_bytes),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_oversized_lengths),
		cmocka_unit_test(test_msg_roundtrip),
		cmocka_unit_test(test_msg_every_truncation),
		cmocka_unit_test(test_msg_every_bit_flip),
		cmocka_unit_test(test_msg_length_equation_and_limits),
		cmocka_unit_test(test_writer_limits),
		cmocka_unit_test(test_reply_and_nfds),
		cmocka_unit_test(test_session_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
