/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "env.h"
#include "fd-util.h"
#include "macro.h"
#include "parse-util.h"
#include "profile.h"

#ifndef SC_PROFILES_DIR
#define SC_PROFILES_DIR "/etc/sandcap/profiles.d"
#endif
#define PROFILE_FILE_MAX  (64 * 1024)
#define PROFILE_NAME_MAX  48            /* below inih's silent 49-byte section cut */
#define PROFILE_LINE_MAX  199           /* inih's INI_MAX_LINE is 200 with the NUL */

enum ptype { P_SIZE, P_DURATION, P_PERCENT, P_COUNT, P_NET, P_FS, P_PATHS, P_BOOL, P_ENV, P_GLOBS,
	     P_DIR };

static const struct pkey {
	const char *name;       /* the `sandcap run` long option */
	const char *alias;      /* with underscores, or NULL */
	enum ptype type;
} pkeys[] = {
	{ "memory", NULL, P_SIZE },       { "cpu", NULL, P_PERCENT },
	{ "pids", NULL, P_COUNT },        { "disk", NULL, P_SIZE },
	{ "timeout", NULL, P_DURATION },  { "grace", NULL, P_DURATION },
	{ "cpu-time", "cpu_time", P_DURATION },
	{ "as", NULL, P_SIZE },           { "fsize", NULL, P_SIZE },
	{ "nofile", NULL, P_COUNT },      { "stack", NULL, P_SIZE },
	{ "core", NULL, P_SIZE },         { "nproc", NULL, P_COUNT },
	{ "net", NULL, P_NET },           { "fs", NULL, P_FS },
	{ "rw", NULL, P_PATHS },          { "ro", NULL, P_PATHS },
	{ "fallback", NULL, P_BOOL },     { "no-cgroup", "no_cgroup", P_BOOL },
	{ "keep-fds", "keep_fds", P_BOOL },
	{ "env", NULL, P_ENV },           { "env-clear", "env_clear", P_BOOL },
	{ "env-deny", "env_deny", P_GLOBS },
	{ "chdir", NULL, P_DIR },
};

struct pctx {
	const char *filename;
	const char *want;               /* profile to collect, or NULL */
	struct profile *out;            /* collects want's words */
	void (*cb)(const char *section, unsigned line, void *userdata);
	void *userdata;
	/* reader state */
	const char *pos;
	unsigned line;
	/* sections seen: names and header lines */
	char sections[64][PROFILE_NAME_MAX + 1];
	size_t nsections;
	char cur[PROFILE_NAME_MAX + 1];
	uint32_t seen;                  /* keys seen in cur */
	bool found;
	char *err;
	size_t errlen;
	int error;
};

static int
perr(struct pctx *c, const char *fmt, ...) _printf_(2, 3);

static int
perr(struct pctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->error != 0)
		return 0;
	c->error = -EINVAL;
	n = snprintf(c->err, c->errlen, "%s:%u: ", c->filename, c->line);
	if (n < 0 || (size_t) n >= c->errlen)
		return 0;
	va_start(ap, fmt);
	(void) vsnprintf(c->err + n, c->errlen - (size_t) n, fmt, ap);
	va_end(ap);
	return 0;
}

static bool
name_ok(const char *s, size_t len)
{
	if (len == 0 || len > PROFILE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '-' || ch == '_' || ch == '.'))
			return false;
	}
	return true;
}

/* inih reader: one line per call, counting lines and checking what inih would get wrong
 * silently (over-long lines, section names it would truncate, repeated sections). */
