/* SPDX-License-Identifier: MIT */
/* A file's permitted capabilities through libcap-ng (filecaps.h). */
#include <cap-ng.h>
#include <errno.h>
#include <sys/xattr.h>

#include "cmd/filecaps.h"

int
filecaps_permitted_fd(int fd, uint64_t *ret_permitted)
{
	uint64_t perm = 0;

	/* libcap-ng returns -1 for "no attribute" and for one it cannot read alike: tell
	 * them apart by asking for the attribute's size first. */
	if (fgetxattr(fd, "security.capability", NULL, 0) < 0)
		return errno == ENOTSUP || errno == ENODATA ? -ENODATA : -errno;
	if (capng_get_caps_fd(fd) < 0)
		return -EINVAL;
	for (unsigned c = 0; c < 64; c++)
		if (capng_have_capability(CAPNG_PERMITTED, c) > 0)
			perm |= UINT64_C(1) << c;
	*ret_permitted = perm;
	return 0;
}
