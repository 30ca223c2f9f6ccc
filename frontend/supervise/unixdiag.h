/* SPDX-License-Identifier: MIT */
/* Which UNIX socket a connect() would reach, asked of the kernel without connecting: the
 * sock_diag dump of AF_UNIX sockets (NETLINK_SOCK_DIAG, unix_diag, CONFIG_UNIX_DIAG) names,
 * for every socket of the network namespace, its own inode number (the "socket:[N]" of
 * /proc/PID/fd), its type and state, the abstract name it is bound to (UNIX_DIAG_NAME) and
 * the inode of the socket file it is bound to (UNIX_DIAG_VFS: the low 32 bits of the inode
 * number and the file system's device in the kernel's encoding).  unixgate-lookup.c decides a
 * connect() by the socket found here.  The parser is separate from the I/O so that it can
 * be unit-tested and fuzzed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a connect() names: a socket file (its inode) or an abstract name, and the type of
 * the connecting socket. */
struct udiag_key {
	int type; /* SOCK_STREAM, SOCK_SEQPACKET, ... */
	bool abstract;
	uint32_t vfs_ino; /* pathname: (uint32_t) st_ino of the socket file */
	uint32_t vfs_dev; /* ... and udiag_dev(st_dev) */
	size_t name_len;  /* abstract: the name's bytes, its leading NUL included */
	unsigned char name[108];
};

/* The sockets bound to the key, connected ones left out (a listener's accepted sockets
 * carry its name and file; a connected socket can never listen).  A pathname key matches
 * sockets of any type (connect() finds the socket by the file, then checks the type); an
 * abstract one those of its type (the kernel looks names up per type).  More than one
 * match: the key is ambiguous (only 32 bits of the inode number are reported), and the
 * caller refuses. */
struct udiag_match {
	unsigned n;
	uint32_t ino; /* the socket's own inode number (the last match's) */
	int type;
	int state; /* TCP_LISTEN (10) for a listening one */
};

/* The kernel's encoding of a device number (what UNIX_DIAG_VFS reports) for st_dev. */
uint32_t udiag_dev(dev_t st_dev);

/* One line of /proc/PID/mountinfo (len bytes, no newline needed): when it is the mount
 * mnt_id, its device (the file system's own, which UNIX_DIAG_VFS reports even where
 * stat() gives another, as on btrfs subvolumes) in the kernel's encoding into *ret_dev
 * and 1; else 0. */
int udiag_mountinfo_line(const char *line, size_t len, uint64_t mnt_id, uint32_t *ret_dev);

/* The kernel's device number of the file system the file fd is on, from its mount
 * (statx's mount id, /proc/self/mountinfo).  0 or -errno. */
int udiag_fd_fsdev(int fd, uint32_t *ret_dev);

/* The request for a dump of every AF_UNIX socket with what key needs, sequence number seq,
 * into buf (at least UDIAG_REQ_SIZE bytes); returns its length. */
#define UDIAG_REQ_SIZE 64
size_t udiag_request(const struct udiag_key *key, uint32_t seq, void *buf);

/* One datagram of the dump's answer (len bytes at buf, which netlink aligns), its matches
 * added to *m.  0: more datagrams follow; 1: the dump is complete; -EAGAIN: the kernel
 * says the dump was interrupted (start again); -errno from the kernel (ENOENT: no unix_diag
 * in this kernel); -EBADMSG: malformed. */
int udiag_parse(const void *buf, size_t len, uint32_t seq, const struct udiag_key *key,
		struct udiag_match *m);

/* The sockets bound to key, by a fresh dump (bounded: the kernel answers within its own
 * call, and a receive timeout guards against one that does not).  0 or -errno. */
int udiag_lookup(const struct udiag_key *key, struct udiag_match *ret);

/* Whether this kernel answers unix_diag dumps: 0, or -errno (-ENOENT: CONFIG_UNIX_DIAG is
 * off, or its module cannot be loaded). */
int udiag_probe(void);
