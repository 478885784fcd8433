// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment directory (docs/experiment-format.md): its name, the
 * cpu.N.rec files and their headers, log.txt and usage.txt.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect.h"
#include "libexp/format.h"
#include "usage.h"

#define TEST_MAX	100000	/* test.1.er ... */

static int make_dir(struct experiment *e, const char *path)
{
	if (mkdir(path, 0755) < 0)
		return -errno;
	e->path = strdup(path);
	if (!e->path) {
		rmdir(path);
		return -ENOMEM;
	}
	e->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->dirfd < 0) {
		int err = -errno;

		rmdir(path);
		return err;
	}
	return 0;
}

int exp_create(struct experiment *e, const struct collect_opts *o)
{
	char path[PATH_MAX];
	int n, err;

	memset(e, 0, sizeof(*e));
	e->dirfd = -1;
	e->opts = o;
	e->exit_status = -1;
	if (o->output) {
		if (o->dir)
			snprintf(path, sizeof(path), "%s/%s", o->dir, o->output);
		else
			snprintf(path, sizeof(path), "%s", o->output);
		err = make_dir(e, path);
		if (err == -EEXIST)
			fprintf(stderr, COLLECT ": %s already exists; choose another -o\n",
				path);
		else if (err)
			fprintf(stderr, COLLECT ": cannot create %s: %s\n", path,
				strerror(-err));
		return err;
	}
	for (n = 1; n <= TEST_MAX; n++) {
		if (o->dir)
			snprintf(path, sizeof(path), "%s/test.%d.er", o->dir, n);
		else
			snprintf(path, sizeof(path), "test.%d.er", n);
		err = make_dir(e, path);
		if (err != -EEXIST)
			break;
	}
	if (err)
		fprintf(stderr, COLLECT ": cannot create %s: %s\n", path,
			strerror(-err));
	return err;
}

int exp_open_files(struct experiment *e, unsigned int nr)
{
	struct exp_file_header h;
	unsigned int i;
	char name[32];

	e->fds = malloc(nr * sizeof(*e->fds));
	e->lost_cpu = calloc(nr, sizeof(*e->lost_cpu));
	if (!e->fds || !e->lost_cpu)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		e->fds[i] = -1;
	e->nr_cpus = nr;
	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "cpu.%u.rec", i);
		e->fds[i] = openat(e->dirfd, name,
				   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (e->fds[i] < 0)
			return -errno;
		exp_file_header_init(&h, i, e->abi.major, e->abi.minor);
		if (pwrite(e->fds[i], &h, sizeof(h), 0) != sizeof(h))
			return errno ? -errno : -EIO;
	}
	return 0;
}

