/* SPDX-License-Identifier: MIT */
/* Final counters of a sandbox, read without privilege from the read-only leaf dirfd and the
 * O_PATH workspace fd the helper handed out.  Files absent on older kernels (memory.peak
 * 5.19, pids.peak 6.1) leave the matching has_* flag false; they are never guessed. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct cg_usage {
	uint64_t memory_peak;       /* memory.peak, bytes */
	uint64_t memory_max_events; /* memory.events "max" (reclaim at the limit; not fatal) */
	uint64_t oom;               /* memory.events "oom" */
	uint64_t oom_kill;          /* memory.events "oom_kill" */
	uint64_t pids_peak;         /* pids.peak */
	uint64_t pids_max_events;   /* pids.events "max": forks refused (up to 6.12: at any
					 * level above too; since 6.13: at the leaf's own limit) */
	uint64_t pids_max;          /* pids.max as applied; UINT64_MAX: "max" */
	uint64_t cpu_usage_usec;    /* cpu.stat */
	uint64_t cpu_user_usec;
	uint64_t cpu_system_usec;
	uint64_t cpu_throttled_usec;
	uint64_t disk_used;       /* bytes used in the workspace tmpfs (fstatfs) */
	uint64_t disk_size;       /* its size as applied: --disk rounded up to pages */
	uint64_t disk_inodes;     /* its inodes in use (files, directories, links) */
	uint64_t disk_inodes_max; /* its nr_inodes */
	bool has_memory_peak, has_memory_events, has_pids_peak, has_pids_events;
	bool has_cpu_stat, has_cpu_throttled, has_disk_used, has_pids_max;
	bool disk_inodes_out; /* no inode left (f_ffree == 0): no new file can be made */
};

/* Fill *ret from leaf_fd (may be -EBADF: cgroup fields stay absent) and ws_fd (O_PATH; may
 * be -EBADF).  Missing files are not errors.  Returns 0, or -errno when a file exists but is
 * malformed (ret is then zeroed). */
int cgstats_read(int leaf_fd, int ws_fd, struct cg_usage *ret);

/* The per-user level above a helper's leaf (cgroup_root/<uid>, root's 0755: readable by
 * its user through the leaf's "..").  Its limits are the policy's total_memory and
 * total_pids; its .local counters say whether it, not a leaf, reached them: read before
 * the command starts and after it ends, the difference is this run's. */
struct cg_level {
	uint64_t memory_max, pids_max; /* UINT64_MAX: "max" (no total) */
	uint64_t memory_current;       /* what all of the user's sandboxes hold now */
	uint64_t oom_local;            /* memory.events.local "oom": OOMs at this level's limit */
	uint64_t oom_kill;             /* memory.events "oom_kill": kills in it and below */
	uint64_t pids_max_local;       /* pids.events.local "max" (6.13+): forks refused at
					 * this level's limit */
	uint64_t pids_peak;            /* pids.peak: the most the user's sandboxes ever held */
	bool has_limits, has_oom_local, has_oom_kill, has_pids_max_local, has_pids_peak;
};

/* Fill *ret from the level above leaf_fd.  Missing files are not errors (their has_*
 * stay false); -errno when the level cannot be opened or a file is malformed. */
int cgstats_read_level(int leaf_fd, struct cg_level *ret);
/* The same for the level at up, a relative path from leaf_fd: ".." is its parent (a
 * session's level or scope above a call's leaf), "../.." the one above that. */
int cgstats_read_level_at(int leaf_fd, const char *up, struct cg_level *ret);

/* Parse "key value\n" lines (memory.events, pids.events, cpu.stat): the value of key, or
 * -ENOENT if absent, -EBADMSG if malformed.  Exposed for unit tests. */
int cgstats_parse_keyed(const char *text, const char *key, uint64_t *ret);
