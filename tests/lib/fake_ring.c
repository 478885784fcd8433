// SPDX-License-Identifier: GPL-2.0
/*
 * The fake module's rings (see fake_lwprof.c), for host tests of
 * lwprof collect and lwprof dump: RING_SETUP, mmap of the rings, poll
 * (the device fd becomes an eventfd), SAMPLE_START and SAMPLE_STOP, with
 * synthetic records whose truth the test knows.
 *
 * $FAKE_LWPROF_CPUS rings (default 2) of $FAKE_LWPROF_RING_PAGES data pages
 * (default: what was asked).  SAMPLE_START starts a producer thread that
 * writes, with the ABI's ring protocol (waiting for room while sampling
 * runs, dropping and counting once it stopped):
 *  - ring 0: TASK start for tids pid, pid+1, pid+2 (comm "fake-main",
 *    "fake-worker 1", "fake-worker 2") and an MMAP record for every
 *    executable mapping of the recorder itself (/proc/self/maps);
 *  - every ring c, $FAKE_LWPROF_SAMPLES (default 100) samples i = 0..N-1:
 *    tid pid + i % 3, cpu c, time 10 s + i ms, flags REGS (and DEFERRED
 *    when i is odd); regs[k] = 0x1000 * k + i; 1 + i % 4 user frames
 *    ips[j] = 0x401000 + 0x10 * j + i % 4 (regs[rip] = ips[0]); 2 kernel
 *    frames 0xffffffff81000000 + 0x10 * j with -K; stack_size
 *    min(100, stack_bytes) bytes (i + k) & 0xff.  Clock samples carry
 *    user 9 ms, system 0.5 ms, sleep 0.5 ms + i ns; with counters, every
 *    i % 10 == 9 is instead a packet of counter (i / 10) % nr with value
 *    its period;
 *  - after sample N / 2 on every ring, a LOST record of 7 (and lost += 7);
 *  - then the scripted records of $FAKE_LWPROF_MMAPS (fake_maps.c);
 *  - ring 0: TASK exit for the three tids.
 * Every record it publishes is also appended to $FAKE_LWPROF_COPY.N (ring
 * N) if set, so a test can compare the experiment's files byte for byte.
 * When done it creates $FAKE_LWPROF_DONE; it never wakes the reader for
 * data below the watermark, so that tail reaches the files only through
 * the recorder's timed flush.  $FAKE_LWPROF_DELAY_US slows it per sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake_lwprof.h"

#define PAGE	4096

static struct {
	int fd;			/* the device: an eventfd after RING_SETUP */
	int memfd;
	unsigned int nr;
	size_t mmap_size, data_size;
	unsigned char *mem;
	struct lwprof_sample_start ss;
	pthread_t thr;
	int running;
	int stop;		/* __atomic */
	__u64 pending[64];	/* lost since the last LOST record, per ring */
} F = { .fd = -1 };

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *s = getenv(name);

	return s && *s ? (unsigned int)strtoul(s, NULL, 0) : def;
}

