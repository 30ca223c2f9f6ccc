/* SPDX-License-Identifier: MIT */
/*
 * --allow rules and the decisions of the egress proxy.  Pure.
 *
 * Failing open is the bug class to avoid here (an empty list that allowed everything, a
 * NUL byte that ended a name early for one check and not for the resolver), so: every
 * input is given as (pointer, length), a NUL anywhere is an error, names are normalised
 * once and only the normalised form is compared or resolved, an empty list allows
 * nothing, and address literals never match name rules (nor names CIDR rules).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/allow.h"
#include "macro.h"

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen > 0) {
		va_start(ap, fmt);
		(void) vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int
allow_normalise_name(const char *in, size_t len, char *out, size_t outlen, char *err, size_t errlen)
{
	char buf[ALLOW_NAME_MAX + 1];
	size_t label = 0, last = 0;
	bool numeric = true;

	if (len > 0 && in[len - 1] == '.')
		len--; /* one trailing dot: the root */
	if (len == 0)
		return fail(err, errlen, "empty host name");
	if (len > ALLOW_NAME_MAX)
		return fail(err, errlen, "host name longer than %d bytes", ALLOW_NAME_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char) in[i];

		if (c == '\0')
			return fail(err, errlen, "NUL byte in host name");
		if (c >= 0x80)
			return fail(err, errlen, "non-ASCII host name (write IDNs as xn--)");
		if (c < 0x20 || c == 0x7f)
			return fail(err, errlen, "control character in host name");
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char) (c - 'A' + 'a');
		if (c == '.') {
			if (label == 0)
				return fail(err, errlen, "empty label in host name");
			label = 0;
			last = i + 1;
			numeric = true;
		} else if ((c >= 'a' && c <= 'z') || is_digit((char) c) || c == '-' || c == '_') {
			if (++label > 63)
				return fail(err, errlen, "label longer than 63 bytes in host name");
			numeric = numeric && is_digit((char) c);
		} else {
			return fail(err, errlen, "invalid character '%c' in host name", c);
		}
		buf[i] = (char) c;
	}
	if (label == 0)
		return fail(err, errlen, "empty label in host name");
	/* "1.2.3", "10", "0x7f" end in a label resolvers may read as a number. */
	if (numeric || (len - last > 1 && buf[last] == '0' && buf[last + 1] == 'x'))
		return fail(err, errlen,
			    "host name ends in a numeric label (ambiguous with an "
			    "address)");
	if (len + 1 > outlen)
		return fail(err, errlen, "host name too long");
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

int
allow_parse_host(const char *in, size_t len, struct allow_host *ret, char *err, size_t errlen)
{
	struct allow_host h = { 0 };
	char tmp[INET6_ADDRSTRLEN + 2];
	bool bracket = len >= 2 && in[0] == '[' && in[len - 1] == ']';

	if (memchr(in, '\0', len) != NULL)
		return fail(err, errlen, "NUL byte in host");
	if (bracket) {
		in++;
		len -= 2;
	}
	if (len < sizeof(tmp)) {
		memcpy(tmp, in, len);
		tmp[len] = '\0';
		if (!bracket && inet_pton(AF_INET, tmp, h.addr) == 1) {
			h.family = AF_INET;
			h.is_addr = true;
		} else if (inet_pton(AF_INET6, tmp, h.addr) == 1) {
			h.family = AF_INET6;
			h.is_addr = true;
		}
	}
	if (h.is_addr) {
		(void) inet_ntop(h.family, h.addr, h.name, sizeof(h.name));
		*ret = h;
		return 0;
	}
	if (bracket)
		return fail(err, errlen, "invalid IPv6 address in brackets");
	if (len > 0 && (is_digit(in[0]) || in[0] == '.')) {
		struct in_addr a;

		/* inet_aton's legacy forms (127.1, 0x7f000001, 017700000001) */
		if (len < sizeof(tmp) && inet_aton(tmp, &a) == 1)
			return fail(err, errlen,
				    "ambiguous numeric host (write addresses as "
				    "a.b.c.d)");
	}
	if (allow_normalise_name(in, len, h.name, sizeof(h.name), err, errlen) < 0)
		return -EINVAL;
	*ret = h;
	return 0;
}

