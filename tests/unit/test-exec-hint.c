/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/run/exec-hint.c: the #! parser and the notes for a failed exec. */
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

#include "run/exec-hint.h"

static void
test_shebang(void **state)
{
	char in[16];

	(void) state;
	assert_int_equal(exec_hint_shebang("#!/bin/sh\n", 10, in, sizeof(in)), 0);
	assert_string_equal(in, "/bin/sh");
	assert_int_equal(exec_hint_shebang("#! \t/usr/bin/env python3\n", 25, in, sizeof(in)), 0);
	assert_string_equal(in, "/usr/bin/env");
	/* Only len bytes are read: no NUL needed, a cut word is what there is. */
	assert_int_equal(exec_hint_shebang("#!/bin/shXXXX", 9, in, sizeof(in)), 0);
	assert_string_equal(in, "/bin/sh");
	assert_int_equal(exec_hint_shebang("#!", 2, in, sizeof(in)), -EINVAL);
	assert_int_equal(exec_hint_shebang("#!   \n/bin/sh", 13, in, sizeof(in)), -EINVAL);
	assert_int_equal(exec_hint_shebang("\177ELF", 4, in, sizeof(in)), -EINVAL);
	assert_int_equal(exec_hint_shebang("#", 1, in, sizeof(in)), -EINVAL);
	assert_int_equal(exec_hint_shebang("#!/a/very/long/interpreter\n", 27, in, sizeof(in)),
			 -ENAMETOOLONG);
	assert_int_equal(exec_hint_shebang("#!/bin/sh", 9, in, 0), -EINVAL);
}

static char dir[] = "/tmp/sandcap-test-exec-hint.XXXXXX";

static void
put(const char *name, const char *text, mode_t mode)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static void
test_hint(void **state)
{
	char p[128], buf[512];

	(void) state;
	assert_non_null(mkdtemp(dir));
	put("script", "#!/nonexistent/interp -x\necho\n", 0755);
	put("elf", "\177ELF\2\1\1\0", 0755);
	put("plain", "echo hi\n", 0755);

	snprintf(p, sizeof(p), "%s/script", dir);
	exec_hint(p, NULL, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_non_null(strstr(buf, "'/nonexistent/interp'"));
	assert_non_null(strstr(buf, "#! line"));
	/* Other errors, or a bare name (found through PATH), get nothing. */
	exec_hint(p, NULL, EACCES, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");
	exec_hint("script", NULL, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");

	snprintf(p, sizeof(p), "%s/elf", dir);
	exec_hint(p, NULL, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ELF interpreter"));

	snprintf(p, sizeof(p), "%s/plain", dir);
	exec_hint(p, NULL, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");
	snprintf(p, sizeof(p), "%s/missing", dir);
	exec_hint(p, NULL, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* A FIFO at the name is never opened for a read that would block. */
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0755), 0);
	exec_hint(p, NULL, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* EACCES under --fs strict: the hint only for a file executable out here. */
	exec_hint("./script", dir, EACCES, POLICY_FS_STRICT, buf, sizeof(buf));
	assert_non_null(strstr(buf, "--ro DIR"));
	put("noexec", "echo\n", 0644);
	exec_hint("./noexec", dir, EACCES, POLICY_FS_STRICT, buf, sizeof(buf));
	assert_string_equal(buf, "");
	exec_hint("./script", dir, EACCES, POLICY_FS_RO, buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* A relative argv0 is read where the child looked for it: in dir (--chdir). */
	exec_hint("./script", dir, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_non_null(strstr(buf, "'/nonexistent/interp'"));
	exec_hint("./script", "/nonexistent-dir", ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* An interpreter that exists (but could not be run) or a relative one: no claim. */
	put("exists", "#!/bin/sh\necho\n", 0755);
	exec_hint("./exists", dir, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");
	put("relative", "#!sh\necho\n", 0755);
	exec_hint("./relative", dir, ENOENT, POLICY_FS_NONE, buf, sizeof(buf));
	assert_string_equal(buf, "");

	for (const char *n = "script\0elf\0plain\0fifo\0noexec\0exists\0relative\0"; *n != '\0';
	     n += strlen(n) + 1) {
		snprintf(p, sizeof(p), "%s/%s", dir, n);
		(void) unlink(p);
	}
	(void) rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shebang),
		cmocka_unit_test(test_hint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
