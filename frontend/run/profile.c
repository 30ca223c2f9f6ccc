/* SPDX-License-Identifier: MIT */
/* Named profiles of `sandcap run` options, read from INI files (profile.h): the parser and
 * profile_load(); finding and reading the files is profile-io.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/args.h"
#include "exit.h"
#include "fd-util.h"
#include "ini-strict.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "run/profile.h"

#define PROFILE_NAME_MAX 48 /* below inih's silent 49-byte section cut */

/* How a key's value becomes option words.  Every value is checked by run_args_apply(), the
 * code that checks the command line's, so a profile accepts what `sandcap run` accepts and no
 * more (paths must also be absolute here: a profile has no current directory of its own). */
enum ptype {
	P_VALUE, /* --KEY VALUE */
	P_BOOL,  /* yes: --KEY; no: nothing */
	P_WORDS, /* space-separated: --KEY WORD for each (env, env-deny, allow) */
	P_PATHS, /* the same, each an absolute path (rw, ro) */
	P_DIR,   /* --KEY VALUE, an absolute path or @workspace (chdir) */
};

static const struct pkey {
	const char *name;  /* the `sandcap run` long option */
	const char *alias; /* with underscores, or NULL */
	enum ptype type;
} pkeys[] = {
	{ "memory", NULL, P_VALUE },
	{ "cpu", NULL, P_VALUE },
	{ "pids", NULL, P_VALUE },
	{ "disk", NULL, P_VALUE },
	{ "timeout", NULL, P_VALUE },
	{ "grace", NULL, P_VALUE },
	{ "cpu-time", "cpu_time", P_VALUE },
	{ "as", NULL, P_VALUE },
	{ "fsize", NULL, P_VALUE },
	{ "nofile", NULL, P_VALUE },
	{ "stack", NULL, P_VALUE },
	{ "core", NULL, P_VALUE },
	{ "nproc", NULL, P_VALUE },
	{ "net", NULL, P_VALUE },
	{ "allow", NULL, P_WORDS },
	{ "unix", NULL, P_VALUE },
	{ "fs", NULL, P_VALUE },
	{ "rw", NULL, P_PATHS },
	{ "ro", NULL, P_PATHS },
	{ "fallback", NULL, P_BOOL },
	{ "no-cgroup", "no_cgroup", P_BOOL },
	{ "keep-fds", "keep_fds", P_BOOL },
	{ "env", NULL, P_WORDS },
	{ "env-clear", "env_clear", P_BOOL },
	{ "env-deny", "env_deny", P_WORDS },
	{ "chdir", NULL, P_DIR },
};

#define PROFILE_SECTIONS_MAX 64

struct pctx {
	const char *filename;
	const char *want;    /* profile to collect, or NULL */
	struct profile *out; /* collects want's words */
	void (*cb)(const char *section, unsigned line, void *userdata);
	void *userdata;
	unsigned line; /* of the line being read */
	/* sections seen: names and header lines, reported to cb only once the whole file parsed */
	char sections[PROFILE_SECTIONS_MAX][PROFILE_NAME_MAX + 1];
	unsigned section_line[PROFILE_SECTIONS_MAX];
	size_t nsections;
	char cur[PROFILE_NAME_MAX + 1];
	uint32_t seen;         /* keys seen in cur */
	struct run_opts *opts; /* cur's settings as `sandcap run` takes them (checks only) */
	unsigned net_line;     /* last net, allow or unix line in cur, or 0 */
	char *err;
	size_t errlen;
	int error;
	unsigned error_line; /* of the error in err: the first line with one */
};

static int perr(struct pctx *c, const char *fmt, ...) _printf_(2, 3);

static int
perr(struct pctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* The reader reads every line before the key callbacks see any: keep the error of the
	 * first line, as a reader of the file would meet them. */
	if (c->error != 0 && (c->error == -ENOMEM || c->error_line <= c->line))
		return 0;
	c->error = -EINVAL;
	c->error_line = c->line;
	n = snprintf(c->err, c->errlen, "%s:%u: ", c->filename, c->line);
	if (n < 0 || (size_t) n >= c->errlen)
		return 0;
	va_start(ap, fmt);
	(void) vsnprintf(c->err + n, c->errlen - (size_t) n, fmt, ap);
	va_end(ap);
	return 0;
}

/* run_args_apply()'s error, "--KEY: reason", as "KEY: reason" after FILE:LINE. */
static int
perr_run(struct pctx *c, const char *err)
{
	return perr(c, "%s", strneq(err, "--", 2) ? err + 2 : err);
}

static bool
name_ok(const char *s, size_t len)
{
	if (len == 0 || len > PROFILE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.'))
			return false;
	}
	return true;
}

