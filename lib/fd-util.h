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
