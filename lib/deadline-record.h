/* SPDX-License-Identifier: MIT */
/*
 * A sandbox's deadline record: what sandcap-helper writes at CREATE into the root-only
 * deadline directory (SC_DEADLINE_DIR, root 0700), and what sandcap-reaper and the next
 * helper of any user read back to kill a sandbox that outlived its policy timeout plus
 * the backstop.  Pure: formatting and parsing only, no I/O (fuzzable).
 *
 * One file per sandbox, named after the sandbox id ("<uid>-<16 hex>"), text:
 *   sandcap-deadline 1
 *   boottime_ms <CLOCK_BOOTTIME milliseconds at which the sandbox must be dead>
 *   cgroup <absolute path of the leaf cgroup>
 *   workspace <absolute path of the workspace mount point>
 *   lock <absolute path of the helper's lock file for this sandbox>
 * Paths are absolute, at most DEADLINE_PATH_MAX - 1 bytes, without control characters.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEADLINE_PATH_MAX 512
#define DEADLINE_TEXT_MAX (4 * DEADLINE_PATH_MAX)
/* The helper kills the cgroup this long after the policy's timeout; the deadline recorded
 * for the reaper is timeout + backstop, counted from CREATE. */
#define DEADLINE_BACKSTOP_MS (10 * 1000)

struct deadline_record {
	uint64_t boottime_ms;
	char cgroup[DEADLINE_PATH_MAX];
	char workspace[DEADLINE_PATH_MAX];
	char lock[DEADLINE_PATH_MAX];
};

/* Is name a sandbox id ("<decimal uid>-<16 lowercase hex>"), usable as a record name? */
bool deadline_name_is_valid(const char *name);
/* Format r into buf; -ENAMETOOLONG / -EINVAL for a path that does not fit the rules. */
int deadline_format(const struct deadline_record *r, char *buf, size_t bufsz, size_t *ret_len);
/* Parse text (len bytes, need not be NUL-terminated).  -EBADMSG on anything but exactly
 * the format above; *ret untouched on failure. */
int deadline_parse(const char *text, size_t len, struct deadline_record *ret);
/* The last path component of path (the leaf's name), or NULL when there is none. */
const char *deadline_basename(const char *path);
