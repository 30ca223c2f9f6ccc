/* SPDX-License-Identifier: MIT */
/* perf: small reads and directory listings with as few system calls as the kernel allows. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dir-util.h"
#include "macro.h"

int
read_once_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, bufsz - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (ret_len != NULL)
		*ret_len = (size_t) n;
	return (size_t) n == bufsz - 1 ? -EFBIG : 0;
}

struct dirent64_hdr { /* struct linux_dirent64 of getdents64(2) */
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

const char *
dir_next(struct dir_iter *it, unsigned char *ret_type)
{
	for (;;) {
		const struct dirent64_hdr *de;

		if (it->off >= it->len) {
			long n = syscall(SYS_getdents64, it->fd, it->buf, sizeof(it->buf));

			if (n <= 0) {
				if (n == 0)
					errno = 0;
				return NULL;
			}
			it->len = (size_t) n;
			it->off = 0;
		}
		de = (const struct dirent64_hdr *) (const void *) (it->buf + it->off);
		it->off += de->d_reclen;
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (ret_type != NULL)
			*ret_type = de->d_type;
		return de->d_name;
	}
}
