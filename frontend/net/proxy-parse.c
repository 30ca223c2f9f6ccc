/* SPDX-License-Identifier: MIT */
/*
 * Parsers of the egress proxy (frontend/net/proxy.c does the I/O).  Pure, bounded, and
 * strict: lines end in CRLF, no obsolete line folding, no NUL or control bytes in the
 * head, one request per connection.  Whatever follows a head is the client's payload and
 * is relayed to the host that was decided on, never read as a second request (a
 * "CONNECT smuggling" attempt reaches the allowed host as bytes, nothing else).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "net/proxy-parse.h"

static int
refuse(int *status, int code, char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	*status = code;
	if (errlen > 0) {
		va_start(ap, fmt);
		(void) vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return r;
}

static const uint8_t *
find_crlfcrlf(const uint8_t *buf, size_t n)
{
	for (size_t i = 0; i + 3 < n; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' &&
		    buf[i + 3] == '\n')
			return buf + i;
	return NULL;
}

int
proxy_split_authority(const char *s, size_t len, uint16_t default_port, char *host, size_t hostcap,
		      size_t *ret_host_len, uint16_t *ret_port)
{
	const char *h = s, *colon = NULL;
	size_t hl;
	unsigned long port = 0;

	if (len == 0 || memchr(s, '\0', len) != NULL)
		return -EINVAL;
	if (s[0] == '[') {
		const char *end = memchr(s, ']', len);

		if (end == NULL)
			return -EINVAL;
		h = s + 1;
		hl = (size_t) (end - h);
		if ((size_t) (end + 1 - s) < len) {
			if (end[1] != ':')
				return -EINVAL;
			colon = end + 1;
		}
	} else {
		colon = memchr(s, ':', len);
		hl = colon != NULL ? (size_t) (colon - s) : len;
		if (colon != NULL && memchr(colon + 1, ':', len - (size_t) (colon + 1 - s)))
			return -EINVAL; /* an IPv6 literal needs brackets */
	}
	if (colon != NULL) {
		size_t pl = len - (size_t) (colon + 1 - s);

		if (pl == 0 || pl > 5)
			return -EINVAL;
		for (size_t i = 0; i < pl; i++) {
			if (colon[1 + i] < '0' || colon[1 + i] > '9')
				return -EINVAL;
			port = port * 10 + (unsigned long) (colon[1 + i] - '0');
		}
	} else {
		port = default_port;
	}
	if (port == 0 || port > 65535 || hl == 0 || hl >= hostcap)
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = '\0';
	*ret_host_len = hl;
	*ret_port = (uint16_t) port;
	return 0;
}

static bool
header_is(const char *line, size_t len, const char *name)
{
	size_t nl = strlen(name);

	return len > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0;
}

/* Hop-by-hop and proxy headers the origin server must not see, and Host:, which the
 * request-target's authority replaces. */
static bool
drop_header(const char *line, size_t len)
{
	static const char *const names[] = { "proxy-connection",   "proxy-authorization",
					     "proxy-authenticate", "connection",
					     "keep-alive",         "host" };
	const char *colon = memchr(line, ':', len);
	size_t nl;

	if (colon == NULL)
		return false;
	nl = (size_t) (colon - line);
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (nl == strlen(names[i]) && strncasecmp(line, names[i], nl) == 0)
			return true;
	return false;
}

static void
fwd_put(struct proxy_req *r, const void *p, size_t n, bool *overflow)
{
	if (r->fwd_len + n > sizeof(r->fwd)) {
		*overflow = true;
		return;
	}
	memcpy(r->fwd + r->fwd_len, p, n);
	r->fwd_len += n;
}

/* The one Proxy-Authorization header's value, blanks trimmed; two of them: -EINVAL. */
static int
find_auth(const char *h, const char *end, struct proxy_req *r)
{
	bool seen = false;

	while (h < end) {
		const char *e = memchr(h, '\r', (size_t) (end - h));
		size_t hl = (size_t) (e - h);
		const char *colon = memchr(h, ':', hl);

		/* RFC 9112 5.1: no blank between a field name and its colon. */
		if (colon != NULL && (memchr(h, ' ', (size_t) (colon - h)) != NULL ||
				      memchr(h, '\t', (size_t) (colon - h)) != NULL))
			return -EINVAL;
		if (header_is(h, hl, "proxy-authorization")) {
			const char *v = h + strlen("proxy-authorization") + 1;

			if (seen)
				return -EINVAL;
			seen = true;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if ((size_t) (e - v) >= sizeof(r->auth))
				return -EINVAL;
			memcpy(r->auth, v, (size_t) (e - v));
			r->auth[e - v] = '\0';
			r->auth_len = (size_t) (e - v);
		}
		h = h + hl + 2;
	}
	return 0;
}

