/* SPDX-License-Identifier: MIT */
/*
 * The admin's policy, text -> struct policy.  Pure: no privilege, no I/O.
 *
 * Parsing is done in two passes over the text, so that the result does not depend on how
 * the distribution built libinih (multi-line values, inline comments, BOM, line and name
 * lengths are all compile-time options of the shared library, and Debian 12's r55 splits
 * over-long lines and truncates long names silently):
 *
 *  1. pre-scan: we split the text into lines ourselves and reject, with their real line
 *     numbers, NUL bytes, control characters, over-long lines, indented (continuation)
 *     lines, malformed section headers, unknown sections and over-long names.  Each line
 *     is reduced to a canonical form ("", "[section]" or "key=value").
 *  2. libinih parses the canonical lines, fed one per call by our own reader, and the
 *     handler checks every (section, key, value) against what the pre-scan saw on that
 *     line (so a truncation or split by the library cannot go unnoticed), then validates
 *     and stages the value.
 *
 * Results are staged in a fresh object and handed out only when the whole file is valid.
 * See sandbox.ini(5) for the format.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-util.h"
#include "policy-impl.h"

#define ERRORS_MAX      200             /* then "too many errors" */
#define VALUE_MAX       64              /* any value but paths and name lists */
#define SANDBOXES_MAX   1024

enum section_kind {
	SEC_NONE,               /* before any header, or after an invalid one */
	SEC_SANDCAP,
	SEC_LIMITS,
	SEC_DEFAULTS,
	SEC_GROUP,
	SEC_USER,
};

/* Which keys each kind of section accepts. */
static const unsigned section_keys[] = {
	[SEC_NONE] = 0,
	[SEC_SANDCAP] = KM(K_CGROUP_ROOT) | KM(K_WORKSPACE_ROOT) | KM(K_ALLOW_GROUPS) |
		    KM(K_ALLOW_USERS),
	[SEC_LIMITS] = LIMIT_KEYS,
	[SEC_DEFAULTS] = KM(K_MEMORY) | KM(K_CPU) | KM(K_PIDS) | KM(K_DISK) | KM(K_TIMEOUT),
	[SEC_GROUP] = LIMIT_KEYS | KM(K_ALLOW),
	[SEC_USER] = LIMIT_KEYS | KM(K_ALLOW),
};

static const char *const section_key_list[] = {
	[SEC_NONE] = "",
	[SEC_SANDCAP] = "cgroup_root, workspace_root, allow_groups, allow_users",
	[SEC_LIMITS] = "memory, cpu, pids, disk, timeout, sandboxes, total_memory, total_cpu, "
		       "total_pids, net, fs",
	[SEC_DEFAULTS] = "memory, cpu, pids, disk, timeout",
	[SEC_GROUP] = "memory, cpu, pids, disk, timeout, sandboxes, total_memory, total_cpu, "
		      "total_pids, net, fs, allow",
	[SEC_USER] = "memory, cpu, pids, disk, timeout, sandboxes, total_memory, total_cpu, "
		     "total_pids, net, fs, allow",
};

/* What the pre-scan learned about one line. */
enum line_kind { LINE_SKIP, LINE_SECTION, LINE_KEY };

struct line {
	enum line_kind kind;
	enum section_kind sec;          /* of the section the line is in (or opens) */
	size_t sec_idx;                 /* index into groups/users for SEC_GROUP/SEC_USER */
	size_t hdr;                     /* index of the line of the section's header */
	const char *text;               /* into the caller's buffer, not NUL-terminated */
	size_t len;                     /* of text */
	char *canon;                    /* what the reader hands to inih, without '\n' */
	const char *key, *value;        /* into canon (KEY lines), NUL-terminated */
	char *section;                  /* the section's full name, as inih should report it */
	bool handled;                   /* the handler was called for it */
};

struct error {
	unsigned line;
	char msg[POLICY_ERR_MAX];
};

