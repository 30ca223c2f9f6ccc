/* SPDX-License-Identifier: MIT */
/* Build-time seccomp programs, patched with the pids at run time; see seccomp-tpl.h.
 * No allocation, no system call: safe in the sandboxed child too (isolate_apply() builds
 * the filter there when nothing was prepared before it started). */
#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <string.h>

#include "macro.h"
#include "isolate/seccomp-tpl.h"

static const struct sctpl *
find(const struct scrules_key *k)
{
	for (size_t i = 0; i < sctpl_count; i++) {
		const struct sctpl *t = &sctpl_table[i];

		if (t->net == (uint8_t) k->net && t->unix_closed == k->unix_closed &&
		    t->landlock_domain == k->landlock_domain &&
		    t->landlock_signal == k->landlock_signal)
			return t;
	}
	return NULL;
}

int
sctpl_fill(const struct scrules_key *k, const struct protect_pids *set, struct sock_filter *buf,
	   size_t max, size_t *ret_len)
{
	pid_t pid[PROTECT_PIDS_MAX];
	const struct sctpl *t;
	size_t n = set->n;

	if (n == 0 || n > PROTECT_PIDS_MAX || set->pgid <= 0)
		return -ENOENT;
	/* Belt and braces: the generator ran on the build machine, which is the run machine
	 * (SECURITY.md); a program for another architecture's numbers is never loaded. */
	if (seccomp_arch_native() != sctpl_arch)
		return -ENOENT;
	t = find(k);
	if (t == NULL || t->len > max)
		return -ENOENT;

	/* Ascending, as the placeholders were (seccomp-tpl.h: the order decides nothing, but
	 * this keeps the program the generator checked, shape for shape, where it can). */
	for (size_t i = 0; i < n; i++) {
		pid_t p = set->pid[i];
		size_t j = i;

		if (p <= 0)
			return -ENOENT;
		for (; j > 0 && pid[j - 1] > p; j--)
			pid[j] = pid[j - 1];
		pid[j] = p;
	}
	for (size_t i = n; i < PROTECT_PIDS_MAX; i++)
		pid[i] = pid[n - 1];

	memcpy(buf, &sctpl_insns[t->insn], t->len * sizeof(*buf));
	for (size_t i = 0; i < t->n_patch; i++) {
		const struct sctpl_patch *p = &sctpl_patches[t->patch + i];

		buf[p->insn].k = sctpl_value(p->expr, pid, p->slot, set->pgid);
	}
	*ret_len = t->len;
	return 0;
}
