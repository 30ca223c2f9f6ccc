/* SPDX-License-Identifier: MIT */
/* A session's state as text (session-state.h).  Pure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parse-util.h"
#include "run/session-state.h"

bool
session_id_valid(const char *s)
{
	size_t i;

	for (i = 0; i < SESSION_ID_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[i] == '\0';
}

const char *
session_id_mode(const char *id)
{
	return id[0] == SESSION_ID_CGROUP   ? "cgroup"
	       : id[0] == SESSION_ID_USERCG ? "user-cgroup"
					    : "rlimit";
}

bool
session_level_matches(const char *id, const char *level, unsigned uid)
{
	char prefix[32];
	int n = snprintf(prefix, sizeof(prefix), "%u-", uid);
	size_t i;

	if (!session_id_valid(id) || id[0] != SESSION_ID_CGROUP || n < 0 ||
	    !strneq(level, prefix, (size_t) n) || !strneq(level + n, id + 1, SESSION_ID_LEN - 1))
		return false;
	for (i = 0; level[n + i] != '\0'; i++)
		if (!((level[n + i] >= '0' && level[n + i] <= '9') ||
		      (level[n + i] >= 'a' && level[n + i] <= 'f')))
			return false;
	return i == 16;
}

bool
session_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > SESSION_NAME_MAX || s[0] == '-' || s[0] == '.')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* A word of the state: no newline (a value is one line), not empty where it matters. */
static bool
one_line(const char *s)
{
	return strchr(s, '\n') == NULL;
}

int
session_state_format(const struct session_state *s, char *buf, size_t len)
{
	int n, m;

	if (!one_line(s->name) || !one_line(s->report) || !one_line(s->fs) || !one_line(s->net) ||
	    s->n_rw > SESSION_RW_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < s->n_rw; i++)
		if (!one_line(s->rw[i]) || s->rw[i][0] != '/')
			return -EINVAL;
	n = snprintf(buf, len,
		     "sandcap_session=1\nid=%s\nname=%s\nmode=%s\ncreated_s=%llu\n"
		     "expires_ms=%llu\nttl_ms=%llu\ncpu_budget_ms=%llu\ntimeout_ms=%llu\nas=%llu\n"
		     "fs=%s\nnet=%s\nreport=%s\n",
		     s->id, s->name, s->mode, (unsigned long long) s->created_s,
		     (unsigned long long) s->expires_ms, (unsigned long long) s->ttl_ms,
		     (unsigned long long) s->cpu_budget_ms, (unsigned long long) s->timeout_ms,
		     (unsigned long long) s->as, s->fs, s->net, s->report);
	if (n < 0 || (size_t) n >= len)
		return -ENOBUFS;
	for (unsigned i = 0; i < s->n_rw; i++) {
		m = snprintf(buf + n, len - (size_t) n, "rw=%s\n", s->rw[i]);
		if (m < 0 || (size_t) m >= len - (size_t) n)
			return -ENOBUFS;
		n += m;
	}
	return n;
}

static int
copy_word(char *dst, size_t dstlen, const char *v, size_t vlen)
{
	if (vlen >= dstlen)
		return -EINVAL;
	memcpy(dst, v, vlen);
	dst[vlen] = '\0';
	return 0;
}

static int
state_number(const char *v, size_t vlen, uint64_t *ret)
{
	char num[24];

	if (copy_word(num, sizeof(num), v, vlen) < 0)
		return -EINVAL;
	return parse_u64_range(num, 0, UINT64_MAX, ret);
}

/* One "key=value" (value of vlen bytes) into s. */
static int
state_apply(struct session_state *s, const char *key, size_t klen, const char *v, size_t vlen)
{
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{ "created_s", offsetof(struct session_state, created_s) },
		{ "expires_ms", offsetof(struct session_state, expires_ms) },
		{ "ttl_ms", offsetof(struct session_state, ttl_ms) },
		{ "cpu_budget_ms", offsetof(struct session_state, cpu_budget_ms) },
		{ "timeout_ms", offsetof(struct session_state, timeout_ms) },
		{ "as", offsetof(struct session_state, as) },
	};
	static const struct {
		const char *key;
		size_t off, len;
	} words[] = {
		{ "id", offsetof(struct session_state, id),
		  sizeof(((struct session_state *) 0)->id) },
		{ "name", offsetof(struct session_state, name), SESSION_NAME_MAX + 1 },
		{ "mode", offsetof(struct session_state, mode), 16 },
		{ "fs", offsetof(struct session_state, fs), 16 },
		{ "net", offsetof(struct session_state, net), 16 },
		{ "report", offsetof(struct session_state, report), SESSION_PATH_MAX },
	};

	for (size_t i = 0; i < ELEMENTSOF(nums); i++)
		if (strlen(nums[i].key) == klen && strneq(key, nums[i].key, klen))
			return state_number(v, vlen, (uint64_t *) ((char *) s + nums[i].off));
	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (strlen(words[i].key) == klen && strneq(key, words[i].key, klen))
			return copy_word((char *) s + words[i].off, words[i].len, v, vlen);
	if (klen == 15 && strneq(key, "sandcap_session", 15) && vlen == 1 && v[0] == '1')
		return 0;
	if (klen == 2 && strneq(key, "rw", 2) && s->n_rw < SESSION_RW_MAX && vlen > 0 &&
	    v[0] == '/')
		return copy_word(s->rw[s->n_rw++], SESSION_PATH_MAX, v, vlen);
	return -EINVAL;
}

