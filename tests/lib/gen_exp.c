// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp: write a synthetic lwprof experiment, exactly in the committed
 * format (docs/design/experiment-format.md, uapi/lwprof_record.h), with known
 * stacks and microstate times, for the analyzer's tests and benchmark.
 *
 *   gen_exp SCRIPT        (or - for standard input)
 *
 * SCRIPT, one statement a line ('#' comments):
 *   out DIR                    the experiment directory (made; must not exist)
 *   cpus N                     rings (cpu.0.rec ... cpu.N-1.rec), default 2
 *   log KEY VALUE              a log.txt line (cpu_mhz, counter NAME,INT,TYPE,CONFIG)
 *   binary NAME PATH [vdso]    an ELF file whose symbols stacks may name;
 *                              vdso: a vDSO image, mapped as "[vdso]" (an
 *                              anonymous MMAP record) and archived as the
 *                              recorder does (BUILDID/vdso.so)
 *   map PID NAME BASE [t=NS] [cpu=N]   MMAP records of NAME's executable
 *                              segments (BASE: load bias; 0 for ET_EXEC), at
 *                              time NS, in cpu.N.rec (default 0)
 *   archive on|off             copy mapped files into archives/ (default on)
 *   compact on|off             the samples after it as compact samples
 *                              (format 1.11, as the perf backend writes
 *                              them: nonzero microstates, 8 registers)
 *   task EVENT PID TID PPID COMM [t=NS] [cpu=N]   EVENT: start fork exec
 *                              exit comm; in cpu.N.rec (default 0)
 *   sample [cpu=N] pid=P tid=T [t=NS] [n=K] [dt=NS] [ms=STATE:NS,...]
 *          [counter=I value=V] [flags=trunc,exit,deferred,kmode,kblock,
 *          signal,idle,hardirq,softirq]
 *          stack=LEAF,CALLER,...,ROOT [kstack=KLEAF,...] (kernel frames, hex)
 *     pid=0 tid=0 with flags=idle: a CPU's idle packet (no stack=)
 *     a frame is FUNC (the leaf: an instruction in its middle; a caller:
 *     the return address after its call to the frame before), FUNC#K
 *     (the K-th such call), FUNC+OFF (that address), or 0xADDR (raw).
 *     STATE: user system trap tflt dflt kflt lock sleep stop wait.
 *   capture FILE [n=N]         a tests/progs/qsort_unwind or unwind_sampler
 *                              dump: its mappings and a sample per snapshot
 *                              with registers and the stack copy (no
 *                              frame-pointer frames); n=N: N samples
 *                              cycling through the snapshots, 1 ms apart
 *   capture FILE deltas=N [base=ok|lost|stale] [damage=1] [t=NS]
 *                              the first snapshot as delta stack copies: a
 *                              full copy with its odd 64-byte blocks
 *                              spoiled (in sleep time: no user time), then
 *                              N samples of 10 ms user time whose copies
 *                              are deltas, each against the one before:
 *                              the first puts the spoiled blocks right, the
 *                              second reuses everything, the others carry
 *                              their first block.  base=lost leaves the
 *                              full copy out, base=stale gives it another
 *                              time; damage=1 miscounts the first delta's
 *                              literal blocks; t=NS: the full copy's time
 *                              (default 1 ms), the deltas' 10 ms apart
 *   trace FILE format=16|20|21 [calls=N] [ms=1]
 *                              a trace file (trace.PID.rec) of N (8)
 *                              allocations at capture FILE's first
 *                              snapshot, the even ones freed (gen_trace.c):
 *                              in format 1.4's records (16, 18; the
 *                              stacks whole, then sdelta copies) or 1.5's
 *                              (20: whole, then word deltas; ms=1: with
 *                              microstates)
 *   trace FILE format=20 event=NAME [wait=NS] [calls=N] [append=1 [delta=1]]
 *                              ... calls of function NAME instead
 *                              (pthread_mutex_lock, read), each starting
 *                              NS before its return; only allocations
 *                              are freed; append=1: added to the trace
 *                              file a trace line of format 20 wrote
 *                              for FILE, after its calls; delta=1 (not
 *                              allocations): every stack copy a delta
 *                              against the file's first call's
 *   omp PID runtime | stack ID FRAMES | EVENT tid=T t0=NS t1=NS ...
 *                              the OMPT tool's records in trace.PID.rec
 *                              (gen_omp.c says which)
 *   java PID anon|method|code|unload|thread|tick ...
 *                              the JVMTI agent's records in java.PID.rec
 *                              and the code cache's mapping (gen_java.c)
 *   point KIND [t=NS]          a global sample packet in samples.rec
 *                              (KIND: start pause resume end), what
 *                              collect writes at a pause and a resume
 *   kallsyms ADDR TYPE NAME [MODULE]   a line of archives/kallsyms
 *   kmodule NAME SIZE ADDR     a line of archives/modules (/proc/modules':
 *                              NAME SIZE 0 - Live ADDR)
 *   usage auto                 usage.txt from the sampled sums per thread
 *   usage PID TID SCALE        ... that thread's precise totals x SCALE
 *   grow minor=M [bytes=B] [flags=F]
 *                              forward compatibility: the file headers say
 *                              format 1.M, and every SAMPLE, TASK, MMAP
 *                              record written after this line has B more
 *                              bytes (a multiple of 8, not zero: 0xa5...)
 *                              after what format 1.2 knows (an MMAP's after
 *                              its path padded to 8 bytes) and the flag
 *                              bits F (a SAMPLE's only above 0xff)
 *   random n=N paths=P depth=D seed=S pid=P threads=T [cpu_spread=C]
 *                              N samples over P random stacks of the
 *                              mapped binaries' functions (the benchmark)
 */
#include "gen_exp.h"

int main(int argc, char **argv)
{
	struct gen g;
	FILE *in;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_exp SCRIPT|-\n");
		return 2;
	}
	in = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
	if (!in) {
		fprintf(stderr, "gen_exp: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	gen_init(&g);
	err = gen_script(&g, in);
	if (!err)
		err = gen_finish(&g);
	if (in != stdin)
		fclose(in);
	return err ? 1 : 0;
}
