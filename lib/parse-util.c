/* SPDX-License-Identifier: MIT */
/* Strict parsers and formatters of sizes, durations and percentages (parse-util.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parse-util.h"

const char parse_size_forms[] =
	"a whole number of bytes, or a number with a unit K, M, G or T (1024-based; "
	"KiB/KB forms accepted, with an upper-case B: a lower-case b means bits), "
	"e.g. 4096, 512M, 1.5G";
const char parse_duration_forms[] =
	"a number of seconds, or a number with a unit ms, s, m or h, e.g. 30, 1.5s, 250ms, 5m";
const char parse_percent_forms[] =
	"a whole percentage of one CPU core, e.g. 50% or 200% (100% = one core)";

/* Parse the leading "digits[.digits]" of s into an integer part and a fraction expressed
 * as numerator/10^k (k <= 9; further digits are ignored after checking they are digits).
 * Sets *end to the first byte after the number. */
static int
parse_decimal(const char *s, uint64_t *ret_int, uint64_t *ret_frac, uint64_t *ret_scale,
	      bool *ret_has_frac, const char **end)
{
	uint64_t v = 0, frac = 0, scale = 1;
	bool has_frac = false;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t) (*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL; /* "1." and "1.x" */
		has_frac = true;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale < UINT64_C(1000000000)) {
				frac = frac * 10 + (uint64_t) (*p - '0');
				scale *= 10;
			}
		}
	}
	*ret_int = v;
	*ret_frac = frac;
	*ret_scale = scale;
	*ret_has_frac = has_frac;
	*end = p;
	return 0;
}

/* v * mul + frac * mul / scale, checking overflow.  round_up rounds the fraction up. */
static int
scale_value(uint64_t v, uint64_t frac, uint64_t scale, uint64_t mul, bool round_up, uint64_t *ret)
{
	uint64_t whole, part;

	if (mul != 0 && v > UINT64_MAX / mul)
		return -ERANGE;
	whole = v * mul;
	/* frac < scale <= 1e9 and mul <= 2^40 for sizes: use 128-bit to be safe. */
	unsigned __int128 f = (unsigned __int128) frac * mul;
	part = (uint64_t) (f / scale);
	if (round_up && f % scale != 0)
		part++;
	if (whole > UINT64_MAX - part)
		return -ERANGE;
	*ret = whole + part;
	return 0;
}

struct unit {
	const char *name;
	uint64_t mul;
};

/* "number[unit]" with the unit from units[] (the whole rest of s; case-insensitive if
 * icase).  A fraction is refused with a unit whose mul is 1 if frac_needs_unit. */
static int
parse_scaled(const char *s, const struct unit *units, size_t n, bool icase, bool round_up,
	     bool frac_needs_unit, uint64_t *ret)
{
	uint64_t v, frac, scale;
	bool has_frac;
	const char *end;
	int r;

	if (s == NULL)
		return -EINVAL;
	r = parse_decimal(s, &v, &frac, &scale, &has_frac, &end);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if ((icase ? strcasecmp(end, units[i].name) : strcmp(end, units[i].name)) != 0)
			continue;
		if (has_frac && frac_needs_unit && units[i].mul == 1)
			return -EINVAL; /* "1.5" bytes makes no sense */
		return scale_value(v, frac, scale, units[i].mul, round_up, ret);
	}
	return -EINVAL;
}

int
parse_size(const char *s, uint64_t *ret)
{
	static const struct unit units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", UINT64_C(1) << 10 },
		{ "kb", UINT64_C(1) << 10 },
		{ "kib", UINT64_C(1) << 10 },
		{ "m", UINT64_C(1) << 20 },
		{ "mb", UINT64_C(1) << 20 },
		{ "mib", UINT64_C(1) << 20 },
		{ "g", UINT64_C(1) << 30 },
		{ "gb", UINT64_C(1) << 30 },
		{ "gib", UINT64_C(1) << 30 },
		{ "t", UINT64_C(1) << 40 },
		{ "tb", UINT64_C(1) << 40 },
		{ "tib", UINT64_C(1) << 40 },
	};
	size_t len = s != NULL ? strlen(s) : 0;

	/* "1Mb", "1kb", "1Gib": a lower-case b is the symbol of bits, so the size was meant
	 * in a unit eight times smaller than bytes; refused rather than guessed. */
	if (len > 0 && s[len - 1] == 'b')
		return -EINVAL;
	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), true, false, true, ret);
}

int
parse_duration_ms(const char *s, uint64_t *ret)
{
	static const struct unit units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};

	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), false, true, false, ret);
}

/* A whole number at the start of s; *end points after it. */
static int
parse_whole(const char *s, uint64_t *ret, const char **end)
{
	uint64_t v, frac, scale;
	bool has_frac;
	int r;

	if (s == NULL)
		return -EINVAL;
	r = parse_decimal(s, &v, &frac, &scale, &has_frac, end);
	if (r < 0)
		return r;
	if (has_frac)
		return -EINVAL;
	*ret = v;
	return 0;
}

int
parse_percent(const char *s, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r = parse_whole(s, &v, &end);

	if (r < 0)
		return r;
	if (!(end[0] == '\0' || (end[0] == '%' && end[1] == '\0')))
		return -EINVAL;
	*ret = v;
	return 0;
}

int
parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r = parse_whole(s, &v, &end);

	if (r < 0)
		return r;
	if (*end != '\0')
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

bool
word_in_list(const char *list, const char *word)
{
	size_t wl = strlen(word);

	if (wl == 0)
		return false;
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += wl) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\n';
		bool end = p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\n';

		if (start && end)
			return true;
	}
	return false;
}

void
format_size(uint64_t bytes, char *buf, size_t bufsz)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned i = 0;
	uint64_t div = 1;

	while (i + 1 < sizeof(names) / sizeof(names[0]) && bytes / div >= 1024) {
		div <<= 10;
		i++;
	}
	if (i == 0 || bytes % div == 0)
		(void) snprintf(buf, bufsz, "%llu %s", (unsigned long long) (bytes / div),
				names[i]);
	else
		(void) snprintf(buf, bufsz, "%.1f %s", (double) bytes / (double) div, names[i]);
}

void
format_duration_ms(uint64_t ms, char *buf, size_t bufsz)
{
	if (ms < 1000)
		(void) snprintf(buf, bufsz, "%llums", (unsigned long long) ms);
	else if (ms % 1000 == 0)
		(void) snprintf(buf, bufsz, "%llus", (unsigned long long) (ms / 1000));
	else
		(void) snprintf(buf, bufsz, "%.3gs", (double) ms / 1000.0);
}
