/* SPDX-License-Identifier: MIT */
/*
 * The admin's policy: text -> struct policy -> decisions.  Pure: no privilege, no I/O.
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
 * See sandbox.ini(5) for the format and the resolution rules.
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
#include "policy.h"

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

/* Keys, as bits in a per-section "seen" mask. */
enum key {
	K_MEMORY,               /* the first _POLICY_LIMIT_MAX match enum policy_limit */
	K_CPU,
	K_PIDS,
	K_DISK,
	K_TIMEOUT,
	K_SANDBOXES,
	K_TOTAL_MEMORY,         /* the sum of a user's sandboxes (the per-user cgroup level) */
	K_TOTAL_CPU,
	K_TOTAL_PIDS,
	K_NET,
	K_FS,
	K_ALLOW,
	K_CGROUP_ROOT,
	K_WORKSPACE_ROOT,
	K_ALLOW_GROUPS,
	K_ALLOW_USERS,
	_K_MAX,
};

static const char *const key_names[_K_MAX] = {
	[K_MEMORY] = "memory", [K_CPU] = "cpu", [K_PIDS] = "pids", [K_DISK] = "disk",
	[K_TIMEOUT] = "timeout", [K_SANDBOXES] = "sandboxes",
	[K_TOTAL_MEMORY] = "total_memory", [K_TOTAL_CPU] = "total_cpu",
	[K_TOTAL_PIDS] = "total_pids", [K_NET] = "net", [K_FS] = "fs",
	[K_ALLOW] = "allow", [K_CGROUP_ROOT] = "cgroup_root",
	[K_WORKSPACE_ROOT] = "workspace_root", [K_ALLOW_GROUPS] = "allow_groups",
	[K_ALLOW_USERS] = "allow_users",
};

#define KM(k) (1u << (k))
#define LIMIT_KEYS (KM(K_MEMORY) | KM(K_CPU) | KM(K_PIDS) | KM(K_DISK) | KM(K_TIMEOUT) | \
		    KM(K_SANDBOXES) | KM(K_TOTAL_MEMORY) | KM(K_TOTAL_CPU) | KM(K_TOTAL_PIDS) | \
		    KM(K_NET) | KM(K_FS))

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

/* The settings of one section ([limits], [defaults], [group:X] or [user:X]). */
struct settings {
	unsigned set;                   /* KM() of the keys present */
	uint64_t v[_POLICY_LIMIT_MAX];
	uint64_t sandboxes;
	uint64_t total[3];              /* K_TOTAL_MEMORY, K_TOTAL_CPU, K_TOTAL_PIDS */
	enum policy_net net;
	enum policy_fs fs;
	bool allow;
	unsigned line[_K_MAX];          /* where each key present was set (policy check) */
	uint32_t text_at[_K_MAX];       /* 1 + its value's offset in the policy's text pool, as
					 * written (policy check, policy show); 0 = not set */
};

struct entry {
	char name[POLICY_NAME_MAX + 1];
	unsigned line;                  /* of its header */
	struct settings s;
};

struct policy {
	char cgroup_root[POLICY_PATH_MAX];
	char workspace_root[POLICY_PATH_MAX];
	char *allow_groups[POLICY_LIST_MAX];
	size_t n_allow_groups;
	bool allow_groups_set;
	char *allow_users[POLICY_LIST_MAX];
	size_t n_allow_users;
	bool allow_users_set;
	unsigned allow_groups_line, allow_users_line;
	struct settings limits, defaults;
	struct entry *groups, *users;
	size_t n_groups, n_users;
	char *texts;                    /* the limit values as written, NUL-separated */
	size_t texts_len;
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

static struct entry *
find_entry(struct entry *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].name, name))
			return &v[i];
	return NULL;
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

static const char *const limit_names[_POLICY_LIMIT_MAX] = {
	[POLICY_MEMORY] = "memory", [POLICY_CPU] = "cpu", [POLICY_PIDS] = "pids",
	[POLICY_DISK] = "disk", [POLICY_TIMEOUT] = "timeout",
};

