/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/xattr.h>

#include "filecaps.h"

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
	       (uint32_t) p[3] << 24;
}

int
filecaps_parse(const void *value, size_t len, uint64_t *ret_permitted)
{
	const unsigned char *v = value;
	uint32_t magic;

	if (len < 4)
		return -EINVAL;
	magic = le32(v);
	/* magic_etc, then per 32-bit word: permitted, inheritable. */
	switch (magic & VFS_CAP_REVISION_MASK) {
	case VFS_CAP_REVISION_1:
		if (len != XATTR_CAPS_SZ_1)
			return -EINVAL;
		*ret_permitted = le32(v + 4);
		return 0;
	case VFS_CAP_REVISION_2:
		if (len != XATTR_CAPS_SZ_2)
			return -EINVAL;
		break;
	case VFS_CAP_REVISION_3:         /* revision 2 plus the namespace's root uid */
		if (len != XATTR_CAPS_SZ_3)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	*ret_permitted = (uint64_t) le32(v + 4) | (uint64_t) le32(v + 12) << 32;
	return 0;
}

int
filecaps_permitted_fd(int fd, uint64_t *ret_permitted)
{
	unsigned char buf[64];
	ssize_t n = fgetxattr(fd, "security.capability", buf, sizeof(buf));

	if (n < 0)
		return errno == ENOTSUP ? -ENODATA : -errno;
	return filecaps_parse(buf, (size_t) n, ret_permitted);
}
