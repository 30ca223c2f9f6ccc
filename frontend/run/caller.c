/* SPDX-License-Identifier: MIT */
/* Who is the caller: see caller.h. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/caller.h"
#include "group-name.h"
#include "macro.h"

/* The names of gids[0..n) into names (at most max), strdup'ed, their count in *ret_n.  A
 * group without a name cannot match a [group:NAME] section: skipped.  A lookup that failed,
 * or a name that cannot be copied, is an error (names freed) rather than a list missing a
 * group. */
static int
group_names(const gid_t *gids, int n, char **names, size_t max, size_t *ret_n)
{
	char name[256];
	size_t k = 0;
	int r = 0;

	for (int i = 0; i < n && k < max && r == 0; i++) {
		r = group_name(gids[i], name, sizeof(name));
		if (r == -ENOENT || r == -ENAMETOOLONG) {
			r = 0;
			continue;
		}
		if (r == 0 && (names[k] = strdup(name)) == NULL)
			r = -ENOMEM;
		else if (r == 0)
			k++;
	}
	if (r < 0) {
		while (k > 0)
			free(names[--k]);
		return r;
	}
	*ret_n = k;
	return 0;
}

int
caller_names(bool want_groups, char **ret_user, char **names, size_t max, size_t *ret_n)
{
	_cleanup_free_ gid_t *gids = NULL;
	int ngids;
	struct passwd *pw;
	int r;

	*ret_user = NULL;
	*ret_n = 0;
	/* One more than the names we can keep: a caller in more groups than that fails
	 * closed (-E2BIG) rather than being judged by some of them, as the helper does. */
	if (max >= INT_MAX || (gids = calloc(max + 1, sizeof(*gids))) == NULL)
		return -ENOMEM;
	ngids = (int) max + 1;
	pw = getpwuid(getuid());
	if (pw == NULL) {
		/* No user name: the groups this process is in still have theirs, and a
		 * [group:NAME] section must not be escaped by a uid without a passwd entry. */
		if (!want_groups)
			return -ENOENT;
		gids[0] = getgid();
		ngids = getgroups(ngids - 1, gids + 1);
		if (ngids < 0)
			return errno == EINVAL ? -E2BIG : -errno;
		if ((size_t) ngids + 1 > max)
			return -E2BIG;
		r = group_names(gids, ngids + 1, names, max, ret_n);
		return r < 0 ? r : -ENOENT;
	}
	*ret_user = strdup(pw->pw_name);
	if (*ret_user == NULL)
		return -ENOMEM;
	if (!want_groups)
		return 0;
	if (getgrouplist(*ret_user, pw->pw_gid, gids, &ngids) < 0 || (size_t) ngids > max)
		return -E2BIG;
	return group_names(gids, ngids, names, max, ret_n);
}
