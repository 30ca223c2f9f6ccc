/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/run/profile.c and profile-io.c: parsing, validation with FILE:LINE,
 * lookup order. */
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

#include "run/profile.h"

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
	{ "[a]\nmemory = 12X\n", 2, "memory: invalid size '12X'" },
	{ "[a]\nmemory = -1\n", 2, "memory: invalid size '-1'" },
	{ "[a]\nmemory = 0\n", 2, "memory: size '0' is out of range: expected a size from 1 byte" },
	{ "[a]\ncpu = 0%\n", 2, "cpu: percentage '0%' is out of range" },
	{ "[a]\npids = 0\n", 2, "pids: number '0' is out of range" },
	{ "[a]\ntimeout = 5x\n", 2, "timeout: invalid duration '5x'" },
	{ "[a]\nnet = internet\n", 2, "net: invalid value 'internet': expected host, proxy, "
	  "loopback or none" },
	{ "[a]\nfs = rw\n", 2, "fs: invalid value 'rw': expected none, ro or strict" },
	{ "[a]\nrw = relative/path\n", 2, "absolute paths" },
	{ "[a]\nfallback = maybe\n", 2, "expected yes or no" },
	/* the ranges of `sandcap run`, not wider ones of the profile's own */
	{ "[a]\ntimeout = 0\n", 2, "timeout: duration '0' is out of range: expected a duration from 1ms" },
	{ "[a]\ncpu-time = 0\n", 2, "cpu-time: duration '0' is out of range" },
	{ "[a]\nnofile = 2000000000\n", 2, "nofile: number '2000000000' is out of range: expected "
	  "a whole number from 1 to 1073741824" },
	{ "[a]\nnproc = 1073741825\n", 2, "nproc: number '1073741825' is out of range" },
	{ "[a]\npids = 4294967295\n", 2, "pids: number '4294967295' is out of range" },
	{ "[a]\nas = 0\n", 2, "as: size '0' is out of range: expected a size from 1 byte" },
	{ "[a]\nstack = 0\n", 2, "stack: size '0' is out of range" },
	{ "[a]\ncpu = 500000%\n", 2, "cpu: percentage '500000%' is out of range" },
	{ "[a]\nunix = some\n", 2, "unix: invalid value 'some': expected host or none" },
	{ "[a]\nallow = a..b\n", 2, "allow: invalid rule 'a..b'" },
	{ "[a]\nenv = 1X=2\n", 2, "env: invalid variable name in '1X=2'" },
	{ "[a]\nenv-deny = A=B\n", 2, "env-deny: invalid pattern 'A=B'" },
	{ "[a]\nchdir = @home\n", 2, "chdir = '@home': expected an absolute path or @workspace" },
	/* what `sandcap run` checks between options, at the last net/allow/unix line */
	{ "[a]\nallow = example.com\nnet = none\nmemory = 1G\n", 3,
	  "allow: only with --net proxy (not --net none)" },
	{ "[a]\nunix = none\n\n[b]\nnet = none\n", 2, "unix none: only with --net proxy, loopback "
	  "or none" },
	{ "[a]\nnet = host\nunix = none\n", 3, "unix none: only with" },
	/* control bytes in an error message are escaped */
	{ "[a]\nmemory = 1\x1b[2J\n", 2, "memory: invalid size '1\\x1b[2J'" },
	{ "[a]\nme\x1bmory = 1\n", 2, "unknown key 'me\\x1bmory'" },
	{ "memory = 1G\n", 1, "outside a [profile] section" },
	{ "[a]\n[a]\n", 2, "defined twice" },
	{ "[a b]\n", 1, "bad profile name" },
	{ "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", 1, "bad profile name" },
	{ "[a]\n\n\nmemory = 1111111111111111111111111111111111111111111111111111111111111111111111111111"
	  "11111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
	  "11111111111111111111111111111111111111111111111111111111111111111G\n", 4,
	  "line is 240 bytes long; the limit is 196" },
	{ "[a]\nmemory\n", 2, "syntax error" },
	/* the policy's grammar (one reader for both) */
	{ "[a]\nmemory: 1G\n", 2, "the 'KEY: VALUE' form is not accepted" },
	{ "[a]\nmemory = 1G\n[b\n", 3, "malformed section header" },
	/* the first error in the file, though the reader meets the later one first */
	{ "[a]\nmemroy = 1G\n  2G\n", 2, "unknown key 'memroy'" },
	{ "[a]\nmemory = 1G\n[a]\n", 3, "defined twice" },
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
			   "fallback = no\nno-cgroup = yes\nunix = none\nfsize = 0\n"
			   "nofile = 1073741824\n\n[build]\nmemory = 4G\n"
			   "[lo]\nnet = loopback\n[px]\nnet = proxy\nallow = example.com *.pypi.org:443\n"
			   "[px2]\nallow = 10.0.0.0/8:*\nunix = none\n";

	(void) state;
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
	assert_non_null(strstr(err, "profiles.ini:2: memory: invalid size 'lots'"));
}

static void
count_section(const char *section, unsigned line, void *userdata)
{
	(void) section;
	(void) line;
	(*(unsigned *) userdata)++;
}

/* Sections are reported only for a file that parsed whole: one before a bad line is no more
 * usable than one after it. */
