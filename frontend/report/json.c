/* SPDX-License-Identifier: MIT */
/* The streaming JSON writer of the run report (json.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "report/json.h"

void
json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

/* Before any value: a comma unless it is the first element or follows a key. */
static void
json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		(void) fputs(", ", j->f);
	j->first[j->depth] = false;
}

static void
json_open(struct json *j, char c)
{
	json_sep(j);
	(void) fputc(c, j->f);
	if (j->depth + 1 >= JSON_DEPTH_MAX) {
		if (j->error == 0)
			j->error = -EINVAL;
		return;
	}
	j->depth++;
	j->first[j->depth] = true;
}

static void
json_close(struct json *j, char c)
{
	if (j->depth == 0 || j->after_key) {
		if (j->error == 0)
			j->error = -EINVAL;
		return;
	}
	j->depth--;
	(void) fputc(c, j->f);
}

void
json_object_begin(struct json *j)
{
	json_open(j, '{');
}

void
json_object_end(struct json *j)
{
	json_close(j, '}');
}

void
json_array_begin(struct json *j)
{
	json_open(j, '[');
}

void
json_array_end(struct json *j)
{
	json_close(j, ']');
}

void
json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_write_string(j->f, key, strlen(key));
	(void) fputs(": ", j->f);
	j->after_key = true;
}

void
json_string(struct json *j, const char *s)
{
	if (s == NULL) {
		json_null(j);
		return;
	}
	json_sep(j);
	json_write_string(j->f, s, strlen(s));
}

void
json_uint(struct json *j, uint64_t v)
{
	json_sep(j);
	(void) fprintf(j->f, "%" PRIu64, v);
}

void
json_null(struct json *j)
{
	json_sep(j);
	(void) fputs("null", j->f);
}

int
json_finish(struct json *j)
{
	if (j->error == 0 && (j->depth != 0 || j->after_key))
		j->error = -EINVAL;
	if (fflush(j->f) != 0 && j->error == 0)
		j->error = errno > 0 ? -errno : -EIO;
	if (ferror(j->f) && j->error == 0)
		j->error = -EIO;
	return j->error;
}

/* Length of the valid UTF-8 sequence at s (at most left bytes), or 0 if invalid.
 * Follows RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t
utf8_valid_len(const unsigned char *s, size_t left)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0; /* continuation byte, 0xc0/0xc1 overlong lead, 0xf5+ */
	}
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
		return 0; /* overlong */
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0; /* UTF-16 surrogate */
	if (cp > 0x10ffff)
		return 0;
	return n;
}

void
json_write_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t i = 0;

	(void) fputc('"', f);
	while (i < len) {
		unsigned char c = p[i];
		size_t n;

		if (c == '"' || c == '\\') {
			(void) fputc('\\', f);
			(void) fputc(c, f);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			(void) fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_valid_len(p + i, len - i);
		if (n == 0) {
			(void) fprintf(f, "\\u%04x", c); /* invalid byte: keep its value */
			i++;
			continue;
		}
		(void) fwrite(p + i, 1, n, f);
		i += n;
	}
	(void) fputc('"', f);
}

void
json_key_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void
json_key_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void
json_key_opt_uint(struct json *j, const char *key, bool has, uint64_t v)
{
	json_key(j, key);
	if (has)
		json_uint(j, v);
	else
		json_null(j);
}
