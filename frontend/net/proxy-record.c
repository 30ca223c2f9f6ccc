/* SPDX-License-Identifier: MIT */
/* The report records: one line per connection attempt, which the proxy writes to its
 * result pipe and sandcap reads back (net_record_format(), net_record_parse()). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net/proxy-int.h"

static void
put_field(char *buf, size_t len, size_t *off, const char *s, bool last)
{
	for (; *s && *off + 2 < len; s++) {
		unsigned char c = (unsigned char) *s;

		buf[(*off)++] = c < 0x20 || c >= 0x7f ? '?' : (char) c;
	}
	if (*off + 1 < len)
		buf[(*off)++] = last ? '\n' : '\t';
	buf[*off] = '\0';
}

size_t
net_record_format(const struct net_conn *c, char *buf, size_t len)
{
	char n[3][24];
	size_t off = 0;

	(void) snprintf(n[0], sizeof(n[0]), "%u", (unsigned) c->port);
	(void) snprintf(n[1], sizeof(n[1]), "%llu", (unsigned long long) c->bytes_out);
	(void) snprintf(n[2], sizeof(n[2]), "%llu", (unsigned long long) c->bytes_in);
	if (len == 0)
		return 0;
	buf[0] = '\0';
	put_field(buf, len, &off, c->denied ? "D" : "A", false);
	put_field(buf, len, &off, c->host, false);
	put_field(buf, len, &off, n[0], false);
	put_field(buf, len, &off, c->address, false);
	put_field(buf, len, &off, n[1], false);
	put_field(buf, len, &off, n[2], false);
	put_field(buf, len, &off, c->reason, true);
	return off;
}

static int
field(const char **p, const char *end, char *out, size_t outlen)
{
	const char *t = memchr(*p, '\t', (size_t) (end - *p));
	size_t n;

	if (t == NULL)
		t = end;
	n = (size_t) (t - *p);
	if (n >= outlen)
		return -EINVAL;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = t < end ? t + 1 : t;
	return 0;
}

static int
number(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (*s == '\0' || strlen(s) > 20)
		return -EINVAL;
	for (; *s; s++) {
		uint64_t d = (uint64_t) (*s - '0');

		if (*s < '0' || *s > '9' || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int
net_record_parse(const char *line, size_t len, struct net_conn *ret)
{
	const char *p = line, *end = line + len;
	char d[4], port[8], o[24], i[24];
	struct net_conn c = { 0 };
	uint64_t v;

	if (len > 0 && end[-1] == '\n')
		end--;
	size_t tabs = 0;

	if (memchr(line, '\0', (size_t) (end - line)) != NULL)
		return -EINVAL;
	for (const char *q = line; q < end; q++)
		tabs += *q == '\t';
	if (tabs != 6) /* seven fields, exactly */
		return -EINVAL;
	if (field(&p, end, d, sizeof(d)) < 0 || field(&p, end, c.host, sizeof(c.host)) < 0 ||
	    field(&p, end, port, sizeof(port)) < 0 ||
	    field(&p, end, c.address, sizeof(c.address)) < 0 || field(&p, end, o, sizeof(o)) < 0 ||
	    field(&p, end, i, sizeof(i)) < 0 || field(&p, end, c.reason, sizeof(c.reason)) < 0 ||
	    p != end)
		return -EINVAL;
	if (!streq(d, "A") && !streq(d, "D"))
		return -EINVAL;
	c.denied = d[0] == 'D';
	if (number(port, 65535, &v) < 0)
		return -EINVAL;
	c.port = (uint16_t) v;
	if (number(o, UINT64_MAX, &c.bytes_out) < 0 || number(i, UINT64_MAX, &c.bytes_in) < 0)
		return -EINVAL;
	*ret = c;
	return 0;
}
