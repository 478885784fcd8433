// SPDX-License-Identifier: GPL-2.0
/*
 * The record part of the module backend (module.h): a sampling session on
 * /dev/lwprof, its per-CPU rings mapped (docs/design/abi.md), the device's poll
 * for the rings' watermark, the threads' usage from LWPROF_IOC_READ_USAGE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libexp/format.h"
#include "userspace/backend/module/module.h"

struct msrc {
	struct rec_source s;
	const struct rec_opts *o;
	int devfd;
	struct lwprof_abi_version abi;
	struct lwprof_ring_setup rs;
	unsigned int nr_maps;
	struct lwprof_ring_ctl **ctl;	/* the mappings, one per ring */
	__u32 ss_flags;			/* SAMPLE_START's, from the options */
	const char *dropped;		/* a default the module cannot do */
};

static struct msrc *msrc(struct rec_source *s)
{
	return (struct msrc *)s;	/* s is its first member */
}

static const char *module_strerror(int err)
{
	switch (err) {
	case -ENOENT:
	case -EOPNOTSUPP:
		return "the module cannot count one of the -h counters here (see lwprof collect -h)";
	case -ENOMEM:
		return "out of memory for the rings (try a smaller -m)";
	case -EPROTO:
		return "the module's rings are not what ABI 1.1 describes";
	default:
		return strerror(-err);
	}
}

/* "what: why" into msg; returns err. */
static int say(int err, const char *what, char *msg, size_t len)
{
	snprintf(msg, len, "%s: %s", what, module_strerror(err));
	return err;
}

static void module_close(struct rec_source *s)
{
	struct msrc *m = msrc(s);
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->nr_maps; i++)
		munmap(m->ctl[i], m->rs.mmap_size);
	if (m->devfd >= 0)
		close(m->devfd);
	free(m->ctl);
	free(m->s.rings);
	free(m);
}

/*
 * The ABI 1.4 session flags of whole-machine kernel profiling
 * (docs/design/kernel-profiling.md) that o asks for, and that the module can do:
 * what the user asked for explicitly and it cannot is an error (-ENOTSUP,
 * msg), a default it cannot do is left out (m->dropped says which).
 */
static int kernel_flags(struct msrc *m, char *msg, size_t len)
{
	static const struct {
		__u64 feat;
		__u32 flag;
		const char *what;
	} need[] = {
		{ LWPROF_FEAT_KONLY, LWPROF_SS_KONLY, "--kernel-only: it has no LWPROF_FEAT_KONLY" },
		{ LWPROF_FEAT_IDLE, LWPROF_SS_IDLE, "idle time (--idle): it has no LWPROF_FEAT_IDLE" },
		{ LWPROF_FEAT_IRQ, LWPROF_SS_IRQ, "interrupt time apart (--irq): it has no LWPROF_FEAT_IRQ" },
	};
	const struct rec_opts *o = m->o;
	__u32 want = 0, asked = 0;
	unsigned int i;

	if (o->konly)
		want |= asked |= LWPROF_SS_KONLY;
	if (o->idle)
		want |= LWPROF_SS_IDLE;
	if (o->idle && o->idle_set)
		asked |= LWPROF_SS_IDLE;
	if (o->irq)
		want |= LWPROF_SS_IRQ;
	if (o->irq && o->irq_set)
		asked |= LWPROF_SS_IRQ;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!(want & need[i].flag) || (m->abi.features & need[i].feat))
			continue;
		if (asked & need[i].flag) {
			snprintf(msg, len, "the loaded lwprof module (ABI %u.%u) cannot record %s (ABI 1.4's)",
				 m->abi.major, m->abi.minor, need[i].what);
			return -EOPNOTSUPP;
		}
		want &= ~need[i].flag;
		m->dropped = need[i].what;
	}
	/* off-CPU stacks with -K; a module without them sends none */
	if (o->kstack && (m->abi.features & LWPROF_FEAT_KBLOCK))
		want |= LWPROF_SS_OFFCPU;
	m->ss_flags = want;
	return 0;
}

