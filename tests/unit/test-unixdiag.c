/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/supervise/unixdiag.c's parser of sock_diag's AF_UNIX dump: a socket bound
 * to the key is counted whatever else the dump holds, malformed or hostile input is an
 * error and never read past, and the kernel's own answers (done, error, interrupted) are
 * told apart.  One live test asks the running kernel, where it answers. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervise/unixdiag.h"

#define SEQ 7

static _Alignas(NLMSG_ALIGNTO) unsigned char buf[4096];
static size_t used;

static void
put(const void *p, size_t n)
{
	memcpy(buf + used, p, n);
	used += n;
}

static void
pad(void)
{
	while (used % 4 != 0)
		buf[used++] = 0;
}

/* One SOCK_DIAG_BY_FAMILY message: a socket with an optional name and vfs attribute. */
static void
add_sock(uint8_t type, uint8_t state, uint32_t ino, const void *name, size_t name_len,
	 const struct unix_diag_vfs *vfs)
{
	size_t start = used;
	struct nlmsghdr h = { .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_MULTI,
			      .nlmsg_seq = SEQ };
	struct unix_diag_msg d = { .udiag_family = AF_UNIX, .udiag_type = type,
				   .udiag_state = state, .udiag_ino = ino };

	put(&h, sizeof(h));
	put(&d, sizeof(d));
	if (name != NULL) {
		struct nlattr a = { .nla_len = (uint16_t) (NLA_HDRLEN + name_len),
				    .nla_type = UNIX_DIAG_NAME };

		put(&a, sizeof(a));
		put(name, name_len);
		pad();
	}
	if (vfs != NULL) {
		struct nlattr a = { .nla_len = NLA_HDRLEN + sizeof(*vfs), .nla_type = UNIX_DIAG_VFS };

		put(&a, sizeof(a));
		put(vfs, sizeof(*vfs));
	}
	h.nlmsg_len = (uint32_t) (used - start);
	memcpy(buf + start, &h, sizeof(h));
}

static void
add_end(uint16_t type, int err, uint16_t flags)
{
	struct nlmsghdr h = { .nlmsg_len = NLMSG_LENGTH(sizeof(int)), .nlmsg_type = type,
			      .nlmsg_flags = flags, .nlmsg_seq = SEQ };

	put(&h, sizeof(h));
	put(&err, sizeof(err));
}

static void
test_vfs(void **state)
{
	struct unix_diag_vfs mine = { .udiag_vfs_ino = 1234, .udiag_vfs_dev = (8u << 20) | 1 };
	struct unix_diag_vfs other_dev = { .udiag_vfs_ino = 1234, .udiag_vfs_dev = 42 };
	struct udiag_key key = { .type = SOCK_STREAM, .vfs_ino = 1234, .vfs_dev = (8u << 20) | 1 };
	struct udiag_match m = { .state = -1 };

	(void) state;
	used = 0;
	add_sock(SOCK_STREAM, 10, 500, NULL, 0, &other_dev);
	add_sock(SOCK_DGRAM, 7, 501, "\0x", 2, NULL);
	add_sock(SOCK_SEQPACKET, 10, 502, "/tmp/s", 6, &mine);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 0);
	/* Matched by the file, whatever its type: the caller tells EPROTOTYPE. */
	assert_int_equal(m.n, 1);
	assert_int_equal(m.ino, 502);
	assert_int_equal(m.type, SOCK_SEQPACKET);
	assert_int_equal(m.state, 10);
	used = 0;
	add_end(NLMSG_DONE, 0, NLM_F_MULTI);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 1);
	/* Connected sockets carrying the key (the listener's accepted ones): left out. */
	used = 0;
	add_sock(SOCK_SEQPACKET, 1, 510, NULL, 0, &mine);
	add_sock(SOCK_STREAM, 1, 511, NULL, 0, &mine);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.ino, 502);
	/* A second socket with the same 32-bit key, bound but not listening: ambiguous. */
	used = 0;
	add_sock(SOCK_STREAM, 7, 503, NULL, 0, &mine);
	add_end(NLMSG_DONE, 0, NLM_F_MULTI);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 1);
	assert_int_equal(m.n, 2);
}

