/* SPDX-License-Identifier: MIT */
/* The egress proxy's request parsers: HTTP (CONNECT and absolute-URI forms) and SOCKS5.
 * Pure and incremental: each takes what has arrived so far and says "need more" (0),
 * "done" (> 0: bytes consumed) or "refuse" (< 0, with the reply the client gets).
 * Fuzzed by tests/fuzz/fuzz-proxy.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROXY_HEAD_MAX 16384 /* request line + headers */
#define PROXY_HOST_MAX 256   /* host as the client wrote it (may be bracketed) */
#define PROXY_CRED_MAX 511   /* "user:password", decoded (SOCKS5: 255 + 1 + 255) */
#define PROXY_AUTH_MAX 1024  /* a Proxy-Authorization value as received */

enum proxy_kind {
	PROXY_HTTP_CONNECT, /* CONNECT host:port: a tunnel */
	PROXY_HTTP_FORWARD, /* GET http://host[:port]/path: forwarded as origin-form */
	PROXY_SOCKS5,
};

struct proxy_req {
	enum proxy_kind kind;
	char host[PROXY_HOST_MAX]; /* as written, brackets removed; NULs impossible */
	size_t host_len;
	uint16_t port;
	/* HTTP: the Proxy-Authorization value (leading and trailing blanks removed); auth_len
	 * 0 when there was none.  The proxy checks it (proxy_parse_basic()). */
	char auth[PROXY_AUTH_MAX];
	size_t auth_len;
	/* PROXY_HTTP_FORWARD: the request head to send upstream (origin-form, Proxy-* and
	 * hop-by-hop headers removed, Host: the URI's authority (RFC 9112 3.2.2: the client's
	 * own Host: is dropped), Connection: close added). */
	char fwd[PROXY_HEAD_MAX + 64];
	size_t fwd_len;
};

/* Parse an HTTP proxy request head from buf[0..n).  Returns the head's length (through
 * the blank line) when complete, 0 when more bytes are needed, or -EINVAL / -E2BIG /
 * -ENOTSUP with *ret_status (400, 431, 501) and a reason in err.  What follows the head
 * is the client's data for the tunnel or the request body: never parsed. */
int proxy_parse_http(const uint8_t *buf, size_t n, struct proxy_req *ret, int *ret_status,
		     char *err, size_t errlen);

/* SOCKS5 greeting (RFC 1928 3): VER 5, NMETHODS, METHODS.  Returns bytes consumed, 0 for
 * more, -EINVAL if malformed, -EPERM if "username/password" (2, RFC 1929) is not offered:
 * the proxy takes no client without its credentials. */
int proxy_parse_socks5_greeting(const uint8_t *buf, size_t n);

/* SOCKS5 username/password sub-negotiation (RFC 1929 2): VER 1, ULEN, UNAME, PLEN, PASSWD.
 * Writes "UNAME:PASSWD" (NUL-terminated) into cred (>= PROXY_CRED_MAX + 1 bytes) and its
 * length; returns bytes consumed, 0 for more, -EINVAL if malformed. */
int proxy_parse_socks5_userpass(const uint8_t *buf, size_t n, char *cred, size_t *ret_len);

/* A Proxy-Authorization value "Basic BASE64" (RFC 7617; scheme case-insensitive, strict
 * base64 with padding): the decoded "user:password" into cred (>= PROXY_CRED_MAX + 1
 * bytes, NUL-terminated) and its length.  0, or -EINVAL (another scheme, bad base64, no
 * ':', a NUL or control byte, too long). */
int proxy_parse_basic(const char *v, size_t len, char *cred, size_t *ret_len);

/* SOCKS5 request (RFC 1928 4): CONNECT with an IPv4, IPv6 or domain-name address.
 * Returns bytes consumed, 0 for more, or < 0 with *ret_rep the SOCKS reply code
 * (1 general failure, 7 command not supported, 8 address type not supported). */
int proxy_parse_socks5_request(const uint8_t *buf, size_t n, struct proxy_req *ret,
			       uint8_t *ret_rep);

/* Split "host:port" / "[v6]:port" (CONNECT authority).  default_port 0 = port required. */
int proxy_split_authority(const char *s, size_t len, uint16_t default_port, char *host,
			  size_t hostcap, size_t *ret_host_len, uint16_t *ret_port);
