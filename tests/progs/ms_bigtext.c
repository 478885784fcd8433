// SPDX-License-Identifier: GPL-2.0
/*
 * Text-fault workload: 16 MiB of code in this executable's own section,
 * one tiny function (a ret) at the start of each page.  Run right after
 * dropping the page cache, calling each function makes instruction fetches
 * that fault and wait for the file.  Ground truth: the wall time of the
 * calls and the thread's major faults over them.
 */
#include <sys/resource.h>

#include "mstate.h"

#define BIG_PAGES	4096

asm(".pushsection .text.ms_big,\"ax\",@progbits\n"
    ".balign 4096\n"
    ".globl ms_big_text\n"
    "ms_big_text:\n"
    ".rept 4096\n"
    "ret\n"
    ".fill 4095,1,0xcc\n"
    ".endr\n"
    ".popsection\n");

extern char ms_big_text[];

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_majflt;
}

int main(void)
{
	uint64_t t0, t1;
	long maj0;
	int i;

	ms_tid("main");
	maj0 = majflt();
	t0 = ms_now();
	for (i = 0; i < BIG_PAGES; i++)
		((void (*)(void))(ms_big_text + (size_t)i * 4096))();
	t1 = ms_now();
	ms_truth("exec_ns", t1 - t0);
	ms_truth("majflt", majflt() - maj0);
	return 0;
}
