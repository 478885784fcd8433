/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiment directory (docs/design/experiment-format.md): its file names and
 * the header of its cpu.N.rec files, which carry the module's records
 * (uapi/lwprof_record.h) after it.  The format is the recorder's, not the
 * module's: uapi/ keeps only what the module writes.
 *
 * Format versions: a reader refuses another major and reads every minor of
 * its own.  A minor newer than the reader's may append fields to a known
 * record and define new flag bits; the reader skips both (libexp/reader.h
 * has the rules).
 */
#ifndef LWPROF_LIBEXP_FORMAT_H
#define LWPROF_LIBEXP_FORMAT_H

#include <linux/types.h>

#include "lwprof_record.h"

/* The directory's files. */
#define EXP_LOG			"log.txt"
#define EXP_USAGE		"usage.txt"
#define EXP_ARCHIVES		"archives"
#define EXP_INDEX		"archives/index.txt"
#define EXP_KALLSYMS		"archives/kallsyms"	/* /proc/kallsyms (-K) */
#define EXP_MODULES		"archives/modules"	/* /proc/modules (-K) */
#define EXP_REC_FMT		"cpu.%u.rec"	/* one per possible CPU */
#define EXP_SAMPLES		"samples.rec"	/* 1.4: global sample packets */
#define EXP_TRACE_FMT		"trace.%u.rec"	/* 1.4: a traced process's */
#define EXP_TRACE_FMT2		"trace.%u.%u.rec"	/* ... after an exec */

#define EXP_FILE_MAGIC		"LWPROFR"	/* 8 bytes with its NUL */
#define EXP_FILE_MAJOR		1
/*
 * 1.1: delta stack copies; 1.2: e_machine and the register set, growth;
 * 1.3: ABI 1.4's sample flags (EXP_SAMPLE_FLAGS_1_3) and log.txt's
 * session keys (offcpu, idle, irq, kernel_only); 1.4: trace.PID.rec files
 * and their trace records (libexp/trace.h); global sample packets
 * (EXP_REC_GSAMPLE in samples.rec) and log.txt's keys of pauses, limits
 * and the flight recorder; 1.5: the untraced record (libexp/trace.h) and
 * the compact trace record (EXP_REC_TCALL), which replaces types 16 and
 * 18 in new trace files; 1.6: the module's stop record (LWPROF_REC_STOP,
 * ABI 1.7) and usage.txt's LWPROF_TU_STOPPED flag with its reason;
 * 1.7: java.PID.rec files and their Java records (libexp/java.h); 1.8:
 * the OpenMP records of trace files (libexp/omp.h); 1.10: the heap
 * tracer's records (libexp/trace.h: stack, heap and deflated records),
 * which replace type 20 for heap calls; 1.11: the compact sample
 * (EXP_REC_CSAMPLE), which the perf backend writes in place of type 1;
 * 1.12: the OpenMP folded record (libexp/omp.h), a thread's part of a
 * region in one record
 */
#define EXP_FILE_MINOR		12
#define EXP_FILE_MINOR_TRACE	4	/* the first with trace records */
#define EXP_MINOR_TCALL		5	/* the first with EXP_REC_TCALL */
#define EXP_MINOR_GSAMPLE	4		/* the first with EXP_REC_GSAMPLE */
#define EXP_MINOR_UNTRACED	5	/* the first with EXP_REC_TRACE_UNTRACED */
#define EXP_MINOR_STOP		6	/* the first with LWPROF_REC_STOP */
#define EXP_MINOR_JAVA		7	/* the first with Java records (56-63) */
#define EXP_MINOR_OMP		8	/* the first with the OpenMP records */
#define EXP_MINOR_MPI		9	/* the first with EXP_REC_MPI, EXP_REC_MPI_REQ */
#define EXP_MINOR_THEAP		10	/* the first with EXP_REC_TSTACK, _THEAP, _TZ */
#define EXP_MINOR_CSAMPLE	11	/* the first with EXP_REC_CSAMPLE */
#define EXP_MINOR_OMP_FOLD	12	/* the first with EXP_REC_OMP_FOLD */
#define EXP_FILE_LE		0x01020304	/* byte_order as written */

