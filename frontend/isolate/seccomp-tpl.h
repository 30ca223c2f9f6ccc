/* SPDX-License-Identifier: MIT */
/* The seccomp filter as BPF programs generated at BUILD time (perf: libseccomp's
 * compilation of the filter was a large part of every sandbox's start-up, in sandcap or in
 * the child).  tools/seccomp-gen.c, run by the Makefile on the build
 * machine, builds the filter's rules (seccomp-rules.h, the same code the run-time path
 * runs) for every key with placeholder pids, twice with two placeholder sets of the same
 * relative order, and keeps a program only when the two are identical but for `k` fields
 * that each hold exactly one pid expression; those become the patch table.  At run time
 * sctpl_fill() copies the key's program and writes the pids into it.  The generated data
 * ($(BUILD)/gen/seccomp-tpl-data.c) is never committed.  tests/unit/test-seccomp-tpl.c runs
 * patched templates and freshly generated programs side by side on the same probes.
 *
 * Every comparison that names a pid is an equality whose rule returns EPERM, like every
 * other rule of the same system call: which of two equal-action comparisons is tested
 * first decides nothing, so the program is the same filter whatever the order of the real
 * pids and however many of them are equal (a repeated pid is a redundant rule). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "isolate/protect.h"
#include "isolate/seccomp-rules.h"

struct sock_filter;

/* What a patched `k` holds: a pid of the set (slot), its negation, the process group, its
 * negation; all as the lower 32 bits the rules compare. */
enum sctpl_expr {
	SCTPL_PID,
	SCTPL_NEG_PID,
	SCTPL_PGID,
	SCTPL_NEG_PGID,
};

struct sctpl_patch {
	uint16_t insn; /* index in the program */
	uint8_t expr;  /* enum sctpl_expr */
	uint8_t slot;  /* pid slot, < PROTECT_PIDS_MAX */
};

struct sctpl {
	uint8_t net; /* the key (seccomp-rules.h) */
	uint8_t unix_closed;
	uint8_t landlock_domain;
	uint8_t landlock_signal;
	uint32_t insn;  /* first instruction in sctpl_insns[] */
	uint32_t len;   /* instructions */
	uint32_t patch; /* first entry in sctpl_patches[] */
	uint32_t n_patch;
};

/* Generated (tools/seccomp-gen.c). */
extern const uint32_t sctpl_arch; /* seccomp_arch_native() at build time */
extern const struct sctpl sctpl_table[];
extern const size_t sctpl_count;
extern const struct sock_filter sctpl_insns[];
extern const struct sctpl_patch sctpl_patches[];

/* The value of expr for pid slots pid[] and pgid (the lower 32 bits the rules compare).
 * Inline: the generator, which cannot link the data it makes, computes with it too. */
static inline uint32_t
sctpl_value(enum sctpl_expr expr, const pid_t *pid, size_t slot, pid_t pgid)
{
	switch (expr) {
	case SCTPL_PID:
		return (uint32_t) pid[slot];
	case SCTPL_NEG_PID:
		return -(uint32_t) pid[slot];
	case SCTPL_PGID:
		return (uint32_t) pgid;
	case SCTPL_NEG_PGID:
		return -(uint32_t) pgid;
	}
	return 0; /* not reached: the generator emits only the four above */
}

/* The filter of k and set from its template, in buf (max instructions).  The pids fill
 * the PROTECT_PIDS_MAX slots in ascending order, the largest repeated into unused slots.
 * Returns 0 with *ret_len, or -ENOENT when no template fits: no pid, no process group
 * (set->pgid <= 0: the rules then have no group rule), a key without a program, another
 * architecture than the build's; the caller then builds the filter with libseccomp. */
int sctpl_fill(const struct scrules_key *k, const struct protect_pids *set, struct sock_filter *buf,
	       size_t max, size_t *ret_len);
