/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/supervise/control.c: the run-dir checks and a status/kill round trip. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervise/control.h"

static char tmpdir[] = "/tmp/sandcap-test-control.XXXXXX";

static int
setup(void **state)
{
	(void) state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	setenv("XDG_RUNTIME_DIR", tmpdir, 1);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[600];

	(void) state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int last_sig;
static pid_t last_pid;
static uid_t last_uid;

static int
fake_status(void *ud, char *buf, size_t len)
{
	(void) ud;
	snprintf(buf, len, "{\"id\":\"1-ab\",\"command_line\":\"sleep 5\",\"age_ms\":12}");
	return 0;
}

static int
fake_kill(void *ud, int sig, pid_t pid, uid_t uid)
{
	(void) ud;
	last_pid = pid;
	last_uid = uid;
	last_sig = sig;
	return 0;
}

static void
test_roundtrip(void **state)
{
	struct control_ops ops = { fake_status, fake_kill, NULL };
	char path[4096], reply[CONTROL_MSG_MAX];
	int lfd, st;
	pid_t pid;

	(void) state;
	assert_int_equal(control_listen("1-ab", &lfd, path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/sandcap/1-ab.sock"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* client */
		char r1[CONTROL_MSG_MAX], r2[CONTROL_MSG_MAX];

		if (control_request("1-ab", "status", r1, sizeof(r1)) < 0)
			_exit(2);
		if (strstr(r1, "\"command_line\":\"sleep 5\"") == NULL)
			_exit(3);
		if (control_request("1-ab", "kill 15", r2, sizeof(r2)) < 0 || strcmp(r2, "ok") != 0)
			_exit(4);
		_exit(0);
	}
	for (int i = 0; i < 2; i++) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		assert_int_equal(poll(&p, 1, 5000), 1);
		assert_int_equal(control_serve_one(lfd, &ops), 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(last_sig, 15);
	assert_int_equal(last_pid, pid);        /* the requester, from SO_PEERCRED */
	assert_int_equal(last_uid, getuid());
	close(lfd);
	/* nobody listening any more (the socket file is still there) */
	assert_int_not_equal(control_request("1-ab", "status", reply, sizeof(reply)), 0);
	control_unlisten(path);
}

static int
connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), r;

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	r = connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* A stale socket in our own directory (its run was killed before removing it) is replaced:
 * the next run with its id listens there, and only there. */
static void
test_stale_replaced(void **state)
{
	char path[4096], path2[4096];
	struct stat st;
	int lfd, lfd2;

	(void) state;
	assert_int_equal(control_listen("1-aa", &lfd, path, sizeof(path)), 0);
	close(lfd); /* left behind, nobody listening */
	assert_int_equal(connect_to(path), -ECONNREFUSED);
	assert_int_equal(control_listen("1-aa", &lfd2, path2, sizeof(path2)), 0);
	assert_string_equal(path, path2);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0700);
	assert_int_equal(connect_to(path), 0); /* it listens */
	close(lfd2);
	control_unlisten(path);
}

static void
test_bad_ids_and_dirs(void **state)
{
	char reply[64], dir[4096];
	struct stat st;

	(void) state;
	assert_int_equal(control_request("../x", "status", reply, sizeof(reply)), -EINVAL);
	assert_int_equal(control_request("", "status", reply, sizeof(reply)), -EINVAL);
	assert_int_equal(control_request(".hidden", "status", reply, sizeof(reply)), -EINVAL);
	/* a run dir open to others, under an XDG_RUNTIME_DIR others may enter, is refused:
	 * anyone may have put something in it meanwhile */
	assert_int_equal(control_rundir(dir, sizeof(dir), 1), 0);
	assert_int_equal(chmod(tmpdir, 0711), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), -EPERM);
	/* ... but a mode the sandboxed command took away (chmod 0) is given back */
	assert_int_equal(chmod(dir, 0), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* and under a private XDG_RUNTIME_DIR, where nobody else can have entered, any mode */
	assert_int_equal(chmod(tmpdir, 0700), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* an XDG_RUNTIME_DIR others may write in is not used (/tmp instead): they could swap
	 * our sandcap directory between its check and the bind */
	assert_int_equal(chmod(tmpdir, 0770), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), -ENOENT);
	assert_int_equal(chmod(tmpdir, 0700), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), 0);
}

/* Without XDG_RUNTIME_DIR: the run's socket is /tmp/sandcap-<id>.sock, ours, mode 0700,
 * found by the client, removed at the end (#14 item 8; the other-user case is
 * tests/integration/t-run-hostile.sh). */
