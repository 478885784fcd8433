/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl half of tests/guest/fuzz_ioctl.c: a deterministic random
 * generator, the arguments of one /dev/lwprof ioctl (a command, a pointer,
 * the struct it points to) and the errors that command may return.
 *
 * What may come back is read off kmod/ioctl.c: a type byte that is not
 * ours or a number we do not know is -ENOTTY and nothing else; one of our
 * numbers with the wrong size or direction is -EINVAL; a pointer the
 * struct cannot be copied from is -EFAULT (before the command runs); a
 * pointer it cannot be copied back to is -EFAULT after the command ran.
 * Each command adds its own (docs/design/abi.md); SAMPLE_START with counters adds
 * what perf_event_create_kernel_counter() may say (no PMU: -ENOENT, ...).
 * -EBADF is always allowed: other threads close and reopen the files.
 */
#ifndef LWPROF_FUZZ_IOC_H
#define LWPROF_FUZZ_IOC_H

#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

#include "lwprof.h"

/* xorshift64*: one state per thread, seeded from the run's seed. */
static inline uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* splitmix64: a well-spread seed from (seed, index). */
static inline uint64_t fz_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return (x ^ (x >> 31)) | 1;
}

static inline uint64_t fz_below(uint64_t *s, uint64_t n)
{
	return n ? fz_rand(s) % n : 0;
}

#define FZ_PICK(s, arr) ((arr)[fz_below((s), sizeof(arr) / sizeof((arr)[0]))])

typedef unsigned __int128 fz_errset;
#define FZ_E(e) ((fz_errset)1 << (e))

/* The commands, with what each may return besides the common ones. */
static const struct fz_cmd {
	const char *name;
	unsigned int cmd;
	fz_errset errs;
} fz_cmds[] = {
	{ "ABI_VERSION", LWPROF_IOC_ABI_VERSION, FZ_E(EINVAL) },
	/*
	 * 1.7: EACCES (user_access), EUSERS (user_sessions); EDQUOT (the
	 * locked-memory budget), ESRCH (a session taken over by root's);
	 * EACCES at SAMPLE_START: counters at perf_event_paranoid 3.
	 */
	{ "ATTACH", LWPROF_IOC_ATTACH, FZ_E(EINVAL) | FZ_E(EPERM) |
	  FZ_E(ESRCH) | FZ_E(EBUSY) | FZ_E(ENOMEM) | FZ_E(EACCES) |
	  FZ_E(EUSERS) },
	{ "READ_USAGE", LWPROF_IOC_READ_USAGE, FZ_E(EINVAL) | FZ_E(ENOMEM) },
	{ "RING_SETUP", LWPROF_IOC_RING_SETUP, FZ_E(EINVAL) | FZ_E(EPERM) |
	  FZ_E(EBUSY) | FZ_E(ENOMEM) | FZ_E(EDQUOT) | FZ_E(ESRCH) },
	{ "SAMPLE_START", LWPROF_IOC_SAMPLE_START, FZ_E(EINVAL) |
	  FZ_E(EPERM) | FZ_E(ENOMEM) | FZ_E(EDQUOT) | FZ_E(ESRCH) |
	  FZ_E(EACCES) },
	{ "SAMPLE_STOP", LWPROF_IOC_SAMPLE_STOP, FZ_E(EINVAL) },
	/* 1.5: a new descriptor (its number returned), a slot (its index) */
	{ "USTATE_OPEN", LWPROF_IOC_USTATE_OPEN, FZ_E(EINVAL) | FZ_E(ENOMEM) |
	  FZ_E(EMFILE) | FZ_E(ENFILE) },
	{ "USTATE_CLAIM", LWPROF_IOC_USTATE_CLAIM, FZ_E(EINVAL) |
	  FZ_E(ESRCH) | FZ_E(ENOSPC) | FZ_E(ENOMEM) },
};
#define FZ_NCMDS (sizeof(fz_cmds) / sizeof(fz_cmds[0]))

/* What command cmd may return besides the common errors. */
static inline fz_errset fz_errs(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < FZ_NCMDS; i++)
		if (fz_cmds[i].cmd == cmd)
			return fz_cmds[i].errs;
	return 0;
}

/* perf_event_create_kernel_counter()'s refusals of a counter. */
#define FZ_PERF_ERRS (FZ_E(ENOENT) | FZ_E(EOPNOTSUPP) | FZ_E(EACCES) | \
		      FZ_E(E2BIG) | FZ_E(ENODEV) | FZ_E(EINVAL))

/*
 * Where an argument points.  GOOD and MISALIGNED are the thread's own
 * writable buffer; STRADDLE ends in an inaccessible page; RDONLY can be
 * read but not written; the others cannot be read at all.
 */
