/* SPDX-License-Identifier: MIT */
/* A file's permitted capabilities, from its security.capability attribute, for sandcap
 * doctor (which only reads them).  Without libcap-ng in sandcap: its library constructor
 * ran in every `sandcap run` (8 system calls; issue 19). */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Parse a security.capability value (struct vfs_cap_data, revision 1, 2 or 3): the
 * permitted set as a bit mask (bit N = capability N).  -EINVAL for anything else. */
int filecaps_parse(const void *value, size_t len, uint64_t *ret_permitted);

/* The permitted set of the file open at fd.  -ENODATA when it has none, -errno. */
int filecaps_permitted_fd(int fd, uint64_t *ret_permitted);
