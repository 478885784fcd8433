// SPDX-License-Identifier: GPL-2.0
/*
 * ms_hold: open a microstate session on this process and hold it until
 * killed, printing "attached" once it is open.  While a session is open
 * lwprof.ko keeps its probes attached, so a test can have them attached
 * before it starts something whose order against them matters (a trace
 * that must run after lwprof's probes), or look at what is attached.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lwprof.h"

int main(void)
{
	struct lwprof_attach at = { .pid = getpid() };
	int fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &at)) {
		perror("ms_hold: lwprof attach");
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	for (;;)
		pause();
}