/* The reader's section callback: a profile's [NAME], checked and recorded. */
static int
on_section(void *userdata, unsigned line, const char *name)
{
	struct pctx *c = userdata;
	size_t len = strlen(name);
	char esc[4 * 64 + 1];

	c->line = line;
	if (!name_ok(name, len)) {
		char shown[65];

		snprintf(shown, sizeof(shown), "%.*s", (int) (len > 64 ? 64 : len), name);
		return perr(c, "bad profile name '%s': use 1-%d of A-Z a-z 0-9 . _ -",
			    log_escape(shown, esc, sizeof(esc)), PROFILE_NAME_MAX),
		       -EINVAL;
	}
	for (size_t i = 0; i < c->nsections; i++)
		if (streq(c->sections[i], name))
			return perr(c, "profile [%s] is defined twice in this file", name), -EINVAL;
	if (c->nsections >= ELEMENTSOF(c->sections))
		return perr(c, "too many profiles in one file (at most %zu)",
			    ELEMENTSOF(c->sections)),
		       -EINVAL;
	memcpy(c->sections[c->nsections], name, len + 1);
	c->section_line[c->nsections] = line;
	c->nsections++;
	return 0;
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

/* The checks `sandcap run` makes between options once it has them all (--allow needs
 * --net proxy, ...), for the section that just ended; errors name its last net, allow or
 * unix line. */
static int
end_section(struct pctx *c)
{
	char err[256];
	unsigned line = c->line;

	/* An error the reader found on a later line does not stop the checks: one here is the
	 * first in the file. */
	if (c->error == -ENOMEM)
		return 0;
	if (c->cur[0] == '\0')
		return 1;
	if (run_args_check_net(c->opts, err, sizeof(err)) < 0) {
		c->line = c->net_line;
		perr_run(c, err);
		c->line = line;
		return 0;
	}
	return 1;
}

/* One word of a key's value, as --KEY WORD: checked by run_args_apply(), kept if wanted. */
static int
take_word(struct pctx *c, const struct pkey *k, const char *w, bool want)
{
	char err[512], opt[32], esc[128];

	if ((k->type == P_PATHS && w[0] != '/') ||
	    (k->type == P_DIR && w[0] != '/' && !streq(w, "@workspace")))
		return perr(c, "%s = '%s': expected %s", k->name, log_escape(w, esc, sizeof(esc)),
			    k->type == P_DIR ? "an absolute path or @workspace"
					     : "absolute paths separated by spaces");
	if (run_args_apply(c->opts, k->name, w, err, sizeof(err)) < 0)
		return perr_run(c, err);
	snprintf(opt, sizeof(opt), "--%s", k->name);
	if (want && (add_word(c, opt) == 0 || add_word(c, w) == 0))
		return 0;
	return 1;
}

/* A yes/no key: --KEY for yes, nothing for no. */
static int
take_bool(struct pctx *c, const struct pkey *k, const char *value, bool want)
{
	char err[256], opt[32], esc[128];

	if (streq(value, "no") || streq(value, "false") || streq(value, "0"))
		return 1;
	if (!streq(value, "yes") && !streq(value, "true") && !streq(value, "1"))
		return perr(c, "%s = '%s': expected yes or no", k->name,
			    log_escape(value, esc, sizeof(esc)));
	if (run_args_apply(c->opts, k->name, NULL, err, sizeof(err)) < 0)
		return perr_run(c, err);
	snprintf(opt, sizeof(opt), "--%s", k->name);
	return want ? add_word(c, opt) : 1;
}

/* Space-separated words, each one option's value (so an --env NAME=VALUE in a profile
 * cannot hold a space). */
static int
take_words(struct pctx *c, const struct pkey *k, const char *value, bool want)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;

	if (copy == NULL) {
		c->error = -ENOMEM;
		return 0;
	}
	for (char *t = strtok_r(copy, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save))
		if (take_word(c, k, t, want) == 0)
			return 0;
	return 1;
}

/* The key named name (or its alias), or NULL after saying which keys there are. */
static const struct pkey *
find_key(struct pctx *c, const char *section, const char *name)
{
	char known[512] = "", esc[128];

	for (size_t i = 0; i < ELEMENTSOF(pkeys); i++)
		if (streq(name, pkeys[i].name) ||
		    (pkeys[i].alias != NULL && streq(name, pkeys[i].alias)))
			return &pkeys[i];
	for (size_t i = 0; i < ELEMENTSOF(pkeys); i++) {
		strlcat(known, " ", sizeof(known));
		strlcat(known, pkeys[i].name, sizeof(known));
	}
	perr(c, "unknown key '%s' in [%s]; known keys:%s", log_escape(name, esc, sizeof(esc)),
	     section, known);
	return NULL;
}