struct parse_ctx {
	const char *filename;
	struct policy *p;               /* staged */
	struct line *lines;
	size_t n_lines;
	size_t next;                    /* next line the reader hands out */
	bool reader_overflow;
	struct error *errors;
	size_t n_errors;
	bool too_many;
	bool oom;
	unsigned seen_sandcap, seen_limits, seen_defaults;  /* line of the header, 0 = none */
	unsigned *seen_group, *seen_user;               /* line of each [group:]/[user:] */
	unsigned (*key_line)[_K_MAX];   /* per line index of a section header: first line of
					 * each key in that section instance */
};

static void add_error(struct parse_ctx *c, unsigned line, const char *fmt, ...)
	_printf_(3, 4);

static void
add_error(struct parse_ctx *c, unsigned line, const char *fmt, ...)
{
	struct error *e;
	va_list ap;

	if (c->n_errors >= ERRORS_MAX) {
		c->too_many = true;
		return;
	}
	if (c->errors == NULL) {
		c->errors = calloc(ERRORS_MAX, sizeof(*c->errors));
		if (c->errors == NULL) {
			c->oom = true;
			return;
		}
	}
	e = &c->errors[c->n_errors++];
	e->line = line;
	va_start(ap, fmt);
	(void) vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* Copy untrusted text for a message: printable ASCII kept, the rest as \xNN, capped. */
static const char *
esc(const char *s, size_t len, char *buf, size_t bufsz)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < bufsz; i++) {
		unsigned char ch = (unsigned char) s[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			buf[o++] = (char) ch;
		} else {
			(void) snprintf(buf + o, bufsz - o, "\\x%02x", ch);
			o += 4;
		}
	}
	if (o + 5 >= bufsz && bufsz > 4) {
		o = bufsz - 4;
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

#define ESC(s) esc((s), strlen(s), (char[64]) {}, 64)

static bool
is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* User and group names: [A-Za-z0-9_][A-Za-z0-9_.-]* with an optional final '$' (Samba
 * machine accounts), 1..POLICY_NAME_MAX bytes.  Checked so that a section header can only
 * name something NSS could return, and a name can never be cut by the INI library. */
static int
name_check(const char *s, size_t len)
{
	if (len == 0)
		return -EINVAL;
	if (len > POLICY_NAME_MAX)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_' ||
			  (i > 0 && (ch == '.' || ch == '-')) || (i > 0 && i == len - 1 && ch == '$');

		if (!ok)
			return -EINVAL;
	}
	return 0;
}

bool
policy_name_ok(const char *name)
{
	return name_check(name, strlen(name)) == 0;
}

/* Add a [group:]/[user:] entry (staged), or report the earlier header of the same name. */
static int
add_entry(struct parse_ctx *c, bool user, const char *name, unsigned lineno, size_t *ret_idx)
{
	struct entry **v = user ? &c->p->users : &c->p->groups;
	size_t *n = user ? &c->p->n_users : &c->p->n_groups;
	unsigned **seen = user ? &c->seen_user : &c->seen_group;
	struct entry *e = find_entry(*v, *n, name), *nv;
	unsigned *ns;

	if (e != NULL) {
		add_error(c, lineno, "section [%s:%s] already appeared at line %u; merge the two",
			  user ? "user" : "group", name, (*seen)[e - *v]);
		return -EEXIST;
	}
	nv = reallocarray(*v, *n + 1, sizeof(**v));
	if (nv == NULL)
		return -ENOMEM;
	*v = nv;
	ns = reallocarray(*seen, *n + 1, sizeof(**seen));
	if (ns == NULL)
		return -ENOMEM;
	*seen = ns;
	memset(&nv[*n], 0, sizeof(nv[*n]));
	memcpy(nv[*n].name, name, strlen(name) + 1);
	nv[*n].line = lineno;
	ns[*n] = lineno;
	*ret_idx = (*n)++;
	return 0;
}

/* Parse a section header's inside ("group:builders"); report problems at lineno. */
static int
prescan_section(struct parse_ctx *c, const char *s, size_t len, unsigned lineno,
		enum section_kind *ret_kind, size_t *ret_idx)
{
	char nbuf[POLICY_NAME_MAX + 1];
	unsigned *seen = NULL;
	enum section_kind k;
	bool user;
	int r;

