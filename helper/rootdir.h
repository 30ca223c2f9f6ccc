/* SPDX-License-Identifier: MIT */
/* Root-owned directories made without a window for the user (rootdir.c). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* 0 if the directory fd is owned by 0:0 with exactly mode, -EPERM if not, -errno. */
int dir_check_root(int fd, mode_t mode);
/* Open <parent>/<name> (mode lets everyone search it: opened without a capability),
 * creating it if missing; either way it must be a directory owned by 0:0 with exactly
 * mode.  A new one is made as .new-<uid>-dir in stage_fd (the root 0700 .locks) and
 * renamed into place.  Only under uid's per-user lock (user.c). */
int dir_root_owned(int parent_fd, const char *name, mode_t mode, int stage_fd, uid_t uid,
		   int *ret_fd);
/* Make <parent>/<name> as dir_root_owned() makes a new one: as tmp (".new-<uid>-...", for
 * the sweep) in stage_fd (which must be the root 0700 .locks), without looking for an
 * existing one first (-EEXIST if there is). */
int make_staged(int stage_fd, const char *tmp, int parent_fd, const char *name, mode_t mode,
		int *ret_fd);
