/* SPDX-License-Identifier: MIT */
/* The sandbox's connect() calls, made by sandcap (docs/isolation.md "The user's services",
 * SECURITY.md).  With --net host and no --unix host the seccomp filter notifies every
 * connect() to the supervisor, which reads the address once, makes the connection on a
 * socket of its own or on the command's socket, and answers; it never lets the call
 * continue, so nothing is decided on memory or descriptors the sandbox may change after
 * the decision.
 *
 * - AF_UNIX stream and seqpacket: decided before anything connects.  A path is opened
 *   O_PATH as the calling thread would find it (a relative one from its working directory,
 *   its /proc/self as its own); sock_diag (unixdiag.h) names the socket bound to that file
 *   or to the abstract name; a process of the sandbox (a descendant of the supervisor, the
 *   sandbox's subreaper, other than the helper) must hold that listening socket in its
 *   descriptor table, and sandcap takes it from there (pidfd_getfd), so it stays bound to
 *   that name and file.  Only then does a new socket of the same type connect, through
 *   /proc/thread-self/fd/N of the opened file (the very file checked) or to the abstract
 *   name, and replace the command's descriptor (SECCOMP_IOCTL_NOTIF_ADDFD, SETFD: the same
 *   number, its close-on-exec and O_NONBLOCK); connect() returns 0.  Else EACCES, and no
 *   listener outside saw anything.
 * - AF_UNIX datagram: connected as asked (datagrams sent to an address are not checked
 *   either: no service starts processes on a datagram), except to an abstract name where
 *   Landlock scopes abstract sockets (scope_abstract): EPERM, as the scope answers the
 *   sandbox's sendto() to one made outside.  Ours is not in the sandbox's domain, and a
 *   datagram socket has no peer credentials to tell its own names from others: every
 *   abstract name is refused to connect(), sendto() still reaches the sandbox's own.
 * - Every other family: the command's own socket connects to the address it gave (the
 *   same file, through pidfd_getfd()); a blocking connect waits here, without blocking
 *   supervision, for its result.  Our connect() on that file is bounded by an interval
 *   timer (SIGALRM): the sandbox can clear O_NONBLOCK on it at any time.
 *
 * Every step is bounded: no blocking call on a descriptor the sandbox controls, at most
 * UGATE_PENDING_MAX connects waiting; the work for one notification is a dump of the
 * host's UNIX sockets and a look at the descriptors of at most UGATE_PROCS_MAX processes of
 * the sandbox, UGATE_FDS_MAX descriptors in all (beyond: refused). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define UGATE_PENDING_MAX 128
#define UGATE_PROCS_MAX   16384
#define UGATE_FDS_MAX     262144UL

struct ugate_pending {
	int fd;      /* our copy of the command's socket; -1: free */
	uint64_t id; /* the notification to answer */
};

struct ugate {
	int sock;            /* where the listener arrives (stage socket); -1 after */
	int notify_fd;       /* the filter's listener; -1 until it arrives */
	int cwd;             /* our working directory, to return after a relative path */
	pid_t self;          /* the supervisor */
	pid_t exclude;       /* our child that is not the sandbox's (the helper) */
	bool scope_abstract; /* Landlock scopes the sandbox's abstract sockets */
	struct ugate_pending pend[UGATE_PENDING_MAX];
	unsigned n_pend;
	/* For the report. */
	unsigned long n_refused, n_allowed;
	unsigned long n_undumpable; /* connects refused: the caller is non-dumpable */
	char first_refused[112];    /* the first refused address, printable */
};

/* Before the child starts: sock is our end of the socket it sends the listener on (taken
 * over: closed by ugate_close(), also on failure).  0, or -errno: nothing could answer
 * (also when the kernel has no unix_diag: said here, the run must be refused). */
int ugate_start(struct ugate *g, int sock, pid_t self, pid_t exclude);
/* Once the epoll set exists: watch sock there.  0 or -errno. */
int ugate_watch(struct ugate *g, int epfd);
/* Whether fd is one the gate watches (then ugate_event() takes the event). */
bool ugate_owns(const struct ugate *g, int fd);
void ugate_event(struct ugate *g, int epfd, int fd, uint32_t events);
/* Close everything; a connect still waiting fails with the sandbox. */
void ugate_close(struct ugate *g);

/* ---- Between unixgate.c and unixgate-lookup.c ---- */

/* Whether notification id still waits for its answer (its thread has not moved on). */
bool ugate_id_valid(const struct ugate *g, uint64_t id);
/* The listening socket a UNIX stream or seqpacket connect() of thread tid to sa would
 * reach, decided before anything connects: ours (a descriptor of it), or -errno: -EACCES
 * when it is not the sandbox's.  For a path, *ret_file is the socket file (O_PATH) to
 * connect through. */
struct sockaddr_un;
int ugate_listener_of(struct ugate *g, uint64_t id, pid_t tid, int type,
		      const struct sockaddr_un *sa, socklen_t len, int *ret_file);

/* ---- Internals exposed for unit tests ---- */

/* The printable form of a sockaddr_un of len bytes ("@name" for an abstract one) in buf. */
void ugate_addr_str(const void *sa, unsigned len, char *buf, size_t size);

/* A path under /proc/self/ or /proc/thread-self/ rewritten to /proc/TID/ in *out (the
 * caller's entries, not sandcap's): 1, 0 when it is not one, -ENAMETOOLONG. */
struct sockaddr_un;
int ugate_proc_self(const struct sockaddr_un *sa, socklen_t len, pid_t tid, struct sockaddr_un *out,
		    socklen_t *ret_len);
