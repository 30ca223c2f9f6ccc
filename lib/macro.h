/* SPDX-License-Identifier: MIT */
/* Small macros shared by every module: cleanup attributes, ownership transfer. */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_     __attribute__((unused))
#define _noreturn_   __attribute__((noreturn))
#define _noinline_   __attribute__((noinline))
/* perf: a small static that every run writes: in .data with the initialised ones, not on a
 * page of .bss of its own, which the write would fault in. */
#define _run_data_      __attribute__((section(".data")))
#define _printf_(a, b)  __attribute__((format(printf, a, b)))
#define _warn_unused_   __attribute__((warn_unused_result))
#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))
#define streq(a, b)     (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)

/* Always returns -EBADF so callers can write fd = safe_close(fd). */
static inline int
safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		(void) close(fd);
		errno = saved;
	}
	return -EBADF;
}

static inline void
freep(void *p)
{
	free(*(void **) p);
}
static inline void
closep(int *fd)
{
	*fd = safe_close(*fd);
}

/* errno as a negative return value; never 0 even if errno was not set. */
static inline int
neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#define _cleanup_free_  _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define TAKE_PTR(p)                     \
	({                              \
		__typeof__(p) _p = (p); \
		(p) = NULL;             \
		_p;                     \
	})
#define TAKE_FD(fd)             \
	({                      \
		int _fd = (fd); \
		(fd) = -EBADF;  \
		_fd;            \
	})
