/* SPDX-License-Identifier: MIT */
/* Reading small files whole: one implementation for the front-end and the helper. */
#pragma once

#include <stddef.h>

/* Read fd to end of file into buf and NUL-terminate it (at most bufsz - 1 bytes; bufsz
 * must be > 0).  Retries EINTR.  Returns 0 with the length in *ret_len (may be NULL);
 * -EFBIG when the file has more than bufsz - 1 bytes (buf then holds the first bufsz - 1,
 * NUL-terminated, and *ret_len is bufsz - 1); -errno when read() fails. */
int read_full_fd(int fd, char *buf, size_t bufsz, size_t *ret_len);

/* The same for <dirfd>/<name>, opened O_RDONLY|O_NOFOLLOW|O_CLOEXEC.  -errno of the open
 * (-ENOENT when absent) leaves buf an empty string. */
int read_full_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len);

/* For procfs and cgroupfs files (seq_file) and regular files, whose read(2) fills the buffer
 * up to end of file in one call: one read, no second one to see end of file (#19).  A read
 * that fills buf is -EFBIG.  Otherwise as read_full_at(). */
int read_once_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len);

/* Listing a directory with getdents64(2) on an fd we hold: no DIR, so none of fdopendir's
 * fstat/fcntl calls and no allocation (#19).  Starts at fd's current position (0 for a fresh
 * fd).  dir_next() skips "." and "..", returns NULL at the end (errno 0) or on error (errno
 * set). */
struct dir_iter {
	int fd;
	size_t len, off;
	_Alignas(8) char buf[8192];
};
const char *dir_next(struct dir_iter *it, unsigned char *ret_type);
