/* SPDX-License-Identifier: MIT */
/* Reason buffers: a function that can fail says why in a caller's `char *err, size_t errlen`. */
#pragma once

#include <stddef.h>

#include "macro.h"

/* Format the reason into err (truncated to errlen - 1 bytes, always NUL-terminated).
 * Does nothing when err is NULL or errlen is 0, so callers that do not want the reason
 * pass NULL, 0. */
void set_err(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);
