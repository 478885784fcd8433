// SPDX-License-Identifier: GPL-2.0
/*
 * Hold a whole-machine accounting session (LWPROF_ATTACH_MACHINE) until
 * killed, reading the usage once a second as a monitor would (which also
 * frees exited threads' records).  Prints "attached" once the session is
 * open.  For scripts/bench-mstate.
 */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "lwprof.h"
#include "mstate.h"

#define NREC	4096

static struct lwprof_thread_usage rec[NREC];

int main(void)
{
	struct lwprof_attach at = { .flags = LWPROF_ATTACH_MACHINE };
	int fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &at)) {
		perror("lwprof machine attach");
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	for (;;) {
		struct lwprof_usage_read rd = {
			.buf = (__u64)(unsigned long)rec,
			.count = NREC,
		};

		if (ioctl(fd, LWPROF_IOC_READ_USAGE, &rd)) {
			perror("lwprof read usage");
			return 1;
		}
		sleep(1);
	}
}
