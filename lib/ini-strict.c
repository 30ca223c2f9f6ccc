/* SPDX-License-Identifier: MIT */
/* The strict INI reader: see ini-strict.h for what it refuses and why. */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini-strict.h"
#include "macro.h"

enum line_kind { LINE_SKIP, LINE_SECTION, LINE_KEY };

/* What pass 1 learned about one line. */
struct line {
	enum line_kind kind;
	char *canon;             /* SECTION: the NAME; KEY: "key\0value" */
	const char *key, *value; /* KEY: into canon */
	const char *section;     /* of the section the line is in: a header's canon, or "" */
	size_t sec_idx;
	bool handled; /* libinih reported it */
	bool refused; /* an error about it was given */
};

struct reader {
	const struct ini_strict_ops *ops;
	void *userdata;
	struct line *lines;
	size_t n_lines;
	size_t next;       /* the next line handed to libinih */
	size_t n_sections; /* accepted so far */
	unsigned stop;     /* with stop_at_first: the first line refused (else UINT_MAX) */
	bool overflow;
	bool oom;
};

static void say(struct reader *c, unsigned line, const char *fmt, ...) _printf_(3, 4);

static void
say(struct reader *c, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line >= 1 && line <= c->n_lines)
		c->lines[line - 1].refused = true;
	if (line < c->stop)
		c->ops->error(c->userdata, line, msg);
	if (c->ops->stop_at_first && line < c->stop)
		c->stop = line;
}

/* What libinih's isspace() trims around keys and values (only ' ' and '\t' reach here
 * unless ops->allow_controls). */
static bool
is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* Bytes no line may hold.  0, or -EINVAL after saying which. */
static int
check_bytes(struct reader *c, unsigned lineno, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);

	if (nul != NULL) {
		say(c, lineno, "NUL byte at column %zu", (size_t) (nul - s) + 1);
		return -EINVAL;
	}
	if (len > INI_STRICT_LINE_MAX) {
		say(c, lineno, "line is %zu bytes long; the limit is %d", len, INI_STRICT_LINE_MAX);
		return -EINVAL;
	}
	for (size_t j = 0; j < len && !c->ops->allow_controls; j++) {
		unsigned char ch = (unsigned char) s[j];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			say(c, lineno, "control character 0x%02x at column %zu", (unsigned) ch,
			    j + 1);
			return -EINVAL;
		}
	}
	return 0;
}

/* "[NAME]": offered to the section callback, and on acceptance the section of the lines
 * that follow (until the next header).  0, or < 0 when refused. */
static int
scan_header(struct reader *c, size_t li, const char *s, const char *e, const char **cur,
	    size_t *cur_idx)
{
	struct line *l = &c->lines[li];
	const char *close = memchr(s, ']', (size_t) (e - s));
	unsigned lineno = (unsigned) li + 1;
	int r;

	*cur = NULL; /* keys after a refused header are skipped */
	if (close == NULL || close != e - 1) {
		say(c, lineno, "malformed section header: expected [NAME] alone on the line");
		return -EINVAL;
	}
	l->canon = strndup(s + 1, (size_t) (close - s - 1));
	if (l->canon == NULL)
		return -ENOMEM;
	l->kind = LINE_SECTION;
	r = c->ops->section(c->userdata, lineno, l->canon);
	if (r < 0) {
		if (c->ops->stop_at_first && lineno < c->stop)
			c->stop = lineno;
		return r;
	}
	*cur = l->section = l->canon;
	*cur_idx = l->sec_idx = c->n_sections++;
	return 0;
}

/* "KEY = VALUE": kept in canonical form for pass 2.  0, or -EINVAL after saying why. */
static int
scan_key(struct reader *c, size_t li, const char *s, const char *e)
{
	struct line *l = &c->lines[li];
	const char *eq = memchr(s, '=', (size_t) (e - s));
	const char *colon = memchr(s, ':', (size_t) (e - s));
	unsigned lineno = (unsigned) li + 1;
	const char *ke, *vs;
	size_t kl, vl;

	if (eq == NULL || (colon != NULL && colon < eq)) {
		say(c, lineno, "syntax error: expected KEY = VALUE or [SECTION]%s",
		    colon != NULL ? " (the 'KEY: VALUE' form is not accepted)" : "");
		return -EINVAL;
	}
	for (ke = eq; ke > s && is_blank(ke[-1]); ke--)
		;
	for (vs = eq + 1; vs < e && is_blank(*vs); vs++)
		;
	if (ke == s) {
		say(c, lineno, "missing key name before '='");
		return -EINVAL;
	}
	kl = (size_t) (ke - s);
	vl = (size_t) (e - vs);
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
	return 0;
}

