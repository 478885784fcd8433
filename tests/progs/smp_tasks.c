// SPDX-License-Identifier: GPL-2.0
/*
 * smp_tasks N: start N threads that name themselves w0 ... w(N-1) and
 * sleep 20 ms, join them, then fork a child that runs /bin/true; wait for
 * it and exit 0.  Prints "child PID".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static void *worker(void *arg)
{
	struct timespec ts = { 0, 20000000 };
	char name[16];

	snprintf(name, sizeof(name), "w%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	nanosleep(&ts, NULL);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t *t;
	int i, n, status;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: smp_tasks N\n");
		return 2;
	}
	n = atoi(argv[1]);
	t = calloc(n > 0 ? n : 1, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	printf("child %d\n", pid);
	if (waitpid(pid, &status, 0) != pid || status)
		return 1;
	return 0;
}
