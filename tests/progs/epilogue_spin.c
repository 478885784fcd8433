// SPDX-License-Identifier: GPL-2.0
/*
 * epilogue_spin SECS: for SECS seconds main calls epi_caller(), which
 * calls epi_leaf(), which sets up a frame, pops it and then spins in its
 * epilogue (after `pop rbp`, before `ret`), where nearly every sample
 * lands.  Its CFI there is glibc's kind (pthread_mutex_trylock's): the
 * CFA is right (rsp + 8) but rbp is still "saved at CFA - 16", a slot
 * already popped, below sp and outside any stack copy, so a CFI walk
 * finds epi_caller and stops (epi_caller's CFA is rbp-based).  The frame
 * pointers skip epi_caller (rbp is already its frame) and go on from
 * main.  The truth: every sample in epi_leaf is epi_leaf <- epi_caller
 * <- main.  Built with frame pointers.
 */
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
void epi_leaf(unsigned int n);
__asm__(".text\n"
	".globl epi_leaf\n"
	".type epi_leaf, @function\n"
	"epi_leaf:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"mov %edi, %ecx\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"	/* and no .cfi_restore %rbp */
	"1: dec %ecx\n"
	"jnz 1b\n"
	"ret\n"
	".cfi_endproc\n"
	".size epi_leaf, .-epi_leaf\n");

__attribute__((noinline)) void epi_caller(unsigned int n)
{
	epi_leaf(n);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end;

	if (argc != 2)
		return 2;
#if defined(__x86_64__)
	end = now() + atof(argv[1]);
	while (now() < end)
		epi_caller(1000000);
	return 0;
#else
	(void)end;
	return 77;
#endif
}
