/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/stage-wire.c: the stage sandcap sends to the process the helper makes
 * in cgroup mode (lib/stage.h), packed and checked. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "stage.h"

static char *argv_[] = { "sh", "-c", "echo hi", NULL };
static char *envp_[] = { "PATH=/bin:/usr/bin", "HOME=/home/u", NULL };
static const struct sock_filter prog_[3] = {
	{ 0x20, 0, 0, 4 }, { 0x15, 0, 1, 0xc000003e }, { 0x06, 0, 0, 0x7fff0000 },
};

/* Where stage_unpack() places argv and envp (the spawned process has a static one too). */
static char *vec_[2048];
#define VEC vec_, sizeof(vec_) / sizeof(vec_[0])

static struct stage_spec
sample(void)
{
	struct stage_spec s = {
		.flags = STAGE_F_CHDIR | STAGE_F_TTY | STAGE_F_CLOSED(0), .parent = 4242,
		.personality = 0x0040000,
		.argv = argv_, .envp = envp_, .chdir = "sub/dir",
		.n_rl = 2, .n_keep = 2, .n_rulesets = 2, .prog = prog_, .prog_len = 3,
	};

	s.rl[0] = (struct stage_rlimit) { RLIMIT_NOFILE, 256, 256, "--nofile" };
	s.rl[1] = (struct stage_rlimit) { RLIMIT_AS, 1 << 30, 1 << 30, "--as" };
	s.keep[0] = 7;
	s.keep[1] = 3;
	return s;
}

static void
test_round_trip(void **state)
{
	struct stage_spec in = sample(), out;
	void *blob = NULL;
	size_t len = 0;

	(void) state;
	assert_int_equal(stage_pack(&in, &blob, &len), 0);
	assert_int_equal(stage_unpack(blob, len, &out, VEC), 0);
	assert_int_equal(out.flags, in.flags);
	assert_int_equal(out.parent, 4242);
	assert_int_equal(out.personality, 0x0040000);
	assert_string_equal(out.argv[0], "sh");
	assert_string_equal(out.argv[2], "echo hi");
	assert_null(out.argv[3]);
	assert_string_equal(out.envp[1], "HOME=/home/u");
	assert_null(out.envp[2]);
	assert_string_equal(out.chdir, "sub/dir");
	assert_int_equal(out.n_rl, 2);
	assert_int_equal(out.rl[1].resource, RLIMIT_AS);
	assert_int_equal(out.rl[1].hard, 1 << 30);
	assert_string_equal(out.rl[0].option, "--nofile");
	assert_int_equal(out.n_keep, 2);
	assert_int_equal(out.keep[0], 7);
	assert_int_equal(out.keep[1], 3);
	assert_int_equal(out.n_rulesets, 2);
	assert_int_equal(out.prog_len, 3);
	assert_memory_equal(out.prog, prog_, sizeof(prog_));
	free(blob);
}

static void
test_minimal(void **state)
{
	char *one[] = { "true", NULL };
	struct stage_spec in = { .parent = 1, .argv = one }, out;
	void *blob = NULL;
	size_t len = 0;

	(void) state;
	assert_int_equal(stage_pack(&in, &blob, &len), 0);
	assert_int_equal(stage_unpack(blob, len, &out, VEC), 0);
	assert_string_equal(out.argv[0], "true");
	assert_null(out.envp[0]);
	assert_null(out.chdir);
	assert_null(out.prog);
	free(blob);
}

static void
test_pack_refuses(void **state)
{
	char *none[] = { NULL };
	struct stage_spec s;
	void *blob = NULL;
	size_t len = 0;

	(void) state;
	s = sample();
	s.argv = none;                          /* no command */
	assert_int_equal(stage_pack(&s, &blob, &len), -EINVAL);
	s = sample();
	s.flags |= 1u << 30;                    /* unknown flag */
	assert_int_equal(stage_pack(&s, &blob, &len), -EINVAL);
	s = sample();
	s.chdir = NULL;                         /* flag without the path */
	assert_int_equal(stage_pack(&s, &blob, &len), -EINVAL);
	s = sample();
	s.prog_len = BPF_MAXINSNS + 1;
	assert_int_equal(stage_pack(&s, &blob, &len), -EINVAL);
	s = sample();
	s.n_keep = STAGE_KEEP_MAX + 1;
	assert_int_equal(stage_pack(&s, &blob, &len), -EINVAL);
	assert_null(blob);
}

