/* SPDX-License-Identifier: MIT */
/* The policy as `sandcap policy check` and `policy show` describe it: the values as
 * written, the names it uses, and the warnings for values that load but cannot mean what
 * was written.  Front-end only: the helper links none of it. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-util.h"
#include "policy-impl.h"

size_t
policy_allow_groups(const struct policy *p, const char *const **ret)
{
	*ret = (const char *const *) p->allow_groups;
	return p->n_allow_groups;
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
		if (streq(key, policy_key_names[k]))
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

static void lint_say(struct lint *L, unsigned line, const char *fmt, ...) _printf_(3, 4);
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
		lint_say(L, d->line[l],
			 "[defaults] %s = %s is above its ceiling %s = %s in "
			 "[limits] (line %u): a run that does not ask gets the ceiling; lower the "
			 "default to at most %s or raise the ceiling",
			 policy_limit_name(l),
			 lint_value(L, d, (enum key) l, l, d->v[l], a, sizeof(a)),
			 policy_limit_name(l), cv, lim->line[l], cv);
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
		enum key tk = (enum key)(K_TOTAL_MEMORY + t);
		const struct settings *cs = st->set & KM(per[t]) ? st : &L->p->limits;
		const char *csec = cs == st ? sec : "[limits]", *cv;

		if (!(st->set & KM(tk)) || !(cs->set & KM(per[t])) || st->total[t] >= cs->v[per[t]])
			continue;
		cv = lint_value(L, cs, (enum key) per[t], per[t], cs->v[per[t]], b, sizeof(b));
		lint_say(L, st->line[tk],
			 "%s %s = %s is below the per-sandbox ceiling %s = %s in "
			 "%s (line %u): no sandbox can reach that ceiling; raise %s to at least %s "
			 "or lower %s",
			 sec, policy_key_names[tk],
			 lint_value(L, st, tk, per[t], st->total[t], a, sizeof(a)),
			 policy_limit_name(per[t]), cv, csec, cs->line[per[t]],
			 policy_key_names[tk], cv, policy_limit_name(per[t]));
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
		return; /* some user has no memory ceiling */
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
	lint_say(L, d->line[K_DISK],
		 "[defaults] disk = %s is larger than every memory ceiling "
		 "(the largest: %s in %s, line %u): the workspace is tmpfs, charged to the "
		 "sandbox's memory, so every run that does not ask warns; lower the default disk "
		 "to at most %s",
		 lint_value(L, d, K_DISK, POLICY_DISK, d->v[POLICY_DISK], a, sizeof(a)), mv, bigsec,
		 big->line[K_MEMORY], mv);
}

int
policy_lint(const struct policy *p, const char *filename,
	    void (*cb)(const char *msg, void *userdata), void *userdata)
{
	struct lint L = {
		.p = p, .filename = filename ? filename : "(policy)", .cb = cb, .userdata = userdata
	};
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
