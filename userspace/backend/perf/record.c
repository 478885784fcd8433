// SPDX-License-Identifier: GPL-2.0
/*
 * The perf_event_open record part of the perf backend (perf.h, docs/design/perf-backend.md),
 * for machines without lwprof.ko.  Per CPU, inherited by everything the
 * target creates (as perf record does): the clock (task-clock every -p
 * interval, with user and kernel call chains, the user registers and a
 * copy of the top of the user stack), the context-switch event sampled at
 * every switch-out where kernel sampling is allowed (the stack where
 * off-CPU time began), the -h counters, and the side-band records (fork,
 * exit, comm, exec mappings, PERF_RECORD_SWITCH).  All of a CPU's events
 * write into one perf ring; a thread of ours converts them (conv.c)
 * into lwprof rings of ours that the drain writes out, and wakes the loop
 * with an eventfd.  Permissions are perf's own: perf_event_paranoid,
 * CAP_PERFMON, ptrace access to the target.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libexp/format.h"
#include "userspace/backend/perf/perf.h"

#define PERF_DATA_PAGES	1024	/* per CPU: 4 MiB, halved while refused */
/*
 * ... for a user whose locked pages count (no CAP_IPC_LOCK): what the
 * rings of every CPU share (perf_event_mlock_kb a CPU, then
 * RLIMIT_MEMLOCK) must not go to the first CPUs alone.
 */
#define PERF_USER_PAGES	512
/* Its nice value where it may (CAP_SYS_NICE): runs soon when woken. */
#define PERF_CONV_NICE	(-10)
#define PERF_PASS_MS	1000	/* the converter's passes, or at a quarter ring */
#define PERF_HUP_MS	50	/* ... once a ring's owner has hung up */
#define PERF_STACK_MAX	65528	/* the most perf copies (below 64 KiB) */

static struct psrc *psrc(struct rec_source *s)
{
	return (struct psrc *)s;	/* s is its first member */
}

