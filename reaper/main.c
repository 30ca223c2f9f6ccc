/* SPDX-License-Identifier: MIT */
/*
 * sandcap-reaper: kills sandboxes that outlived their policy deadline (timeout + backstop),
 * whatever happened to the user's sandcap and sandcap-helper (which the user may stop or
 * kill: same uid).  Runs as root, with no capabilities beyond that, as the main process
 * of sandcap.service (where it also holds the unit's delegated cgroup subtree, which
 * systemd would otherwise remove), or started by the admin on hosts without systemd.
 *
 *   sandcap-reaper [--systemd]
 *
 * Contract: reads only SC_DEADLINE_DIR (root:root 0700; records are written by
 * sandcap-helper, see lib/deadline-record.h) and trusts a record as the helper wrote it.
 * The leaf a record names is checked before anything is done to it: cgroup2, root-owned,
 * named like the record.  Whatever it holds is killed: no helper moves a process into a
 * leaf, so a process of another uid in it got there from inside (a user namespace and the
 * user's subuid range) or by root's hand, and must not keep the sandbox past its deadline.
 * Deadlines are CLOCK_BOOTTIME.  Idle means asleep: epoll on inotify (IN_CREATE, a
 * record linked into place) and a timerfd armed for the earliest deadline only, so with no
 * sandbox that has a deadline the reaper makes no wake-up at all.  Every expired sandbox
 * is killed with cgroup.kill at once, all of them before any is waited for; the waits for
 * their leaves to empty run side by side in the same epoll loop (nothing in it blocks), so
 * one user's slow-dying sandbox never delays the kill of another's.  When a killed
 * sandbox's helper is gone (its lock is free) the reaper also unmounts the workspace and
 * removes leaf and lock.  A helper that is merely stopped keeps its lock and tears down
 * itself when it resumes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-util.h"
#include "deadline-record.h"
#include "fd-util.h"
#include "log.h"
#include "macro.h"
#include "time-util.h"

/* How long a killed sandbox may take to empty and go before it is left to its next helper. */
#define TEARDOWN_MS 3000

static int
open_beneath_nolinks(const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t) flags | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int) syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/* A killed sandbox whose removal waits for its leaf to empty: its cgroup.events is in
 * the epoll set (POLLPRI: "populated" changed), so no sandbox waits for another's. */
struct teardown {
	struct deadline_record rec;
	char name[64];
	int events_fd;
	uint64_t give_up, retry; /* CLOCK_BOOTTIME ms; retry 0: when the leaf empties */
};

static struct teardown *pending;
static size_t npending, apending;

/* A session level's calls, killed with it and empty: their helpers may be gone too. */
static void
remove_children(const char *cgroup)
{
	int fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (d == NULL) {
		safe_close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
		    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0)
			log_warning("%s/%s: cannot remove: %m", cgroup, de->d_name);
	closedir(d);
}

/* The owner's helper is gone (its lock is free): remove what it would have removed.
 * -EBUSY while the leaf cannot be removed yet (dying tasks: a moment after "populated 0"). */
