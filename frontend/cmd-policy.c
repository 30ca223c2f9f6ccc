/* SPDX-License-Identifier: MIT */
/* sbx policy check|show.  Placeholder; the real implementation follows. */
#include <stdio.h>

#include "commands.h"
#include "policy.h"

int
cmd_policy(int argc, char **argv)
{
	fprintf(stderr, "sbx: policy: not implemented yet\n");
	return SBX_EXIT_FAILURE;
}
