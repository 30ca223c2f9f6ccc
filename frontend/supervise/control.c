/* SPDX-License-Identifier: MIT */
/* The control socket of a running `sandcap run`, and the lookups of `ps` and `kill` (control.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "exit.h"
#include "supervise/control.h"
#include "macro.h"

uid_t
control_uid(void)
{
	static uid_t uid = (uid_t) -1;

	if (uid == (uid_t) -1)
		uid = getuid();
	return uid;
}

/* st is of type (S_IFDIR, S_IFSOCK), ours, with no access for group or others: nobody else
 * can have made it or reach through it. */
static bool
is_private_st(const struct stat *st, mode_t type)
{
	return (st->st_mode & S_IFMT) == type && st->st_uid == control_uid() &&
	       (st->st_mode & 077) == 0;
}

/* is_private_st() of path, not followed. */
static bool
is_private(const char *path, mode_t type)
{
	struct stat st;

	return lstat(path, &st) == 0 && is_private_st(&st, type);
}

/* $XDG_RUNTIME_DIR/sandcap when XDG_RUNTIME_DIR is an absolute path to a directory of ours;
 * -ENOENT when it is not set or not usable. */
static int
xdg_rundir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	/* Ours and writable by us alone: another user who may write in it could swap our
	 * sandcap directory for one of theirs between its check and a later use (the bind, the
	 * keeper's unlink).  Else /tmp, as without XDG_RUNTIME_DIR. */
	if (xdg == NULL || xdg[0] != '/' || stat(xdg, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != control_uid() || (st.st_mode & 022) != 0)
		return -ENOENT;
	if ((size_t) snprintf(buf, len, "%s/sandcap", xdg) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* The sandboxed commands run as the user, so they can chmod our directory (Landlock has no
 * right for chmod) and so stop every later sandcap from reaching its sessions and
 * sockets.  Give it back 0700: through an O_PATH fd that names the directory we checked,
 * never a link, and only when it is ours and nobody else can have put anything in it
 * meanwhile (no access for others on it, or none into XDG_RUNTIME_DIR, dir's parent). */
static void
rundir_repair(const char *dir)
{
	char parent[PATH_MAX], proc[64];
	struct stat st, pst;
	char *slash;
	int fd;

	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	strlcpy(parent, dir, sizeof(parent));
	slash = strrchr(parent, '/');
	if (slash != NULL)
		*slash = '\0';
	if (fstat(fd, &st) == 0 && st.st_uid == control_uid() && (st.st_mode & 07777) != 0700 &&
	    ((st.st_mode & 077) == 0 ||
	     (slash != NULL && stat(parent, &pst) == 0 && (pst.st_mode & 077) == 0))) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		(void) chmod(proc, 0700);
	}
	close(fd);
}

int
control_rundir(char *buf, size_t len, int create)
{
	struct stat st;
	int r = xdg_rundir(buf, len);

	if (r < 0)
		return r;
	if (create && mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(buf, &st) < 0)
		return -errno;
	/* Only a mode other than 0700 needs the repair (which touches nothing else). */
	if ((st.st_mode & 07777) != 0700) {
		rundir_repair(buf);
		if (lstat(buf, &st) < 0)
			return -errno;
	}
	/* One open to others, or not a directory of ours: refuse. */
	if (!is_private_st(&st, S_IFDIR))
		return -EPERM;
	return 0;
}

/* Without XDG_RUNTIME_DIR each run's socket is /tmp/sandcap-<id>.sock, made by bind()
 * with mode 0700 (umask 077): only we can connect to it, and /tmp's sticky bit lets only
 * us remove or rename it; the id is random, so no other user can take the name first,
 * and bind() never follows or replaces what is there, so no per-run directory is needed.
 * A fixed /tmp/sandcap-<uid> could be squatted by anyone and is never used.
 * Is name one of the per-run directories of earlier versions (still searched, so that a
 * sandbox started before an upgrade stays visible)? */
static bool
is_tmp_rundir_name(const char *name)
{
	char prefix[64];
	size_t l;

	l = (size_t) snprintf(prefix, sizeof(prefix), "sandcap-%u", (unsigned) control_uid());
	if (!strneq(name, prefix, l))
		return false;
	return name[l] == '.' && strlen(name + l + 1) == 6;
}

/* The name prefix of our sockets in /tmp itself (the rest is "<id>.sock"). */
#define TMP_PREFIX "sandcap-"

/* Call fn(dir, prefix) for every place that may hold our sockets: the XDG directory, else
 * /tmp itself (names TMP_PREFIX<id>.sock, each socket checked) and each private directory
 * of ours in /tmp of earlier versions.  Stops at, and returns, fn's first non-zero result. */
static int
for_each_rundir(int (*fn)(const char *dir, const char *prefix, void *ud), void *ud)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int r;

	r = control_rundir(dir, sizeof(dir), 0);
	if (r == 0)
		return fn(dir, "", ud);
	if (r != -ENOENT || xdg_rundir(dir, sizeof(dir)) == 0)
		return r == -ENOENT ? 0 : r;
	r = fn("/tmp", TMP_PREFIX, ud);
	if (r != 0)
		return r;
	d = opendir("/tmp");
	if (d == NULL)
		return -errno;
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (!is_tmp_rundir_name(de->d_name))
			continue;
		snprintf(dir, sizeof(dir), "/tmp/%s", de->d_name);
		/* Someone else's (a squatter) or open to others: not ours to trust. */
		if (is_private(dir, S_IFDIR))
			r = fn(dir, "", ud);
	}
	closedir(d);
	return r;
}

