// SPDX-License-Identifier: GPL-2.0
/*
 * PREEMPT_RT's threaded interrupts: a device's handler runs in its
 * irq/N-name kernel thread, and that is the thread's SYSTEM time, not
 * TRAP of the thread the interrupt came to.  Skips where interrupts are
 * not threaded (a kernel without PREEMPT_RT: /sys/kernel/realtime).
 *
 * A child reads a file of the test's own on the 9p share tests/out
 * (mounted without a cache: every read is a virtio request and its
 * completion a device interrupt) for 2 s, under a machine session with
 * interrupt packets (LWPROF_SS_IRQ, kernel stacks, idle packets).  The
 * truths: the share's virtio device (its mount_tag), its interrupt and
 * that interrupt's count in /proc/interrupts, its thread (the kernel
 * names it irq/N-...), the thread's run time by /proc/PID/schedstat, and
 * the kernel's own split of a forced-threaded interrupt: the hard part is
 * irq_default_primary_handler, which wakes the thread; the device's
 * handler (vring_interrupt, or virtio-pci's vp_interrupt or
 * vp_vring_interrupt where vectors are shared) runs in the thread.
 *  - the reads raised the device's interrupt at least 100 times;
 *  - the irq thread: no USER time, SYSTEM more than TRAP (TRAP is only
 *    the hard interrupts it took while it ran), and its USER+SYS+TRAP+
 *    WAIT_CPU at least its run time by schedstat over a window inside
 *    the module's (the run queue's clock may charge the time from its
 *    wakeup to its switch-in as run time: mstate_cpu says why);
 *  - hard interrupt packets (TRAP of whatever thread, or idle task, the
 *    interrupt came to): some name irq_default_primary_handler as their
 *    handler, none the device's handler;
 *  - no softirq packets: softirqs run in threads, as their System.
 */
#include <dirent.h>

#include "ksyms.h"
#include "ring.h"
#include "test.h"

#define CHUNK	(1 << 20)
#define FILE_MB	4

static const char *const dev_handlers[] = {
	"vring_interrupt", "vp_interrupt", "vp_vring_interrupt",
};

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, len, f);

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The 9p tag of the mount holding path (the longest match); -1 if none. */
static int share_tag(const char *path, char *tag, size_t len)
{
	char src[256], mnt[4096], type[64];
	size_t best = 0;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", src, mnt, type) == 3) {
		size_t n = strlen(mnt);

		if (strcmp(type, "9p") || n <= best || strncmp(path, mnt, n) ||
		    (path[n] && path[n] != '/'))
			continue;
		best = n;
		snprintf(tag, len, "%s", src);
	}
	fclose(f);
	return best ? 0 : -1;
}

/* The virtio device (virtioN) whose 9p mount_tag is tag. */
static int virtio_of_tag(const char *tag, char *dev, size_t len)
{
	DIR *d = opendir("/sys/bus/virtio/devices");
	struct dirent *e;
	char path[512], t[256];
	int ret = -1;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/mount_tag",
			 e->d_name);
		if (read_line(path, t, sizeof(t)) || strcmp(t, tag))
			continue;
		snprintf(dev, len, "%s", e->d_name);
		ret = 0;
	}
	if (d)
		closedir(d);
	return ret;
}

/*
 * The interrupt of dev's request queue in /proc/interrupts (an action
 * named "virtioN-requests", or "virtioN" alone where its vectors are
 * shared) and its count over every CPU; -1 if none.
 */
static int dev_irq(const char *dev, uint64_t *count)
{
	char line[4096], want[64], want2[64];
	FILE *f = fopen("/proc/interrupts", "r");
	int irq = -1;

	snprintf(want, sizeof(want), " %s-requests", dev);
	snprintf(want2, sizeof(want2), " %s\n", dev);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = line;
		uint64_t sum = 0;
		int n;

		if (sscanf(line, " %d:", &n) != 1 ||
		    (!strstr(line, want) && !strstr(line, want2)))
			continue;
		p = strchr(line, ':') + 1;
		for (;;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		irq = n;
		*count = sum;
		break;
	}
	if (f)
		fclose(f);
	return irq;
}

/* The kernel thread of interrupt irq: comm "irq/IRQ-...". */
static pid_t irq_thread(int irq, char *comm, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300], c[64], want[32];
	pid_t pid = -1;

	snprintf(want, sizeof(want), "irq/%d-", irq);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (read_line(path, c, sizeof(c)) ||
		    strncmp(c, want, strlen(want)))
			continue;
		pid = atoi(e->d_name);
		snprintf(comm, len, "%s", c);
		break;
	}
	if (d)
		closedir(d);
	return pid;
}

