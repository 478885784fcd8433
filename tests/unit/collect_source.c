// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof collect's recording interface (struct rec_ops,
 * userspace/backend/backend.h) with a source that is not a backend: three
 * rings in this process's memory,
 * filled by a thread, announced on an eventfd, no usage, with
 * /dev/lwprof out of reach.  collect_run() must record the command with
 * it alone: every byte the source published, in order, in the cpu.N.rec
 * file of its ring (4 KiB rings that wrap 16 times, records cut at the
 * end), the files' headers with the source's ABI, the source's notes,
 * totals, losses and warnings in log.txt, the file its MMAP record names
 * archived, no usage.txt, and the command's exit status.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test.h"
#include "userspace/collect/collect.h"
#include "libexp/format.h"

#define NR	3
#define RING	4096
#define BYTES	(16 * RING)	/* published per ring */
#define ABI_MINOR	77	/* not the module's */

/* The source; it outlives collect_run() for the checks. */
struct tsrc {
	struct rec_source s;
	struct rec_ring rings[NR];
	__u64 head[NR], tail[NR];
	unsigned char data[NR][RING];
	unsigned char copy[NR][BYTES + PATH_MAX + 256];	/* the truth */
	__u64 len[NR];		/* bytes published */
	__u64 made;		/* records published */
	char exe[PATH_MAX];
	char done[PATH_MAX];	/* created once all is published */
	pthread_t thread;
	bool opened, started, stopped, closed;
};

static struct tsrc the;

static struct tsrc *tsrc(struct rec_source *s)
{
	return (struct tsrc *)s;
}

/* Put rec (n bytes) into ring i once it has room, and announce it. */
static void publish(struct tsrc *t, unsigned int i, const void *rec, size_t n)
{
	__u64 head = t->head[i], k;

	/* Pairs with the drain's store-release of tail. */
	while (head + n - __atomic_load_n(&t->tail[i], __ATOMIC_ACQUIRE) > RING)
		sched_yield();
	for (k = 0; k < n; k++)
		t->data[i][(head + k) % RING] = ((const unsigned char *)rec)[k];
	memcpy(t->copy[i] + t->len[i], rec, n);
	t->len[i] += n;
	t->made++;
	/* The bytes before head. */
	__atomic_store_n(&t->head[i], head + n, __ATOMIC_RELEASE);
	eventfd_write(t->s.poll_fd, 1);
}

/* The MMAP record of this program, mapped by process 1 (not the command). */
static void put_mmap(struct tsrc *t)
{
	union {
		struct lwprof_rec_mmap m;
		unsigned char b[sizeof(struct lwprof_rec_mmap) + PATH_MAX + 8];
	} r;
	size_t plen = strlen(t->exe) + 1;
	struct stat st;

	if (stat(t->exe, &st))
		t_fatal(t->exe);
	memset(&r, 0, sizeof(r));
	r.m.hdr.type = LWPROF_REC_MMAP;
	r.m.hdr.size = (sizeof(r.m) + plen + 7) & ~7UL;
	r.m.time_ns = 1000;
	r.m.pid = r.m.tid = 1;
	r.m.start = 0x400000;
	r.m.len = 0x1000;
	r.m.ino = st.st_ino;
	r.m.dev_major = major(st.st_dev);
	r.m.dev_minor = minor(st.st_dev);
	r.m.prot = 5;
	memcpy(r.m.path, t->exe, plen);
	publish(t, 0, &r, r.m.hdr.size);
}