void fake_log(const char *fmt, ...)
{
	const char *path = getenv("FAKE_LWPROF_LOG");
	va_list ap;
	FILE *f;

	f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static struct lwprof_ring_ctl *ctl(unsigned int c)
{
	return (void *)(F.mem + c * F.mmap_size);
}

static void copy_out(unsigned int c, const void *rec, size_t size)
{
	const char *base = getenv("FAKE_LWPROF_COPY");
	char path[4096];
	FILE *f;

	if (!base)
		return;
	snprintf(path, sizeof(path), "%s.%u", base, c);
	f = fopen(path, "a");
	if (f) {
		fwrite(rec, 1, size, f);
		fclose(f);
	}
}

static void publish(unsigned int c, const void *rec, size_t size)
{
	struct lwprof_ring_ctl *k = ctl(c);
	unsigned char *data = (unsigned char *)k + PAGE;
	__u64 head = k->head, tail, i;

	for (i = 0; i < size; i++)
		data[(head + i) & (F.data_size - 1)] = ((const unsigned char *)rec)[i];
	copy_out(c, rec, size);
	__atomic_store_n(&k->head, head + size, __ATOMIC_RELEASE);
	k->records++;
	tail = __atomic_load_n(&k->tail, __ATOMIC_ACQUIRE);
	if (head + size - tail >= k->watermark) {
		__u64 one = 1;

		if (write(F.fd, &one, sizeof(one)) < 0)
			return;
	}
}

static int room(unsigned int c, size_t size)
{
	struct lwprof_ring_ctl *k = ctl(c);
	__u64 tail = __atomic_load_n(&k->tail, __ATOMIC_ACQUIRE);

	return F.data_size - (k->head - tail) >= size;
}

static void lost_rec(unsigned int c, __u64 n)
{
	struct lwprof_rec_lost l;

	memset(&l, 0, sizeof(l));
	l.hdr.type = LWPROF_REC_LOST;
	l.hdr.size = sizeof(l);
	l.time_ns = 10000000000ULL;
	l.lost = n;
	l.cpu = c;
	publish(c, &l, sizeof(l));
}

/* The ABI's rule: wait while sampling runs; once stopped, drop and count. */
void fake_emit(unsigned int c, const void *rec, size_t size)
{
	for (;;) {
		size_t need = size + (F.pending[c] ? sizeof(struct lwprof_rec_lost) : 0);

		if (room(c, need)) {
			if (F.pending[c])
				lost_rec(c, F.pending[c]);
			F.pending[c] = 0;
			publish(c, rec, size);
			return;
		}
		if (__atomic_load_n(&F.stop, __ATOMIC_ACQUIRE)) {
			F.pending[c]++;
			ctl(c)->lost++;
			return;
		}
		usleep(100);
	}
}

void fake_task(unsigned int c, unsigned int pid, unsigned int tid,
	       unsigned int ppid, __u32 event, const char *comm)
{
	struct lwprof_rec_task t;

	memset(&t, 0, sizeof(t));
	t.hdr.type = LWPROF_REC_TASK;
	t.hdr.size = sizeof(t);
	t.time_ns = 10000000000ULL;
	t.pid = pid;
	t.tid = tid;
	t.ppid = ppid;
	t.event = event;
	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	fake_emit(c, &t, sizeof(t));
}

static void task(unsigned int tid, __u32 event, const char *comm)
{
	fake_task(0, fake_pid, tid, getpid(), event, comm);
}

/* An MMAP record for every executable mapping of this process. */
static void maps(void)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char line[4352], perm[8], path[4096];
	union {
		struct lwprof_rec_mmap m;
		unsigned char b[sizeof(struct lwprof_rec_mmap) + 4096 + 8];
	} u;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		size_t plen;

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &start,
			   &end, perm, &off, &maj, &min, &ino, path) < 7 ||
		    perm[2] != 'x')
			continue;
		memset(&u, 0, sizeof(u));
		if (!path[0])
			strcpy(path, "//anon");
		plen = (strlen(path) + 1 + 7) & ~7UL;
		u.m.hdr.type = LWPROF_REC_MMAP;
		u.m.hdr.flags = path[0] == '/' && path[1] != '/' ? 0 :
				LWPROF_MMAP_ANON;
		u.m.hdr.size = sizeof(u.m) + plen;
		u.m.time_ns = 10000000000ULL;
		u.m.pid = u.m.tid = fake_pid;
		u.m.start = start;
		u.m.len = end - start;
		u.m.pgoff = off;
		u.m.ino = ino;
		u.m.dev_major = maj;
		u.m.dev_minor = min;
		u.m.prot = (perm[0] == 'r') | (perm[1] == 'w') << 1 | 4;
		memcpy(u.m.path, path, strlen(path));
		fake_emit(0, &u, u.m.hdr.size);
	}
	if (f)
		fclose(f);
}

