// SPDX-License-Identifier: GPL-2.0
/*
 * scl_burst N K: the main thread alone makes N getppid() system calls,
 * then raises SIGUSR1 K times (each one delivered to a handler: a tgkill
 * and an rt_sigreturn), then exits.  Ground truth for the syscall and
 * signal counts of ptime's SCL and SIG: at least N + 2K system calls (the
 * rest are exec, the loader and exit: tens) and exactly K signals.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	long n, k, i;

	if (argc != 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (i = 0; i < k; i++)
		raise(SIGUSR1);
	return got == k ? 0 : 1;
}