static int module_open(const struct rec_opts *o, struct rec_source **sp,
		       char *msg, size_t len)
{
	struct msrc *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	m->s.ops = &module_rec_ops;
	m->s.poll_fd = -1;
	m->o = o;
	m->devfd = lwprof_dev_open();
	if (m->devfd < 0) {
		err = m->devfd;
		snprintf(msg, len, "%s", lwprof_dev_strerror(err));
		goto fail;
	}
	err = lwprof_dev_abi(m->devfd, &m->abi);
	if (!err && !(m->abi.features & LWPROF_FEAT_SAMPLE)) {
		snprintf(msg, len, "the loaded lwprof module cannot sample (no LWPROF_FEAT_SAMPLE; it is older than ABI 1.1)");
		err = -EOPNOTSUPP;
	} else if (err) {
		snprintf(msg, len, "%s", lwprof_dev_strerror(err));
	}
	if (!err)
		err = kernel_flags(m, msg, len);
	if (err)
		goto fail;
	*sp = &m->s;
	return 0;
fail:
	module_close(&m->s);
	return err;
}

/* Map ring i: its control page, then its data. */
static int map_ring(struct msrc *m, unsigned int i)
{
	struct lwprof_ring_ctl *ctl;
	void *p = mmap(NULL, m->rs.mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, m->devfd, (off_t)i * m->rs.mmap_size);

	if (p == MAP_FAILED)
		return -errno;
	ctl = m->ctl[m->nr_maps++] = p;
	if (!ctl->data_size || (ctl->data_size & (ctl->data_size - 1)) ||
	    ctl->data_offset + ctl->data_size > m->rs.mmap_size)
		return -EPROTO;	/* not the ring the ABI describes */
	m->s.rings[i] = (struct rec_ring){
		.data = (unsigned char *)p + ctl->data_offset,
		.size = ctl->data_size,
		.head = &ctl->head,
		.tail = &ctl->tail,
	};
	return 0;
}

static int map_rings(struct msrc *m)
{
	unsigned int i;
	int err;

	m->ctl = calloc(m->rs.nr_rings, sizeof(*m->ctl));
	m->s.rings = calloc(m->rs.nr_rings, sizeof(*m->s.rings));
	if (!m->ctl || !m->s.rings)
		return -ENOMEM;
	for (i = 0; i < m->rs.nr_rings; i++) {
		err = map_ring(m, i);
		if (err)
			return err;
	}
	m->s.nr_rings = m->rs.nr_rings;
	return 0;
}

