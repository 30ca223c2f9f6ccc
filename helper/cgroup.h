/* SPDX-License-Identifier: MIT */
/* fd-relative cgroup2 primitives and the leaf naming rule.  Names are made here, never
 * taken from a client. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup-util.h"

/* Open root (a path from the trusted policy) as the delegated parent: O_DIRECTORY, must
 * be cgroup2, root-owned, not group/other-writable (-EXDEV when not cgroup2); its
 * cgroup.subtree_control goes to subtree. */
int cg_open_root(const char *root, int *ret_fd, char *subtree, size_t len);
/* mkdir <parent>/<name> (must not exist), hand it and every file in it to 0:0, return an
 * O_RDONLY|O_DIRECTORY fd. */
int cg_create_at(int parent_fd, const char *name, int *ret_fd);
/* Write memory.max, cpu.max (cpu in percent of one CPU per 100 ms period) and pids.max of
 * the cgroup behind fd (root-owned, held by us); UINT64_MAX writes "max". */
int cg_write_max(int fd, uint64_t memory, uint64_t cpu, uint64_t pids);
/* Open (unless *fdp is already an fd of it; making it if missing) the per-user level
 * <root>/<uid>, and make sure it is root-owned 0755.  Its controllers and totals are
 * user.c's (write_totals()).  *fdp is -EBADF on failure. */
int cg_user_level(int root_fd, uid_t uid, int *fdp);
/* rmdir <parent>/<name>, retrying EBUSY a few times over at most ~1 s. */
int cg_remove_at(int parent_fd, const char *name);
/* rmdir every child cgroup of the emptied cgroup fd (a session level's calls). */
void cg_remove_children(int fd);
/* Kill, wait for, and remove <parent>/<name> (a leftover), whatever it holds: no helper
 * moves a process into a leaf, so a process of another uid in it got there from inside
 * (a user namespace and the user's subuid range) or by root's hand, and the leftover's
 * deadline and the user's count of sandboxes must not depend on it. */
int cg_destroy_at(int parent_fd, const char *name);