static int
remove_leftovers(const struct deadline_record *rec, const char *name)
{
	_cleanup_close_ int lfd = open(rec->lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

	if (lfd < 0 ? errno != ENOENT : flock(lfd, LOCK_EX | LOCK_NB) < 0) {
		log_info("sandbox %s: its helper is still there (stopped?): it tears down the "
			 "rest itself",
			 name);
		return 0;
	}
	/* The last component is the mount point in a root-owned dir: not followed. */
	if (umount2(rec->workspace, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL &&
	    errno != ENOENT)
		log_warning("sandbox %s: cannot unmount %s: %m", name, rec->workspace);
	if (rmdir(rec->workspace) < 0 && errno != ENOENT)
		log_warning("sandbox %s: cannot remove %s: %m", name, rec->workspace);
	remove_children(rec->cgroup);
	if (rmdir(rec->cgroup) < 0 && errno == EBUSY)
		return -EBUSY;
	if (access(rec->cgroup, F_OK) == 0)
		log_warning("sandbox %s: cannot remove %s: %m", name, rec->cgroup);
	else if (lfd >= 0 && unlink(rec->lock) < 0 && errno != ENOENT)
		log_warning("sandbox %s: cannot remove %s: %m", name, rec->lock);
	return 0;
}

/* Remember a killed sandbox for removal once its leaf is empty. */
static void
teardown_add(int epfd, int leaf, const struct deadline_record *rec, const char *name, uint64_t now)
{
	struct epoll_event ev = { .events = EPOLLPRI };
	struct teardown *t;
	int efd;

	if (npending == apending) {
		size_t n = apending ? 2 * apending : 16;

		t = reallocarray(pending, n, sizeof(*t));
		if (t == NULL) {
			log_warning("sandbox %s: no memory to wait for its removal; its next "
				    "helper removes it",
				    name);
			return;
		}
		pending = t;
		apending = n;
	}
	efd = openat(leaf, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ev.data.fd = efd;
	if (efd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev) < 0) {
		log_warning_errno(neg_errno(),
				  "sandbox %s: cannot watch its leaf (%m); its "
				  "next helper removes it",
				  name);
		(void) safe_close(efd);
		return;
	}
	t = &pending[npending++];
	*t = (struct teardown){ .rec = *rec, .events_fd = efd, .give_up = now + TEARDOWN_MS };
	(void) snprintf(t->name, sizeof(t->name), "%s", name);
}

/* Remove the killed sandboxes whose leaves emptied; return the earliest time one needs
 * looking at again (0 = none). */
static uint64_t
teardown_progress(void)
{
	uint64_t next = 0, now = boottime_ms();

	for (size_t i = 0; i < npending;) {
		struct teardown *t = &pending[i];
		bool done = false;

		if ((t->retry == 0 || now >= t->retry) && cg_populated(t->events_fd) == 0) {
			done = remove_leftovers(&t->rec, t->name) == 0;
			t->retry = done ? 0 : now + 100;
		}
		if (!done && now >= t->give_up) {
			log_warning("sandbox %s: killed, but its leaf %s did not empty and go "
				    "within %d ms; left for its next helper",
				    t->name, t->rec.cgroup, TEARDOWN_MS);
			done = true;
		}
		if (done) {
			(void) safe_close(t->events_fd);
			*t = pending[--npending];
			continue;
		}
		if (t->retry != 0 && (next == 0 || t->retry < next))
			next = t->retry;
		if (next == 0 || t->give_up < next)
			next = t->give_up;
		i++;
	}
	return next;
}

/* Kill the sandbox of an expired record at once; its removal is left to
 * teardown_progress().  0 when the record is done with (killed, gone, or never to be
 * killed), so the caller removes it. */
static int
reap(int epfd, const struct deadline_record *rec, const char *name)
{
	_cleanup_close_ int leaf = -EBADF, kfd = -EBADF;
	uint64_t now;

	if (!cg_leaf_path_ok(rec->cgroup, name)) {
		log_warning("record %s names %s: not its leaf; ignored", name, rec->cgroup);
		return 0;
	}
	leaf = open_beneath_nolinks(rec->cgroup, O_RDONLY | O_DIRECTORY);
	if (leaf == -ENOENT)
		return 0; /* ended without its record removed (helper killed) */
	if (leaf < 0)
		return log_warning_errno(leaf, "sandbox %s: open %s: %m", name, rec->cgroup);
	if (cg_leaf_fd_ok(leaf) < 0) {
		log_warning("sandbox %s: %s is not a root-owned cgroup2 dir; not killed", name,
			    rec->cgroup);
		return 0;
	}
	kfd = openat(leaf, "cgroup.kill", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (kfd < 0 || cg_kill_fd(kfd) < 0)
		return log_warning_errno(neg_errno(), "sandbox %s: cgroup.kill: %m", name);
	now = boottime_ms();
	log_notice("sandbox %s: past its deadline (timeout + backstop) by %" PRIu64 " ms: "
		   "killed",
		   name, now - rec->boottime_ms);
	teardown_add(epfd, leaf, rec, name, now);
	return 0;
}

/* Temporaries of a helper that wrote records under a temporary name and was killed before
 * the rename (today's helper writes none: its record has no name until it is whole). */
static void
remove_stale_temporary(int dfd, const char *name, uint64_t now_real_s)
{
	struct stat st;

	if (strncmp(name, ".new-", 5) == 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && (uint64_t) st.st_mtime + 60 < now_real_s)
		(void) unlinkat(dfd, name, 0);
}

/* Kill every sandbox that is due, all before waiting for any; return the earliest
 * deadline still ahead (0 = none). */
static uint64_t
scan(int dfd, int epfd)
{
	uint64_t next = 0, now = boottime_ms();
	DIR *d = fdopendir(openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));

	if (d == NULL) {
		log_error_errno(neg_errno(), "cannot list %s: %m", SC_DEADLINE_DIR);
		return now + 1000; /* try again soon rather than miss a deadline */
	}
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		struct deadline_record rec;
		char text[DEADLINE_TEXT_MAX];
		size_t len = 0;

		if (!deadline_name_is_valid(de->d_name)) {
			remove_stale_temporary(dfd, de->d_name, (uint64_t) time(NULL));
			continue;
		}
		if (read_full_at(dfd, de->d_name, text, sizeof(text), &len) < 0)
			continue;
		if (deadline_parse(text, len, &rec) < 0) {
			/* Kept: a newer helper's format, for the newer reaper after a restart. */
			log_warning("%s/%s: not a deadline record this reaper understands; "
				    "left alone",
				    SC_DEADLINE_DIR, de->d_name);
			continue;
		}
		if (rec.boottime_ms > now) {
			if (next == 0 || rec.boottime_ms < next)
				next = rec.boottime_ms;
			continue;
		}
		if (reap(epfd, &rec, de->d_name) == 0)
			(void) unlinkat(dfd, de->d_name, 0);
		else if (next == 0 || now + 1000 < next)
			next = now + 1000; /* retry a failed kill in a second */
	}
	(void) closedir(d);
	return next;
}

/* SC_DEADLINE_DIR, root:root 0700 (made so if missing; refused if it is anything else). */
static int
open_deadline_dir(void)
{
	struct stat st;
	int fd;

	if (mkdir(SC_DEADLINE_DIR, 0700) < 0 && errno != EEXIST)
		return log_error_errno(-errno, "cannot create %s: %m", SC_DEADLINE_DIR);
	fd = open(SC_DEADLINE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return log_error_errno(-errno, "cannot open %s: %m", SC_DEADLINE_DIR);
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || st.st_gid != 0 ||
	    (st.st_mode & 07777) != 0700) {
		(void) close(fd);
		log_error("%s must be a directory root:root 0700", SC_DEADLINE_DIR);
		return -EPERM;
	}
	return fd;
}

static int
write_file(const char *path, const char *s)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return write(fd, s, strlen(s)) == (ssize_t) strlen(s) ? 0 : neg_errno();
}

