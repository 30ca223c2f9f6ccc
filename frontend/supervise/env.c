/* SPDX-License-Identifier: MIT */
/* The command's environment: --env-clear, --env, --env-deny; the one it is exec'd with (env.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervise/env.h"
#include "log.h"
#include "macro.h"

const char *const env_clear_keep[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_*", "TZ", "TMPDIR", NULL,
};

size_t
env_name_len(const char *entry)
{
	return strcspn(entry, "=");
}

static bool
name_char(char c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

int
env_check_arg(const char *s, char *err, size_t errlen)
{
	size_t n = env_name_len(s);
	char esc[96];

	if (n == 0) {
		snprintf(err, errlen,
			 "--env: '%s': expected NAME or NAME=VALUE with a non-empty "
			 "NAME",
			 log_escape(s, esc, sizeof(esc)));
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i], i == 0)) {
			snprintf(err, errlen,
				 "--env: invalid variable name in '%s': expected "
				 "letters, digits and _, not starting with a digit",
				 log_escape(s, esc, sizeof(esc)));
			return -EINVAL;
		}
	return 0;
}

int
env_check_glob(const char *s, char *err, size_t errlen)
{
	char esc[96];

	if (s[0] == '\0' || strchr(s, '=') != NULL) {
		snprintf(err, errlen,
			 "--env-deny: invalid pattern '%s': expected a glob of "
			 "variable names, e.g. '*TOKEN*' (no '=')",
			 log_escape(s, esc, sizeof(esc)));
		return -EINVAL;
	}
	return 0;
}

int
env_add(struct env_opts *o, const char *arg, char *err, size_t errlen)
{
	int r = env_check_arg(arg, err, errlen);

	if (r < 0)
		return r;
	if (o->n_env >= ENV_RULES_MAX) {
		snprintf(err, errlen, "--env: too many (at most %d)", ENV_RULES_MAX);
		return -E2BIG;
	}
	o->env[o->n_env++] = arg;
	return 0;
}

int
env_add_deny(struct env_opts *o, const char *glob, char *err, size_t errlen)
{
	int r = env_check_glob(glob, err, errlen);

	if (r < 0)
		return r;
	if (o->n_deny >= ENV_RULES_MAX) {
		snprintf(err, errlen, "--env-deny: too many (at most %d)", ENV_RULES_MAX);
		return -E2BIG;
	}
	o->deny[o->n_deny++] = glob;
	return 0;
}

bool
env_active(const struct env_opts *o)
{
	return o->clear || o->n_env > 0 || o->n_deny > 0;
}

/* fnmatch() needs the name NUL-terminated; names longer than this never match a rule. */
#define NAME_MAX_LEN 256

static bool
name_matches(const char *glob, const char *entry)
{
	char name[NAME_MAX_LEN + 1];
	size_t n = env_name_len(entry);

	if (n > NAME_MAX_LEN)
		return false;
	memcpy(name, entry, n);
	name[n] = '\0';
	return fnmatch(glob, name, 0) == 0;
}

static bool
same_name(const char *a, const char *b)
{
	size_t n = env_name_len(a);

	return n == env_name_len(b) && strncmp(a, b, n) == 0;
}

/* Index of the variable named like entry in v[0..n), or -1. */
static ssize_t
find(char **v, size_t n, const char *entry)
{
	for (size_t i = 0; i < n; i++)
		if (same_name(v[i], entry))
			return (ssize_t) i;
	return -1;
}

static bool
kept_by_clear(const char *entry)
{
	for (size_t i = 0; env_clear_keep[i] != NULL; i++)
		if (name_matches(env_clear_keep[i], entry))
			return true;
	return false;
}

static bool
denied(const struct env_opts *o, const char *entry)
{
	for (size_t i = 0; i < o->n_deny; i++)
		if (name_matches(o->deny[i], entry))
			return true;
	return false;
}

