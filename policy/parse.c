/* SPDX-License-Identifier: MIT */
/*
 * The admin's policy, text -> struct policy.  Pure: no privilege, no I/O.
 *
 * The strict INI reader (ini-strict.h) splits and checks the lines, whatever libinih's
 * build options; here each section header and each key is checked and its value staged.
 * Every error is collected with its line, for `sandcap policy check`.  Results are staged
 * in a fresh object and handed out only when the whole file is valid.  See sandbox.ini(5)
 * for the format.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ini-strict.h"
#include "macro.h"
#include "parse-util.h"
#include "parse-impl.h"
#include "policy-impl.h"

#define ERRORS_MAX 200 /* then "too many errors" */

/* Which keys each kind of section accepts. */
static const unsigned section_keys[] = {
	[SEC_NONE] = 0,
	[SEC_SANDCAP] =
		KM(K_CGROUP_ROOT) | KM(K_WORKSPACE_ROOT) | KM(K_ALLOW_GROUPS) | KM(K_ALLOW_USERS),
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

void
pctx_error(struct parse_ctx *c, unsigned line, const char *fmt, ...)
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
const char *
pctx_esc(const char *s, size_t len, char *buf, size_t bufsz)
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

bool
pctx_is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* User and group names: [A-Za-z0-9_][A-Za-z0-9_.-]* with an optional final '$' (Samba
 * machine accounts), 1..POLICY_NAME_MAX bytes.  Checked so that a section header can only
 * name something NSS could return, and a name can never be cut by the INI library. */
int
pctx_name_check(const char *s, size_t len)
{
	if (len == 0)
		return -EINVAL;
	if (len > POLICY_NAME_MAX)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_' ||
			  (i > 0 && (ch == '.' || ch == '-')) ||
			  (i > 0 && i == len - 1 && ch == '$');

		if (!ok)
			return -EINVAL;
	}
	return 0;
}

