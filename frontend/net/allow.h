/* SPDX-License-Identifier: MIT */
/* The --allow list of --net proxy: rule parsing, host-name normalisation, decisions.
 * Pure: no I/O, no allocation, no name resolution (the proxy resolves and then asks
 * allow_addr()).  See sandcap(1) "NETWORK" and docs/isolation.md. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ALLOW_NAME_MAX  253 /* a DNS name, without the trailing dot */
#define ALLOW_RULES_MAX 64
#define ALLOW_TEXT_MAX  (ALLOW_NAME_MAX + 16)

enum allow_kind {
	ALLOW_EXACT,  /* example.com: that name only */
	ALLOW_SUFFIX, /* *.example.com: names ending in .example.com (not the name itself) */
	ALLOW_CIDR,   /* 192.0.2.0/24, 2001:db8::/32, or one address */
};

enum allow_ports {
	ALLOW_PORTS_WEB, /* no port given: 80 and 443 */
	ALLOW_PORTS_ONE,
	ALLOW_PORTS_ANY, /* :* */
};

struct allow_rule {
	enum allow_kind kind;
	char name[ALLOW_NAME_MAX + 1]; /* EXACT, SUFFIX (without "*.") */
	int family;                    /* CIDR: AF_INET or AF_INET6 */
	uint8_t addr[16];              /* CIDR: network byte order, host bits cleared */
	unsigned prefix;               /* CIDR: prefix length */
	enum allow_ports ports;
	uint16_t port;             /* ALLOW_PORTS_ONE */
	char text[ALLOW_TEXT_MAX]; /* normalised form, for the report: "*.example.com:443" */
};

struct allow_list {
	struct allow_rule rule[ALLOW_RULES_MAX];
	size_t n;
};

/* A host as a client named it: a name or an address literal. */
struct allow_host {
	bool is_addr;
	int family; /* is_addr: AF_INET or AF_INET6 */
	uint8_t addr[16];
	char name[ALLOW_NAME_MAX + 1]; /* normalised name, or the address as text */
};

/* Normalise a host name of len bytes (not NUL-terminated; a NUL inside is an error):
 * ASCII only (IDNs as xn--), lower case, one trailing dot removed, labels of 1-63 bytes
 * of [a-z0-9_-], at most 253 bytes, and not all-numeric at the end (so no resolver can
 * read it as an address).  0, or -EINVAL with the reason in err. */
int allow_normalise_name(const char *in, size_t len, char *out, size_t outlen, char *err,
			 size_t errlen);

/* Classify and normalise a host of len bytes: an IPv4 dotted quad, an IPv6 literal
 * (brackets allowed), or a name.  Legacy numeric forms ("127.1", "0x7f.0.0.1",
 * "2130706433") are refused: resolvers disagree on them. */
int allow_parse_host(const char *in, size_t len, struct allow_host *ret, char *err, size_t errlen);

/* Parse one --allow value: HOST, HOST:PORT, HOST:*, *.SUFFIX[:PORT], ADDR[/PREFIX],
 * [V6ADDR[/PREFIX]]:PORT.  0, or -EINVAL with "expected ..." in err. */
int allow_parse_rule(const char *s, struct allow_rule *ret, char *err, size_t errlen);

/* Add a rule (a duplicate text is dropped).  -E2BIG past ALLOW_RULES_MAX. */
int allow_add(struct allow_list *l, const struct allow_rule *r);

/* May the client ask for host:port at all?  Names need an EXACT or SUFFIX rule, address
 * literals a CIDR rule.  Returns the matching rule or NULL. */
const struct allow_rule *allow_host_ok(const struct allow_list *l, const struct allow_host *h,
				       uint16_t port);

/* Loopback, private, link-local, multicast, unspecified, CGNAT, ULA, documentation,
 * IPv4-mapped/NAT64 forms of those: addresses a name must not resolve to unless a CIDR
 * rule names them (DNS rebinding).  reason gets a short word ("loopback", ...). */
bool allow_addr_special(int family, const uint8_t *addr, const char **reason);

/* May the proxy connect to this resolved address (for a host that passed allow_host_ok)?
 * A special address needs a CIDR rule that allows port, contains it and lies inside its
 * special range (127.0.0.2 or 127.0.0.0/8 name loopback; 0.0.0.0/0 and [::]/0 do not).  The
 * same rule for address literals and for the addresses a name resolves to. */
bool allow_addr_ok(const struct allow_list *l, int family, const uint8_t *addr, uint16_t port,
		   const char **reason);