/* Parse a value of a limit key into *s.  Reports its own errors. */
static int
parse_limit_value(struct parse_ctx *c, unsigned lineno, enum key k, const char *v,
		  struct settings *s)
{
	const char *kn = key_names[k];
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
		if (streq(name, key_names[k]))
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

const char *
policy_cgroup_root(const struct policy *p)
{
	return p->cgroup_root;
}

const char *
policy_workspace_root(const struct policy *p)
{
	return p->workspace_root;
}

size_t
policy_allow_groups(const struct policy *p, const char *const **ret)
{
	*ret = (const char *const *) p->allow_groups;
	return p->n_allow_groups;
}

bool
policy_names_groups(const struct policy *p)
{
	return p->n_allow_groups > 0 || p->n_groups > 0;
}

bool
policy_names_users(const struct policy *p)
{
	return p->n_allow_users > 0 || p->n_users > 0;
}

size_t
policy_allow_users(const struct policy *p, const char *const **ret)
{
	*ret = (const char *const *) p->allow_users;
	return p->n_allow_users;
}

const char *
policy_limit_name(enum policy_limit l)
{
	if ((unsigned) l >= _POLICY_LIMIT_MAX)
		return "unknown";
	return limit_names[l];
}

const char *
policy_total_name(int t)
{
	return t >= 0 && t < 3 ? key_names[K_TOTAL_MEMORY + t] : "unknown";
}

const char *
policy_net_name(enum policy_net n)
{
	switch (n) {
	case POLICY_NET_NONE:
		return "none";
	case POLICY_NET_LOOPBACK:
		return "loopback";
	case POLICY_NET_PROXY:
		return "proxy";
	case POLICY_NET_HOST:
	default:
		return "host";
	}
}

int
policy_net_parse(const char *v, enum policy_net *ret)
{
	static const enum policy_net all[] = { POLICY_NET_HOST, POLICY_NET_PROXY,
					       POLICY_NET_LOOPBACK, POLICY_NET_NONE };

	for (size_t i = 0; v != NULL && i < ELEMENTSOF(all); i++)
		if (streq(v, policy_net_name(all[i]))) {
			*ret = all[i];
			return 0;
		}
	return -EINVAL;
}

const char *
policy_fs_name(enum policy_fs f)
{
	switch (f) {
	case POLICY_FS_NONE:
		return "none";
	case POLICY_FS_RO:
		return "ro";
	case POLICY_FS_STRICT:
		return "strict";
	}
	return "unknown";
}

void
policy_format_value(enum policy_limit l, uint64_t v, char *buf, size_t bufsz)
{
	if (v == UINT64_MAX) {
		(void) snprintf(buf, bufsz, "none");
		return;
	}
	if (v == 0) {
		(void) snprintf(buf, bufsz, "unlimited");
		return;
	}
	switch (l) {
	case POLICY_MEMORY:
	case POLICY_DISK:
		format_size(v, buf, bufsz);
		break;
	case POLICY_CPU:
		(void) snprintf(buf, bufsz, "%llu%%", (unsigned long long) v);
		break;
	case POLICY_TIMEOUT:
		format_duration_ms(v, buf, bufsz);
		break;
	case POLICY_PIDS:
	case _POLICY_LIMIT_MAX:
	default:
		(void) snprintf(buf, bufsz, "%llu", (unsigned long long) v);
		break;
	}
}

static bool
subject_in_group(const struct policy_subject *subj, const char *group)
{
	for (size_t i = 0; i < subj->ngroups; i++)
		if (subj->groups[i] != NULL && streq(subj->groups[i], group))
			return true;
	return false;
}

/* Iterate over the [group:X] sections (in file order) of groups the subject is in. */
#define FOREACH_GROUP(e, p, subj) \
	for (const struct entry *e = (p)->groups; e < (p)->groups + (p)->n_groups; e++) \
		if (subject_in_group((subj), e->name))

#define SRC(buf, ...) (void) snprintf((buf), sizeof(buf), __VA_ARGS__)

static int
setting_net(const struct settings *st)
{
	return (int) st->net;
}

static int
setting_fs(const struct settings *st)
{
	return (int) st->fs;
}

/* One isolation requirement: [user:NAME], else the least strict of the user's groups that
 * set it, else [limits], else dflt; src names the section that decided. */
static int
resolve_required(const struct policy *p, const struct policy_subject *subj,
		 const struct entry *u, unsigned key, int (*get)(const struct settings *),
		 int dflt, char *src, size_t srclen)
{
	bool any = false;
	int v = dflt;

	if (u != NULL && (u->s.set & KM(key))) {
		(void) snprintf(src, srclen, "[user:%s]", u->name);
		return get(&u->s);
	}
	FOREACH_GROUP(g, p, subj)
		if (g->s.set & KM(key)) {
			if (!any || get(&g->s) < v) {
				v = get(&g->s);
				(void) snprintf(src, srclen, "[group:%s]", g->name);
			}
			any = true;
		}
	if (any)
		return v;
	if (p->limits.set & KM(key)) {
		(void) snprintf(src, srclen, "[limits]");
		return get(&p->limits);
	}
	(void) snprintf(src, srclen, "built-in");
	return dflt;
}

/*
 * Resolution (sandbox.ini(5) "RESOLUTION"), per setting:
 *   [user:NAME] if it sets the key; else the most generous of the user's [group:X]
 *   sections that set it (largest ceiling; least strict isolation requirement); else
 *   [limits]; else no ceiling (UINT64_MAX, "built-in").
 * Default: [defaults] capped at the ceiling; without one, the ceiling; with neither, 0.
 * Access, in order: [user:NAME] allow decides if set; any of the user's groups with
 * allow = no denies; if allow_groups or allow_users is set, the user must be listed, be
 * in a listed group, or be in a group whose section says allow = yes.
 */
void
policy_resolve(const struct policy *p, const struct policy_subject *subj,
	       struct policy_resolved *ret)
{
	const struct entry *u = NULL;