/* One key of a profile: 1, or 0 once perr() said why. */
static int
phandler(struct pctx *c, const char *section, const char *name, const char *value)
{
	const struct pkey *k;
	uint32_t bit;
	bool want;
	char esc[128];

	if (section[0] == '\0')
		return perr(c, "'%s' outside a [profile] section",
			    log_escape(name, esc, sizeof(esc)));
	if (!streq(section, c->cur)) {
		if (end_section(c) == 0)
			return 0;
		strlcpy(c->cur, section, sizeof(c->cur));
		c->seen = 0;
		c->net_line = 0;
		run_args_reset(c->opts);
	}
	want = c->want != NULL && streq(section, c->want);
	k = find_key(c, section, name);
	if (k == NULL)
		return 0;
	bit = UINT32_C(1) << (k - pkeys);
	if (c->seen & bit)
		return perr(c, "'%s' is set twice in [%s]", k->name, section);
	c->seen |= bit;
	if (value[0] == '\0')
		return perr(c, "'%s' has an empty value", k->name);
	if (streq(k->name, "net") || streq(k->name, "allow") || streq(k->name, "unix"))
		c->net_line = c->line;

	switch (k->type) {
	case P_VALUE:
	case P_DIR:
		return take_word(c, k, value, want);
	case P_BOOL:
		return take_bool(c, k, value, want);
	case P_WORDS:
	case P_PATHS:
		return take_words(c, k, value, want);
	}
	return perr(c, "key '%s' has no handler", k->name); /* not reached */
}

/* The reader's key callback. */
static int
on_key(void *userdata, const struct ini_strict_key *k)
{
	struct pctx *c = userdata;

	if (c->error == -ENOMEM)
		return -ENOMEM;
	c->line = k->line;
	if (phandler(c, k->section, k->key, k->value) != 0)
		return 0;
	return c->error == -ENOMEM ? -ENOMEM : -EINVAL;
}

/* The reader's own errors. */
static void
on_error(void *userdata, unsigned line, const char *msg)
{
	struct pctx *c = userdata;

	c->line = line;
	perr(c, "%s", msg);
}

static int
parse_into(struct pctx *c, const char *text)
{
	static const struct ini_strict_ops ops = {
		.section = on_section,
		.key = on_key,
		.error = on_error,
		.stop_at_first = 1,
		.allow_controls = 1,
	};
	_cleanup_free_ struct run_opts *opts = NULL;
	int r;

	/* clang 14 assumes a failed open()'s -errno can be 0, so profile_read_text() "succeeds"
	 * without setting text: a false positive. */
	if (text == NULL)
		return perr(c, "no text to parse"), c->error;
	if (strlen(text) > PROFILE_FILE_MAX) /* NOLINT(clang-analyzer-core.NonNullParamChecker) */
		return perr(c, "file is larger than %d bytes", PROFILE_FILE_MAX), c->error;
	opts = malloc(sizeof(*opts));
	if (opts == NULL)
		return -ENOMEM;
	run_args_reset(opts);
	c->opts = opts;
	r = ini_strict_parse(text, strlen(text), &ops, c);
	if (r == 0 && c->error == 0)
		end_section(c);
	c->opts = NULL;
	if (c->error != 0)
		return c->error;
	if (r < 0) {
		c->line = 0;
		perr(c, "cannot be read: %s", strerror(-r));
		return r;
	}
	/* Only a file that parsed whole is reported: a section before a bad line is no more
	 * usable than one after it (profile_load() refuses the file). */
	for (size_t i = 0; c->cb != NULL && i < c->nsections; i++)
		c->cb(c->sections[i], c->section_line[i], c->userdata);
	return 0;
}

int
profile_parse_text(const char *text, const char *filename,
		   void (*cb)(const char *section, unsigned line, void *userdata), void *userdata,
		   char *err, size_t errlen)
{
	struct pctx c = {
		.filename = filename, .cb = cb, .userdata = userdata, .err = err, .errlen = errlen
	};

	return parse_into(&c, text);
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
	struct pctx c = { .filename = path,
			  .want = l->name,
			  .out = l->out,
			  .cb = note_header,
			  .userdata = l,
			  .err = l->err,
			  .errlen = l->errlen };
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
		char esc[128];

		snprintf(err, errlen, "bad profile name '%s': use 1-%d of A-Z a-z 0-9 . _ -",
			 log_escape(name, esc, sizeof(esc)), PROFILE_NAME_MAX);
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
		profile_user_file(uf, sizeof(uf));
		snprintf(err, errlen,
			 "no profile named '%s' in %s or %s/*.ini (see sandcap profile list)", name,
			 uf[0] != '\0' ? uf : "~/.config/sandcap/profiles.ini",
			 profile_admin_dir());
		return -ENOENT;
	}
	return 0;
}