bool
policy_name_ok(const char *name)
{
	return pctx_name_check(name, strlen(name)) == 0;
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
		pctx_error(c, lineno, "section [%s:%s] already appeared at line %u; merge the two",
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

/* A section header's inside ("group:builders"); problems are reported at lineno. */
static int
parse_header(struct parse_ctx *c, const char *s, size_t len, unsigned lineno,
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

		r = pctx_name_check(s + off, len - off);
		if (r == -ENAMETOOLONG) {
			pctx_error(c, lineno,
				   "%s name in [%.*s...] is %zu bytes long; the limit is %d",
				   user ? "user" : "group", (int) off + 8, s, len - off,
				   POLICY_NAME_MAX);
			return r;
		}
		if (r < 0) {
			pctx_error(c, lineno,
				   "invalid %s name '%s' in section header: use letters, "
				   "digits, '_', '.' and '-'",
				   user ? "user" : "group",
				   pctx_esc(s + off, len - off, (char[64]){}, 64));
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
		pctx_error(c, lineno,
			   "unknown section [%s]; known: [sandcap], [limits], [defaults], "
			   "[group:NAME], [user:NAME]",
			   pctx_esc(s, len, (char[64]){}, 64));
		return -ENOENT;
	}
	if (*seen != 0) {
		pctx_error(c, lineno, "section [%.*s] already appeared at line %u; merge the two",
			   (int) len, s, *seen);
		return -EEXIST;
	}
	*seen = lineno;
	*ret_kind = k;
	*ret_idx = 0;
	return 0;
}

/* The reader's section callback: a header, checked and staged. */
static int
on_section(void *userdata, unsigned lineno, const char *name)
{
	struct parse_ctx *c = userdata;
	enum section_kind k;
	struct section *v;
	size_t idx;
	int r;

	r = parse_header(c, name, strlen(name), lineno, &k, &idx);
	if (r < 0)
		return r == -ENOMEM || c->oom ? -ENOMEM : r;
	v = reallocarray(c->sections, c->n_sections + 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	c->sections = v;
	v[c->n_sections++] = (struct section){ .kind = k, .idx = idx };
	return 0;
}

static struct settings *
settings_of(struct parse_ctx *c, const struct section *sec)
{
	switch (sec->kind) {
	case SEC_LIMITS:
		return &c->p->limits;
	case SEC_DEFAULTS:
		return &c->p->defaults;
	case SEC_GROUP:
		return &c->p->groups[sec->idx].s;
	case SEC_USER:
		return &c->p->users[sec->idx].s;
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

/* Which key ik is, if its section takes it; _K_MAX after reporting why not. */
static enum key
key_of(struct parse_ctx *c, const struct ini_strict_key *ik)
{
	const char *name = ik->key;
	size_t len = strlen(name);
	bool ok = len <= 32;
	enum key k;

	for (size_t i = 0; i < len && ok; i++)
		ok = (name[i] >= 'a' && name[i] <= 'z') || name[i] == '_';
	if (!ok) {
		pctx_error(c, ik->line, "invalid key name '%s'",
			   pctx_esc(name, len, (char[64]){}, 64));
		return _K_MAX;
	}
	if (ik->section_idx >= c->n_sections) {
		pctx_error(c, ik->line, "key '%s' before any [section]", name);
		return _K_MAX;
	}
	for (k = 0; k < _K_MAX; k++)
		if (streq(name, policy_key_names[k]))
			break;
	if (k == _K_MAX || !(section_keys[c->sections[ik->section_idx].kind] & KM(k))) {
		pctx_error(c, ik->line, "unknown key '%s' in [%s]; known keys: %s", ESC(name),
			   ik->section, section_key_list[c->sections[ik->section_idx].kind]);
		return _K_MAX;
	}
	return k;
}

/* A key of [sandcap]: cgroup_root, workspace_root, allow_groups, allow_users. */
static int
parse_sandcap_key(struct parse_ctx *c, unsigned lineno, enum key k, const char *value)
{
	const char *name = policy_key_names[k];
	struct policy *p = c->p;
	int r;

	if (k == K_CGROUP_ROOT || k == K_WORKSPACE_ROOT) {
		r = pctx_path(value, k == K_CGROUP_ROOT ? p->cgroup_root : p->workspace_root);
		if (r == -ENAMETOOLONG)
			pctx_error(c, lineno, "%s: path is longer than %d bytes", name,
				   POLICY_PATH_MAX - 1);
		else if (r < 0)
			pctx_error(c, lineno,
				   "%s: '%s' is not a clean absolute path (no '.', '..', "
				   "'//', trailing '/', blanks, ';' or '#')",
				   name, ESC(value));
		return r;
	}
	if (k == K_ALLOW_GROUPS) {
		r = pctx_name_list(c, lineno, name, value, p->allow_groups, &p->n_allow_groups);
		p->allow_groups_set = r == 0 && p->n_allow_groups > 0;
		p->allow_groups_line = lineno;
		return r;
	}
	r = pctx_name_list(c, lineno, name, value, p->allow_users, &p->n_allow_users);
	p->allow_users_set = r == 0 && p->n_allow_users > 0;
	p->allow_users_line = lineno;
	return r;
}

/* The reader's key callback: one key, checked and staged. */
static int
on_key(void *userdata, const struct ini_strict_key *ik)
{
	struct parse_ctx *c = userdata;
	unsigned lineno = ik->line;
	struct settings *s;
	struct section *sec;
	enum key k = key_of(c, ik);

	if (k == _K_MAX)
		return c->oom ? -ENOMEM : -EINVAL;
	sec = &c->sections[ik->section_idx];
	/* Repeated keys: the second would silently win. */
	if (sec->key_line[k] != 0) {
		pctx_error(c, lineno, "repeated key '%s' in [%s] (first set at line %u)", ik->key,
			   ik->section, sec->key_line[k]);
		return -EINVAL;
	}
	sec->key_line[k] = lineno;
	if (sec->kind == SEC_SANDCAP)
		return parse_sandcap_key(c, lineno, k, ik->value) == -ENOMEM ? -ENOMEM : 0;
	s = settings_of(c, sec);
	if (s == NULL)
		return -EINVAL;
	if (ik->value[0] == '\0') {
		pctx_error(c, lineno, "%s: empty value; leave the key out instead", ik->key);
		return -EINVAL;
	}
	if (pctx_setting(c, lineno, k, ik->value, s) < 0)
		return -EINVAL;
	s->set |= KM(k);
	s->line[k] = lineno;
	return keep_text(c, ik->value, &s->text_at[k]);
}

/* The reader's own errors. */
static void
on_error(void *userdata, unsigned line, const char *msg)
{
	pctx_error(userdata, line, "%s", msg);
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
	free(c->sections);
	free(c->errors);
	free(c->seen_group);
	free(c->seen_user);
	c->p = policy_free(c->p);
}

static int
cmp_error(const void *a, const void *b)
{
	const struct error *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y; /* keep the order of discovery (stable) */
}

/* The staged result is in c->p, the errors in c->errors (sorted by line).  Returns
 * -ENOMEM/-EIO or the number of errors. */
static int
parse_all(struct parse_ctx *c, const char *text, size_t len, const char *filename)
{
	static const struct ini_strict_ops ops = {
		.section = on_section,
		.key = on_key,
		.error = on_error,
	};
	int r;

	c->filename = filename ? filename : "(policy)";
	c->p = policy_new();
	if (c->p == NULL)
		return -ENOMEM;
	if (text == NULL && len > 0)
		return -EINVAL;
	if (len > POLICY_FILE_MAX) {
		pctx_error(c, 0, "file is larger than %d bytes", POLICY_FILE_MAX);
		return c->oom ? -ENOMEM : 1;
	}
	r = ini_strict_parse(text, len, &ops, c);
	if (r < 0)
		return r;
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