/* Under systemd (Delegate=): move ourselves into the leaf <unit cgroup>/reaper (the
 * no-internal-process rule: the unit's cgroup will have controllers enabled for the
 * sandboxes), then let sandcap-setup --systemd make <unit cgroup>/sandboxes.  With
 * DelegateSubgroup=reaper (systemd 254+) systemd already started us there. */
static int
systemd_setup(void)
{
	char own[1024], dir[PATH_MAX];
	size_t len = 0;
	pid_t pid;
	int r, status;

	r = read_full_at(AT_FDCWD, "/proc/self/cgroup", own, sizeof(own), &len);
	if (r < 0 || !strneq(own, "0::/", 4))
		return log_error_errno(r < 0 ? r : -EINVAL, "--systemd: no cgroup v2 path in "
							    "/proc/self/cgroup");
	own[strcspn(own, "\n")] = '\0';
	if (streq(own, "0::/"))
		return log_error_errno(-EINVAL, "--systemd: not running in a unit's cgroup");
	const char *base = deadline_basename(own);
	if (base == NULL || !streq(base, "reaper")) {
		(void) snprintf(dir, sizeof(dir), CG_MOUNT "%s/reaper", own + 3);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return log_error_errno(-errno, "cannot create %s: %m", dir);
		(void) strncat(dir, "/cgroup.procs", sizeof(dir) - strlen(dir) - 1);
		r = write_file(dir, "0");
		if (r < 0)
			return log_error_errno(r, "cannot move into %s: %m", dir);
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(SC_SETUP_PATH, "sandcap-setup", "--systemd", (char *) NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error_errno(-EIO, "%s --systemd failed", SC_SETUP_PATH);
	return 0;
}

/* sd_notify(READY=1) without libsystemd: one datagram to $NOTIFY_SOCKET. */
static void
notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -EBADF;
	size_t n;

	if (path == NULL || (path[0] != '/' && path[0] != '@') ||
	    (n = strlen(path)) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		(void) sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *) &sa,
			      (socklen_t) (offsetof(struct sockaddr_un, sun_path) + n));
}

static void
usage(FILE *f)
{
	(void) fprintf(f,
		       "usage: sandcap-reaper [--systemd]\n"
		       "Kills sandboxes past their policy deadline (see sandcap-helper(8)).\n"
		       "  --systemd  run as sandcap.service: hold the delegated cgroup subtree\n");
}

