/* SPDX-License-Identifier: MIT */
/* Who is the caller: see caller.h. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caller.h"
#include "macro.h"

/* The names of gids[0..n) into names (at most max), strdup'ed; the count. */
static size_t
group_names(const gid_t *gids, int n, char **names, size_t max)
{
	size_t k = 0;

	for (int i = 0; i < n && k < max; i++) {
		struct group *gr = getgrgid(gids[i]);

		if (gr != NULL && (names[k] = strdup(gr->gr_name)) != NULL)
			k++;
	}
	return k;
}

int
caller_names(bool want_groups, char **ret_user, char **names, size_t max, size_t *ret_n)
{
	gid_t gids[128];
	int ngids = ELEMENTSOF(gids);
	struct passwd *pw;

	*ret_user = NULL;
	*ret_n = 0;
	pw = getpwuid(getuid());
	if (pw == NULL) {
		/* No user name: the groups this process is in still have theirs, and a
		 * [group:NAME] section must not be escaped by a uid without a passwd entry
		 * (hostile review). */
		if (!want_groups)
			return -ENOENT;
		gids[0] = getgid();
		ngids = getgroups(ELEMENTSOF(gids) - 1, gids + 1);
		ngids = ngids < 0 ? 1 : ngids + 1;
		*ret_n = group_names(gids, ngids, names, max);
		return -ENOENT;
	}
	*ret_user = strdup(pw->pw_name);
	if (*ret_user == NULL)
		return -ENOMEM;
	if (!want_groups || getgrouplist(*ret_user, pw->pw_gid, gids, &ngids) < 0)
		ngids = 0;
	*ret_n = group_names(gids, ngids, names, max);
	return 0;
}