	if (len == 6 && strneq(s, "limits", 6)) {
		k = SEC_LIMITS;
		seen = &c->seen_limits;
	} else if (len == 8 && strneq(s, "defaults", 8)) {
		k = SEC_DEFAULTS;
		seen = &c->seen_defaults;
	} else if (len == 7 && strneq(s, "sandcap", 7)) {
		k = SEC_SANDCAP;
		seen = &c->seen_sandcap;
	} else if ((len >= 6 && strneq(s, "group:", 6)) || (len >= 5 && strneq(s, "user:", 5))) {
		user = s[0] == 'u';
		size_t off = user ? 5 : 6;

		r = name_check(s + off, len - off);
		if (r == -ENAMETOOLONG) {
			add_error(c, lineno, "%s name in [%.*s...] is %zu bytes long; the limit is %d",
				  user ? "user" : "group", (int) off + 8, s, len - off,
				  POLICY_NAME_MAX);
			return r;
		}
		if (r < 0) {
			add_error(c, lineno, "invalid %s name '%s' in section header: use letters, "
				  "digits, '_', '.' and '-'", user ? "user" : "group",
				  esc(s + off, len - off, (char[64]) {}, 64));
			return r;
		}
		memcpy(nbuf, s + off, len - off);
		nbuf[len - off] = '\0';
		r = add_entry(c, user, nbuf, lineno, ret_idx);
		if (r < 0)
			return r;
		*ret_kind = user ? SEC_USER : SEC_GROUP;
		return 0;
	} else {
		add_error(c, lineno, "unknown section [%s]; known: [sandcap], [limits], [defaults], "
			  "[group:NAME], [user:NAME]", esc(s, len, (char[64]) {}, 64));
		return -ENOENT;
	}
	if (*seen != 0) {
		add_error(c, lineno, "section [%.*s] already appeared at line %u; merge the two",
			  (int) len, s, *seen);
		return -EEXIST;
	}
	*seen = lineno;
	*ret_kind = k;
	*ret_idx = 0;
	return 0;
}

/* Pass 1: split, check and canonicalise every line.  Returns -ENOMEM or 0 (errors are
 * collected in c). */
