/* SPDX-License-Identifier: MIT */
/* --output-limit: the relay of the command's stdout and stderr (output.h). */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "supervise/output.h"
#include "time-util.h"

/* Rounds of I/O per event, so a fast writer cannot keep the supervisor from its timers. */
#define ROUNDS_PER_EVENT 16

size_t
output_allowance(uint64_t limit, uint64_t passed, size_t want)
{
	uint64_t left = passed >= limit ? 0 : limit - passed;

	return left < want ? (size_t) left : want;
}

bool
output_cap_passed(uint64_t limit, uint64_t passed, size_t available)
{
	return passed >= limit && available > 0;
}

/* sandcap's own fd as the stream's output: a pipe, FIFO, terminal or other character
 * device gets a non-blocking open file description of its own (O_NOCTTY: never become
 * our controlling terminal); a regular file is used as it is (it does not block), and so
 * is what cannot be reopened (a socket: it may block, as documented). */
static int
open_out(int fd, bool *ret_own)
{
	struct stat st;
	char path[64];
	int nfd;

	*ret_own = false;
	if (fstat(fd, &st) < 0)
		return -1; /* closed: the output is dropped as by a closed reader */
	if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
		return fd;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (nfd < 0)
		return fd;
	*ret_own = true;
	return nfd;
}

/* Are sandcap's fds 1 and 2 one open file description (2>&1, or a terminal both were
 * opened as)?  Then one pipe carries both streams and keeps their order, as writing to
 * the one description would: the command writes to fd 1 and fd 2 of the same pipe.
 * kcmp(2) tells for sure; without it (no CONFIG_KCMP, as in user-mode Linux) the same
 * pipe, socket or character device counts, which have no file offset to tell two
 * descriptions apart, and a regular file is asked through its status flags, which one
 * description shares (output_share_one_description()).  A regular file opened twice (>f 2>f) keeps its two
 * offsets, hence two pipes. */
bool
output_share_one_description(int fd1, int fd2)
{
	int f1 = fcntl(fd1, F_GETFL), f2;

	if (f1 < 0 || fcntl(fd1, F_SETFL, f1 ^ O_NONBLOCK) < 0)
		return false;
	f2 = fcntl(fd2, F_GETFL);
	(void) fcntl(fd1, F_SETFL, f1);
	return f2 >= 0 && ((f2 ^ f1) & O_NONBLOCK) != 0;
}

static bool
same_output(void)
{
	struct stat a, b;
	long r = syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, 1, 2);

	if (r >= 0)
		return r == 0;
	if (fstat(1, &a) < 0 || fstat(2, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return false;
	if (S_ISREG(a.st_mode))
		return output_share_one_description(1, 2);
	return S_ISFIFO(a.st_mode) || S_ISSOCK(a.st_mode) || S_ISCHR(a.st_mode);
}

int
output_relay_open(struct output_relay *r, uint64_t limit, char *err, size_t errlen)
{
	*r = (struct output_relay){ .limit = limit,
				    .child_fd = { -1, -1 },
				    .epfd = -1,
				    .s = { { .in = -1, .out = -1 }, { .in = -1, .out = -1 } } };
	/* A reader that goes away must end the stream with EPIPE, not sandcap with SIGPIPE
	 * (the command starts with default dispositions again: supervise.c resets them). */
	(void) signal(SIGPIPE, SIG_IGN);
	r->shared = same_output();
	for (int i = 0; i < 2; i++) {
		int p[2];

		if (i == 1 && r->shared) {
			/* The command's fd 2 is its fd 1's pipe; stream 1 stays closed. */
			r->child_fd[1] = fcntl(r->child_fd[0], F_DUPFD_CLOEXEC, 3);
			if (r->child_fd[1] < 0) {
				snprintf(err, errlen, "--output-limit: fcntl: %s", strerror(errno));
				output_relay_close(r);
				return -errno;
			}
			break;
		}

		if (pipe2(p, O_CLOEXEC) < 0) {
			snprintf(err, errlen, "--output-limit: pipe: %s", strerror(errno));
			output_relay_close(r);
			return -errno;
		}
		r->s[i].in = p[0];
		r->child_fd[i] = p[1];
		/* Only our end is non-blocking: the command's writes block as on any pipe. */
		if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
			snprintf(err, errlen, "--output-limit: fcntl: %s", strerror(errno));
			output_relay_close(r);
			return -errno;
		}
		r->s[i].out = open_out(i + 1, &r->s[i].own_out);
	}
	return 0;
}

void
output_relay_parent(struct output_relay *r)
{
	for (int i = 0; i < 2; i++)
		r->child_fd[i] = safe_close(r->child_fd[i]);
}

int
output_relay_child(const struct output_relay *r)
{
	for (int i = 0; i < 2; i++)
		if (dup2(r->child_fd[i], i + 1) < 0)
			return -errno;
	return 0;
}

