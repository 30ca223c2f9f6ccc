/* SPDX-License-Identifier: MIT */
/* Why the command could not be executed, beyond strerror(): execve() says ENOENT both for a
 * file that is missing and for a script or program whose interpreter is, and EACCES under
 * --fs strict names no option.  Read by the supervisor after the child's exec failed,
 * outside the sandbox, as the user. */
#pragma once

#include <stddef.h>

#include "policy.h"

/* The interpreter of a "#!" line at the start of head (len bytes): its first word, into
 * interp (ilen bytes, NUL-terminated).  0; -EINVAL when head has no #! or no word after
 * it; -ENAMETOOLONG.  Pure (test-exec-hint). */
int exec_hint_shebang(const char *head, size_t len, char *interp, size_t ilen);

/* A parenthesised note for "cannot execute 'ARGV0': strerror(err)", starting with a space,
 * or "" when there is nothing to add: the missing absolute interpreter of an existing
 * argv0, the --fs strict hint for EACCES on a file executable outside the sandbox.  Only
 * for an argv0 with a slash (a relative one resolved against dir, the directory the child
 * changed to, when not NULL); a file that is not regular is never opened for reading. */
void exec_hint(const char *argv0, const char *dir, int err, enum policy_fs fs, char *buf,
	       size_t len);