static int perf_open(struct perf_event_attr *a, int pid, int cpu, int group)
{
	int fd = syscall(SYS_perf_event_open, a, pid, cpu, group,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/* What perf's refusal err means here, into msg; returns err. */
static int refused(struct psrc *p, int err, const char *what, char *msg,
		   size_t len)
{
	const struct rec_opts *o = p->o;

	if ((err == -EACCES || err == -EPERM) && p->paranoid > 2)
		snprintf(msg, len, "perf_event_open refused %s: kernel.perf_event_paranoid is %d; set it to 2 or below (sysctl kernel.perf_event_paranoid=2), or run with CAP_PERFMON",
			 what, p->paranoid);
	else if ((err == -EACCES || err == -EPERM) && o->mode == MODE_MACHINE)
		snprintf(msg, len, "the whole machine (-a) needs CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid at 0 or below (it is %d)",
			 p->paranoid);
	else if ((err == -EACCES || err == -EPERM) && o->mode == MODE_ATTACH)
		lwprof_ptrace_refusal(o->pid, msg, len);
	else if (err == -EACCES || err == -EPERM)
		snprintf(msg, len, "perf_event_open refused %s (kernel.perf_event_paranoid is %d): run with CAP_PERFMON or set it lower",
			 what, p->paranoid);
	else if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		snprintf(msg, len, "perf_event_open: %s: not supported by this kernel or machine (see lwprof collect -h)",
			 what);
	else
		snprintf(msg, len, "perf_event_open: %s: %s", what, strerror(-err));
	return err;
}

static void base_attr(struct psrc *p, struct perf_event_attr *a, __u32 type,
		      __u64 config, __u64 period, bool kernel_chain)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_period = period;
	a->sample_type = p->sample_type;
	a->sample_regs_user = PERF_UREGS_MASK;
	a->sample_stack_user = p->stack_bytes;
	a->sample_max_stack = p->depth;
	a->exclude_kernel = !p->kernel;
	a->exclude_callchain_kernel = !(p->kernel && kernel_chain);
	a->exclude_hv = 1;
	a->disabled = 1;
	a->inherit = p->o->mode != MODE_MACHINE;
	a->enable_on_exec = p->o->mode == MODE_COMMAND;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/*
 * Can we sample here, and the kernel too?  Probed on ourselves: the
 * permission checks do not depend on the target (ptrace access is
 * checked at setup).
 */
static int probe(struct psrc *p, char *msg, size_t len)
{
	const struct rec_opts *o = p->o;
	struct perf_event_attr a;
	int fd;

	if (read_int("/proc/sys/kernel/perf_event_paranoid", &p->paranoid))
		p->paranoid = 2;
	p->kernel = true;
	base_attr(p, &a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		  1000000, true);
	fd = perf_open(&a, 0, -1, -1);
	if (fd == -EACCES || fd == -EPERM) {
		p->kernel = false;
		base_attr(p, &a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
			  1000000, false);
		fd = perf_open(&a, 0, -1, -1);
	}
	if (fd < 0)
		return refused(p, fd, "sampling", msg, len);
	close(fd);
	if (o->kstack && !p->kernel) {
		snprintf(msg, len, "kernel call stacks (-K) need CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid at 1 or below (it is %d)",
			 p->paranoid);
		return -EPERM;
	}
	if (o->mode == MODE_MACHINE) {
		base_attr(p, &a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			  1000000, true);
		fd = perf_open(&a, -1, 0, -1);
		if (fd < 0)
			return refused(p, fd, "the whole machine (-a)", msg, len);
		close(fd);
	}
	return 0;
}

static int perf_src_open(const struct rec_opts *o, struct rec_source **sp,
			 char *msg, size_t len)
{
	struct psrc *p = calloc(1, sizeof(*p));
	int max_stack = 127, err;

	if (!p)
		return -ENOMEM;
	p->s.ops = &perf_rec_ops;
	p->s.poll_fd = -1;
	p->o = o;
	p->evfd = p->wakefd = p->syncfd = -1;
	if ((o->idle_set && o->idle) || (o->irq_set && o->irq)) {
		snprintf(msg, len, "--idle and --irq need the lwprof module (the perf backend cannot record them); use --backend module");
		err = -EOPNOTSUPP;
		goto fail;
	}
	p->stack_bytes = o->stack_bytes < PERF_STACK_MAX ? o->stack_bytes :
			 PERF_STACK_MAX;
	read_int("/proc/sys/kernel/perf_event_max_stack", &max_stack);
	p->depth = o->depth < (__u32)max_stack ? o->depth : (__u32)max_stack;
	p->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			 PERF_SAMPLE_REGS_USER;
	if (p->stack_bytes)
		p->sample_type |= PERF_SAMPLE_STACK_USER;
	err = probe(p, msg, len);
	if (err)
		goto fail;
	p->switch_stacks = p->kernel && o->clock_ns;
	if (o->clock_ns)
		pwake_setup(p);
	if (p->kernel)
		pproc_futex(p);
	*sp = &p->s;
	return 0;
fail:
	free(p);
	return err;
}

static int add_fd(struct psrc *p, int fd)
{
	int *n;

	if (p->nr_fds == p->cap_fds) {
		p->cap_fds = p->cap_fds ? 2 * p->cap_fds : 64;
		n = realloc(p->fds, p->cap_fds * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->fds = n;
	}
	p->fds[p->nr_fds++] = fd;
	return 0;
}

static int add_id(struct psrc *p, int fd, __u16 role, __u16 counter)
{
	struct pev_id *n;
	__u64 id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	if (p->nr_ids == p->cap_ids) {
		p->cap_ids = p->cap_ids ? 2 * p->cap_ids : 64;
		n = realloc(p->ids, p->cap_ids * sizeof(*n));
		if (!n)
			return -ENOMEM;
		p->ids = n;
	}
	p->ids[p->nr_ids++] = (struct pev_id){ id, role, counter };
	return 0;
}

static size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* The pages each CPU's perf ring asks for. */
static size_t ring_pages(void)
{
	return geteuid() ? PERF_USER_PAGES : PERF_DATA_PAGES;
}

/* Map CPU c's perf ring, as large as this user may lock, up to max pages. */
static int map_cpu(struct psrc *p, struct pcpu *pc, size_t max)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages;
	void *m;

	for (pages = max; pages >= 8; pages /= 2) {
		pc->mmap_len = (pages + 1) * page;
		m = mmap(NULL, pc->mmap_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED, pc->fd, 0);
		if (m != MAP_FAILED) {
			pc->mp = m;
			return 0;
		}
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	return -errno;
}

/*
 * Open one event for (pid, cpu): its output goes to the CPU's ring (the
 * first event there owns it and is mapped).
 */
static int open_one(struct psrc *p, struct perf_event_attr *a, int pid,
		    unsigned int cpu, __u16 role, __u16 counter)
{
	struct pcpu *pc = &p->cpu[cpu];
	int fd = perf_open(a, pid, cpu, -1), err;

	if (fd < 0)
		return fd;
	err = add_fd(p, fd);
	if (err) {
		close(fd);
		return err;
	}
	err = add_id(p, fd, role, counter);
	if (err)
		return err;
	if (pc->fd < 0) {
		pc->fd = fd;
		err = map_cpu(p, pc, ring_pages());
		if (err || !a->watermark ||
		    a->wakeup_watermark <= (pc->mmap_len - page_size()) / 4)
			return err;
		/*
		 * The ring is smaller than its watermark assumed (the user's
		 * mlock limit): perf would wake us only once it was full.  Its
		 * owner again, with a quarter of what was mapped.
		 */
		munmap(pc->mp, pc->mmap_len);
		pc->mp = NULL;
		close(fd);
		p->nr_fds--;
		p->nr_ids--;
		a->wakeup_watermark = (pc->mmap_len - page_size()) / 4;
		pc->fd = -1;
		return open_one(p, a, pid, cpu, role, counter);
	}
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, pc->fd) < 0 ? -errno : 0;
}

/* Every event of target pid (or -1: all) on CPU cpu; -ENODEV: offline. */
static int open_cpu(struct psrc *p, int pid, unsigned int cpu, char *msg,
		    size_t len)
{
	const struct rec_opts *o = p->o;
	struct perf_event_attr a;
	unsigned int i;
	int err;

	/* The clock (or a dummy) carries the side-band records. */
	if (o->clock_ns)
		base_attr(p, &a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
			  o->clock_ns, o->kstack);
	else
		base_attr(p, &a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 1,
			  false);
	if (o->mode == MODE_MACHINE && o->clock_ns)
		a.config = PERF_COUNT_SW_CPU_CLOCK;
	/* mmap too: the kernel counts mmap (not mmap2) events to send any */
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = a.context_switch = 1;
	/*
	 * This event owns the CPU's ring: perf wakes the converter when a
	 * quarter of it is full, so that three quarters are left for the
	 * time it takes to run on a loaded machine (half a ring, perf's
	 * default, lost records at load 8 on two CPUs).
	 */
	a.watermark = 1;
	a.wakeup_watermark = ring_pages() * page_size() / 4;
	err = open_one(p, &a, pid, cpu, ROLE_CLOCK, 0);
	if (err)
		return err == -ENODEV ? err :
			refused(p, err, "the clock event", msg, len);
	if (p->switch_stacks) {
		/* Every switch-out, with its kernel chain (futex waits). */
		base_attr(p, &a, PERF_TYPE_SOFTWARE,
			  PERF_COUNT_SW_CONTEXT_SWITCHES, 1, true);
		err = open_one(p, &a, pid, cpu, ROLE_SWITCH, 0);
		if (err)
			return refused(p, err, "the context-switch event", msg,
				       len);
	}
	for (i = 0; i < o->nr_counters; i++) {
		base_attr(p, &a, o->counters[i].type, o->counters[i].config,
			  o->counters[i].period, o->kstack);
		err = open_one(p, &a, pid, cpu, ROLE_COUNTER, i);
		if (err) {
			char what[64];

			snprintf(what, sizeof(what), "counter %s",
				 o->counters[i].name);
			return refused(p, err, what, msg, len);
		}
	}
	return 0;
}

/* Open the events of every thread (tids; or pid itself) on every CPU. */
static int open_all(struct psrc *p, int pid, const int *tids, unsigned int n,
		    char *msg, size_t len)
{
	struct perf_event_attr a;
	unsigned int c, i, online = 0;
	int err;

	for (c = 0; c < p->nr_cpus; c++) {
		for (i = 0; i < (tids ? n : 1); i++) {
			err = open_cpu(p, tids ? tids[i] : pid, c, msg, len);
			if (err == -ENODEV)
				break;	/* an offline CPU: an empty file */
			if (err)
				return err;
		}
		if (!i)
			continue;
		online++;
		if (p->wake) {	/* every task's wake-ups on this CPU */
			pwake_attr(p, &a, p->wake_id);
			err = open_one(p, &a, -1, c, ROLE_WAKEUP, 0);
			if (err)
				return refused(p, err, "sched:sched_wakeup", msg,
					       len);
		}
		if (p->wake_new) {	/* new threads' first wake-ups */
			pwake_attr(p, &a, p->wnew_id);
			err = open_one(p, &a, -1, c, ROLE_WAKEUP_NEW, 0);
			if (err)
				return refused(p, err, "sched:sched_wakeup_new",
					       msg, len);
		}
		if (p->sched_switch) {	/* and its switches */
			pwake_attr(p, &a, p->sw_id);
			err = open_one(p, &a, -1, c, ROLE_SCHED_SWITCH, 0);
			if (err)
				return refused(p, err, "sched:sched_switch", msg,
					       len);
		}
	}
	if (!online)
		return refused(p, -ENODEV, "the clock event", msg, len);
	psrc_ids_sort(p);
	return 0;
}

static int perf_setup(struct rec_source *s, int pid, struct exp_writer *e,
		      char *msg, size_t len)
{
	struct psrc *p = psrc(s);
	const struct rec_opts *o = p->o;
	int *tids = NULL, err;
	unsigned int i, n = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	p->nr_cpus = ncpu > 0 ? ncpu : 1;
	/*
	 * Our rings fill in bursts (a pass converts up to a second of
	 * records, mostly delta copies): by default twice the module's.
	 */
	p->ring_pages = o->ring_pages_set ? o->ring_pages : 2 * o->ring_pages;
	p->cpu = calloc(p->nr_cpus, sizeof(*p->cpu));
	p->s.rings = calloc(p->nr_cpus, sizeof(*p->s.rings));
	if (!p->cpu || !p->s.rings)
		return -ENOMEM;
	for (i = 0; i < p->nr_cpus; i++) {
		p->cpu[i].fd = -1;
		err = pout_init(&p->cpu[i].out, (__u64)p->ring_pages * 4096);
		if (err)
			return err;
		p->s.rings[i] = (struct rec_ring){
			.data = p->cpu[i].out.data, .size = p->cpu[i].out.size,
			.head = &p->cpu[i].out.head, .tail = &p->cpu[i].out.tail,
		};
	}
	p->s.nr_rings = p->nr_cpus;
	err = pconv_create(p, &p->conv);
	if (err)
		return err;
	if (o->mode == MODE_ATTACH) {
		err = pproc_threads(p, pid, &tids, &n);
		if (err) {
			snprintf(msg, len, "process %d: %s", pid, strerror(-err));
			return err;
		}
	}
	err = open_all(p, o->mode == MODE_MACHINE ? -1 : pid, tids, n, msg,
		       len);
	p->pid = pid;
	free(tids);
	if (err)
		return err;
	p->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->syncfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->evfd < 0 || p->wakefd < 0 || p->syncfd < 0)
		return -errno;
	for (i = 0; i < p->nr_cpus; i++) {
		p->cpu[i].out.kick_fd = p->evfd;
		p->cpu[i].out.wait = true;
	}
	p->s.poll_fd = p->evfd;
	p->s.flush_ns = PERF_PASS_MS * 1000000ULL;
	p->s.abi_major = LWPROF_ABI_MAJOR;
	p->s.abi_minor = LWPROF_ABI_MINOR;
	err = perf_notes(p, e);
	if (err)
		snprintf(msg, len, EXP_LOG ": %s", strerror(-err));
	return err;
}

/*
 * What exists when the recording starts, which perf reports only as it
 * changes: read from /proc after the enable and stamped p->start_ns, before
 * the converter's first pass (it owns the threads' clocks).  A thread that
 * execs, renames itself, maps or exits during the scan has a perf record
 * later than start_ns, and the analyzer takes the latest by time; one that
 * exited before we read it (gone, or a zombie) is left out.
 */
static void synth(struct psrc *p)
{
	__u64 t0 = perf_now_ns();

	if (p->o->mode == MODE_MACHINE) {
		pproc_synth_all(p);
	} else if (p->o->mode == MODE_ATTACH) {
		int n = pproc_synth_pid(p, p->pid);

		p->synth_procs = n > 0;
		p->synth_threads = n > 0 ? n : 0;
	}
	p->synth_ns = perf_now_ns() - t0;
}

/*
 * The converter: wake when a perf ring is a quarter full, on stop
 * (wakefd) or every PERF_PASS_MS.  Every wake-up of ours or of the loop
 * takes the workload's CPU (and a context-switch sample, with its stack)
 * on a busy machine: so passes are rare, and each one that wrote records
 * wakes the drain right away, which then runs in the same gap (the
 * loop's own timed flush, every PERF_PASS_MS too, is only a fallback).
 * Once woken it must run before perf's rings fill: at load 8 on two CPUs
 * a thread of nice 0 waited up to 130 ms, so it raises its priority
 * where it may (PERF_CONV_NICE); a pass takes about a millisecond.  A
 * ring whose first event is gone (its task exited: POLLHUP) is left out
 * of the poll, which would otherwise return at once, again and again; the
 * threads it inherited to may still write there, so from then on passes
 * are every PERF_HUP_MS.
 */
static void *converter(void *arg)
{
	struct psrc *p = arg;
	struct pollfd *pfd = calloc(p->nr_cpus + 1, sizeof(*pfd));
	unsigned int i, n = 0;
	int req, timeout = PERF_PASS_MS;
	eventfd_t v;

	for (i = 0; pfd && i < p->nr_cpus; i++)
		if (p->cpu[i].fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = p->cpu[i].fd,
						    .events = POLLIN };
	if (pfd)
		pfd[n++] = (struct pollfd){ .fd = p->wakefd, .events = POLLIN };
	setpriority(PRIO_PROCESS, syscall(SYS_gettid), PERF_CONV_NICE);
	synth(p);
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		if (pfd && poll(pfd, n, timeout) > 0) {
			for (i = 0; i + 1 < n; i++) {
				if (pfd[i].revents & (POLLHUP | POLLERR)) {
					pfd[i].fd = -1;
					timeout = PERF_HUP_MS;
				}
			}
		} else if (!pfd) {
			usleep(PERF_PASS_MS * 1000);
		}
		eventfd_read(p->wakefd, &v);	/* stop, or perf_sync() */
		/* A pass that begins after the request answers it. */
		req = __atomic_exchange_n(&p->sync_req, 0, __ATOMIC_ACQ_REL);
		if (pconv_pass(p->conv, false, 0))
			eventfd_write(p->evfd, 1);
		/*
		 * The pass's records are in our rings (their heads stored
		 * with release) before perf_sync() reads this eventfd.
		 */
		if (req)
			eventfd_write(p->syncfd, 1);
	}
	free(pfd);
	return NULL;
}

