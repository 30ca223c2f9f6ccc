/* SPDX-License-Identifier: MIT */
/* perf: reading pseudo files in one read(2) and listing directories with getdents64(2). */
#pragma once

#include <stddef.h>

/* For procfs and cgroupfs files (seq_file) and regular files, whose read(2) fills the buffer
 * up to end of file in one call: one read, no second one to see end of file.  A read
 * that fills buf is -EFBIG.  The fd is O_RDONLY|O_NOFOLLOW|O_CLOEXEC; buf is NUL-terminated
 * ("" when the open fails: -errno). */
int read_once_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len);

/* Listing a directory with getdents64(2) on an fd we hold: no DIR, so none of fdopendir's
 * fstat/fcntl calls and no allocation.  Starts at fd's current position (0 for a fresh
 * fd).  dir_next() skips "." and "..", returns NULL at the end (errno 0) or on error (errno
 * set). */
struct dir_iter {
	int fd;
	size_t len, off;
	_Alignas(8) char buf[8192];
};
const char *dir_next(struct dir_iter *it, unsigned char *ret_type);