static char *
preader(char *str, int num, void *stream)
{
	struct pctx *c = stream;
	const char *nl, *s;
	size_t len;

	if (c->error != 0 || *c->pos == '\0')
		return NULL;
	nl = strchr(c->pos, '\n');
	len = nl != NULL ? (size_t) (nl - c->pos) : strlen(c->pos);
	c->line++;
	if (len > PROFILE_LINE_MAX || len + 2 > (size_t) num) {
		perr(c, "line is longer than %d bytes", PROFILE_LINE_MAX);
		return NULL;
	}
	memcpy(str, c->pos, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	c->pos += len + (nl != NULL ? 1 : 0);

	for (s = str; *s == ' ' || *s == '\t'; s++)
		;
	if (s != str && *s != '\n' && *s != ';' && *s != '#' && *s != '\r') {
		perr(c, "indented line: continuation lines are not allowed");
		return NULL;
	}
	if (*s == '[') {
		const char *end = strchr(s, ']');

		if (end == NULL) {
			perr(c, "section header without ']'");
			return NULL;
		}
		if (!name_ok(s + 1, (size_t) (end - s - 1))) {
			perr(c, "bad profile name '%.*s': use 1-%d of A-Z a-z 0-9 . _ -",
			     (int) (end - s - 1 > 64 ? 64 : end - s - 1), s + 1, PROFILE_NAME_MAX);
			return NULL;
		}
		for (size_t i = 0; i < c->nsections; i++)
			if (strlen(c->sections[i]) == (size_t) (end - s - 1) &&
			    strneq(c->sections[i], s + 1, (size_t) (end - s - 1))) {
				perr(c, "profile [%s] is defined twice in this file", c->sections[i]);
				return NULL;
			}
		if (c->nsections >= ELEMENTSOF(c->sections)) {
			perr(c, "too many profiles in one file (at most %zu)", ELEMENTSOF(c->sections));
			return NULL;
		}
		memcpy(c->sections[c->nsections], s + 1, (size_t) (end - s - 1));
		c->sections[c->nsections][end - s - 1] = '\0';
		if (c->cb != NULL)
			c->cb(c->sections[c->nsections], c->line, c->userdata);
		c->nsections++;
	}
	return str;
}

static int
add_word(struct pctx *c, const char *w)
{
	struct profile *p = c->out;

	if (p->nwords >= PROFILE_WORDS_MAX)
		return perr(c, "profile [%s] has too many settings", c->want);
	p->words[p->nwords] = strdup(w);
	if (p->words[p->nwords] == NULL) {
		c->error = -ENOMEM;
		return 0;
	}
	p->nwords++;
	return 1;
}

static int
check_value(struct pctx *c, const struct pkey *k, const char *v, bool *ret_on)
{
	uint64_t u;
	int r = 0;

	*ret_on = true;
	switch (k->type) {
	case P_SIZE:
		r = parse_size(v, &u);
		if (r < 0)
			return perr(c, "%s = '%s': expected %s", k->name, v, parse_size_forms);
		break;
	case P_DURATION:
		r = parse_duration_ms(v, &u);
		if (r < 0)
			return perr(c, "%s = '%s': expected %s", k->name, v, parse_duration_forms);
		break;
	case P_PERCENT:
		r = parse_percent(v, &u);
		if (r < 0 || u == 0)
			return perr(c, "%s = '%s': expected %s", k->name, v, parse_percent_forms);
		break;
	case P_COUNT:
		r = parse_u64_range(v, 1, UINT32_MAX, &u);
		if (r < 0)
			return perr(c, "%s = '%s': expected a whole number from 1 to %u", k->name, v,
				    UINT32_MAX);
		break;
	case P_NET:
		if (!streq(v, "host") && !streq(v, "none"))
			return perr(c, "net = '%s': expected host, proxy, loopback or none", v);
		break;
	case P_FS:
		if (!streq(v, "none") && !streq(v, "ro") && !streq(v, "strict"))
			return perr(c, "fs = '%s': expected none, ro or strict", v);
		break;
	case P_PATHS:
		if (v[0] != '/')
			return perr(c, "%s = '%s': expected absolute paths separated by spaces",
				    k->name, v);
		break;
	case P_ENV:
	case P_GLOBS:
		break;          /* each word is checked as it is split (phandler) */
	case P_DIR:
		if (v[0] != '/' && !streq(v, "@workspace"))
			return perr(c, "chdir = '%s': expected an absolute path or @workspace", v);
		break;
	case P_BOOL:
		if (streq(v, "yes") || streq(v, "true") || streq(v, "1"))
			*ret_on = true;
		else if (streq(v, "no") || streq(v, "false") || streq(v, "0"))
			*ret_on = false;
		else
			return perr(c, "%s = '%s': expected yes or no", k->name, v);
		break;
	}
	return 1;
}

static int
phandler(void *user, const char *section, const char *name, const char *value)
{
	struct pctx *c = user;
	const struct pkey *k = NULL;
	size_t idx = 0;
	bool on;

	if (c->error != 0)
		return 0;
	if (section[0] == '\0')
		return perr(c, "'%s' outside a [profile] section", name);
	if (!streq(section, c->cur)) {
		strlcpy(c->cur, section, sizeof(c->cur));
		c->seen = 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(pkeys); i++)
		if (streq(name, pkeys[i].name) || (pkeys[i].alias != NULL && streq(name, pkeys[i].alias))) {
			k = &pkeys[i];
			idx = i;
		}
	if (k == NULL)
		return perr(c, "unknown key '%s' in [%s]; known keys: memory cpu pids disk timeout "
			    "grace cpu-time as fsize nofile stack core nproc net fs rw ro fallback keep-fds "
			    "no-cgroup env env-clear env-deny chdir", name, section);
	if (c->seen & (UINT32_C(1) << idx))
		return perr(c, "'%s' is set twice in [%s]", k->name, section);
	c->seen |= UINT32_C(1) << idx;
	if (value[0] == '\0')
		return perr(c, "'%s' has an empty value", k->name);
	if (check_value(c, k, value, &on) == 0)
		return 0;
	if (k->type == P_ENV || k->type == P_GLOBS) {
		/* Space-separated words, each an --env / --env-deny argument (so a value of
		 * --env NAME=VALUE cannot hold a space in a profile). */
		_cleanup_free_ char *copy = strdup(value);
		char *save = NULL, opt[16], err[256];
		bool want = c->want != NULL && streq(section, c->want);

		if (copy == NULL) {
			c->error = -ENOMEM;
			return 0;
		}
		snprintf(opt, sizeof(opt), "--%s", k->name);
		for (char *t = strtok_r(copy, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
			if ((k->type == P_ENV ? env_check_arg(t, err, sizeof(err)) :
			     env_check_glob(t, err, sizeof(err))) < 0)
				return perr(c, "%s: %s", k->name, err);
			if (want && (add_word(c, opt) == 0 || add_word(c, t) == 0))
				return 0;
		}
		c->found |= want;
		return 1;
	}
	if (c->want == NULL || !streq(section, c->want))
		return 1;
	c->found = true;
	if (k->type == P_BOOL) {
		char opt[32];

		if (!on)
			return 1;
		snprintf(opt, sizeof(opt), "--%s", k->name);
		return add_word(c, opt);
	}
	if (k->type == P_PATHS) {
		_cleanup_free_ char *copy = strdup(value);
		char *save = NULL, opt[8];

		if (copy == NULL) {
			c->error = -ENOMEM;
			return 0;
		}
		snprintf(opt, sizeof(opt), "--%s", k->name);
		for (char *t = strtok_r(copy, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
			if (t[0] != '/')
				return perr(c, "%s: '%s' is not an absolute path", k->name, t);
			if (add_word(c, opt) == 0 || add_word(c, t) == 0)
				return 0;
		}
		return 1;
	}
	{
		char opt[32];

		snprintf(opt, sizeof(opt), "--%s", k->name);
		if (add_word(c, opt) == 0)
			return 0;
		return add_word(c, value);
	}
}

static int
parse_into(struct pctx *c, const char *text)
{
	int r;

	/* clang 14 assumes a failed open()'s -errno can be 0, so profile_read_text() "succeeds"
	 * without setting text: a false positive. */
	if (text == NULL)
		return perr(c, "no text to parse"), c->error;
	if (strlen(text) > PROFILE_FILE_MAX) /* NOLINT(clang-analyzer-core.NonNullParamChecker) */
		return perr(c, "file is larger than %d bytes", PROFILE_FILE_MAX), c->error;
	c->pos = text;
	r = ini_parse_stream(preader, c, phandler, c);
	if (c->error != 0)
		return c->error;
	if (r != 0) {
		c->line = (unsigned) (r > 0 ? r : 0);
		perr(c, "syntax error (expected [name] or key = value)");
		return c->error;
	}
	return 0;
}

int
profile_parse_text(const char *text, const char *filename,
		   void (*cb)(const char *section, unsigned line, void *userdata), void *userdata,
		   char *err, size_t errlen)
{
	struct pctx c = { .filename = filename, .cb = cb, .userdata = userdata, .err = err,
			  .errlen = errlen };

	return parse_into(&c, text);
}

/* Read a whole profiles file; -ENOENT if absent.  NUL bytes are an error. */
int
profile_read_text(const char *path, char **ret, char *err, size_t errlen)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT :
		       (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	buf = malloc(PROFILE_FILE_MAX + 1);
	if (buf == NULL)
		return -ENOMEM;
	r = read_full_fd(fd, buf, PROFILE_FILE_MAX + 1, &len);
	if (r == -EFBIG) {
		snprintf(err, errlen, "%s: larger than %d bytes", path, PROFILE_FILE_MAX);
		return -EFBIG;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return -EIO;
	}
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		return -EINVAL;
	}
	*ret = TAKE_PTR(buf);
	return 0;
}

static void
user_file(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		snprintf(buf, len, "%s/sandcap/profiles.ini", xdg);
	else if (home != NULL && home[0] == '/')
		snprintf(buf, len, "%s/.config/sandcap/profiles.ini", home);
	else
		buf[0] = '\0';
}

const char *
profile_admin_dir(void)
{
	const char *d = getenv("SANDCAP_PROFILES_DIR");

	return d != NULL && d[0] == '/' ? d : SC_PROFILES_DIR;
}

static int
ini_filter(const struct dirent *de)
{
	size_t l = strlen(de->d_name);

	return de->d_name[0] != '.' && l > 4 && streq(de->d_name + l - 4, ".ini");
}

/* Calls fn for each candidate file in lookup order; stops when fn returns non-zero. */
int
profile_for_each_file(int (*fn)(const char *path, void *userdata), void *userdata)
{
	char path[PATH_MAX];
	struct dirent **list = NULL;
	int n, r = 0;

	user_file(path, sizeof(path));
	if (path[0] != '\0') {
		r = fn(path, userdata);
		if (r != 0)
			return r;
	}
	n = scandir(profile_admin_dir(), &list, ini_filter, alphasort);
	for (int i = 0; i < n; i++) {
		if (r == 0) {
			snprintf(path, sizeof(path), "%s/%s", profile_admin_dir(), list[i]->d_name);
			r = fn(path, userdata);
		}
		free(list[i]);
	}
	free(list);
	return r;
}

struct load_ctx {
	const char *name;
	struct profile *out;
	char *err;
	size_t errlen;
};

static void
note_header(const char *section, unsigned line, void *userdata)
{
	struct load_ctx *l = userdata;

	if (streq(section, l->name) && l->out->line == 0)
		l->out->line = line;
}

static int
load_one(const char *path, void *userdata)
{
	struct load_ctx *l = userdata;
	_cleanup_free_ char *text = NULL;
	struct pctx c = { .filename = path, .want = l->name, .out = l->out, .cb = note_header,
			  .userdata = l, .err = l->err, .errlen = l->errlen };
	int r;

	r = profile_read_text(path, &text, l->err, l->errlen);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = parse_into(&c, text);
	if (r < 0)
		return r;
	if (l->out->line == 0)
		return 0;
	strlcpy(l->out->file, path, sizeof(l->out->file));
	return 1;
}

void
profile_done(struct profile *p)
{
	for (size_t i = 0; i < p->nwords; i++)
		free(p->words[i]);
	p->nwords = 0;
}

int
profile_load(const char *name, struct profile *ret, char *err, size_t errlen)
{
	struct load_ctx l = { .name = name, .out = ret, .err = err, .errlen = errlen };
	char uf[PATH_MAX];
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!name_ok(name, strlen(name))) {
		snprintf(err, errlen, "bad profile name '%s': use 1-%d of A-Z a-z 0-9 . _ -", name,
			 PROFILE_NAME_MAX);
		return -EINVAL;
	}
	strlcpy(ret->name, name, sizeof(ret->name));
	r = profile_for_each_file(load_one, &l);
	if (r < 0) {
		profile_done(ret);
		return r;
	}
	if (r == 0) {
		profile_done(ret);
		user_file(uf, sizeof(uf));
		snprintf(err, errlen, "no profile named '%s' in %s or %s/*.ini (see sandcap profile list)",
			 name, uf[0] != '\0' ? uf : "~/.config/sandcap/profiles.ini", profile_admin_dir());
		return -ENOENT;
	}
	return 0;
}