/* One line of pass 1.  -ENOMEM, or 0 (refusals are said, and leave the line LINE_SKIP). */
static int
scan_line(struct reader *c, size_t li, const char *text, size_t len, const char **cur,
	  size_t *cur_idx)
{
	struct line *l = &c->lines[li];
	const char *s = text, *e;
	int r;

	l->section = *cur;
	l->sec_idx = *cur_idx;
	if (len > 0 && text[len - 1] == '\r') /* CRLF files */
		len--;
	if (check_bytes(c, (unsigned) li + 1, text, len) < 0)
		return 0;
	e = text + len;
	while (s < e && is_blank(*s))
		s++;
	while (e > s && is_blank(e[-1]))
		e--;
	if (s == e || *s == ';' || *s == '#')
		return 0; /* blank or comment, indented or not */
	if (s != text) {
		/* libinih (multi-line builds) would append this line to the previous key's
		 * value, or take it as a new key in other builds: refuse both readings. */
		say(c, (unsigned) li + 1,
		    "indented line: continuation lines are not supported; "
		    "start sections and keys in the first column");
		return 0;
	}
	for (const char *q = s + 1; q < e; q++)
		if (*q == ';' && is_blank(q[-1])) { /* an inline comment, as libinih's */
			for (e = q; e > s && is_blank(e[-1]); e--)
				;
			break;
		}
	if (*s == '[')
		r = scan_header(c, li, s, e, cur, cur_idx);
	else if (*cur == NULL)
		return 0; /* under a header already refused */
	else
		r = scan_key(c, li, s, e);
	return r == -ENOMEM ? r : 0;
}

/* Pass 1.  -ENOMEM or 0. */
static int
scan(struct reader *c, const char *text, size_t len)
{
	const char *p, *end, *cur = "";
	size_t n = 0, cur_idx = (size_t) -1;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* editors add it */
		text += 3;
		len -= 3;
	}
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	if (len > 0 && text[len - 1] != '\n')
		n++;
	c->lines = calloc(n ? n : 1, sizeof(*c->lines));
	if (c->lines == NULL)
		return -ENOMEM;
	c->n_lines = n;
	p = text;
	end = text + len;
	for (size_t li = 0; li < n && li < c->stop; li++) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		size_t ll = nl ? (size_t) (nl - p) : (size_t) (end - p);

		if (scan_line(c, li, p, ll, &cur, &cur_idx) < 0)
			return -ENOMEM;
		p += ll + (nl ? 1 : 0);
	}
	return 0;
}

/* libinih's reader: one canonical line per call, so its line count stays ours.  Lines
 * pass 1 refused or skipped are handed out empty. */
static char *
reader(char *str, int num, void *stream)
{
	struct reader *c = stream;
	const struct line *l;
	int n;

	if (c->next >= c->n_lines || c->next + 1 >= c->stop || num < 2)
		return NULL;
	l = &c->lines[c->next];
	if (l->kind == LINE_KEY)
		n = snprintf(str, (size_t) num, "%s=%s\n", l->key, l->value);
	else if (l->kind == LINE_SECTION)
		n = snprintf(str, (size_t) num, "[%s]\n", l->canon);
	else
		n = snprintf(str, (size_t) num, "\n");
	if (n < 0 || n + 1 > num) {
		/* This libinih build has a shorter line buffer than ours: stop, fail closed. */
		c->overflow = true;
		return NULL;
	}
	c->next++;
	return str;
}

/* libinih's handler: nonzero = OK. */
static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct reader *c = user;
	struct line *l;
	unsigned lineno = (unsigned) c->next;
	int r;

	if (c->next == 0 || c->oom)
		return 0;
	l = &c->lines[c->next - 1];
	/* The library must report exactly what pass 1 saw on this line; anything else (a
	 * truncated name, a split line, a value with a comment left in) is refused. */
	if (l->kind != LINE_KEY || l->section == NULL || !streq(section, l->section) ||
	    !streq(name, l->key) || !streq(value, l->value)) {
		say(c, lineno, "the INI library did not read this line as written");
		return 0;
	}
	l->handled = true;
	r = c->ops->key(c->userdata, &(struct ini_strict_key){ .line = lineno,
							       .section = l->section,
							       .section_idx = l->sec_idx,
							       .key = l->key,
							       .value = l->value });
	if (r == -ENOMEM)
		c->oom = true;
	l->refused = r < 0;
	if (r < 0 && c->ops->stop_at_first && lineno < c->stop)
		c->stop = lineno;
	return r >= 0;
}

/* After pass 2: what the library did that pass 1 did not expect. */
static void
check_library(struct reader *c, int r)
{
	if (c->overflow)
		say(c, (unsigned) c->next + 1, "line too long for this build of libinih");
	for (size_t i = 0; i < c->n_lines && !c->overflow && i + 1 < c->stop; i++)
		if (c->lines[i].kind == LINE_KEY && !c->lines[i].handled)
			say(c, (unsigned) i + 1, "the INI library skipped this line");
	if (r <= 0 || (unsigned) r >= c->stop)
		return;
	/* A line refused is reported already; any other error is the library's own. */
	if (!c->lines[r - 1].refused)
		say(c, (unsigned) r, "syntax error");
}

int
ini_strict_parse(const char *text, size_t len, const struct ini_strict_ops *ops, void *userdata)
{
	struct reader c = { .ops = ops, .userdata = userdata, .stop = UINT_MAX };
	int r;

	if (text == NULL && len > 0)
		return -EINVAL;
	r = scan(&c, text != NULL ? text : "", len);
	if (r == 0) {
		r = ini_parse_stream(reader, &c, handler, &c);
		if (c.oom || r == -2)
			r = -ENOMEM;
		else if (r < 0)
			r = -EIO;
		else {
			check_library(&c, r);
			r = 0;
		}
	}
	for (size_t i = 0; i < c.n_lines; i++)
		free(c.lines[i].canon);
	free(c.lines);
	return r;
}