	memset(ret, 0, sizeof(*ret));
	if (subj->user != NULL)
		u = find_entry(p->users, p->n_users, subj->user);

	/* Ceilings. */
	for (int l = 0; l < _POLICY_LIMIT_MAX; l++) {
		const struct entry *best = NULL;

		if (u != NULL && (u->s.set & KM(l))) {
			ret->ceiling[l] = u->s.v[l];
			SRC(ret->ceiling_src[l], "[user:%s]", u->name);
			continue;
		}
		FOREACH_GROUP(g, p, subj)
			if ((g->s.set & KM(l)) && (best == NULL || g->s.v[l] > best->s.v[l]))
				best = g;
		if (best != NULL) {
			ret->ceiling[l] = best->s.v[l];
			SRC(ret->ceiling_src[l], "[group:%s]", best->name);
		} else if (p->limits.set & KM(l)) {
			ret->ceiling[l] = p->limits.v[l];
			SRC(ret->ceiling_src[l], "[limits]");
		} else {
			ret->ceiling[l] = UINT64_MAX;
			SRC(ret->ceiling_src[l], "built-in");
		}
	}

	/* Defaults. */
	for (int l = 0; l < _POLICY_LIMIT_MAX; l++) {
		char csrc[sizeof(ret->ceiling_src[l])];

		/* A copy: snprintf() from one member of *ret into another trips -Wrestrict. */
		memcpy(csrc, ret->ceiling_src[l], sizeof(csrc));
		if (p->defaults.set & KM(l)) {
			if (p->defaults.v[l] > ret->ceiling[l]) {
				ret->dflt[l] = ret->ceiling[l];
				SRC(ret->dflt_src[l], "[defaults] (capped by %s)", csrc);
			} else {
				ret->dflt[l] = p->defaults.v[l];
				SRC(ret->dflt_src[l], "[defaults]");
			}
		} else if (ret->ceiling[l] != UINT64_MAX) {
			ret->dflt[l] = ret->ceiling[l];
			SRC(ret->dflt_src[l], "%s (the ceiling)", csrc);
		} else {
			ret->dflt[l] = 0;
			SRC(ret->dflt_src[l], "built-in");
		}
	}