enum fz_ptr_kind {
	FZ_P_GOOD, FZ_P_MISALIGNED, FZ_P_STRADDLE, FZ_P_RDONLY, FZ_P_NULL,
	FZ_P_LOW, FZ_P_TOP, FZ_P_NONCANON, FZ_P_KTEXT, FZ_P_KDIRECT,
	FZ_P_MINUS1, FZ_P_RANDOM, FZ_P_KINDS
};

static const char *const fz_ptr_names[FZ_P_KINDS] = {
	"good", "misaligned", "straddle", "rdonly", "NULL", "low", "top",
	"noncanonical", "ktext", "kdirect", "-1", "random",
};

/* A thread's buffers: two writable pages, then one inaccessible. */
struct fz_bufs {
	unsigned char *rw;	/* FZ_BUF_RW bytes, then a PROT_NONE page */
	unsigned char *ro;	/* one page, PROT_READ between fills */
};
#define FZ_BUF_RW	8192
#define FZ_USAGE_OFF	512	/* READ_USAGE's records after the struct */
#define FZ_USAGE_FIT	((FZ_BUF_RW - FZ_USAGE_OFF) / \
			 sizeof(struct lwprof_thread_usage))

/* Pointers no user copy can succeed on: none of them is ever mapped. */
static inline uintptr_t fz_bad_ptr(uint64_t *s, enum fz_ptr_kind k)
{
	switch (k) {
	case FZ_P_NULL: return 0;
	case FZ_P_LOW: return 0x1000 + fz_below(s, 0xe000);	/* < mmap_min_addr */
	case FZ_P_TOP: return 0x7ffffffff000ULL + fz_below(s, 0x1000);
	case FZ_P_NONCANON: return 0x0000800000000000ULL + fz_below(s, 1 << 20);
	case FZ_P_KTEXT: return 0xffffffff81000000ULL + fz_below(s, 1 << 24);
	case FZ_P_KDIRECT: return 0xffff888000000000ULL + fz_below(s, 1 << 30);
	case FZ_P_MINUS1: return ~(uintptr_t)0 - fz_below(s, 16);
	default: return (fz_rand(s) | 0x8000000000000000ULL);	/* kernel half */
	}
}

/* Pids worth attaching to; filled by the worker. */
struct fz_pids {
	int self, parent, helper, helper_tid, zombie;
};

static inline int32_t fz_pid(uint64_t *s, const struct fz_pids *p)
{
	static const int32_t odd[] = { 0, -1, 1, 2, INT32_MAX, INT32_MIN,
				       4194305, 99999 };

	switch (fz_below(s, 8)) {
	case 0: return p->self;
	case 1: case 2: return p->helper;
	case 3: return p->helper_tid;
	case 4: return p->zombie;
	case 5: return p->parent;
	case 6: return 1 + fz_below(s, 400);
	default: return FZ_PICK(s, odd);
	}
}

