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
/* mkdir <parent>/<name> (must not exist; a name of cg_name_new()'s form). */
int cg_create_at(int parent_fd, const char *name);
/* Hand the cgroup <parent>/<name> we just made and every file in it to 0:0, and return an
 * O_RDONLY|O_DIRECTORY fd of it. */
int cg_take_at(int parent_fd, const char *name, int *ret_fd);
/* Write memory.max, cpu.max (cpu in percent of one CPU per 100 ms period) and pids.max of
 * the cgroup behind fd (root's files: through priv.c); UINT64_MAX is "max". */
int cg_write_max(int fd, uint64_t memory, uint64_t cpu, uint64_t pids);
/* Write value into <fd>/<name> (a control file) with one write(2): 0 or -errno. */
int cg_write_at(int fd, const char *name, const char *value);
/* Open (unless *fdp is already an fd of it; making it if missing) the per-user level
 * <root>/<name> (name: the uid in decimal), and make sure it is root-owned 0755, its controllers enabled for the
 * leaves when it is made.  Its totals are written by user_write_totals().  *fdp is -EBADF
 * on failure. */
int cg_user_level(int root_fd, const char *name, int *fdp);
/* rmdir <parent>/<name>, retrying EBUSY a few times over at most ~1 s. */
int cg_remove_at(int parent_fd, const char *name);
/* The same, after rmdir of its child cgroups (a session level's calls), emptied already. */
int cg_remove_tree_at(int parent_fd, const char *name);
/* Kill and wait for <parent>/<name> (a leftover), whatever it holds: no helper moves a
 * process into a leaf, so a process of another uid in it got there from inside (a user
 * namespace and the user's subuid range) or by root's hand, and the leftover's deadline and
 * the user's count of sandboxes must not depend on it.  0 when there is no such leaf. */
int cg_kill_wait_at(int parent_fd, const char *name);
