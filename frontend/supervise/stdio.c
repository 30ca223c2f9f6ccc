/* SPDX-License-Identifier: MIT */
/* fds 0-2 closed when sandcap started (supervise.h): /dev/null holds their numbers since,
 * and the command gets them closed. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>

#include "macro.h"
#include "supervise/supervise.h"

/* Bit i set when fd i was closed as sandcap started. */
static _run_data_ unsigned sv_stdio_closed;

int
sv_note_stdio(void)
{
	for (int i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) < 0) {
			sv_stdio_closed |= 1u << i;
			/* The lowest free number, so i itself (0 to i-1 are open by now). */
			int fd = open("/dev/null", O_RDWR);

			if (fd != i)
				return fd < 0 ? -errno : -EBADF;
		}
	return 0;
}

bool
sv_stdio_was_closed(int fd)
{
	return fd >= 0 && fd < 3 && (sv_stdio_closed & (1u << fd)) != 0;
}
