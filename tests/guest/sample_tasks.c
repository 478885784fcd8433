// SPDX-License-Identifier: GPL-2.0
/*
 * Task and map records.
 *
 * Threads and processes: a child (attached before it runs) execs
 * tests/progs/smp_tasks 64, which starts 64 threads that name themselves
 * w0 ... w63, then forks a process that runs /bin/true.  The records say
 * it all, in time order: START for the child as it was (named after this
 * test), EXEC for it with its new name, then the executable mappings of
 * the new program (the program, ld.so, the vDSO, and libc once ld.so maps
 * it), 64 FORKs of threads of its process, 64 COMMs with their names, a
 * FORK of the grandchild process (the pid the program printed, the child
 * as parent), its EXEC as "true" with /usr/bin/true mapped after it, and
 * an EXIT for every one of them.  Before the EXEC, the child's mappings
 * were this test's (the initial records).
 *
 * dlopen: tests/progs/smp_dlopen sleeps 1 s, dlopen()s libm.so.6 and runs
 * its cos() for 1 s.  A MMAP record for libm's code comes after the time
 * the program took just before dlopen(), cos (whose address the program
 * printed) falls inside it, and so does the pc of clock packets (1 ms).
 */
#include "ring.h"
#include "test.h"

static const char *out_path = "/tmp/sample_tasks.out";

static int run_prog(void *argv)
{
	int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || dup2(fd, 1) < 0)
		return 126;
	return lwr_exec_fn(argv);
}

