/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the parser of sock_diag's AF_UNIX dump (frontend/supervise/unixdiag.c), which
 * reads what the kernel sends but must hold against any bytes.  The first bytes make the
 * key (abstract or not, type, inode and device, a name), the rest is one datagram of the
 * answer.  Checks the invariants, not just the absence of crashes: the result is one of
 * the documented ones, and no more sockets match than the datagram has messages. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The frontend's objects are not in the fuzz build: compile the file in. */
#include "../../frontend/supervise/unixdiag.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(NLMSG_ALIGNTO) unsigned char buf[UDIAG_BUF];
	struct udiag_key key = { 0 };
	struct udiag_match m = { .state = -1 };
	size_t name_len;
	int r;

	if (size < 11)
		return 0;
	key.abstract = (data[0] & 1) != 0;
	key.type = data[1] & 7;
	memcpy(&key.vfs_ino, data + 2, 4);
	memcpy(&key.vfs_dev, data + 6, 4);
	name_len = data[10] % (sizeof(key.name) + 1);
	data += 11;
	size -= 11;
	if (name_len > size)
		return 0;
	memcpy(key.name, data, name_len);
	key.name_len = name_len;
	data += name_len;
	size -= name_len;
	if (size > sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	r = udiag_parse(buf, size, 7, &key, &m);
	if (!(r == 0 || r == 1 || (r < 0 && r >= -4095)))
		abort();
	if (m.n > size / NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
		abort();        /* a match per message at most */
	if (m.n > 0 && r != -EBADMSG && key.abstract && m.type != key.type)
		abort();        /* an abstract name matches its own type only */
	return 0;
}
