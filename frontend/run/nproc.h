/* SPDX-License-Identifier: MIT */
/* Does RLIMIT_NPROC bind the sandboxed command?  The kernel's fork path ignores the limit
 * for the root user (kuid 0) and for a task with CAP_SYS_ADMIN or CAP_SYS_RESOURCE in the
 * initial user namespace (kernel/fork.c, copy_process()).  The command inherits sandcap's
 * real uid, and its capabilities can only shrink (no_new_privs, exec), so sandcap's own
 * answer is the command's.  --nproc (and --fallback's --pids substitute) is refused when
 * the limit would not bind, never set for show. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The pure decision, for the unit test: uid_map is /proc/self/uid_map's text (NULL:
 * unreadable), ruid the real uid, cap_prm the permitted capability mask.  Returns NULL
 * when the limit binds, else why not ("you are root (uid 0)", ...). */
const char *nproc_exemption_of(const char *uid_map, uid_t ruid, uint64_t cap_prm);

/* The same for this process (reads /proc/self/uid_map and capget()). */
const char *nproc_exemption(void);