static int
prescan(struct parse_ctx *c, const char *text, size_t len)
{
	enum section_kind cur = SEC_NONE;
	size_t cur_idx = 0;
	char *cur_name = NULL;
	size_t cur_hdr = 0;
	bool any_header = false;
	size_t n = 0;

	/* A UTF-8 byte order mark at the very start is ignored (editors add it). */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	if (len > 0 && text[len - 1] != '\n')
		n++;
	c->lines = calloc(n ? n : 1, sizeof(*c->lines));
	if (c->lines == NULL)
		return -ENOMEM;
	c->n_lines = n;

	const char *p = text, *end = text + len;
	for (size_t li = 0; li < n; li++) {
		struct line *l = &c->lines[li];
		unsigned lineno = (unsigned) li + 1;
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		size_t ll = nl ? (size_t) (nl - p) : (size_t) (end - p);
		const char *s, *e, *bad;

		l->text = p;
		l->len = ll;
		l->kind = LINE_SKIP;
		l->sec = cur;
		l->sec_idx = cur_idx;
		l->section = cur_name;
		l->hdr = cur_hdr;
		p += ll + (nl ? 1 : 0);

		if (ll > 0 && l->text[ll - 1] == '\r')  /* CRLF files */
			ll--;
		bad = memchr(l->text, '\0', ll);
		if (bad != NULL) {
			add_error(c, lineno, "NUL byte at column %zu", (size_t) (bad - l->text) + 1);
			continue;
		}
		if (ll > POLICY_LINE_MAX) {
			add_error(c, lineno, "line is %zu bytes long; the limit is %d", ll,
				  POLICY_LINE_MAX);
			continue;
		}
		bad = NULL;
		for (size_t j = 0; j < ll && bad == NULL; j++) {
			unsigned char ch = (unsigned char) l->text[j];

			if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				bad = l->text + j;
		}
		if (bad != NULL) {
			add_error(c, lineno, "control character 0x%02x at column %zu",
				  (unsigned) (unsigned char) *bad, (size_t) (bad - l->text) + 1);
			continue;
		}
		s = l->text;
		e = l->text + ll;
		while (s < e && is_space(*s))
			s++;
		while (e > s && is_space(e[-1]))
			e--;
		if (s == e || *s == ';' || *s == '#')
			continue;               /* blank or comment, indented or not */
		if (s != l->text) {
			/* libinih (multi-line builds) would append this line to the previous key's
			 * value, or take it as a new key in other builds: refuse both readings. */
			add_error(c, lineno, "indented line: continuation lines are not supported; "
				  "start sections and keys in the first column");
			continue;
		}
		/* Inline comment: ';' after a blank, as libinih. */
		for (const char *q = s + 1; q < e; q++)
			if (*q == ';' && is_space(q[-1])) {
				e = q;
				while (e > s && is_space(e[-1]))
					e--;
				break;
			}

		if (*s == '[') {
			const char *close = memchr(s, ']', (size_t) (e - s));
			enum section_kind k;
			size_t idx;

			cur = SEC_NONE;         /* keys after a bad header are not checked */
			cur_name = NULL;
			any_header = true;
			if (close == NULL || close != e - 1) {
				add_error(c, lineno, "malformed section header: expected [NAME] "
					  "alone on the line");
				continue;
			}
			if (prescan_section(c, s + 1, (size_t) (close - s - 1), lineno, &k,
					    &idx) < 0) {
				if (c->oom)
					return -ENOMEM;
				continue;
			}
			l->kind = LINE_SECTION;       /* now ctx_done() frees what we set */
			l->canon = strndup(s, (size_t) (e - s));
			l->section = strndup(s + 1, (size_t) (close - s - 1));
			if (l->canon == NULL || l->section == NULL)
				return -ENOMEM;
			l->sec = cur = k;
			l->sec_idx = cur_idx = idx;
			l->hdr = cur_hdr = li;
			cur_name = l->section;
			continue;
		}

		const char *eq = memchr(s, '=', (size_t) (e - s));
		const char *colon = memchr(s, ':', (size_t) (e - s));
		const char *ke, *vs;

		if (eq == NULL || (colon != NULL && colon < eq)) {
			add_error(c, lineno, "expected KEY = VALUE or [SECTION]%s",
				  colon != NULL ? " (the 'KEY: VALUE' form is not accepted)" : "");
			continue;
		}
		ke = eq;
		while (ke > s && is_space(ke[-1]))
			ke--;
		vs = eq + 1;
		while (vs < e && is_space(*vs))
			vs++;
		if (ke == s) {
			add_error(c, lineno, "missing key name before '='");
			continue;
		}
		bool key_ok = (size_t) (ke - s) <= 32;
		for (const char *q = s; q < ke && key_ok; q++)
			key_ok = (*q >= 'a' && *q <= 'z') || *q == '_';
		if (!key_ok) {
			add_error(c, lineno, "invalid key name '%s'",
				  esc(s, (size_t) (ke - s), (char[64]) {}, 64));
			continue;
		}
		if (!any_header) {
			add_error(c, lineno, "key '%.*s' before any [section]", (int) (ke - s), s);
			continue;
		}
		if (cur == SEC_NONE)
			continue;       /* in a section already reported as invalid */

		/* canon = "key=value" */
		size_t kl = (size_t) (ke - s), vl = (size_t) (e - vs);
		l->canon = malloc(kl + vl + 2);
		if (l->canon == NULL)
			return -ENOMEM;
		memcpy(l->canon, s, kl);
		l->canon[kl] = '\0';
		memcpy(l->canon + kl + 1, vs, vl);
		l->canon[kl + 1 + vl] = '\0';
		l->key = l->canon;
		l->value = l->canon + kl + 1;
		l->kind = LINE_KEY;
	}
	return 0;
}

/* libinih reader: hands out one canonical line per call, with the real line count kept
 * by us.  Lines the pre-scan rejected are handed out empty, so numbering stays aligned. */
