/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/profile.c: parsing, validation with FILE:LINE, lookup order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile.h"

static char tmpdir[] = "/tmp/sandcap-test-profile.XXXXXX";

static void
write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int
setup(void **state)
{
	char d[600];

	(void) state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(d, sizeof(d), "%s/xdg", tmpdir);
	mkdir(d, 0700);
	snprintf(d, sizeof(d), "%s/xdg/sandcap", tmpdir);
	mkdir(d, 0700);
	snprintf(d, sizeof(d), "%s/admin", tmpdir);
	mkdir(d, 0700);
	snprintf(d, sizeof(d), "%s/xdg", tmpdir);
	setenv("XDG_CONFIG_HOME", d, 1);
	snprintf(d, sizeof(d), "%s/admin", tmpdir);
	setenv("SANDCAP_PROFILES_DIR", d, 1);
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

static const struct {
	const char *text;
	unsigned line;
	const char *needle;
} bad[] = {
	{ "[a]\nmemroy = 1G\n", 2, "unknown key 'memroy'" },
	{ "[a]\nmemory = 1G\nmemory = 2G\n", 3, "set twice" },
	{ "[a]\nmemory = 1G\n  2G\n", 3, "indented line" },
	{ "[a]\nmemory = 12X\n", 2, "memory = '12X'" },
	{ "[a]\nmemory = -1\n", 2, "memory = '-1'" },
	{ "[a]\ncpu = 0%\n", 2, "cpu = '0%'" },
	{ "[a]\npids = 0\n", 2, "pids = '0'" },
	{ "[a]\ntimeout = 5x\n", 2, "timeout = '5x'" },
	{ "[a]\nnet = internet\n", 2, "expected host, proxy, loopback or none" },
	{ "[a]\nfs = rw\n", 2, "expected none, ro or strict" },
	{ "[a]\nrw = relative/path\n", 2, "absolute paths" },
	{ "[a]\nfallback = maybe\n", 2, "expected yes or no" },
	{ "memory = 1G\n", 1, "outside a [profile] section" },
	{ "[a]\n[a]\n", 2, "defined twice" },
	{ "[a b]\n", 1, "bad profile name" },
	{ "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", 1, "bad profile name" },
	{ "[a]\n\n\nmemory = 1111111111111111111111111111111111111111111111111111111111111111111111111111"
	  "11111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
	  "11111111111111111111111111111111111111111111111111111111111111111G\n", 4, "longer than" },
	{ "[a]\nmemory\n", 2, "syntax error" },
};

static void
test_bad_files(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[PROFILE_ERR_MAX], want[32];
		int r = profile_parse_text(bad[i].text, "f.ini", NULL, NULL, err, sizeof(err));

		if (r == 0 || strstr(err, bad[i].needle) == NULL)
			fail_msg("case %zu: r=%d err='%s', wanted '%s'", i, r, err, bad[i].needle);
		snprintf(want, sizeof(want), "f.ini:%u: ", bad[i].line);
		if (strncmp(err, want, strlen(want)) != 0)
			fail_msg("case %zu: err='%s', wanted prefix '%s'", i, err, want);
	}
}

static void
test_good_file(void **state)
{
	char err[PROFILE_ERR_MAX] = "";
	const char *text = "; comment\n[agent]\nmemory = 512M\ncpu = 50%\npids = 64\n"
			   "cpu_time = 1.5s\nnet = none\nfs = ro\nrw = /tmp /var/tmp\n"
			   "fallback = no\nno-cgroup = yes\n\n[build]\nmemory = 4G\n";

	assert_int_equal(profile_parse_text(text, "f.ini", NULL, NULL, err, sizeof(err)), 0);
}

static void
test_load_order_and_words(void **state)
{
	char err[PROFILE_ERR_MAX] = "";
	struct profile p;

	(void) state;
	write_file("xdg/sandcap/profiles.ini", "[agent]\nmemory = 256M\nrw = /a /b\nfallback = yes\n");
	write_file("admin/10-site.ini", "[agent]\nmemory = 8G\n[build]\npids = 512\n");
	write_file("admin/20-other.ini", "[build]\npids = 1\n");

	/* the user's file wins over the admin's */
	assert_int_equal(profile_load("agent", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nwords, 7);
	assert_string_equal(p.words[0], "--memory");
	assert_string_equal(p.words[1], "256M");
	assert_string_equal(p.words[2], "--rw");
	assert_string_equal(p.words[3], "/a");
	assert_string_equal(p.words[4], "--rw");
	assert_string_equal(p.words[5], "/b");
	assert_string_equal(p.words[6], "--fallback");
	assert_non_null(strstr(p.file, "xdg/sandcap/profiles.ini"));
	assert_int_equal(p.line, 1);
	profile_done(&p);

	/* admin files in name order: 10-site before 20-other */
	assert_int_equal(profile_load("build", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nwords, 2);
	assert_string_equal(p.words[1], "512");
	assert_non_null(strstr(p.file, "10-site.ini"));
	profile_done(&p);

	assert_int_equal(profile_load("nope", &p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no profile named 'nope'"));
	assert_int_equal(profile_load("../etc", &p, err, sizeof(err)), -EINVAL);

	/* a malformed file that is read is an error, not skipped */
	write_file("xdg/sandcap/profiles.ini", "[agent]\nmemory = lots\n");
	assert_int_equal(profile_load("build", &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "profiles.ini:2: memory = 'lots'"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_load_order_and_words),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