static void
test_sections_only_when_whole(void **state)
{
	char err[PROFILE_ERR_MAX] = "";
	unsigned n = 0;

	(void) state;
	assert_int_equal(profile_parse_text("[a]\nmemory = 1G\n[b]\nbogus = 1\n[c]\n", "f.ini",
					    count_section, &n, err, sizeof(err)), -EINVAL);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "f.ini:4: unknown key 'bogus'"));
	assert_int_equal(profile_parse_text("[a]\nmemory = 1G\n[b]\n[c]\npids = 3\n", "f.ini",
					    count_section, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
}

static void
first_section(const char *section, unsigned line, void *userdata)
{
	char *buf = userdata;

	if (buf[0] == '\0')
		snprintf(buf, 64, "%s:%u", section, line);
}

/* A UTF-8 byte order mark before the first line is ignored, as in the policy file. */
static void
test_bom(void **state)
{
	char err[PROFILE_ERR_MAX] = "", first[64] = "";
	struct profile p;

	(void) state;
	assert_int_equal(profile_parse_text("\xef\xbb\xbf[x]\nmemory = 1G\n", "f.ini", first_section,
					    first, err, sizeof(err)), 0);
	assert_string_equal(first, "x:1");
	write_file("xdg/sandcap/profiles.ini", "\xef\xbb\xbf[x]\nmemory = 1G\n");
	assert_int_equal(profile_load("x", &p, err, sizeof(err)), 0);
	assert_int_equal(p.line, 1);
	assert_int_equal(p.nwords, 2);
	assert_string_equal(p.words[1], "1G");
	profile_done(&p);
	/* only at the very start: elsewhere it is part of the line, and refused */
	assert_int_equal(profile_parse_text("[x]\n\xef\xbb\xbfmemory = 1G\n", "f.ini", NULL, NULL,
					    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "f.ini:2: unknown key"));
}

static const struct {
	const char *word;
	const char *quoted;
} quote_cases[] = {
	{ "--memory", "--memory" },
	{ "user@host:/a/b,c+d%e=f_g.h", "user@host:/a/b,c+d%e=f_g.h" },
	{ "", "''" },
	{ "A=$(id)|cat", "'A=$(id)|cat'" },
	{ "/tmp/a&b", "'/tmp/a&b'" },
	{ "a b", "'a b'" },
	{ "*.pypi.org:443", "'*.pypi.org:443'" },
	{ "it's", "'it'\\''s'" },
	{ "'", "\\'" },
	{ "`x`;~#!", "'`x`;~#!'" },
	{ "caf\xc3\xa9", "'caf\xc3\xa9'" },                       /* UTF-8 stays as it is */
	{ "a\x1b[2Jb", "'a'\"$(printf '\\033')\"'[2Jb'" },          /* C0 control */
	{ "\x7f", "\"$(printf '\\177')\"" },                       /* DEL */
	{ "\xff\xfe", "\"$(printf '\\377')\"\"$(printf '\\376')\"" }, /* not UTF-8 */
	{ "x\xc2\x9by", "'x'\"$(printf '\\302')\"\"$(printf '\\233')\"'y'" }, /* C1 CSI */
	{ "\xed\xa0\x80", "\"$(printf '\\355')\"\"$(printf '\\240')\"\"$(printf '\\200')\"" },
	{ "\xc3", "\"$(printf '\\303')\"" },                      /* truncated sequence */
};

/* profile show's words: safe to paste into a POSIX shell, no control byte reaching a terminal. */
static void
test_shell_quote(void **state)
{
	char *q = NULL;

	(void) state;
	for (size_t i = 0; i < sizeof(quote_cases) / sizeof(quote_cases[0]); i++) {
		assert_int_equal(profile_shell_quote(quote_cases[i].word, &q), 0);
		if (strcmp(q, quote_cases[i].quoted) != 0)
			fail_msg("case %zu: got <%s>, wanted <%s>", i, q, quote_cases[i].quoted);
		for (const unsigned char *c = (const unsigned char *) q; *c != '\0'; c++)
			assert_true(*c >= 0x20 && *c != 0x7f);
		free(q);
	}
	assert_int_equal(profile_shell_quote("a\nb", &q), -EINVAL);
}

/* net = loopback and net = proxy with allow become the same words as on the command line. */
static void
test_net_words(void **state)
{
	char err[PROFILE_ERR_MAX] = "";
	struct profile p;

	(void) state;
	write_file("xdg/sandcap/profiles.ini", "[lo]\nnet = loopback\nunix = none\n"
		   "[px]\nnet = proxy\nallow = example.com *.pypi.org:443\n");
	assert_int_equal(profile_load("lo", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nwords, 4);
	assert_string_equal(p.words[0], "--net");
	assert_string_equal(p.words[1], "loopback");
	assert_string_equal(p.words[2], "--unix");
	assert_string_equal(p.words[3], "none");
	profile_done(&p);
	assert_int_equal(profile_load("px", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nwords, 6);
	assert_string_equal(p.words[1], "proxy");
	assert_string_equal(p.words[2], "--allow");
	assert_string_equal(p.words[3], "example.com");
	assert_string_equal(p.words[4], "--allow");
	assert_string_equal(p.words[5], "*.pypi.org:443");
	profile_done(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_load_order_and_words),
		cmocka_unit_test(test_net_words),
		cmocka_unit_test(test_sections_only_when_whole),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_shell_quote),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
