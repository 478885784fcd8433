// SPDX-License-Identifier: GPL-2.0
/*
 * secret_spin [-w FILE] [-p SECS] [-n] FILE SECS: the victim of the security tests
 * (docs/design/security.md).  It reads the first 32 bytes of FILE, a secret (a
 * root-only file when this program runs set-user-ID root or with file
 * capabilities), into a buffer in main's frame, and computes on it for
 * SECS seconds of its CPU time: every word of the secret passes through a
 * register, and the buffer lies a few hundred bytes above the stack
 * pointer, inside any sample's stack copy.  -p SECS first runs SECS
 * seconds without the secret (what may be recorded); -n then makes the
 * process non-dumpable, as ssh-agent does, before it reads the secret.
 * -w FILE first spins until FILE exists (until the test has attached a
 * session, say).
 * Prints its pid on stdout first; exits 1 if FILE cannot be read.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Rounds over the n words at w; each word is loaded into a register. */
static __attribute__((noinline)) uint64_t mix(const volatile uint64_t *w,
					      unsigned int n, uint64_t h)
{
	unsigned int r, i;
	uint64_t v;

	for (r = 0; r < 100000; r++)
		for (i = 0; i < n; i++) {
			v = w[i];
			__asm__ volatile("" : "+r"(v));
			h = (h ^ v) * 0x100000001b3ULL;
		}
	return h;
}

int main(int argc, char **argv)
{
	volatile uint64_t secret[4] = { 0 }, blank[4] = { 1, 2, 3, 4 };
	double pre = 0, secs, end;
	int c, nodump = 0, fd;
	const char *wait = NULL;
	uint64_t h = 0;

	while ((c = getopt(argc, argv, "w:p:n")) != -1) {
		if (c == 'w')
			wait = optarg;
		else if (c == 'p')
			pre = atof(optarg);
		else if (c == 'n')
			nodump = 1;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: secret_spin [-w FILE] [-p SECS] [-n] FILE SECS\n");
		return 2;
	}
	secs = atof(argv[optind + 1]);
	printf("%d\n", getpid());
	fflush(stdout);
	while (wait && access(wait, F_OK))
		h = mix(blank, 1, h);
	for (end = cpu_now() + pre; cpu_now() < end;)
		h = mix(blank, 4, h);
	if (nodump && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		perror("secret_spin: prctl");
		return 1;
	}
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, (void *)secret, sizeof(secret)) != sizeof(secret)) {
		perror("secret_spin: reading the secret");
		return 1;
	}
	close(fd);
	for (end = cpu_now() + secs; cpu_now() < end;)
		h = mix(secret, 4, h);
	return h == 42;	/* h is used: the loops stay */
}