static bool
id_is_valid(const char *id)
{
	/* ids are "<uid>-<hex>": never a path */
	return id[0] != '\0' && strlen(id) <= 64 && strchr(id, '/') == NULL && id[0] != '.';
}

static int
make_addr(const char *dir, const char *prefix, const char *id, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t) snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s%s.sock", dir, prefix,
			      id) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

_Static_assert(sizeof(((struct sockaddr_un *) 0)->sun_path) == CONTROL_PATH_MAX,
	       "CONTROL_PATH_MAX is sun_path's size");

int
control_path(const char *id, char *ret_path, size_t pathlen)
{
	struct sockaddr_un sa;
	char dir[PATH_MAX];
	bool tmp = false;
	int r;

	if (!id_is_valid(id))
		return -EINVAL;
	r = control_rundir(dir, sizeof(dir), 1);
	if (r == -ENOENT) {
		strlcpy(dir, "/tmp", sizeof(dir));
		tmp = true;
		r = 0;
	}
	if (r == 0)
		r = make_addr(dir, tmp ? TMP_PREFIX : "", id, &sa);
	if (r == 0 && strlcpy(ret_path, sa.sun_path, pathlen) >= pathlen)
		r = -ENAMETOOLONG;
	return r;
}

/* Is path a socket in /tmp itself (TMP_PREFIX<id>.sock), not in a directory of ours? */
static bool
in_tmp(const char *path)
{
	return strneq(path, "/tmp/" TMP_PREFIX, strlen("/tmp/" TMP_PREFIX)) &&
	       strchr(path + strlen("/tmp/"), '/') == NULL;
}

/* The socket is bound and listening under a name of its own (".bind" for ".sock"), then
 * renamed into place: a scan (sandcap ps, session end) that finds the name always finds a
 * listener, never a socket between bind() and listen() that refuses connections and would
 * be taken for a stale one and removed. */
