// SPDX-License-Identifier: GPL-2.0
/*
 * I/O tracing's ground truth (tests/host/trace_io.sh): known reads,
 * writes, other calls and failures in known functions on files of the
 * directory argv[1].  Per function "truth FUNC RBYTES RCOUNT WBYTES WCOUNT
 * OTHER ERRORS", per file "file PATH RBYTES RCOUNT WBYTES WCOUNT".  Last,
 * like a daemon, it closes every descriptor from 3 up (closefrom and
 * close) and writes again: the tracing must survive it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static char f1[4096], f2[4096], f3[4096], f4[4096], missing[4096];
static char buf[8192];

NOINLINE static void writer(void)
{
	struct iovec v[2] = { { buf, 10 }, { buf, 20 } };
	int fd = open(f1, O_CREAT | O_WRONLY | O_TRUNC, 0644), i;

	for (i = 0; i < 10; i++)
		if (write(fd, buf, 4096) != 4096)
			exit(1);
	for (i = 0; i < 3; i++)
		if (pwrite(fd, buf, 100, 100 * i) != 100)
			exit(1);
	lseek(fd, 0, SEEK_END);
	if (writev(fd, v, 2) != 30)
		exit(1);
	fsync(fd);
	close(fd);
	printf("truth writer 0 0 41290 14 4 0\n");
}

NOINLINE static void reader(void)
{
	int fd = open(f1, O_RDONLY), n = 0;
	long got = 0, r;

	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		got += r;
		n++;
	}
	n++;	/* the read of 0 at the end */
	if (pread(fd, buf, 100, 0) != 100)
		exit(1);
	lseek(fd, 0, SEEK_SET);
	close(fd);
	printf("truth reader %ld %d 0 0 3 0\n", got + 100, n + 1);
	printf("file %s %ld %d 41290 14\n", f1, got + 100, n + 1);
}

NOINLINE static void failures(void)
{
	if (read(-1, buf, 1) != -1 || open(missing, O_RDONLY) != -1)
		exit(1);
	printf("truth failures 0 0 0 0 0 2\n");
}

NOINLINE static void streams(void)
{
	FILE *f = fopen(f2, "w");

	if (!f || fwrite(buf, 1, 500, f) != 500 || fclose(f))
		exit(1);
	printf("truth streams 0 0 500 1 2 0\n");
	printf("file %s 0 0 500 1\n", f2);
}

NOINLINE static void dup_write(void)
{
	int fd = open(f3, O_CREAT | O_WRONLY | O_TRUNC, 0644), d = dup(fd);

	if (write(d, buf, 64) != 64)
		exit(1);
	close(d);
	close(fd);
	printf("truth dup_write 0 0 64 1 4 0\n");
	printf("file %s 0 0 64 1\n", f3);
}

/* Close every open descriptor from 3 up, as /proc/self/fd lists them. */
NOINLINE static void close_listed(void)
{
	int fds[256], n = 0, i;
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");

	while (d && (de = readdir(d)) && n < 256)
		if (atoi(de->d_name) >= 3 && atoi(de->d_name) != dirfd(d))
			fds[n++] = atoi(de->d_name);
	if (d)
		closedir(d);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* After every descriptor was closed: the first open is 3 again. */
NOINLINE static void after_closing(void)
{
	int fd = open(f4, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd != 3 || write(fd, buf, 7) != 7)
		exit(1);
	close(fd);
	printf("truth after_closing 0 0 7 1 3 0\n");	/* open, close, fflush */
	printf("file %s 0 0 7 1\n", f4);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	snprintf(f1, sizeof(f1), "%s/f1", argv[1]);
	snprintf(f2, sizeof(f2), "%s/f2", argv[1]);
	snprintf(f3, sizeof(f3), "%s/f3", argv[1]);
	snprintf(f4, sizeof(f4), "%s/f4", argv[1]);
	snprintf(missing, sizeof(missing), "%s/missing", argv[1]);
	memset(buf, 'x', sizeof(buf));
	writer();
	reader();
	failures();
	streams();
	dup_write();
	fflush(stdout);
	close_listed();
	closefrom(3);
	after_closing();
	return 0;
}
