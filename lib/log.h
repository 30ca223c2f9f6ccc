/* SPDX-License-Identifier: MIT */
/* Diagnostics.  The only code that writes messages; library code logs at debug at most. */
#pragma once

#include <stdarg.h>
#include <syslog.h>

#include "macro.h"

/* Set once by main(): the prefix ("sandcap", "sandcap-helper") and the threshold. */
void log_setup(const char *prog, int max_level, int use_syslog);

/* Logs (if level <= threshold) and returns error, which should be -errno or 0.
 * errno is set to -error around the format, so %m works. */
int log_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_debug(...)   (void) log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)    (void) log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)  (void) log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) (void) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)   (void) log_internal(LOG_ERR, 0, __VA_ARGS__)

#define log_debug_errno(e, ...)   log_internal(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...)    log_internal(LOG_INFO, (e), __VA_ARGS__)
#define log_notice_errno(e, ...)  log_internal(LOG_NOTICE, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...)   log_internal(LOG_ERR, (e), __VA_ARGS__)

/* Copy an untrusted string into buf for logging: control bytes and non-ASCII become \xNN,
 * the result is capped at bufsz-1 bytes.  Returns buf. */
const char *log_escape(const char *s, char *buf, size_t bufsz);
