/* SPDX-License-Identifier: MIT */
/* The values of the policy file's keys: paths, name lists, sizes, percentages, counts,
 * durations and words, checked into the staged policy with their errors (parse-impl.h).  Pure:
 * no privilege, no I/O. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-impl.h"
#include "parse-util.h"
#include "policy-impl.h"

int
pctx_path(const char *v, char *out)
{
	size_t len = strlen(v);

	if (len == 0 || v[0] != '/')
		return -EINVAL;
	if (len >= POLICY_PATH_MAX)
		return -ENAMETOOLONG;
	if (len == 1 || v[len - 1] == '/')
		return -EINVAL;
	for (const char *comp = v + 1; comp != NULL;) {
		const char *slash = strchr(comp, '/');
		size_t cl = slash ? (size_t) (slash - comp) : strlen(comp);

		if (cl == 0 || (cl == 1 && comp[0] == '.') || (cl == 2 && strneq(comp, "..", 2)))
			return -EINVAL;
		comp = slash ? slash + 1 : NULL;
	}
	for (const char *q = v; *q; q++)
		if (pctx_is_space(*q) || *q == ';' || *q == '#')
			return -EINVAL;
	memcpy(out, v, len + 1);
	return 0;
}

/* "a, b c" -> names.  An empty value is an empty list ("everyone").  *ret_n starts at 0
 * (a repeated key never gets here). */
int
pctx_name_list(struct parse_ctx *c, unsigned lineno, const char *key, const char *v, char **out,
	       size_t *ret_n)
{
	size_t n = 0;

	for (const char *q = v; *q;) {
		size_t l;

		while (*q == ',' || pctx_is_space(*q))
			q++;
		if (*q == '\0')
			break;
		l = strcspn(q, ", \t");
		if (pctx_name_check(q, l) < 0) {
			pctx_error(c, lineno,
				   "%s: invalid name '%s' (names are 1..%d bytes of "
				   "letters, digits, '_', '.' and '-')",
				   key, pctx_esc(q, l, (char[64]){}, 64), POLICY_NAME_MAX);
			return -EINVAL;
		}
		if (n >= POLICY_LIST_MAX) {
			pctx_error(c, lineno, "%s: more than %d names", key, POLICY_LIST_MAX);
			return -E2BIG;
		}
		out[n] = strndup(q, l);
		if (out[n] == NULL) {
			c->oom = true;
			return -ENOMEM;
		}
		*ret_n = ++n; /* counted as we go, so policy_free() frees them on failure */
		q += l;
	}
	return 0;
}

/* A size (memory, disk, total_memory) into *ret; reports its own errors. */
static int
value_size(struct parse_ctx *c, unsigned lineno, const char *kn, const char *v, uint64_t *ret)
{
	int r = parse_size(v, ret);

	if (r == -EINVAL) {
		pctx_error(c, lineno, "%s: invalid size '%s': expected %s", kn, ESC(v),
			   parse_size_forms);
		return r;
	}
	if (r < 0 || *ret > POLICY_SIZE_MAX) {
		pctx_error(c, lineno, "%s: size '%s' is out of range (at most 1 EiB)", kn, ESC(v));
		return -ERANGE;
	}
	return 0;
}

/* A percentage of one CPU (cpu, total_cpu). */
static int
value_percent(struct parse_ctx *c, unsigned lineno, const char *kn, const char *v, uint64_t *ret)
{
	int r = parse_percent(v, ret);

	if (r == -EINVAL) {
		pctx_error(c, lineno, "%s: invalid percentage '%s': expected %s", kn, ESC(v),
			   parse_percent_forms);
		return r;
	}
	if (r < 0 || *ret > POLICY_CPU_MAX) {
		pctx_error(c, lineno, "%s: '%s' is out of range (1%%..%d%%)", kn, ESC(v),
			   POLICY_CPU_MAX);
		return -ERANGE;
	}
	return 0;
}

/* A count (pids, total_pids, sandboxes) up to max. */
static int
value_count(struct parse_ctx *c, unsigned lineno, const char *kn, const char *v, uint64_t max,
	    uint64_t *ret)
{
	int r = parse_u64_range(v, 0, max, ret);

	if (r == -EINVAL) {
		pctx_error(c, lineno, "%s: invalid number '%s': expected a whole decimal number",
			   kn, ESC(v));
		return r;
	}
	if (r < 0) {
		pctx_error(c, lineno, "%s: '%s' is out of range (1..%llu)", kn, ESC(v),
			   (unsigned long long) max);
		return r;
	}
	return 0;
}

