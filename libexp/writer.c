// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment writer (writer.h, docs/design/experiment-format.md): the
 * directory's name, the cpu.N.rec files and their headers, log.txt,
 * usage.txt and archives/index.txt (their lines: log.c, usage.c,
 * archives.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libexp/format.h"
#include "libexp/internal.h"
#include "libexp/writer.h"

#define TEST_MAX	100000	/* test.1.er ... */

static int make_dir(struct exp_writer *e, const char *path)
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

void exp_init(struct exp_writer *e)
{
	memset(e, 0, sizeof(*e));
	e->dirfd = -1;
	e->exit_status = -1;
	e->samples_fd = -1;
}

int exp_create(struct exp_writer *e, const char *dir, const char *name,
	       char *path, size_t len)
{
	char test[32];
	int n, err;

	exp_init(e);
	for (n = 1; n <= TEST_MAX; n++) {
		if (!name)
			snprintf(test, sizeof(test), "test.%d.er", n);
		if (dir)
			snprintf(path, len, "%s/%s", dir, name ? name : test);
		else
			snprintf(path, len, "%s", name ? name : test);
		err = make_dir(e, path);
		if (err != -EEXIST || name)
			break;
	}
	return err;
}

int exp_create_files(struct exp_writer *e, unsigned int nr, __u32 abi_major,
		     __u32 abi_minor)
{
	struct exp_file_header h;
	unsigned int i;
	char name[32];

	e->fds = malloc(nr * sizeof(*e->fds));
	e->lost_file = calloc(nr, sizeof(*e->lost_file));
	if (!e->fds || !e->lost_file)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		e->fds[i] = -1;
	e->nr_files = nr;
	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), EXP_REC_FMT, i);
		e->fds[i] = openat(e->dirfd, name,
				   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (e->fds[i] < 0)
			return -errno;
		exp_file_header_init(&h, i, abi_major, abi_minor);
		if (pwrite(e->fds[i], &h, sizeof(h), 0) != sizeof(h))
			return errno ? -errno : -EIO;
	}
	return 0;
}

int exp_create_samples(struct exp_writer *e, __u32 abi_major, __u32 abi_minor)
{
	struct exp_file_header h;

	e->samples_fd = openat(e->dirfd, EXP_SAMPLES,
			       O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
			       0644);
	if (e->samples_fd < 0)
		return -errno;
	e->has_samples = true;
	exp_file_header_init(&h, EXP_CPU_NONE, abi_major, abi_minor);
	return exp_write_gsample(e, &h, sizeof(h));
}

size_t exp_gsample_encode(void *buf, size_t cap,
			  const struct exp_rec_gsample *g, const char *name)
{
	struct exp_rec_gsample *r = buf;
	size_t n = name ? strnlen(name, EXP_GS_NAME_MAX - 1) : 0;
	size_t size = sizeof(*r) + (name ? (n + 1 + 7) & ~(size_t)7 : 0);

	if (size > cap)
		return 0;
	memset(buf, 0, size);
	memcpy(r, g, sizeof(*r));
	r->hdr.type = EXP_REC_GSAMPLE;
	r->hdr.size = size;
	r->name_len = name ? n + 1 : 0;
	if (name)
		memcpy(r->name, name, n);
	return size;
}

int exp_write_gsample(struct exp_writer *e, const void *rec, size_t size)
{
	ssize_t n;

	if (!e->has_samples)
		return -EBADF;
	n = write(e->samples_fd, rec, size);
	if (n != (ssize_t)size)
		return n < 0 ? -errno : -EIO;
	e->samples_bytes += size;
	return 0;
}

/* Append s (taken) to the list *v of *n; -ENOMEM frees it. */
static int push(char ***v, size_t *n, char *s)
{
	char **w = realloc(*v, (*n + 1) * sizeof(*w));

	if (!w) {
		free(s);
		return -ENOMEM;
	}
	*v = w;
	w[(*n)++] = s;
	return 0;
}

/* The formatted string, or NULL (out of memory). */
static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

int exp_note(struct exp_writer *e, enum exp_key key, const char *fmt, ...)
{
	struct exp_note *w;
	va_list ap;
	char *v;

	va_start(ap, fmt);
	v = vformat(fmt, ap);
	va_end(ap);
	w = v ? realloc(e->notes, (e->nr_notes + 1) * sizeof(*w)) : NULL;
	if (!w) {
		free(v);
		return -ENOMEM;
	}
	e->notes = w;
	w[e->nr_notes++] = (struct exp_note){ key, v };
	return 0;
}