static int
parse_port(const char *s, struct allow_rule *r, char *err, size_t errlen)
{
	unsigned long v = 0;

	if (streq(s, "*")) {
		r->ports = ALLOW_PORTS_ANY;
		return 0;
	}
	if (s[0] == '\0' || strlen(s) > 5)
		return fail(err, errlen, "invalid port '%s': expected 1-65535 or *", s);
	for (const char *p = s; *p; p++) {
		if (!is_digit(*p))
			return fail(err, errlen, "invalid port '%s': expected 1-65535 or *", s);
		v = v * 10 + (unsigned long) (*p - '0');
	}
	if (v == 0 || v > 65535)
		return fail(err, errlen, "invalid port '%s': expected 1-65535 or *", s);
	r->ports = ALLOW_PORTS_ONE;
	r->port = (uint16_t) v;
	return 0;
}

static void
mask_prefix(uint8_t *a, size_t bytes, unsigned prefix)
{
	for (size_t i = 0; i < bytes; i++) {
		unsigned bits = prefix > i * 8 ? prefix - (unsigned) i * 8 : 0;

		if (bits < 8)
			a[i] &= (uint8_t) (0xff00u >> bits);
	}
}

/* Split "HOST[:PORT]" or "[V6[/PREFIX]][:PORT]" into host (NUL-terminated) and the port's
 * text (NULL: none). */
static int
split_rule(const char *s, char host[static ALLOW_NAME_MAX + 8], const char **ret_port,
	   bool *ret_bracketed, char *err, size_t errlen)
{
	size_t hlen, max = ALLOW_NAME_MAX + 8;
	const char *colon;

	*ret_port = NULL;
	*ret_bracketed = s[0] == '[';
	if (*ret_bracketed) { /* [v6addr[/prefix]][:port] */
		const char *end = strchr(s, ']');

		if (end == NULL)
			return fail(err, errlen, "'[' without ']'");
		hlen = (size_t) (end - s - 1);
		if (hlen >= max)
			return fail(err, errlen, "address too long");
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		if (end[1] == ':')
			*ret_port = end + 2;
		else if (end[1] != '\0')
			return fail(err, errlen, "junk after ']'");
		return 0;
	}
	colon = strchr(s, ':');
	/* More than one ':' without brackets: an IPv6 address (or CIDR), no port. */
	if (colon != NULL && strchr(colon + 1, ':') == NULL) {
		*ret_port = colon + 1;
		hlen = (size_t) (colon - s);
	} else {
		hlen = strlen(s);
	}
	if (hlen >= max)
		return fail(err, errlen, "host longer than %d bytes", ALLOW_NAME_MAX);
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	return 0;
}

/* The prefix length after the '/' at slash, at most three digits. */
static int
parse_prefix(const char *slash, unsigned long *ret, char *err, size_t errlen)
{
	const char *p = slash + 1;
	unsigned long prefix = 0;

	if (*p == '\0' || strlen(p) > 3)
		return fail(err, errlen, "invalid prefix length '%s'", p);
	for (; *p; p++) {
		if (!is_digit(*p))
			return fail(err, errlen, "invalid prefix length '%s'", slash + 1);
		prefix = prefix * 10 + (unsigned long) (*p - '0');
	}
	*ret = prefix;
	return 0;
}

/* An address rule: h's network of the given prefix length (slash == NULL: the address). */
static int
rule_cidr(const struct allow_host *h, const char *slash, unsigned long prefix, struct allow_rule *r,
	  char *err, size_t errlen)
{
	unsigned max = h->family == AF_INET ? 32 : 128;

	if (slash == NULL)
		prefix = max;
	if (prefix > max)
		return fail(err, errlen, "prefix length %lu is over %u", prefix, max);
	r->kind = ALLOW_CIDR;
	r->family = h->family;
	memcpy(r->addr, h->addr, sizeof(r->addr));
	r->prefix = (unsigned) prefix;
	mask_prefix(r->addr, h->family == AF_INET ? 4 : 16, r->prefix);
	/* 10.0.0.1/8 may mean the one address with a typo in the prefix: refuse rather than
	 * widen it to the network unasked. */
	if (memcmp(r->addr, h->addr, sizeof(r->addr)) != 0) {
		char a[INET6_ADDRSTRLEN];

		(void) inet_ntop(h->family, r->addr, a, sizeof(a));
		return fail(err, errlen,
			    "the address has bits set past the prefix length: "
			    "write %s/%lu for the network, or the address alone for one host",
			    a, prefix);
	}
	return 0;
}