/* The request line, split: method [p, sp1), target (sp1, sp2), version (sp2, line_end);
 * the headers run from line_end + 2 to hend (the blank line's CRLF excluded). */
struct req_line {
	const char *p, *line_end, *sp1, *sp2, *hend;
};

/* No blank line yet: wait for more, unless the head is too long or is garbage already
 * (refuse early rather than wait for a blank line that never comes). */
static int
head_incomplete(const uint8_t *buf, size_t n, int *ret_status, char *err, size_t errlen)
{
	if (n >= PROXY_HEAD_MAX)
		return refuse(ret_status, 431, err, errlen, -E2BIG, "request head over %d bytes",
			      PROXY_HEAD_MAX);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0' || (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r')))
			return refuse(ret_status, 400, err, errlen, -EINVAL,
				      "NUL byte or bare LF in the request head");
	return 0;
}

/* Every byte of a complete head: no NUL or control byte, CR and LF only as CRLF. */
static int
check_head_bytes(const uint8_t *buf, size_t head_len, int *ret_status, char *err, size_t errlen)
{
	for (size_t i = 0; i < head_len; i++) {
		uint8_t c = buf[i];

		if (c == '\0' || c == 0x7f || (c < 0x20 && c != '\r' && c != '\n' && c != '\t'))
			return refuse(ret_status, 400, err, errlen, -EINVAL,
				      "NUL or control byte in the request head");
		if (c == '\n' && (i == 0 || buf[i - 1] != '\r'))
			return refuse(ret_status, 400, err, errlen, -EINVAL, "bare LF in the head");
		if (c == '\r' && buf[i + 1] != '\n')
			return refuse(ret_status, 400, err, errlen, -EINVAL, "bare CR in the head");
	}
	return 0;
}

/* "METHOD TARGET HTTP/1.x", exactly two spaces. */
static int
split_request_line(const char *p, size_t head_len, struct req_line *l, int *ret_status, char *err,
		   size_t errlen)
{
	size_t line_len;

	l->p = p;
	l->line_end = memchr(p, '\r', head_len);
	line_len = (size_t) (l->line_end - p);
	l->sp1 = memchr(p, ' ', line_len);
	l->sp2 = l->sp1 != NULL ? memchr(l->sp1 + 1, ' ', line_len - (size_t) (l->sp1 + 1 - p))
				: NULL;
	if (l->sp1 == NULL || l->sp2 == NULL || l->sp1 == p || l->sp2 == l->sp1 + 1 ||
	    memchr(l->sp2 + 1, ' ', (size_t) (l->line_end - l->sp2 - 1)) != NULL)
		return refuse(ret_status, 400, err, errlen, -EINVAL, "malformed request line");
	if ((size_t) (l->line_end - l->sp2 - 1) != 8 || !strneq(l->sp2 + 1, "HTTP/1.", 7) ||
	    (l->sp2[8] != '0' && l->sp2[8] != '1'))
		return refuse(ret_status, 400, err, errlen, -EINVAL, "not HTTP/1.0 or HTTP/1.1");
	return 0;
}

/* The headers to forward, minus hop-by-hop and proxy ones. */
static int
forward_headers(const struct req_line *l, struct proxy_req *r, bool *overflow, int *ret_status,
		char *err, size_t errlen)
{
	for (const char *h = l->line_end + 2; h < l->hend;) {
		const char *e = memchr(h, '\r', (size_t) (l->hend - h));
		size_t hl = (size_t) (e - h);

		if (hl > 0 && (h[0] == ' ' || h[0] == '\t'))
			return refuse(ret_status, 400, err, errlen, -EINVAL,
				      "obsolete header line folding");
		if (hl > 0 && memchr(h, ':', hl) == NULL)
			return refuse(ret_status, 400, err, errlen, -EINVAL,
				      "header line without ':'");
		if (hl > 0 && !drop_header(h, hl))
			fwd_put(r, h, hl + 2, overflow);
		h = e + 2;
	}
	return 0;
}

/* An absolute-form request (http://authority/path): its target, and the head to forward
 * in origin-form with Host: following the target. */
