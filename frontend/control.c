/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "commands.h"
#include "control.h"
#include "macro.h"

static bool
dir_is_private(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       (st.st_mode & 077) == 0;
}

int
control_rundir(char *buf, size_t len, int create)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (xdg != NULL && xdg[0] == '/' && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid())
		snprintf(buf, len, "%s/sandcap", xdg);
	else
		snprintf(buf, len, "/tmp/sandcap-%u", (unsigned) getuid());
	if (create && mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(buf, &st) < 0)
		return -errno;
	/* Someone else's directory (a squatter in /tmp) or one open to others: refuse. */
	if (!dir_is_private(buf))
		return -EPERM;
	return 0;
}

static int
sock_path(const char *id, struct sockaddr_un *sa, int create)
{
	char dir[PATH_MAX];
	int r;

	/* ids are "<uid>-<hex>": never a path */
	if (id[0] == '\0' || strlen(id) > 64 || strchr(id, '/') != NULL || id[0] == '.')
		return -EINVAL;
	r = control_rundir(dir, sizeof(dir), create);
	if (r < 0)
		return r;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t) snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s.sock", dir, id) >=
	    sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

int
control_listen(const char *id, int *ret_fd, char *ret_path, size_t pathlen)
{
	_cleanup_close_ int fd = -EBADF;
	struct sockaddr_un sa;
	int r;

	r = sock_path(id, &sa, 1);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void) unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(fd, 8) < 0)
		return -errno;
	strlcpy(ret_path, sa.sun_path, pathlen);
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int
control_serve_one(int listen_fd, const struct control_ops *ops)
{
	_cleanup_close_ int fd = -EBADF;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	char req[256], reply[CONTROL_MSG_MAX];
	ssize_t n;
	int r;

	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	/* Only our own uid: the directory is 0700 already; this is the second lock. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != getuid())
		return 0;
	(void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (;;) {
		n = recv(fd, req, sizeof(req) - 1, 0);
		if (n <= 0)
			return 0;
		req[n] = '\0';
		if (streq(req, "status")) {
			if (ops->status(ops->userdata, reply, sizeof(reply)) < 0)
				snprintf(reply, sizeof(reply), "error: status unavailable");
		} else if (strneq(req, "kill ", 5)) {
			char *end;
			long sig = strtol(req + 5, &end, 10);

			if (*end != '\0' || end == req + 5 || sig < 0 || sig >= NSIG)
				snprintf(reply, sizeof(reply), "error: bad signal");
			else if ((r = ops->kill(ops->userdata, (int) sig, cred.pid, cred.uid)) < 0)
				snprintf(reply, sizeof(reply), "error: %s", strerror(-r));
			else
				snprintf(reply, sizeof(reply), "ok");
		} else {
			snprintf(reply, sizeof(reply), "error: unknown request");
		}
		if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0)
			return 0;
	}
}

int
control_request(const char *id, const char *req, char *reply, size_t replylen)
{
	_cleanup_close_ int fd = -EBADF;
	struct timeval tv = { .tv_sec = 2, .tv_usec = 0 };
	struct sockaddr_un sa;
	ssize_t n;
	int r;

	if (replylen > 0)
		reply[0] = '\0';        /* a string even on failure */
	r = sock_path(id, &sa, 0);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
		return -errno;
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
		return -errno;
	n = recv(fd, reply, replylen - 1, 0);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	reply[n] = '\0';
	return 0;
}