	/* Sandboxes per user. */
	{
		const struct entry *best = NULL;

		FOREACH_GROUP(g, p, subj)
			if ((g->s.set & KM(K_SANDBOXES)) &&
			    (best == NULL || g->s.sandboxes > best->s.sandboxes))
				best = g;
		if (u != NULL && (u->s.set & KM(K_SANDBOXES))) {
			ret->sandboxes = u->s.sandboxes;
			SRC(ret->sandboxes_src, "[user:%s]", u->name);
		} else if (best != NULL) {
			ret->sandboxes = best->s.sandboxes;
			SRC(ret->sandboxes_src, "[group:%s]", best->name);
		} else if (p->limits.set & KM(K_SANDBOXES)) {
			ret->sandboxes = p->limits.sandboxes;
			SRC(ret->sandboxes_src, "[limits]");
		} else {
			ret->sandboxes = UINT64_MAX;
			SRC(ret->sandboxes_src, "built-in");
		}
	}

	/* Totals per user: [user:X], else the most generous group, else [limits]. */
	for (int t = 0; t < 3; t++) {
		const struct entry *best = NULL;
		unsigned km = KM(K_TOTAL_MEMORY + t);

		FOREACH_GROUP(g, p, subj)
			if ((g->s.set & km) && (best == NULL || g->s.total[t] > best->s.total[t]))
				best = g;
		if (u != NULL && (u->s.set & km)) {
			ret->total[t] = u->s.total[t];
			SRC(ret->total_src[t], "[user:%s]", u->name);
		} else if (best != NULL) {
			ret->total[t] = best->s.total[t];
			SRC(ret->total_src[t], "[group:%s]", best->name);
		} else if (p->limits.set & km) {
			ret->total[t] = p->limits.total[t];
			SRC(ret->total_src[t], "[limits]");
		} else {
			ret->total[t] = UINT64_MAX;
			SRC(ret->total_src[t], "built-in");
		}
	}

	/* Isolation requirements: the most generous group is the least strict one. */
	ret->net_required = (enum policy_net) resolve_required(p, subj, u, K_NET,
			setting_net, POLICY_NET_HOST, ret->net_required_src,
			sizeof(ret->net_required_src));
	ret->fs_required = (enum policy_fs) resolve_required(p, subj, u, K_FS,
			setting_fs, POLICY_FS_NONE, ret->fs_required_src,
			sizeof(ret->fs_required_src));

