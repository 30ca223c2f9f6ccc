/* SPDX-License-Identifier: MIT */
/* The option-word iterator shared by the subcommands (opt.h). */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "macro.h"
#include "run/opt.h"
#include "parse-util.h"

void
opt_init(struct opt_iter *it, int argc, char *const *argv, int first, const struct opt_def *defs,
	 size_t n_defs, unsigned hide)
{
	*it = (struct opt_iter){
		.argc = argc, .argv = argv, .i = first, .defs = defs, .n_defs = n_defs, .hide = hide
	};
}

static const struct opt_def *
find_long(const struct opt_iter *it, const char *w, size_t len)
{
	for (size_t k = 0; k < it->n_defs; k++) {
		const struct opt_def *d = &it->defs[k];

		if (!(d->flags & it->hide) && strlen(d->name) == len && strneq(d->name, w, len))
			return d;
	}
	return NULL;
}

static const struct opt_def *
find_short(const struct opt_iter *it, char c)
{
	for (size_t k = 0; k < it->n_defs; k++)
		if (!(it->defs[k].flags & it->hide) && it->defs[k].short_name == c)
			return &it->defs[k];
	return NULL;
}

/* The value of it->def: the rest of its word (attached), else the next word. */
static int
take_value(struct opt_iter *it, const char *attached)
{
	if (attached != NULL && attached[0] != '\0') {
		it->value = attached;
		return it->def->id;
	}
	/* "--timeout -- cmd": the value was forgotten; "--" is no value of any option (a
	 * value of that spelling can still be attached: --rw=--). */
	if (it->i >= it->argc || streq(it->argv[it->i], "--"))
		return -ENODATA;
	it->value = it->argv[it->i++];
	return it->def->id;
}

static int
next_short(struct opt_iter *it)
{
	char c = *it->bundle++;

	it->word = it->bundle - 1;
	(void) snprintf(it->name, sizeof(it->name), "-%c", c);
	it->def = find_short(it, c);
	if (it->def == NULL)
		return -ENOENT;
	if (!it->def->has_value) {
		if (*it->bundle == '\0')
			it->bundle = NULL;
		return it->def->id;
	}
	/* "-s9": the rest of the bundle is the value; "-s 9": the next word. */
	{
		const char *rest = it->bundle;

		it->bundle = NULL;
		return take_value(it, rest);
	}
}

int
opt_next(struct opt_iter *it)
{
	const char *w, *eq;
	size_t len;

	it->def = NULL;
	it->value = NULL;
	it->word = NULL;
	it->name[0] = '\0';
	if (it->bundle != NULL)
		return next_short(it);
	if (it->i >= it->argc)
		return 0;
	w = it->argv[it->i];
	if (w[0] != '-' || w[1] == '\0') /* the first operand ("-" is one) */
		return 0;
	it->i++;
	if (streq(w, "--"))
		return 0;
	if (w[1] != '-') {
		it->bundle = w + 1;
		return next_short(it);
	}
	eq = strchr(w, '=');
	len = eq != NULL ? (size_t) (eq - w) : strlen(w);
	it->word = w;
	strlcpy(it->name, w, len < sizeof(it->name) ? len + 1 : sizeof(it->name)); /* cut */
	it->def = find_long(it, w, len);
	if (it->def == NULL)
		return -ENOENT;
	if (!it->def->has_value)
		return eq != NULL ? -EINVAL : it->def->id;
	if (eq != NULL) { /* "--name=" is an empty value, for the option to judge */
		it->value = eq + 1;
		return it->def->id;
	}
	return take_value(it, NULL);
}

/* The optimal string alignment distance between a and b (edits: insert, delete, replace,
 * swap two neighbours), or SIZE_MAX when either is longer than an option name can be. */