static char *
reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	const struct line *l;
	size_t need;

	if (c->next >= c->n_lines || num < 2)
		return NULL;
	l = &c->lines[c->next];
	if (l->kind == LINE_KEY)
		need = strlen(l->key) + 1 + strlen(l->value);
	else if (l->kind == LINE_SECTION)
		need = strlen(l->canon);
	else
		need = 0;
	if (need + 2 > (size_t) num) {
		/* This libinih build has a shorter line buffer than ours: stop, fail closed. */
		c->reader_overflow = true;
		return NULL;
	}
	if (l->kind == LINE_KEY)
		(void) snprintf(str, (size_t) num, "%s=%s\n", l->key, l->value);
	else if (l->kind == LINE_SECTION)
		(void) snprintf(str, (size_t) num, "%s\n", l->canon);
	else
		(void) snprintf(str, (size_t) num, "\n");
	c->next++;
	return str;
}

static int
parse_path(const char *v, char *out)
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
		if (is_space(*q) || *q == ';' || *q == '#')
			return -EINVAL;
	memcpy(out, v, len + 1);
	return 0;
}

/* "a, b c" -> names.  An empty value is an empty list ("everyone").  *ret_n starts at 0
 * (a repeated key never gets here). */
static int
parse_name_list(struct parse_ctx *c, unsigned lineno, const char *key, const char *v,
		char **out, size_t *ret_n)
{
	size_t n = 0;

	for (const char *q = v; *q;) {
		size_t l;

		while (*q == ',' || is_space(*q))
			q++;
		if (*q == '\0')
			break;
		l = strcspn(q, ", \t");
		if (name_check(q, l) < 0) {
			add_error(c, lineno, "%s: invalid name '%s' (names are 1..%d bytes of "
				  "letters, digits, '_', '.' and '-')", key,
				  esc(q, l, (char[64]) {}, 64), POLICY_NAME_MAX);
			return -EINVAL;
		}
		if (n >= POLICY_LIST_MAX) {
			add_error(c, lineno, "%s: more than %d names", key, POLICY_LIST_MAX);
			return -E2BIG;
		}
		out[n] = strndup(q, l);
		if (out[n] == NULL) {
			c->oom = true;
			return -ENOMEM;
		}
		*ret_n = ++n;   /* counted as we go, so policy_free() frees them on failure */
		q += l;
	}
	return 0;
}

/* Parse a value of a limit key into *s.  Reports its own errors. */
static int
parse_limit_value(struct parse_ctx *c, unsigned lineno, enum key k, const char *v,
		  struct settings *s)
{
	const char *kn = policy_key_names[k];
	uint64_t x = 0;
	int r;

	if (strlen(v) > VALUE_MAX) {
		add_error(c, lineno, "%s: value is %zu bytes long; the limit is %d", kn, strlen(v),
			  VALUE_MAX);
		return -E2BIG;
	}
	if (strcasecmp(v, "max") == 0 || strcasecmp(v, "unlimited") == 0 ||
	    strcasecmp(v, "infinity") == 0 || strcasecmp(v, "none") == 0) {
		if (k != K_NET && k != K_FS) {
			add_error(c, lineno, "%s = %s is not accepted: leave the key out for no "
				  "ceiling", kn, ESC(v));
			return -EINVAL;
		}
	}