/*
 * A flight recorder's snapshot is about to be taken: the converter makes
 * a pass now rather than up to PERF_PASS_MS later (records younger than
 * its hold stay), and we wait for it, a second at most.
 */
static void perf_sync(struct rec_source *s)
{
	struct psrc *p = psrc(s);
	struct pollfd pfd = { .fd = p->syncfd, .events = POLLIN };
	eventfd_t v;

	if (!p->thread_on)
		return;
	__atomic_store_n(&p->sync_req, 1, __ATOMIC_RELEASE);
	eventfd_write(p->wakefd, 1);
	if (poll(&pfd, 1, 1000) > 0)
		eventfd_read(p->syncfd, &v);
}

static int perf_start(struct rec_source *s, char *msg, size_t len)
{
	struct psrc *p = psrc(s);
	unsigned int i;
	int err;

	if (p->o->mode != MODE_COMMAND) {
		for (i = 0; i < p->nr_fds; i++)
			if (ioctl(p->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
				return refused(p, -errno, "enabling", msg, len);
	}
	/*
	 * After the enable: whatever changes from here on has a perf record
	 * (fork, comm, mmap2, exit) later than this, so it wins over what the
	 * converter reads from /proc and stamps with this time (converter()).
	 */
	p->start_ns = perf_now_ns();
	err = pthread_create(&p->thread, NULL, converter, p);
	if (err) {
		snprintf(msg, len, "the converter thread: %s", strerror(err));
		return -err;
	}
	pthread_setname_np(p->thread, "lwprof-perf");
	p->thread_on = true;
	return 0;
}

static void perf_stop(struct rec_source *s, struct exp_writer *e)
{
	struct psrc *p = psrc(s);
	struct ptotals t;
	unsigned int i;
	__u64 end;

	for (i = 0; i < p->nr_fds; i++)
		ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	end = perf_now_ns();
	if (p->thread_on) {
		__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
		eventfd_write(p->wakefd, 1);
		pthread_join(p->thread, NULL);
		p->thread_on = false;
	}
	for (i = 0; i < p->nr_cpus; i++)	/* the drain waits for us */
		p->cpu[i].out.wait = false;
	pconv_pass(p->conv, true, end);
	eventfd_write(p->evfd, 1);
	e->records = e->lost = 0;
	for (i = 0; i < p->nr_cpus; i++) {
		e->records += p->cpu[i].out.records;
		e->lost += p->cpu[i].out.lost + p->cpu[i].perf_lost;
	}
	pconv_totals(p->conv, &t);
	exp_note(e, EXP_K_PERF_SAMPLES, "%llu", (unsigned long long)t.samples);
	exp_note(e, EXP_K_PERF_SWITCHES, "%llu", (unsigned long long)t.switches);
	if (p->wake)
		exp_note(e, EXP_K_PERF_WAKEUPS, "%llu",
			 (unsigned long long)t.wakeups);
	if (p->o->mode != MODE_COMMAND)
		exp_note(e, EXP_K_PERF_PROC_SCAN, "%u threads of %u processes in %.1f ms",
			 p->synth_threads, p->synth_procs, p->synth_ns / 1e6);
	if (t.perf_lost)
		exp_warn(e, "perf lost %llu records (its ring was full): microstates of the threads concerned are approximate; use a longer interval",
			 (unsigned long long)t.perf_lost);
	if (t.wake_unseen)
		exp_warn(e, "%llu wake-ups had no sched:sched_wakeup sample: the waits for a CPU after them are in Sleep or User Lock",
			 (unsigned long long)t.wake_unseen);
	if (t.throttled)
		exp_warn(e, "perf throttled sampling %llu times (kernel.perf_event_max_sample_rate)",
			 (unsigned long long)t.throttled);
}

static void perf_finish(struct rec_source *s, struct exp_writer *e)
{
	struct psrc *p = psrc(s);
	unsigned int i;

	for (i = 0; i < p->nr_cpus; i++) {
		e->lost_file[i] = p->cpu[i].out.lost + p->cpu[i].perf_lost;
		if (p->cpu[i].out.lost)
			exp_warn(e, "%llu records lost on CPU %u (ring full): use a larger -m or a longer interval",
				 (unsigned long long)p->cpu[i].out.lost, i);
	}
}

static void perf_close(struct rec_source *s)
{
	struct psrc *p = psrc(s);
	unsigned int i;

	if (!p)
		return;
	if (p->thread_on) {
		__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
		eventfd_write(p->wakefd, 1);
		pthread_join(p->thread, NULL);
	}
	pconv_destroy(p->conv);
	for (i = 0; p->cpu && i < p->nr_cpus; i++) {
		if (p->cpu[i].mp)
			munmap(p->cpu[i].mp, p->cpu[i].mmap_len);
		free(p->cpu[i].wrap);
		pout_free(&p->cpu[i].out);
	}
	for (i = 0; i < p->nr_fds; i++)
		close(p->fds[i]);
	if (p->evfd >= 0)
		close(p->evfd);
	if (p->wakefd >= 0)
		close(p->wakefd);
	if (p->syncfd >= 0)
		close(p->syncfd);
	free(p->fds);
	free(p->ids);
	free(p->cpu);
	free(p->s.rings);
	free(p);
}

const struct rec_ops perf_rec_ops = {
	.name = "perf",
	.open = perf_src_open,
	.setup = perf_setup,
	.start = perf_start,
	.sync = perf_sync,
	.stop = perf_stop,
	.finish = perf_finish,
	.close = perf_close,
};
