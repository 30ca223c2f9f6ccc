/* SPDX-License-Identifier: MIT */
/* Who is the caller: the user and group names a policy's [user:NAME] and [group:NAME]
 * sections and allow lists are matched against, looked up through the C library's name
 * services.  One lookup for the helper (on the uid SO_PEERCRED gave) and for sandcap (on
 * its own uid).  It fails closed: a caller judged by only some of its groups could escape
 * a [group:] section that denies or requires. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "group-name.h"
#include "macro.h"
#include "policy.h"

void
policy_caller_done(struct policy_caller *c)
{
	for (size_t i = 0; i < c->ngroups; i++)
		free(c->groups[i]);
	free(c->groups);
	free(c->user);
	*c = (struct policy_caller){};
}

int
policy_caller_add_gids(struct policy_caller *c, const gid_t *gids, size_t n, size_t max)
{
	char name[256];
	char **v;

	if (n > max || c->ngroups + n > max)
		return -E2BIG;
	v = reallocarray(c->groups, c->ngroups + n + 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	c->groups = v;
	for (size_t i = 0; i < n; i++) {
		int r = group_name(gids[i], name, sizeof(name));

		/* A group without a name (or with one longer than any section's) cannot match
		 * a [group:NAME] section: skipped.  A lookup that failed could hide one. */
		if (r == -ENOENT || r == -ENAMETOOLONG)
			continue;
		if (r < 0) {
			c->failed_gid = gids[i];
			return r;
		}
		c->groups[c->ngroups] = strdup(name);
		if (c->groups[c->ngroups] == NULL)
			return -ENOMEM;
		c->ngroups++;
	}
	return 0;
}

/* The groups of user (primary gid first), by getgrouplist(): one more place than max, so
 * that a user in more groups than that is told from one in exactly max. */
static int
add_groups_of(struct policy_caller *c, const char *user, gid_t gid, size_t max)
{
	_cleanup_free_ gid_t *gids = NULL;
	int n;

	if (max >= INT_MAX)
		return -E2BIG;
	gids = calloc(max + 1, sizeof(*gids));
	if (gids == NULL)
		return -ENOMEM;
	n = (int) max + 1;
	if (getgrouplist(user, gid, gids, &n) < 0 || n < 0 || (size_t) n > max)
		return -E2BIG;
	return policy_caller_add_gids(c, gids, (size_t) n, max);
}

static int
lookup(const struct passwd *pw, bool want_groups, size_t max, struct policy_caller *ret)
{
	int r;

	if (pw == NULL)
		return -ENOENT;
	ret->user = strdup(pw->pw_name);
	if (ret->user == NULL)
		return -ENOMEM;
	if (!want_groups)
		return 0;
	r = add_groups_of(ret, ret->user, pw->pw_gid, max);
	if (r < 0) {
		/* Nothing half-looked-up: only the user name stays, for the message. */
		char *user = TAKE_PTR(ret->user);
		gid_t failed = ret->failed_gid;

		policy_caller_done(ret);
		ret->user = user;
		ret->failed_gid = failed;
	}
	return r;
}

int
policy_caller_lookup(uid_t uid, bool want_groups, size_t max, struct policy_caller *ret)
{
	*ret = (struct policy_caller){};
	return lookup(getpwuid(uid), want_groups, max, ret);
}

int
policy_caller_lookup_name(const char *user, size_t max, struct policy_caller *ret)
{
	*ret = (struct policy_caller){};
	return lookup(getpwnam(user), true, max, ret);
}

struct policy_subject
policy_caller_subject(const struct policy_caller *c)
{
	return (struct policy_subject){ .user = c->user,
					.groups = (const char *const *) c->groups,
					.ngroups = c->ngroups };
}