int
session_state_parse(const char *text, struct session_state *ret)
{
	struct session_state s = {};
	const char *p = text;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n'), *eq;

		if (nl == NULL)
			return -EINVAL; /* written whole, each line ended */
		eq = memchr(p, '=', (size_t) (nl - p));
		if (eq == NULL ||
		    state_apply(&s, p, (size_t) (eq - p), eq + 1, (size_t) (nl - eq - 1)) < 0)
			return -EINVAL;
		p = nl + 1;
	}
	if (!session_id_valid(s.id) || s.mode[0] == '\0' ||
	    (s.name[0] != '\0' && !session_name_valid(s.name)))
		return -EINVAL;
	*ret = s;
	return 0;
}

int
session_call_format(const struct session_call *c, char *buf, size_t len)
{
	char ex[16] = "-";
	int n;

	if (c->exit_code >= 0)
		snprintf(ex, sizeof(ex), "%d", c->exit_code);
	n = snprintf(buf, len, "%u %s %s %s %llu %llu\n", c->n, c->id, c->verdict, ex,
		     (unsigned long long) c->wall_ms, (unsigned long long) c->cpu_ms);
	if (n < 0 || (size_t) n >= len)
		return -ENOBUFS;
	return n;
}

static int
call_parse_line(char *line, struct session_call *c)
{
	char *w[6], *save = NULL;
	uint64_t n, ex = 0;
	int i;

	for (i = 0; i < 6; i++) {
		w[i] = strtok_r(i == 0 ? line : NULL, " ", &save);
		if (w[i] == NULL)
			return -EINVAL;
	}
	if (strtok_r(NULL, " ", &save) != NULL || parse_u64_range(w[0], 1, 1000000000, &n) < 0 ||
	    (!streq(w[3], "-") && parse_u64_range(w[3], 0, 255, &ex) < 0) ||
	    parse_u64_range(w[4], 0, UINT64_MAX, &c->wall_ms) < 0 ||
	    parse_u64_range(w[5], 0, UINT64_MAX, &c->cpu_ms) < 0 ||
	    copy_word(c->id, sizeof(c->id), w[1], strlen(w[1])) < 0 ||
	    copy_word(c->verdict, sizeof(c->verdict), w[2], strlen(w[2])) < 0)
		return -EINVAL;
	c->n = (unsigned) n;
	c->exit_code = streq(w[3], "-") ? -1 : (int) ex;
	return 0;
}

int
session_calls_parse(const char *text, int (*fn)(const struct session_call *c, void *ud), void *ud)
{
	const char *p = text;
	char line[256];

	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		struct session_call c = {};
		int r;

		if (nl == NULL || (size_t) (nl - p) >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, (size_t) (nl - p));
		line[nl - p] = '\0';
		if (call_parse_line(line, &c) < 0)
			return -EINVAL;
		r = fn(&c, ud);
		if (r < 0)
			return r;
		p = nl + 1;
	}
	return 0;
}

/* The value after "\"key\": " in json.  sandcap's report escapes every '"' inside a string
 * as \", so the quoted key with its colon cannot match inside a value; the first match is
 * the key itself (each key is written once per object, and "usage"'s keys are unique in
 * the whole report). */
static const char *
json_value(const char *json, const char *key)
{
	char pat[48];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	for (p = strstr(json, pat); p != NULL; p = strstr(p + 1, pat))
		if (p == json || p[-1] != '\\')
			return p + strlen(pat);
	return NULL;
}

static int
json_u64(const char *json, const char *key, uint64_t *ret)
{
	const char *v = json_value(json, key);
	char num[24];
	size_t n;

	if (v == NULL)
		return -EINVAL;
	n = strspn(v, "0123456789");
	if (n == 0 && strneq(v, "null", 4)) {
		*ret = 0;
		return 0;
	}
	if (copy_word(num, sizeof(num), v, n) < 0)
		return -EINVAL;
	return parse_u64_range(num, 0, UINT64_MAX, ret);
}

/* A plain string value (ids and verdicts have no escapes). */
static int
json_word(const char *json, const char *key, char *buf, size_t len)
{
	const char *v = json_value(json, key), *end;

	if (v == NULL || *v != '"')
		return -EINVAL;
	end = strchr(v + 1, '"');
	if (end == NULL || memchr(v + 1, '\\', (size_t) (end - v - 1)) != NULL)
		return -EINVAL;
	return copy_word(buf, len, v + 1, (size_t) (end - v - 1));
}

int
session_call_from_report(const char *json, struct session_call *ret)
{
	struct session_call c = { .n = ret->n };
	uint64_t user, sys, ex;
	const char *usage = json_value(json, "usage");

	if (usage == NULL || json_word(json, "id", c.id, sizeof(c.id)) < 0 ||
	    json_word(json, "verdict", c.verdict, sizeof(c.verdict)) < 0 ||
	    json_u64(usage, "wall_ms", &c.wall_ms) < 0 ||
	    json_u64(usage, "cpu_user_ms", &user) < 0 || json_u64(usage, "cpu_system_ms", &sys) < 0)
		return -EINVAL;
	c.exit_code = -1;
	if (json_value(json, "exit_code") != NULL &&
	    !strneq(json_value(json, "exit_code"), "null", 4)) {
		if (json_u64(json, "exit_code", &ex) < 0 || ex > 255)
			return -EINVAL;
		c.exit_code = (int) ex;
	}
	c.cpu_ms = user + sys;
	*ret = c;
	return 0;
}

uint64_t
session_cap(uint64_t asked, uint64_t ceiling)
{
	if (asked == 0)
		return ceiling;
	if (ceiling == 0)
		return asked;
	return asked < ceiling ? asked : ceiling;
}
