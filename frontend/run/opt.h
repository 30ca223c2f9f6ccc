/* SPDX-License-Identifier: MIT */
/* Option words of the subcommands: one table per command, read by one iterator, so that which
 * options take a value is written once (opt_def.has_value) and every reader agrees on it.
 *
 * Names are matched exactly: "--time" is not "--timeout" (no getopt-style abbreviations, so a
 * script keeps its meaning when an option is added).  "--name VALUE" and "--name=VALUE" are
 * the same; short options bundle ("-qh") and take a value attached or as the next word
 * ("-s9", "-s 9").  Parsing stops at the first word that is not an option ("-" is one) or
 * after "--".  Pure: no I/O; opt_error() formats what the caller prints. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct opt_def {
	const char *name; /* "--timeout" */
	char short_name;  /* 'q' for -q, or 0 */
	bool has_value;
	int id;         /* > 0: what opt_next() returns */
	unsigned flags; /* the table's own; opt_iter.hide treats matching ones as unknown */
};

struct opt_iter {
	int argc;
	char *const *argv;
	int i;              /* the next word; at the end, the first operand (argc if none) */
	const char *bundle; /* the rest of a short-option bundle ("h" of "-qh"), or NULL */
	const struct opt_def *defs;
	size_t n_defs;
	unsigned hide; /* defs with any of these flags are not options here */

	/* Set by each opt_next(). */
	const struct opt_def *def; /* the option read, or NULL */
	const char *value;         /* its value (has_value), else NULL */
	const char *word;          /* on error: the word, or the rest of a bundle */
	char name[40];             /* on error: the option as typed ("-x", "--mem"), cut */
};

/* Start at argv[first] (1: argv[0] is the command's name). */
void opt_init(struct opt_iter *it, int argc, char *const *argv, int first,
	      const struct opt_def *defs, size_t n_defs, unsigned hide);

/* The next option: its id (> 0), with it->def and it->value set; 0 at the end (it->i is then
 * the first operand); or -ENOENT (unknown option), -ENODATA (no value where one is needed)
 * or -EINVAL (a value given to an option that takes none, "--quiet=1"). */
int opt_next(struct opt_iter *it);

/* The message for error r of opt_next(), without "sandcap: CMD: ": "unknown option '-x'",
 * "--timeout needs a value", "unknown option '--mem' (options are not abbreviated: did you
 * mean --memory?)", "unknown option '--memroy' (did you mean --memory?)". */
void opt_error(const struct opt_iter *it, int r, char *buf, size_t bufsz);

/* The number of single-letter edits (insert, delete, replace, swap of neighbours) from a
 * to b; SIZE_MAX for words longer than 40 bytes.  opt_error() suggests the option nearest
 * to an unknown word with it ("--memroy": did you mean --memory?). */
size_t opt_edit_distance(const char *a, const char *b);

/* Signal names and numbers for sandcap kill: "KILL", "sigterm", "SIGTERM", "9", "0" (case
 * does not matter).  0 <= *ret < NSIG; 0 signals nothing.  Returns 0, -EINVAL (not a
 * signal name or number) or -ERANGE (a number of no signal). */
int opt_parse_signal(const char *s, int *ret);
extern const char opt_signal_forms[];