static void
test_abstract(void **state)
{
	struct udiag_key key = { .type = SOCK_STREAM, .abstract = true, .name_len = 5,
				 .name = "\0tmux" };
	struct udiag_match m = { .state = -1 };

	(void) state;
	used = 0;
	/* Same bytes, other type; a prefix; a longer name; a path with the same text. */
	add_sock(SOCK_DGRAM, 7, 600, "\0tmux", 5, NULL);
	add_sock(SOCK_STREAM, 10, 601, "\0tmu", 4, NULL);
	add_sock(SOCK_STREAM, 10, 602, "\0tmux\0", 6, NULL);
	add_sock(SOCK_STREAM, 10, 603, "xtmux", 5, NULL);
	add_sock(SOCK_STREAM, 10, 604, NULL, 0, NULL);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 0);
	assert_int_equal(m.n, 0);
	used = 0;
	add_sock(SOCK_STREAM, 10, 605, "\0tmux", 5, NULL);
	add_sock(SOCK_STREAM, 1, 606, "\0tmux", 5, NULL);      /* accepted: left out */
	add_end(NLMSG_DONE, 0, NLM_F_MULTI);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 1);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.ino, 605);
}

static void
test_kernel_answers(void **state)
{
	struct udiag_key key = { .type = SOCK_STREAM, .abstract = true, .name_len = 1 };
	struct udiag_match m = { .state = -1 };

	(void) state;
	used = 0;
	add_end(NLMSG_ERROR, -ENOENT, 0);       /* no unix_diag */
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -ENOENT);
	used = 0;
	add_end(NLMSG_DONE, -ENOBUFS, NLM_F_MULTI);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -ENOBUFS);
	used = 0;
	add_end(NLMSG_DONE, 0, NLM_F_MULTI | NLM_F_DUMP_INTR);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -EAGAIN);
	used = 0;
	add_end(NLMSG_ERROR, 0, 0);             /* an acknowledgement is not an answer */
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -EBADMSG);
	used = 0;
	add_end(NLMSG_DONE, 12345, NLM_F_MULTI);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -EBADMSG);
	/* Another request's answer. */
	used = 0;
	add_end(NLMSG_DONE, 0, NLM_F_MULTI);
	assert_int_equal(udiag_parse(buf, used, SEQ + 1, &key, &m), -EBADMSG);
}

static void
test_malformed(void **state)
{
	struct unix_diag_vfs vfs = { .udiag_vfs_ino = 1, .udiag_vfs_dev = 2 };
	struct udiag_key key = { .type = SOCK_STREAM, .vfs_ino = 1, .vfs_dev = 2 };
	struct udiag_match m = { .state = -1 };
	struct nlmsghdr h;
	struct nlattr a;

	(void) state;
	used = 0;
	add_sock(SOCK_STREAM, 10, 700, NULL, 0, &vfs);
	/* Cut anywhere: an error or no match, never a read past the end. */
	for (size_t cut = 1; cut < used; cut++) {
		m.n = 0;
		int r = udiag_parse(buf, cut, SEQ, &key, &m);

		assert_true(r == -EBADMSG || (r == 0 && m.n == 0));
	}
	/* A message longer than the buffer. */
	memcpy(&h, buf, sizeof(h));
	h.nlmsg_len = (uint32_t) used + 4;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -EBADMSG);
	/* An attribute longer than its message: not a match. */
	used = 0;
	add_sock(SOCK_STREAM, 10, 701, NULL, 0, &vfs);
	memcpy(&a, buf + NLMSG_LENGTH(sizeof(struct unix_diag_msg)), sizeof(a));
	a.nla_len = 200;
	memcpy(buf + NLMSG_LENGTH(sizeof(struct unix_diag_msg)), &a, sizeof(a));
	m.n = 0;
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), 0);
	assert_int_equal(m.n, 0);
	/* Another family, another message type. */
	used = 0;
	add_sock(SOCK_STREAM, 10, 702, NULL, 0, &vfs);
	buf[NLMSG_HDRLEN] = AF_INET;
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -EBADMSG);
	used = 0;
	add_end(NLMSG_MIN_TYPE + 1, 0, 0);
	assert_int_equal(udiag_parse(buf, used, SEQ, &key, &m), -EBADMSG);
}

