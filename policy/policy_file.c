/* SPDX-License-Identifier: MIT */
/* policy_read_trusted().  Placeholder; the real implementation follows. */
#include <errno.h>
#include <stdio.h>

#include "policy.h"

int
policy_read_trusted(const char *path, char **ret_text, size_t *ret_len, char *errbuf,
		    size_t errlen)
{
	if (errbuf && errlen)
		(void) snprintf(errbuf, errlen, "not implemented yet");
	return -ENOSYS;
}