/* argv and envp go into the caller's vector, which must hold both with their NULLs. */
static void
test_vector(void **state)
{
	struct stage_spec in = sample(), out;
	char *small[7];
	void *blob = NULL;
	size_t len = 0;

	(void) state;
	assert_int_equal(stage_pack(&in, &blob, &len), 0);
	assert_int_equal(stage_vec_need(blob, len), 3 + 1 + 2 + 1);
	assert_int_equal(stage_vec_need(blob, sizeof(struct stage_wire) - 1), 0);
	{       /* more strings than bytes after the head: no vector is asked for */
		char *copy = malloc(len);
		uint32_t many = (uint32_t) len;

		memcpy(copy, blob, len);
		memcpy(copy + offsetof(struct stage_wire, n_argv), &many, sizeof(many));
		assert_int_equal(stage_vec_need(copy, len), 0);
		free(copy);
	}
	small[6] = (char *) "sentinel";
	assert_int_equal(stage_unpack(blob, len, &out, small, 6), -ENOSPC);
	assert_string_equal(small[6], "sentinel");      /* nothing written past the capacity */
	assert_int_equal(stage_unpack(blob, len, &out, small, 7), 0);
	assert_ptr_equal(out.argv, small);
	assert_ptr_equal(out.envp, small + 4);
	assert_null(small[3]);
	assert_null(small[6]);
	assert_string_equal(small[5], "HOME=/home/u");
	free(blob);
}

/* Every proper prefix of a good blob is refused; so is one byte more. */
static void
test_truncated_and_trailing(void **state)
{
	struct stage_spec in = sample(), out;
	void *blob = NULL;
	char *bigger;
	size_t len = 0;

	(void) state;
	assert_int_equal(stage_pack(&in, &blob, &len), 0);
	for (size_t n = 0; n < len; n++) {
		void *copy = malloc(n > 0 ? n : 1);

		memcpy(copy, blob, n);
		assert_int_equal(stage_unpack(copy, n, &out, VEC), -EBADMSG);
		free(copy);
	}
	bigger = malloc(len + 1);
	memcpy(bigger, blob, len);
	bigger[len] = 'x';
	assert_int_equal(stage_unpack(bigger, len + 1, &out, VEC), -EBADMSG);
	free(bigger);
	free(blob);
}

/* Head fields out of range, each on its own. */
static void
test_bad_head(void **state)
{
	struct stage_spec in = sample(), out;
	struct stage_wire w;
	void *blob = NULL;
	size_t len = 0;
	const struct { size_t off; uint32_t v; } bad[] = {
		{ offsetof(struct stage_wire, magic), 0x12345678 },
		{ offsetof(struct stage_wire, flags), 1u << 31 },
		{ offsetof(struct stage_wire, parent), 0 },
		{ offsetof(struct stage_wire, parent), (uint32_t) -5 },
		{ offsetof(struct stage_wire, personality), 0xffffffffu },
		{ offsetof(struct stage_wire, n_argv), 0 },
		{ offsetof(struct stage_wire, n_rl), STAGE_RLIMITS_MAX + 1 },
		{ offsetof(struct stage_wire, n_keep), STAGE_KEEP_MAX + 1 },
		{ offsetof(struct stage_wire, n_rulesets), STAGE_RULESETS_MAX + 1 },
		{ offsetof(struct stage_wire, prog_len), BPF_MAXINSNS + 1 },
		{ offsetof(struct stage_wire, n_argv), 1000 },      /* more strings than there are */
	};

	(void) state;
	assert_int_equal(stage_pack(&in, &blob, &len), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *copy = malloc(len);

		memcpy(copy, blob, len);
		memcpy(copy + bad[i].off, &bad[i].v, sizeof(uint32_t));
		assert_int_equal(stage_unpack(copy, len, &out, VEC), -EBADMSG);
		free(copy);
	}
	/* A kept fd numbered 0-2 (the stdio the stage places itself) and an rlimit with soft
	 * over hard are refused too. */
	memcpy(&w, blob, sizeof(w));
	{
		char *copy = malloc(len);
		size_t keep_off = sizeof(w) + w.n_rl * sizeof(struct stage_wire_rl);
		uint32_t two = 2;
		struct stage_wire_rl rl;

		memcpy(copy, blob, len);
		memcpy(copy + keep_off, &two, sizeof(two));
		assert_int_equal(stage_unpack(copy, len, &out, VEC), -EBADMSG);
		memcpy(copy, blob, len);
		memcpy(&rl, copy + sizeof(w), sizeof(rl));
		rl.soft = rl.hard + 1;
		memcpy(copy + sizeof(w), &rl, sizeof(rl));
		assert_int_equal(stage_unpack(copy, len, &out, VEC), -EBADMSG);
		free(copy);
	}
	free(blob);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_pack_refuses),
		cmocka_unit_test(test_truncated_and_trailing),
		cmocka_unit_test(test_bad_head),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