/* entry is "NAME=..." for this name (as getenv() and setenv() match). */
static bool
is_named(const char *entry, const char *name)
{
	return same_name(entry, name) && entry[env_name_len(entry)] == '=';
}

/* The caller's entry for a bare --env NAME, or NULL. */
static char *
lookup(char *const *base, const char *name)
{
	for (char *const *e = base; e != NULL && *e != NULL; e++)
		if (is_named(*e, name))
			return *e;
	return NULL;
}

int
env_build(const struct env_opts *o, char *const *base, char ***ret)
{
	size_t nbase = 0, n = 0;
	char **v;

	for (char *const *e = base; e != NULL && *e != NULL; e++)
		nbase++;
	v = calloc(nbase + o->n_env + 1, sizeof(char *));
	if (v == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < nbase; i++) {
		char *e = base[i];

		if (strchr(e, '=') == NULL || find(v, n, e) >= 0)
			continue; /* malformed, or a later duplicate: getenv() sees the first */
		if (o->clear && !kept_by_clear(e))
			continue;
		if (denied(o, e))
			continue;
		v[n++] = e;
	}
	for (size_t i = 0; i < o->n_env; i++) {
		const char *a = o->env[i];
		char *e = strchr(a, '=') != NULL ? (char *) a : lookup(base, a);
		ssize_t at;

		if (e == NULL)
			continue; /* --env NAME that the caller has not set */
		at = find(v, n, e);
		if (at >= 0)
			v[at] = e;
		else
			v[n++] = e;
	}
	v[n] = NULL;
	*ret = v;
	return (int) n;
}

int
env_put(char ***v, char *entry)
{
	size_t n = 0;
	ssize_t at;
	char **nv;

	while ((*v)[n] != NULL)
		n++;
	at = find(*v, n, entry);
	if (at >= 0) {
		(*v)[at] = entry;
		return 0;
	}
	nv = realloc(*v, (n + 2) * sizeof(char *));
	if (nv == NULL)
		return -ENOMEM;
	nv[n] = entry;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

const char *
env_value(char *const *v, const char *name)
{
	char *e = lookup(v, name);

	return e != NULL ? e + env_name_len(e) + 1 : NULL;
}

/* Index of the first "NAME=..." in base[0..n), or -1. */
static ssize_t
first_named(char *const *base, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (is_named(base[i], name))
			return (ssize_t) i;
	return -1;
}

int
env_for_exec(char *const *base, const char *pwd, const char *tmpdir, char ***ret)
{
	size_t n = 0, at, extra = 0;
	ssize_t ipwd = -1, itmp = -1;
	char **v, *p;

	*ret = NULL;
	while (base[n] != NULL)
		n++;
	if (pwd != NULL)
		ipwd = first_named(base, n, "PWD");
	if (ipwd < 0)
		pwd = NULL; /* PWD is only corrected, never added */
	if (tmpdir != NULL)
		itmp = first_named(base, n, "TMPDIR");
	if (pwd == NULL && tmpdir == NULL)
		return 0;
	if (pwd != NULL)
		extra += sizeof("PWD=") + strlen(pwd);
	if (tmpdir != NULL)
		extra += sizeof("TMPDIR=") + strlen(tmpdir);
	if (n > (SIZE_MAX - extra) / sizeof(char *) - 2)
		return -ENOMEM;
	/* n entries, one appended at most, the NULL; then the new strings. */
	v = malloc((n + 2) * sizeof(char *) + extra);
	if (v == NULL)
		return -ENOMEM;
	memcpy(v, base, n * sizeof(char *));
	at = n;
	p = (char *) (v + n + 2);
	if (pwd != NULL) {
		v[ipwd] = p;
		p = stpcpy(stpcpy(p, "PWD="), pwd) + 1;
	}
	if (tmpdir != NULL) {
		if (itmp >= 0)
			v[itmp] = p;
		else
			v[at++] = p;
		(void) stpcpy(stpcpy(p, "TMPDIR="), tmpdir);
	}
	v[at] = NULL;
	*ret = v;
	return 0;
}