/* Fill a plausible struct for command i into buf, then maybe spoil it. */
static inline void fz_fill(uint64_t *s, unsigned int i, void *buf,
			   const struct fz_pids *pids, uintptr_t usage_buf)
{
	static const uint32_t pages[] = { 0, 1, 2, 4, 8, 16, 64, 128, 256, 3,
					  16384, 32768, 0xffffffff };
	static const uint64_t clocks[] = { 0, 1000000, 10000000, 100000000,
					   9999, 1000000000, 1000000001,
					   ~0ULL };
	static const uint32_t depths[] = { 0, 1, 16, 256, 1024, 1025, ~0U };
	static const uint32_t stacks[] = { 0, 64, 8192, 65536, 65600, 63,
					   ~0U };
	static const uint32_t types[] = { PERF_TYPE_SOFTWARE,
		PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE,
		PERF_TYPE_RAW, PERF_TYPE_TRACEPOINT, PERF_TYPE_BREAKPOINT, 77 };
	static const uint64_t periods[] = { 1, 1000, 1000000, 0,
					    1ULL << 63, ~0ULL };
	size_t size = _IOC_SIZE(fz_cmds[i].cmd);
	unsigned int n;

	memset(buf, 0, size);
	switch (fz_cmds[i].cmd) {
	case LWPROF_IOC_ATTACH: {
		struct lwprof_attach *a = buf;
		static const uint32_t fl[] = { 0, 0, 0, LWPROF_ATTACH_EXEC,
			LWPROF_ATTACH_MACHINE, LWPROF_ATTACH_MACHINE |
			LWPROF_ATTACH_EXCLUDE_SELF, LWPROF_ATTACH_EXCLUDE_SELF,
			8, ~0U };

		a->flags = FZ_PICK(s, fl);
		a->pid = a->flags & LWPROF_ATTACH_MACHINE &&
			 fz_below(s, 4) ? 0 : fz_pid(s, pids);
		break;
	}
	case LWPROF_IOC_READ_USAGE: {
		struct lwprof_usage_read *r = buf;
		static const uint32_t counts[] = { 0, 1, FZ_USAGE_FIT,
			FZ_USAGE_FIT + 1, LWPROF_READ_MAX, LWPROF_READ_MAX + 1,
			~0U };

		r->buf = fz_below(s, 4) ? usage_buf :
			 fz_bad_ptr(s, FZ_P_NULL + fz_below(s, 8));
		/* A huge count costs the module a 13 MiB buffer: rarely. */
		r->count = fz_below(s, 16) ? fz_below(s, FZ_USAGE_FIT + 2) :
			   fz_below(s, 2) ? FZ_PICK(s, counts) :
			   (uint32_t)fz_rand(s);
		break;
	}
	case LWPROF_IOC_RING_SETUP: {
		struct lwprof_ring_setup *r = buf;

		/* Mostly small: many sessions live at once in 2 GiB. */
		r->data_pages = fz_below(s, 64) ? FZ_PICK(s, pages) % 512 :
				FZ_PICK(s, pages);
		if (fz_below(s, 4) == 0)
			r->watermark = fz_below(s, 2) ? fz_below(s, 1 << 20) :
				       (uint32_t)fz_rand(s);
		break;
	}
	case LWPROF_IOC_SAMPLE_START: {
		struct lwprof_sample_start *r = buf;

		r->flags = fz_below(s, 8) ? fz_below(s, 4) : fz_rand(s);
		r->max_depth = FZ_PICK(s, depths);
		r->clock_ns = FZ_PICK(s, clocks);
		r->stack_bytes = FZ_PICK(s, stacks);
		r->nr_counters = fz_below(s, 2) ? 0 : fz_below(s, 10);
		for (n = 0; n < r->nr_counters && n < LWPROF_MAX_COUNTERS; n++) {
			r->counters[n].type = FZ_PICK(s, types);
			r->counters[n].config = fz_below(s, 4) ?
						fz_below(s, 12) : fz_rand(s);
			r->counters[n].period = FZ_PICK(s, periods);
		}
		break;
	}
	case LWPROF_IOC_USTATE_CLAIM:	/* the caller puts a mapping there */
		((struct lwprof_ustate_claim *)buf)->area =
			fz_below(s, 2) ? fz_bad_ptr(s, FZ_P_RANDOM) : fz_rand(s);
		break;
	default:	/* ABI_VERSION, SAMPLE_STOP, USTATE_OPEN: all zero */
		break;
	}
	/*
	 * One time in eight, a random byte anywhere (reserved fields too) but
	 * in READ_USAGE's buf: the module would write the records wherever it
	 * then pointed, a thread's stack say (bad pointers are chosen above).
	 */
	if (fz_below(s, 8) == 0) {
		uint64_t keep = ((struct lwprof_usage_read *)buf)->buf;

		((unsigned char *)buf)[fz_below(s, size)] = fz_rand(s);
		if (fz_cmds[i].cmd == LWPROF_IOC_READ_USAGE)
			((struct lwprof_usage_read *)buf)->buf = keep;
	}
}

/*
 * A command that is not one of ours: of our type with a number we do not
 * know, or of a type the VFS does not handle itself either (FIOCLEX,
 * FIFREEZE, FS_IOC_*, ... are answered before the driver sees them).
 */
static inline unsigned int fz_foreign_cmd(uint64_t *s)
{
	unsigned int type, cmd;

	if (fz_below(s, 2))
		return _IOC(fz_below(s, 4), LWPROF_IOC_MAGIC,
			    FZ_NCMDS + fz_below(s, 256 - FZ_NCMDS),
			    fz_below(s, 3) ? fz_below(s, 1024) :
			    fz_below(s, _IOC_SIZEMASK + 1));
	do {
		cmd = fz_rand(s);
		type = _IOC_TYPE(cmd);
	} while (type == LWPROF_IOC_MAGIC || type == 'X' || type == 'f' ||
		 type == 'T' || type == 0x94 || type == 0 || type == 0x12);
	return cmd;
}

/* One of our numbers with a size or direction that is not its own. */
static inline unsigned int fz_badsize_cmd(uint64_t *s, unsigned int i)
{
	unsigned int good = fz_cmds[i].cmd, cmd;

	do {
		unsigned int size = _IOC_SIZE(good);

		switch (fz_below(s, 3)) {
		case 0: size += 8 * (fz_below(s, 2) ? 1 : -1); break;
		case 1: size = fz_below(s, _IOC_SIZEMASK + 1); break;
		default: break;
		}
		cmd = _IOC(fz_below(s, 4), LWPROF_IOC_MAGIC, _IOC_NR(good),
			   size & _IOC_SIZEMASK);
	} while (cmd == good);
	return cmd;
}

#endif
