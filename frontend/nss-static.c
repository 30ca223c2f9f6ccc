/* SPDX-License-Identifier: MIT */
/* The static sandcap's side of nss.h: no lookup of its own, only the handover to the
 * dynamic twin (nss.h says why; SECURITY.md, "sandcap is static-pie").  Linked instead of
 * nss.c, cmd-doctor.c, cmd-policy.c and sdbus-dl.c, so that nothing in the static program
 * can reach glibc's NSS or dlopen() a module (the Makefile's nss-check proves it). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "fd-util.h"
#include "macro.h"
#include "nss.h"
#include "sdbus-dl.h"
#include "supervise.h"

#define TWIN_NAME "sandcap-nss"

static char **saved_argv;
static char **saved_envp;

void
nss_init(char **argv)
{
	saved_argv = argv;
	saved_envp = environ;
}

bool
nss_static(void)
{
	return true;
}

/* As trusted as the sandcap that runs it: owned by root or the caller, writable by nobody
 * else (a directory another user may write to could hold their program under this name). */
static bool
trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == getuid()) && (st->st_mode & 022) == 0;
}

/* Append "; path: why" (the first without "; ") to the list of places looked at. */
static void _printf_(3, 4)
tried(char *err, size_t errlen, const char *fmt, ...)
{
	size_t n = strlen(err);
	va_list ap;

	if (n + 3 >= errlen)
		return;
	if (n > 0) {
		memcpy(err + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	(void) vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
}

/* The twin in directory dir, opened O_PATH if it and dir are trusted.  Returns the
 * descriptor; -ENOENT when it is not there; -EPERM when it is there but must not be run.
 * Either way, what was found is added to err. */
static int
open_twin_in(const char *dir, char *where, size_t wherelen, char *err, size_t errlen)
{
	_cleanup_close_ int dfd = -EBADF, fd = -EBADF;
	struct stat st;

	snprintf(where, wherelen, "%s/%s", dir, TWIN_NAME);

	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fd = openat(dfd, TWIN_NAME, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tried(err, errlen, "%s/%s: %s", dir, TWIN_NAME, strerror(errno));
		return -ENOENT;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		tried(err, errlen, "%s/%s: not a regular file (a symbolic link is not followed)", dir,
		      TWIN_NAME);
		return -EPERM;
	}
	if (!trusted(&st)) {
		tried(err, errlen, "%s/%s: writable by others or owned by another user, not run "
		      "(chmod go-w, or reinstall sandcap)", dir, TWIN_NAME);
		return -EPERM;
	}
	if (fstat(dfd, &st) < 0 || !trusted(&st)) {
		tried(err, errlen, "%s: writable by others or owned by another user, its %s not run "
		      "(chmod go-w %s)", dir, TWIN_NAME, dir);
		return -EPERM;
	}
	return TAKE_FD(fd);
}

/* Beside this program (a build tree), then in ../libexec/sandcap from it (an installed tree
 * wherever it was unpacked), then where sandcap installs it.  The first trusted one runs;
 * one that is there but not trusted is passed over, its reason kept for the refusal (so
 * that another user's file in a directory they may write to can neither run nor stop the
 * run from reaching an installed twin: hostile review). */
static int
open_twin(char *where, size_t wherelen, char *err, size_t errlen)
{
	char exe[PATH_MAX], dir[3][PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t nd = 0;
	char *slash;
	int fd = -ENOENT;

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL && slash != exe) {
			*slash = '\0';
			snprintf(dir[nd++], sizeof(dir[0]), "%s", exe);
			snprintf(dir[nd++], sizeof(dir[0]), "%s/../libexec/sandcap", exe);
		}
	}
	snprintf(dir[nd], sizeof(dir[0]), "%s", SC_NSS_PATH);
	slash = strrchr(dir[nd], '/');
	if (slash != NULL && slash != dir[nd]) {
		*slash = '\0';
		nd++;
	}
	for (size_t i = 0; i < nd; i++) {
		int r = open_twin_in(dir[i], where, wherelen, err, errlen);

		if (r >= 0)
			return r;
		if (r == -EPERM || fd == -ENOENT)
			fd = r;
	}
	return fd;
}

int
nss_handover(const char *why, char *err, size_t errlen)
{
	char found[3 * PATH_MAX] = "", where[PATH_MAX + 64] = "", *var = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t n = 0;
	char **envp;
	int e;

	if (getenv(NSS_HANDOVER_ENV) != NULL) {
		snprintf(err, errlen, "%s needs sandcap's dynamic twin, which handed the run back "
			 "(%s is set in sandcap's environment: unset it, or reinstall sandcap)", why,
			 NSS_HANDOVER_ENV);
		return -ELOOP;
	}
	fd = open_twin(where, sizeof(where), found, sizeof(found));
	if (fd < 0) {
		snprintf(err, errlen, "%s needs sandcap's dynamic twin %s, and there is none to run "
			 "(%s); reinstall sandcap (make install)", why, TWIN_NAME, found);
		return fd;
	}
	while (saved_envp != NULL && saved_envp[n] != NULL)
		n++;
	envp = calloc(n + 2, sizeof(char *));
	if (envp == NULL || asprintf(&var, "%s=%s", NSS_HANDOVER_ENV, why) < 0) {
		snprintf(err, errlen, "%s needs sandcap's dynamic twin: %s", why, strerror(ENOMEM));
		free(envp);
		return -ENOMEM;
	}
	if (n > 0)
		memcpy(envp, saved_envp, n * sizeof(char *));
	envp[n] = var;
	(void) fflush(NULL);
	sv_close_noted_stdio();
	(void) execveat(fd, "", saved_argv, envp, AT_EMPTY_PATH);
	e = errno;
	/* /dev/null in their place again: nothing sandcap opens next may take their numbers. */
	(void) sv_note_stdio();
	snprintf(err, errlen, "%s needs sandcap's dynamic twin, and %s cannot be run: %s; "
		 "reinstall sandcap", why, where, strerror(e));
	free(var);
	free(envp);
	return -e;
}

int
nss_handover_cmd(const char *why)
{
	char err[4 * PATH_MAX];

	(void) nss_handover(why, err, sizeof(err));
	fprintf(stderr, "sandcap: %s\n", err);
	return SC_EXIT_FAILURE;
}

int
nss_caller_names(bool want_groups, char **ret_user, char **names, size_t max, size_t *ret_n)
{
	(void) want_groups;
	(void) names;
	(void) max;
	*ret_user = NULL;
	*ret_n = 0;
	return -ENOTSUP;
}

int
nss_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	(void) node;
	(void) service;
	(void) hints;
	*res = NULL;
	errno = ENOSYS;
	return EAI_SYSTEM;
}

void
nss_freeaddrinfo(struct addrinfo *res)
{
	(void) res;
}

/* ---- what is all the twin's ---- */

int
cmd_doctor(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	return nss_handover_cmd("sandcap doctor (user and group lookups, sd-bus)");
}

int
cmd_policy(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	return nss_handover_cmd("sandcap policy (user and group lookups)");
}

/* Never loaded here: cmd-run.c hands user-cgroup mode over before it would connect. */
struct sdbus_api sdbus_api;

int
sdbus_load(char *err, size_t errlen)
{
	snprintf(err, errlen, "the static sandcap does not load %s (user-cgroup mode is its "
		 "dynamic twin's)", SDBUS_SONAME);
	return -ENOTSUP;
}
