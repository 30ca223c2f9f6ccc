/* SPDX-License-Identifier: MIT */
/* libFuzzer target: lib/stage-wire.c's stage_unpack(), the stage the process the helper
 * makes in cgroup mode reads from sandcap (lib/stage.h).  A blob it accepts must pack back
 * to the same bytes. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stage_spec s;
	char **vec;
	void *copy, *again = NULL;
	size_t len = 0, need;
	int r;

	if (size > 1 << 16)
		return 0;
	copy = malloc(size > 0 ? size : 1);     /* aligned, as the mmap'ed blob is */
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	need = stage_vec_need(copy, size);
	vec = calloc(need > 0 ? need : 1, sizeof(char *));
	if (vec == NULL) {
		free(copy);
		return 0;
	}
	/* One slot short is refused before anything is written (ASan sees an overrun). */
	if (need > 1) {
		char **shorter = calloc(need - 1, sizeof(char *));

		if (shorter != NULL && stage_unpack(copy, size, &s, shorter, need - 1) != -ENOSPC)
			abort();
		free(shorter);
	}
	r = stage_unpack(copy, size, &s, vec, need);
	if (r == 0) {
		if (stage_pack(&s, &again, &len) != 0 || len != size ||
		    memcmp(again, copy, size) != 0)
			abort();
		free(again);
	} else if (r != -EBADMSG) {
		abort();                /* -ENOSPC: stage_vec_need() gave too few slots */
	}
	free(vec);
	free(copy);
	return 0;
}
