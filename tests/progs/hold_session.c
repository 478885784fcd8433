// SPDX-License-Identifier: GPL-2.0
/*
 * hold_session PID|-m SECS: a session on process PID (or the machine,
 * -m) held for SECS seconds, then read (LWPROF_IOC_READ_USAGE): prints
 * "attached" once it is, then "stopped N" with the read's stopped field
 * (ABI 1.7: LWPROF_STOP_REVOKED once another session took its threads),
 * and a line "thread PID TID FLAGS NAME" per record the read returned,
 * or the errno's name if the attach fails (exit 1).  The security tests'
 * ordinary user holding a session that root's must not be blocked by.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lwprof.h"

int main(int argc, char **argv)
{
	struct lwprof_thread_usage tu[64];
	struct lwprof_attach a = { 0 };
	struct lwprof_usage_read r = { 0 };
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: hold_session PID|-m SECS\n");
		return 2;
	}
	if (!strcmp(argv[1], "-m"))
		a.flags = LWPROF_ATTACH_MACHINE;
	else
		a.pid = atoi(argv[1]);
	fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &a)) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	usleep(atof(argv[2]) * 1e6);
	r.buf = (unsigned long)tu;
	r.count = 64;
	if (ioctl(fd, LWPROF_IOC_READ_USAGE, &r)) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("stopped %u\n", r.stopped);
	for (unsigned int i = 0; i < r.count; i++)
		printf("thread %u %u 0x%x %.16s\n", tu[i].pid, tu[i].tid,
		       tu[i].flags, tu[i].comm);
	return 0;
}
