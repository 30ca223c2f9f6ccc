/* SPDX-License-Identifier: MIT */
/* The egress proxy's pure parts: --allow rules and host-name normalisation (frontend/net/
 * allow.c), the HTTP and SOCKS5 request parsers (proxy-parse.c), and the record lines the
 * proxy hands sandcap (proxy.c).  The cases the issue names: NUL bytes, over-long names,
 * IDNs, trailing dots, *.example.com vs example.com vs badexample.com, IPv6 literals,
 * CONNECT smuggling, an empty list, and DNS rebinding to special addresses. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "net/allow.h"
#include "macro.h"
#include "net/proxy-parse.h"
#include "net/proxy.h"

static void
norm_ok(const char *in, size_t len, const char *want)
{
	char out[ALLOW_NAME_MAX + 1], err[128];

	if (allow_normalise_name(in, len, out, sizeof(out), err, sizeof(err)) != 0)
		fail_msg("'%.*s': %s", (int) len, in, err);
	assert_string_equal(out, want);
}

static void
norm_bad(const char *in, size_t len, const char *why)
{
	char out[ALLOW_NAME_MAX + 1] = "untouched", err[128] = "";

	assert_int_equal(allow_normalise_name(in, len, out, sizeof(out), err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(out, "untouched");
	if (strstr(err, why) == NULL)
		fail_msg("'%.*s': got '%s', want '%s'", (int) len, in, err, why);
}

static void
test_normalise(void **state)
{
	(void) state;
	norm_ok("Example.COM", 11, "example.com");
	norm_ok("example.com.", 12, "example.com");
	norm_ok("xn--bcher-kva.example", 21, "xn--bcher-kva.example");
	norm_ok("a_b-c.d3", 8, "a_b-c.d3");
	norm_bad("example.com..", 13, "empty label");
	norm_bad(".example.com", 12, "empty label");
	norm_bad("", 0, "empty");
	norm_bad(".", 1, "empty");
	norm_bad("allowed.com\0.evil.net", 21, "NUL");
	norm_bad("b\xc3\xbc" "cher.de", 9, "non-ASCII");
	norm_bad("a\tb.com", 7, "control");
	norm_bad("a b.com", 7, "invalid character");
	norm_bad("a/b.com", 7, "invalid character");
	norm_bad("1.2.3", 5, "numeric");
	norm_bad("10", 2, "numeric");
	norm_bad("host.0x7f", 9, "numeric");
}

static void
test_normalise_lengths(void **state)
{
	char big[300], out[ALLOW_NAME_MAX + 1], err[128];

	(void) state;
	memset(big, 'a', sizeof(big));
	for (size_t i = 63; i < sizeof(big); i += 64)
		big[i] = '.';
	assert_int_equal(allow_normalise_name(big, 253, out, sizeof(out), err, sizeof(err)), 0);
	assert_int_equal(strlen(out), 253);
	/* 253 plus the one trailing dot is still fine; 254 without it is not. */
	big[253] = '.';
	assert_int_equal(allow_normalise_name(big, 254, out, sizeof(out), err, sizeof(err)), 0);
	big[253] = 'a';
	assert_int_equal(allow_normalise_name(big, 254, out, sizeof(out), err, sizeof(err)),
			 -EINVAL);
	memset(big, 'a', 64);
	assert_int_equal(allow_normalise_name(big, 64, out, sizeof(out), err, sizeof(err)),
			 -EINVAL);      /* a 64-byte label */
}

static struct allow_rule
rule(const char *s)
{
	struct allow_rule r;
	char err[160];

	if (allow_parse_rule(s, &r, err, sizeof(err)) != 0)
		fail_msg("rule '%s': %s", s, err);
	return r;
}