/* The command line: -1 to go on, with *ret_systemd set; else the exit status. */
static int
parse_args(int argc, char **argv, bool *ret_systemd)
{
	static const struct option opts[] = { { "systemd", no_argument, NULL, 's' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	int c;

	*ret_systemd = false;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			*ret_systemd = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The terminating signals, the deadline directory's new records and the timer, on one epoll
 * instance (*efd).  0, or -1 (logged where errno says why). */
static int
setup_events(int *sfd, int *ifd, int *tfd, int *efd)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -1;
	*sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	*ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	*tfd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	*efd = epoll_create1(EPOLL_CLOEXEC);
	if (*sfd < 0 || *ifd < 0 || *tfd < 0 || *efd < 0)
		return log_error_errno(-errno, "setup: %m"), -1;
	/* Only a finished record wakes us (linked into place; renamed by older helpers);
	 * removals do not. */
	if (inotify_add_watch(*ifd, SC_DEADLINE_DIR,
			      IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |
				      IN_ONLYDIR) < 0)
		return log_error_errno(-errno, "inotify %s: %m", SC_DEADLINE_DIR), -1;
	int watch[] = { *sfd, *ifd, *tfd };
	for (size_t i = 0; i < ELEMENTSOF(watch); i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = watch[i] };

		if (epoll_ctl(*efd, EPOLL_CTL_ADD, watch[i], &ev) < 0)
			return log_error_errno(-errno, "epoll: %m"), -1;
	}
	return 0;
}

/* Drain fd (the inotify fd ifd or the timer): the events only mean "look again", but the
 * deadline directory removed or moved is the end.  0, or -1 (logged). */
static int
drain(int fd, int ifd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		if (fd != ifd)
			continue;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ie = (void *) p;

			if (ie->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
				log_error("%s was removed or moved", SC_DEADLINE_DIR);
				return -1;
			}
			p += sizeof(*ie) + ie->len;
		}
	}
	return 0;
}

/* Scan, sleep until the next deadline or change, and again, until a signal ends it: the exit
 * status. */
static int
watch_loop(int dfd, int sfd, int ifd, int tfd, int efd)
{
	for (;;) {
		struct itimerspec its = { 0 };
		struct epoll_event ev[16];
		uint64_t next = scan(dfd, efd), t = teardown_progress();
		int n;

		if (t != 0 && (next == 0 || t < next))
			next = t;

		/* Absolute CLOCK_BOOTTIME: suspend does not stretch a deadline.  0 disarms. */
		its.it_value.tv_sec = (time_t) (next / 1000);
		its.it_value.tv_nsec = (long) (next % 1000) * 1000000;
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
			return log_error_errno(-errno, "timerfd: %m"), EXIT_FAILURE;
		do
			n = epoll_wait(efd, ev, (int) ELEMENTSOF(ev), -1);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return log_error_errno(-errno, "epoll_wait: %m"), EXIT_FAILURE;
		for (int i = 0; i < n; i++) {
			int fd = ev[i].data.fd;

			if (fd != sfd && fd != ifd && fd != tfd)
				continue; /* a leaf's cgroup.events: "look again" */
			if (fd == sfd) {
				log_info("terminated by signal; running sandboxes are left alone");
				return EXIT_SUCCESS;
			}
			if (drain(fd, ifd) < 0)
				return EXIT_FAILURE;
		}
	}
}

int
main(int argc, char **argv)
{
	_cleanup_close_ int dfd = -EBADF, ifd = -EBADF, tfd = -EBADF, sfd = -EBADF, efd = -EBADF;
	bool systemd;
	int r;

	log_setup("sandcap-reaper", LOG_INFO, 0);
	r = parse_args(argc, argv, &systemd);
	if (r >= 0)
		return r;
	if (geteuid() != 0) {
		log_error("must run as root");
		return EXIT_FAILURE;
	}
	umask(077);
	if (systemd && systemd_setup() < 0)
		return EXIT_FAILURE;
	dfd = open_deadline_dir();
	if (dfd < 0)
		return EXIT_FAILURE;
	if (setup_events(&sfd, &ifd, &tfd, &efd) < 0)
		return EXIT_FAILURE;
	if (systemd)
		notify_ready();
	log_info("watching %s", SC_DEADLINE_DIR);
	return watch_loop(dfd, sfd, ifd, tfd, efd);
}