	/* Access. */
	ret->allowed = true;
	if (u != NULL && (u->s.set & KM(K_ALLOW))) {
		ret->allowed = u->s.allow;
		if (!ret->allowed)
			SRC(ret->deny_reason, "denied by [user:%s] allow = no", u->name);
		return;
	}
	FOREACH_GROUP(g, p, subj)
		if ((g->s.set & KM(K_ALLOW)) && !g->s.allow) {
			ret->allowed = false;
			SRC(ret->deny_reason, "denied by [group:%s] allow = no", g->name);
			return;
		}
	if (p->allow_groups_set || p->allow_users_set) {
		bool ok = false;

		for (size_t i = 0; i < p->n_allow_users && !ok; i++)
			ok = subj->user != NULL && streq(p->allow_users[i], subj->user);
		for (size_t i = 0; i < p->n_allow_groups && !ok; i++)
			ok = subject_in_group(subj, p->allow_groups[i]);
		FOREACH_GROUP(g, p, subj)
			ok = ok || ((g->s.set & KM(K_ALLOW)) && g->s.allow);
		if (!ok) {
			ret->allowed = false;
			SRC(ret->deny_reason, "not allowed by [sandcap] %s%s%s: the user is not listed "
			    "and is in none of the listed groups",
			    p->allow_groups_set ? "allow_groups" : "",
			    p->allow_groups_set && p->allow_users_set ? " / " : "",
			    p->allow_users_set ? "allow_users" : "");
		}
	}
}

int
policy_check_request(const struct policy_resolved *r, enum policy_limit l, uint64_t value,
		     char *errbuf, size_t errlen)
{
	if ((unsigned) l >= _POLICY_LIMIT_MAX) {
		if (errbuf && errlen)
			(void) snprintf(errbuf, errlen, "unknown limit %d", (int) l);
		return -EINVAL;
	}
	if (!r->allowed) {
		if (errbuf && errlen)
			(void) snprintf(errbuf, errlen, "%s", r->deny_reason);
		return -EPERM;
	}
	return policy_check_ceiling(r, l, value, errbuf, errlen);
}

int
policy_check_ceiling(const struct policy_resolved *r, enum policy_limit l, uint64_t value,
		     char *errbuf, size_t errlen)
{
	char v[32], c[32];

	if ((unsigned) l >= _POLICY_LIMIT_MAX) {
		if (errbuf && errlen)
			(void) snprintf(errbuf, errlen, "unknown limit %d", (int) l);
		return -EINVAL;
	}
	if (value == 0 || value <= r->ceiling[l])
		return 0;
	policy_format_value(l, value, v, sizeof(v));
	policy_format_value(l, r->ceiling[l], c, sizeof(c));
	if (errbuf && errlen)
		(void) snprintf(errbuf, errlen, "%s %s is over the ceiling %s set by %s",
				limit_names[l], v, c, r->ceiling_src[l]);
	return -EPERM;
}

uint64_t
policy_effective(const struct policy_resolved *r, enum policy_limit l, uint64_t req)
{
	uint64_t ceil = r->ceiling[l], v = req;

	if (v == 0)
		v = r->dflt[l];
	if (v == 0 || v > ceil)
		v = req != 0 ? req : ceil;
	return v == UINT64_MAX ? 0 : v;
}

int
policy_disk_pages(uint64_t disk, uint64_t ceiling, uint64_t page, uint64_t *ret)
{
	uint64_t up;

	*ret = 0;
	if (page == 0)
		return -EINVAL;
	if (disk == 0)
		return 0;
	if (disk > UINT64_MAX - page)
		return -ERANGE;
	up = (disk + page - 1) / page * page;
	if (up <= ceiling) {
		*ret = up;
		return 0;
	}
	if (ceiling < page)
		return -ERANGE;
	*ret = ceiling / page * page;
	return 0;
}

int
policy_check_required(const struct policy_resolved *r, enum policy_net net, enum policy_fs fs,
		      char *errbuf, size_t errlen)
{
	bool bad_net = net < r->net_required, bad_fs = fs < r->fs_required;

	if (!bad_net && !bad_fs)
		return 0;
	if (errbuf && errlen) {
		char n[POLICY_SRC_MAX + 64] = "", f[POLICY_SRC_MAX + 64] = "";

		if (bad_net)
			(void) snprintf(n, sizeof(n), "--net %s or stricter (set by %s)",
					policy_net_name(r->net_required), r->net_required_src);
		if (bad_fs)
			(void) snprintf(f, sizeof(f), "--fs %s or stricter (set by %s)",
					policy_fs_name(r->fs_required), r->fs_required_src);
		(void) snprintf(errbuf, errlen, "the policy requires %s%s%s for you", n,
				bad_net && bad_fs ? " and " : "", f);
	}
	return -EPERM;
}

/* The settings of the section named in src: its last "[...]" ("[defaults] (capped by
 * [group:x])" is the group's value). */
static const struct settings *
settings_named(const struct policy *p, const char *src)
{
	const char *open = src != NULL ? strrchr(src, '[') : NULL, *close;
	char name[POLICY_NAME_MAX + 1];
	size_t len;

	if (open == NULL || (close = strchr(open, ']')) == NULL)
		return NULL;
	open++;
	len = (size_t) (close - open);
	if (len == 6 && strneq(open, "limits", 6))
		return &p->limits;
	if (len == 8 && strneq(open, "defaults", 8))
		return &p->defaults;
	for (int user = 0; user < 2; user++) {
		size_t off = user ? 5 : 6;
		const struct entry *v = user ? p->users : p->groups;
		size_t n = user ? p->n_users : p->n_groups;

		if (len <= off || len - off > POLICY_NAME_MAX ||
		    !strneq(open, user ? "user:" : "group:", off))
			continue;
		memcpy(name, open + off, len - off);
		name[len - off] = '\0';
		for (size_t i = 0; i < n; i++)
			if (streq(v[i].name, name))
				return &v[i].s;
	}
	return NULL;
}

const char *
policy_value_text(const struct policy *p, const char *src, const char *key)
{
	const struct settings *st = settings_named(p, src);

	for (unsigned k = 0; st != NULL && k < _K_MAX; k++)
		if (streq(key, key_names[k]))
			return st->text_at[k] != 0 ? p->texts + st->text_at[k] - 1 : NULL;
	return NULL;
}

void
policy_for_each_name(const struct policy *p,
		     void (*cb)(bool user, const char *name, unsigned line, const char *where,
				void *userdata),
		     void *userdata)
{
	char where[POLICY_NAME_MAX + 16];

	for (size_t i = 0; i < p->n_allow_users; i++)
		cb(true, p->allow_users[i], p->allow_users_line, "allow_users", userdata);
	for (size_t i = 0; i < p->n_allow_groups; i++)
		cb(false, p->allow_groups[i], p->allow_groups_line, "allow_groups", userdata);
	for (size_t i = 0; i < p->n_users; i++) {
		(void) snprintf(where, sizeof(where), "[user:%s]", p->users[i].name);
		cb(true, p->users[i].name, p->users[i].line, where, userdata);
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		(void) snprintf(where, sizeof(where), "[group:%s]", p->groups[i].name);
		cb(false, p->groups[i].name, p->groups[i].line, where, userdata);
	}
}

/* ---- policy check's warnings: values that load but cannot mean what was written ---- */

struct lint {
	const struct policy *p;
	const char *filename;
	void (*cb)(const char *msg, void *userdata);
	void *userdata;
	int n;
};

static void lint_say(struct lint *L, unsigned line, const char *fmt, ...)
	_printf_(3, 4);
static void
lint_say(struct lint *L, unsigned line, const char *fmt, ...)
{
	char msg[POLICY_ERR_MAX + 128], buf[sizeof(msg) + POLICY_PATH_MAX + 32];
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void) snprintf(buf, sizeof(buf), "%s:%u: warning: %s", L->filename, line, msg);
	L->n++;
	if (L->cb != NULL)
		L->cb(buf, L->userdata);
}