static void
test_dev(void **state)
{
	(void) state;
	assert_int_equal(udiag_dev(makedev(8, 1)), (8u << 20) | 1);
	assert_int_equal(udiag_dev(makedev(0, 0x12345)), 0x12345);
	assert_int_equal(udiag_dev(makedev(259, 3)), (259u << 20) | 3);
}

static void
test_mountinfo(void **state)
{
	static const char l[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw\n";
	static const char big[] = "7 1 4095:1048575 / / rw - tmpfs tmpfs rw";
	uint32_t dev = 0;

	(void) state;
	assert_int_equal(udiag_mountinfo_line(l, strlen(l), 36, &dev), 1);
	assert_int_equal(dev, (98u << 20) | 0);
	assert_int_equal(udiag_mountinfo_line(l, strlen(l), 35, &dev), 0);     /* the parent */
	assert_int_equal(udiag_mountinfo_line(l, strlen(l), 3, &dev), 0);      /* a prefix */
	assert_int_equal(udiag_mountinfo_line(big, strlen(big), 7, &dev), 1);
	assert_int_equal(dev, 0xffffffffu);
	/* Malformed, cut short, out of range: no match. */
	assert_int_equal(udiag_mountinfo_line("36 35 98 /", 10, 36, &dev), 0);
	assert_int_equal(udiag_mountinfo_line("36 35 98:", 9, 36, &dev), 0);
	assert_int_equal(udiag_mountinfo_line("36 35 :1 /", 10, 36, &dev), 0);
	assert_int_equal(udiag_mountinfo_line("36 35 4096:0 /", 14, 36, &dev), 0);
	assert_int_equal(udiag_mountinfo_line("36 35 1:1048576 /", 17, 36, &dev), 0);
	assert_int_equal(udiag_mountinfo_line("99999999999999999999999 1 1:1 /", 31, 36, &dev), 0);
	assert_int_equal(udiag_mountinfo_line("", 0, 0, &dev), 0);
}

/* The running kernel: a listener of ours is found by its file and by an abstract name. */
static void
test_live(void **state)
{
	char dir[] = "/tmp/test-unixdiag-XXXXXX";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct udiag_match m;
	struct udiag_key key = { .type = SOCK_STREAM };
	struct stat st;
	int s, r;

	(void) state;
	r = udiag_probe();
	if (r < 0)
		skip();         /* no unix_diag here: the gate refuses the run (unixgate.c) */
	assert_non_null(mkdtemp(dir));
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", dir);
	assert_int_equal(bind(s, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(s, 1), 0);
	assert_int_equal(stat(sa.sun_path, &st), 0);
	key.vfs_ino = (uint32_t) st.st_ino;
	key.vfs_dev = udiag_dev(st.st_dev);
	assert_int_equal(udiag_lookup(&key, &m), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.state, 10);
	assert_int_equal(fstat(s, &st), 0);
	assert_int_equal(m.ino, (uint32_t) st.st_ino);
	/* The device from its mount names it as well (the fallback for btrfs). */
	{
		int pf = open(sa.sun_path, O_PATH | O_CLOEXEC);

		assert_true(pf >= 0);
		assert_int_equal(udiag_fd_fsdev(pf, &key.vfs_dev), 0);
		(void) close(pf);
		assert_int_equal(stat(sa.sun_path, &st), 0);
		assert_int_equal(udiag_lookup(&key, &m), 0);
		assert_int_equal(m.n, 1);
	}
	(void) unlink(sa.sun_path);
	(void) rmdir(dir);
	(void) close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vfs),
		cmocka_unit_test(test_abstract),
		cmocka_unit_test(test_kernel_answers),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_dev),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