	switch (k) {
	case K_MEMORY:
	case K_DISK:
	case K_TOTAL_MEMORY:
		r = parse_size(v, &x);
		if (r == -EINVAL) {
			add_error(c, lineno, "%s: invalid size '%s': expected %s", kn, ESC(v),
				  parse_size_forms);
			return r;
		}
		if (r < 0 || x > POLICY_SIZE_MAX) {
			add_error(c, lineno, "%s: size '%s' is out of range (at most 1 EiB)", kn,
				  ESC(v));
			return -ERANGE;
		}
		break;
	case K_CPU:
	case K_TOTAL_CPU:
		r = parse_percent(v, &x);
		if (r == -EINVAL) {
			add_error(c, lineno, "%s: invalid percentage '%s': expected %s", kn, ESC(v),
				  parse_percent_forms);
			return r;
		}
		if (r < 0 || x > POLICY_CPU_MAX) {
			add_error(c, lineno, "%s: '%s' is out of range (1%%..%d%%)", kn, ESC(v),
				  POLICY_CPU_MAX);
			return -ERANGE;
		}
		break;
	case K_PIDS:
	case K_TOTAL_PIDS:
	case K_SANDBOXES: {
		uint64_t max = k == K_SANDBOXES ? SANDBOXES_MAX : POLICY_PIDS_MAX;

		r = parse_u64_range(v, 0, max, &x);
		if (r == -EINVAL) {
			add_error(c, lineno, "%s: invalid number '%s': expected a whole decimal "
				  "number", kn, ESC(v));
			return r;
		}
		if (r < 0) {
			add_error(c, lineno, "%s: '%s' is out of range (1..%llu)", kn, ESC(v),
				  (unsigned long long) max);
			return r;
		}
		break;
	}
	case K_TIMEOUT:
		r = parse_duration_ms(v, &x);
		if (r == -EINVAL) {
			add_error(c, lineno, "timeout: invalid duration '%s': expected %s", ESC(v),
				  parse_duration_forms);
			return r;
		}
		if (r < 0 || x > POLICY_TIMEOUT_MAX_MS) {
			add_error(c, lineno, "timeout: '%s' is out of range (at most 366 days)",
				  ESC(v));
			return -ERANGE;
		}
		break;
	case K_NET:
		if (policy_net_parse(v, &s->net) < 0) {
			add_error(c, lineno, "net: invalid value '%s': expected host, proxy, "
				  "loopback or none", ESC(v));
			return -EINVAL;
		}
		return 0;
	case K_FS:
		if (streq(v, "none"))
			s->fs = POLICY_FS_NONE;
		else if (streq(v, "ro"))
			s->fs = POLICY_FS_RO;
		else if (streq(v, "strict"))
			s->fs = POLICY_FS_STRICT;
		else {
			add_error(c, lineno, "fs: invalid value '%s': expected none, ro or strict",
				  ESC(v));
			return -EINVAL;
		}
		return 0;
	case K_ALLOW:
		if (streq(v, "yes"))
			s->allow = true;
		else if (streq(v, "no"))
			s->allow = false;
		else {
			add_error(c, lineno, "allow: invalid value '%s': expected yes or no",
				  ESC(v));
			return -EINVAL;
		}
		return 0;
	case K_CGROUP_ROOT:
	case K_WORKSPACE_ROOT:
	case K_ALLOW_GROUPS:
	case K_ALLOW_USERS:
	case _K_MAX:
		return -EINVAL;         /* not limit keys; not reached */
	}
	if (x == 0) {
		/* In cgroup files and rlimits 0 often reads as "no limit": never accept it. */
		add_error(c, lineno, "%s: 0 is not allowed (it could read as \"unlimited\"); leave "
			  "the key out for no ceiling", kn);
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

static struct settings *
settings_of(struct parse_ctx *c, const struct line *l)
{
	switch (l->sec) {
	case SEC_LIMITS:
		return &c->p->limits;
	case SEC_DEFAULTS:
		return &c->p->defaults;
	case SEC_GROUP:
		return &c->p->groups[l->sec_idx].s;
	case SEC_USER:
		return &c->p->users[l->sec_idx].s;
	case SEC_SANDCAP:
	case SEC_NONE:
		break;
	}
	return NULL;
}

/* Keep a value as the admin wrote it, for policy check and show ("1h", not "3600s"). */
static int
keep_text(struct parse_ctx *c, const char *value, uint32_t *ret)
{
	size_t n = strlen(value) + 1;
	char *t;

	/* At most POLICY_FILE_MAX bytes of values in all: the offsets fit in 32 bits. */
	t = realloc(c->p->texts, c->p->texts_len + n);
	if (t == NULL) {
		c->oom = true;
		return -ENOMEM;
	}
	memcpy(t + c->p->texts_len, value, n);
	c->p->texts = t;
	*ret = (uint32_t) c->p->texts_len + 1;
	c->p->texts_len += n;
	return 0;
}

/* libinih handler: nonzero = OK.  Every check says why it is there. */
static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *c = user;
	struct line *l;
	unsigned lineno;
	enum key k;
	size_t hl;
	int r;

	if (c->next == 0)
		return 0;
	l = &c->lines[c->next - 1];
	lineno = (unsigned) c->next;

	/* The library must report exactly what the pre-scan saw on this line; anything else
	 * (a truncated name, a split line, a value with a comment left in) is refused. */
	if (l->kind != LINE_KEY || l->section == NULL || !streq(section, l->section) ||
	    !streq(name, l->key) || !streq(value, l->value)) {
		add_error(c, lineno, "the INI library did not read this line as written");
		return 0;
	}
	l->handled = true;

	for (k = 0; k < _K_MAX; k++)
		if (streq(name, policy_key_names[k]))
			break;
	if (k == _K_MAX || !(section_keys[l->sec] & KM(k))) {
		add_error(c, lineno, "unknown key '%s' in [%s]; known keys: %s", ESC(name),
			  l->section, section_key_list[l->sec]);
		return 0;
	}

	/* Repeated keys: the second would silently win, and multi-line libinih builds
	 * deliver continuation lines this way. */
	hl = l->hdr;
	if (c->key_line[hl][k] != 0) {
		add_error(c, lineno, "repeated key '%s' in [%s] (first set at line %u)", name,
			  l->section, c->key_line[hl][k]);
		return 0;
	}
	c->key_line[hl][k] = lineno;

	switch (k) {
	case K_CGROUP_ROOT:
	case K_WORKSPACE_ROOT:
		r = parse_path(value, k == K_CGROUP_ROOT ? c->p->cgroup_root :
				      c->p->workspace_root);
		if (r == -ENAMETOOLONG)
			add_error(c, lineno, "%s: path is longer than %d bytes", name,
				  POLICY_PATH_MAX - 1);
		else if (r < 0)
			add_error(c, lineno, "%s: '%s' is not a clean absolute path (no '.', '..', "
				  "'//', trailing '/', blanks, ';' or '#')", name, ESC(value));
		return r == 0;
	case K_ALLOW_GROUPS:
		r = parse_name_list(c, lineno, name, value, c->p->allow_groups,
				    &c->p->n_allow_groups);
		c->p->allow_groups_set = r == 0 && c->p->n_allow_groups > 0;
		c->p->allow_groups_line = lineno;
		return r == 0;
	case K_ALLOW_USERS:
		r = parse_name_list(c, lineno, name, value, c->p->allow_users,
				    &c->p->n_allow_users);
		c->p->allow_users_set = r == 0 && c->p->n_allow_users > 0;
		c->p->allow_users_line = lineno;
		return r == 0;
	case K_MEMORY:
	case K_CPU:
	case K_PIDS:
	case K_DISK:
	case K_TIMEOUT:
	case K_SANDBOXES:
	case K_TOTAL_MEMORY:
	case K_TOTAL_CPU:
	case K_TOTAL_PIDS:
	case K_NET:
	case K_FS:
	case K_ALLOW:
	case _K_MAX:
		break;
	}
	struct settings *s = settings_of(c, l);
	if (s == NULL)
		return 0;
	if (value[0] == '\0') {
		add_error(c, lineno, "%s: empty value; leave the key out instead", name);
		return 0;
	}
	r = parse_limit_value(c, lineno, k, value, s);
	if (r < 0)
		return 0;
	s->set |= KM(k);
	s->line[k] = lineno;
	if (keep_text(c, value, &s->text_at[k]) < 0)
		return 0;
	return 1;
}

static struct policy *
policy_new(void)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	/* Built-in defaults for [sandcap]; see sandbox.ini(5). */
	strcpy(p->cgroup_root, "/sys/fs/cgroup/sandcap");
	strcpy(p->workspace_root, "/run/sandcap");
	return p;
}

