/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "report-sink.h"

static int
fail(char *err, size_t errlen, int r, const char *what, const char *path)
{
	char esc[256];

	snprintf(err, errlen, "%s '%s': %s", what, log_escape(path, esc, sizeof(esc)),
		 strerror(-r));
	return r;
}

static int
open_file(struct report_sink *s, const char *path, char *err, size_t errlen)
{
	_cleanup_free_ char *dcopy = NULL, *bcopy = NULL, *tmp = NULL;
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return fail(err, errlen, -EISDIR, "--report: cannot write to", path);
		/* A FIFO or a device (/dev/stderr): nothing to rename; written in place. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return fail(err, errlen, neg_errno(), "--report: cannot open", path);
		s->kind = REPORT_SINK_FD;
		s->fd = fd;
		s->own_fd = true;
		return 0;
	}
	dcopy = strdup(path);
	bcopy = strdup(path);
	if (dcopy == NULL || bcopy == NULL)
		return -ENOMEM;
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dcopy), basename(bcopy)) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	/* Same directory, so the final rename() is atomic; O_EXCL by mkostemp. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, neg_errno(),
			    "--report: cannot create a temporary file next to", path);
	s->path = strdup(path);
	if (s->path == NULL) {
		(void) unlink(tmp);
		close(fd);
		return -ENOMEM;
	}
	s->kind = REPORT_SINK_FILE;
	s->fd = fd;
	s->own_fd = true;
	s->tmp_path = TAKE_PTR(tmp);
	return 0;
}

int
report_sink_open(struct report_sink *s, const char *path, int fd, char *err, size_t errlen)
{
	*s = (struct report_sink) REPORT_SINK_INIT;
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			snprintf(err, errlen, "--report-fd: %d is not an open file descriptor: %s", fd,
				 strerror(errno));
			return -EBADF;
		}
		if ((fl & O_ACCMODE) == O_RDONLY) {
			snprintf(err, errlen, "--report-fd: %d is open for reading only; pass a "
				 "descriptor open for writing (e.g. the write end of a pipe)", fd);
			return -EBADF;
		}
		s->kind = REPORT_SINK_FD;
		s->fd = fd;
		return 0;
	}
	if (path == NULL)
		return 0;
	if (streq(path, "-")) {
		s->kind = REPORT_SINK_STDOUT;
		s->fd = STDOUT_FILENO;
		return 0;
	}
	return open_file(s, path, err, errlen);
}

FILE *
report_sink_stream(struct report_sink *s)
{
	if (s->kind == REPORT_SINK_NONE)
		return NULL;
	if (s->mem == NULL)
		s->mem = open_memstream(&s->buf, &s->len);
	return s->mem;
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return neg_errno();
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

int
report_sink_commit(struct report_sink *s, char *err, size_t errlen)
{
	mode_t mask;
	int r;

	if (s->kind == REPORT_SINK_NONE || s->mem == NULL)
		return 0;
	if (fclose(s->mem) != 0) {
		s->mem = NULL;
		snprintf(err, errlen, "--report: cannot compose the report: %s", strerror(errno));
		return -ENOMEM;
	}
	s->mem = NULL;
	if (s->kind == REPORT_SINK_STDOUT)
		(void) fflush(stdout);          /* anything printf'ed before goes first */
	r = write_all(s->fd, s->buf, s->len);
	if (r < 0) {
		snprintf(err, errlen, "--report: cannot write the report: %s", strerror(-r));
		return r;
	}
	if (s->kind != REPORT_SINK_FILE)
		return 0;
	/* The mode open(..., 0644) would have given under the caller's umask. */
	mask = umask(0);
	(void) umask(mask);
	if (fchmod(s->fd, 0644 & ~mask) < 0 || close(s->fd) < 0) {
		s->fd = -1;
		return fail(err, errlen, neg_errno(), "--report: cannot write", s->tmp_path);
	}
	s->fd = -1;
	if (rename(s->tmp_path, s->path) < 0)
		return fail(err, errlen, neg_errno(), "--report: cannot rename the report to",
			    s->path);
	free(s->tmp_path);
	s->tmp_path = NULL;
	return 0;
}

void
report_sink_close(struct report_sink *s)
{
	if (s->mem != NULL)
		(void) fclose(s->mem);
	if (s->own_fd && s->fd >= 0)
		(void) close(s->fd);
	if (s->tmp_path != NULL)
		(void) unlink(s->tmp_path);
	free(s->tmp_path);
	free(s->path);
	free(s->buf);
	*s = (struct report_sink) REPORT_SINK_INIT;
}