static void *produce(void *arg)
{
	struct tsrc *t = arg;
	struct lwprof_rec_task task;
	unsigned int i, n;
	int fd;

	put_mmap(t);
	for (n = 0; t->len[NR - 1] + sizeof(task) <= BYTES; n++)
		for (i = 0; i < NR; i++) {
			memset(&task, 0, sizeof(task));
			task.hdr.type = LWPROF_REC_TASK;
			task.hdr.size = sizeof(task);
			task.time_ns = 2000 + n;
			task.pid = 100 + i;
			task.tid = 100 + i + n;
			task.event = LWPROF_TASK_START;
			snprintf(task.comm, sizeof(task.comm), "t%u.%u", i, n);
			publish(t, i, &task, sizeof(task));
		}
	fd = open(t->done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void t_close(struct rec_source *s)
{
	struct tsrc *t = tsrc(s);

	if (t->started && !t->stopped)
		pthread_join(t->thread, NULL);
	close(t->s.poll_fd);
	t->closed = true;
}

static int t_open(const struct rec_opts *o, struct rec_source **sp,
		  char *msg, size_t len)
{
	extern const struct rec_ops test_source;
	struct tsrc *t = &the;

	t->s.ops = &test_source;
	t->s.poll_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->s.poll_fd < 0 ||
	    readlink("/proc/self/exe", t->exe, sizeof(t->exe) - 1) <= 0) {
		snprintf(msg, len, "test source: %s", strerror(errno));
		return -errno;
	}
	t->opened = true;
	*sp = &t->s;
	return 0;
}

static int t_setup(struct rec_source *s, int pid, struct exp_writer *e,
		   char *msg, size_t len)
{
	struct tsrc *t = tsrc(s);
	unsigned int i;

	for (i = 0; i < NR; i++)
		t->rings[i] = (struct rec_ring){ t->data[i], RING, &t->head[i],
						 &t->tail[i] };
	t->s.rings = t->rings;
	t->s.nr_rings = NR;
	t->s.abi_major = LWPROF_ABI_MAJOR;
	t->s.abi_minor = ABI_MINOR;
	return exp_note(e, EXP_K_SOURCE, "test memory rings (pid %d)", pid);
}

static int t_start(struct rec_source *s, char *msg, size_t len)
{
	struct tsrc *t = tsrc(s);
	int err = pthread_create(&t->thread, NULL, produce, t);

	t->started = !err;
	return -err;
}

static void t_stop(struct rec_source *s, struct exp_writer *e)
{
	struct tsrc *t = tsrc(s);

	pthread_join(t->thread, NULL);
	t->stopped = true;
	e->records = t->made;
	e->lost = 3;
}

static void t_finish(struct rec_source *s, struct exp_writer *e)
{
	e->lost_file[1] = 3;
	exp_warn(e, "test source: 3 records lost on ring 1");
}

const struct rec_ops test_source = {
	.name = "test",
	.open = t_open,
	.setup = t_setup,
	.start = t_start,
	.stop = t_stop,
	.finish = t_finish,
	.close = t_close,
};

/* The whole file dir/name into a malloc'd buffer; *n its size. */
static unsigned char *slurp(const char *name, size_t *n)
{
	unsigned char *b = NULL;
	struct stat st;
	int fd = open(name, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !(b = malloc(st.st_size + 1)) ||
	    read(fd, b, st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	} else {
		b[st.st_size] = 0;
		*n = st.st_size;
	}
	if (fd >= 0)
		close(fd);
	return b;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p += n)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

static void check_files(struct tsrc *t)
{
	struct exp_file_header *h;
	unsigned int i;
	char name[64];
	size_t n;
	unsigned char *b;

	for (i = 0; i < NR; i++) {
		snprintf(name, sizeof(name), "src.er/cpu.%u.rec", i);
		b = slurp(name, &n);
		t_check(b && n == sizeof(*h) + t->len[i] &&
			!memcmp(b + sizeof(*h), t->copy[i], t->len[i]),
			"%s holds the %llu bytes ring %u published (%zu bytes)",
			name, (unsigned long long)t->len[i], i, b ? n : 0);
		h = (void *)b;
		t_check(b && !memcmp(h->magic, EXP_FILE_MAGIC, 8) &&
			h->cpu == i && h->abi_major == LWPROF_ABI_MAJOR &&
			h->abi_minor == ABI_MINOR,
			"  its header: ring %u, the source's ABI %u.%u", i,
			LWPROF_ABI_MAJOR, ABI_MINOR);
		free(b);
	}
	t_check(access("src.er/cpu.3.rec", F_OK), "no fourth file");
}

static void check_log(struct tsrc *t, int child)
{
	char line[PATH_MAX + 64];
	unsigned char *b;
	const char *log;
	size_t n;

	b = slurp("src.er/log.txt", &n);
	log = b ? (const char *)b : "";
	snprintf(line, sizeof(line), "source = test memory rings (pid %d)",
		 child);
	t_check(has_line(log, line), "log.txt: the source's note: %s", line);
	t_check(strstr(log, "kernel_stacks = 0\nsource = ") != NULL,
		"  after the settings");
	t_check(!strstr(log, "module_version") && !strstr(log, "ring_pages"),
		"  nothing of the module's");
	snprintf(line, sizeof(line), "records = %llu",
		 (unsigned long long)t->made);
	t_check(has_line(log, line), "log.txt: %s, the source's total", line);
	t_check(has_line(log, "lost = 3") && has_line(log, "lost.cpu1 = 3") &&
		!strstr(log, "lost.cpu0") && !strstr(log, "lost.cpu2"),
		"log.txt: lost = 3, all on ring 1");
	t_check(has_line(log, "warning = test source: 3 records lost on ring 1"),
		"log.txt: the source's warning");
	t_check(has_line(log, "cpus_possible = 3"), "log.txt: cpus_possible = 3");
	t_check(has_line(log, "exit = status 5"), "log.txt: exit = status 5");
	snprintf(line, sizeof(line), "target = %d", child);
	t_check(has_line(log, line), "log.txt: %s", line);
	free(b);
}

/* The file the MMAP record named, archived by build-id and identical. */
static void check_archive(struct tsrc *t)
{
	unsigned char *idx, *copy, *orig;
	char id[128], path[PATH_MAX + 256], *p;
	size_t n, m, k;

	idx = slurp("src.er/archives/index.txt", &n);
	p = idx ? strstr((char *)idx, t->exe) : NULL;
	t_check(p && (p[strlen(t->exe)] == '\n'),
		"archives/index.txt lists %s", t->exe);
	if (!p)
		goto out;
	while (p > (char *)idx && p[-1] != '\n')
		p--;
	k = strcspn(p, " ");
	snprintf(id, sizeof(id), "%.*s", (int)(k < sizeof(id) ? k : 0), p);
	snprintf(path, sizeof(path), "src.er/archives/%s/%s", id,
		 strrchr(t->exe, '/') + 1);
	copy = slurp(path, &n);
	orig = slurp(t->exe, &m);
	t_check(copy && orig && n == m && !memcmp(copy, orig, n),
		"  its copy %s is identical", path);
	free(copy);
	free(orig);
out:
	free(idx);
}

int main(void)
{
	char tmp[] = "/tmp/collect_source.XXXXXX", cmd[128];
	char *argv[] = { "collect", "-o", "src.er", "sh", "-c",
			 "until [ -e \"$0\" ]; do sleep 0.01; done; exit 5",
			 NULL, NULL };
	struct rec_opts o;
	unsigned char *log;
	const char *p;
	int rc, child = 0;
	size_t n;

	if (!mkdtemp(tmp) || chdir(tmp))
		t_fatal("mkdtemp");
	snprintf(the.done, sizeof(the.done), "%s/done", tmp);
	argv[6] = the.done;
	/* Any use of the module would fail. */
	setenv("LWPROF_DEVICE", "/nonexistent", 1);
	rc = collect_parse(7, argv, &o);
	t_check(rc == 0, "collect_parse: %d", rc);
	rc = collect_run(&o, &test_source);
	t_check(rc == 5, "collect_run with the test source: the command's status 5 (%d)",
		rc);
	t_check(the.opened && the.stopped && the.closed,
		"the source was opened, stopped and closed");
	check_files(&the);
	log = slurp("src.er/log.txt", &n);
	p = log ? strstr((char *)log, "\ntarget = ") : NULL;
	if (p)
		child = atoi(p + 10);
	free(log);
	t_check(child > 0, "log.txt names the command's process (%d)", child);
	check_log(&the, child);
	check_archive(&the);
	t_check(access("src.er/usage.txt", F_OK) && errno == ENOENT,
		"no usage.txt: the source has none");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (!t_failed && system(cmd))
		printf("note: could not remove %s\n", tmp);
	return t_done();
}
