/* SPDX-License-Identifier: MIT */
/* The static sandcap's side of nss.h: no lookup of its own, only the handover to the
 * dynamic twin (nss.h says why; SECURITY.md, "sandcap is static-pie").  Linked instead of
 * nss.c, cmd-doctor.c, cmd-policy.c and sdbus-dl.c, so that nothing in the static program
 * can reach glibc's NSS or dlopen() a module (the Makefile's nss-check proves it). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
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

/* The twin in directory dir (a path), opened O_PATH if it and dir are trusted.  Returns the
 * descriptor, or -errno; -EPERM with why in err when either is writable by others. */
static int
open_twin_in(const char *dir, char *err, size_t errlen)
{
	_cleanup_close_ int dfd = -EBADF;
	struct stat st;
	int fd;

	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, TWIN_NAME, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	if (!trusted(&st)) {
		snprintf(err, errlen, "%s/%s is writable by others or owned by another user "
			 "(chmod go-w, or reinstall sandcap)", dir, TWIN_NAME);
		close(fd);
		return -EPERM;
	}
	if (fstat(dfd, &st) < 0 || !trusted(&st)) {
		snprintf(err, errlen, "%s is writable by others or owned by another user: its %s "
			 "is not run (chmod go-w %s)", dir, TWIN_NAME, dir);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* dir's twin into *fd (0: found, or refused with why in err: stop looking; 1: not there). */
static int
try_dir(const char *dir, int *fd, char *where, size_t wherelen, char *err, size_t errlen)
{
	snprintf(where, wherelen, "%s/%s", dir, TWIN_NAME);
	*fd = open_twin_in(dir, err, errlen);
	return *fd >= 0 || *fd == -EPERM ? 0 : 1;
}

/* Beside this program (a build tree), then in ../libexec/sandcap from it (an installed tree
 * wherever it was unpacked), then where sandcap installs it. */
static int
open_twin(char *where, size_t wherelen, char *err, size_t errlen)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	int fd;

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL && slash != exe) {
			*slash = '\0';
			if (try_dir(exe, &fd, where, wherelen, err, errlen) == 0)
				return fd;
			snprintf(dir, sizeof(dir), "%s/../libexec/sandcap", exe);
			if (try_dir(dir, &fd, where, wherelen, err, errlen) == 0)
				return fd;
		}
	}
	snprintf(dir, sizeof(dir), "%s", SC_NSS_PATH);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return -ENOENT;
	*slash = '\0';
	(void) try_dir(dir, &fd, where, wherelen, err, errlen);
	return fd;
}

int
nss_handover(const char *why)
{
	char where[PATH_MAX + 32] = "", err[PATH_MAX + 160] = "", *var = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t n = 0;
	char **envp;
	int e;

	if (getenv(NSS_HANDOVER_ENV) != NULL) {
		fprintf(stderr, "sandcap: %s needs sandcap's dynamic twin, which handed the run "
			"back (%s is set): reinstall sandcap\n", why, NSS_HANDOVER_ENV);
		return -ELOOP;
	}
	fd = open_twin(where, sizeof(where), err, sizeof(err));
	if (fd < 0) {
		if (err[0] == '\0')
			snprintf(err, sizeof(err), "%s cannot be opened: %s; reinstall sandcap "
				 "(make install)", where, strerror(-fd));
		fprintf(stderr, "sandcap: %s needs sandcap's dynamic twin, and %s\n", why, err);
		return fd;
	}
	while (saved_envp != NULL && saved_envp[n] != NULL)
		n++;
	envp = calloc(n + 2, sizeof(char *));
	if (envp == NULL || asprintf(&var, "%s=%s", NSS_HANDOVER_ENV, why) < 0) {
		fprintf(stderr, "sandcap: %s needs sandcap's dynamic twin: %s\n", why,
			strerror(ENOMEM));
		free(envp);
		return -ENOMEM;
	}
	if (n > 0)
		memcpy(envp, saved_envp, n * sizeof(char *));
	envp[n] = var;
	(void) fflush(NULL);
	(void) execveat(fd, "", saved_argv, envp, AT_EMPTY_PATH);
	e = errno;
	fprintf(stderr, "sandcap: %s needs sandcap's dynamic twin, and %s cannot be run: %s; "
		"reinstall sandcap\n", why, where, strerror(e));
	free(var);
	free(envp);
	return -e;
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
	(void) nss_handover("sandcap doctor (user and group lookups, sd-bus)");
	return SC_EXIT_FAILURE;
}

int
cmd_policy(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	(void) nss_handover("sandcap policy (user and group lookups)");
	return SC_EXIT_FAILURE;
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
