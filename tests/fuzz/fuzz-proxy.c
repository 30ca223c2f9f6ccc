/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the egress proxy's parsers (frontend/net/proxy-parse.c: HTTP request
 * line and headers, CONNECT authority, SOCKS5 greeting, username/password and request,
 * Proxy-Authorization: Basic) and what the proxy
 * does with a parsed host (frontend/net/allow.c: normalisation, rule matching).  The first
 * byte picks the parser.  Checks the invariants, not just the absence of crashes. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The frontend's objects are not in the fuzz build: compile the two pure files in. */
#include "../../frontend/net/allow.c"
#include "../../frontend/net/proxy-parse.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct allow_list list;

static void
check_host(const struct proxy_req *r)
{
	struct allow_host h;
	char err[128];

	if (r->host_len == 0 || r->host_len >= sizeof(r->host) ||
	    memchr(r->host, '\0', r->host_len) != NULL || r->host[r->host_len] != '\0')
		abort();        /* a parsed host is exactly host_len bytes, NUL-free */
	if (r->port == 0)
		abort();
	if (allow_parse_host(r->host, r->host_len, &h, err, sizeof(err)) == 0) {
		const struct allow_rule *m = allow_host_ok(&list, &h, r->port);

		/* The normalised name is lower case, NUL-free, at most 253 bytes. */
		if (strlen(h.name) > ALLOW_NAME_MAX)
			abort();
		for (const char *p = h.name; *p; p++)
			if (!h.is_addr && (*p >= 'A' && *p <= 'Z'))
				abort();
		/* Names never match address rules, addresses never name rules. */
		if (m != NULL && h.is_addr != (m->kind == ALLOW_CIDR))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proxy_req r;
	char err[128];
	int st = 0, n;
	uint8_t rep = 0;

	if (list.n == 0) {
		static const char *const rules[] = { "*.example.com", "example.org:*",
						     "127.0.0.1:8080", "[::1]:*", "10.0.0.0/8" };

		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
			struct allow_rule ar;

			if (allow_parse_rule(rules[i], &ar, err, sizeof(err)) != 0 ||
			    allow_add(&list, &ar) != 0)
				abort();
		}
	}
	if (size < 1)
		return 0;
	switch (data[0] % 6) {
	case 0:
		n = proxy_parse_http(data + 1, size - 1, &r, &st, err, sizeof(err));
		if (n > 0) {
			if ((size_t) n > size - 1 || memcmp(data + 1 + n - 4, "\r\n\r\n", 4) != 0)
				abort();
			check_host(&r);
			if (r.auth_len >= sizeof(r.auth) || strlen(r.auth) != r.auth_len)
				abort();
			if (r.kind == PROXY_HTTP_FORWARD && (r.fwd_len > sizeof(r.fwd) ||
			    r.fwd_len < 4 || memcmp(r.fwd + r.fwd_len - 4, "\r\n\r\n", 4) != 0))
				abort();
		} else if (n < 0 && st != 400 && st != 431 && st != 501) {
			abort();
		}
		break;
	case 1:
		n = proxy_parse_socks5_greeting(data + 1, size - 1);
		if (n > 0 && (size_t) n > size - 1)
			abort();
		break;
	case 2:
		n = proxy_parse_socks5_request(data + 1, size - 1, &r, &rep);
		if (n > 0) {
			if ((size_t) n > size - 1)
				abort();
			check_host(&r);
		}
		break;
	case 4: {
		char cred[PROXY_CRED_MAX + 1];
		size_t len = 0;

		n = proxy_parse_socks5_userpass(data + 1, size - 1, cred, &len);
		/* "user:password", NUL-free, within bounds. */
		if (n > 0 && ((size_t) n > size - 1 || len > PROXY_CRED_MAX ||
			      strlen(cred) != len || memchr(cred, ':', len) == NULL))
			abort();
		break;
	}
	case 5: {
		char cred[PROXY_CRED_MAX + 1];
		size_t len = 0;

		if (proxy_parse_basic((const char *) data + 1, size - 1, cred, &len) == 0 &&
		    (len > PROXY_CRED_MAX || strlen(cred) != len || memchr(cred, ':', len) == NULL))
			abort();
		break;
	}
	default: {
		struct allow_rule ar;
		char *s = malloc(size);

		if (s == NULL)
			return 0;
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		if (allow_parse_rule(s, &ar, err, sizeof(err)) == 0) {
			struct allow_rule again;

			/* The normalised text parses to the same text. */
			if (allow_parse_rule(ar.text, &again, err, sizeof(err)) != 0 ||
			    strcmp(again.text, ar.text) != 0)
				abort();
		}
		free(s);
		break;
	}
	}
	return 0;
}
