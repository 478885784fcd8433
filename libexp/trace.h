/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace records (format 1.4 to 1.10, docs/design/experiment-format.md,
 * docs/design/tracing.md):
 * what the tracing library (trace/, LD_PRELOAD'ed into the target by
 * collect -s/-H/-i) writes into trace.PID.rec files of the experiment.
 * The files have the cpu.N.rec header (format.h) and hold records of the
 * lwprof record format (uapi/lwprof_record.h: TASK and MMAP records the
 * library makes itself) and the types below, which the module never
 * writes (types 16-31 are the tracer's).
 */
#ifndef LWPROF_LIBEXP_TRACE_H
#define LWPROF_LIBEXP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "lwprof.h"
#include "libexp/format.h"

#define EXP_REC_TRACE		16	/* struct exp_rec_trace */
#define EXP_REC_TRACE_FILE	17	/* struct exp_rec_trace_file */
#define EXP_REC_TRACE_FREE	18	/* struct exp_rec_trace_free */
#define EXP_REC_TRACE_UNTRACED	19	/* 1.5: struct exp_rec_trace_untraced */
#define EXP_REC_TCALL		20	/* 1.5: struct exp_rec_tcall */

/*
 * The traced calls (exp_rec_trace.event): heap 1-31, sync 32-63, I/O
 * 64-127.  Their names and classes are exp_trace_events[].
 */
enum exp_trace_event {
	EXP_TR_MALLOC = 1, EXP_TR_CALLOC, EXP_TR_REALLOC, EXP_TR_MEMALIGN,
	EXP_TR_POSIX_MEMALIGN, EXP_TR_ALIGNED_ALLOC, EXP_TR_VALLOC,
	EXP_TR_PVALLOC, EXP_TR_MMAP, EXP_TR_FREE, EXP_TR_MUNMAP,
	EXP_TR_REALLOCARRAY,
	EXP_TR_MUTEX_LOCK = 32, EXP_TR_MUTEX_TIMEDLOCK, EXP_TR_COND_WAIT,
	EXP_TR_COND_TIMEDWAIT, EXP_TR_RWLOCK_RDLOCK, EXP_TR_RWLOCK_WRLOCK,
	EXP_TR_RWLOCK_TIMEDRDLOCK, EXP_TR_RWLOCK_TIMEDWRLOCK, EXP_TR_SEM_WAIT,
	EXP_TR_SEM_TIMEDWAIT, EXP_TR_JOIN, EXP_TR_BARRIER_WAIT,
	EXP_TR_MUTEX_CLOCKLOCK, EXP_TR_COND_CLOCKWAIT,
	EXP_TR_RWLOCK_CLOCKRDLOCK, EXP_TR_RWLOCK_CLOCKWRLOCK,
	EXP_TR_SEM_CLOCKWAIT, EXP_TR_TIMEDJOIN, EXP_TR_CLOCKJOIN,
	EXP_TR_READ = 64, EXP_TR_PREAD, EXP_TR_READV, EXP_TR_PREADV,
	EXP_TR_WRITE, EXP_TR_PWRITE, EXP_TR_WRITEV, EXP_TR_PWRITEV,
	EXP_TR_OPEN, EXP_TR_CLOSE, EXP_TR_DUP, EXP_TR_FSYNC, EXP_TR_FDATASYNC,
	EXP_TR_LSEEK, EXP_TR_CREAT, EXP_TR_FCNTL, EXP_TR_FTRUNCATE,
	EXP_TR_FOPEN, EXP_TR_FCLOSE, EXP_TR_FREAD, EXP_TR_FWRITE,
	EXP_TR_FFLUSH,
	EXP_TR_MPI = 127,	/* an MPI call's own record (libexp/mpi.h) */
	EXP_TR_MAX = 128
};

enum exp_trace_class {
	EXP_TC_NONE, EXP_TC_ALLOC, EXP_TC_FREE, EXP_TC_SYNC,
	EXP_TC_IOREAD, EXP_TC_IOWRITE, EXP_TC_IOOTHER,
};

struct exp_trace_event_info {
	const char *name;	/* the function's: "malloc" */
	enum exp_trace_class cls;
};

/* Indexed by event; a NULL name: no such event. */
extern const struct exp_trace_event_info exp_trace_events[EXP_TR_MAX];

static inline const struct exp_trace_event_info *exp_trace_event(unsigned int ev)
{
	return ev < EXP_TR_MAX && exp_trace_events[ev].name ?
		&exp_trace_events[ev] : NULL;
}

/*
 * One traced call.  s is a sample record (its own header: type
 * LWPROF_REC_SAMPLE, size = the trace record's size - its offset) with
 * the layout of libexp/sample.h: s.time_ns the call's return (the grant
 * of a wait), pid, tid, cpu; kind LWPROF_SK_CLOCK with value the sum of
 * mstate_ns[], the module's microstates over the call where it kept them
 * (else all zero); with LWPROF_RS_REGS the registers and the copy of the
 * user stack at the interposed function, for the analyzer's unwinding.
 * A free has no stack.
 */
struct exp_rec_trace {
	struct lwprof_rec hdr;	/* EXP_REC_TRACE, flags 0 */
	__u16 event;		/* enum exp_trace_event */
	__u16 pad0;		/* zero */
	__s32 fd;		/* I/O: the descriptor (dup, open: the new one); else -1 */
	__u64 start_ns;		/* the call (the request of a wait) */
	__u64 addr;		/* heap: the block made or freed; sync: the object */
	__u64 addr2;		/* realloc: the block it replaced (0: none) */
	__u64 bytes;		/* heap: bytes asked; I/O: bytes moved */
	__s64 ret;		/* the return value; -errno on failure */
	struct lwprof_rec_sample s;
};

_Static_assert(offsetof(struct exp_rec_trace, s) == 56, "layout");

/*
 * A descriptor's file: at each open (and at the start, for the ones the
 * process inherited), the name it was opened with, NUL-terminated and
 * padded with NULs to 8 bytes.  The name holds from time_ns until the
 * descriptor is closed.
 */
struct exp_rec_trace_file {
	struct lwprof_rec hdr;	/* EXP_REC_TRACE_FILE, flags 0 */
	__u64 time_ns;
	__u32 pid;
	__s32 fd;
	char path[];
};

/*
 * A free (free, munmap, realloc(p, 0)): no stack, so no sample; 48
 * bytes instead of a trace record's 184.
 */
struct exp_rec_trace_free {
	struct lwprof_rec hdr;	/* EXP_REC_TRACE_FREE, flags 0 */
	__u16 event;		/* of class EXP_TC_FREE */
	__u16 pad0;		/* zero */
	__u32 pad1;		/* zero */
	__u64 time_ns;
	__u32 pid, tid;
	__u64 addr;		/* the block */
	__u64 bytes;		/* munmap: its length */
};

_Static_assert(sizeof(struct exp_rec_trace_free) == 48, "layout");

/*
 * Why a program a traced process runs is not traced (1.5): the dynamic
 * linker will not preload the library into it, or it will not find it
 * in the environment.
 */
enum exp_untraced_reason {
	EXP_UT_STATIC = 1,	/* statically linked: no PT_INTERP, no dynamic linker */
	EXP_UT_SETUID,		/* set-user-ID to another user: ld.so's secure mode */
	EXP_UT_SETGID,		/* set-group-ID to another group: the same */
	EXP_UT_CAPS,		/* file capabilities: the same */
	EXP_UT_FOREIGN,		/* not an x86-64 program (32-bit, another machine) */
	EXP_UT_ENV,		/* system/popen: the environment lost the library's variables */
	EXP_UT_EXEC_FAILED,	/* the exec this process announced failed: still traced */
	EXP_UT_MAX
};

/*
 * 1.5: a program that will run untraced, written by the traced process
 * that starts it before it does (exec: straight to the file, as the exec
 * ends the process's library; posix_spawn, system, popen: after they
 * return).  path: the program (for a script, the interpreter at fault),
 * NUL-terminated and padded with NULs to 8 bytes.  A record of reason
 * EXP_UT_EXEC_FAILED takes back the record of its pid before it.
 */
struct exp_rec_trace_untraced {
	struct lwprof_rec hdr;	/* EXP_REC_TRACE_UNTRACED, flags 0 */
	__u64 time_ns;
	__u32 pid;		/* the process that runs it; 0: not known (system, popen) */
	__u32 ppid;		/* the traced process that started it (exec: pid) */
	__u16 reason;		/* enum exp_untraced_reason */
	__u16 pad0;		/* zero */
	__u32 pad1;		/* zero */
	char path[];
};

_Static_assert(sizeof(struct exp_rec_trace_untraced) == 32, "layout");

/*
 * Can a program run by execve(path) be traced: will the dynamic linker
 * of its process preload the library (libexp/traceable.c)?  0: yes, or
 * it cannot tell (unreadable, missing: the exec says); else the
 * exp_untraced_reason, and the file at fault (path, or a script's
 * interpreter) in img.  System calls only, no allocation, no lock: safe
 * in a vfork child, before an exec.
 */
int exp_untraceable(const char *path, char *img, size_t len);

/* "is statically linked" ...: what a reason says of the program. */
const char *exp_untraced_why(unsigned int reason);

/*
 * The programs not traced in an experiment, as its records say: one
 * entry per process (per parent, cause and program for those of system
 * and popen), the exec failures' records taken back.
 */
struct exp_untraced {
	uint64_t time_ns;
	uint32_t pid, ppid;
	uint16_t reason;
	char *path;
};

struct exp_untraced_list {
	struct exp_untraced *v;
	size_t n, cap;
};

/* Add record u, in the order of its file; 0 or -ENOMEM. */
int exp_untraced_add(struct exp_untraced_list *l,
		     const struct exp_rec_trace_untraced *u);
void exp_untraced_free(struct exp_untraced_list *l);
/* "process 1234: /usr/bin/foo is statically linked: not traced" */
void exp_untraced_str(const struct exp_untraced *u, char *buf, size_t len);

/*
 * 1.5: one traced call, compact (what the library writes since; types 16
 * and 18 stay readable).  Its size is what it holds: after the fixed
 * part, one __u64 for each of the flags EXP_TCF_START ... EXP_TCF_RET set,
 * in that order (a field left out is 0: start_ns then equals time_ns, fd
 * is in the fixed part); with EXP_TCF_MS the module's microstates over
 * the call, LWPROF_MS_COUNT __u64 (ns in each); with EXP_TCF_STACK a
 * struct exp_tstack and what follows it.  A free is a record without a
 * stack: 40 bytes.
 */
#define EXP_TCF_START		0x0001	/* start_ns: the call (a wait's request) */
#define EXP_TCF_ADDR		0x0002	/* addr: the block made or freed, the object waited on */
#define EXP_TCF_ADDR2		0x0004	/* addr2: the block a realloc replaced */
#define EXP_TCF_BYTES		0x0008	/* bytes: asked (heap), moved (I/O), munmap's length */
#define EXP_TCF_RET		0x0010	/* ret: the return value, -errno on failure */
#define EXP_TCF_RET_BYTES	0x0020	/* no ret field: ret equals bytes */
#define EXP_TCF_MS		0x0040	/* the microstates over the call */
#define EXP_TCF_STACK		0x0080	/* registers and stack copy (struct exp_tstack) */
#define EXP_TCF_DELTA		0x0100	/* ... as a delta against the thread's base */
#define EXP_TCF_FIELDS		0x001fu	/* the optional __u64 fields */
#define EXP_TCF_KNOWN		0x01ffu	/* the flags of format 1.5 */

struct exp_rec_tcall {
	struct lwprof_rec hdr;	/* EXP_REC_TCALL, flags EXP_TCF_* */
	__u16 event;		/* enum exp_trace_event */
	__u16 cpu;		/* where it returned */
	__u32 pid;
	__u32 tid;
	__s32 fd;		/* I/O: the descriptor (dup, open: the new one); else -1 */
	__u64 time_ns;		/* the call's return (a wait's grant) */
	__u64 fields[];		/* the optional ones, then microstates and stack */
};

_Static_assert(sizeof(struct exp_rec_tcall) == 32, "layout");

/*
 * The registers of a traced call's stack: those the analyzer's DWARF
 * unwinding reads (the stack pointer, the return address, the
 * callee-saved ones a caller's frame may need), in DWARF order: rbx,
 * rbp, rsp, r12, r13, r14, r15, rip (the interposed function's pc).
 */
#define EXP_TR_NR_REGS		8
#define EXP_TR_REG_MASK		((__u64)EXP_X86_64_UNWIND_REGS)	/* DWARF 3, 6, 7, 12-16 */
#define EXP_TR_RSP		2		/* index of rsp */

/*
 * A traced call's stack (EXP_TCF_STACK).  The image is EXP_TR_NR_REGS
 * registers then size / 8 words of the user stack from rsp up: word
 * EXP_TR_NR_REGS + k is the 8 bytes at rsp + 8 k.  Whole (no
 * EXP_TCF_DELTA): the registers, then size bytes of stack; it is the
 * base of the thread's next deltas in the file, numbered by base.  A
 * delta: nr_runs struct exp_trun (padded with zeros to 8 bytes), then the
 * image's words they cover, in order; every other word is the base's at
 * the same register or the same address (the base is the thread's last
 * whole copy in the file, whose number is base, and holds those
 * addresses).
 */
struct exp_tstack {
	__u32 size;		/* bytes of stack, a multiple of 8, at most LWPROF_STACK_MAX */
	__u16 base;		/* whole: its number; a delta: its base's */
	__u16 nr_runs;		/* a delta's runs; 0 when whole */
};

struct exp_trun {
	__u16 pos;		/* the first literal word of the image */
	__u16 len;		/* and how many, at least 1 */
};

#define EXP_TR_IMAGE_MAX	(EXP_TR_NR_REGS + LWPROF_STACK_MAX / 8)

/*
 * A traced call as the analyzer and dump see it, from a record of type
 * 16, 18 or 20 (exp_tcall_view()).
 */
struct exp_tcall {
	unsigned int type;	/* the record's */
	__u16 event;
	__u32 pid, tid, cpu;
	__s32 fd;
	__u64 start_ns, time_ns, addr, addr2, bytes;
	__s64 ret;
	const __u64 *ms;	/* LWPROF_MS_COUNT, or NULL */
	const struct lwprof_rec_sample *s;	/* type 16: its sample */
	/* type 20 with EXP_TCF_STACK: */
	const struct exp_tstack *st;	/* NULL: none */
	int delta;
	const struct exp_trun *runs;
	const __u64 *words;	/* whole: registers and stack; delta: the literal words */
};

/* The view of h, a checked record of type 16, 18 or 20 (else -1). */
int exp_tcall_view(const struct lwprof_rec *h, struct exp_tcall *v);

/*
 * Checks of a type-20 record of size bytes (at least its fixed part):
 * NULL and *known the bytes this format knows (size itself, or less in
 * a newer minor's record), or what is wrong and *at the offset in the
 * record of the field at fault.
 */
const char *exp_tcall_check(const struct exp_rec_tcall *t, __u32 size,
			    __u32 *known, unsigned int *at);

/* Its stack copy (whole or delta): libexp/stack.h. */

/*
 * 1.10: heap calls counted by the library.  It walks each allocation's
 * stack itself and keeps, per thread, a tree of the frames its stacks
 * go through: a stack record (EXP_REC_TSTACK) defines the nodes each new
 * stack adds, once.  The calls themselves are counted per slice of time
 * (EXP_REC_THEAP): how many blocks of a stack and size were made in a
 * slice, and how many of them (by their allocation's stack, size and
 * slice) were freed in a later one.  The library writes both in deflated
 * groups (EXP_REC_TZ: zlib's format), and whole where it cannot (a
 * fatal signal's handler).  A heap record may come before the stack
 * record that defines its stacks: a reader resolves them at the file's
 * end.  Types 21-31 are the heap tracer's.
 */
#define EXP_REC_TSTACK		21	/* 1.10: struct exp_rec_tstack */
#define EXP_REC_THEAP		22	/* 1.10: struct exp_rec_theap */
#define EXP_REC_TZ		23	/* 1.10: struct exp_rec_tz */

/*
 * Stack nodes of thread tid: ids id ... id + nr - 1; the first's parent
 * is parent (0: none, the outermost frame; with EXP_TSK_TRUNC the walk
 * stopped at EXP_TSTACK_MAX frames there), each next one's the node
 * before it.  Node id + k's pc is its parent's plus pc[k] (modulo 2^64;
 * the outermost's parent's pc is 0): callers' and callees' pcs are near,
 * and small differences deflate.  A stack is its leaf's
 * node: its pcs are the node's and its ancestors', leaf first (the
 * interposed function's pc, then the return addresses of its callers).
 * Node ids are unique in a file; a node's parent has a smaller id, a
 * node of the same thread defined before it.
 */
#define EXP_TSK_TRUNC		0x1
#define EXP_TSK_KNOWN		0x1u
#define EXP_TSTACK_MAX		256	/* pcs of a stack, at most */

struct exp_tchain {
	__u32 tid;
	__u32 id;		/* the first node's, from 1 */
	__u32 parent;		/* its parent's id, 0: none */
	__u16 nr;		/* nodes, 1 to EXP_TSTACK_MAX */
	__u16 flags;		/* EXP_TSK_* */
	__u64 pc[];		/* differences from the parent's pc */
};

_Static_assert(sizeof(struct exp_tchain) == 16, "layout");

struct exp_rec_tstack {
	struct lwprof_rec hdr;	/* EXP_REC_TSTACK, flags 0 */
	__u32 pid;
	__u32 nchain;		/* struct exp_tchain, one after the other */
};

_Static_assert(sizeof(struct exp_rec_tstack) == 16, "layout");

/*
 * One slice's counts.  An entry without EXP_THE_FREE: count blocks of
 * bytes each made by the stack's call in the slice.  With it: count of
 * the blocks made by stack, of bytes each, age slices before this one,
 * that event ended in this slice (a free or munmap, or the realloc that
 * replaced them); stack 0: blocks not made while traced (bytes 0, or a
 * munmap's length).
 */
#define EXP_THE_FREE		0x1
#define EXP_THE_KNOWN		0x1u

struct exp_theap_ent {
	__u32 stack;		/* the allocation's stack (leaf node) id; 0: none */
	__u16 event;		/* the call (enum exp_trace_event) */
	__u16 flags;		/* EXP_THE_* */
	__u64 bytes;		/* a block's size */
	__u32 count;		/* blocks, at least 1 */
	__u32 age;		/* a free: slices since the blocks were made */
	__u32 first_ns;		/* the first of these calls, after the slice's start
				 * (the library gives it to the ms) */
	__u32 pad0;		/* zero */
};

_Static_assert(sizeof(struct exp_theap_ent) == 32, "layout");

struct exp_rec_theap {
	struct lwprof_rec hdr;	/* EXP_REC_THEAP, flags 0 */
	__u32 pid;
	__u32 nent;		/* entries, at least 1 */
	__u64 time_ns;		/* this slice's start */
	__u64 peak;		/* the process's bytes in use at their peak so far */
	__u64 peak_ns;		/* ... and when */
	__u32 slice_ns;		/* the slices' length */
	__u32 pad0;		/* zero */
	struct exp_theap_ent e[];
};

_Static_assert(sizeof(struct exp_rec_theap) == 48, "layout");

/*
 * Records of types 21 and 22, deflated: raw bytes of them once
 * inflated, at most EXP_TZ_MAX; the zlib stream, then zeros to 8 bytes.
 */
#define EXP_TZ_MAX		(1u << 20)

struct exp_rec_tz {
	struct lwprof_rec hdr;	/* EXP_REC_TZ, flags 0 */
	__u32 raw;		/* the records' bytes */
	__u32 zbytes;		/* the stream's */
	__u8 z[];
};

_Static_assert(sizeof(struct exp_rec_tz) == 16, "layout");

/*
 * The checks of records of types 21-23 (their size as the reader has
 * cut it): NULL, or what is wrong and *at the offset of the field at
 * fault.  exp_tstack_check() checks the chains too.
 */
const char *exp_tstack_check(const struct exp_rec_tstack *s, unsigned int *at);
const char *exp_theap_check(const struct exp_rec_theap *h, unsigned int *at);
const char *exp_tz_check(const struct exp_rec_tz *z, unsigned int *at);

/* The bytes a record of type 22 of nent entries takes. */
static inline __u64 exp_theap_size(const struct exp_rec_theap *h)
{
	return sizeof(*h) + sizeof(h->e[0]) * (__u64)h->nent;
}

/*
 * The records a type-23 record holds, inflated into buf (EXP_TZ_MAX
 * bytes): their bytes, or -1 and *why.  Each is whole (its size fits)
 * but not otherwise checked: exp_reader_next()'s checks are the
 * caller's (exp_tstack_check(), exp_theap_check()).
 */
long exp_tz_inflate(const struct exp_rec_tz *z, void *buf, const char **why);

/*
 * The sample of a record the reader handed out: a SAMPLE itself, a trace
 * record's own; NULL for other types.
 */
static inline const struct lwprof_rec_sample *
exp_rec_sample(const struct lwprof_rec *h)
{
	if (h->type == EXP_REC_TRACE)
		return &((const struct exp_rec_trace *)h)->s;
	return h->type == LWPROF_REC_SAMPLE ? (const void *)h : NULL;
}

/*
 * Checks of a trace record whose size the reader has checked to cover
 * its fixed part: NULL, or what is wrong and *at the offset in the record
 * of the field at fault.
 */
const char *exp_trace_check(const struct exp_rec_trace *t, unsigned int *at);
const char *exp_trace_file_check(const struct exp_rec_trace_file *f,
				 unsigned int *at);
const char *exp_trace_free_check(const struct exp_rec_trace_free *f,
				 unsigned int *at);
const char *exp_trace_untraced_check(const struct exp_rec_trace_untraced *u,
				     unsigned int *at);

#endif
