/* SPDX-License-Identifier: MIT */
/* Where the JSON report goes: --report FILE, --report - (stdout) or --report-fd N.
 *
 * The sink is opened before anything runs (a bad path or fd costs nothing) and written
 * once, at the end.  A file is first an unnamed file in its own directory (O_TMPFILE),
 * named when complete (linked as FILE, or linked under a hidden name and renamed over an
 * existing FILE), so a reader sees no file or a whole report, never an empty or partial
 * one, and a sandcap that dies first leaves nothing.  Where the filesystem refuses
 * O_TMPFILE, a hidden named temporary (.FILE.XXXXXX) is made at once and renamed at the
 * end; a sandcap that dies first leaves it.  A FILE that exists and is not a regular
 * file (a FIFO, /dev/stderr) is written in place.
 * --report-fd N is made close-on-exec at once, so the command never inherits it (even
 * with --keep-fds). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

enum report_sink_kind {
	REPORT_SINK_NONE,
	REPORT_SINK_STDOUT,
	REPORT_SINK_FD,   /* --report-fd N, or FILE that is not a regular file */
	REPORT_SINK_FILE, /* a temporary file renamed over path at the end */
};

struct report_sink {
	enum report_sink_kind kind;
	int fd;
	bool own_fd;    /* close fd at the end (not --report-fd's) */
	char *path;     /* REPORT_SINK_FILE: the final name */
	char *tmp_path; /* REPORT_SINK_FILE: the named temporary, unlinked on abort;
				 * NULL while fd is an unnamed (O_TMPFILE) file */
	char *buf;      /* the report, collected by report_sink_stream() */
	size_t len;
	FILE *mem;
};

#define REPORT_SINK_INIT                           \
	{                                          \
		.kind = REPORT_SINK_NONE, .fd = -1 \
	}

/* Open the sink for --report PATH (NULL: none; "-": stdout) or --report-fd FD (-1: none;
 * both given is refused by the option parser).  Returns 0, or -errno with the reason in
 * err ("--report: cannot ..."). */
int report_sink_open(struct report_sink *s, const char *path, int fd, char *err, size_t errlen);

/* A stream to write the report into; NULL for REPORT_SINK_NONE (or out of memory). */
FILE *report_sink_stream(struct report_sink *s);

/* Deliver what was written to the stream: write it to the fd, or to the temporary file
 * and rename it into place.  Returns 0 or -errno with the reason in err. */
int report_sink_commit(struct report_sink *s, char *err, size_t errlen);

/* Free everything; a temporary file not yet renamed is removed. */
void report_sink_close(struct report_sink *s);