struct policy *
policy_free(struct policy *p)
{
	if (p == NULL)
		return NULL;
	for (size_t i = 0; i < p->n_allow_groups; i++)
		free(p->allow_groups[i]);
	for (size_t i = 0; i < p->n_allow_users; i++)
		free(p->allow_users[i]);
	free(p->groups);
	free(p->users);
	free(p->texts);
	free(p);
	return NULL;
}

static void
ctx_done(struct parse_ctx *c)
{
	for (size_t i = 0; i < c->n_lines; i++) {
		free(c->lines[i].canon);
		if (c->lines[i].kind == LINE_SECTION)
			free(c->lines[i].section);
	}
	free(c->lines);
	free(c->errors);
	free(c->seen_group);
	free(c->seen_user);
	free(c->key_line);
	c->p = policy_free(c->p);
}

static int
cmp_error(const void *a, const void *b)
{
	const struct error *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y;      /* keep the order of discovery (stable) */
}

/* Both passes; the staged result is in c->p, the errors in c->errors (sorted by line).
 * Returns -ENOMEM/-EIO or the number of errors. */
static int
parse_all(struct parse_ctx *c, const char *text, size_t len, const char *filename)
{
	int r;

	c->filename = filename ? filename : "(policy)";
	c->p = policy_new();
	if (c->p == NULL)
		return -ENOMEM;
	if (text == NULL && len > 0)
		return -EINVAL;
	if (len > POLICY_FILE_MAX) {
		add_error(c, 0, "file is larger than %d bytes", POLICY_FILE_MAX);
		return c->oom ? -ENOMEM : 1;
	}
	r = prescan(c, text ? text : "", len);
	if (r < 0 || c->oom)
		return -ENOMEM;
	c->key_line = calloc(c->n_lines ? c->n_lines : 1, sizeof(*c->key_line));
	if (c->key_line == NULL)
		return -ENOMEM;

	r = ini_parse_stream(reader, c, handler, c);
	if (c->oom || r == -2)
		return -ENOMEM;
	if (r < 0)
		return -EIO;
	if (c->reader_overflow)
		add_error(c, (unsigned) c->next + 1, "line too long for this build of libinih");
	if (r > 0) {
		bool known = false;

		for (size_t i = 0; i < c->n_errors; i++)
			known = known || c->errors[i].line == (unsigned) r;
		if (!known)
			add_error(c, (unsigned) r, "syntax error");
	}
	for (size_t i = 0; i < c->n_lines && !c->reader_overflow; i++)
		if (c->lines[i].kind == LINE_KEY && !c->lines[i].handled)
			add_error(c, (unsigned) i + 1, "the INI library skipped this line");
	if (c->oom)
		return -ENOMEM;
	if (c->n_errors > 1)
		qsort(c->errors, c->n_errors, sizeof(*c->errors), cmp_error);
	if (c->too_many && c->n_errors > 0) {
		/* Replace the last one so the caller knows the list is cut. */
		struct error *e = &c->errors[c->n_errors - 1];

		(void) snprintf(e->msg, sizeof(e->msg), "too many errors; stopping here");
	}
	return (int) c->n_errors;
}

