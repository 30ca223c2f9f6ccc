/* SPDX-License-Identifier: MIT */
/* A tiny streaming JSON writer for the run report.  It never fails half-way into invalid
 * JSON on its own: every string is escaped (see json_write_string()), commas and nesting
 * are tracked, and write errors are remembered and returned by json_finish().
 *
 * Escaping (docs/report.md): '"' and '\\' are escaped, control bytes 0x00-0x1f and 0x7f
 * become \u00XX (\n, \t, ... included, no short forms), valid UTF-8 passes through
 * unchanged, and every byte that is not part of a valid UTF-8 sequence (stray continuation
 * bytes, truncated sequences, overlong forms, surrogates, code points above U+10FFFF, 0xf5+)
 * becomes \u00XX of that byte, so the raw byte value is recoverable. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 16

struct json {
	FILE *f;
	unsigned depth;
	bool first[JSON_DEPTH_MAX]; /* no element written yet at this level */
	bool after_key;             /* a key was written; the value follows without comma */
	int error;                  /* first error: -errno or -EINVAL for misuse */
};

void json_init(struct json *j, FILE *f);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_uint(struct json *j, uint64_t v);
void json_null(struct json *j);
/* "key": v and "key": "s" (s NULL: null), the usual pairs of an object. */
void json_key_uint(struct json *j, const char *key, uint64_t v);
void json_key_string(struct json *j, const char *key, const char *s);
/* "key": v, or "key": null when there is no figure (!has). */
void json_key_opt_uint(struct json *j, const char *key, bool has, uint64_t v);
/* Flush; returns 0, or the first error (-EINVAL for unbalanced nesting). */
int json_finish(struct json *j);

/* Write s[0..len) as a quoted, escaped JSON string. */
void json_write_string(FILE *f, const char *s, size_t len);