static void
test_rules(void **state)
{
	static const struct { const char *in, *text; } ok[] = {
		{ "Example.com", "example.com" },
		{ "example.com.:8080", "example.com:8080" },
		{ "*.Example.com:*", "*.example.com:*" },
		{ "10.1.2.3", "10.1.2.3" },
		{ "10.0.0.0/8:443", "10.0.0.0/8:443" },
		{ "::1", "::1" },
		{ "[::1]:8080", "[::1]:8080" },
		{ "[fd00::/8]:*", "[fd00::/8]:*" },
		{ "2001:DB8::/32", "2001:db8::/32" },
	};
	static const char *const bad[] = {
		"", "*.", "*", ":80", "example.com:0", "example.com:65536", "example.com:x",
		"example.com:", "10.0.0.0/33", "[::1]/129", "[::1", "[::1]x", "a b", "127.1",
		"0x7f000001", "2130706433", "example.com/8", "*.1.2", "b\xc3\xbc" "cher.de",
		"[example.com]:80",
		/* bits past the prefix length: the one host with a wrong prefix, or the
		 * network?  Refused, never widened unasked */
		"10.1.2.3/8:443", "[fd00::1/8]:*", "10.0.0.1/31",
	};
	struct allow_rule r;
	char err[160];

	(void) state;
	for (size_t i = 0; i < ELEMENTSOF(ok); i++)
		assert_string_equal(rule(ok[i].in).text, ok[i].text);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (allow_parse_rule(bad[i], &r, err, sizeof(err)) != -EINVAL)
			fail_msg("rule '%s' accepted", bad[i]);
}

static bool
host_ok(const struct allow_list *l, const char *host, uint16_t port)
{
	struct allow_host h;
	char err[128];

	if (allow_parse_host(host, strlen(host), &h, err, sizeof(err)) < 0)
		return false;
	return allow_host_ok(l, &h, port) != NULL;
}

static void
test_decisions(void **state)
{
	struct allow_list l = { .n = 0 };
	struct allow_rule r;

	(void) state;
	/* An empty list allows nothing. */
	assert_false(host_ok(&l, "example.com", 443));
	assert_false(host_ok(&l, "127.0.0.1", 80));

	r = rule("*.example.com");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_true(host_ok(&l, "a.example.com", 443));
	assert_true(host_ok(&l, "A.B.Example.Com.", 80));
	assert_false(host_ok(&l, "example.com", 443));
	assert_false(host_ok(&l, "badexample.com", 443));
	assert_false(host_ok(&l, "a.example.com.evil.net", 443));
	assert_false(host_ok(&l, "a.example.com", 8080));      /* no port: 80 and 443 */

	r = rule("example.org:8080");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_int_equal(allow_add(&l, &r), 0);                 /* duplicates collapse */
	assert_int_equal(l.n, 2);
	assert_true(host_ok(&l, "example.org", 8080));
	assert_false(host_ok(&l, "example.org", 443));
	assert_false(host_ok(&l, "www.example.org", 8080));

	/* Literals match address rules only; names never match address rules. */
	r = rule("127.0.0.1:*");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_true(host_ok(&l, "127.0.0.1", 1234));
	assert_false(host_ok(&l, "127.0.0.2", 1234));
	assert_false(host_ok(&l, "localhost", 1234));
	assert_false(host_ok(&l, "[::1]", 1234));
	r = rule("[::1]:99");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_true(host_ok(&l, "[::1]", 99));
	assert_true(host_ok(&l, "::1", 99));
	assert_false(host_ok(&l, "::1", 98));
	/* Legacy numeric forms are refused, not resolved. */
	assert_false(host_ok(&l, "127.1", 1234));
	assert_false(host_ok(&l, "0x7f.0.0.1", 1234));
	assert_false(host_ok(&l, "2130706433", 1234));
	assert_false(host_ok(&l, "a.example.com\n", 443));
}

static bool
addr_ok(const struct allow_list *l, const char *a, uint16_t port, const char *why)
{
	uint8_t b[16];
	int fam = strchr(a, ':') ? AF_INET6 : AF_INET;
	const char *reason = NULL;
	bool ok;

	assert_int_equal(inet_pton(fam, a, b), 1);
	ok = allow_addr_ok(l, fam, b, port, &reason);
	if (!ok && why != NULL && (reason == NULL || strcmp(reason, why) != 0))
		fail_msg("%s: reason '%s', want '%s'", a, reason ? reason : "(null)", why);
	return ok;
}