static void
test_no_xdg(void **state)
{
	struct control_ops ops = { fake_status, fake_kill, NULL };
	char path[4096], dir[4096], reply[CONTROL_MSG_MAX];
	struct stat st;
	int lfd, st2;
	pid_t pid;

	(void) state;
	unsetenv("XDG_RUNTIME_DIR");
	assert_int_equal(control_rundir(dir, sizeof(dir), 1), -ENOENT);
	assert_int_equal(control_listen("1-cd", &lfd, path, sizeof(path)), 0);
	assert_string_equal(path, "/tmp/sandcap-1-cd.sock");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0700 && st.st_uid == getuid());
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char r1[CONTROL_MSG_MAX];

		_exit(control_request("1-cd", "status", r1, sizeof(r1)) == 0 &&
		      strstr(r1, "sleep 5") != NULL ? 0 : 2);
	}
	{
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		assert_int_equal(poll(&p, 1, 5000), 1);
		assert_int_equal(control_serve_one(lfd, &ops), 0);
	}
	assert_int_equal(waitpid(pid, &st2, 0), pid);
	assert_true(WIFEXITED(st2) && WEXITSTATUS(st2) == 0);
	/* A second run cannot take a name that is there (nor remove it). */
	assert_int_equal(control_listen("1-cd", &st2, dir, sizeof(dir)), -EADDRINUSE);
	assert_int_equal(lstat(path, &st), 0);
	close(lfd);
	control_unlisten(path);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(lstat("/tmp", &st), 0);        /* the directory is /tmp itself */
	assert_int_equal(control_request("1-cd", "status", reply, sizeof(reply)), -ENOENT);
	setenv("XDG_RUNTIME_DIR", tmpdir, 1);
}

static int
count_one(const char *id, const char *status, void *ud)
{
	(void) status;
	if (strcmp(id, "1-ef") == 0)
		(*(int *) ud)++;
	return 0;
}

/* Look-alikes of /tmp/sandcap-<id>.sock are never asked: a socket open to others (anyone
 * may connect to it, so anyone may have made it listen) and a file that is no socket
 * (another user's private socket: test_tmp_stranger). */
static void
test_tmp_lookalikes(void **state)
{
	const char *path = "/tmp/sandcap-1-ef.sock";
	char reply[CONTROL_MSG_MAX], rpath[4096];
	int fd, seen = 0;
	mode_t um;

	(void) state;
	unsetenv("XDG_RUNTIME_DIR");
	(void) unlink(path);
	um = umask(0);
	assert_int_equal(control_listen("1-ef", &fd, rpath, sizeof(rpath)), 0);
	(void) umask(um);
	/* ours and listened on: asked (nobody answers it here) */
	assert_int_equal(control_for_each_sandbox(count_one, &seen), 0);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(control_request("1-ef", "status", reply, sizeof(reply)), -ENOENT);
	seen = 0;
	assert_int_equal(control_for_each_sandbox(count_one, &seen), 0);
	assert_int_equal(seen, 0);
	close(fd);
	/* ignored, so never removed as stale either */
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(path), 0);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(control_request("1-ef", "status", reply, sizeof(reply)), -ENOENT);
	assert_int_equal(unlink(path), 0);
	setenv("XDG_RUNTIME_DIR", tmpdir, 1);
}

/* A private socket of another user's at our name is never asked, nor removed.  Needs root
 * to give a socket away: a skip otherwise. */
static void
test_tmp_stranger(void **state)
{
	const char *path = "/tmp/sandcap-1-ef.sock";
	char reply[CONTROL_MSG_MAX], rpath[4096];
	int fd, seen = 0;

	(void) state;
	if (getuid() != 0) {
		fprintf(stderr, "skip: test_tmp_stranger needs root to chown a socket to another user\n");
		skip();
	}
	unsetenv("XDG_RUNTIME_DIR");
	(void) unlink(path);
	assert_int_equal(control_listen("1-ef", &fd, rpath, sizeof(rpath)), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(control_request("1-ef", "status", reply, sizeof(reply)), -ENOENT);
	assert_int_equal(control_for_each_sandbox(count_one, &seen), 0);
	assert_int_equal(seen, 0);
	close(fd);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(path), 0);
	setenv("XDG_RUNTIME_DIR", tmpdir, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_stale_replaced),
		cmocka_unit_test(test_bad_ids_and_dirs),
		cmocka_unit_test(test_no_xdg),
		cmocka_unit_test(test_tmp_lookalikes),
		cmocka_unit_test(test_tmp_stranger),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
