/* SPDX-License-Identifier: MIT */
/* Who is the caller: see caller.h. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "run/caller.h"
#include "macro.h"

int
caller_lookup(bool want_groups, size_t max, struct policy_caller *ret)
{
	_cleanup_free_ gid_t *gids = NULL;
	int r, n;

	r = policy_caller_lookup(getuid(), want_groups, max, ret);
	if (r != -ENOENT || !want_groups)
		return r;
	/* No user name: the groups this process is in still have theirs, and a [group:NAME]
	 * section must not be escaped by a uid without a passwd entry. */
	if (max >= INT_MAX || (gids = calloc(max + 1, sizeof(*gids))) == NULL)
		return -ENOMEM;
	gids[0] = getgid();
	n = getgroups((int) max, gids + 1);
	if (n < 0)
		return errno == EINVAL ? -E2BIG : -errno;
	r = policy_caller_add_gids(ret, gids, (size_t) n + 1, max);
	return r < 0 ? r : -ENOENT;
}
