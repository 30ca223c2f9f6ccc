/* SPDX-License-Identifier: MIT */
/*
 * Which signals need a reset: the kernel says in /proc/self/status (SigIgn: ignored,
 * SigCgt: caught).  After execve only ignored ones survive; in a forked child the parent's
 * handlers do too.  When the status cannot be read (no procfs, a Landlock domain, a
 * truncated read) or parsed, every signal is reset, as before: the answer is never a
 * smaller set than the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "sigreset.h"

int
sig_status_mask(const char *status, const char *key, uint64_t *ret_mask)
{
	size_t klen = strlen(key);

	for (const char *p = status; p != NULL && *p != '\0';) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			const char *q = p + klen + 1;
			uint64_t m = 0;
			int n;

			q += strspn(q, " \t");
			for (n = 0; n < 16; n++) {
				char c = q[n];
				unsigned d;

				if (c >= '0' && c <= '9')
					d = (unsigned) (c - '0');
				else if (c >= 'a' && c <= 'f')
					d = (unsigned) (c - 'a' + 10);
				else
					return -EBADMSG;
				m = m << 4 | d;
			}
			if (q[16] != '\n')
				return -EBADMSG; /* longer, or cut off by a short read */
			*ret_mask = m;
			return 0;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -ENOENT;
}

/* Which signals are ignored (*ret_ign) or caught; UINT64_MAX for both when unknown. */
static uint64_t
nondefault_signals(uint64_t *ret_ign)
{
	char buf[4096];
	uint64_t ign, cgt;
	struct statfs sfs;
	ssize_t n = -1;
	int fd = open("/proc/self/status", O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0 && fstatfs(fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC)
		n = read(fd, buf, sizeof(buf) - 1);
	(void) safe_close(fd);
	*ret_ign = UINT64_MAX;
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	if (sig_status_mask(buf, "SigIgn", &ign) < 0 || sig_status_mask(buf, "SigCgt", &cgt) < 0)
		return UINT64_MAX;
	*ret_ign = ign;
	return ign | cgt;
}

/* libc refuses sigaction() on its own signals (SIGCANCEL 32, SIGSETXID 33), but a parent
 * may pass them on ignored (GNU make's children have both ignored), and an exec'd program
 * would start with them so.  An all-zero kernel sigaction is SIG_DFL, no flags, empty mask,
 * whatever the architecture's layout. */
static void
reset_raw(int sig)
{
	static const unsigned long zero[8];

	(void) syscall(SYS_rt_sigaction, sig, zero, NULL, (size_t) (_NSIG / 8));
}

/* Does the kernel hold anything but the default for sig?  The raw call, for libc's own two,
 * which sigaction() refuses even to report: all zero is SIG_DFL whatever the layout. */
static bool
raw_nondefault(int sig)
{
	unsigned long old[8] = { 0 };

	if (syscall(SYS_rt_sigaction, sig, NULL, old, (size_t) (_NSIG / 8)) < 0)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(old); i++)
		if (old[i] != 0)
			return true;
	return false;
}

/* Asked signal by signal rather than read from /proc/self/status: exact, and procfs or a
 * Landlock domain cannot hide the answer (and a process's first open of its /proc
 * directory costs more than the queries).  libc's own two count as ignored when not
 * default: the child then resets them raw, as it would inherited ignored ones (a handler
 * of libc's would not survive the exec anyway). */
uint64_t
sig_nondefault(uint64_t *ret_ign)
{
	uint64_t todo = 0, ign = 0;

	for (int sig = 1; sig < NSIG && sig <= 64; sig++) {
		uint64_t bit = UINT64_C(1) << (sig - 1);
		struct sigaction old;

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sigaction(sig, NULL, &old) == 0) {
			if (old.sa_handler == SIG_IGN)
				ign |= bit;
			if (old.sa_handler != SIG_DFL)
				todo |= bit;
		} else if (raw_nondefault(sig)) {
			ign |= bit;
			todo |= bit;
		}
	}
	*ret_ign = ign;
	return todo;
}

int
sig_reset_dispositions(void)
{
	uint64_t ign, todo = nondefault_signals(&ign);

	return sig_reset_these(todo, ign);
}

int
sig_reset_these(uint64_t todo, uint64_t ign)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	int n = 0;

	for (int sig = 1; sig < NSIG && sig <= 64; sig++) {
		uint64_t bit = UINT64_C(1) << (sig - 1);

		if (!(todo & bit) || sig == SIGKILL || sig == SIGSTOP)
			continue;
		/* EINVAL for libc's own: reset them only when ignored (caught is libc's own
		 * handler, which stays). */
		if (sigaction(sig, &dfl, NULL) < 0 && errno == EINVAL && (ign & bit))
			reset_raw(sig);
		n++;
	}
	return n;
}
