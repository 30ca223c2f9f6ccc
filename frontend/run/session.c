/* SPDX-License-Identifier: MIT */
/* Sessions: the directory, its locks, start, the keeper and the teardown (session.h). */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dir-util.h"
#include "fd-util.h"
#include "macro.h"
#include "run/session-cgroup.h"
#include "run/session-io.h"
#include "run/session-usercg.h"
#include "run/session.h"
#include "supervise/control.h"

#define TREE_DEPTH_MAX 256

uint64_t
session_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

int
session_workspace(const char *id, char *buf, size_t len)
{
	return session_workspace_path(id, buf, len);
}

int
session_workspace_path(const char *id, char *buf, size_t len)
{
	char dir[PATH_MAX];
	int r = control_rundir(dir, sizeof(dir), 0), n;

	if (sesscg_workspace(id, buf, len) == 0)
		return 0; /* cgroup mode: the level's tmpfs */
	if (r < 0)
		return r;
	n = snprintf(buf, len, "%s/sessions/%s/workspace", dir, id);
	return n < 0 || (size_t) n >= len ? -ENAMETOOLONG : 0;
}

/* A directory we opened: ours, a directory, open to nobody else. */
static int
check_private(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != control_uid() || (st.st_mode & 077) != 0)
		return -EPERM;
	return 0;
}

