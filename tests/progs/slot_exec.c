// SPDX-License-Identifier: GPL-2.0
/*
 * slot_exec PROG [ARGS...]: a thread's microstate slot (ABI 1.5) across
 * an exec.  This process makes itself a session, maps a microstate area
 * and forks; the child claims a slot there and execs PROG (a set-user-ID
 * program, say), while the parent, which still maps the area, watches
 * the slot.  Prints "before TID" (the slot's owner before the exec, the
 * child's tid), then "after TID WRITES": its owner 0.3 s after the exec
 * and how many times it was written over the next 0.5 s.  A slot given
 * up at the exec reads "after 0 0".  Exits with PROG's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lwprof.h"

static int fail(const char *what)
{
	fprintf(stderr, "slot_exec: %s: %s\n", what, strerror(errno));
	return 2;
}

int main(int argc, char **argv)
{
	struct lwprof_ustate_open op = { 0 };
	struct lwprof_attach at = { 0 };
	volatile struct lwprof_ustate *us;
	int dev, fd, p[2], slot, st;
	unsigned int seq;
	void *area;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: slot_exec PROG [ARGS...]\n");
		return 2;
	}
	dev = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return fail("open");
	at.pid = getpid();
	if (ioctl(dev, LWPROF_IOC_ATTACH, &at))
		return fail("ATTACH");
	fd = ioctl(dev, LWPROF_IOC_USTATE_OPEN, &op);
	if (fd < 0)
		return fail("USTATE_OPEN");
	area = mmap(NULL, LWPROF_USTATE_SLOTS * sizeof(*us), PROT_READ,
		    MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		return fail("mmap");
	if (pipe2(p, O_CLOEXEC))
		return fail("pipe");
	pid = fork();
	if (!pid) {
		struct lwprof_ustate_claim c = { .area = (uintptr_t)area };

		slot = ioctl(dev, LWPROF_IOC_USTATE_CLAIM, &c);
		if (slot < 0 || write(p[1], &slot, sizeof(slot)) != sizeof(slot))
			_exit(126);
		execv(argv[1], argv + 1);	/* closes p[1]: the parent sees EOF */
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &slot, sizeof(slot)) != sizeof(slot))
		return fail("the child's claim");
	us = (volatile struct lwprof_ustate *)area + slot;
	printf("before %u\n", us->tid);
	while (read(p[0], &st, sizeof(st)) > 0)
		;	/* EOF: the exec happened */
	usleep(300000);
	seq = us->seq;
	printf("after %u ", us->tid);
	usleep(500000);
	printf("%u\n", (us->seq - seq) / 2);
	if (waitpid(pid, &st, 0) != pid)
		return fail("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