static int
parse_forward(const struct req_line *l, struct proxy_req *r, int *ret_status, char *err,
	      size_t errlen)
{
	const char *target = l->sp1 + 1, *auth, *path;
	size_t tlen = (size_t) (l->sp2 - target), alen;
	bool overflow = false;

	if (tlen >= 8 && strncasecmp(target, "https://", 8) == 0)
		return refuse(ret_status, 501, err, errlen, -ENOTSUP,
			      "https:// through a forward proxy: use CONNECT");
	if (tlen < 7 || strncasecmp(target, "http://", 7) != 0)
		return refuse(ret_status, 400, err, errlen, -EINVAL,
			      "expected an absolute http:// URI or CONNECT");
	auth = target + 7;
	path = memchr(auth, '/', tlen - 7);
	alen = path != NULL ? (size_t) (path - auth) : tlen - 7;
	/* userinfo@ or a query/fragment in the authority: refuse, do not guess. */
	if (memchr(auth, '@', alen) || memchr(auth, '?', alen) || memchr(auth, '#', alen))
		return refuse(ret_status, 400, err, errlen, -EINVAL,
			      "unsupported authority in the URI");
	r->kind = PROXY_HTTP_FORWARD;
	if (proxy_split_authority(auth, alen, 80, r->host, sizeof(r->host), &r->host_len,
				  &r->port) < 0)
		return refuse(ret_status, 400, err, errlen, -EINVAL, "invalid host in the URI");
	/* Request line in origin-form. */
	fwd_put(r, l->p, (size_t) (l->sp1 - l->p) + 1, &overflow);
	if (path != NULL)
		fwd_put(r, path, (size_t) (l->sp2 - path), &overflow);
	else
		fwd_put(r, "/", 1, &overflow);
	fwd_put(r, l->sp2, (size_t) (l->line_end - l->sp2) + 2, &overflow);
	fwd_put(r, "Host: ", 6, &overflow);
	fwd_put(r, auth, alen, &overflow);
	fwd_put(r, "\r\n", 2, &overflow);
	if (forward_headers(l, r, &overflow, ret_status, err, errlen) < 0)
		return -EINVAL;
	fwd_put(r, "Connection: close\r\n\r\n", 21, &overflow);
	if (overflow)
		return refuse(ret_status, 431, err, errlen, -E2BIG, "request head too long");
	return 0;
}

int
proxy_parse_http(const uint8_t *buf, size_t n, struct proxy_req *ret, int *ret_status, char *err,
		 size_t errlen)
{
	const uint8_t *end = find_crlfcrlf(buf, n > PROXY_HEAD_MAX ? PROXY_HEAD_MAX : n);
	struct req_line l;
	size_t head_len;
	struct proxy_req r;
	int rc;

	if (end == NULL)
		return head_incomplete(buf, n, ret_status, err, errlen);
	head_len = (size_t) (end - buf) + 4;
	rc = check_head_bytes(buf, head_len, ret_status, err, errlen);
	if (rc < 0)
		return rc;
	memset(&r, 0, sizeof(r));
	rc = split_request_line((const char *) buf, head_len, &l, ret_status, err, errlen);
	if (rc < 0)
		return rc;
	l.hend = (const char *) end + 2;
	if (find_auth(l.line_end + 2, l.hend, &r) < 0)
		return refuse(ret_status, 400, err, errlen, -EINVAL,
			      "a blank before a header's ':', more than one "
			      "Proxy-Authorization header, or one too long");
	if ((size_t) (l.sp1 - l.p) == 7 && strneq(l.p, "CONNECT", 7)) {
		r.kind = PROXY_HTTP_CONNECT;
		if (proxy_split_authority(l.sp1 + 1, (size_t) (l.sp2 - l.sp1 - 1), 0, r.host,
					  sizeof(r.host), &r.host_len, &r.port) < 0)
			return refuse(ret_status, 400, err, errlen, -EINVAL,
				      "CONNECT needs host:port");
	} else {
		rc = parse_forward(&l, &r, ret_status, err, errlen);
		if (rc < 0)
			return rc;
	}
	*ret = r;
	return (int) head_len;
}

int
proxy_parse_socks5_greeting(const uint8_t *buf, size_t n)
{
	if (n < 2)
		return n >= 1 && buf[0] != 5 ? -EINVAL : 0;
	if (buf[0] != 5 || buf[1] == 0)
		return -EINVAL;
	if (n < 2u + buf[1])
		return 0;
	return memchr(buf + 2, 2, buf[1]) != NULL ? 2 + buf[1] : -EPERM;
}

