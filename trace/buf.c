// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing library's per-thread buffers and the records written into
 * them (trace.h, docs/design/tracing.md): the hot path of every traced call.
 *
 * Each thread appends to its own buffer (mmap'd when the thread first
 * traces a call, TR_BUF bytes) and writes it out with one write() to the
 * process's file (O_APPEND: a write of whole records lands whole) when
 * the next record would not fit, when the thread ends, before fork and
 * exec, and at exit (the exiting thread writes out every thread's).
 * Buffers are on a list that only grows (a buffer of an ended thread is
 * taken by the next new thread); flushing takes the buffer's flag, which
 * only flushes contend for.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

#define TR_BUF		(1u << 20)	/* per thread */

struct tr_thread {
	struct tr_thread *next;		/* the list: only grows */
	int used;			/* taken by a live thread */
	int lock;			/* the tid of the flush writing it; 0 */
	pid_t tid;
	uint64_t stack_top;		/* copies end here; 0: unknown */
	struct tr_stack_base base;	/* of the stack copies' deltas */
	struct tr_stab *stab;		/* the heap calls' stacks (stackid.c) */
	uint32_t len;			/* bytes in buf (the owner's; release) */
	uint32_t done;			/* bytes of buf written out (under lock) */
	uint8_t *buf;
};

static __thread struct tr_thread *tr_self TR_TLS;

extern void *__libc_stack_end;

/*
 * Write out what t holds past what was written.  Only its owner empties
 * it (reset, when it holds no room or at fork): another thread (exit)
 * writes up to the length the owner last published and leaves the rest,
 * so an append under way stays whole.  A range is claimed (done) before
 * its write: a fatal signal's flush on this thread (tr_flush_dying),
 * which interrupts this never to return, writes what is past it, once.
 */
static void flush_locked(struct tr_thread *t, bool reset)
{
	uint32_t len = __atomic_load_n(&t->len, __ATOMIC_ACQUIRE), from;
	ssize_t n;

	while (t->done < len && tr.fd >= 0) {
		from = t->done;
		/* the claim before the write, for a handler on this thread */
		__atomic_store_n(&t->done, len, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		n = tr_raw_write(tr.fd, t->buf + from, len - from);
		if (n < 0 && errno == EINTR) {
			t->done = from;
			continue;
		}
		if (n <= 0)
			break;	/* the experiment's disk: nothing better to do */
		t->done = from + n;
	}
	t->done = len;
	if (reset) {
		/* length first: a handler here must not see done 0 of len */
		__atomic_store_n(&t->len, 0, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->done = 0;
	}
}

/* Take t's flag: the writer's tid (a fatal signal's flush asks whose). */
static void flush(struct tr_thread *t, bool reset)
{
	int zero, me = gettid();

	for (;;) {
		zero = 0;
		if (__atomic_compare_exchange_n(&t->lock, &zero, me, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		sched_yield();
	}
	flush_locked(t, reset);
	__atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

void tr_flush_all(void)
{
	struct tr_thread *t;

	for (t = __atomic_load_n(&tr.threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->used, __ATOMIC_ACQUIRE))
			flush(t, t == tr_self);
}

/* This thread's buffer out and emptied (before fork, after the last record). */
void tr_flush_self(void)
{
	if (tr_self)
		flush(tr_self, true);
}

#define TR_DYING_TRIES	20000	/* sched_yield()s for a flag another holds */

/*
 * A fatal signal (signal.c): every thread's buffer out, from a handler,
 * the process about to end.  Async-signal-safe: system calls and
 * atomics only; no waiting on what this thread's interrupted code holds
 * (a flush under way here: its claim tells what is left), a bounded
 * wait for what another thread holds (it is writing that buffer out).
 * The first thread here flushes; one that comes while it does waits for
 * it (bounded), so the process does not end in the middle.
 */
void tr_flush_dying(void)
{
	static int dying;	/* the flushing thread's tid; -1 once done */
	struct tr_thread *t;
	int me = gettid(), zero = 0, i;

	if (!__atomic_compare_exchange_n(&dying, &zero, me, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < TR_DYING_TRIES && zero > 0 && zero != me; i++) {
			sched_yield();
			zero = __atomic_load_n(&dying, __ATOMIC_ACQUIRE);
		}
		return;
	}
	for (t = __atomic_load_n(&tr.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		bool mine = __atomic_load_n(&t->lock, __ATOMIC_ACQUIRE) == me;

		if (!__atomic_load_n(&t->used, __ATOMIC_ACQUIRE))
			continue;
		for (i = 0; !mine && i < TR_DYING_TRIES; i++) {
			zero = 0;
			if (__atomic_compare_exchange_n(&t->lock, &zero, me, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
			sched_yield();
		}
		if (!mine && i == TR_DYING_TRIES)
			continue;	/* its writer is still at it */
		flush_locked(t, false);
		if (!mine)
			__atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
	}
	tr_heapsum_dying();	/* the heap's counts, after the stacks they name */
	__atomic_store_n(&dying, -1, __ATOMIC_RELEASE);
}

/* The stack's end of the calling thread, for the copies' bound. */
static uint64_t stack_top(pid_t tid)
{
	pthread_attr_t a;
	size_t size;
	void *addr;

	if (tid == tr.pid)
		return (uint64_t)__libc_stack_end;
	if (pthread_getattr_np(pthread_self(), &a))
		return 0;
	if (pthread_attr_getstack(&a, &addr, &size))
		size = 0;
	pthread_attr_destroy(&a);
	return size ? (uint64_t)addr + size : 0;
}

/* This thread's buffer: a free one of the list, or a new one. */
static struct tr_thread *thread_get(uint64_t top)
{
	struct tr_thread *t;
	int zero;

	for (t = __atomic_load_n(&tr.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		zero = 0;
		if (__atomic_compare_exchange_n(&t->used, &zero, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (!t) {
		t = mmap(NULL, TR_BUF + 4096 + LWPROF_STACK_MAX, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
		t->buf = (uint8_t *)t + 4096;
		t->base.bytes = t->buf + TR_BUF;
		t->used = 1;
		t->next = __atomic_load_n(&tr.threads, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&tr.threads, &t->next, t, false,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
	t->tid = gettid();
	t->len = t->done = 0;
	t->base.have = 0;	/* a new thread's first copy is whole */
	tr_stab_reset(t->stab);	/* its stack ids are its own */
	t->stack_top = top ? top : stack_top(t->tid);
	tr_self = t;
	return t;
}

/* This thread's buffer, its stack ending at top (0: ask); false: none. */
bool tr_thread_get(uint64_t top)
{
	return tr_self || thread_get(top);
}

bool tr_thread_have(void)
{
	return tr_self;
}

/* The calling thread's id, as its buffer knows it. */
pid_t tr_thread_tid(void)
{
	return tr_self ? tr_self->tid : gettid();
}

/* The thread ends: its buffer out, and free for the next new thread. */
void tr_thread_put(void)
{
	struct tr_thread *t = tr_self;

	if (!t)
		return;
	flush(t, true);
	tr_self = NULL;
	__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
}

/*
 * In a forked child: the parent writes out what its threads' buffers
 * hold; the child's thread keeps its own, emptied, under its new tid.
 */
void tr_thread_after_fork(void)
{
	struct tr_thread *t;

	for (t = tr.threads; t; t = t->next) {
		t->lock = 0;
		t->len = t->done = 0;
		t->base.have = 0;	/* the bases are in the parent's file */
		tr_stab_reset(t->stab);	/* ... and the stacks */
		if (t != tr_self)
			t->used = 0;
	}
	if (tr_self)
		tr_self->tid = gettid();
}

/* Room for n bytes in this thread's buffer (NULL: no buffer). */
static uint8_t *reserve(size_t n)
{
	struct tr_thread *t = tr_self;

	if (!t && !(t = thread_get(0)))
		return NULL;
	if (t->len + n > TR_BUF)
		flush(t, true);
	return t->buf + t->len;
}

static void commit(size_t n)
{
	/* the record before its length: another thread's flush reads it */
	__atomic_store_n(&tr_self->len, tr_self->len + n, __ATOMIC_RELEASE);
	if (tr.exiting)
		flush(tr_self, true);
}

uint8_t *tr_reserve(size_t n)
{
	return reserve(n);
}

void tr_commit(size_t n)
{
	commit(n);
}

/*
 * A trace call record (libexp/trace.h): the fields that are not 0 (nor
 * implied: a start equal to the return, a ret equal to bytes), the
 * microstates if the caller has them, the stack part.
 */
void tr_emit(const struct tr_ev *ev, uint64_t *regs)
{
	tr_emit_after(NULL, 0, ev, regs);
}

void tr_emit_after(const void *pre, size_t npre, const struct tr_ev *ev,
		   uint64_t *regs)
{
	uint64_t sp = regs ? regs[EXP_TR_RSP] : 0, top, r[EXP_TR_NR_REGS];
	__u64 *f;
	struct exp_rec_tcall *t;
	uint8_t *p;
	uint32_t copy = 0;
	uint16_t flags = 0;
	bool delta;

	if (!tr_self && !thread_get(0))
		return;
	if (regs) {
		top = tr_self->stack_top;
		copy = tr_conf.stack_bytes;
		if (top > sp && top - sp < copy)
			copy = top - sp;
		else if (top <= sp)
			copy = 0;	/* unknown or foreign stack: registers only */
		copy &= ~7U;
	}
	p = reserve(npre + sizeof(*t) + 8 * __builtin_popcount(EXP_TCF_FIELDS) +
		    (ev->ms ? 8 * LWPROF_MS_COUNT : 0) +
		    (regs ? tr_stack_room(copy) : 0));
	if (!p)
		return;
	memcpy(p, pre, npre);
	t = (struct exp_rec_tcall *)(p + npre);
	f = t->fields;
	if (ev->start != ev->end) {
		*f++ = ev->start;
		flags |= EXP_TCF_START;
	}
	if (ev->addr) {
		*f++ = ev->addr;
		flags |= EXP_TCF_ADDR;
	}
	if (ev->addr2) {
		*f++ = ev->addr2;
		flags |= EXP_TCF_ADDR2;
	}
	if (ev->bytes) {
		*f++ = ev->bytes;
		flags |= EXP_TCF_BYTES;
	}
	if (ev->ret && (uint64_t)ev->ret == ev->bytes) {
		flags |= EXP_TCF_RET_BYTES;
	} else if (ev->ret) {
		*f++ = ev->ret;
		flags |= EXP_TCF_RET;
	}
	if (ev->ms) {
		memcpy(f, ev->ms, 8 * LWPROF_MS_COUNT);
		f += LWPROF_MS_COUNT;
		flags |= EXP_TCF_MS;
	}
	if (regs) {
		/*
		 * The array lies in the interposed function's frame, inside
		 * the copy: zeroed, it is the same bytes every call (a delta
		 * skips it) and the record has its values.
		 */
		memcpy(r, regs, sizeof(r));
		memset(regs, 0, sizeof(r));
		copy = tr_stack_copy(&tr_self->base, r, copy, (uint8_t *)f, &delta);
		f = (__u64 *)((uint8_t *)f + copy);	/* its bytes */
		flags |= EXP_TCF_STACK | (delta ? EXP_TCF_DELTA : 0);
	}
	t->hdr.type = EXP_REC_TCALL;
	t->hdr.flags = flags;
	t->hdr.size = (uint8_t *)f - (uint8_t *)t;
	t->event = ev->event;
	t->cpu = sched_getcpu();
	t->pid = tr.pid;
	t->tid = tr_self->tid;
	t->fd = ev->fd;
	t->time_ns = ev->end;
	if (npre)	/* the outer record holds this one */
		((struct lwprof_rec *)p)->size = npre + t->hdr.size;
	commit(npre + t->hdr.size);
}

/*
 * A heap call (heapsum.c counts it): an allocation with its stack's id,
 * the stack defined first in this thread's records if it is new.
 */
void tr_emit_heap(uint16_t event, uint64_t addr, uint64_t addr2,
		  uint64_t bytes, bool alloc)
{
	struct tr_thread *t;
	uint64_t now;
	uint32_t id;

	if (!tr_self && !thread_get(0))
		return;
	t = tr_self;
	if (alloc) {
		tr_live_prefetch(addr);	/* while the stack is walked */
		if (!t->stab)
			t->stab = tr_stab_new();
		id = tr_stack_id(t->stab, event);
		now = tr_now();
		if (addr2)	/* realloc: its old block ends as the new one is made */
			tr_heapsum_free(event, addr2, 0, now);
		/* no memory for its stack: as if made untraced (its free too) */
		if (id)
			tr_heapsum_alloc(event, addr, bytes, id, now);
	} else {
		tr_heapsum_free(event, addr, bytes, tr_now());
	}
	if (tr.exiting)	/* after the last flush: out at once */
		tr_heapsum_flush();
}

void tr_emit_file(int fd, const char *path)
{
	size_t len = strnlen(path, PATH_MAX - 1), size;
	struct exp_rec_trace_file *f;

	size = sizeof(*f) + ((len + 8) & ~7UL);
	f = (struct exp_rec_trace_file *)reserve(size);
	if (!f || !len)
		return;
	memset(f, 0, size);
	f->hdr.type = EXP_REC_TRACE_FILE;
	f->hdr.size = size;
	f->time_ns = tr_now();
	f->pid = tr.pid;
	f->fd = fd;
	memcpy(f->path, path, len);
	commit(size);
}
