/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/filecaps.c: security.capability values as setcap writes them. */
#include <errno.h>
#include <linux/capability.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "filecaps.h"

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* setcap cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p: revision 2 */
static void
test_rev2(void **state)
{
	unsigned char v[XATTR_CAPS_SZ_2] = { 0 };
	uint64_t perm = 0, want = (1ULL << CAP_DAC_OVERRIDE) | (1ULL << CAP_CHOWN) |
				  (1ULL << CAP_SYS_ADMIN) | (1ULL << CAP_NET_ADMIN) |
				  (1ULL << CAP_BPF);

	put32(v, VFS_CAP_REVISION_2);
	put32(v + 4, (uint32_t) want);          /* permitted, low word */
	put32(v + 8, 0xffffffffu);              /* inheritable: must not leak in */
	put32(v + 12, (uint32_t) (want >> 32)); /* permitted, high word (cap_bpf is 39) */
	assert_int_equal(filecaps_parse(v, sizeof(v), &perm), 0);
	assert_true(perm == want);
}

static void
test_rev3_and_effective_flag(void **state)
{
	unsigned char v[XATTR_CAPS_SZ_3] = { 0 };
	uint64_t perm = 0;

	put32(v, VFS_CAP_REVISION_3 | VFS_CAP_FLAGS_EFFECTIVE);
	put32(v + 4, 1u << CAP_CHOWN);
	put32(v + 20, 1000);                    /* rootid */
	assert_int_equal(filecaps_parse(v, sizeof(v), &perm), 0);
	assert_true(perm == (1ULL << CAP_CHOWN));
}

static void
test_rev1(void **state)
{
	unsigned char v[XATTR_CAPS_SZ_1] = { 0 };
	uint64_t perm = 0;

	put32(v, VFS_CAP_REVISION_1);
	put32(v + 4, 1u << CAP_SYS_ADMIN);
	assert_int_equal(filecaps_parse(v, sizeof(v), &perm), 0);
	assert_true(perm == (1ULL << CAP_SYS_ADMIN));
}

static void
test_malformed(void **state)
{
	unsigned char v[XATTR_CAPS_SZ_3] = { 0 };
	uint64_t perm = 0;

	assert_int_equal(filecaps_parse(v, 3, &perm), -EINVAL);
	put32(v, VFS_CAP_REVISION_2);
	assert_int_equal(filecaps_parse(v, XATTR_CAPS_SZ_3, &perm), -EINVAL);   /* wrong size */
	assert_int_equal(filecaps_parse(v, XATTR_CAPS_SZ_1, &perm), -EINVAL);
	put32(v, 0x04000000);                   /* unknown revision */
	assert_int_equal(filecaps_parse(v, XATTR_CAPS_SZ_2, &perm), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rev2),
		cmocka_unit_test(test_rev3_and_effective_flag),
		cmocka_unit_test(test_rev1),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