int
proxy_parse_socks5_userpass(const uint8_t *buf, size_t n, char *cred, size_t *ret_len)
{
	size_t ul, pl;

	if (n >= 1 && buf[0] != 1)
		return -EINVAL;
	if (n < 2)
		return 0;
	ul = buf[1];
	if (ul == 0)
		return -EINVAL;
	if (n < 2 + ul + 1)
		return 0;
	pl = buf[2 + ul];
	if (pl == 0)
		return -EINVAL;
	if (n < 3 + ul + pl)
		return 0;
	if (memchr(buf + 2, '\0', ul) != NULL || memchr(buf + 3 + ul, '\0', pl) != NULL ||
	    memchr(buf + 2, ':', ul) != NULL)
		return -EINVAL;
	memcpy(cred, buf + 2, ul);
	cred[ul] = ':';
	memcpy(cred + ul + 1, buf + 3 + ul, pl);
	cred[ul + 1 + pl] = '\0';
	*ret_len = ul + 1 + pl;
	return (int) (3 + ul + pl);
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int
proxy_parse_basic(const char *v, size_t len, char *cred, size_t *ret_len)
{
	size_t i = 5, o = 0;

	if (len < 6 || strncasecmp(v, "basic", 5) != 0 || (v[5] != ' ' && v[5] != '\t'))
		return -EINVAL;
	while (i < len && (v[i] == ' ' || v[i] == '\t'))
		i++;
	if (i == len || (len - i) % 4 != 0 || (len - i) / 4 * 3 > PROXY_CRED_MAX + 2)
		return -EINVAL;
	for (; i < len; i += 4) {
		int d[4];
		uint32_t q = 0;
		size_t pad = 0;

		for (size_t k = 0; k < 4; k++) {
			d[k] = b64_value(v[i + k]);
			if (d[k] < 0) {
				/* '=' only at the end, in the last one or two places. */
				if (v[i + k] != '=' || i + 4 != len || k < 2)
					return -EINVAL;
				pad++;
				d[k] = 0;
			} else if (pad > 0) {
				return -EINVAL;
			}
			q = q << 6 | (uint32_t) d[k];
		}
		for (size_t k = 0; k < 3 - pad; k++) {
			char c = (char) (q >> (16 - 8 * k) & 0xff);

			if (o >= PROXY_CRED_MAX || c == '\0' || (unsigned char) c < 0x20 ||
			    c == 0x7f)
				return -EINVAL;
			cred[o++] = c;
		}
	}
	cred[o] = '\0';
	if (memchr(cred, ':', o) == NULL)
		return -EINVAL;
	*ret_len = o;
	return 0;
}

int
proxy_parse_socks5_request(const uint8_t *buf, size_t n, struct proxy_req *ret, uint8_t *ret_rep)
{
	struct proxy_req r;
	size_t need;

	*ret_rep = 1;
	if (n < 5)
		return n >= 1 && buf[0] != 5 ? -EINVAL : 0;
	if (buf[0] != 5 || buf[2] != 0)
		return -EINVAL;
	if (buf[1] != 1) { /* only CONNECT: no BIND, no UDP ASSOCIATE */
		*ret_rep = 7;
		return -ENOTSUP;
	}
	switch (buf[3]) {
	case 1:
		need = 4 + 4 + 2;
		break;
	case 3:
		need = 4 + 1 + (size_t) buf[4] + 2;
		if (buf[4] == 0)
			return -EINVAL;
		break;
	case 4:
		need = 4 + 16 + 2;
		break;
	default:
		*ret_rep = 8;
		return -ENOTSUP;
	}
	if (n < need)
		return 0;
	memset(&r, 0, sizeof(r));
	r.kind = PROXY_SOCKS5;
	if (buf[3] == 3) {
		/* A NUL here would end the name early for C string code: refuse, whatever
		 * comes after it.  The allow-list normalises the name again. */
		if (memchr(buf + 5, '\0', buf[4]) != NULL)
			return -EINVAL;
		memcpy(r.host, buf + 5, buf[4]);
		r.host_len = buf[4];
	} else {
		(void) inet_ntop(buf[3] == 1 ? AF_INET : AF_INET6, buf + 4, r.host, sizeof(r.host));
		r.host_len = strlen(r.host);
	}
	r.port = (uint16_t) (buf[need - 2] << 8 | buf[need - 1]);
	if (r.port == 0)
		return -EINVAL;
	*ret = r;
	return (int) need;
}