/*
 * The sample flag bits (LWPROF_RS_*) a file of a minor may have: 1.0 to
 * 1.2 0xff; 1.3 adds KBLOCK, SIGNAL, IDLE, HARDIRQ and SOFTIRQ.
 */
#define EXP_SAMPLE_FLAGS_1_2	0xffu
#define EXP_SAMPLE_FLAGS_1_3	0x1fffu

/*
 * The registers of a sample with LWPROF_RS_REGS: the architecture's DWARF
 * registers whose numbers are set in reg_mask, in increasing order, one
 * __u64 each; nr_regs of them (the mask's bits).  A 1.0 or 1.1 file has
 * zeros here: x86-64's 17 (EXP_X86_64_*).
 */
#define EXP_EM_X86_64		62		/* EM_X86_64 of <elf.h> */
#define EXP_X86_64_NR_REGS	17		/* LWPROF_NR_REGS */
#define EXP_X86_64_REG_MASK	0x1ffffULL	/* DWARF 0-16: rax ... rip */

/* The first 64 bytes of a cpu.N.rec file; the ring's bytes follow. */
struct exp_file_header {
	char magic[8];
	__u32 major;		/* experiment format, EXP_FILE_* */
	__u32 minor;
	__u32 byte_order;	/* EXP_FILE_LE read natively */
	__u32 cpu;		/* N of cpu.N.rec */
	__u32 abi_major;	/* the module's ABI that wrote the records */
	__u32 abi_minor;
	__u16 e_machine;	/* 1.2: ELF e_machine of the registers, 0 = x86-64 */
	__u16 nr_regs;		/* 1.2: registers in a sample, 0 = 17 */
	__u32 reserved0;	/* zero */
	__u64 reg_mask;		/* 1.2: their DWARF numbers, 0 = 0-16 */
	__u64 reserved[2];	/* zero */
};

_Static_assert(sizeof(struct exp_file_header) == 64, "format 1.0 size");
_Static_assert(__builtin_offsetof(struct exp_file_header, e_machine) == 32,
	       "format 1.2: the first reserved word of 1.1");
_Static_assert(__builtin_offsetof(struct exp_file_header, reg_mask) == 40,
	       "layout");

/*
 * 1.11: a compact sample, in cpu.N.rec files: a sample record
 * (LWPROF_REC_SAMPLE's fields and flags) that stores only its nonzero
 * microstates and the registers unwinding uses.  After this fixed part,
 * each a multiple of 8 bytes:
 *   __u64 mstate_ns[]   one per bit of ms_mask (LWPROF_MS_*), in order
 *   __u64 regs[]        one per bit of reg_mask (the file's register set,
 *                       bit i its register i), with LWPROF_RS_REGS only
 *   ips[], kips[], stack[] as in a sample
 * The reader hands it out as the sample it stands for (type
 * LWPROF_REC_SAMPLE, the microstates and registers not stored zero);
 * readers before 1.11 skip it as a type they do not know.  A microstate
 * slot is 8 bytes, a register 8: a clock packet of the perf backend holds
 * two or three nonzero microstates of ten, and x86-64's CFI reads only the
 * registers a call preserves, the stack pointer and the pc.
 */
#define EXP_REC_CSAMPLE		24

struct exp_rec_csample {
	struct lwprof_rec hdr;	/* EXP_REC_CSAMPLE, flags LWPROF_RS_* */
	__u64 time_ns;		/* as lwprof_rec_sample, at the same offsets */
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u16 kind;
	__u16 counter;
	__u64 value;
	__u32 reg_mask;		/* the registers stored; 0 without REGS */
	__u16 ms_mask;		/* the microstates stored (bits 0-9) */
	__u16 nr_user;
	__u16 nr_kernel;
	__u16 pad0;		/* zero */
	__u32 stack_size;	/* as lwprof_rec_sample's */
};

_Static_assert(sizeof(struct exp_rec_csample) == 56, "format 1.11 size");

