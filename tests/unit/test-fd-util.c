/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/fd-util.c (whole-file reads) and word_in_list() of lib/parse-util.c. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fd-util.h"
#include "parse-util.h"

static int
pipe_with(const char *text)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], text, strlen(text)), (ssize_t) strlen(text));
	close(p[1]);
	return p[0];
}

static void
test_read_full_fits(void **state)
{
	char buf[8];
	size_t len = 99;
	int fd = pipe_with("abc\n");

	(void) state;
	assert_int_equal(read_full_fd(fd, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "abc\n");
	assert_int_equal(len, 4);
	close(fd);
	fd = pipe_with("1234567");             /* exactly bufsz - 1 */
	assert_int_equal(read_full_fd(fd, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "1234567");
	close(fd);
	fd = pipe_with("");
	assert_int_equal(read_full_fd(fd, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "");
	assert_int_equal(len, 0);
	close(fd);
}

static void
test_read_full_too_big(void **state)
{
	char buf[8];
	size_t len = 0;
	int fd = pipe_with("12345678");

	(void) state;
	assert_int_equal(read_full_fd(fd, buf, sizeof(buf), &len), -EFBIG);
	assert_string_equal(buf, "1234567");
	assert_int_equal(len, 7);
	close(fd);
}

static void
test_read_full_at(void **state)
{
	char buf[64] = "junk";

	(void) state;
	assert_int_equal(read_full_at(AT_FDCWD, "/nonexistent/sandcap", buf, sizeof(buf), NULL),
			 -ENOENT);
	assert_string_equal(buf, "");
	assert_int_equal(read_full_at(AT_FDCWD, "/proc/self/comm", buf, sizeof(buf), NULL), 0);
	assert_true(strlen(buf) > 0);
	assert_int_equal(read_full_at(AT_FDCWD, "/", buf, sizeof(buf), NULL), -EISDIR);
}

static void
test_word_in_list(void **state)
{
	(void) state;
	assert_true(word_in_list("cpuset cpu io memory pids\n", "cpu"));
	assert_true(word_in_list("cpuset cpu io memory pids\n", "pids"));
	assert_true(word_in_list("memory", "memory"));
	assert_false(word_in_list("cpuset io memory\n", "cpu"));
	assert_false(word_in_list("hugetlb", "tlb"));
	assert_false(word_in_list("", "cpu"));
	assert_false(word_in_list("cpu", ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_full_fits),
		cmocka_unit_test(test_read_full_too_big),
		cmocka_unit_test(test_read_full_at),
		cmocka_unit_test(test_word_in_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