static void
format_error(const struct parse_ctx *c, const struct error *e, char *buf, size_t bufsz)
{
	if (e->line == 0)
		(void) snprintf(buf, bufsz, "%s: %s", c->filename, e->msg);
	else
		(void) snprintf(buf, bufsz, "%s:%u: %s", c->filename, e->line, e->msg);
}

int
policy_parse_string(const char *text, size_t len, const char *filename, struct policy **ret,
		    unsigned *reterr_line, char *errbuf, size_t errlen)
{
	struct parse_ctx c = {};
	int r;

	r = parse_all(&c, text, len, filename);
	if (r != 0) {
		if (r > 0) {
			if (reterr_line)
				*reterr_line = c.errors[0].line;
			if (errbuf && errlen)
				format_error(&c, &c.errors[0], errbuf, errlen);
			r = len > POLICY_FILE_MAX ? -EFBIG : -EINVAL;
		} else {
			if (reterr_line)
				*reterr_line = 0;
			if (errbuf && errlen)
				(void) snprintf(errbuf, errlen, "%s: %s", c.filename, strerror(-r));
		}
		ctx_done(&c);
		return r;
	}
	*ret = TAKE_PTR(c.p);
	ctx_done(&c);
	return 0;
}

int
policy_check_string(const char *text, size_t len, const char *filename,
		    void (*cb)(const char *msg, void *userdata), void *userdata)
{
	struct parse_ctx c = {};
	char buf[POLICY_ERR_MAX + POLICY_PATH_MAX + 16];
	int r;

	r = parse_all(&c, text, len, filename);
	for (int i = 0; r > 0 && i < r; i++) {
		format_error(&c, &c.errors[i], buf, sizeof(buf));
		if (cb)
			cb(buf, userdata);
	}
	ctx_done(&c);
	return r;
}

