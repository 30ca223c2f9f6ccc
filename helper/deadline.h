/* SPDX-License-Identifier: MIT */
/* Deadline records for sandcap-reaper (lib/deadline-record.h): written at CREATE, removed
 * at teardown; and the next helper of any user kills the expired sandboxes it sees. */
#pragma once

struct session;

/* Record s's deadline (timeout + backstop from now, CLOCK_BOOTTIME) in SC_DEADLINE_DIR.
 * Nothing to do when the sandbox has no timeout.  -errno when it cannot be recorded. */
int deadline_record(struct session *s);
/* Remove the record of sandbox id from dfd (SC_DEADLINE_DIR), if any (teardown, or a
 * reclaimed leftover). */
void deadline_forget(int dfd, const char *id);
/* Kill (cgroup.kill) every sandbox of any user whose recorded deadline has passed and
 * remove its record; dfd is SC_DEADLINE_DIR (-EBADF: none, nothing to do).  Never waits:
 * removal is left to the owner's helper or the reaper. */
void deadline_reap_expired(int dfd);
