// SPDX-License-Identifier: GPL-2.0
/*
 * try_attach PID | try_attach -m: open /dev/lwprof and ATTACH to process
 * PID ("self" for this process), or to the machine with -m.  Prints "ok"
 * or the errno name (EPERM, ESRCH, ...) and exits 0 or 1.
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
	struct lwprof_attach a;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: try_attach PID|self|-m\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	if (!strcmp(argv[1], "-m"))
		a.flags = LWPROF_ATTACH_MACHINE;
	else
		a.pid = strcmp(argv[1], "self") ? atoi(argv[1]) : getpid();
	fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &a) < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("ok\n");
	close(fd);
	return 0;
}