/* /proc/PID/schedstat: run time (ns) and times run. */
static int schedstat(pid_t pid, uint64_t *run, uint64_t *slices)
{
	char path[64], line[256];
	unsigned long long r, w, n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%llu %llu %llu", &r, &w, &n) != 3)
		return -1;
	*run = r;
	*slices = n;
	return 0;
}

static char file[4200];

/* The child: read the file again and again for 2 s; exit 0 if it did. */
static int reader(void *arg)
{
	static char buf[CHUNK];
	uint64_t end = lwr_now() + 2000000000ULL;
	int fd = open(file, O_RDONLY);
	long n = 0;

	if (fd < 0)
		return 1;
	while (lwr_now() < end) {
		ssize_t got = pread(fd, buf, CHUNK, (n % FILE_MB) * (off_t)CHUNK);

		if (got != CHUNK)
			return 2;
		n++;
	}
	close(fd);
	return n > 0 ? 0 : 3;
}

static void write_file(void)
{
	static char buf[CHUNK];
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memset(buf, 'x', sizeof(buf));
	for (int i = 0; fd >= 0 && i < FILE_MB; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			t_fatal(file);
	if (fd < 0 || close(fd))
		t_fatal(file);
}

static int dev_handler(const struct ks_table *k, uint64_t addr)
{
	const char *name = ks_name(k, addr);

	for (unsigned int i = 0; i < sizeof(dev_handlers) / sizeof(*dev_handlers); i++)
		if (!strcmp(name, dev_handlers[i]))
			return 1;
	return 0;
}

static uint64_t ms_of(const struct lwprof_thread_usage *a,
		      const struct lwprof_thread_usage *b, int m)
{
	return b->mstate_ns[m] - a->mstate_ns[m];
}

int main(void)
{
	uint64_t irq0 = 0, irq1 = 0, run0, run1, sl0, sl1, run, oncpu;
	unsigned int hard = 0, primary = 0, devh = 0, soft = 0;
	const struct lwprof_thread_usage *a, *b;
	struct lwr_usage u0 = { 0 }, u1 = { 0 };
	struct lwprof_thread_usage t0, t1;
	struct lwprof_sample_start ss;
	char rt[16], tag[256], dev[256], comm[64];
	const struct lwprof_rec *rec;
	const char *dir;
	struct ks_table k;
	struct lwr_child c;
	struct lwr r;
	pid_t ipid;
	int irq, ret, st;

	if (read_line("/sys/kernel/realtime", rt, sizeof(rt)) || strcmp(rt, "1"))
		t_skip("not a PREEMPT_RT kernel: interrupt handlers are not threaded");
	lwr_test_begin();
	if (ks_load(&k))
		t_skip("no kernel addresses in /proc/kallsyms");
	dir = t_dir("mstate_irqthread");
	if (share_tag(dir, tag, sizeof(tag)) || virtio_of_tag(tag, dev, sizeof(dev)))
		t_skip("tests/out is not a virtio 9p share");
	snprintf(file, sizeof(file), "%s/data", dir);
	write_file();
	irq = dev_irq(dev, &irq0);
	t_check(irq >= 0, "%s (9p %s): its interrupt in /proc/interrupts (%d)",
		dev, tag, irq);
	if (irq < 0)
		return t_done();
	ipid = irq_thread(irq, comm, sizeof(comm));
	t_check(ipid > 0, "interrupt %d has its thread: %s (%d)", irq,
		ipid > 0 ? comm : "none", ipid);
	if (ipid <= 0)
		return t_done();

	ret = lwr_open(&r, LWPROF_ATTACH_MACHINE, 0, 1024);
	if (ret) {
		errno = -ret;
		t_fatal("machine session");
	}
	lwr_clock_req(&ss, 10000000, 0);
	ss.flags = LWPROF_SS_KSTACK | LWPROF_SS_IDLE | LWPROF_SS_IRQ;
	ret = lwr_start(&r, &ss);
	if (ret) {
		errno = -ret;
		t_fatal("SAMPLE_START with LWPROF_SS_IRQ");
	}
	if (lwr_spawn(&c, reader, NULL))
		t_fatal("fork");
	/*
	 * The module's window holds schedstat's: nothing is printed inside
	 * it (the test's output goes to the same share).
	 */
	if (lwr_usage_read(&r, &u0) < 0 || schedstat(ipid, &run0, &sl0) ||
	    dev_irq(dev, &irq0) != irq)
		t_fatal("readings before");
	lwr_go(&c);
	st = lwr_wait(&r, &c);
	if (dev_irq(dev, &irq1) != irq || schedstat(ipid, &run1, &sl1) ||
	    lwr_usage_read(&r, &u1) < 0)
		t_fatal("readings after");
	if (lwr_stop(&r, NULL))
		t_fatal("SAMPLE_STOP");
	t_check(WIFEXITED(st) && !WEXITSTATUS(st), "the reader read %s (%#x)",
		file, st);
	t_check(irq1 - irq0 >= 100, "the reads raised interrupt %d %llu times",
		irq, (unsigned long long)(irq1 - irq0));

	a = lwr_usage_tid(&u0, ipid);
	b = lwr_usage_tid(&u1, ipid);
	t_check(a && b, "%s (%d) in the machine session", comm, ipid);
	if (!a || !b)
		return t_done();
	t0 = *a;
	t1 = *b;
	run = run1 - run0;
	oncpu = ms_of(&t0, &t1, LWPROF_MS_USER) +
		ms_of(&t0, &t1, LWPROF_MS_SYSTEM) +
		ms_of(&t0, &t1, LWPROF_MS_TRAP);
	printf("# %s: schedstat %.3f ms in %llu runs; lwprof USER %.3f SYSTEM %.3f TRAP %.3f WAIT_CPU %.3f ms\n",
	       comm, run / 1e6, (unsigned long long)(sl1 - sl0),
	       ms_of(&t0, &t1, LWPROF_MS_USER) / 1e6,
	       ms_of(&t0, &t1, LWPROF_MS_SYSTEM) / 1e6,
	       ms_of(&t0, &t1, LWPROF_MS_TRAP) / 1e6,
	       ms_of(&t0, &t1, LWPROF_MS_WAIT_CPU) / 1e6);
	t_check(run > 0 && sl1 > sl0, "%s ran (schedstat: %.3f ms, %llu times)",
		comm, run / 1e6, (unsigned long long)(sl1 - sl0));
	t_check(ms_of(&t0, &t1, LWPROF_MS_USER) == 0, "%s: no USER time", comm);
	t_check(ms_of(&t0, &t1, LWPROF_MS_SYSTEM) >
		ms_of(&t0, &t1, LWPROF_MS_TRAP),
		"%s: SYSTEM %.3f ms more than TRAP %.3f ms", comm,
		ms_of(&t0, &t1, LWPROF_MS_SYSTEM) / 1e6,
		ms_of(&t0, &t1, LWPROF_MS_TRAP) / 1e6);
	/* The clocks: 100 ppm + 2 us apart at most (tests/lib/mstate.sh). */
	t_check(oncpu + ms_of(&t0, &t1, LWPROF_MS_WAIT_CPU) + 2000 + run / 10000 >=
		run, "%s: USER+SYS+TRAP+WAIT_CPU %.3f ms at least its run time %.3f ms",
		comm, (oncpu + ms_of(&t0, &t1, LWPROF_MS_WAIT_CPU)) / 1e6,
		run / 1e6);

	for (struct lwr_iter it = { 0 }; (rec = lwr_iter_next(&r, &it));) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		if (rec->type != LWPROF_REC_SAMPLE)
			continue;
		if (rec->flags & LWPROF_RS_SOFTIRQ)
			soft++;
		if (!(rec->flags & LWPROF_RS_HARDIRQ) || !s->nr_kernel)
			continue;
		hard++;
		primary += !strcmp(ks_name(&k, lwr_kips(s)[0]),
				   "irq_default_primary_handler");
		if (dev_handler(&k, lwr_kips(s)[0])) {
			if (!devh++) {
				printf("# a hard interrupt packet in the device's handler:");
				for (unsigned int i = 0; i < s->nr_kernel && i < 8; i++)
					printf(" %s", ks_name(&k, lwr_kips(s)[i] - !!i));
				printf("\n");
			}
		}
	}
	t_check(primary > 0,
		"hard interrupt packets of irq_default_primary_handler, the hard part (%u of %u)",
		primary, hard);
	t_check(devh == 0, "no hard interrupt packet of the device's handler (%u of %u)",
		devh, hard);
	t_check(soft == 0, "no softirq packets (%u)", soft);
	t_check(lwr_lost(&r) == 0 && lwr_check(&r) == 0,
		"nothing lost, whole records");
	free(u0.u);
	free(u1.u);
	lwr_close(&r);
	unlink(file);
	rmdir(dir);
	return lwr_test_end();
}
