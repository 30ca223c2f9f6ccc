/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/cmd/filecaps.c: the capabilities setcap writes, read back through
 * libcap-ng from a real file.  Writing security.capability needs CAP_SETFCAP: without it
 * (not root) the tests that write one are skipped, saying why. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/filecaps.h"

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static int
tmpfile_fd(void **state)
{
	char path[] = "/tmp/test-filecaps-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	*state = (void *) (intptr_t) fd;
	return 0;
}

static int
close_fd(void **state)
{
	close((int) (intptr_t) *state);
	return 0;
}

/* Write a security.capability value, or skip the test when this process may not. */
static void
set_caps(int fd, const void *v, size_t len)
{
	if (fsetxattr(fd, "security.capability", v, len, 0) < 0) {
		if (errno == EPERM || errno == ENOTSUP) {
			fprintf(stderr, "# cannot write security.capability here (%s): "
				"needs CAP_SETFCAP on a filesystem with xattrs\n", strerror(errno));
			skip();
		}
		fail_msg("fsetxattr: %s", strerror(errno));
	}
}

/* setcap cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p: revision 2 */
static void
test_helper_caps(void **state)
{
	int fd = (int) (intptr_t) *state;
	unsigned char v[XATTR_CAPS_SZ_2] = { 0 };
	uint64_t perm = 0, want = (1ULL << CAP_DAC_OVERRIDE) | (1ULL << CAP_CHOWN) |
				  (1ULL << CAP_SYS_ADMIN) | (1ULL << CAP_NET_ADMIN) |
				  (1ULL << CAP_BPF);

	put32(v, VFS_CAP_REVISION_2);
	put32(v + 4, (uint32_t) want);          /* permitted, low word */
	put32(v + 8, 1u << CAP_KILL);           /* inheritable: must not count as permitted */
	put32(v + 12, (uint32_t) (want >> 32)); /* permitted, high word (cap_bpf is 39) */
	set_caps(fd, v, sizeof(v));
	assert_int_equal(filecaps_permitted_fd(fd, &perm), 0);
	assert_true(perm == want);
}

static void
test_one_cap_effective_flag(void **state)
{
	int fd = (int) (intptr_t) *state;
	unsigned char v[XATTR_CAPS_SZ_2] = { 0 };
	uint64_t perm = 0;

	put32(v, VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE);
	put32(v + 4, 1u << CAP_CHOWN);
	set_caps(fd, v, sizeof(v));
	assert_int_equal(filecaps_permitted_fd(fd, &perm), 0);
	assert_true(perm == (1ULL << CAP_CHOWN));
}

static void
test_none(void **state)
{
	uint64_t perm = 42;

	assert_int_equal(filecaps_permitted_fd((int) (intptr_t) *state, &perm), -ENODATA);
	assert_true(perm == 42);
	assert_int_equal(filecaps_permitted_fd(-1, &perm), -EBADF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_helper_caps, tmpfile_fd, close_fd),
		cmocka_unit_test_setup_teardown(test_one_cap_effective_flag, tmpfile_fd, close_fd),
		cmocka_unit_test_setup_teardown(test_none, tmpfile_fd, close_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
