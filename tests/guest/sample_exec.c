// SPDX-License-Identifier: GPL-2.0
/*
 * LWPROF_ATTACH_EXEC (ABI 1.3): accounting of the attached process begins
 * at its exec, as perf's enable_on_exec.  A forked child that sleeps
 * 300 ms before it execs tests/progs/spin 0.3 is attached with the flag:
 * its final totals hold no sleep, their start is at the exec (after the
 * time the child took just before execv), the spin's 0.3 s of user time
 * is there, no clock packet comes before the exec and the packets still
 * sum to the totals exactly.  The same child attached without the flag
 * has the 300 ms of sleep (so the test sees the flag's effect), and the
 * flag with a machine session is -EINVAL.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <time.h>

#include "ring.h"
#include "test.h"

#define PRE_NS	300000000ULL	/* asleep before the exec */
#define MS	1000000ULL

struct exec_share {
	uint64_t exec_ns;	/* just before execv() */
};

static struct exec_share *sh;

static int child(void *arg)
{
	struct timespec ts = { 0, PRE_NS };
	char *argv[] = { arg, "0.3", NULL };

	nanosleep(&ts, NULL);
	sh->exec_ns = lwr_now();
	execv(argv[0], argv);
	return 127;
}

static void run(const char *prog, bool from_exec)
{
	unsigned int flags = from_exec ? LWPROF_ATTACH_EXEC : 0;
	uint64_t sum[LWPROF_MS_COUNT] = { 0 }, first = UINT64_MAX;
	const struct lwprof_thread_usage *u;
	struct lwr_usage us = { 0 };
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	struct lwr_child c;
	unsigned int i, execs = 0;
	bool same = true;
	struct lwr r;
	int ret;

	printf("# %s\n", from_exec ? "LWPROF_ATTACH_EXEC" : "no flag");
	if (lwr_spawn(&c, child, (void *)prog))
		t_fatal("fork");
	ret = lwr_open(&r, flags, c.pid, 64);
	if (ret) {
		errno = -ret;
		t_fatal("attach, ring setup and mmap");
	}
	lwr_clock_req(&ss, 10 * MS, 0);
	ret = lwr_start(&r, &ss);
	t_check(ret == 0, "SAMPLE_START (%s)", strerror(-ret));
	ret = lwr_finish(&r, &c, &us, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "the child ran spin, exit 0");

	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		const struct lwprof_rec_task *tk = (const void *)rec;

		if (rec->type == LWPROF_REC_TASK && tk->tid == (__u32)c.pid)
			execs += tk->event == LWPROF_TASK_EXEC;
		if (rec->type != LWPROF_REC_SAMPLE || s->tid != (__u32)c.pid ||
		    s->kind != LWPROF_SK_CLOCK)
			continue;
		first = s->time_ns < first ? s->time_ns : first;
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			sum[i] += s->mstate_ns[i];
	}
	u = lwr_usage_tid(&us, c.pid);
	t_check(u != NULL, "the child's final totals");
	if (!u)
		return;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		same &= sum[i] == u->mstate_ns[i];
	printf("# exec at %.3f s, start %.3f s, first packet %.3f s; sleep %.1f ms, user %.1f ms\n",
	       sh->exec_ns / 1e9, u->start_ns / 1e9, first / 1e9,
	       u->mstate_ns[LWPROF_MS_SLEEP] / 1e6,
	       u->mstate_ns[LWPROF_MS_USER] / 1e6);
	t_check(execs == 1, "one EXEC record (%u)", execs);
	t_check(same, "its clock packets sum to its final totals exactly");
	t_check(u->mstate_ns[LWPROF_MS_USER] >= 250 * MS,
		"the spin's 0.3 s in user mode (%.1f ms)",
		u->mstate_ns[LWPROF_MS_USER] / 1e6);
	if (from_exec) {
		t_check(u->start_ns >= sh->exec_ns &&
			u->start_ns - sh->exec_ns < 200 * MS,
			"accounting starts at the exec (%.1f ms after execv was called)",
			((int64_t)u->start_ns - (int64_t)sh->exec_ns) / 1e6);
		t_check(u->mstate_ns[LWPROF_MS_SLEEP] < 30 * MS,
			"the 300 ms asleep before the exec is not the command's (%.1f ms)",
			u->mstate_ns[LWPROF_MS_SLEEP] / 1e6);
		t_check(first >= u->start_ns,
			"no clock packet before the exec");
	} else {
		t_check(u->start_ns < sh->exec_ns - 250 * MS,
			"without the flag accounting starts at the attach");
		t_check(u->mstate_ns[LWPROF_MS_SLEEP] >= 280 * MS,
			"and holds the 300 ms asleep (%.1f ms)",
			u->mstate_ns[LWPROF_MS_SLEEP] / 1e6);
	}
	free(us.u);
	lwr_close(&r);
}

int main(void)
{
	struct lwprof_abi_version v;
	char prog[512];
	int fd;

	lwr_test_begin();
	fd = open(LWPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_fatal("open " LWPROF_DEVICE_PATH);
	memset(&v, 0, sizeof(v));
	if (ioctl(fd, LWPROF_IOC_ABI_VERSION, &v))
		t_fatal("LWPROF_IOC_ABI_VERSION");
	t_check(v.minor >= 3 && (v.features & LWPROF_FEAT_EXEC),
		"ABI %u.%u announces LWPROF_FEAT_EXEC", v.major, v.minor);
	errno = 0;
	t_check(lwr_attach(fd, LWPROF_ATTACH_MACHINE | LWPROF_ATTACH_EXEC, 0) &&
		errno == EINVAL, "ATTACH_EXEC with a machine session: EINVAL (%s)",
		strerror(errno));
	close(fd);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		t_fatal("mmap");
	snprintf(prog, sizeof(prog), "%s/tests/progs/spin",
		 getenv("LWPROF_BUILD") ? : "build");
	run(prog, true);
	run(prog, false);
	return lwr_test_end();
}
