/* SPDX-License-Identifier: MIT */
/* probe-fs: filesystem operations for t-isolate.sh, run inside `sandcap run --fs ...`.  Each
 * operation prints one line, "OP PATH: OK" or "OP PATH: ERRNO_NAME", so the test can
 * assert the exact errno (Landlock refuses with EACCES, or EXDEV for a cross-directory
 * rename/link it cannot prove safe).
 *
 *   probe-fs OP PATH [OP PATH ...]     OP: read write append trunc mkdir rmdir unlink
 *                                          readdir exec mknod-fifo mksock chmod
 *   probe-fs rename SRC DST | link SRC DST | symlink TARGET LINK   (two-argument ops) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void
say(const char *op, const char *path, int r)
{
	if (r >= 0)
		printf("%s %s: OK\n", op, path);
	else
		printf("%s %s: %s\n", op, path, strerrorname_np(errno));
	fflush(stdout);
}

static int
do_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if ((flags & O_ACCMODE) != O_RDONLY && write(fd, "x\n", 2) != 2) {
		close(fd);
		return -1;
	}
	if ((flags & O_ACCMODE) == O_RDONLY) {
		char buf[64];

		if (read(fd, buf, sizeof(buf)) < 0) {
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

static int
do_readdir(const char *path)
{
	DIR *d = opendir(path);

	if (d == NULL)
		return -1;
	errno = 0;
	while (readdir(d) != NULL)
		;
	closedir(d);
	return errno ? -1 : 0;
}

static int
do_exec(const char *path)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *const argv[] = { (char *) path, NULL };

		execv(path, argv);
		_exit(errno == 0 ? 99 : 100 + errno);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) > 100) {
		errno = WEXITSTATUS(st) - 100;
		return -1;
	}
	return 0;
}

static int
do_mksock(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -1;
	strncpy(sa.sun_path, path, sizeof(sa.sun_path) - 1);
	r = bind(fd, (struct sockaddr *) &sa, sizeof(sa));
	close(fd);
	return r;
}

int
main(int argc, char **argv)
{
	int i = 1;

	while (i + 1 < argc) {
		const char *op = argv[i], *p = argv[i + 1];
		int r;

		if (strcmp(op, "rename") == 0 || strcmp(op, "link") == 0 ||
		    strcmp(op, "symlink") == 0) {
			char name[4096];

			if (i + 2 >= argc)
				break;
			if (op[0] == 'r')
				r = rename(p, argv[i + 2]);
			else if (op[0] == 'l')
				r = link(p, argv[i + 2]);
			else
				r = symlink(p, argv[i + 2]);
			snprintf(name, sizeof(name), "%s -> %s", p, argv[i + 2]);
			say(op, name, r);
			i += 3;
			continue;
		}
		if (strcmp(op, "read") == 0)
			r = do_open(p, O_RDONLY);
		else if (strcmp(op, "write") == 0)
			r = do_open(p, O_WRONLY | O_CREAT | O_TRUNC);
		else if (strcmp(op, "append") == 0)
			r = do_open(p, O_WRONLY | O_APPEND);
		else if (strcmp(op, "trunc") == 0)
			r = truncate(p, 0);
		else if (strcmp(op, "mkdir") == 0)
			r = mkdir(p, 0755);
		else if (strcmp(op, "rmdir") == 0)
			r = rmdir(p);
		else if (strcmp(op, "unlink") == 0)
			r = unlink(p);
		else if (strcmp(op, "readdir") == 0)
			r = do_readdir(p);
		else if (strcmp(op, "exec") == 0)
			r = do_exec(p);
		else if (strcmp(op, "mknod-fifo") == 0)
			r = mkfifo(p, 0644);
		else if (strcmp(op, "mksock") == 0)
			r = do_mksock(p);
		else if (strcmp(op, "chmod") == 0)
			r = chmod(p, 0600);
		else {
			fprintf(stderr, "probe-fs: unknown operation '%s'\n", op);
			return 2;
		}
		say(op, p, r);
		i += 2;
	}
	if (i != argc) {
		fprintf(stderr, "probe-fs: missing argument after '%s'\n", argv[i]);
		return 2;
	}
	return 0;
}
