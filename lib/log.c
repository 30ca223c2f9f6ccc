/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"

static const char *log_prog = "sandcap";
static int log_max_level = LOG_INFO;
static _run_data_ int log_syslog;

void
log_setup(const char *prog, int max_level, int use_syslog)
{
	log_prog = prog;
	log_max_level = max_level;
	log_syslog = use_syslog;
	/* No syslog socket (a container, a minimal guest): glibc would retry socket+connect
	 * for every message and then drop it (no LOG_CONS), five system calls each; drop them
	 * here instead, once (#19). */
	if (use_syslog && access("/dev/log", F_OK) < 0)
		log_max_level = -1;
	else if (use_syslog)
		openlog(prog, LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
}

int
log_internal(int level, int error, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (level > log_max_level)
		return error;
	errno = error < 0 ? -error : error;
	va_start(ap, fmt);
	if (log_syslog) {
		vsyslog(level, fmt, ap);
	} else {
		char buf[2048];

		(void) vsnprintf(buf, sizeof(buf), fmt, ap);
		(void) fprintf(stderr, "%s: %s\n", log_prog, buf);
	}
	va_end(ap);
	errno = saved;
	return error;
}

const char *
log_escape(const char *s, char *buf, size_t bufsz)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (bufsz == 0)
		return buf;
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char) *s;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (o + 1 >= bufsz)
				break;
			buf[o++] = (char) c;
		} else {
			if (o + 4 >= bufsz)
				break;
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	buf[o] = '\0';
	return buf;
}