void exp_warn(struct experiment *e, const char *fmt, ...)
{
	char **w, *s;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	fprintf(stderr, COLLECT ": warning: %s\n", s);
	w = realloc(e->warnings, (e->nr_warnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return;
	}
	e->warnings = w;
	w[e->nr_warnings++] = s;
}

/* A word as the shell would need it quoted. */
static void put_word(FILE *f, const char *w)
{
	const char *p;

	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%-") ==
	    strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else if (*p == '\n')
			fputs("'$'\\n''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* Harmonic mean of the CPUs' clock rates, 0 if unknown. */
static double cpu_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	double inv = 0, mhz;
	char line[256];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz > 0) {
			inv += 1 / mhz;
			n++;
		}
	fclose(f);
	return n ? n / inv : 0;
}

static void put_time(FILE *f, const char *key, const struct timespec *ts)
{
	struct tm tm;
	char b[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "%s = %s.%09ldZ\n", key, b, ts->tv_nsec);
}

static void put_exit(FILE *f, const struct experiment *e)
{
	int st = e->exit_status;

	if (st < 0) {
		fprintf(f, "exit = %s\n", e->exited ? "exited" : "running");
	} else if (WIFEXITED(st)) {
		fprintf(f, "exit = status %d\n", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(st));

		fprintf(f, "exit = signal %d SIG%s%s\n", WTERMSIG(st),
			abbrev ? abbrev : "UNKNOWN",
			WCOREDUMP(st) ? " core" : "");
	}
}

static const char *const mode_name[] = { "command", "attach", "machine" };

static void put_log(FILE *f, const struct experiment *e)
{
	const struct collect_opts *o = e->opts;
	struct utsname u;
	unsigned int i;
	char **a;

	fprintf(f, "lwprof experiment %d.%d\n", EXP_FILE_MAJOR,
		EXP_FILE_MINOR);
	if (!e->finished)
		fprintf(f, "# still recording, or the recorder was stopped: no end_ns yet\n");
	if (o->argv && o->mode != MODE_ATTACH) {
		fputs("command =", f);
		for (a = o->argv; *a; a++) {
			fputc(' ', f);
			put_word(f, *a);
		}
		fputc('\n', f);
	}
	fprintf(f, "mode = %s\n", mode_name[o->mode]);
	if (e->target)
		fprintf(f, "target = %d\n", e->target);
	if (!uname(&u))
		fprintf(f, "host = %s\nkernel = %s\narch = %s\n", u.nodename,
			u.release, u.machine);
	fprintf(f, "cpus = %ld\ncpus_possible = %u\n",
		sysconf(_SC_NPROCESSORS_ONLN), e->nr_cpus);
	fprintf(f, "cpu_mhz = %.3f\n", cpu_mhz());
	fprintf(f, "clock = CLOCK_MONOTONIC\n");
	fprintf(f, "start_ns = %llu\n", (unsigned long long)e->start_ns);
	put_time(f, "start_time", &e->start_rt);
	if (e->finished) {
		fprintf(f, "end_ns = %llu\n", (unsigned long long)e->end_ns);
		put_time(f, "end_time", &e->end_rt);
	}
	fprintf(f, "clock_interval_ns = %llu\n",
		(unsigned long long)o->clock_ns);
	for (i = 0; i < o->nr_counters; i++)
		fprintf(f, "counter = %s,%llu,%u,0x%llx\n", o->counters[i].name,
			(unsigned long long)o->counters[i].period,
			o->counters[i].type,
			(unsigned long long)o->counters[i].config);
	fprintf(f, "max_depth = %u\nstack_bytes = %u\nkernel_stacks = %d\n",
		o->depth, o->stack_bytes, o->kstack);
	fprintf(f, "stack_delta = %d\n", !o->no_sdelta &&
		!!(e->abi.features & LWPROF_FEAT_SDELTA));
	fprintf(f, "ring_pages = %u\n", e->ring_pages);
	fprintf(f, "abi = %u.%u\nmodule_version = %.*s\n", e->abi.major,
		e->abi.minor, (int)sizeof(e->abi.module_version),
		e->abi.module_version);
	if (e->finished) {
		fprintf(f, "records = %llu\nlost = %llu\n",
			(unsigned long long)e->records,
			(unsigned long long)e->lost);
		for (i = 0; i < e->nr_cpus; i++)
			if (e->lost_cpu[i])
				fprintf(f, "lost.cpu%u = %llu\n", i,
					(unsigned long long)e->lost_cpu[i]);
		put_exit(f, e);
	}
	for (i = 0; i < e->nr_warnings; i++)
		fprintf(f, "warning = %s\n", e->warnings[i]);
}

/* Write name through a temporary file, so a reader never sees half. */
static int write_file(struct experiment *e, const char *name,
		      void (*fill)(FILE *, const struct experiment *,
				   const void *), const void *arg)
{
	char tmp[64];
	FILE *f;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(e->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	fill(f, e, arg);
	if (fflush(f) || ferror(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && renameat(e->dirfd, tmp, e->dirfd, name) < 0)
		err = -errno;
	if (err)
		unlinkat(e->dirfd, tmp, 0);
	return err;
}

static void fill_log(FILE *f, const struct experiment *e, const void *arg)
{
	put_log(f, e);
}

int exp_write_log(struct experiment *e)
{
	return write_file(e, "log.txt", fill_log, NULL);
}

static void fill_usage(FILE *f, const struct experiment *e, const void *arg)
{
	const struct lwprof_usage_set *u = arg;
	size_t i;
	int j;

	fprintf(f, "# pid tid ppid flags start_ns end_ns user system trap tflt dflt kflt lock sleep stop wait vcsw ivcsw minflt majflt syscalls signals comm\n");
	for (i = 0; i < u->n; i++) {
		const struct lwprof_thread_usage *t = &u->tu[i];
		char comm[sizeof(t->comm) + 1];

		fprintf(f, "%u %u %u 0x%x %llu %llu", t->pid, t->tid, t->ppid,
			t->flags, (unsigned long long)t->start_ns,
			(unsigned long long)t->end_ns);
		for (j = 0; j < LWPROF_MS_COUNT; j++)
			fprintf(f, " %llu", (unsigned long long)t->mstate_ns[j]);
		fprintf(f, " %llu %llu %llu %llu %llu %llu",
			(unsigned long long)t->vcsw,
			(unsigned long long)t->ivcsw,
			(unsigned long long)t->minflt,
			(unsigned long long)t->majflt,
			(unsigned long long)t->syscalls,
			(unsigned long long)t->signals);
		memcpy(comm, t->comm, sizeof(t->comm));
		comm[sizeof(t->comm)] = 0;
		for (j = 0; comm[j]; j++)
			if ((unsigned char)comm[j] < 0x20 || comm[j] == 0x7f)
				comm[j] = '?';
		fprintf(f, " %s\n", comm);
	}
}

int exp_write_usage(struct experiment *e, const struct lwprof_usage_set *u)
{
	return write_file(e, "usage.txt", fill_usage, u);
}

void exp_remove(struct experiment *e)
{
	unsigned int i;
	char name[32];

	if (e->dirfd < 0)
		return;
	for (i = 0; i < e->nr_cpus; i++) {
		snprintf(name, sizeof(name), "cpu.%u.rec", i);
		unlinkat(e->dirfd, name, 0);
	}
	unlinkat(e->dirfd, "log.txt", 0);
	rmdir(e->path);
}

void exp_free(struct experiment *e)
{
	size_t i;

	if (e->fds)
		for (i = 0; i < e->nr_cpus; i++)
			if (e->fds[i] >= 0)
				close(e->fds[i]);
	if (e->dirfd >= 0)
		close(e->dirfd);
	for (i = 0; i < e->nr_warnings; i++)
		free(e->warnings[i]);
	free(e->warnings);
	free(e->fds);
	free(e->lost_cpu);
	free(e->path);
	memset(e, 0, sizeof(*e));
	e->dirfd = -1;
}
