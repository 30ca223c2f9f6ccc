/* SPDX-License-Identifier: MIT */
/* Deadline records: format and parse (see deadline-record.h).  No I/O. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgroup-util.h"
#include "deadline-record.h"
#include "macro.h"

bool
deadline_name_is_valid(const char *name)
{
	return cg_name_parse(name, NULL);
}

static bool
path_ok(const char *p)
{
	size_t n = strnlen(p, DEADLINE_PATH_MAX);

	if (n == 0 || n >= DEADLINE_PATH_MAX || p[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) p[i] < 0x20 || p[i] == 0x7f)
			return false;
	return true;
}

int
deadline_format(const struct deadline_record *r, char *buf, size_t bufsz, size_t *ret_len)
{
	int n;

	if (!path_ok(r->cgroup) || !path_ok(r->workspace) || !path_ok(r->lock))
		return -EINVAL;
	n = snprintf(buf, bufsz,
		     "sandcap-deadline 1\nboottime_ms %" PRIu64 "\ncgroup %s\n"
		     "workspace %s\nlock %s\n",
		     r->boottime_ms, r->cgroup, r->workspace, r->lock);
	if (n < 0 || (size_t) n >= bufsz)
		return -ENAMETOOLONG;
	if (ret_len != NULL)
		*ret_len = (size_t) n;
	return 0;
}

/* "key value\n" at *p: copy value into out (outsz), advance *p.  Values: no control chars. */
static int
take_line(const char **p, const char *end, const char *key, char *out, size_t outsz)
{
	size_t klen = strlen(key);
	const char *nl, *v;

	if ((size_t) (end - *p) <= klen + 1 || memcmp(*p, key, klen) != 0 || (*p)[klen] != ' ')
		return -EBADMSG;
	v = *p + klen + 1;
	nl = memchr(v, '\n', (size_t) (end - v));
	if (nl == NULL || nl == v || (size_t) (nl - v) >= outsz)
		return -EBADMSG;
	for (const char *c = v; c < nl; c++)
		if ((unsigned char) *c < 0x20 || *c == 0x7f)
			return -EBADMSG;
	memcpy(out, v, (size_t) (nl - v));
	out[nl - v] = '\0';
	*p = nl + 1;
	return 0;
}

int
deadline_parse(const char *text, size_t len, struct deadline_record *ret)
{
	static const char magic[] = "sandcap-deadline 1\n";
	const char *p = text, *end = text + len;
	struct deadline_record r = { 0 };
	char num[24];
	uint64_t v = 0;

	if (len < sizeof(magic) - 1 || memcmp(p, magic, sizeof(magic) - 1) != 0)
		return -EBADMSG;
	p += sizeof(magic) - 1;
	if (take_line(&p, end, "boottime_ms", num, sizeof(num)) < 0 ||
	    strspn(num, "0123456789") != strlen(num) || strlen(num) > 19 ||
	    (num[0] == '0' && num[1] != '\0'))
		return -EBADMSG;
	for (const char *c = num; *c; c++)
		v = v * 10 + (uint64_t) (*c - '0');
	r.boottime_ms = v;
	if (take_line(&p, end, "cgroup", r.cgroup, sizeof(r.cgroup)) < 0 ||
	    take_line(&p, end, "workspace", r.workspace, sizeof(r.workspace)) < 0 ||
	    take_line(&p, end, "lock", r.lock, sizeof(r.lock)) < 0 || p != end)
		return -EBADMSG;
	if (!path_ok(r.cgroup) || !path_ok(r.workspace) || !path_ok(r.lock))
		return -EBADMSG;
	*ret = r;
	return 0;
}

const char *
deadline_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	if (s == NULL || s[1] == '\0')
		return NULL;
	return s + 1;
}