static void
test_rebinding(void **state)
{
	struct allow_list l = { .n = 0 };
	struct allow_rule r;

	(void) state;
	assert_true(addr_ok(&l, "93.184.216.34", 443, NULL));
	assert_true(addr_ok(&l, "2606:2800:220:1::1", 443, NULL));
	assert_false(addr_ok(&l, "127.0.0.1", 443, "loopback"));
	assert_false(addr_ok(&l, "10.1.2.3", 443, "private"));
	assert_false(addr_ok(&l, "172.31.0.1", 443, "private"));
	assert_true(addr_ok(&l, "172.32.0.1", 443, NULL));
	assert_false(addr_ok(&l, "192.168.1.1", 443, "private"));
	assert_false(addr_ok(&l, "169.254.169.254", 80, "link-local"));
	assert_false(addr_ok(&l, "100.64.0.1", 443, "shared (CGNAT)"));
	assert_false(addr_ok(&l, "224.0.0.1", 443, "multicast"));
	assert_false(addr_ok(&l, "0.0.0.0", 443, "unspecified"));
	assert_false(addr_ok(&l, "255.255.255.255", 443, "reserved or broadcast"));
	assert_false(addr_ok(&l, "::1", 443, "loopback"));
	assert_false(addr_ok(&l, "::", 443, "unspecified"));
	assert_false(addr_ok(&l, "fe80::1", 443, "link-local"));
	assert_false(addr_ok(&l, "fd12::1", 443, "private (ULA)"));
	assert_false(addr_ok(&l, "ff02::1", 443, "multicast"));
	assert_false(addr_ok(&l, "::ffff:127.0.0.1", 443, "loopback"));
	assert_false(addr_ok(&l, "::ffff:10.0.0.1", 443, "private"));
	assert_false(addr_ok(&l, "64:ff9b::7f00:1", 443, "loopback"));
	assert_false(addr_ok(&l, "::127.0.0.1", 443, "loopback"));
	/* An address rule names it: then it may be reached, on that rule's ports. */
	r = rule("127.0.0.0/8:8080");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_true(addr_ok(&l, "127.0.0.5", 8080, NULL));
	assert_false(addr_ok(&l, "127.0.0.5", 8081, "loopback"));
	assert_false(addr_ok(&l, "::ffff:127.0.0.5", 8080, "loopback"));
}

/* A rule wider than a special range contains it but does not name it: [::]/0 admits no
 * mapped loopback or metadata address, 0.0.0.0/0 no loopback; a rule inside the range
 * does.  Address literals and resolved names pass the same screen. */
static void
test_wide_rules(void **state)
{
	struct allow_list l = { .n = 0 };
	struct allow_rule r;

	(void) state;
	r = rule("[::/0]:*");
	assert_int_equal(allow_add(&l, &r), 0);
	r = rule("0.0.0.0/0:*");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_false(addr_ok(&l, "::ffff:127.0.0.1", 80, "loopback"));
	assert_false(addr_ok(&l, "::ffff:169.254.169.254", 80, "link-local"));
	assert_false(addr_ok(&l, "::1", 80, "loopback"));
	assert_false(addr_ok(&l, "fe80::1", 80, "link-local"));
	assert_false(addr_ok(&l, "127.0.0.1", 80, "loopback"));
	assert_false(addr_ok(&l, "10.0.0.1", 80, "private"));
	assert_true(addr_ok(&l, "93.184.216.34", 80, NULL));
	assert_true(addr_ok(&l, "2606:2800:220:1::1", 80, NULL));
	r = rule("[::ffff:127.0.0.0/104]:*");
	assert_int_equal(allow_add(&l, &r), 0);
	r = rule("127.0.0.2:80");
	assert_int_equal(allow_add(&l, &r), 0);
	assert_true(addr_ok(&l, "::ffff:127.0.0.1", 80, NULL));
	assert_true(addr_ok(&l, "127.0.0.2", 80, NULL));
	assert_false(addr_ok(&l, "127.0.0.3", 80, "loopback"));
	assert_false(addr_ok(&l, "::ffff:169.254.169.254", 80, "link-local"));
}