int
session_private_dir(int at, const char *name, bool create)
{
	int fd, r;

	if (create && mkdirat(at, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = check_private(fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* chmod of what fd (O_PATH) names, through its /proc/self/fd name: never a path. */
static int
chmod_fd(int fd, mode_t mode)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return chmod(proc, mode) < 0 ? -errno : 0;
}

/* Landlock has no right for chmod, so a call (even under --fs ro) can change the modes of
 * the session's directory and files: each of ours is given back 0600, the workspace its
 * u+rwx (the next call's working directory). */
void
session_repair(int dfd)
{
	struct dir_iter *it = calloc(1, sizeof(*it));
	unsigned char type;
	const char *e;

	(void) fchmod(dfd, 0700);
	if (it == NULL)
		return;
	it->fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (it->fd >= 0 && (e = dir_next(it, &type)) != NULL) {
		struct stat st;
		int fd;

		fd = openat(dfd, e, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* The workspace keeps the mode the calls gave it, but for ours to use. */
		if (streq(e, "workspace") && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
		    st.st_uid == control_uid() && (st.st_mode & 0700) != 0700)
			(void) chmod_fd(fd, (st.st_mode & 07777) | 0700);
		if (streq(e, "workspace")) {
			close(fd);
			continue;
		}
		/* A file with another name may be one of the user's elsewhere: left alone. */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == control_uid() &&
		    st.st_nlink == 1 && (st.st_mode & 07777) != 0600)
			(void) chmod_fd(fd, 0600);
		close(fd);
	}
	if (it->fd >= 0)
		close(it->fd);
	free(it);
}

/* A session's directory, or the sessions root: under a directory checked private, where no
 * one else can reach it, so one of ours whose mode a call changed is given back 0700. */
static int
session_dir(int rootfd, const char *id)
{
	struct stat st;
	int p = openat(rootfd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r = 0;

	if (p < 0)
		return -errno;
	if (fstat(p, &st) < 0)
		r = -errno;
	else if (st.st_uid == control_uid() && (st.st_mode & 07777) != 0700)
		r = chmod_fd(p, 0700);
	close(p);
	return r < 0 ? r : session_private_dir(rootfd, id, false);
}

int
session_root(bool create, int *ret_fd, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int r, fd, root;

	r = control_rundir(dir, sizeof(dir), create);
	if (r == -EPERM)
		snprintf(err, errlen,
			 "%s is not a directory of yours with mode 0700, and others could enter "
			 "it (a sandboxed command may have changed its mode): check that "
			 "everything in it is yours, then chmod 0700 %s",
			 dir, dir);
	else if (r == -EACCES && strrchr(dir, '/') != NULL)
		snprintf(err, errlen,
			 "%s: %s (XDG_RUNTIME_DIR's mode was changed): chmod 0700 %.*s", dir,
			 strerror(-r), (int) (strrchr(dir, '/') - dir), dir);
	else if (r < 0)
		snprintf(err, errlen, "sessions live in $XDG_RUNTIME_DIR/sandcap, which is %s: %s",
			 "unusable",
			 "log in with a systemd session, or set XDG_RUNTIME_DIR to a directory of "
			 "yours with mode 0700");
	if (r < 0)
		return r;
	fd = session_private_dir(AT_FDCWD, dir, false);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-fd));
		return fd;
	}
	root = create && mkdirat(fd, "sessions", 0700) < 0 && errno != EEXIST
		       ? -errno
		       : session_dir(fd, "sessions");
	close(fd);
	if (root < 0) {
		if (root == -ENOENT)
			snprintf(err, errlen, "no sessions (%s/sessions does not exist)", dir);
		else
			snprintf(err, errlen, "%s/sessions: %s", dir,
				 root == -EPERM ? "not a directory of yours with mode 0700"
						: strerror(-root));
		return root;
	}
	*ret_fd = root;
	return 0;
}

int
session_check_ctl(const char *call_id, char *err, size_t errlen)
{
	char id[64], path[CONTROL_PATH_MAX];
	int r;

	if (call_id == NULL)
		snprintf(id, sizeof(id), "%u-000000000000", (unsigned) control_uid());
	r = control_path(call_id != NULL ? call_id : id, path, sizeof(path));
	if (r < 0)
		snprintf(
			err, errlen,
			"a call's control socket, $XDG_RUNTIME_DIR/sandcap/<id>.sock, "
			"cannot be made (%s), and without it nothing could stop a running call at "
			"the end or the TTL: use a shorter XDG_RUNTIME_DIR (at most about 80 bytes)",
			strerror(-r));
	return r;
}

int
session_open(int rootfd, const char *id, int *ret_dfd, struct session_state *ret, char *err,
	     size_t errlen)
{
	char buf[SESSION_STATE_MAX];
	size_t len;
	int dfd, r;

	if (!session_id_valid(id)) {
		snprintf(err, errlen,
			 "'%.40s' is not a session id (12 hex digits, from sandcap "
			 "session start or ls)",
			 id);
		return -ENOENT;
	}
	dfd = session_dir(rootfd, id);
	if (dfd >= 0)
		session_repair(dfd);
	if (dfd < 0) {
		snprintf(err, errlen, "no session %s of yours%s", id,
			 dfd == -ENOENT
				 ? " (ended, expired or never started; see sandcap session ls)"
				 : "");
		return dfd == -ENOENT ? -ENOENT : dfd;
	}
	r = read_full_at(dfd, "state", buf, sizeof(buf), &len);
	if (r == -ENOENT) {
		close(dfd);
		snprintf(err, errlen, "session %s has ended", id);
		return -ENOENT;
	}
	if (r < 0 || session_state_parse(buf, ret) < 0 || !streq(ret->id, id)) {
		close(dfd);
		snprintf(err, errlen, "session %s: its state is unreadable", id);
		return r < 0 ? r : -EINVAL;
	}
	/* The mode is the id's, whatever the state (which a call can rewrite) says: the
	 * calls of a session in a cgroup level or a scope go on running there, or are
	 * refused when it is gone. */
	(void) snprintf(ret->mode, sizeof(ret->mode), "%s", session_id_mode(id));
	*ret_dfd = dfd;
	return 0;
}

int
session_flock(int fd, int op, uint64_t ms)
{
	uint64_t end = session_now_ms() + ms;

	for (;;) {
		const struct timespec step = { 0, 20 * 1000 * 1000 };

		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK || session_now_ms() >= end)
			return errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		nanosleep(&step, NULL);
	}
}

int
session_lock(int dfd, const char *name, int op, uint64_t ms, int *ret_fd)
{
	int fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), r;

	*ret_fd = -EBADF;
	if (fd < 0)
		return -errno;
	r = session_flock(fd, op, ms);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

bool
session_keeper_gone(int dfd)
{
	int fd, r = session_lock(dfd, "keeper", LOCK_SH, 0, &fd);

	if (r == 0)
		close(fd);
	return r == 0 || r == -ENOENT;
}

