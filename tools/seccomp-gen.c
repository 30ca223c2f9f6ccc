/* SPDX-License-Identifier: MIT */
/* Build-time generator of the seccomp filter's programs (frontend/isolate/seccomp-tpl.h).
 * Run by the Makefile on the build machine, which is the machine sandcap runs on: writes C
 * to stdout ($(BUILD)/gen/seccomp-tpl-data.c, never committed).
 *
 * For every key of the filter (frontend/isolate/seccomp-rules.h) it asks libseccomp, through the
 * same scrules_compile() the run-time path calls, for the program with placeholder pids,
 * twice, with two placeholder sets of the same relative order (libseccomp orders sibling
 * comparisons by value), and refuses, failing the build, unless:
 *   - both programs have the same length and are identical but for `k` fields;
 *   - every `k` that differs is, in both, the same one expression of the placeholders (pid
 *     i, -pid i, pgid, -pgid, as the lower 32 bits the rules compare), and that pair
 *     belongs to no other expression;
 *   - no `k` that does not differ equals any placeholder expression (a placeholder where
 *     it is not patched would leave a stale pid in the filter);
 *   - every expression appears at least once (every pid reached the program).
 * Keys whose programs are identical (--net host with and without a Landlock domain) share
 * one program in the output. */
#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "isolate/seccomp-rules.h"
#include "isolate/seccomp-tpl.h"

#define N_EXPR (2 * PROTECT_PIDS_MAX + 2)
_Static_assert(PROTECT_PIDS_MAX == 4, "one placeholder per pid slot: extend placeholders[]");

/* Two placeholder sets: same order (pids ascending, pgid above them, so the negations
 * descend and -pgid is below them), and values no constant of the rules has. */
static const struct protect_pids placeholders[2] = {
	{ .pid = { 1000003, 1000005, 1000007, 1000009 }, .n = 4, .pgid = 1000011 },
	{ .pid = { 2000003, 2000005, 2000007, 2000009 }, .n = 4, .pgid = 2000011 },
};

struct expr {
	enum sctpl_expr expr;
	unsigned slot;
};

struct tpl {
	struct scrules_key key;
	struct sock_filter prog[BPF_MAXINSNS];
	size_t len;
	struct sctpl_patch patch[BPF_MAXINSNS];
	size_t n_patch;
	size_t dup_of;                  /* index of an identical earlier program, or itself */
};

static struct tpl tpls[32];
static size_t n_tpls;

static _noreturn_ void
die(const struct scrules_key *k, const char *what)
{
	fprintf(stderr, "seccomp-gen: key net=%d unix_closed=%d landlock_domain=%d "
		"landlock_signal=%d: %s\n", (int) k->net, k->unix_closed, k->landlock_domain,
		k->landlock_signal, what);
	exit(1);
}

static void
exprs(struct expr *e)
{
	size_t n = 0;

	for (unsigned i = 0; i < PROTECT_PIDS_MAX; i++) {
		e[n++] = (struct expr) { SCTPL_PID, i };
		e[n++] = (struct expr) { SCTPL_NEG_PID, i };
	}
	e[n++] = (struct expr) { SCTPL_PGID, 0 };
	e[n++] = (struct expr) { SCTPL_NEG_PGID, 0 };
}

static uint32_t
value(const struct expr *e, const struct protect_pids *set)
{
	return sctpl_value(e->expr, set->pid, e->slot, set->pgid);
}