/* The rule's host part: "*.suffix", a name, or an address with an optional prefix. */
static int
rule_host(char *host, bool bracketed, struct allow_rule *r, char *err, size_t errlen)
{
	const char *slash = strchr(host, '/');
	struct allow_host h = { .is_addr = false };
	unsigned long prefix = 0;

	if (strneq(host, "*.", 2)) {
		r->kind = ALLOW_SUFFIX;
		return allow_normalise_name(host + 2, strlen(host + 2), r->name, sizeof(r->name),
					    err, errlen) < 0
			       ? -EINVAL
			       : 0;
	}
	if (slash != NULL && parse_prefix(slash, &prefix, err, errlen) < 0)
		return -EINVAL;
	if (allow_parse_host(host, slash != NULL ? (size_t) (slash - host) : strlen(host), &h, err,
			     errlen) < 0)
		return -EINVAL;
	if (bracketed && (!h.is_addr || h.family != AF_INET6))
		return fail(err, errlen, "brackets hold an IPv6 address");
	if (h.is_addr)
		return rule_cidr(&h, slash, prefix, r, err, errlen);
	if (slash != NULL)
		return fail(err, errlen, "a prefix length needs an address");
	r->kind = ALLOW_EXACT;
	memcpy(r->name, h.name, sizeof(r->name));
	return 0;
}

/* The rule as the report and messages show it, canonical. */
static void
rule_text(struct allow_rule *r)
{
	char ptext[8] = "";

	if (r->ports == ALLOW_PORTS_ANY)
		(void) snprintf(ptext, sizeof(ptext), ":*");
	else if (r->ports == ALLOW_PORTS_ONE)
		(void) snprintf(ptext, sizeof(ptext), ":%u", (unsigned) r->port);
	if (r->kind == ALLOW_CIDR) {
		char a[INET6_ADDRSTRLEN];
		bool v6 = r->family == AF_INET6;
		unsigned max = v6 ? 128 : 32;
		char pfx[8] = "";

		(void) inet_ntop(r->family, r->addr, a, sizeof(a));
		if (r->prefix != max)
			(void) snprintf(pfx, sizeof(pfx), "/%u", r->prefix);
		(void) snprintf(r->text, sizeof(r->text), "%s%s%s%s%s", v6 && ptext[0] ? "[" : "",
				a, pfx, v6 && ptext[0] ? "]" : "", ptext);
	} else {
		(void) snprintf(r->text, sizeof(r->text), "%s%s%s",
				r->kind == ALLOW_SUFFIX ? "*." : "", r->name, ptext);
	}
}

int
allow_parse_rule(const char *s, struct allow_rule *ret, char *err, size_t errlen)
{
	struct allow_rule r = { 0 };
	char host[ALLOW_NAME_MAX + 8] = "";
	const char *port;
	bool bracketed;

	if (s == NULL || s[0] == '\0')
		return fail(err, errlen, "empty rule: expected HOST[:PORT]");
	if (split_rule(s, host, &port, &bracketed, err, errlen) < 0)
		return -EINVAL;
	if (port != NULL && parse_port(port, &r, err, errlen) < 0)
		return -EINVAL;
	if (rule_host(host, bracketed, &r, err, errlen) < 0)
		return -EINVAL;
	rule_text(&r);
	*ret = r;
	return 0;
}

int
allow_add(struct allow_list *l, const struct allow_rule *r)
{
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->rule[i].text, r->text))
			return 0;
	if (l->n >= ALLOW_RULES_MAX)
		return -E2BIG;
	l->rule[l->n++] = *r;
	return 0;
}

static bool
port_ok(const struct allow_rule *r, uint16_t port)
{
	switch (r->ports) {
	case ALLOW_PORTS_ANY:
		return port != 0;
	case ALLOW_PORTS_ONE:
		return port == r->port;
	case ALLOW_PORTS_WEB:
	default:
		return port == 80 || port == 443;
	}
}

static bool
in_cidr(const struct allow_rule *r, int family, const uint8_t *addr)
{
	uint8_t a[16];

	if (r->kind != ALLOW_CIDR || r->family != family)
		return false;
	memcpy(a, addr, family == AF_INET ? 4 : 16);
	mask_prefix(a, family == AF_INET ? 4 : 16, r->prefix);
	return memcmp(a, r->addr, family == AF_INET ? 4 : 16) == 0;
}

