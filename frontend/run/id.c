/* SPDX-License-Identifier: MIT */
/* The sandbox's id: "<uid>-<12 hex>", random, or the one a session chose for its call. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "run/run-int.h"
#include "run/run.h"
#include "supervise/control.h"

/* The id a session gave the next call (run_use_id()), or NULL for a random one. */
static const char *preset_id;

void
run_use_id(const char *id)
{
	preset_id = id;
}

bool
run_id_preset(void)
{
	return preset_id != NULL;
}

static const char *session_level;

void
run_use_session(const char *level)
{
	session_level = level;
}

const char *
run_session_level(void)
{
	return session_level;
}

void
run_make_id(char (*buf)[64])
{
	uint8_t rnd[6] = {};

	if (preset_id != NULL) {
		(void) snprintf(*buf, sizeof(*buf), "%s", preset_id);
		return;
	}
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd)) {
		uint64_t t = (uint64_t) getpid() ^ ((uint64_t) time(NULL) << 16);

		memcpy(rnd, &t, sizeof(rnd));
	}
	(void) snprintf(*buf, sizeof(*buf), "%u-%02x%02x%02x%02x%02x%02x", (unsigned) control_uid(),
			rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
}
