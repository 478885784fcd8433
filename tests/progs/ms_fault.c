// SPDX-License-Identifier: GPL-2.0
/*
 * Page-fault workload on a file whose page cache was dropped:
 *
 *   ms_fault data FILE     map FILE read-only and read one byte of each page
 *                          (user data faults that wait for the file)
 *   ms_fault kernel FILE   map FILE private and writable, touch nothing, and
 *                          read() /dev/zero into the mapping (the kernel's
 *                          clear_user() faults on user memory and waits)
 *
 * Ground truth: the wall time of the touching phase and the thread's major
 * and minor fault counts over it (getrusage RUSAGE_THREAD).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mstate.h"

static void faults(long *maj, long *min)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	*maj = ru.ru_majflt;
	*min = ru.ru_minflt;
}

int main(int argc, char **argv)
{
	long maj0, min0, maj1, min1, page = sysconf(_SC_PAGESIZE);
	volatile unsigned long sum = 0;
	uint64_t t0, t1;
	struct stat st;
	size_t off;
	char *p;
	int fd, zfd, wr;

	if (argc != 3 || (strcmp(argv[1], "data") && strcmp(argv[1], "kernel"))) {
		fprintf(stderr, "usage: ms_fault data|kernel FILE\n");
		return 2;
	}
	wr = !strcmp(argv[1], "kernel");
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[2]);
		return 2;
	}
	p = mmap(NULL, st.st_size, wr ? PROT_READ | PROT_WRITE : PROT_READ,
		 MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	zfd = open("/dev/zero", O_RDONLY);
	if (zfd < 0)
		return 2;
	ms_tid("main");
	faults(&maj0, &min0);
	t0 = ms_now();
	for (off = 0; off < (size_t)st.st_size; off += 1 << 20) {
		size_t len = st.st_size - off < (1 << 20) ? st.st_size - off : 1 << 20;
		size_t i;

		if (!wr) {
			for (i = 0; i < len; i += page)
				sum += p[off + i];
		} else if (read(zfd, p + off, len) != (ssize_t)len) {
			perror("read into the mapping");
			return 2;
		}
	}
	t1 = ms_now();
	faults(&maj1, &min1);
	ms_truth("touch_ns", t1 - t0);
	ms_truth("majflt", maj1 - maj0);
	ms_truth("minflt", min1 - min0);
	ms_truth("bytes", st.st_size);
	return 0;
}
