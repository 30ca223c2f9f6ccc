/* SPDX-License-Identifier: MIT */
/* Decisions from a parsed policy: what one user may do (policy_resolve()), and whether a
 * request fits.  Pure: no privilege, no I/O.  See sandbox.ini(5) "RESOLUTION". */
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

static bool
subject_in_group(const struct policy_subject *subj, const char *group)
{
	for (size_t i = 0; i < subj->ngroups; i++)
		if (subj->groups[i] != NULL && streq(subj->groups[i], group))
			return true;
	return false;
}

/* Iterate over the [group:X] sections (in file order) of groups the subject is in. */
#define FOREACH_GROUP(e, p, subj)                                                       \
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
resolve_required(const struct policy *p, const struct policy_subject *subj, const struct entry *u,
		 unsigned key, int (*get)(const struct settings *), int dflt, char *src,
		 size_t srclen)
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

/* The value of key k (a limit, sandboxes or a total) in st. */
static uint64_t
setting_amount(const struct settings *st, enum key k)
{
	if ((int) k < _POLICY_LIMIT_MAX)
		return st->v[k];
	if (k == K_SANDBOXES)
		return st->sandboxes;
	return st->total[k - K_TOTAL_MEMORY];
}

/* A ceiling, sandboxes or a total: [user:NAME] if it sets k; else the most generous (the
 * largest; the first in the file among equals) of the user's [group:X] sections that set
 * it; else [limits]; else none (UINT64_MAX, "built-in").  src names the section. */
static uint64_t
resolve_amount(const struct policy *p, const struct policy_subject *subj, const struct entry *u,
	       enum key k, char *src, size_t srclen)
{
	const struct entry *best = NULL;

	if (u != NULL && (u->s.set & KM(k))) {
		(void) snprintf(src, srclen, "[user:%s]", u->name);
		return setting_amount(&u->s, k);
	}
	FOREACH_GROUP(g, p, subj)
	if ((g->s.set & KM(k)) &&
	    (best == NULL || setting_amount(&g->s, k) > setting_amount(&best->s, k)))
		best = g;
	if (best != NULL) {
		(void) snprintf(src, srclen, "[group:%s]", best->name);
		return setting_amount(&best->s, k);
	}
	if (p->limits.set & KM(k)) {
		(void) snprintf(src, srclen, "[limits]");
		return setting_amount(&p->limits, k);
	}
	(void) snprintf(src, srclen, "built-in");
	return UINT64_MAX;
}

/* Default: [defaults] capped at the ceiling; without one, the ceiling; with neither, 0. */
static void
resolve_defaults(const struct policy *p, struct policy_resolved *ret)
{
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
}

/* Access, in order: [user:NAME] allow decides if set; any of the user's groups with
 * allow = no denies; if allow_groups or allow_users is set, the user must be listed, be in
 * a listed group, or be in a group whose section says allow = yes. */
static void
resolve_access(const struct policy *p, const struct policy_subject *subj, const struct entry *u,
	       struct policy_resolved *ret)
{
	bool ok = false;

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
	if (!p->allow_groups_set && !p->allow_users_set)
		return;
	for (size_t i = 0; i < p->n_allow_users && !ok; i++)
		ok = subj->user != NULL && streq(p->allow_users[i], subj->user);
	for (size_t i = 0; i < p->n_allow_groups && !ok; i++)
		ok = subject_in_group(subj, p->allow_groups[i]);
	FOREACH_GROUP(g, p, subj)
	ok = ok || ((g->s.set & KM(K_ALLOW)) && g->s.allow);
	if (ok)
		return;
	ret->allowed = false;
	SRC(ret->deny_reason,
	    "not allowed by [sandcap] %s%s%s: the user is not listed and is in "
	    "none of the listed groups",
	    p->allow_groups_set ? "allow_groups" : "",
	    p->allow_groups_set && p->allow_users_set ? " / " : "",
	    p->allow_users_set ? "allow_users" : "");
}

/* Resolution, per setting: see sandbox.ini(5) "RESOLUTION" and the functions above. */
void
policy_resolve(const struct policy *p, const struct policy_subject *subj,
	       struct policy_resolved *ret)
{
	const struct entry *u = NULL;

	memset(ret, 0, sizeof(*ret));
	if (subj->user != NULL)
		u = find_entry(p->users, p->n_users, subj->user);
	for (int l = 0; l < _POLICY_LIMIT_MAX; l++)
		ret->ceiling[l] = resolve_amount(p, subj, u, (enum key) l, ret->ceiling_src[l],
						 sizeof(ret->ceiling_src[l]));
	resolve_defaults(p, ret);
	ret->sandboxes = resolve_amount(p, subj, u, K_SANDBOXES, ret->sandboxes_src,
					sizeof(ret->sandboxes_src));
	for (int t = 0; t < 3; t++)
		ret->total[t] = resolve_amount(p, subj, u, (enum key)(K_TOTAL_MEMORY + t),
					       ret->total_src[t], sizeof(ret->total_src[t]));
	/* Isolation requirements: the most generous group is the least strict one. */
	ret->net_required = (enum policy_net) resolve_required(
		p, subj, u, K_NET, setting_net, POLICY_NET_HOST, ret->net_required_src,
		sizeof(ret->net_required_src));
	ret->fs_required = (enum policy_fs) resolve_required(p, subj, u, K_FS, setting_fs,
							     POLICY_FS_NONE, ret->fs_required_src,
							     sizeof(ret->fs_required_src));
	resolve_access(p, subj, u, ret);
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
				policy_limit_name(l), v, c, r->ceiling_src[l]);
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
