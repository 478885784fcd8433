/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liblwprof_trace.so, the tracing library collect -s/-H/-i preloads into
 * the target (docs/design/tracing.md).  core.c: the configuration, the
 * per-thread buffers, the records and the process's life (threads, fork,
 * exec, exit); heap.c, sync.c, io.c: the interposed calls.
 *
 * The hot path of a traced call: one thread-local flag (tr_in) keeps the
 * library out of itself (calls it makes, a signal handler's calls while it
 * appends, the allocations of dlsym), the call's registers are taken by
 * TR_REGS in the interposed function itself (so the analyzer's DWARF
 * unwinding starts there, with that function's CFI), and tr_emit()
 * appends one record to the thread's buffer: no lock, no system call
 * until the buffer is full.
 */
#ifndef LWPROF_TRACE_H
#define LWPROF_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "lwprof.h"
#include "libexp/trace.h"

#define TR_API	__attribute__((visibility("default")))
#define TR_TLS	__attribute__((tls_model("initial-exec")))

/* What collect asked for (LWPROF_TRACE), set once at load. */
#define TR_HEAP		0x1
#define TR_SYNC		0x2
#define TR_IO		0x4
#define TR_OMP		0x8	/* the OMPT tool (ompt/) */
#define TR_MPI		0x10	/* MPI calls: the MPI library's (trace/mpi.c) */

struct tr_conf {
	unsigned int kinds;		/* TR_* */
	bool no_tasks;			/* the module records tasks and mappings */
	uint64_t sync_ns;		/* waits shorter than this are not recorded */
	uint32_t stack_bytes;		/* the most stack copied per event */
};

extern struct tr_conf tr_conf;

#define TR_MAPS_MAX	1024		/* executable mappings remembered */

/* The process's state (core.c): set at load and in a forked child. */
struct tr_proc {
	int fd;				/* trace.PID.rec, or -1 */
	uint64_t maps[TR_MAPS_MAX];	/* starts of the mappings recorded */
	unsigned int nmaps;
	int maps_lock;
	pid_t pid;
	char dir[PATH_MAX];
	struct tr_thread *threads;	/* buf.c's buffers */
	bool exiting;			/* after the final flush: write at once */
};

extern struct tr_proc tr;

static inline ssize_t tr_raw_write(int fd, const void *p, size_t n)
{
	return syscall(SYS_write, fd, p, n);
}

/*
 * buf.c: the calling thread's buffer.  tr_thread_get() makes it (its
 * stack ending at top, 0: ask), tr_thread_put() writes it out and frees
 * it (the thread ends); tr_reserve() gives room for n bytes (NULL: no
 * buffer) and tr_commit() publishes the record made there.
 */
struct tr_thread;
bool tr_thread_get(uint64_t top);
bool tr_thread_have(void);
pid_t tr_thread_tid(void);
void tr_thread_put(void);
void tr_thread_after_fork(void);
uint8_t *tr_reserve(size_t n);
void tr_commit(size_t n);
void tr_flush_self(void);
void tr_flush_all(void);
extern __thread int tr_in TR_TLS;	/* inside the library: do not trace */

/*
 * One traced call: the record's fields (libexp/trace.h).  ms: the
 * module's microstates over the call (LWPROF_MS_COUNT ns), or NULL.
 */
struct tr_ev {
	uint16_t event;
	int32_t fd;
	uint64_t start, end, addr, addr2, bytes;
	int64_t ret;
	const uint64_t *ms;
};

static inline uint64_t tr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * mstate.c: the module's microstates over a traced call, where it
 * accounts the process.  tr_clock_start() and tr_clock_end() read the clock at a
 * call's start and end (its t0 and t1), and with it the microstates;
 * tr_ms_delta() gives those over (t0, t1] into ms[LWPROF_MS_COUNT], if
 * both readings were this call's (false: none).  Calls that do not want
 * them (heap) read the clock with tr_now().
 */
void tr_ms_open(void);
bool tr_ms_mapped(void);	/* the module accounts the process */
void tr_ms_after_fork(void);
uint64_t tr_clock_start(void);
uint64_t tr_clock_end(void);
bool tr_ms_delta(uint64_t t0, uint64_t t1, uint64_t *ms);
/*
 * For spans that nest or pause (the OMPT tool's waits), which keep their
 * own readings: the clock into *t and the microstates into
 * v[LWPROF_MS_COUNT] (true: v is this thread's); tr_ms_sub() gives
 * those over a span of span ns from two readings.
 */
bool tr_clock_ms(uint64_t *t, uint64_t *v);
void tr_ms_sub(const uint64_t *v0, const uint64_t *v1, uint64_t span,
	       uint64_t *ms);

/*
 * May this call of kind k be traced?  Then tr_in is set: tr_leave()
 * after.  Not while the library runs on this thread (its own calls, a
 * signal handler that interrupted it) or before it is set up.
 */
static inline bool tr_enter(unsigned int k)
{
	if (!(tr_conf.kinds & k) || tr_in)
		return false;
	tr_in = 1;
	return true;
}

static inline void tr_leave(void)
{
	tr_in = 0;
}

/*
 * The registers the analyzer's unwinding needs (libexp/trace.h,
 * EXP_TR_NR_REGS: rbx, rbp, rsp, r12-r15, rip), with rip at this point
 * of the interposed function and rsp its stack: its CFI says how to find
 * its caller from here.
 */
#define TR_REGS(r)							\
	__asm__ volatile("movq %%rbx, 0(%0)\n\t"			\
			 "movq %%rbp, 8(%0)\n\t"			\
			 "movq %%rsp, 16(%0)\n\t"			\
			 "movq %%r12, 24(%0)\n\t"			\
			 "movq %%r13, 32(%0)\n\t"			\
			 "movq %%r14, 40(%0)\n\t"			\
			 "movq %%r15, 48(%0)\n\t"			\
			 "leaq 0(%%rip), %%rax\n\t"			\
			 "movq %%rax, 56(%0)"				\
			 : : "r"(r) : "rax", "memory")

/* A thread's last whole stack copy: the base of its deltas (stack.c). */
struct tr_stack_base {
	uint64_t regs[EXP_TR_NR_REGS];
	uint32_t size, deltas;
	uint32_t excess;	/* bytes of the deltas since, beyond small ones */
	uint16_t num;		/* its number (struct exp_tstack.base) */
	int have;
	uint8_t *bytes;		/* LWPROF_STACK_MAX */
};

/* The most bytes of a stack part of size bytes of stack (a delta is less). */
static inline size_t tr_stack_room(uint32_t size)
{
	return sizeof(struct exp_tstack) + 8 * EXP_TR_NR_REGS + size;
}

uint32_t tr_stack_copy(struct tr_stack_base *b, const uint64_t *regs,
		       uint32_t size, uint8_t *out, bool *delta);

/*
 * Append the record of ev (regs: TR_REGS's, EXP_TR_NR_REGS of them in
 * the interposed function's frame, or NULL for no stack) to this
 * thread's buffer; zeroes regs.  Called between tr_enter() and
 * tr_leave().
 */
void tr_emit(const struct tr_ev *ev, uint64_t *regs);
/*
 * The same record after npre bytes of pre, in one reservation: a record
 * that starts with a struct lwprof_rec and holds a traced call
 * (libexp/mpi.h's); its size is set to the whole's.
 */
void tr_emit_after(const void *pre, size_t npre, const struct tr_ev *ev,
		   uint64_t *regs);

/*
 * The trace file's descriptor; is fd it (move: and move it elsewhere,
 * as dup2 onto it is about to replace it)?  core.c.
 */
int tr_trace_fd(void);
bool tr_own_fd(int fd, bool move);

/*
 * A heap call (heap.c): a block made at addr (alloc: with the calling
 * thread's stack; a realloc's old block addr2) or freed (munmap: bytes
 * long).  Called between tr_enter() and tr_leave().
 */
void tr_emit_heap(uint16_t event, uint64_t addr, uint64_t addr2,
		  uint64_t bytes, bool alloc);

/*
 * stackid.c: the heap calls' stacks, interned per thread (a table of
 * tr_stab_new(), emptied by tr_stab_reset()); tr_stack_id() walks the
 * calling thread's stack and gives its id (0: none), its record written
 * first if it is new.  tr_stackid_init() at load, tr_stackid_loaded()
 * after a dlopen.
 */
struct tr_stab;
void tr_stackid_init(void);
void tr_stackid_loaded(void);
struct tr_stab *tr_stab_new(void);
void tr_stab_reset(struct tr_stab *s);
uint32_t tr_stack_id(struct tr_stab *s, uint16_t event);

/*
 * stripe.c: the heap's striped tables.  A stripe's n entries of esz
 * bytes in cap slots (a power of 2), used when their first 8 bytes are
 * not zero; tr_table_put() puts e in the first free slot from home,
 * tr_stripe_grow() doubles s (or makes it first slots), placing each
 * entry at home(entry); false: no memory.
 */
struct tr_stripe {
	int lock;		/* tr_spin_lock()'s */
	uint32_t n, cap;
	void *t;
};

void tr_spin_lock(int *l);
void tr_spin_unlock(int *l);
void *tr_table_new(uint32_t cap, size_t esz);
void tr_table_free(struct tr_stripe *s, size_t esz);
bool tr_slot_used(const void *e);
void tr_table_put(void *t, uint32_t cap, size_t esz, const void *e,
		  uint32_t home);
bool tr_stripe_grow(struct tr_stripe *s, size_t esz, uint32_t first,
		    uint32_t (*home)(const void *e));

/* live.c: a block made and not yet freed. */
struct tr_block {
	uint64_t addr, bytes;
	uint32_t stack;		/* its allocation's stack id */
	uint32_t slice;		/* and slice (heapsum.c) */
};

void tr_live_add(const struct tr_block *b);
void tr_live_prefetch(uint64_t addr);
/* The block at addr, forgotten (false: none). */
bool tr_live_take(uint64_t addr, struct tr_block *b);
void tr_live_reset(void);

/*
 * heapsum.c: the heap calls counted per slice of TR_SLICE_NS (by stack,
 * size and slice; a free by its allocation's) and written as the slices
 * pass; tr_heapsum_flush() writes all (exit, exec, fork),
 * tr_heapsum_dying() from a fatal signal's handler.
 */
#define TR_SLICE_NS	100000000ULL

void tr_heapsum_init(void);
void tr_heapsum_alloc(uint16_t event, uint64_t addr, uint64_t bytes,
		      uint32_t stack, uint64_t now);
void tr_heapsum_free(uint16_t event, uint64_t addr, uint64_t bytes,
		     uint64_t now);
void tr_heapsum_flush(void);
/* a chain of new stack nodes (stackid.c), pc[c->nr], for the next record */
void tr_heapsum_chain(const struct exp_tchain *c, const uint64_t *pc);
void tr_heapsum_dying(void);
void tr_heapsum_after_fork(void);

/* A descriptor's file name (open, and the inherited ones). */
void tr_emit_file(int fd, const char *path);

/* The real function behind an interposed one (dlsym RTLD_NEXT), or NULL. */
void *tr_real(const char *name);

/* real_NAME, found by get_NAME() at its first use */
#define REAL(type, name, args)						\
	static type (*real_##name) args;				\
	static inline type (*get_##name(void)) args			\
	{								\
		if (!real_##name)					\
			real_##name = tr_real(#name);			\
		return real_##name;					\
	}

/* core.c's part of fork and exec (sync.c and exec.c interpose them). */
void tr_before_fork(void);
void tr_after_fork(bool child);
void tr_before_exec(void);

/*
 * Say that pid (0: not known), started by ppid, runs path untraced for
 * reason (libexp/trace.h): a record written at once to the trace file,
 * with system calls only (before an exec, in a vfork child).  exec.c.
 */
void tr_untraced(uint32_t pid, uint32_t ppid, unsigned int reason,
		 const char *path);

/*
 * exec.c: the variables a new program is traced with (at load), and
 * envp with them put back where they are missing: tr_env_room() says
 * how many entries (v) and bytes (buf) tr_env_fix() may need, which the
 * caller gives from its frame.
 */
void tr_exec_init(const char *trace, const char *dir);
size_t tr_env_room(char *const *envp, size_t *bytes);
char *const *tr_env_fix(char *const *envp, char **v, char *buf);

/* sync.c: the real vfork (see vfork there), at load. */
void tr_sync_init(void);

/*
 * Fatal signals (signal.c): at load, a handler for those whose action
 * is the default one, which writes out every buffer (core.c's
 * tr_flush_dying) and ends the process as the signal would have.
 */
void tr_signal_init(void);
void tr_flush_dying(void);

/* pthread_create's start routine runs through this (core.c). */
struct tr_start {
	void *(*fn)(void *);
	void *arg;
};
void *tr_thread_start(void *arg);
void tr_thread_exit(void);

#endif
