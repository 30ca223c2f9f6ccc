/* SPDX-License-Identifier: MIT */
/* Emptying user-controlled trees without following anything in them (ws_clean.c). */
#pragma once

/* Number of entries in the directory behind dirfd (. and .. excluded), or -errno. */
int dir_entries(int dirfd);
/* Remove everything below dirfd (truncating regular files first).  -ENOTEMPTY when the
 * user kept refilling it through a held descriptor for every pass. */
int tree_empty(int dirfd);
/* rmdir <parent>/<name>, emptying it first if needed. */
int tree_remove_at(int parent_fd, const char *name);
/* tree_empty() then ws_shrink(), a few rounds.  0: empty and shrunk. */
int ws_empty_and_shrink(int rootfd);
