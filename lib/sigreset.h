/* SPDX-License-Identifier: MIT */
/* Resetting signal dispositions to the default, touching only those that are not already
 * default (perf: a sigaction call for every signal of every exec'd program was a large share
 * of a sandbox's start-up).  Used by the helper after exec and by the sandboxed child before
 * it. */
#pragma once

#include <stdint.h>

/* The hexadecimal signal mask of line "KEY:\t%016x" of a /proc/PID/status text (SigIgn,
 * SigCgt, SigBlk): bit N-1 is signal N.  Pure.  0, or -ENOENT (no such line) / -EBADMSG
 * (not exactly 16 hex digits ending the line); *ret_mask written only on success. */
int sig_status_mask(const char *status, const char *key, uint64_t *ret_mask);

/* Set every signal that is ignored or caught (per /proc/self/status) to SIG_DFL; every
 * signal when that cannot be read or parsed.  The mask is left alone.  Returns how many
 * signals it reset (for tests). */
int sig_reset_dispositions(void);

/* The signals that are not SIG_DFL, as bits (bit N-1 is signal N), and in *ret_ign the
 * ignored ones, asked of the kernel signal by signal (libc's own two, 32 and 33, count as
 * ignored whenever they are not default).  For a parent that forks a child which resets
 * them (the child inherits exactly the parent's dispositions at fork), so the child need
 * not ask itself.  sig_reset_dispositions() reads /proc/self/status instead: one read, for
 * the helper, which runs where each system call is costly. */
uint64_t sig_nondefault(uint64_t *ret_ign);

/* Reset the signals of todo (from sig_nondefault()) to SIG_DFL.  Returns how many. */
int sig_reset_these(uint64_t todo, uint64_t ign);
