/* SPDX-License-Identifier: MIT */
/* A group's name by its gid (group-name.h). */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>

#include "group-name.h"

int
group_name(gid_t gid, char *name, size_t len)
{
	struct group grb, *gr = NULL;
	char *buf = NULL;
	int r = ENOMEM;

	/* getgrgid_r() says ERANGE until the buffer holds the member list: grow it, up to a
	 * bound no real group reaches. */
	for (size_t sz = 4096; sz <= (size_t) 4 << 20; sz *= 2) {
		char *nb = realloc(buf, sz);

		if (nb == NULL) {
			r = ENOMEM;
			break;
		}
		buf = nb;
		r = getgrgid_r(gid, &grb, buf, sz, &gr);
		if (r != ERANGE)
			break;
	}
	if (r == 0 && gr == NULL)
		r = -ENOENT;
	else if (r == 0 && strlen(gr->gr_name) >= len)
		r = -ENAMETOOLONG;
	else if (r == 0)
		memcpy(name, gr->gr_name, strlen(gr->gr_name) + 1);
	else
		r = -(r > 0 ? r : EIO);
	free(buf);
	return r;
}
