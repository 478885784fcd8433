// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling ioctls, mmap() and poll() refuse what they must, with the
 * documented errors (docs/design/abi.md), and the session stays usable after each
 * refusal; then one good run, a second SAMPLE_START, SAMPLE_STOP twice.
 */
#include <poll.h>
#include <linux/perf_event.h>

#include "ring.h"
#include "test.h"

#define IOC_START_BAD_SIZE \
	_IOW(LWPROF_IOC_MAGIC, 0x04, struct lwprof_ring_setup)

static int fd;

static int setup(__u32 flags, __u32 pages, __u32 watermark, int reserved,
		 struct lwprof_ring_setup *out)
{
	struct lwprof_ring_setup rs;

	memset(&rs, 0, sizeof(rs));
	rs.flags = flags;
	rs.data_pages = pages;
	rs.watermark = watermark;
	rs.reserved[3] = reserved;
	if (out)
		*out = rs;
	return ioctl(fd, LWPROF_IOC_RING_SETUP, out ? out : &rs);
}

static int start(struct lwprof_sample_start *ss)
{
	return ioctl(fd, LWPROF_IOC_SAMPLE_START, ss);
}

static int stop(struct lwprof_sample_stop *st)
{
	struct lwprof_sample_stop tmp;

	if (!st)
		st = &tmp;
	memset(st, 0, sizeof(*st));
	return ioctl(fd, LWPROF_IOC_SAMPLE_STOP, st);
}

static short poll_events(void)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

static void *map(size_t len, int prot, int flags, off_t off)
{
	return mmap(NULL, len, prot, flags, fd, off);
}

/* A good request: 10 ms clock, 8 KiB of stack; then one thing spoiled. */
static struct lwprof_sample_start *req(void)
{
	static struct lwprof_sample_start ss;

	lwr_clock_req(&ss, 10000000, 8192);
	return &ss;
}

static struct lwprof_sample_start *req_counter(__u32 type, __u64 config,
					       __u64 period)
{
	struct lwprof_sample_start *ss = req();

	ss->nr_counters = 1;
	ss->counters[0].type = type;
	ss->counters[0].config = config;
	ss->counters[0].period = period;
	return ss;
}

static int sleeper(void *arg)
{
	pause();
	return 0;
}

