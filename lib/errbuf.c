/* SPDX-License-Identifier: MIT */
/* Reason buffers (errbuf.h). */
#include <stdarg.h>
#include <stdio.h>

#include "errbuf.h"

void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	(void) vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