/* A duration (timeout), in milliseconds. */
static int
value_duration(struct parse_ctx *c, unsigned lineno, const char *v, uint64_t *ret)
{
	int r = parse_duration_ms(v, ret);

	if (r == -EINVAL) {
		pctx_error(c, lineno, "timeout: invalid duration '%s': expected %s", ESC(v),
			   parse_duration_forms);
		return r;
	}
	if (r < 0 || *ret > POLICY_TIMEOUT_MAX_MS) {
		pctx_error(c, lineno, "timeout: '%s' is out of range (at most 366 days)", ESC(v));
		return -ERANGE;
	}
	return 0;
}

/* net, fs and allow: one word of a fixed set, into *s. */
static int
value_word(struct parse_ctx *c, unsigned lineno, enum key k, const char *v, struct settings *s)
{
	if (k == K_NET && policy_net_parse(v, &s->net) < 0) {
		pctx_error(c, lineno,
			   "net: invalid value '%s': expected host, proxy, loopback or "
			   "none",
			   ESC(v));
		return -EINVAL;
	}
	if (k == K_FS && policy_fs_parse(v, &s->fs) < 0) {
		pctx_error(c, lineno, "fs: invalid value '%s': expected none, ro or strict",
			   ESC(v));
		return -EINVAL;
	}
	if (k == K_ALLOW && !streq(v, "yes") && !streq(v, "no")) {
		pctx_error(c, lineno, "allow: invalid value '%s': expected yes or no", ESC(v));
		return -EINVAL;
	}
	if (k == K_ALLOW)
		s->allow = streq(v, "yes");
	return 0;
}

/* A numeric value of key k into *ret. */
static int
value_number(struct parse_ctx *c, unsigned lineno, enum key k, const char *v, uint64_t *ret)
{
	const char *kn = policy_key_names[k];

	switch (k) {
	case K_MEMORY:
	case K_DISK:
	case K_TOTAL_MEMORY:
		return value_size(c, lineno, kn, v, ret);
	case K_CPU:
	case K_TOTAL_CPU:
		return value_percent(c, lineno, kn, v, ret);
	case K_PIDS:
	case K_TOTAL_PIDS:
		return value_count(c, lineno, kn, v, POLICY_PIDS_MAX, ret);
	case K_SANDBOXES:
		return value_count(c, lineno, kn, v, SANDBOXES_MAX, ret);
	case K_TIMEOUT:
		return value_duration(c, lineno, v, ret);
	case K_NET:
	case K_FS:
	case K_ALLOW:
	case K_CGROUP_ROOT:
	case K_WORKSPACE_ROOT:
	case K_ALLOW_GROUPS:
	case K_ALLOW_USERS:
	case _K_MAX:
		break;
	}
	return -EINVAL; /* not a numeric key; not reached */
}

/* A value of a setting ([limits], [defaults], [group:], [user:]) into *s.  Reports its own
 * errors. */
int
pctx_setting(struct parse_ctx *c, unsigned lineno, enum key k, const char *v, struct settings *s)
{
	const char *kn = policy_key_names[k];
	uint64_t x = 0;

	if (strlen(v) > VALUE_MAX) {
		pctx_error(c, lineno, "%s: value is %zu bytes long; the limit is %d", kn, strlen(v),
			   VALUE_MAX);
		return -E2BIG;
	}
	if (k == K_NET || k == K_FS || k == K_ALLOW)
		return value_word(c, lineno, k, v, s);
	if (strcasecmp(v, "max") == 0 || strcasecmp(v, "unlimited") == 0 ||
	    strcasecmp(v, "infinity") == 0 || strcasecmp(v, "none") == 0) {
		pctx_error(c, lineno, "%s = %s is not accepted: leave the key out for no ceiling",
			   kn, ESC(v));
		return -EINVAL;
	}
	if (value_number(c, lineno, k, v, &x) < 0)
		return -EINVAL;
	if (x == 0) {
		/* In cgroup files and rlimits 0 often reads as "no limit": never accept it. */
		pctx_error(c, lineno,
			   "%s: 0 is not allowed (it could read as \"unlimited\"); leave "
			   "the key out for no ceiling",
			   kn);
		return -ERANGE;
	}
	if (k == K_SANDBOXES)
		s->sandboxes = x;
	else if (k == K_TOTAL_MEMORY || k == K_TOTAL_CPU || k == K_TOTAL_PIDS)
		s->total[k - K_TOTAL_MEMORY] = x;
	else
		s->v[k] = x;
	return 0;
}