const struct allow_rule *
allow_host_ok(const struct allow_list *l, const struct allow_host *h, uint16_t port)
{
	size_t nlen = strlen(h->name);

	for (size_t i = 0; i < l->n; i++) {
		const struct allow_rule *r = &l->rule[i];

		if (!port_ok(r, port))
			continue;
		if (h->is_addr) {
			if (in_cidr(r, h->family, h->addr))
				return r;
			continue;
		}
		if (r->kind == ALLOW_EXACT && streq(r->name, h->name))
			return r;
		if (r->kind == ALLOW_SUFFIX) {
			size_t slen = strlen(r->name);

			/* "x.example.com" matches *.example.com; "example.com" and
			 * "badexample.com" do not. */
			if (nlen > slen + 1 && h->name[nlen - slen - 1] == '.' &&
			    streq(h->name + nlen - slen, r->name))
				return r;
		}
	}
	return NULL;
}

/* A special range: its first 4 bytes (every prefix here is at most 32 bits), its prefix
 * length and what it is. */
struct special_net {
	uint8_t net[4];
	unsigned prefix;
	const char *why;
};

/* The range of t[0..n) holding a (its first 4 bytes), as its prefix length; 0 when none. */
static unsigned
special_match(const struct special_net *t, size_t n, const uint8_t *a, const char **why)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t m[4];

		memcpy(m, a, 4);
		mask_prefix(m, 4, t[i].prefix);
		if (memcmp(m, t[i].net, 4) == 0) {
			*why = t[i].why;
			return t[i].prefix;
		}
	}
	return 0;
}

/* The special IPv4 range holding a (4 bytes), as its prefix length; 0 when none. */
static unsigned
v4_special(const uint8_t *a, const char **why)
{
	static const struct special_net nets[] = {
		{ { 0, 0, 0, 0 }, 8, "unspecified" },
		{ { 10, 0, 0, 0 }, 8, "private" },
		{ { 100, 64, 0, 0 }, 10, "shared (CGNAT)" },
		{ { 127, 0, 0, 0 }, 8, "loopback" },
		{ { 169, 254, 0, 0 }, 16, "link-local" },
		{ { 172, 16, 0, 0 }, 12, "private" },
		{ { 192, 0, 0, 0 }, 24, "IETF protocol" },
		{ { 192, 0, 2, 0 }, 24, "documentation" },
		{ { 192, 168, 0, 0 }, 16, "private" },
		{ { 198, 18, 0, 0 }, 15, "benchmarking" },
		{ { 198, 51, 100, 0 }, 24, "documentation" },
		{ { 203, 0, 113, 0 }, 24, "documentation" },
		{ { 224, 0, 0, 0 }, 4, "multicast" },
		{ { 240, 0, 0, 0 }, 4, "reserved or broadcast" },
	};

	return special_match(nets, ELEMENTSOF(nets), a, why);
}

/* The special range holding an address, as its prefix length (> 0), or 0 when the address
 * is an ordinary one.  IPv4 inside IPv6 (mapped, compatible, NAT64) is judged as the IPv4
 * address, its range 96 bits longer. */
static unsigned
special_range(int family, const uint8_t *a, const char **reason)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff },
				       nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	static const struct special_net v6[] = {
		{ { 0xfc }, 7, "private (ULA)" },
		{ { 0xfe, 0x80 }, 10, "link-local" },
		{ { 0xfe, 0xc0 }, 10, "site-local" },
		{ { 0xff }, 8, "multicast" },
		{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation" },
	};
	unsigned p;

	if (family == AF_INET)
		return v4_special(a, reason);
	if (family != AF_INET6) {
		*reason = "not an internet address";
		return 1;
	}
	if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1)) {
		*reason = a[15] == 1 ? "loopback" : "unspecified";
		return 128;
	}
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0 || memcmp(a, zero, 12) == 0) {
		p = v4_special(a + 12, reason);
		return p > 0 ? 96 + p : 0;
	}
	return special_match(v6, ELEMENTSOF(v6), a, reason);
}

bool
allow_addr_special(int family, const uint8_t *a, const char **reason)
{
	const char *dummy;

	return special_range(family, a, reason != NULL ? reason : &dummy) > 0;
}

bool
allow_addr_ok(const struct allow_list *l, int family, const uint8_t *addr, uint16_t port,
	      const char **reason)
{
	const char *why = NULL;
	unsigned range = special_range(family, addr, &why);

	if (range == 0)
		return true;
	/* Only a rule inside the special range names it: a rule as wide as [::]/0 or
	 * 0.0.0.0/0 contains loopback and link-local but does not mean them. */
	for (size_t i = 0; i < l->n; i++)
		if (port_ok(&l->rule[i], port) && in_cidr(&l->rule[i], family, addr) &&
		    l->rule[i].prefix >= range)
			return true;
	if (reason != NULL)
		*reason = why;
	return false;
}