void exp_warn(struct exp_writer *e, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	if (e->who)
		fprintf(stderr, "%s: warning: %s\n", e->who, s);
	push(&e->warnings, &e->nr_warnings, s);
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

static void put_time(FILE *f, enum exp_key key, const struct timespec *ts)
{
	struct tm tm;
	char b[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	exp_log_put(f, key, "%s.%09ldZ", b, ts->tv_nsec);
}

static void put_exit(FILE *f, const struct exp_writer *e)
{
	int st = e->exit_status;

	if (st < 0) {
		exp_log_put(f, EXP_K_EXIT, "%s", e->exited ? "exited" : "running");
	} else if (WIFEXITED(st)) {
		exp_log_put(f, EXP_K_EXIT, "status %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(st));

		exp_log_put(f, EXP_K_EXIT, "signal %d SIG%s%s", WTERMSIG(st),
			    abbrev ? abbrev : "UNKNOWN",
			    WCOREDUMP(st) ? " core" : "");
	}
}

static void put_log(FILE *f, const struct exp_writer *e)
{
	const struct exp_settings *o = &e->set;
	struct utsname u;
	unsigned int i;
	char *const *a;

	fprintf(f, "lwprof experiment %d.%d\n", EXP_FILE_MAJOR,
		EXP_FILE_MINOR);
	if (!e->finished)
		fprintf(f, "# still recording, or the recorder was stopped: no end_ns yet\n");
	if (o->argv) {
		fprintf(f, "%s =", exp_keys[EXP_K_COMMAND].name);
		for (a = o->argv; *a; a++) {
			fputc(' ', f);
			put_word(f, *a);
		}
		fputc('\n', f);
	}
	exp_log_put(f, EXP_K_MODE, "%s", o->mode);
	if (e->target)
		exp_log_put(f, EXP_K_TARGET, "%d", e->target);
	if (!uname(&u)) {
		exp_log_put(f, EXP_K_HOST, "%s", u.nodename);
		exp_log_put(f, EXP_K_KERNEL, "%s", u.release);
		exp_log_put(f, EXP_K_ARCH, "%s", u.machine);
	}
	exp_log_put(f, EXP_K_CPUS, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	exp_log_put(f, EXP_K_CPUS_POSSIBLE, "%u", e->nr_files);
	exp_log_put(f, EXP_K_CPU_MHZ, "%.3f", cpu_mhz());
	exp_log_put(f, EXP_K_CLOCK, "CLOCK_MONOTONIC");
	exp_log_put(f, EXP_K_START_NS, "%llu", (unsigned long long)e->start_ns);
	put_time(f, EXP_K_START_TIME, &e->start_rt);
	if (e->finished) {
		exp_log_put(f, EXP_K_END_NS, "%llu", (unsigned long long)e->end_ns);
		put_time(f, EXP_K_END_TIME, &e->end_rt);
	}
	exp_log_put(f, EXP_K_CLOCK_INTERVAL_NS, "%llu",
		    (unsigned long long)o->clock_ns);
	for (i = 0; i < o->nr_counters; i++)
		exp_log_put(f, EXP_K_COUNTER, "%s,%llu,%u,0x%llx",
			    o->counters[i].name,
			    (unsigned long long)o->counters[i].period,
			    o->counters[i].type,
			    (unsigned long long)o->counters[i].config);
	exp_log_put(f, EXP_K_MAX_DEPTH, "%u", o->depth);
	exp_log_put(f, EXP_K_STACK_BYTES, "%u", o->stack_bytes);
	exp_log_put(f, EXP_K_KERNEL_STACKS, "%d", o->kstack);
	for (i = 0; i < e->nr_notes; i++)
		exp_log_put(f, e->notes[i].key, "%s", e->notes[i].value);
	if (e->finished) {
		exp_log_put(f, EXP_K_RECORDS, "%llu", (unsigned long long)e->records);
		exp_log_put(f, EXP_K_LOST, "%llu", (unsigned long long)e->lost);
		for (i = 0; i < e->nr_files; i++)
			if (e->lost_file[i])
				fprintf(f, "%s%u = %llu\n",
					exp_keys[EXP_K_LOST_CPU].name, i,
					(unsigned long long)e->lost_file[i]);
		put_exit(f, e);
	}
	for (i = 0; i < e->nr_warnings; i++)
		exp_log_put(f, EXP_K_WARNING, "%s", e->warnings[i]);
}

/* Write name through a temporary file, so a reader never sees half. */
static int write_file(struct exp_writer *e, const char *name,
		      void (*fill)(FILE *, const struct exp_writer *,
				   const void *), const void *arg)
{
	const char *base = strrchr(name, '/');
	char tmp[64];
	FILE *f;
	int fd, err = 0;

	/* dir/name: dir/.name.tmp */
	base = base ? base + 1 : name;
	snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp", (int)(base - name), name, base);
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

static void fill_log(FILE *f, const struct exp_writer *e, const void *arg)
{
	put_log(f, e);
}

int exp_write_log(struct exp_writer *e)
{
	return write_file(e, EXP_LOG, fill_log, NULL);
}

#define USAGE_SPILL	"." EXP_USAGE ".tmp"

/*
 * usage.txt is made in USAGE_SPILL: the rows of exited threads are
 * appended as they are read (so the recorder keeps none of them), the
 * live threads' at the end, and the whole is renamed to usage.txt only
 * then, so a reader sees all of it or none.
 */
int exp_append_usage(struct exp_writer *e,
		     const struct lwprof_thread_usage *tu, size_t n)
{
	int fd;

	if (!e->usage_spill) {
		fd = openat(e->dirfd, USAGE_SPILL, O_WRONLY | O_CREAT |
			    O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		e->usage_spill = fdopen(fd, "w");
		if (!e->usage_spill) {
			close(fd);
			unlinkat(e->dirfd, USAGE_SPILL, 0);
			return -ENOMEM;
		}
		exp_usage_put_head(e->usage_spill);
	}
	exp_usage_put(e->usage_spill, tu, n);
	return ferror(e->usage_spill) ? -EIO : 0;
}

int exp_write_usage(struct exp_writer *e,
		    const struct lwprof_thread_usage *tu, size_t n)
{
	int err = exp_append_usage(e, tu, n);

	if (!e->usage_spill)
		return err;
	if (fflush(e->usage_spill) || ferror(e->usage_spill))
		err = err ? err : errno ? -errno : -EIO;
	if (fclose(e->usage_spill) && !err)
		err = -errno;
	e->usage_spill = NULL;
	if (!err && renameat(e->dirfd, USAGE_SPILL, e->dirfd, EXP_USAGE) < 0)
		err = -errno;
	if (err)
		unlinkat(e->dirfd, USAGE_SPILL, 0);
	return err;
}

int exp_archives_dir(struct exp_writer *e)
{
	int fd;

	if (mkdirat(e->dirfd, EXP_ARCHIVES, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(e->dirfd, EXP_ARCHIVES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

struct index_arg {
	const struct exp_archive *v;
	size_t n;
};

static void fill_index(FILE *f, const struct exp_writer *e, const void *arg)
{
	const struct index_arg *x = arg;
	size_t i;

	for (i = 0; i < x->n; i++)
		exp_index_put(f, &x->v[i]);
}

int exp_write_index(struct exp_writer *e, const struct exp_archive *v,
		    size_t n)
{
	struct index_arg x = { v, n };

	return write_file(e, EXP_INDEX, fill_index, &x);
}

void exp_remove(struct exp_writer *e)
{
	unsigned int i;
	char name[32];

	if (e->dirfd < 0)
		return;
	for (i = 0; i < e->nr_files; i++) {
		snprintf(name, sizeof(name), EXP_REC_FMT, i);
		unlinkat(e->dirfd, name, 0);
	}
	if (e->has_samples)
		unlinkat(e->dirfd, EXP_SAMPLES, 0);
	unlinkat(e->dirfd, EXP_LOG, 0);
	unlinkat(e->dirfd, EXP_ARCHIVES, AT_REMOVEDIR);	/* when empty */
	if (e->usage_spill) {
		fclose(e->usage_spill);
		e->usage_spill = NULL;
		unlinkat(e->dirfd, USAGE_SPILL, 0);
	}
	rmdir(e->path);
}

void exp_free(struct exp_writer *e)
{
	size_t i;

	if (e->fds)
		for (i = 0; i < e->nr_files; i++)
			if (e->fds[i] >= 0)
				close(e->fds[i]);
	if (e->dirfd >= 0)
		close(e->dirfd);
	if (e->has_samples)
		close(e->samples_fd);
	if (e->usage_spill)	/* a run that never finished: no usage.txt */
		fclose(e->usage_spill);
	for (i = 0; i < e->nr_notes; i++)
		free(e->notes[i].value);
	for (i = 0; i < e->nr_warnings; i++)
		free(e->warnings[i]);
	free(e->notes);
	free(e->warnings);
	free(e->fds);
	free(e->lost_file);
	free(e->path);
	memset(e, 0, sizeof(*e));
	e->dirfd = -1;
	e->samples_fd = -1;
}
