/* SPDX-License-Identifier: MIT */
/* Strict parsers for the values users and admins type: sizes, durations, percentages and
 * counts.  Shared by the front-end, the policy parser and the helper.  Pure; never logs.
 *
 * All of them reject: the empty string, signs, white space, hex/octal prefixes, trailing
 * junk, and values that overflow.  They return 0 or -EINVAL (malformed) / -ERANGE (too big
 * or out of [min,max]) and write *ret only on success. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "4096", "512K", "1.5G", "2GiB", "100MB" -> bytes.  Units are 1024-based:
 * K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (case-insensitive), B for bytes.
 * A fraction needs a unit and is rounded down to a whole byte. */
int parse_size(const char *s, uint64_t *ret);

/* "30", "1.5", "250ms", "2s", "5m", "1h" -> milliseconds.  A bare number is seconds.
 * Fractions are allowed and rounded up to the next millisecond. */
int parse_duration_ms(const char *s, uint64_t *ret);

/* "50%", "50", "250%" -> percent of one CPU (100 = one core).  Whole numbers only. */
int parse_percent(const char *s, uint64_t *ret);

/* Plain decimal in [min, max]. */
int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/* Is word one of the space- or newline-separated words of list ("cpuset cpu io")? */
bool word_in_list(const char *list, const char *word);

/* Human-readable description of the accepted forms, for error messages. */
extern const char parse_size_forms[];
extern const char parse_duration_forms[];
extern const char parse_percent_forms[];

/* Format helpers for messages and reports: "256 MiB", "1.5 GiB", "12 B"; "1.5s", "250ms". */
void format_size(uint64_t bytes, char *buf, size_t bufsz);
void format_duration_ms(uint64_t ms, char *buf, size_t bufsz);