static void
generate(const struct scrules_key *k)
{
	static struct sock_filter b[BPF_MAXINSNS];
	struct tpl *t = &tpls[n_tpls];
	struct expr e[N_EXPR];
	bool seen[N_EXPR] = { false };
	const char *what;
	size_t len_b;

	if (n_tpls >= ELEMENTSOF(tpls))
		die(k, "too many keys");
	exprs(e);
	t->key = *k;
	if (scrules_compile(k, &placeholders[0], t->prog, ELEMENTSOF(t->prog), &t->len, &what) < 0 ||
	    scrules_compile(k, &placeholders[1], b, ELEMENTSOF(b), &len_b, &what) < 0)
		die(k, what);
	if (t->len != len_b)
		die(k, "the two placeholder sets gave programs of different lengths");
	t->n_patch = 0;
	for (size_t i = 0; i < t->len; i++) {
		const struct sock_filter *a = &t->prog[i];
		size_t match = N_EXPR, count = 0;

		if (a->code != b[i].code || a->jt != b[i].jt || a->jf != b[i].jf)
			die(k, "the two placeholder sets gave programs of different shapes");
		for (size_t x = 0; x < N_EXPR; x++) {
			bool in_a = a->k == value(&e[x], &placeholders[0]) ||
				    a->k == value(&e[x], &placeholders[1]);
			bool in_b = b[i].k == value(&e[x], &placeholders[0]) ||
				    b[i].k == value(&e[x], &placeholders[1]);

			if (a->k == value(&e[x], &placeholders[0]) &&
			    b[i].k == value(&e[x], &placeholders[1])) {
				match = x;
				count++;
			} else if (in_a || in_b) {
				die(k, "a placeholder value where no placeholder expression fits");
			}
		}
		if (a->k == b[i].k)
			continue;       /* count is 0: checked above that it is no placeholder */
		if (count != 1)
			die(k, "a k that differs between the two sets is no one placeholder expression");
		if (i > UINT16_MAX)
			die(k, "program too long");
		seen[match] = true;
		t->patch[t->n_patch++] = (struct sctpl_patch) {
			.insn = (uint16_t) i, .expr = (uint8_t) e[match].expr,
			.slot = (uint8_t) e[match].slot };
	}
	for (size_t x = 0; x < N_EXPR; x++)
		if (!seen[x])
			die(k, "a placeholder expression is missing from the program");

	t->dup_of = n_tpls;
	for (size_t j = 0; j < n_tpls; j++)
		if (tpls[j].dup_of == j && tpls[j].len == t->len && tpls[j].n_patch == t->n_patch &&
		    memcmp(tpls[j].prog, t->prog, t->len * sizeof(t->prog[0])) == 0 &&
		    memcmp(tpls[j].patch, t->patch, t->n_patch * sizeof(t->patch[0])) == 0)
			t->dup_of = j;
	n_tpls++;
}

int
main(void)
{
	static const enum policy_net nets[] = { POLICY_NET_HOST, POLICY_NET_PROXY,
						POLICY_NET_LOOPBACK, POLICY_NET_NONE };
	size_t insn = 0, patch = 0;
	uint32_t insn_off[ELEMENTSOF(tpls)], patch_off[ELEMENTSOF(tpls)];

	for (size_t i = 0; i < ELEMENTSOF(nets); i++)
		for (int uc = 0; uc < 2; uc++)
			for (int ld = 0; ld < 2; ld++)
				for (int ls = 0; ls < 2; ls++) {
					struct scrules_key k = { .net = nets[i], .unix_closed = uc,
								 .landlock_domain = ld,
								 .landlock_signal = ls };

					/* The keys that exist (seccomp-rules.h). */
					if (ls && !ld)
						continue;
					generate(&k);
				}

	printf("/* Generated by tools/seccomp-gen.c from frontend/isolate/seccomp-rules.c and "
	       "frontend/isolate/protect.c\n * with libseccomp %u.%u.%u; do not edit, do not commit. */\n",
	       seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro);
	printf("#include <linux/filter.h>\n\n#include \"isolate/seccomp-tpl.h\"\n\n");
	printf("const uint32_t sctpl_arch = 0x%08xu;\n\n", seccomp_arch_native());
	printf("const struct sock_filter sctpl_insns[] = {\n");
	for (size_t t = 0; t < n_tpls; t++) {
		if (tpls[t].dup_of != t)
			continue;
		insn_off[t] = (uint32_t) insn;
		printf("\t/* template %zu */\n", t);
		for (size_t i = 0; i < tpls[t].len; i++) {
			const struct sock_filter *f = &tpls[t].prog[i];

			printf("\t{ 0x%04x, %u, %u, 0x%08xu },\n", f->code, f->jt, f->jf, f->k);
		}
		insn += tpls[t].len;
	}
	printf("};\n\nconst struct sctpl_patch sctpl_patches[] = {\n");
	for (size_t t = 0; t < n_tpls; t++) {
		if (tpls[t].dup_of != t)
			continue;
		patch_off[t] = (uint32_t) patch;
		for (size_t i = 0; i < tpls[t].n_patch; i++)
			printf("\t{ %u, %u, %u },\n", tpls[t].patch[i].insn, tpls[t].patch[i].expr,
			       tpls[t].patch[i].slot);
		patch += tpls[t].n_patch;
	}
	printf("};\n\nconst struct sctpl sctpl_table[] = {\n");
	for (size_t t = 0; t < n_tpls; t++) {
		size_t d = tpls[t].dup_of;
		const struct scrules_key *k = &tpls[t].key;

		printf("\t{ %d, %d, %d, %d, %u, %zu, %u, %zu },\n", (int) k->net, k->unix_closed,
		       k->landlock_domain, k->landlock_signal, insn_off[d], tpls[d].len,
		       patch_off[d], tpls[d].n_patch);
	}
	printf("};\n\nconst size_t sctpl_count = %zu;\n", n_tpls);
	fprintf(stderr, "seccomp-gen: %zu keys, %zu instructions, %zu patches\n", n_tpls, insn,
		patch);
	return fflush(stdout) == 0 ? 0 : 1;
}