/* A number the program printed after KEY. */
static unsigned long long out_value(const char *key, int base)
{
	char line[256], fmt[64];
	unsigned long long v = 0;
	FILE *f = fopen(out_path, "r");

	snprintf(fmt, sizeof(fmt), "%s %%ll%c", key, base == 16 ? 'x' : 'u');
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static void collect(struct lwr *r, char **argv, uint64_t clock_ns, int *pid)
{
	struct lwprof_sample_start ss;
	struct lwr_child c;
	int ret;

	lwr_clock_req(&ss, clock_ns, 0);
	ret = lwr_begin(r, &c, run_prog, argv, 512, &ss);
	t_check(ret == 0, "SAMPLE_START (%s)", strerror(-ret));
	*pid = c.pid;
	ret = lwr_finish(r, &c, NULL, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "%s exited 0", argv[0]);
}

static const struct lwprof_rec *recs[65536];
static unsigned int nrecs;

static int by_time(const void *a, const void *b)
{
	const struct lwprof_rec_task *x = *(const void **)a, *y = *(const void **)b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The TASK and MMAP records (same time_ns place), in time order. */
static void sort_records(struct lwr *r)
{
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };

	nrecs = 0;
	while ((rec = lwr_iter_next(r, &it)) != NULL && nrecs < 65536)
		if (rec->type == LWPROF_REC_TASK || rec->type == LWPROF_REC_MMAP)
			recs[nrecs++] = rec;
	qsort(recs, nrecs, sizeof(recs[0]), by_time);
}

static const struct lwprof_rec_task *task_rec(unsigned int i)
{
	return recs[i]->type == LWPROF_REC_TASK ? (const void *)recs[i] : NULL;
}

static const struct lwprof_rec_mmap *mmap_rec(unsigned int i)
{
	return recs[i]->type == LWPROF_REC_MMAP ? (const void *)recs[i] : NULL;
}

/* Index of the first TASK record of pid/tid with event ev after from. */
static int find_task(unsigned int from, __u32 pid, __u32 tid, __u32 ev)
{
	for (unsigned int i = from; i < nrecs; i++) {
		const struct lwprof_rec_task *t = task_rec(i);

		if (t && t->pid == pid && t->tid == tid && t->event == ev)
			return i;
	}
	return -1;
}

/* Index of the first MMAP record of pid whose path ends in tail, after from. */
static int find_mmap(unsigned int from, __u32 pid, const char *tail)
{
	for (unsigned int i = from; i < nrecs; i++) {
		const struct lwprof_rec_mmap *m = mmap_rec(i);
		size_t n, k = strlen(tail);

		if (!m || m->pid != pid || !(m->prot & PROT_EXEC))
			continue;
		n = strlen(m->path);
		if (n >= k && !strcmp(m->path + n - k, tail))
			return i;
	}
	return -1;
}

static void tasks(void)
{
	char prog[512];
	char *argv[] = { prog, "64", NULL };
	int tids[64], ntids = 0, names = 0, exits = 0, forks_ok = 1;
	int pid, gc, start, exec, i, k, e;
	struct lwr r;

	snprintf(prog, sizeof(prog), "%s/tests/progs/smp_tasks",
		 getenv("LWPROF_BUILD") ? : "build");
	printf("# threads and processes\n");
	collect(&r, argv, 10000000, &pid);
	gc = out_value("child", 10);
	sort_records(&r);

	start = find_task(0, pid, pid, LWPROF_TASK_START);
	t_check(start >= 0 && !strcmp(task_rec(start)->comm, "sample_tasks"),
		"START for the child, named sample_tasks (%s)",
		start >= 0 ? task_rec(start)->comm : "none");
	t_check(start >= 0 && find_mmap(0, pid, "/sample_tasks") >= 0 &&
		find_mmap(0, pid, "/sample_tasks") < find_task(0, pid, pid,
							       LWPROF_TASK_EXEC),
		"then its mappings as they were: this test's program");
	exec = find_task(0, pid, pid, LWPROF_TASK_EXEC);
	t_check(exec > start && !strcmp(task_rec(exec)->comm, "smp_tasks"),
		"EXEC for the child after it, named smp_tasks");
	t_check(exec >= 0 && find_mmap(exec, pid, "/smp_tasks") > exec &&
		find_mmap(exec, pid, "/ld-linux-x86-64.so.2") > exec &&
		find_mmap(exec, pid, "[vdso]") > exec &&
		find_mmap(exec, pid, "/libc.so.6") > exec,
		"after the EXEC: smp_tasks, ld.so, the vDSO and libc mapped");

	for (i = exec > 0 ? exec : 0; i < (int)nrecs; i++) {
		const struct lwprof_rec_task *t = task_rec(i);

		if (!t || t->event != LWPROF_TASK_FORK || t->pid != (__u32)pid)
			continue;
		for (k = 0; k < ntids && tids[k] != (int)t->tid; k++)
			;
		if (k < ntids || t->tid == (__u32)pid || ntids == 64) {
			forks_ok = 0;
			continue;
		}
		tids[ntids++] = t->tid;
	}
	t_check(ntids == 64 && forks_ok,
		"64 FORKs of new threads of the child's process (%d)", ntids);
	for (k = 0; k < 64; k++) {
		char name[16];
		int found = 0;

		snprintf(name, sizeof(name), "w%d", k);
		for (i = 0; i < (int)nrecs && !found; i++) {
			const struct lwprof_rec_task *t = task_rec(i);

			found = t && t->event == LWPROF_TASK_COMM &&
				t->pid == (__u32)pid && !strcmp(t->comm, name);
		}
		names += found;
	}
	t_check(names == 64, "COMM records name them w0 ... w63 (%d)", names);
	for (k = 0; k < ntids; k++) {
		e = find_task(0, pid, tids[k], LWPROF_TASK_EXIT);
		exits += e > find_task(0, pid, tids[k], LWPROF_TASK_FORK);
	}
	t_check(exits == 64, "each thread has an EXIT after its FORK (%d)", exits);

	i = find_task(0, gc, gc, LWPROF_TASK_FORK);
	t_check(gc > 0 && i >= 0 && task_rec(i)->ppid == (__u32)pid,
		"FORK of the grandchild process %d, parent %d", gc, pid);
	e = find_task(0, gc, gc, LWPROF_TASK_EXEC);
	t_check(e > i && !strcmp(task_rec(e)->comm, "true"),
		"then its EXEC, named true");
	t_check(e >= 0 && find_mmap(e, gc, "/true") > e,
		"then /usr/bin/true mapped");
	t_check(find_task(0, gc, gc, LWPROF_TASK_EXIT) > e,
		"and its EXIT");
	t_check(find_task(0, pid, pid, LWPROF_TASK_EXIT) >
		find_task(0, gc, gc, LWPROF_TASK_EXIT),
		"the child's EXIT comes last");
	lwr_close(&r);
}

static void dlopen_map(void)
{
	char prog[512];
	char *argv[] = { prog, NULL };
	unsigned int in = 0, clock = 0;
	const struct lwprof_rec_mmap *m = NULL;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	uint64_t t0, cosine;
	struct lwr r;
	int pid, i;

	snprintf(prog, sizeof(prog), "%s/tests/progs/smp_dlopen",
		 getenv("LWPROF_BUILD") ? : "build");
	printf("# dlopen\n");
	collect(&r, argv, 1000000, &pid);
	t0 = out_value("dlopen", 10);
	cosine = out_value("cos 0x", 16);
	sort_records(&r);
	i = find_mmap(0, pid, "/libm.so.6");
	if (i >= 0)
		m = mmap_rec(i);
	t_check(m && m->time_ns >= t0,
		"libm.so.6's code is mapped, after the program's time before dlopen() (%+.3f ms)",
		m ? ((double)m->time_ns - (double)t0) / 1e6 : 0.0);
	if (!m)
		goto out;
	printf("# %llx-%llx %s offset %llx\n", (unsigned long long)m->start,
	       (unsigned long long)(m->start + m->len), m->path,
	       (unsigned long long)m->pgoff);
	t_check(t0 > 0 && cosine >= m->start && cosine < m->start + m->len,
		"cos (%llx) lies inside it", (unsigned long long)cosine);
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		if (rec->type != LWPROF_REC_SAMPLE || s->pid != (__u32)pid ||
		    !s->nr_user || s->time_ns < m->time_ns)
			continue;
		clock++;
		in += lwr_ips(s)[0] >= m->start &&
		      lwr_ips(s)[0] < m->start + m->len;
	}
	t_check(in > 0 && in * 4 >= clock,
		"the pc of clock packets after it falls inside it (%u of %u)",
		in, clock);
out:
	lwr_close(&r);
}

int main(void)
{
	lwr_test_begin();
	tasks();
	dlopen_map();
	return lwr_test_end();
}
