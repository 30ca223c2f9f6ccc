/* SPDX-License-Identifier: MIT */
/* --output-limit SIZE: the command's stdout and stderr pass through sandcap, counted
 * together; past SIZE bytes the sandbox is ended (verdict output).
 *
 * Each stream is a pipe from the sandbox to sandcap (one pipe for both when sandcap's
 * stdout and stderr are one open file description, 2>&1: their order is kept), relayed to
 * sandcap's own stdout or
 * stderr with splice(2) (no copy through user space) where the kernel allows it, else with
 * read/write through a buffer (e.g. a terminal, which has no splice_write).  Nothing blocks
 * the supervisor: the pipes are non-blocking, and an output that is a pipe, FIFO or
 * terminal is written through its own non-blocking open file description (reopened from
 * /proc/self/fd, so the caller's O_NONBLOCK state is untouched); a regular file is written
 * as it is.  At most `limit` bytes are ever passed on; the cap is passed when the command
 * has written more (a byte waits in a pipe while the count is at the limit).
 * Without --output-limit nothing of this exists: the command gets sandcap's fds.
 *
 * The counting and the cap decision are pure (output_account(), unit-tested); the I/O is
 * in output_relay_*(). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define OUTPUT_BUF 65536

/* How many bytes may be passed now: min(want, limit - passed). */
size_t output_allowance(uint64_t limit, uint64_t passed, size_t want);

/* Do fd1 and fd2 (of one regular file) share one open file description?  Asked through
 * O_NONBLOCK, a status flag of the description that changes nothing for a regular file,
 * flipped on fd1 and put back: the test where kcmp(2) is missing (no offset moves, so
 * another process writing to the file meanwhile is not disturbed).  False for two opens
 * of the file, or when it cannot be told. */
bool output_share_one_description(int fd1, int fd2);

/* Is the cap passed?  available: bytes waiting in the pipe (FIONREAD). */
bool output_cap_passed(uint64_t limit, uint64_t passed, size_t available);

struct output_stream {
	int in;           /* read end of the command's pipe (non-blocking); -1: closed */
	int out;          /* where it goes (possibly a non-blocking reopen) */
	bool own_out;     /* out was reopened: close it */
	bool no_splice;   /* splice() refused: read/write */
	bool waiting_out; /* out is full: watching it for EPOLLOUT, not in */
	char *buf;        /* read/write mode: bytes read, not yet written */
	size_t buf_off, buf_len;
	uint64_t drain_left; /* draining: bytes of the command's still in the pipe */
};

struct output_relay {
	uint64_t limit;
	uint64_t passed; /* bytes passed on, both streams together */
	bool cap_passed;
	uint64_t dropped; /* within the cap, written, never taken by the output (drain) */
	bool draining;    /* output_relay_drain(): the sandbox has ended */
	bool spliced;     /* splice() moved at least one byte */
	bool shared;      /* fds 1 and 2 are one description: one pipe (s[0]) for both */
	int child_fd[2];  /* write ends for the command's fd 1 and 2; -1 once closed */
	struct output_stream s[2];
	int epfd;
};

/* Make the pipes and prepare the outputs (sandcap's fds 1 and 2).  -errno with a reason. */
int output_relay_open(struct output_relay *r, uint64_t limit, char *err, size_t errlen);
/* After fork, in sandcap: close the write ends; in the child: dup2 them to 1 and 2. */
void output_relay_parent(struct output_relay *r);
int output_relay_child(const struct output_relay *r);
/* Register the pipes with epfd (EPOLLIN, data.fd = the fd). */
int output_relay_watch(struct output_relay *r, int epfd);
/* Is fd one of the relay's? */
bool output_relay_owns(const struct output_relay *r, int fd);
/* Handle readiness of fd (epoll events).  Returns 1 when the cap was passed just now (end
 * the sandbox), else 0. */
int output_relay_event(struct output_relay *r, int fd, uint32_t events);
/* After the sandbox ended and its cgroup and workspace are gone: pass on what the pipes
 * hold at this moment (within the cap; nothing written later, by a process that escaped
 * the sandbox with a write end), for as long as the outputs take it, for at most wait_ms
 * (negative: no bound, as a plain pipe would wait) or until one of
 * stop_fd is readable (a signalfd of the signals that ask sandcap to end, the keeper's
 * pidfd; -1: none); what is left then is counted in r->dropped.  Then close everything.
 * Returns 0 (all passed on, or the outputs went away), 1 (the deadline came), 2 (a
 * stop_fd). */
int output_relay_drain(struct output_relay *r, int64_t wait_ms, const int stop_fd[2]);
void output_relay_close(struct output_relay *r);