#define EXP_CS_MS_MASK		0x3ffu	/* LWPROF_MS_COUNT bits */
/*
 * The x86-64 registers a compact sample of the perf backend keeps, by
 * DWARF number (= their index in the full set): rbx, rbp, rsp, r12-r15,
 * rip, as a traced call's stack (libexp/trace.h).  A call preserves these (the others no caller's frame can read
 * back), and the CFA rules of compiled code rest on rsp, rbp or rip
 * (outside the first instructions of a stack-realigning function, whose
 * CFA is r10 there: a leaf caught in them loses its callers).
 */
#define EXP_X86_64_UNWIND_REGS	0x1f0c8u

/* Is name (no directory) a trace file's: trace.PID.rec or trace.PID.N.rec? */
int exp_trace_file_name(const char *name);

/*
 * 1.4: a global sample packet (Oracle's "global (sample) data"), which the
 * recorder writes, not the module: a sample point dividing the run into
 * samples, with the target process's statistics at that time (counts since
 * the process began; a sample's data is the difference between the packet
 * that ends it and the one that begins it).  Written into samples.rec, a
 * record file whose header's cpu is EXP_CPU_NONE.  Record types 1-15 are
 * the module's, 16-31 the recorder's trace records, 32 this one.
 */
#define EXP_REC_GSAMPLE		32
#define EXP_CPU_NONE		0xffffffffu	/* samples.rec's header cpu */

enum exp_gs_kind {
	EXP_GS_START = 1,	/* recording began: sample 1 begins here */
	EXP_GS_PERIODIC,	/* -S SECONDS */
	EXP_GS_SIGNAL,		/* -l SIGNAL */
	EXP_GS_API,		/* collector_sample(name) */
	EXP_GS_PAUSE,		/* recording paused from here (-y, API, -t) */
	EXP_GS_RESUME,		/* recording resumed from here */
	EXP_GS_END,		/* recording ended (or stopped: -L, -t END) */
	EXP_GS_KIND_MAX = EXP_GS_END
};

/* exp_rec_gsample.hdr.flags */
#define EXP_GS_STATS	0x1	/* the statistics are pid's (else zeros) */
#define EXP_GS_FLAGS	0x1u

struct exp_rec_gsample {
	struct lwprof_rec hdr;	/* EXP_REC_GSAMPLE, flags EXP_GS_* */
	__u64 time_ns;		/* CLOCK_MONOTONIC, as the module's records */
	__u32 pid;		/* the process whose statistics these are */
	__u16 kind;		/* enum exp_gs_kind */
	__u16 name_len;		/* bytes of name[] with its NUL; 0: none */
	__u64 paused_ns;	/* recording was paused this long before */
	__u64 minflt, majflt;	/* page faults (/proc/PID/stat) */
	__u64 rchar, wchar;	/* bytes read and written (/proc/PID/io) */
	__u64 read_bytes, write_bytes;	/* ... of them from/to storage */
	__u64 nvcsw, nivcsw;	/* voluntary and involuntary switches */
	__u64 rss_bytes, swap_bytes;	/* resident and swapped memory */
	__u64 utime_ns, stime_ns;	/* user and system CPU (stat) */
	/* name_len bytes, NUL-terminated, then NULs to a multiple of 8 */
	char name[];
};

_Static_assert(sizeof(struct exp_rec_gsample) == 128, "format 1.4 size");

#define EXP_GS_NAME_MAX	256	/* name_len at most */

/*
 * A header for the records of CPU cpu, written by a module of ABI
 * abi_major.abi_minor (its samples' registers are uapi's x86-64 set).
 */
void exp_file_header_init(struct exp_file_header *h, __u32 cpu,
			  __u32 abi_major, __u32 abi_minor);

/*
 * Why the recording of a thread stopped (LWPROF_STOP_*, a stop record's
 * reason or LWPROF_TU_WHY() of usage.txt's flags), in words; "?" for a
 * reason this lwprof does not know.
 */
const char *exp_stop_why(unsigned int reason);

#endif
