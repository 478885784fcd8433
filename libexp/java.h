/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Java records (format 1.7, docs/design/experiment-format.md,
 * docs/guide/java.md): what the JVMTI agent (jvmti/, loaded by collect -j
 * on with -agentpath) writes into java.PID.rec files of the experiment.
 * The files have the cpu.N.rec header (format.h, cpu EXP_CPU_NONE) and
 * hold only the types below (56-63), which the module never writes.
 *
 * A method is named by its jmethodID, which the JVM never reuses while it
 * runs (a class unloaded keeps its ids dead, not recycled), so a stack
 * taken at any time names its methods by the records of the same file.
 * Compiled code is named by address only between its load and unload
 * records: an address range is reused by later compilations (re-JIT).
 */
#ifndef LWPROF_LIBEXP_JAVA_H
#define LWPROF_LIBEXP_JAVA_H

#include <stddef.h>
#include <stdint.h>

#include "lwprof.h"
#include "lwprof_record.h"

#define EXP_JAVA_FMT		"java.%u.rec"

#define EXP_REC_JMETHOD		56	/* struct exp_rec_jmethod */
#define EXP_REC_JCODE		57	/* struct exp_rec_jcode */
#define EXP_REC_JUNLOAD		58	/* struct exp_rec_junload */
#define EXP_REC_JSTACK		59	/* struct exp_rec_jstack */
#define EXP_REC_JTHREAD		60	/* struct exp_rec_jthread */

/*
 * A method of a class, written when its class is prepared (or, for the
 * classes loaded before the agent could see them, when the VM starts).
 * After the fixed part: str_len bytes of four NUL-terminated strings,
 * the class signature ("Ljava/lang/String;"), the method's name, its
 * signature ("(I)V") and the class's source file ("" if unknown), NULs
 * to a multiple of 8; then nlines struct exp_jline, by bci.
 */
#define EXP_JM_NATIVE	0x1	/* a native method: no bytecode, no lines */
#define EXP_JM_FLAGS	0x1u

struct exp_jline {
	__u32 bci;		/* the first bytecode index of the line */
	__u32 line;
};

struct exp_rec_jmethod {
	struct lwprof_rec hdr;	/* EXP_REC_JMETHOD, flags EXP_JM_* */
	__u64 time_ns;
	__u64 id;		/* the jmethodID */
	__u32 pid;
	__u32 nlines;
	__u32 str_len;		/* bytes of the four strings with their NULs */
	__u32 pad0;		/* zero */
};

_Static_assert(sizeof(struct exp_rec_jmethod) == 40, "layout");

/*
 * Code the JVM generated: a compiled method (flags EXP_JC_METHOD,
 * method its id) or another blob (flags EXP_JC_STUB: the interpreter, a
 * stub, method 0), [addr, addr + size).  After the fixed part: npcs
 * struct exp_jpc, each followed by its nframes struct exp_jframe (the
 * method inlined at that pc, innermost first, as the JIT's debug
 * information lists them); then name_len bytes of the blob's name with
 * its NUL (a stub's; a method's is ""), NULs to a multiple of 8.
 */
#define EXP_JC_METHOD	0x1
#define EXP_JC_STUB	0x2
#define EXP_JC_CUT	0x4	/* its pcs were more than a record holds: cut */
#define EXP_JC_FLAGS	0x7u

struct exp_jframe {
	__u64 method;		/* jmethodID */
	__s32 bci;		/* bytecode index; < 0: not known */
	__u32 pad0;		/* zero */
};

struct exp_jpc {
	__u64 pc;
	__u32 nframes;
	__u32 pad0;		/* zero */
};

struct exp_rec_jcode {
	struct lwprof_rec hdr;	/* EXP_REC_JCODE, flags EXP_JC_* */
	__u64 time_ns;
	__u64 method;		/* jmethodID, or 0 (a stub) */
	__u64 addr;
	__u32 size;
	__u32 pid;
	__u32 npcs;
	__u32 name_len;
};

_Static_assert(sizeof(struct exp_rec_jcode) == 48, "layout");

/* Compiled code freed: [addr, ...) no longer holds method's code. */
struct exp_rec_junload {
	struct lwprof_rec hdr;	/* EXP_REC_JUNLOAD, flags 0 */
	__u64 time_ns;
	__u64 method;
	__u64 addr;
	__u32 pid;
	__u32 pad0;		/* zero */
};

_Static_assert(sizeof(struct exp_rec_junload) == 40, "layout");

/*
 * A Java stack: of a clock tick of the thread's CPU time (what 0), or
 * the one where a thread blocked (what: why, enum exp_jwhat), or the end
 * of that block (flags EXP_JS_END, no frames).  nframes struct
 * exp_jframe follow, leaf first; a tick whose stack could not be walked
 * has none and err the walker's code (AsyncGetCallTrace's, < 0).
 */
enum exp_jwhat {
	EXP_JW_TICK = 0,	/* a clock tick: the thread ran Java */
	EXP_JW_SLEEP,		/* Thread.sleep */
	EXP_JW_PARK,		/* LockSupport.park* (Unsafe.park) */
	EXP_JW_WAIT,		/* Object.wait */
	EXP_JW_MONITOR,		/* a contended monitor enter */
	EXP_JW_READ,		/* a blocking read of a stream */
	EXP_JW_MAX
};

#define EXP_JS_END	0x1
#define EXP_JS_FLAGS	0x1u

struct exp_rec_jstack {
	struct lwprof_rec hdr;	/* EXP_REC_JSTACK, flags EXP_JS_* */
	__u64 time_ns;
	__u32 pid, tid;
	__u16 what;		/* enum exp_jwhat */
	__u16 nframes;
	__s32 err;		/* 0, or the walker's code (no frames) */
};

_Static_assert(sizeof(struct exp_rec_jstack) == 32, "layout");

/*
 * A Java thread's name as the JVM knows it (a thread's comm is cut at
 * 15 bytes and some JVMs never set it); NUL-terminated, NULs to 8.
 */
#define EXP_JT_DAEMON	0x1
#define EXP_JT_FLAGS	0x1u

struct exp_rec_jthread {
	struct lwprof_rec hdr;	/* EXP_REC_JTHREAD, flags EXP_JT_* */
	__u64 time_ns;
	__u32 pid, tid;
	char name[];
};

_Static_assert(sizeof(struct exp_rec_jthread) == 24, "layout");

/* "sleep", "park" ...: what a block is, or "?" */
const char *exp_jwhat_name(unsigned int what);

/* Is name (no directory) a Java agent's file, java.PID.rec? */
int exp_java_file_name(const char *name);

/*
 * The checks of the reader (reader.c) on a whole record of these types:
 * NULL, or what is wrong and the byte offset of it in the record (at).
 */
const char *exp_java_check(const struct lwprof_rec *h, unsigned int *at);

/* A method's strings: class signature, name, signature, source file. */
struct exp_jmethod_strs {
	const char *cls, *name, *sig, *file;
};
void exp_jmethod_strs(const struct exp_rec_jmethod *m,
		      struct exp_jmethod_strs *s);
static inline const struct exp_jline *exp_jmethod_lines(const struct exp_rec_jmethod *m)
{
	return (const struct exp_jline *)((const char *)(m + 1) +
					  ((m->str_len + 7) & ~7u));
}
static inline const struct exp_jframe *exp_jstack_frames(const struct exp_rec_jstack *s)
{
	return (const struct exp_jframe *)(s + 1);
}
/* A stub's name (the bytes after the pcs), "" for a method's code. */
const char *exp_jcode_name(const struct exp_rec_jcode *c);

#endif
