/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the strict INI reader (lib/ini-strict.c) in the policy's mode and the
 * profiles' (the first byte chooses), with callbacks that refuse some of what they get.
 * Besides crashes, leaks and sanitizer reports, a key handed on that pass 1 would not
 * give (an unknown section, blanks around a key or value, a line out of order) aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ini-strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t sections;        /* accepted */
	unsigned last_key_line;
	unsigned char refuse;   /* from the first byte */
};

static int
on_section(void *userdata, unsigned line, const char *name)
{
	struct seen *s = userdata;

	if (line == 0 || strchr(name, ']') != NULL)
		abort();
	if ((s->refuse & 0x10) && name[0] == 'x')
		return -1;
	s->sections++;
	return 0;
}

static int
blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

static int
on_key(void *userdata, const struct ini_strict_key *k)
{
	struct seen *s = userdata;
	size_t kl = strlen(k->key), vl = strlen(k->value);

	if (k->line <= s->last_key_line || kl == 0 || blank(k->key[0]) ||
	    blank(k->key[kl - 1]) || (vl > 0 && (blank(k->value[0]) || blank(k->value[vl - 1]))))
		abort();
	if (k->section_idx != (size_t) -1 && k->section_idx >= s->sections)
		abort();
	s->last_key_line = k->line;
	return (s->refuse & 0x20) && k->key[0] == 'x' ? -1 : 0;
}

static void
on_error(void *userdata, unsigned line, const char *msg)
{
	(void) userdata;
	(void) line;
	if (msg == NULL || msg[0] == '\0')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0 };
	struct ini_strict_ops ops = { .section = on_section, .key = on_key, .error = on_error };

	if (size == 0)
		return 0;
	s.refuse = data[0];
	ops.stop_at_first = data[0] & 1;
	ops.allow_controls = (data[0] >> 1) & 1;
	(void) ini_strict_parse((const char *) data + 1, size - 1, &ops, &s);
	return 0;
}
