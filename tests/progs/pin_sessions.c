// SPDX-License-Identifier: GPL-2.0
/*
 * pin_sessions MAX PAGES: as many sessions as the module gives this user,
 * up to MAX, each on a sleeping child of its own, each with rings of
 * PAGES data pages per CPU (0: none).  Prints "sessions N WHY" (WHY the
 * name of the errno that ended it, or "none"), then holds them until its
 * stdin is closed.  The security tests' ordinary user pinning memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lwprof.h"

int main(int argc, char **argv)
{
	struct lwprof_ring_setup rs;
	struct lwprof_attach a;
	int i, max, pages, fd, err = 0;
	char c;
	pid_t pid;

	if (argc != 3 || (max = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: pin_sessions MAX PAGES\n");
		return 2;
	}
	pages = atoi(argv[2]);
	for (i = 0; i < max && !err; i++) {
		pid = fork();
		if (!pid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
		memset(&a, 0, sizeof(a));
		a.pid = pid;
		fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, LWPROF_IOC_ATTACH, &a))
			err = errno;
		memset(&rs, 0, sizeof(rs));
		rs.data_pages = pages;
		if (!err && pages && ioctl(fd, LWPROF_IOC_RING_SETUP, &rs))
			err = errno;
	}
	printf("sessions %d %s\n", err ? i - 1 : i,
	       err ? strerrorname_np(err) : "none");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
