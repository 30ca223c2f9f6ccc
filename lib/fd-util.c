/* SPDX-License-Identifier: MIT */
/* Reading small files whole (fd-util.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fd-util.h"
#include "macro.h"

int
read_full_fd(int fd, char *buf, size_t bufsz, size_t *ret_len)
{
	size_t off = 0;
	char extra;

	for (;;) {
		ssize_t n = off < bufsz - 1 ? read(fd, buf + off, bufsz - 1 - off)
					    : read(fd, &extra, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf[off] = '\0';
			return -errno;
		}
		if (n == 0)
			break;
		if (off == bufsz - 1) { /* one byte more than fits */
			buf[off] = '\0';
			if (ret_len != NULL)
				*ret_len = off;
			return -EFBIG;
		}
		off += (size_t) n;
	}
	buf[off] = '\0';
	if (ret_len != NULL)
		*ret_len = off;
	return 0;
}

int
read_full_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	return read_full_fd(fd, buf, bufsz, ret_len);
}
