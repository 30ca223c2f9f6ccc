/* SPDX-License-Identifier: MIT */
/* Milliseconds on the two clocks sandcap measures with: one definition for every program. */
#pragma once

#include <stdint.h>
#include <time.h>

static inline uint64_t
clock_ms(clockid_t clock)
{
	struct timespec ts;

	(void) clock_gettime(clock, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Elapsed time and in-session deadlines: never jumps, stops in suspend. */
static inline uint64_t
mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* Deadline records shared between processes: counts suspend, so a deadline is never
 * stretched by one. */
static inline uint64_t
boottime_ms(void)
{
	return clock_ms(CLOCK_BOOTTIME);
}
