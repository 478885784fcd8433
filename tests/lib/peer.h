/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf as a peer for the sampling tests: the same thread sampled by a perf
 * software event at the same time (peer_open, peer_samples), and counts of
 * `perf stat` on the same workload (peer_stat).  A guest on a busy host
 * loses timer ticks that no profiler can take; a peer sampled at the same
 * time loses the same ones.
 */
#ifndef LWPROF_PEER_H
#define LWPROF_PEER_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>

struct peer {
	int fd;
	void *map;
	size_t size;
};

#define PEER_PAGES	128

/*
 * Sample pid's software event config every period, in user and kernel mode
 * (root), its threads that exist now (a mapped per-task event may not be
 * inherited).
 */
static inline int peer_open(struct peer *p, pid_t pid, uint64_t config,
			    uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_TID;
	p->map = MAP_FAILED;
	p->fd = syscall(SYS_perf_event_open, &a, pid, -1, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	p->size = (PEER_PAGES + 1) * (size_t)getpagesize();
	p->map = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      p->fd, 0);
	return p->map == MAP_FAILED ? -errno : 0;
}

/* Samples in perf's ring (big enough to hold them all: *lost says). */
static inline unsigned int peer_samples(struct peer *p, unsigned int *lost)
{
	struct perf_event_mmap_page *pg = p->map;
	unsigned char *data = (unsigned char *)p->map + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = 0;
	unsigned int n = 0;

	*lost = head > pg->data_size;
	while (pos + sizeof(struct perf_event_header) <= head &&
	       head <= pg->data_size) {
		struct perf_event_header *h = (void *)(data + pos);

		if (!h->size)
			break;
		n += h->type == PERF_RECORD_SAMPLE;
		*lost += h->type == PERF_RECORD_LOST;
		pos += h->size;
	}
	return n;
}

/* The event's count (its nanoseconds for a clock), or -1. */
static inline long long peer_count(struct peer *p)
{
	uint64_t v;

	return read(p->fd, &v, sizeof(v)) == sizeof(v) ? (long long)v : -1;
}

static inline void peer_close(struct peer *p)
{
	if (p->map != MAP_FAILED)
		munmap(p->map, p->size);
	if (p->fd >= 0)
		close(p->fd);
}

/*
 * `perf stat -x, -e EVENT -- CMD`: the event's count, or -1.  CMD is run
 * by the shell.
 */
static inline long long peer_stat(const char *event, const char *cmd)
{
	char line[512], *shell;
	long long n = -1, v;
	FILE *f;

	if (asprintf(&shell, "perf stat -x, -e %s -- %s 2>&1 >/dev/null",
		     event, cmd) < 0)
		return -1;
	f = popen(shell, "r");
	free(shell);
	while (f && fgets(line, sizeof(line), f)) {
		printf("# perf stat: %s", line);
		if (sscanf(line, "%lld,", &v) == 1 && strstr(line, event))
			n = v;
	}
	if (f && pclose(f))
		n = -1;
	return n;
}

/* got within pct percent of want. */
static inline int within(uint64_t got, uint64_t want, unsigned int pct)
{
	return got * 100 >= want * (100 - pct) &&
	       got * 100 <= want * (100 + pct);
}

#endif