static int
http(const char *s, struct proxy_req *r, int *status)
{
	char err[128];

	*status = 0;
	return proxy_parse_http((const uint8_t *) s, strlen(s), r, status, err, sizeof(err));
}

static void
test_http_connect(void **state)
{
	static struct proxy_req r;
	const char *head = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";
	char buf[512];
	int st;

	(void) state;
	assert_int_equal(http(head, &r, &st), (int) strlen(head));
	assert_int_equal(r.kind, PROXY_HTTP_CONNECT);
	assert_string_equal(r.host, "example.com");
	assert_int_equal(r.port, 443);
	/* Smuggling: a second request after the head is the tunnel's payload, not parsed. */
	snprintf(buf, sizeof(buf), "%sCONNECT evil.net:443 HTTP/1.1\r\n\r\n", head);
	assert_int_equal(http(buf, &r, &st), (int) strlen(head));
	assert_string_equal(r.host, "example.com");
	assert_int_equal(http("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", &r, &st), 31);
	assert_string_equal(r.host, "::1");
	assert_int_equal(r.port, 8443);
	/* Every strict prefix is "need more" (or a refusal), never a success. */
	for (size_t n = 0; n < strlen(head); n++) {
		char err[64];

		assert_true(proxy_parse_http((const uint8_t *) head, n, &r, &st, err,
					     sizeof(err)) <= 0);
	}
	assert_int_equal(http("CONNECT example.com HTTP/1.1\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(st, 400);
	assert_int_equal(http("CONNECT ::1:443 HTTP/1.1\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("CONNECT example.com:0 HTTP/1.1\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("CONNECT example.com:99999 HTTP/1.1\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("CONNECT  example.com:443 HTTP/1.1\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("CONNECT example.com:443 HTTP/2.0\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("CONNECT example.com:443 HTTP/1.1\n\n", &r, &st), -EINVAL);
}

static void
test_http_nul_and_limits(void **state)
{
	static struct proxy_req r;
	static uint8_t big[PROXY_HEAD_MAX + 10];
	const char nul[] = "CONNECT allowed.com\0.evil:443 HTTP/1.1\r\n\r\n";
	char err[128];
	int st;

	(void) state;
	assert_int_equal(proxy_parse_http((const uint8_t *) nul, sizeof(nul) - 1, &r, &st, err,
					  sizeof(err)), -EINVAL);
	assert_int_equal(st, 400);
	memset(big, 'a', sizeof(big));
	assert_int_equal(proxy_parse_http(big, sizeof(big), &r, &st, err, sizeof(err)), -E2BIG);
	assert_int_equal(st, 431);
	assert_int_equal(http("GET https://example.com/ HTTP/1.1\r\n\r\n", &r, &st), -ENOTSUP);
	assert_int_equal(st, 501);
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: x\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("GET http://user@example.com/ HTTP/1.1\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("GET http://example.com/ HTTP/1.1\r\nA: b\r\n c\r\n\r\n", &r, &st),
			 -EINVAL);
	assert_int_equal(http("GET http://example.com/ HTTP/1.1\r\nnocolon\r\n\r\n", &r, &st),
			 -EINVAL);
	assert_int_equal(http("GET http://example.com/ HTTP/1.1\r\nA: \x01\r\n\r\n", &r, &st),
			 -EINVAL);
}

static void
test_http_forward(void **state)
{
	static struct proxy_req r;
	/* The client's Host: names another host: the URI's authority replaces it (RFC 9112
	 * 3.2.2), and the proxy's credentials never go upstream. */
	const char *head = "GET http://Example.com:8080/a/b?c=d HTTP/1.1\r\nHost: evil.test\r\n"
			   "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\n"
			   "Connection: keep-alive\r\nAccept: */*\r\nhost: again.test\r\n\r\n";
	const char *want = "GET /a/b?c=d HTTP/1.1\r\nHost: Example.com:8080\r\nAccept: */*\r\n"
			   "Connection: close\r\n\r\n";
	int st;

	(void) state;
	assert_int_equal(http(head, &r, &st), (int) strlen(head));
	assert_int_equal(r.kind, PROXY_HTTP_FORWARD);
	assert_string_equal(r.host, "Example.com");     /* normalised later, by allow.c */
	assert_int_equal(r.port, 8080);
	assert_int_equal(r.fwd_len, strlen(want));
	assert_memory_equal(r.fwd, want, strlen(want));
	assert_string_equal(r.auth, "Basic eA==");
	assert_int_equal(r.auth_len, 10);
	/* Two Proxy-Authorization headers, or a blank before a colon: refused. */
	assert_int_equal(http("GET http://a.test/ HTTP/1.1\r\nProxy-Authorization: x\r\n"
			      "proxy-authorization: y\r\n\r\n", &r, &st), -EINVAL);
	assert_int_equal(http("GET http://a.test/ HTTP/1.1\r\nProxy-Authorization : x\r\n\r\n",
			      &r, &st), -EINVAL);
	assert_int_equal(http("GET http://[::1]/ HTTP/1.0\r\n\r\n", &r, &st), 30);
	assert_memory_equal(r.fwd, "GET / HTTP/1.0\r\nHost: [::1]\r\n", 29);
	assert_string_equal(r.host, "::1");
	assert_int_equal(r.port, 80);
	assert_int_equal(http("HEAD http://example.com HTTP/1.1\r\n\r\n", &r, &st), 36);
	assert_memory_equal(r.fwd, "HEAD / HTTP/1.1\r\n", 17);
}

static void
test_socks5(void **state)
{
	static struct proxy_req r;
	const uint8_t greet[] = { 5, 2, 2, 0 }, greet_none[] = { 5, 1, 0 };
	const uint8_t name[] = { 5, 1, 0, 3, 11, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o',
				 'm', 0x01, 0xbb };
	const uint8_t nul[] = { 5, 1, 0, 3, 5, 'a', '\0', 'b', '.', 'c', 0, 80 };
	const uint8_t v6[] = { 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80 };
	const uint8_t v4[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90 };
	const uint8_t bind[] = { 5, 2, 0, 1, 127, 0, 0, 1, 0, 80 };
	const uint8_t udp[] = { 5, 3, 0, 1, 127, 0, 0, 1, 0, 80 };
	const uint8_t atyp[] = { 5, 1, 0, 9, 0, 0 };
	uint8_t rep;

	(void) state;
	assert_int_equal(proxy_parse_socks5_greeting(greet, sizeof(greet)), 4);
	assert_int_equal(proxy_parse_socks5_greeting(greet, 3), 0);
	/* Only username/password (RFC 1929) is taken: no client without the secret. */
	assert_int_equal(proxy_parse_socks5_greeting(greet_none, sizeof(greet_none)), -EPERM);
	assert_int_equal(proxy_parse_socks5_greeting((const uint8_t *) "\x04\x01", 2), -EINVAL);
	assert_int_equal(proxy_parse_socks5_request(name, sizeof(name), &r, &rep),
			 (int) sizeof(name));
	assert_string_equal(r.host, "example.com");
	assert_int_equal(r.port, 443);
	for (size_t n = 0; n < sizeof(name); n++)
		assert_int_equal(proxy_parse_socks5_request(name, n, &r, &rep), 0);
	assert_int_equal(proxy_parse_socks5_request(nul, sizeof(nul), &r, &rep), -EINVAL);
	assert_int_equal(proxy_parse_socks5_request(v6, sizeof(v6), &r, &rep), (int) sizeof(v6));
	assert_string_equal(r.host, "::1");
	assert_int_equal(proxy_parse_socks5_request(v4, sizeof(v4), &r, &rep), (int) sizeof(v4));
	assert_string_equal(r.host, "127.0.0.1");
	assert_int_equal(r.port, 8080);
	assert_int_equal(proxy_parse_socks5_request(bind, sizeof(bind), &r, &rep), -ENOTSUP);
	assert_int_equal(rep, 7);
	assert_int_equal(proxy_parse_socks5_request(udp, sizeof(udp), &r, &rep), -ENOTSUP);
	assert_int_equal(rep, 7);
	assert_int_equal(proxy_parse_socks5_request(atyp, sizeof(atyp), &r, &rep), -ENOTSUP);
	assert_int_equal(rep, 8);
}

static void
test_credentials(void **state)
{
	const uint8_t up[] = { 1, 3, 'a', 'b', 'c', 2, 'x', 'y' }, colon[] = { 1, 1, ':', 1, 'x' };
	char cred[PROXY_CRED_MAX + 1];
	size_t len = 0;

	(void) state;
	assert_int_equal(proxy_parse_socks5_userpass(up, sizeof(up), cred, &len), 8);
	assert_string_equal(cred, "abc:xy");
	assert_int_equal(len, 6);
	for (size_t n = 0; n < sizeof(up); n++)
		assert_int_equal(proxy_parse_socks5_userpass(up, n, cred, &len), 0);
	assert_int_equal(proxy_parse_socks5_userpass(colon, sizeof(colon), cred, &len), -EINVAL);
	assert_int_equal(proxy_parse_socks5_userpass((const uint8_t *) "\x05", 1, cred, &len),
			 -EINVAL);
	/* "sandcap:s3cret" */
	assert_int_equal(proxy_parse_basic("Basic c2FuZGNhcDpzM2NyZXQ=", 26, cred, &len), 0);
	assert_string_equal(cred, "sandcap:s3cret");
	assert_int_equal(proxy_parse_basic("basic   c2FuZGNhcDpzM2NyZXQ=", 28, cred, &len), 0);
	assert_int_equal(proxy_parse_basic("Bearer c2FuZGNhcDpzM2NyZXQ=", 27, cred, &len), -EINVAL);
	assert_int_equal(proxy_parse_basic("Basic c2FuZGNhcDpzM2NyZXQ", 25, cred, &len), -EINVAL);
	assert_int_equal(proxy_parse_basic("Basic c2Fu=GNh", 14, cred, &len), -EINVAL);
	assert_int_equal(proxy_parse_basic("Basic eA==", 10, cred, &len), -EINVAL); /* no ':' */
	assert_int_equal(proxy_parse_basic("Basic YQBiOmM=", 14, cred, &len), -EINVAL); /* NUL */
}

static void
test_records(void **state)
{
	struct net_conn c = { .denied = true, .port = 443, .bytes_out = 12,
			      .bytes_in = UINT64_MAX }, back;
	char line[PIPE_BUF];
	size_t n;

	(void) state;
	snprintf(c.host, sizeof(c.host), "bad\thost\nname");
	snprintf(c.reason, sizeof(c.reason), "not in the allow-list");
	n = net_record_format(&c, line, sizeof(line));
	assert_true(n > 0 && line[n - 1] == '\n');
	assert_int_equal(net_record_parse(line, n, &back), 0);
	assert_true(back.denied);
	assert_string_equal(back.host, "bad?host?name");
	assert_int_equal(back.port, 443);
	assert_string_equal(back.address, "");
	assert_int_equal(back.bytes_in, UINT64_MAX);
	assert_string_equal(back.reason, "not in the allow-list");
	assert_int_equal(net_record_parse("X\th\t1\t\t0\t0\t\n", 12, &back), -EINVAL);
	assert_int_equal(net_record_parse("A\th\t70000\t\t0\t0\t\n", 16, &back), -EINVAL);
	assert_int_equal(net_record_parse("A\th\t1\t\t0\t0\n", 11, &back), -EINVAL);
	assert_int_equal(net_record_parse("A\th\t1\t\t0\t0\tr\textra\n", 19, &back), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise_lengths),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_rebinding),
		cmocka_unit_test(test_wide_rules),
		cmocka_unit_test(test_http_connect),
		cmocka_unit_test(test_http_nul_and_limits),
		cmocka_unit_test(test_http_forward),
		cmocka_unit_test(test_socks5),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_normalise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