int
session_write_file(int dfd, const char *name, const char *data, size_t len)
{
	char tmp[64];
	int fd, r = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	(void) unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t) len)
		r = errno != 0 ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void) unlinkat(dfd, tmp, 0);
	return r;
}

/* A directory the command made unreadable or unwritable (chmod 0, 0500) is still ours to
 * open up: by an O_PATH fd, which names that directory whatever its path now holds. */
static int
open_dir_writable(int dfd, const char *name)
{
	char proc[64];
	struct stat st;
	int p, fd;

	p = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p);
	if (fstat(p, &st) < 0 || ((st.st_mode & 0700) != 0700 && chmod(proc, 0700) < 0))
		fd = -errno;
	else if ((fd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		fd = -errno;
	close(p);
	return fd;
}

/* A directory below TREE_DEPTH_MAX (the command may nest them as deep as it likes) is moved
 * up into top, the directory the walk began in, under a name of its own; the next walk
 * takes it from there. */
static int
move_up(int dfd, const char *name, int top, unsigned *moved)
{
	char tmp[32];

	for (unsigned i = 0; i < 1000; i++) {
		snprintf(tmp, sizeof(tmp), ".deep-%u", (*moved)++);
		if (renameat2(dfd, name, top, tmp, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Remove name under dfd and all below it, never following a symbolic link (the workspace
 * holds what the sandboxed commands made).  top: the fd of the walk's first directory, or
 * -1 at its start. */
static int
rm_tree(int dfd, const char *name, int depth, int top, unsigned *moved)
{
	struct dir_iter *it;
	unsigned char type;
	const char *e;
	int r = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	if (depth > TREE_DEPTH_MAX)
		return move_up(dfd, name, top, moved);
	it = calloc(1, sizeof(*it));
	if (it == NULL)
		return -ENOMEM;
	it->fd = open_dir_writable(dfd, name);
	if (it->fd < 0) {
		r = it->fd;
		free(it);
		return r;
	}
	while (r == 0 && (e = dir_next(it, &type)) != NULL)
		r = rm_tree(it->fd, e, depth + 1, top >= 0 ? top : it->fd, moved);
	if (r == 0 && errno != 0 && e == NULL)
		r = -errno;
	close(it->fd);
	free(it);
	if (r == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		r = -errno;
	return r;
}

/* rm_tree() again while it moved deep directories up that its walk did not get to. */
static int
rm_all(int dfd, const char *name)
{
	unsigned moved = 0, before, tries = 0;
	int r;

	/* Again while a pass made progress, and a few times more: a cgroup-mode keeper writes
	 * its "usage" (a temporary, then a rename) every second, also while end empties the
	 * directory. */
	do {
		before = moved;
		r = rm_tree(dfd, name, 0, -1, &moved);
	} while (r == -ENOTEMPTY && (moved != before || ++tries < 5));
	return r;
}

/* Calls hold "lock" while they run: take it, killing the running call if need be.  A call
 * that took the lock just now may not answer on its control socket yet (or not have
 * written "running"): the kill is sent again until the lock is ours, each try bounded by
 * control_request()'s deadline.  "ending" turns away the calls that take the lock after. */
static int
lock_out_calls(int dfd, int *ret_fd, char *err, size_t errlen)
{
	uint64_t end = session_now_ms() + SESSION_KILL_WAIT_MS;
	char id[80], reply[CONTROL_MSG_MAX];
	size_t len;
	int fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), r;

	if (fd < 0)
		return -errno;
	(void) session_write_file(dfd, "ending", "", 0);
	while ((r = session_flock(fd, LOCK_EX, 100)) == -ETIMEDOUT && session_now_ms() < end) {
		if (read_full_at(dfd, "running", id, sizeof(id), &len) == 0 && len > 0) {
			id[strcspn(id, "\n")] = '\0';
			(void) control_request(id, "kill 9", reply, sizeof(reply));
		}
	}
	if (r < 0) {
		close(fd);
		(void) unlinkat(dfd, "ending", 0);
		snprintf(err, errlen,
			 "a call of the session still runs after SIGKILL (%s); "
			 "try again, or sandcap kill it",
			 strerror(-r));
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int
session_remove(int rootfd, int dfd, const char *id)
{
	static const char *const files[] = { "state", "calls",  "running", "ending",
					     "lock",  "cgroup", "usage",   "ucg" };
	char name[32];
	int r;

	for (size_t i = 0; i < ELEMENTSOF(files); i++)
		(void) unlinkat(dfd, files[i], 0);
	r = rm_all(dfd, "workspace");
	for (unsigned n = 1; n < 1000000; n++) {
		snprintf(name, sizeof(name), "call-%u.json", n);
		if (unlinkat(dfd, name, 0) < 0 && errno == ENOENT)
			break;
	}
	(void) unlinkat(dfd, "keeper", 0);
	if (r == 0)
		r = rm_all(rootfd, id); /* leftovers: temporaries */
	return r;
}

static FILE *
report_target(const struct session_state *s)
{
	int fd;

	if (s->report[0] == '\0')
		return NULL;
	fd = open(s->report, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? NULL : fdopen(fd, "w");
}

/* The report, in memory: written out only once everything is removed, so that a reader
 * that goes away (SIGPIPE) cannot leave the session half-removed. */
static char *
report_text(int dfd, const struct session_state *s, const char *why, bool json, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		return NULL;
	(void) session_report(dfd, s, why, f, json);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void
wait_keeper_gone(int keeper, uint64_t ms)
{
	const struct timespec step = { 0, 20 * 1000 * 1000 };
	uint64_t end = session_now_ms() + ms;

	/* The keeper sees the directory go (inotify) and exits, letting go of its lock. */
	while (flock(keeper, LOCK_SH | LOCK_NB) < 0 && session_now_ms() < end)
		nanosleep(&step, NULL);
}

int
session_teardown(int rootfd, int dfd, const struct session_state *s, const char *why, FILE *out,
		 bool json, bool wait_keeper, char *err, size_t errlen)
{
	_cleanup_close_ int lock = -EBADF, keeper = -EBADF;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	r = lock_out_calls(dfd, &lock, err, errlen);
	if (r < 0)
		return r;
	if (session_is_usercg(s))
		session_usercg_teardown(dfd, s);
	text = report_text(dfd, s, why, out != NULL ? json : true, &len);
	/* Gone first: a call waiting for the lock then finds no state and refuses.  The
	 * directory's own flock, held until the end, keeps session ls from taking what is
	 * left for a start or end cut short. */
	if (flock(dfd, LOCK_EX | LOCK_NB) < 0 || unlinkat(dfd, "state", 0) < 0) {
		snprintf(err, errlen, "session %s has ended", s->id);
		return -ENOENT;
	}
	if (wait_keeper)
		keeper = openat(dfd, "keeper", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	r = session_remove(rootfd, dfd, s->id);
	f = out != NULL ? out : report_target(s);
	if (f != NULL && text != NULL)
		fwrite(text, 1, len, f);
	if (f != NULL && f != out)
		fclose(f);
	if (r < 0) {
		snprintf(err, errlen, "session %s: cannot remove everything: %s", s->id,
			 strerror(-r));
		return r;
	}
	if (keeper >= 0)
		/* In cgroup mode the keeper exits once its helper removed the level. */
		wait_keeper_gone(keeper, sesscg_is(s) ? CLIENT_DESTROY_DEADLINE_MS
						      : SESSION_KEEPER_WAIT_MS);
	return 0;
}

int
session_end(const char *id, FILE *out, bool json, char *err, size_t errlen)
{
	_cleanup_close_ int rootfd = -EBADF, dfd = -EBADF;
	struct session_state s = {};
	int r = session_root(false, &rootfd, err, errlen);

	if (r == -ENOENT)
		return 1;
	if (r == 0)
		r = session_open(rootfd, id, &dfd, &s, err, errlen);
	if (r == -ENOENT)
		return 1;
	if (r == 0)
		r = session_teardown(rootfd, dfd, &s, "end", out, json, true, err, errlen);
	return r == -ENOENT ? 1 : r;
}