static void sample(unsigned int c, unsigned int i)
{
	const struct lwprof_sample_start *ss = &F.ss;
	union {
		struct lwprof_rec_sample s;
		unsigned char b[sizeof(struct lwprof_rec_sample) + 8 * 32 + 104];
	} u;
	unsigned int nu = 1 + i % 4, nk = ss->flags & LWPROF_SS_KSTACK ? 2 : 0;
	unsigned int ss_size = ss->stack_bytes < 100 ? ss->stack_bytes : 100;
	__u64 *v;
	unsigned int k;

	memset(&u, 0, sizeof(u));
	u.s.hdr.type = LWPROF_REC_SAMPLE;
	u.s.hdr.flags = LWPROF_RS_REGS | (i % 2 ? LWPROF_RS_DEFERRED : 0);
	u.s.time_ns = 10000000000ULL + i * 1000000ULL;
	u.s.pid = fake_pid;
	u.s.tid = fake_pid + i % 3;
	u.s.cpu = c;
	if (ss->nr_counters && i % 10 == 9) {
		u.s.kind = LWPROF_SK_COUNTER;
		u.s.counter = (i / 10) % ss->nr_counters;
		u.s.value = ss->counters[u.s.counter].period;
	} else {
		u.s.kind = LWPROF_SK_CLOCK;
		u.s.mstate_ns[LWPROF_MS_USER] = 9000000;
		u.s.mstate_ns[LWPROF_MS_SYSTEM] = 500000;
		u.s.mstate_ns[LWPROF_MS_SLEEP] = 500000 + i;
		u.s.value = 10000000 + i;
	}
	u.s.nr_user = nu;
	u.s.nr_kernel = nk;
	u.s.stack_size = ss_size;
	v = (__u64 *)(&u.s + 1);
	for (k = 0; k < LWPROF_NR_REGS; k++)
		v[k] = 0x1000ULL * k + i;
	v[LWPROF_REG_IP] = 0x401000 + i % 4;
	v += LWPROF_NR_REGS;
	for (k = 0; k < nu; k++)
		*v++ = 0x401000 + 0x10 * k + i % 4;
	for (k = 0; k < nk; k++)
		*v++ = 0xffffffff81000000ULL + 0x10 * k;
	for (k = 0; k < ss_size; k++)
		((unsigned char *)v)[k] = (i + k) & 0xff;
	u.s.hdr.size = (unsigned char *)v - u.b + ((ss_size + 7) & ~7U);
	fake_emit(c, &u, u.s.hdr.size);
}

unsigned int fake_rings(void)
{
	return F.nr;
}

/* Wait until the reader has consumed everything published. */
void fake_sync(void)
{
	unsigned int c;

	for (c = 0; c < F.nr; c++)
		while (__atomic_load_n(&ctl(c)->tail, __ATOMIC_ACQUIRE) !=
		       ctl(c)->head && !__atomic_load_n(&F.stop, __ATOMIC_ACQUIRE))
			usleep(100);
}

static void *producer(void *arg)
{
	unsigned int n = env_uint("FAKE_LWPROF_SAMPLES", 100);
	unsigned int delay = env_uint("FAKE_LWPROF_DELAY_US", 0);
	const char *done = getenv("FAKE_LWPROF_DONE");
	unsigned int i, c;

	task(fake_pid, LWPROF_TASK_START, "fake-main");
	task(fake_pid + 1, LWPROF_TASK_START, "fake-worker 1");
	task(fake_pid + 2, LWPROF_TASK_START, "fake-worker 2");
	maps();
	fake_maps();
	for (i = 0; i < n; i++) {
		for (c = 0; c < F.nr; c++) {
			sample(c, i);
			if (i == n / 2) {
				ctl(c)->lost += 7;
				F.pending[c] += 7;
			}
		}
		if (delay)
			usleep(delay);
	}
	for (i = 0; i < 3; i++)
		task(fake_pid + i, LWPROF_TASK_EXIT, i ? "fake-worker" : "fake-main");
	fake_maps_done();
	if (done)
		close(open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	return NULL;
}

static int ring_setup(int fd, struct lwprof_ring_setup *rs)
{
	unsigned int pages = rs->data_pages ? rs->data_pages : LWPROF_RING_DEFAULT_PAGES;
	unsigned int c;
	int efd;

	if (rs->flags || rs->reserved[0] || rs->reserved[1] ||
	    rs->reserved[2] || rs->reserved[3] || pages > 16384 ||
	    (pages & (pages - 1)) || !fake_pid)
		return -EINVAL;
	if (F.nr)
		return -EBUSY;
	pages = env_uint("FAKE_LWPROF_RING_PAGES", pages);
	F.nr = env_uint("FAKE_LWPROF_CPUS", 2);
	if (F.nr > 64)
		F.nr = 64;
	F.data_size = (size_t)pages * PAGE;
	F.mmap_size = PAGE + F.data_size;
	F.memfd = memfd_create("fake_lwprof", MFD_CLOEXEC);
	if (F.memfd < 0 || ftruncate(F.memfd, F.nr * F.mmap_size) < 0)
		return -errno;
	F.mem = (void *)syscall(SYS_mmap, NULL, F.nr * F.mmap_size,
				PROT_READ | PROT_WRITE, MAP_SHARED, F.memfd, 0);
	if (F.mem == MAP_FAILED)
		return -errno;
	for (c = 0; c < F.nr; c++) {
		ctl(c)->data_size = F.data_size;
		ctl(c)->data_offset = PAGE;
		ctl(c)->cpu = c;
		ctl(c)->watermark = rs->watermark ? rs->watermark : F.data_size / 4;
	}
	/* poll() on the device: an eventfd in the device fd's place. */
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0 || dup3(efd, fd, O_CLOEXEC) < 0)
		return -errno;
	close(efd);
	F.fd = fd;
	rs->nr_rings = F.nr;
	rs->mmap_size = F.mmap_size;
	rs->data_size = F.data_size;
	return 0;
}