/* What log.txt says of the module and its rings. */
static int notes(struct msrc *m, struct exp_writer *e)
{
	static const struct {
		__u32 flag;
		enum exp_key key;
	} keys[] = {	/* format 1.3: the session's flags */
		{ LWPROF_SS_OFFCPU, EXP_K_OFFCPU }, { LWPROF_SS_IDLE, EXP_K_IDLE },
		{ LWPROF_SS_IRQ, EXP_K_IRQ }, { LWPROF_SS_KONLY, EXP_K_KERNEL_ONLY },
	};
	unsigned int i;
	int err;

	if (m->dropped)
		exp_warn(e, "the loaded lwprof module (ABI %u.%u) cannot record %s (ABI 1.4's): left out",
			 m->abi.major, m->abi.minor, m->dropped);
	err = exp_note(e, EXP_K_BACKEND, "module");
	if (!err)
		err = exp_note(e, EXP_K_STACK_DELTA, "%d", !m->o->no_sdelta &&
		       !!(m->abi.features & LWPROF_FEAT_SDELTA));
	for (i = 0; !err && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (m->ss_flags & keys[i].flag)
			err = exp_note(e, keys[i].key, "1");
	if (!err)
		err = exp_note(e, EXP_K_RING_PAGES, "%u", m->rs.data_pages);
	if (!err)
		err = exp_note(e, EXP_K_ABI, "%u.%u", m->abi.major, m->abi.minor);
	if (!err)
		err = exp_note(e, EXP_K_MODULE_VERSION, "%.*s",
			       (int)sizeof(m->abi.module_version),
			       m->abi.module_version);
	return err;
}

static int module_setup(struct rec_source *s, int pid, struct exp_writer *e,
			char *msg, size_t len)
{
	struct msrc *m = msrc(s);
	const struct rec_opts *o = m->o;
	__u32 flags = 0;
	int err;

	/*
	 * The whole machine includes the recorder, as perf record -a does:
	 * its time is part of every CPU's, which must add up to elapsed.
	 */
	if (o->mode == MODE_MACHINE)
		flags = LWPROF_ATTACH_MACHINE;
	else if (o->mode == MODE_COMMAND &&
		   (m->abi.features & LWPROF_FEAT_EXEC)) {
		/* The child's wait for the go is ours: count from its exec. */
		flags = LWPROF_ATTACH_EXEC;
	}
	err = lwprof_session_attach(m->devfd, flags, pid);
	if (err) {
		lwprof_session_strerror(err, flags, pid, msg, len);
		return err;
	}
	err = collect_ring_setup(m->devfd, o->ring_pages, o->ring_pages_set,
				 &m->rs, msg, len);
	if (err)
		return err == -EPERM || err == -EDQUOT ? err :
			say(err, "LWPROF_IOC_RING_SETUP", msg, len);
	err = map_rings(m);
	if (err)
		return say(err, "mapping the rings", msg, len);
	err = notes(m, e);
	if (err)
		return say(err, EXP_LOG, msg, len);
	m->s.poll_fd = m->devfd;
	m->s.abi_major = m->abi.major;
	m->s.abi_minor = m->abi.minor;
	return 0;
}

static int module_start(struct rec_source *s, char *msg, size_t len)
{
	struct msrc *m = msrc(s);
	const struct rec_opts *o = m->o;
	struct lwprof_sample_start ss;
	unsigned int i;

	memset(&ss, 0, sizeof(ss));
	ss.flags = (o->kstack ? LWPROF_SS_KSTACK : 0) | m->ss_flags;
	/* An older module sends full copies only. */
	if (!o->no_sdelta && (m->abi.features & LWPROF_FEAT_SDELTA))
		ss.flags |= LWPROF_SS_SDELTA;
	ss.max_depth = o->depth;
	ss.clock_ns = o->clock_ns;
	ss.stack_bytes = o->stack_bytes;
	ss.nr_counters = o->nr_counters;
	for (i = 0; i < o->nr_counters; i++) {
		ss.counters[i].type = o->counters[i].type;
		ss.counters[i].config = o->counters[i].config;
		ss.counters[i].period = o->counters[i].period;
	}
	if (!ioctl(m->devfd, LWPROF_IOC_SAMPLE_START, &ss))
		return 0;
	if (errno == EPERM && o->kstack) {
		snprintf(msg, len, "kernel call stacks (-K) need CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid at 1 or below");
		return -EPERM;
	}
	/* ABI 1.7: perf_event_open()'s own rules for the -h counters */
	if (errno == EACCES && o->nr_counters) {
		snprintf(msg, len, "-h: the kernel refuses this user counters, as it would refuse perf: kernel.perf_event_paranoid is 3 or more (CAP_SYS_ADMIN only) or a security module says no; record without -h, or with CAP_SYS_ADMIN");
		return -EACCES;
	}
	if (errno == EDQUOT) {
		snprintf(msg, len, "the scratch space for these stacks is more locked memory than this user may use now (kernel.perf_event_mlock_kb per CPU, then ulimit -l): a smaller --stack-bytes or --depth, fewer sessions, or CAP_IPC_LOCK");
		return -EDQUOT;
	}
	return say(-errno, "LWPROF_IOC_SAMPLE_START", msg, len);
}

static void module_stop(struct rec_source *s, struct exp_writer *e)
{
	struct msrc *m = msrc(s);
	struct lwprof_sample_stop ss;

	memset(&ss, 0, sizeof(ss));
	if (ioctl(m->devfd, LWPROF_IOC_SAMPLE_STOP, &ss) < 0)
		exp_warn(e, "LWPROF_IOC_SAMPLE_STOP: %s", strerror(errno));
	e->records = ss.records;
	e->lost = ss.lost;
}

static int module_usage(struct rec_source *s, struct lwprof_usage_set *u)
{
	int err = lwprof_usage_read(msrc(s)->devfd, u);

	/* Out of memory to add threads: the set keeps what it had. */
	return err == -ENOMEM ? 0 : err;
}

static void module_finish(struct rec_source *s, struct exp_writer *e)
{
	struct msrc *m = msrc(s);
	unsigned int i;
	bool cut;

	/* Rings cut to what this user may lock grow only with the right. */
	cut = m->rs.data_pages < m->o->ring_pages;
	for (i = 0; i < m->s.nr_rings; i++) {
		e->lost_file[i] = __atomic_load_n(&m->ctl[i]->lost,
						  __ATOMIC_RELAXED);
		if (e->lost_file[i])
			exp_warn(e, "%llu records lost on CPU %u (ring full): use %s or a longer interval",
				 (unsigned long long)e->lost_file[i], i, cut ?
				 "CAP_IPC_LOCK for rings larger than this user may lock" :
				 "a larger -m");
	}
}

const struct rec_ops module_rec_ops = {
	.name = "module",
	.open = module_open,
	.setup = module_setup,
	.start = module_start,
	.stop = module_stop,
	.usage = module_usage,
	.finish = module_finish,
	.close = module_close,
};