int
control_listen_at(const char *path, int *ret_fd)
{
	_cleanup_close_ int fd = -EBADF;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t l = strlen(path);
	mode_t um;
	int r;

	if (l >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	if (l < 5 || !streq(path + l - 5, ".sock"))
		return -EINVAL;
	memcpy(sa.sun_path, path, l - 5);
	memcpy(sa.sun_path + l - 5, ".bind", sizeof(".bind"));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* 0700 from the start: sandcap has one thread, so the umask is ours alone. */
	um = umask(077);
	r = bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ? -errno : 0;
	/* A leftover of ours in our own directory is replaced; in /tmp nothing is. */
	if (r == -EADDRINUSE && !in_tmp(path) && unlink(sa.sun_path) == 0)
		r = bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ? -errno : 0;
	(void) umask(um);
	if (r < 0)
		return r;
	if (listen(fd, 8) < 0 || renameat2(AT_FDCWD, sa.sun_path, AT_FDCWD, path,
					   in_tmp(path) ? RENAME_NOREPLACE : 0) < 0) {
		r = errno == EEXIST ? -EADDRINUSE : -errno; /* the name is in use, as for bind() */
		(void) unlink(sa.sun_path);
		return r;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int
control_listen(const char *id, int *ret_fd, char *ret_path, size_t pathlen)
{
	int r = control_path(id, ret_path, pathlen);

	if (r == 0)
		r = control_listen_at(ret_path, ret_fd);
	if (r < 0 && pathlen > 0)
		ret_path[0] = '\0';
	return r;
}

void
control_unlisten(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	char xdg[PATH_MAX];

	if (path == NULL || path[0] == '\0')
		return;
	strlcpy(dir, path, sizeof(dir));
	slash = strrchr(dir, '/');
	/* The command may have taken our directory's mode away (rundir_repair()). */
	if (unlink(path) < 0 && errno == EACCES && slash != NULL) {
		*slash = '\0';
		if (xdg_rundir(xdg, sizeof(xdg)) == 0 && streq(dir, xdg)) {
			rundir_repair(dir);
			(void) unlink(path);
		}
	}
	if (slash == NULL)
		return;
	*slash = '\0';
	/* A run's own directory in /tmp of an earlier version (empty now); never the shared
	 * XDG one, never /tmp. */
	if (strneq(dir, "/tmp/", 5) && strchr(dir + 5, '/') == NULL && is_tmp_rundir_name(dir + 5))
		(void) rmdir(dir);
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
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != control_uid())
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

/* A sandboxed command may also chmod its own control socket (connect() needs write
 * permission on it), so that end, kill and the keeper could no longer stop it: a socket of
 * ours that no one else may use gets back 0700, through an O_PATH fd of it.  It lies in
 * our private directory, or in /tmp, whose sticky bit lets only us rename it. */
static void
sock_repair(const char *path)
{
	char proc[64];
	struct stat st;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == control_uid() &&
	    (st.st_mode & 077) == 0 && (st.st_mode & 0700) != 0700) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		(void) chmod(proc, 0700);
	}
	close(fd);
}

static int
request_at(const char *path, const char *req, char *reply, size_t replylen)
{
	_cleanup_close_ int fd = -EBADF;
	struct timeval tv = { .tv_sec = 2, .tv_usec = 0 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	ssize_t n;

	if (replylen == 0)
		return -EINVAL;
	reply[0] = '\0'; /* on every failure the caller reads an empty reply */
	if (strlcpy(sa.sun_path, path, sizeof(sa.sun_path)) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	sock_repair(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
		return -errno;
	/* The listener must be ours too (the directory is private; this is the second lock). */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != control_uid())
		return -EPERM;
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

struct find_ctx {
	const char *id;
	char path[PATH_MAX];
};

static int
find_in(const char *dir, const char *prefix, void *ud)
{
	struct find_ctx *c = ud;
	struct sockaddr_un sa;
	struct stat st;

	if (make_addr(dir, prefix, c->id, &sa) < 0)
		return 0;
	if (lstat(sa.sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return 0;
	/* In /tmp itself anyone may make a file of that name: only ours, private. */
	if (prefix[0] != '\0' && !is_private(sa.sun_path, S_IFSOCK))
		return 0;
	strlcpy(c->path, sa.sun_path, sizeof(c->path));
	return 1;
}

int
control_request(const char *id, const char *req, char *reply, size_t replylen)
{
	struct find_ctx c = { .id = id };
	int r;

	if (replylen > 0)
		reply[0] = '\0'; /* a string even on failure */
	if (!id_is_valid(id))
		return -EINVAL;
	r = for_each_rundir(find_in, &c);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	return request_at(c.path, req, reply, replylen);
}

struct scan_ctx {
	int (*fn)(const char *id, const char *status, void *ud);
	void *ud;
};

/* The sandboxes of one run dir (in /tmp: the private sockets of ours whose names begin
 * with prefix); stale sockets (nobody listening) removed. */
static int
scan_dir(const char *dir, const char *prefix, void *ud)
{
	struct scan_ctx *c = ud;
	char status[CONTROL_MSG_MAX];
	struct dirent **list = NULL;
	size_t pl = strlen(prefix);
	int n, r;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		char id[128], p[PATH_MAX + 300];
		const char *name = list[i]->d_name;
		size_t l = strlen(name);

		if (l > pl + 5 && l - pl < sizeof(id) && strneq(name, prefix, pl) &&
		    streq(name + l - 5, ".sock")) {
			memcpy(id, name + pl, l - pl - 5);
			id[l - pl - 5] = '\0';
			snprintf(p, sizeof(p), "%s/%s", dir, name);
			if (!id_is_valid(id) || (pl > 0 && !is_private(p, S_IFSOCK)))
				r = -EPERM;
			else
				r = request_at(p, "status", status, sizeof(status));
			if (r == -ECONNREFUSED)
				control_unlisten(p); /* its sandcap is gone */
			else if (r == 0 && status[0] == '{')
				c->fn(id, status, c->ud);
		}
		free(list[i]);
	}
	free(list);
	return 0;
}

int
control_for_each_sandbox(int (*fn)(const char *id, const char *status, void *ud), void *ud)
{
	struct scan_ctx c = { fn, ud };

	return for_each_rundir(scan_dir, &c);
}