int main(void)
{
	struct lwprof_sample_start *ss;
	struct lwprof_ring_setup rs;
	struct lwprof_sample_stop st;
	struct lwprof_ring_ctl *ctl;
	struct lwr_child c;
	size_t ms;
	void *p;

	lwr_test_begin();
	fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_fatal("open");
	if (lwr_spawn(&c, sleeper, NULL))
		t_fatal("fork");

	printf("# before ATTACH\n");
	t_errno(setup(0, 0, 0, 0, NULL), EINVAL, "RING_SETUP");
	t_errno(start(req()), EINVAL, "SAMPLE_START");
	t_errno(stop(NULL), EINVAL, "SAMPLE_STOP");
	t_check(map(4096, PROT_READ, MAP_SHARED, 0) == MAP_FAILED &&
		errno == EINVAL, "mmap -> EINVAL");
	t_check(poll_events() & POLLERR, "poll -> POLLERR");
	t_errno(lwr_attach(fd, LWPROF_ATTACH_EXCLUDE_SELF, c.pid), EINVAL,
		"ATTACH with EXCLUDE_SELF but not MACHINE");
	if (lwr_attach(fd, 0, c.pid))
		t_fatal("ATTACH");

	printf("# before RING_SETUP\n");
	t_errno(start(req()), EINVAL, "SAMPLE_START");
	t_errno(stop(NULL), EINVAL, "SAMPLE_STOP");
	t_check(map(4096, PROT_READ, MAP_SHARED, 0) == MAP_FAILED &&
		errno == EINVAL, "mmap -> EINVAL");
	t_errno(setup(1, 0, 0, 0, NULL), EINVAL, "RING_SETUP with a flag");
	t_errno(setup(0, 3, 0, 0, NULL), EINVAL, "RING_SETUP of 3 pages");
	t_errno(setup(0, 32768, 0, 0, NULL), EINVAL,
		"RING_SETUP of 32768 pages (max 16384)");
	t_errno(setup(0, 8, 8 * 4096 + 8, 0, NULL), EINVAL,
		"RING_SETUP with a watermark beyond the ring");
	t_errno(setup(0, 0, 0, 1, NULL), EINVAL, "RING_SETUP with reserved set");
	t_check(setup(0, 8, 0, 0, &rs) == 0, "RING_SETUP of 8 pages");
	t_check(rs.nr_rings == (unsigned int)sysconf(_SC_NPROCESSORS_CONF) &&
		rs.data_size == 8 * 4096 && rs.mmap_size == 9 * 4096,
		"%u rings of %llu + 4096 bytes", rs.nr_rings,
		(unsigned long long)rs.data_size);
	t_errno(setup(0, 8, 0, 0, NULL), EBUSY, "RING_SETUP again");

	printf("# mmap\n");
	ms = rs.mmap_size;
	t_check(map(ms, PROT_READ, MAP_PRIVATE, 0) == MAP_FAILED &&
		errno == EINVAL, "private -> EINVAL");
	t_check(map(ms - 4096, PROT_READ, MAP_SHARED, 0) == MAP_FAILED &&
		errno == EINVAL, "short -> EINVAL");
	t_check(map(ms, PROT_READ, MAP_SHARED, 4096) == MAP_FAILED &&
		errno == EINVAL, "not at a ring's offset -> EINVAL");
	t_check(map(ms, PROT_READ, MAP_SHARED, rs.nr_rings * ms) ==
		MAP_FAILED && errno == EINVAL, "ring nr_rings -> EINVAL");
	t_check(map(ms, PROT_READ | PROT_EXEC, MAP_SHARED, 0) == MAP_FAILED &&
		errno == EPERM, "executable -> EPERM");
	p = map(ms, PROT_READ | PROT_WRITE, MAP_SHARED, (rs.nr_rings - 1) * ms);
	t_check(p != MAP_FAILED, "the last ring maps");
	if (p == MAP_FAILED)
		return t_done();
	ctl = p;
	t_check(ctl->data_size == rs.data_size && ctl->data_offset == 4096 &&
		ctl->cpu == rs.nr_rings - 1 && ctl->watermark == rs.data_size / 4 &&
		ctl->head == 0 && ctl->tail == 0,
		"its control page: size, offset, cpu, watermark (a quarter), empty");
	t_check(mprotect(p, ms, PROT_READ | PROT_EXEC) && errno == EACCES,
		"and it cannot be made executable");
	t_check(poll_events() == 0, "poll: nothing yet");

	printf("# SAMPLE_START\n");
	ss = req();
	ss->flags = 64;	/* after the flags of ABI 1.4 */
	t_errno(start(ss), EINVAL, "an unknown flag");
	ss = req();
	ss->clock_ns = LWPROF_CLOCK_MIN_NS - 1;
	t_errno(start(ss), EINVAL, "clock below 10 us");
	ss = req();
	ss->clock_ns = LWPROF_CLOCK_MAX_NS + 1;
	t_errno(start(ss), EINVAL, "clock above 1 s");
	ss = req();
	ss->max_depth = LWPROF_DEPTH_MAX + 1;
	t_errno(start(ss), EINVAL, "max_depth 1025");
	ss = req();
	ss->stack_bytes = 8200;
	t_errno(start(ss), EINVAL, "stack_bytes not a multiple of 64");
	ss = req();
	ss->stack_bytes = LWPROF_STACK_MAX + 64;
	t_errno(start(ss), EINVAL, "stack_bytes above 64 KiB");
	ss = req();
	ss->stack_bytes = 32768;
	t_errno(start(ss), EINVAL, "a sample larger than the 32 KiB ring");
	ss = req();
	ss->reserved[0] = 1;
	t_errno(start(ss), EINVAL, "reserved set");
	ss = req();
	ss->nr_counters = LWPROF_MAX_COUNTERS + 1;
	t_errno(start(ss), EINVAL, "9 counters");
	ss = req_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0);
	t_errno(start(ss), EINVAL, "a counter with interval 0");
	ss = req_counter(PERF_TYPE_TRACEPOINT, 1, 1);
	t_errno(start(ss), EINVAL, "a tracepoint counter");
	ss = req_counter(PERF_TYPE_SOFTWARE, 1000, 1);
	t_errno(start(ss), EINVAL, "an unknown software counter");
	ss = req_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1);
	ss->counters[0].flags = 1;
	t_errno(start(ss), EINVAL, "a counter with a flag");
	ss = req_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1);
	ss->counters[1].period = 1;
	t_errno(start(ss), EINVAL, "an unused counter slot not zero");
	t_errno(ioctl(fd, IOC_START_BAD_SIZE, req()), EINVAL,
		"SAMPLE_START's number with another size");
	t_errno(stop(NULL), EINVAL, "SAMPLE_STOP before SAMPLE_START");

	printf("# a run\n");
	t_check(start(req()) == 0, "a good SAMPLE_START works after all that");
	t_errno(start(req()), EINVAL, "SAMPLE_START again");
	t_check(stop(&st) == 0 && st.records >= 1 && st.lost == 0,
		"SAMPLE_STOP: %llu records (the sleeper's START at least), 0 lost",
		(unsigned long long)st.records);
	t_check(stop(&st) == 0, "SAMPLE_STOP again: nothing to do");
	t_errno(start(req()), EINVAL, "SAMPLE_START after SAMPLE_STOP");
	t_check(poll_events() & POLLIN,
		"poll: POLLIN once stopped with records left (none was read)");

	munmap(p, ms);
	close(fd);
	kill(c.pid, SIGKILL);
	waitpid(c.pid, NULL, 0);
	return lwr_test_end();
}