size_t
opt_edit_distance(const char *a, const char *b)
{
	enum { N = 40 };
	size_t la = strlen(a), lb = strlen(b), d[N + 1][N + 1];

	if (la > N || lb > N)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* The visible long option nearest to the word w ("--memroy": --memory), if it is near
 * enough to be a typo: at most two edits, and at most one per three letters of the name,
 * so that a short word is not "corrected" into an unrelated option. */
static const struct opt_def *
nearest_long(const struct opt_iter *it, const char *w)
{
	const struct opt_def *best = NULL;
	size_t best_d = SIZE_MAX, letters = strlen(w) - 2;

	for (size_t k = 0; k < it->n_defs; k++) {
		const struct opt_def *d = &it->defs[k];
		size_t dist;

		if (d->flags & it->hide)
			continue;
		dist = opt_edit_distance(w, d->name);
		if (dist < best_d) {
			best_d = dist;
			best = d;
		}
	}
	return best_d <= 2 && best_d * 3 <= letters ? best : NULL;
}

void
opt_error(const struct opt_iter *it, int r, char *buf, size_t bufsz)
{
	char esc[64];
	size_t len, n, matches = 0;

	log_escape(it->name, esc, sizeof(esc));
	switch (r) {
	case -ENODATA:
		snprintf(
			buf, bufsz, "%s needs a value%s", esc,
			it->i < it->argc && streq(it->argv[it->i], "--")
				? " (it is followed by '--', which ends the options: give the value "
				  "before it)"
				: "");
		return;
	case -EINVAL:
		snprintf(buf, bufsz, "%s takes no value (given '%s')", esc,
			 log_escape(it->word, (char[96]){}, 96));
		return;
	default:
		break;
	}
	n = (size_t) snprintf(buf, bufsz, "unknown option '%s'", esc);
	/* A word that starts an option's name is most likely an abbreviation: name them. */
	len = strlen(it->name);
	if (len < 3 || it->name[1] != '-' || len >= sizeof(it->name) - 1)
		return;
	for (size_t k = 0; k < it->n_defs; k++)
		if (!(it->defs[k].flags & it->hide) && strneq(it->defs[k].name, it->name, len))
			matches++;
	if (matches == 0) {
		const struct opt_def *d = nearest_long(it, it->name);

		if (d != NULL && n < bufsz)
			snprintf(buf + n, bufsz - n, " (did you mean %s?)", d->name);
		return;
	}
	for (size_t k = 0, m = 0; k < it->n_defs && m < matches && n < bufsz; k++) {
		const struct opt_def *d = &it->defs[k];

		if ((d->flags & it->hide) || !strneq(d->name, it->name, len))
			continue;
		m++;
		n += (size_t) snprintf(buf + n, bufsz - n, "%s%s%s",
				       m == 1 ? " (options are not abbreviated: did you mean "
				       : m == matches ? " or "
						      : ", ",
				       d->name, m == matches ? "?)" : "");
	}
}

const char opt_signal_forms[] =
	"a name (KILL, TERM, INT, HUP, QUIT, USR1, USR2, STOP, CONT; any case, SIG prefix "
	"optional) or a number from 0 to 64 (0 signals nothing)";

int
opt_parse_signal(const char *s, int *ret)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
		{ "KILL", SIGKILL }, { "TERM", SIGTERM }, { "INT", SIGINT },
		{ "HUP", SIGHUP },   { "QUIT", SIGQUIT }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "STOP", SIGSTOP }, { "CONT", SIGCONT },
	};
	bool prefixed = strncasecmp(s, "SIG", 3) == 0;
	uint64_t n;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
		if (strcasecmp(s + (prefixed ? 3 : 0), sigs[i].name) == 0) {
			*ret = sigs[i].sig;
			return 0;
		}
	if (prefixed) /* "SIG9" is neither a name nor a number */
		return -EINVAL;
	/* 0 as kill(1): signal nothing, only tell whether the sandbox runs. */
	r = parse_u64_range(s, 0, NSIG - 1, &n);
	if (r < 0)
		return r;
	*ret = (int) n;
	return 0;
}
