/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/control.c: the run-dir checks and a status/kill round trip. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "control.h"

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
	unlink(path);
	/* nobody listening any more */
	assert_int_not_equal(control_request("1-ab", "status", reply, sizeof(reply)), 0);
}

static void
test_bad_ids_and_dirs(void **state)
{
	char reply[64], dir[4096];

	(void) state;
	assert_int_equal(control_request("../x", "status", reply, sizeof(reply)), -EINVAL);
	assert_int_equal(control_request("", "status", reply, sizeof(reply)), -EINVAL);
	assert_int_equal(control_request(".hidden", "status", reply, sizeof(reply)), -EINVAL);
	/* a run dir open to others is refused */
	assert_int_equal(control_rundir(dir, sizeof(dir), 1), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), -EPERM);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(control_rundir(dir, sizeof(dir), 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_bad_ids_and_dirs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