static int
watch(struct output_relay *r, int op, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (r->epfd < 0)
		return 0;
	return epoll_ctl(r->epfd, op, fd, &ev) < 0 ? -errno : 0;
}

int
output_relay_watch(struct output_relay *r, int epfd)
{
	r->epfd = epfd;
	for (int i = 0; i < 2; i++) {
		int e = r->s[i].in < 0 ? 0 : watch(r, EPOLL_CTL_ADD, r->s[i].in, EPOLLIN);

		if (e < 0)
			return e;
	}
	return 0;
}

bool
output_relay_owns(const struct output_relay *r, int fd)
{
	for (int i = 0; i < 2; i++)
		if ((r->s[i].in >= 0 && fd == r->s[i].in) ||
		    (r->s[i].waiting_out && fd == r->s[i].out))
			return true;
	return false;
}

/* The stream is finished (EOF, or its output is gone): stop watching, close our end (so a
 * command still writing gets EPIPE, as it would without the relay). */
static void
stream_end(struct output_relay *r, struct output_stream *s)
{
	if (s->waiting_out)
		(void) watch(r, EPOLL_CTL_DEL, s->out, 0);
	s->waiting_out = false;
	if (s->in >= 0) {
		(void) watch(r, EPOLL_CTL_DEL, s->in, 0);
		s->in = safe_close(s->in);
	}
	r->passed -= s->buf_len - s->buf_off; /* read but never written: not passed on */
	s->buf_off = s->buf_len = 0;
}

/* The output is full: wait for it to take more, not for more input. */
static void
wait_out(struct output_relay *r, struct output_stream *s)
{
	if (s->waiting_out)
		return;
	if (watch(r, EPOLL_CTL_ADD, s->out, EPOLLOUT) < 0) {
		stream_end(r, s); /* cannot wait for it: drop the stream, never spin */
		return;
	}
	(void) watch(r, EPOLL_CTL_DEL, s->in, 0);
	s->waiting_out = true;
}

static void
resume_in(struct output_relay *r, struct output_stream *s)
{
	if (!s->waiting_out)
		return;
	(void) watch(r, EPOLL_CTL_DEL, s->out, 0);
	s->waiting_out = false;
	if (s->in >= 0)
		(void) watch(r, EPOLL_CTL_ADD, s->in, EPOLLIN);
}

/* Write the buffered bytes.  1: all written; 0: the output is full; -1: it is gone. */
static int
flush_buf(struct output_stream *s)
{
	while (s->buf_off < s->buf_len) {
		ssize_t n = write(s->out, s->buf + s->buf_off, s->buf_len - s->buf_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		s->buf_off += (size_t) n;
	}
	s->buf_off = s->buf_len = 0;
	return 1;
}

/* Move what the stream has, within the cap.  Returns 1 if the cap was passed just now. */
static int
pump(struct output_relay *r, struct output_stream *s, bool hup)
{
	for (int round = 0; round < ROUNDS_PER_EVENT && s->in >= 0 && !s->waiting_out; round++) {
		int avail = 0, f;
		size_t allow;
		ssize_t n;

		f = flush_buf(s);
		if (f == 0) {
			wait_out(r, s);
			return 0;
		}
		if (f < 0 || s->out < 0) {
			stream_end(r, s);
			return 0;
		}
		if (ioctl(s->in, FIONREAD, &avail) < 0)
			avail = 0;
		/* Draining: only what the pipe held when the sandbox had ended (a process that
		 * escaped it and holds a write end neither adds to it nor keeps us waiting). */
		if (r->draining) {
			if (s->drain_left == 0) {
				stream_end(r, s);
				return 0;
			}
			if ((uint64_t) avail > s->drain_left)
				avail = (int) s->drain_left;
		}
		if (avail == 0) {
			if (hup)
				stream_end(r, s); /* every writer is gone */
			return 0;
		}
		if (output_cap_passed(r->limit, r->passed, (size_t) avail)) {
			r->cap_passed = true;
			stream_end(r, s);
			return 1;
		}
		allow = output_allowance(r->limit, r->passed, (size_t) avail);
		if (!s->no_splice) {
			n = splice(s->in, NULL, s->out, NULL, allow,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n > 0) {
				r->passed += (uint64_t) n;
				r->spliced = true;
				if (r->draining)
					s->drain_left -= (uint64_t) n;
				continue;
			}
			if (n < 0 && errno == EAGAIN) {
				wait_out(r, s); /* the pipe had data: the output is full */
				return 0;
			}
			if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EBADF)) {
				s->no_splice = true; /* e.g. a terminal: read/write */
			} else if (n < 0 && errno == EINTR) {
				continue;
			} else {
				stream_end(r, s); /* EPIPE: the reader is gone */
				return 0;
			}
		}
		if (s->buf == NULL && (s->buf = malloc(OUTPUT_BUF)) == NULL) {
			stream_end(r, s);
			return 0;
		}
		n = read(s->in, s->buf, allow < OUTPUT_BUF ? allow : OUTPUT_BUF);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			stream_end(r, s);
			return 0;
		}
		r->passed += (uint64_t) n; /* taken from the pipe: it will be passed on */
		if (r->draining)
			s->drain_left -= (uint64_t) n;
		s->buf_off = 0;
		s->buf_len = (size_t) n;
	}
	return 0;
}