/* The value of key k of st as written, else formatted. */
static const char *
lint_value(const struct lint *L, const struct settings *st, enum key k, enum policy_limit as,
	   uint64_t v, char *buf, size_t bufsz)
{
	if (st->text_at[k] != 0)
		return L->p->texts + st->text_at[k] - 1;
	policy_format_value(as, v, buf, bufsz);
	return buf;
}

/* A [defaults] value above the [limits] ceiling: every run that does not ask gets the
 * ceiling instead, which is not what the line says. */
static void
lint_defaults(struct lint *L)
{
	const struct settings *d = &L->p->defaults, *lim = &L->p->limits;
	char a[32], b[32];

	for (int l = 0; l < _POLICY_LIMIT_MAX; l++) {
		const char *cv;

		if (!(d->set & KM(l)) || !(lim->set & KM(l)) || d->v[l] <= lim->v[l])
			continue;
		cv = lint_value(L, lim, (enum key) l, l, lim->v[l], b, sizeof(b));
		lint_say(L, d->line[l], "[defaults] %s = %s is above its ceiling %s = %s in "
			 "[limits] (line %u): a run that does not ask gets the ceiling; lower the "
			 "default to at most %s or raise the ceiling", limit_names[l],
			 lint_value(L, d, (enum key) l, l, d->v[l], a, sizeof(a)), limit_names[l],
			 cv, lim->line[l], cv);
	}
}