/* The SAMPLE_START flags of the features the fake reports. */
static __u32 known_flags(void)
{
	__u64 f = fake_features();
	__u32 k = LWPROF_SS_KSTACK;

	if (f & LWPROF_FEAT_SDELTA)
		k |= LWPROF_SS_SDELTA;
	if (f & LWPROF_FEAT_KBLOCK)
		k |= LWPROF_SS_OFFCPU;
	if (f & LWPROF_FEAT_IDLE)
		k |= LWPROF_SS_IDLE;
	if (f & LWPROF_FEAT_KONLY)
		k |= LWPROF_SS_KONLY;
	if (f & LWPROF_FEAT_IRQ)
		k |= LWPROF_SS_IRQ;
	return k;
}

static int sample_start(const struct lwprof_sample_start *ss)
{
	unsigned int i;

	if ((ss->flags & ~known_flags()) || ss->reserved[0] ||
	    ss->reserved[1] || ss->reserved[2] || ss->reserved[3] ||
	    (ss->clock_ns && (ss->clock_ns < LWPROF_CLOCK_MIN_NS ||
			      ss->clock_ns > LWPROF_CLOCK_MAX_NS)) ||
	    ss->stack_bytes % 64 || ss->stack_bytes > LWPROF_STACK_MAX ||
	    ss->max_depth > LWPROF_DEPTH_MAX ||
	    ss->nr_counters > LWPROF_MAX_COUNTERS || !F.nr)
		return -EINVAL;
	for (i = 0; i < ss->nr_counters; i++) {
		if (ss->counters[i].flags || ss->counters[i].reserved ||
		    !ss->counters[i].period)
			return -EINVAL;
		if (ss->counters[i].type != 1)	/* only software: no PMU */
			return -ENOENT;
	}
	if (F.running)
		return -EBUSY;
	F.ss = *ss;
	fake_log("start clock_ns=%llu depth=%u stack=%u flags=%u counters=%u",
		 (unsigned long long)ss->clock_ns, ss->max_depth,
		 ss->stack_bytes, ss->flags, ss->nr_counters);
	for (i = 0; i < ss->nr_counters; i++)
		fake_log("counter %u type=%u config=%llu period=%llu", i,
			 ss->counters[i].type,
			 (unsigned long long)ss->counters[i].config,
			 (unsigned long long)ss->counters[i].period);
	if (pthread_create(&F.thr, NULL, producer, NULL))
		return -EAGAIN;
	F.running = 1;
	return 0;
}

static int sample_stop(struct lwprof_sample_stop *st)
{
	unsigned int c;
	__u64 one = 1;

	if (st->flags || st->pad0)
		return -EINVAL;
	if (F.running) {
		__atomic_store_n(&F.stop, 1, __ATOMIC_RELEASE);
		pthread_join(F.thr, NULL);
		F.running = 0;
	}
	st->records = st->lost = 0;
	for (c = 0; c < F.nr; c++) {
		st->records += ctl(c)->records;
		st->lost += ctl(c)->lost;
	}
	fake_log("stop records=%llu lost=%llu", (unsigned long long)st->records,
		 (unsigned long long)st->lost);
	if (F.nr && write(F.fd, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

int fake_ring_ioctl(int fd, unsigned long req, void *arg)
{
	switch (req) {
	case LWPROF_IOC_RING_SETUP:
		return ring_setup(fd, arg);
	case LWPROF_IOC_SAMPLE_START:
		return sample_start(arg);
	case LWPROF_IOC_SAMPLE_STOP:
		return sample_stop(arg);
	}
	return -ENOTTY;
}

/* mmap of the device: the rings (the fake's memfd) at cpu * mmap_size. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (F.nr && fd == F.fd) {
		if (len != F.mmap_size || off % F.mmap_size ||
		    off / F.mmap_size >= F.nr || !(flags & MAP_SHARED)) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		fd = F.memfd;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));