int
output_relay_event(struct output_relay *r, int fd, uint32_t events)
{
	for (int i = 0; i < 2; i++) {
		struct output_stream *s = &r->s[i];

		if (s->waiting_out && fd == s->out) {
			resume_in(r, s);
			return pump(r, s, false);
		}
		if (s->in >= 0 && fd == s->in)
			return pump(r, s, (events & (EPOLLHUP | EPOLLERR)) != 0);
	}
	return 0;
}

/* The deadline came with bytes still waiting: what the command wrote within the cap and
 * no output took is counted as dropped (output_bytes then counts only what was passed on:
 * a read/write buffer's bytes were counted when read). */
static void
give_up(struct output_relay *r)
{
	for (int i = 0; i < 2; i++) {
		struct output_stream *s = &r->s[i];
		size_t buffered = s->buf_len - s->buf_off, allow;
		int avail = 0;

		if (s->in < 0)
			continue;
		r->passed -= buffered;
		if (ioctl(s->in, FIONREAD, &avail) < 0 || avail < 0)
			avail = 0;
		if ((uint64_t) avail > s->drain_left)
			avail = (int) s->drain_left; /* the rest is not the command's */
		/* Bytes taken from the pipes so far: passed on, dropped before, this buffer. */
		allow = output_allowance(r->limit, r->passed + r->dropped + buffered,
					 (size_t) avail);
		if ((size_t) avail > allow)
			r->cap_passed = true; /* the command wrote more than the cap */
		r->dropped += buffered + allow;
	}
}

int
output_relay_drain(struct output_relay *r, int64_t wait_ms, const int stop_fd[2])
{
	uint64_t deadline_ms = wait_ms < 0 ? 0 : mono_ms() + (uint64_t) wait_ms;
	int ended = 0;

	r->epfd = -1; /* poll(2) from here on */
	/* What the pipes hold now is all the command wrote: every process of the sandbox has
	 * ended.  Each stream is pumped once at once, so that an empty one ends without a
	 * wait for an EOF that a write end held outside the sandbox would never give. */
	r->draining = true;
	for (int i = 0; i < 2; i++) {
		struct output_stream *s = &r->s[i];
		int avail = 0;

		if (s->in < 0)
			continue;
		if (ioctl(s->in, FIONREAD, &avail) < 0 || avail < 0)
			avail = 0;
		s->drain_left = (uint64_t) avail;
		if (s->waiting_out)
			continue; /* the output is full: its POLLOUT comes first */
		if (pump(r, s, false) > 0)
			r->cap_passed = true;
	}
	for (;;) {
		struct pollfd p[4];
		struct output_stream *who[2];
		int np = 0, tmo = -1;
		uint64_t now = mono_ms();

		for (int i = 0; i < 2; i++) {
			struct output_stream *s = &r->s[i];

			if (s->in < 0)
				continue;
			who[np] = s;
			p[np].fd = s->waiting_out ? s->out : s->in;
			p[np].events = s->waiting_out ? POLLOUT : POLLIN;
			np++;
		}
		if (np == 0)
			break;
		if (deadline_ms != 0) {
			if (now >= deadline_ms) {
				give_up(r);
				ended = 1;
				break;
			}
			tmo = deadline_ms - now > INT_MAX ? INT_MAX : (int) (deadline_ms - now);
		}
		p[np] = (struct pollfd){ .fd = stop_fd[0], .events = POLLIN };
		p[np + 1] = (struct pollfd){ .fd = stop_fd[1], .events = POLLIN };
		if (poll(p, (nfds_t) np + 2, tmo) < 0 && errno != EINTR) {
			give_up(r); /* cannot wait: the rest counts as dropped */
			ended = 1;
			break;
		}
		if (p[np].revents != 0 || p[np + 1].revents != 0) {
			give_up(r); /* asked to end: the rest is not waited for */
			ended = 2;
			break;
		}
		for (int i = 0; i < np; i++) {
			if (p[i].revents == 0)
				continue;
			if (who[i]->waiting_out)
				who[i]->waiting_out = false;
			(void) pump(r, who[i],
				    (p[i].revents & (POLLHUP | POLLERR)) != 0 &&
					    !(p[i].revents & POLLIN));
		}
	}
	output_relay_close(r);
	return ended;
}

void
output_relay_close(struct output_relay *r)
{
	for (int i = 0; i < 2; i++) {
		struct output_stream *s = &r->s[i];

		r->child_fd[i] = safe_close(r->child_fd[i]);
		s->in = safe_close(s->in);
		if (s->own_out)
			s->out = safe_close(s->out);
		s->own_out = false;
		free(s->buf);
		s->buf = NULL;
		s->waiting_out = false;
	}
}