/* A total below the per-sandbox ceiling of the same section (or of [limits]): one
 * sandbox could never reach its own ceiling. */
static void
lint_total(struct lint *L, const struct settings *st, const char *sec)
{
	static const enum policy_limit per[3] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS };
	char a[32], b[32];

	for (int t = 0; t < 3; t++) {
		enum key tk = (enum key) (K_TOTAL_MEMORY + t);
		const struct settings *cs = st->set & KM(per[t]) ? st : &L->p->limits;
		const char *csec = cs == st ? sec : "[limits]", *cv;

		if (!(st->set & KM(tk)) || !(cs->set & KM(per[t])) || st->total[t] >= cs->v[per[t]])
			continue;
		cv = lint_value(L, cs, (enum key) per[t], per[t], cs->v[per[t]], b, sizeof(b));
		lint_say(L, st->line[tk], "%s %s = %s is below the per-sandbox ceiling %s = %s in "
			 "%s (line %u): no sandbox can reach that ceiling; raise %s to at least %s "
			 "or lower %s", sec, key_names[tk],
			 lint_value(L, st, tk, per[t], st->total[t], a, sizeof(a)),
			 limit_names[per[t]], cv, csec, cs->line[per[t]], key_names[tk], cv,
			 limit_names[per[t]]);
	}
}

/* A [defaults] disk larger than every memory ceiling: the workspace is tmpfs, charged to
 * memory, so every run that does not ask for a disk is warned about it. */
static void
lint_disk(struct lint *L)
{
	const struct policy *p = L->p;
	const struct settings *d = &p->defaults, *big = &p->limits;
	const char *bigsec = "[limits]", *mv;
	char a[32], b[32], sec[POLICY_NAME_MAX + 16];

	if (!(d->set & KM(K_DISK)) || !(p->limits.set & KM(K_MEMORY)))
		return;         /* some user has no memory ceiling */
	for (int user = 0; user < 2; user++) {
		const struct entry *v = user ? p->users : p->groups;
		size_t n = user ? p->n_users : p->n_groups;

		for (size_t i = 0; i < n; i++) {
			const struct settings *st = &v[i].s;

			if (!(st->set & KM(K_MEMORY)) ||
			    st->v[POLICY_MEMORY] <= big->v[POLICY_MEMORY])
				continue;
			big = st;
			(void) snprintf(sec, sizeof(sec), "[%s:%s]", user ? "user" : "group",
					v[i].name);
			bigsec = sec;
		}
	}
	if (d->v[POLICY_DISK] <= big->v[POLICY_MEMORY])
		return;
	mv = lint_value(L, big, K_MEMORY, POLICY_MEMORY, big->v[POLICY_MEMORY], b, sizeof(b));
	lint_say(L, d->line[K_DISK], "[defaults] disk = %s is larger than every memory ceiling "
		 "(the largest: %s in %s, line %u): the workspace is tmpfs, charged to the "
		 "sandbox's memory, so every run that does not ask warns; lower the default disk "
		 "to at most %s", lint_value(L, d, K_DISK, POLICY_DISK, d->v[POLICY_DISK], a,
					     sizeof(a)), mv, bigsec, big->line[K_MEMORY], mv);
}

int
policy_lint(const struct policy *p, const char *filename,
	    void (*cb)(const char *msg, void *userdata), void *userdata)
{
	struct lint L = { .p = p, .filename = filename ? filename : "(policy)", .cb = cb,
			  .userdata = userdata };
	char sec[POLICY_NAME_MAX + 16];

	lint_defaults(&L);
	lint_total(&L, &p->limits, "[limits]");
	for (size_t i = 0; i < p->n_groups; i++) {
		(void) snprintf(sec, sizeof(sec), "[group:%s]", p->groups[i].name);
		lint_total(&L, &p->groups[i].s, sec);
	}
	for (size_t i = 0; i < p->n_users; i++) {
		(void) snprintf(sec, sizeof(sec), "[user:%s]", p->users[i].name);
		lint_total(&L, &p->users[i].s, sec);
	}
	lint_disk(&L);
	return L.n;
}
