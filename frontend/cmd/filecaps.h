/* SPDX-License-Identifier: MIT */
/* A file's permitted capabilities, for sandcap doctor (which only reads them), through
 * libcap-ng. */
#pragma once

#include <stdint.h>

/* The permitted set of the file open at fd, as a bit mask (bit N = capability N).
 * -ENODATA when it has none; -EINVAL for an attribute libcap-ng cannot read; -errno. */
int filecaps_permitted_fd(int fd, uint64_t *ret_permitted);
