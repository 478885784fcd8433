// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_sampler FILE [N [plt]]: built -O2 -fomit-frame-pointer.  A profiling
 * timer (SIGPROF every 200 us of CPU time) interrupts a workload that runs
 * in its own code and in libc (qsort with a callback, memmove, strtod,
 * snprintf); the handler saves the interrupted registers (DWARF order, from
 * the signal's ucontext) and the stack from the interrupted sp up, as the
 * module's stack copy would hold them.  After N such snapshots (default 64)
 * it writes them, then /proc/self/maps, to FILE (tests/lib/capture.h).
 * The pcs are wherever the timer hit: prologues, epilogues, libc's
 * internals, so the CFI rules differ from sample to sample.  With "plt"
 * the workload is plt_loop() alone: a hot loop of strlen() calls on short
 * strings, each through strlen@plt (the executable's lazy .plt), so a
 * good share of the snapshots is taken in the PLT stub itself.  Before
 * the loop, one strlen() call (the first, lazy one, unless LD_BIND_NOW
 * is set) is single-stepped (EFLAGS.TF, a SIGTRAP after
 * each instruction) and every instruction it runs in the executable is a
 * snapshot: the PLT entry's jmp, push and jmp to the PLT header, the
 * header's push and jmp, then the return; so each row of the .plt's CFI
 * gets a sample.  "plt: traced K" on standard output says how many.
 * The first snapshots of the capture are these K.  Then PLT_STEPPED calls
 * of plt_loop()'s steady state (strlen@plt bound: the entry's one jmp)
 * are single-stepped too, so the stub has snapshots under plt_loop
 * whatever the CPU: a timer interrupt need not ever land on that one jmp
 * (on an AMD EPYC with __strlen_evex it never did in 512 samples).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "capture.h"

#define MAX_SNAP 1024
#define SNAP_BYTES 8192		/* the module's default copy limit */

struct snap {
	struct lwprof_capture c;
	uint8_t stack[SNAP_BYTES];
};

static struct snap snaps[MAX_SNAP];
static volatile int nsnap;
static int traced;
static int want = 64;
static uint64_t stack_top;
static volatile unsigned int sink;

/* DWARF x86_64 register numbers 0..16 from the ucontext's gregs. */
static const int dwarf_greg[17] = {
	REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
	REG_RIP,
};

static void snapshot(ucontext_t *uc)
{
	struct snap *s;
	uint64_t sp, n;

	if (nsnap >= want)
		return;
	s = &snaps[nsnap];
	for (int i = 0; i < 17; i++)
		s->c.regs[i] = uc->uc_mcontext.gregs[dwarf_greg[i]];
	sp = s->c.regs[7];
	if (sp >= stack_top)
		return;
	n = stack_top - sp;
	if (n > SNAP_BYTES)
		n = SNAP_BYTES;
	memcpy(s->stack, (void *)sp, n);
	s->c.stack_size = n;
	nsnap++;
}

static void on_prof(int sig, siginfo_t *si, void *ctx)
{
	snapshot(ctx);
}

extern char __executable_start[], etext[], plt_trace_stop[], plt_step_stop[];

/* Single-stepping: each instruction in the executable until the stop label. */
static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint64_t ip = uc->uc_mcontext.gregs[REG_RIP];

	if (ip == (uintptr_t)plt_trace_stop || ip == (uintptr_t)plt_step_stop)
		uc->uc_mcontext.gregs[REG_EFL] &= ~0x100ll;
	else if (ip >= (uintptr_t)__executable_start && ip < (uintptr_t)etext)
		snapshot(uc);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static __attribute__((noinline)) unsigned int mix(unsigned int *v, int n, int d)
{
	unsigned int h = d;

	if (d > 0)
		h += mix(v + 1, n - 1, d - 1) * 31;
	for (int i = 0; i < n; i++)
		h = h * 2654435761u + v[i];
	return h;
}

static __attribute__((noinline)) void work(double *a, int n, char *buf)
{
	unsigned int v[64];

	for (int i = 0; i < n; i++)
		a[i] = (double)rand() / RAND_MAX;
	qsort(a, n, sizeof(a[0]), cmp);
	for (int i = 0; i < 64; i++) {
		snprintf(buf, 64, "%.17g", a[i * (n / 64)]);
		v[i] = (unsigned int)(strtod(buf, NULL) * 1e9);
	}
	memmove(a + 1, a, (n - 1) * sizeof(a[0]));
	sink += mix(v, 64, 8);
}

static const char *volatile words[4] = { "a", "bb", "", "ccc" };

/* Not a leaf (it calls strlen): gcc keeps no data in the red zone here. */
static __attribute__((noinline, noclone)) size_t plt_traced(const char *w)
{
	size_t n;

	asm volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	n = strlen(w);
	asm volatile(".globl plt_trace_stop\nplt_trace_stop:\n\t"
		     "pushfq\n\tandq $~0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	return n;
}


#define PLT_STEPPED 16

/* n strlen@plt calls; single-stepped (each instruction a snapshot) if step. */
static __attribute__((noinline)) void plt_loop(int n, bool step)
{
	size_t len = 0;

	if (step)
		asm volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	for (int i = 0; i < n; i++)
		len += strlen(words[i & 3]);
	asm volatile(".globl plt_step_stop\nplt_step_stop:\n\t"
		     "pushfq\n\tandq $~0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	sink += len;
}

int main(int argc, char **argv)
{
	static double a[8192];
	static char maps[65536];
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa = { 0 };
	char buf[64];
	size_t mlen;
	FILE *f;

	bool plt = argc == 4 && !strcmp(argv[3], "plt");

	if (argc < 2 || (argc == 4 && !plt) || argc > 4) {
		fprintf(stderr, "usage: unwind_sampler FILE [N [plt]]\n");
		return 2;
	}
	if (argc >= 3)
		want = atoi(argv[2]);
	if (want < 1 || want > MAX_SNAP) {
		fprintf(stderr, "unwind_sampler: N must be 1..%d\n", MAX_SNAP);
		return 2;
	}
	stack_top = capture_stack_top();
	srand(1);
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (!stack_top || sigaction(SIGPROF, &sa, NULL)) {
		fprintf(stderr, "unwind_sampler: cannot set up the timer\n");
		return 1;
	}
	sa.sa_sigaction = on_trap;
	if (plt && !sigaction(SIGTRAP, &sa, NULL)) {
		sink += plt_traced(words[0]);
		traced = nsnap;
		plt_loop(PLT_STEPPED, true);
	}
	if (setitimer(ITIMER_PROF, &it, NULL)) {
		fprintf(stderr, "unwind_sampler: cannot set up the timer\n");
		return 1;
	}
	while (nsnap < want)
		if (plt)
			plt_loop(4096, false);
		else
			work(a, 8192, buf);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	if (plt)
		printf("plt: traced %d\n", traced);
	f = fopen("/proc/self/maps", "r");
	mlen = f ? fread(maps, 1, sizeof(maps), f) : 0;
	if (f)
		fclose(f);
	f = fopen(argv[1], "w");
	if (!f || !mlen)
		goto bad;
	for (int i = 0; i < nsnap; i++) {
		struct snap *s = &snaps[i];

		memcpy(s->c.magic, CAPTURE_MAGIC, 8);
		s->c.pid = getpid();
		s->c.tid = syscall(SYS_gettid);
		if (fwrite(&s->c, sizeof(s->c), 1, f) != 1 ||
		    fwrite(s->stack, 1, s->c.stack_size, f) != s->c.stack_size)
			goto bad;
	}
	if (fwrite(maps, 1, mlen, f) != mlen || fclose(f))
		goto bad;
	return 0;
bad:
	fprintf(stderr, "unwind_sampler: cannot write %s\n", argv[1]);
	return 1;
}
