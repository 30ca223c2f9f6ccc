/* SPDX-License-Identifier: MIT */
/* A group's name by its gid, telling "no such group" from "the lookup failed": a policy's
 * [group:NAME] section must never be escaped because a lookup failed (an NSS backend down,
 * a descriptor or memory limit the caller set). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The name of gid into name (len bytes).  0; -ENOENT when no group has that gid;
 * -ENAMETOOLONG when the name does not fit; -errno (-EIO when NSS gave none) when the lookup
 * failed. */
int group_name(gid_t gid, char *name, size_t len);
