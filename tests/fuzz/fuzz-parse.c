/* SPDX-License-Identifier: MIT */
/* libFuzzer target: lib/parse-util.c's strict value parsers and formatters. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, buf[64];
	uint64_t v;
	int r;

	if (size > 256)
		return 0;
	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	v = 7;
	r = parse_size(s, &v);
	if (r != 0 && (v != 7 || (r != -EINVAL && r != -ERANGE)))
		abort();
	if (r == 0)
		format_size(v, buf, sizeof(buf));
	v = 7;
	r = parse_duration_ms(s, &v);
	if (r != 0 && (v != 7 || (r != -EINVAL && r != -ERANGE)))
		abort();
	if (r == 0)
		format_duration_ms(v, buf, sizeof(buf));
	v = 7;
	r = parse_percent(s, &v);
	if (r != 0 && (v != 7 || (r != -EINVAL && r != -ERANGE)))
		abort();
	v = 7;
	r = parse_u64_range(s, 1, 4194304, &v);
	if (r == 0 && (v < 1 || v > 4194304))
		abort();
	if (r != 0 && v != 7)
		abort();
	/* Whatever any parser accepted starts with a digit and has no blank. */
	if (r == 0 && (s[0] < '0' || s[0] > '9' || strpbrk(s, " \t") != NULL))
		abort();
	free(s);
	return 0;
}
