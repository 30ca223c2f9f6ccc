/* SPDX-License-Identifier: MIT */
/*
 * One strict INI reader around libinih, for the policy and the profiles.
 *
 * libinih's behaviour depends on how the distribution built it (multi-line values, inline
 * comments, a BOM, line and section name lengths are compile-time options, and Debian 12's
 * build splits over-long lines and cuts long section names silently).  So the text is read
 * in two passes, and the result does not depend on those options:
 *
 *  1. We split the lines ourselves and refuse, with their real line numbers, NUL bytes,
 *     control characters (tab aside; unless allow_controls), lines over INI_STRICT_LINE_MAX bytes, indented
 *     (continuation) lines, malformed section headers and lines that are neither
 *     "[NAME]" nor "KEY = VALUE".  Comments start with ';' or '#' in the first column, or
 *     with ';' after a blank.  A UTF-8 byte order mark and CRLF line ends are accepted.
 *  2. libinih parses the lines in a canonical form ("[NAME]", "KEY=VALUE"), fed one per
 *     call, and each (section, key, value) it reports is checked against what pass 1 saw
 *     on that line before the caller's key callback sees it: a truncation or a split by
 *     the library is refused, never acted on.
 */
#pragma once

#include <stddef.h>

#define INI_STRICT_LINE_MAX \
	196 /* bytes per line, line end excluded: libinih's
					 * 200-byte buffer minus CR, LF, NUL and one spare */

/* One "KEY = VALUE" line, blanks and any inline comment removed. */
struct ini_strict_key {
	unsigned line;
	const char *section; /* the NAME of the [NAME] it is under; "" before any header */
	size_t section_idx;  /* 0, 1, ... in the order the section callback accepted them;
				 * (size_t) -1 before any header */
	const char *key, *value;
};

struct ini_strict_ops {
	/* A "[NAME]" header: 0 accepts it; < 0 refuses it (the callback said why), and the
	 * keys under it are skipped.  -ENOMEM ends the parse. */
	int (*section)(void *userdata, unsigned line, const char *name);
	/* A key of an accepted section, or before any header: 0, or < 0 once the callback said
	 * why (-ENOMEM ends the parse). */
	int (*key)(void *userdata, const struct ini_strict_key *k);
	/* An error the reader found: "what; the fix", without the file name or line. */
	void (*error)(void *userdata, unsigned line, const char *msg);
	/* Stop at the first error (profiles): later lines are not read and no key callback is
	 * made for a line after one the reader or a callback refused.  Otherwise every line is
	 * read and every error reported (the policy). */
	int stop_at_first;
	/* Accept control characters but NUL (profiles: a path or an environment value may
	 * hold any other byte; their messages escape them). */
	int allow_controls;
};

/* Read text (len bytes).  Returns 0 when the text was read to its end (errors, if any,
 * were given to the callbacks), -ENOMEM, or -EIO when libinih failed. */
int ini_strict_parse(const char *text, size_t len, const struct ini_strict_ops *ops,
		     void *userdata);
