/* SPDX-License-Identifier: MIT */
/* Unit tests for the pure parts of user-cgroup mode: frontend/cgroup/usercg.c (/proc/self/cgroup,
 * which controllers to enable) and frontend/isolate/cgprotect.c (cgroup mount points from
 * mountinfo). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "isolate/cgprotect.h"
#include "macro.h"
#include "cgroup/usercg.h"

static void
test_self_cgroup(void **state)
{
	char p[64];

	(void) state;
	assert_int_equal(usercg_parse_self_cgroup("0::/user.slice/a.scope\n", p, sizeof(p)), 0);
	assert_string_equal(p, "/user.slice/a.scope");
	/* hybrid hierarchy: v1 lines first, the unified line last, no final newline */
	assert_int_equal(usercg_parse_self_cgroup("12:pids:/x\n1:name=systemd:/y\n0::/z", p,
						  sizeof(p)), 0);
	assert_string_equal(p, "/z");
	assert_int_equal(usercg_parse_self_cgroup("12:pids:/x\n", p, sizeof(p)), -ENOENT);
	assert_int_equal(usercg_parse_self_cgroup("", p, sizeof(p)), -ENOENT);
	assert_int_equal(usercg_parse_self_cgroup("0::/0123456789\n", p, 8), -ENAMETOOLONG);
}

static void
test_controllers(void **state)
{
	struct sc_request none = { 0 }, mem = { .memory = 1 }, cpu = { .cpu_percent = 50 },
			  pids = { .pids = 4 };
	const char *missing;
	char c[64];

	(void) state;
	usercg_controllers("cpuset cpu io memory pids\n", &none, c, sizeof(c), &missing);
	assert_string_equal(c, "+memory +pids");
	assert_null(missing);
	usercg_controllers("cpuset cpu io memory pids\n", &cpu, c, sizeof(c), &missing);
	assert_string_equal(c, "+memory +pids +cpu");
	assert_null(missing);
	/* systemd 252 delegates memory and pids to user@ by default, not always cpu */
	usercg_controllers("memory pids", &cpu, c, sizeof(c), &missing);
	assert_string_equal(missing, "cpu");
	usercg_controllers("pids", &mem, c, sizeof(c), &missing);
	assert_string_equal(missing, "memory");
	assert_string_equal(c, "+pids");
	/* a word inside another is not the controller */
	usercg_controllers("cpuset rdma", &pids, c, sizeof(c), &missing);
	assert_string_equal(missing, "pids");
	assert_string_equal(c, "");
	usercg_controllers("", &none, c, sizeof(c), &missing);
	assert_null(missing);
	assert_string_equal(c, "");
}

static void
test_mountinfo(void **state)
{
	static const char text[] =
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"25 22 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
		"26 25 0:23 / /sys/fs/cgroup rw,nosuid shared:8 - cgroup2 cgroup2 rw\n"
		"27 25 0:24 / /sys/fs/cgroup/sys\\040temd rw - cgroup cgroup rw,name=systemd\n"
		"28 22 0:25 / /mnt/cg2 rw master:3 - cgroup2 none rw\n"
		"29 22 0:26 / /mnt/x rw - tmpfs cgroup2 rw\n"
		"bad line\n";
	char m[CGPROTECT_MAX][PATH_MAX], first[PATH_MAX];
	size_t n;

	(void) state;
	n = cgprotect_parse_mountinfo(text, m, CGPROTECT_MAX, first, sizeof(first));
	assert_int_equal(n, 3);
	assert_string_equal(m[0], "/sys/fs/cgroup");
	assert_string_equal(m[1], "/sys/fs/cgroup/sys temd");
	assert_string_equal(m[2], "/mnt/cg2");
	assert_string_equal(first, "/sys/fs/cgroup");
	/* the cap holds */
	n = cgprotect_parse_mountinfo(text, m, 1, NULL, 0);
	assert_int_equal(n, 1);
	n = cgprotect_parse_mountinfo("", m, CGPROTECT_MAX, first, sizeof(first));
	assert_int_equal(n, 0);
	assert_string_equal(first, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_cgroup),
		cmocka_unit_test(test_controllers),
		cmocka_unit_test(test_mountinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
