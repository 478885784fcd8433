/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Java part of the model (docs/guide/java.md): what the JVMTI
 * agent's java.PID.rec files say (libexp/java.h), as load/java.c reads
 * it and symbols/java.c names it: methods with their line tables,
 * compiled code by address and time, the Java stacks of ticks and
 * blocks, and for each sample the Java call stack the views show in
 * user and expert modes beside its machine (native) one.
 */
#ifndef LWPROF_ANALYZER_MODEL_JAVA_H
#define LWPROF_ANALYZER_MODEL_JAVA_H

#include "analyzer/model/model.h"
#include "libexp/java.h"

/* A JVM: one process of one experiment that wrote a java.PID.rec. */
struct an_jvm {
	uint32_t exp, pid;
};

struct an_jmethod {
	uint64_t id;		/* jmethodID */
	uint32_t jvm;
	uint32_t cls;		/* string id: "java.lang.String" */
	uint32_t name;		/* string id: the method's name */
	uint32_t sig;		/* string id: "(I)V" */
	uint32_t file;		/* string id: the source path, "pkg/A.java", or UINT32_MAX */
	uint32_t lines, nlines;	/* its (bci, line) pairs in an_java.lines, by bci */
	uint32_t func;		/* its function, made on first use, or UINT32_MAX */
	bool native;
};

/* Compiled code or a stub, [addr, addr + size) from t0 to t1. */
struct an_jcode {
	uint32_t jvm;
	uint32_t method;	/* an_jmethod index, or UINT32_MAX (a stub);
				 * while loading, the index of its id's frame */
	uint32_t name;		/* a stub's name (string id) */
	uint64_t addr, size, t0, t1;	/* t1: unloaded, or UINT64_MAX */
	uint32_t pcs, npcs;	/* its pcs in an_java.pcs, by pc */
};

/* A pc of compiled code: the methods inlined there, innermost first. */
struct an_jpc {
	uint64_t pc;
	uint32_t frames, nframes;	/* in an_java.frames */
};

struct an_jframe {
	uint64_t id;		/* the jmethodID as recorded */
	uint32_t method;	/* an_jmethod index, or UINT32_MAX (unknown id) */
	int32_t bci;
};

/*
 * A Java stack of a thread: a tick, or a block from t to end (what the
 * block; a block's end record is what EXP_JW_MAX while loading).
 */
struct an_jstack {
	uint32_t jvm, tid;
	uint64_t t, end;	/* end: a block's end, else t */
	uint16_t what;		/* enum exp_jwhat */
	int32_t err;
	uint32_t frames, nframes;	/* in an_java.frames, leaf first */
};

/*
 * A machine frame's pc in code that held its address before the code
 * loaded there last (symbols/java.c): its own pc, not the address's.
 */
struct an_jalias {
	uint64_t ip;
	uint32_t code, ret;	/* an_jcode index, and a return address? */
	uint32_t pc;
	uint32_t pad0;
};

/* A Java thread's name (the first the agent gave it). */
struct an_jthread {
	uint32_t jvm, tid;
	uint32_t name;		/* string id */
	bool daemon;
};

struct an_java {
	struct an_vec jvms;	/* struct an_jvm */
	struct an_vec methods;	/* struct an_jmethod */
	struct an_htab methods_h;	/* (jvm, id) */
	struct an_vec lines;	/* struct exp_jline */
	struct an_vec code;	/* struct an_jcode, sorted by (jvm, addr) once read */
	struct an_vec pcs;	/* struct an_jpc */
	struct an_vec frames;	/* struct an_jframe */
	struct an_vec stacks;	/* struct an_jstack, sorted by (jvm, tid, t) once read */
	struct an_vec threads;	/* struct an_jthread */
	struct an_vec unloads;	/* struct an_jcode (addr, t1): matched at the end */
	struct an_vec alias;	/* struct an_jalias: pcs of code not the last at its address */
	struct an_htab alias_h;	/* (code, ip, ret) */
	uint64_t nticks, nticks_err;	/* ticks, and those without a stack */
	/* per sample: its Java stack (user mode) and with the native frames
	 * Java called (expert mode): nodes, or its machine stack's for a
	 * thread of no JVM */
	uint32_t *user, *expert;
	uint32_t f_jvm_system, f_no_jstack;	/* <JVM-System>, <no Java callstack recorded> */
};

/* The JVM of (exp, pid), or UINT32_MAX. */
uint32_t an_jvm_find(const struct an_java *j, uint32_t exp, uint32_t pid);
void an_java_free(struct an_java *j);

#endif
