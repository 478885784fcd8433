// SPDX-License-Identifier: GPL-2.0
/*
 * What the perf source reads from /proc (perf.h): the kernel's
 * futex system-call functions, to tell a futex wait in a switch-out's
 * kernel chain, and, when attaching (-P) or recording the whole machine
 * (-a), the threads and executable mappings that exist, which perf
 * reports only as they change.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

/* The entry points of the system calls that wait on a futex. */
static const char *const futex_syms[PERF_FUTEX_FNS] = {
	"__x64_sys_futex", "__x64_sys_futex_waitv", "__ia32_sys_futex",
	"__ia32_sys_futex_time32",
};

/*
 * A /proc file whole, NUL-terminated: kallsyms is made as it is read, so
 * it is read once.
 */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *b = malloc(cap + 1), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0 || !b) {
		free(b);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += r;
		if (n < cap)
			continue;
		nb = realloc(b, 2 * cap + 1);
		if (!nb) {
			n = 0;	/* an error: nothing found */
			break;
		}
		b = nb;
		cap *= 2;
	}
	close(fd);
	b[n] = 0;
	*len = n;
	return b;
}

/* A kallsyms line's address (hex digits up to the space). */
static __u64 ks_addr(const char *l)
{
	__u64 a = 0;
	int d;

	for (;; l++) {
		d = *l >= '0' && *l <= '9' ? *l - '0' :
		    *l >= 'a' && *l <= 'f' ? *l - 'a' + 10 : -1;
		if (d < 0)
			return a;
		a = a << 4 | d;
	}
}

/* Which futex_syms[] a kallsyms line names ("ADDR T NAME[\t[MOD]]"), or -1. */
static int ks_futex(const char *l, const char *eol)
{
	const char *name = memchr(l, ' ', eol - l);
	size_t n;
	int i;

	if (!name || eol - name < 4 || name[3] != '_')
		return -1;
	name += 3;
	n = strcspn(name, "\t\n");
	for (i = 0; i < PERF_FUTEX_FNS; i++)
		if (strlen(futex_syms[i]) == n && !memcmp(name, futex_syms[i], n))
			return i;
	return -1;
}

void pproc_futex(struct psrc *p)
{
	__u64 addr, start[PERF_FUTEX_FNS] = { 0 }, end[PERF_FUTEX_FNS];
	unsigned int i, found = 0;
	size_t len;
	char *ks = slurp("/proc/kallsyms", &len), *l, *eol;
	int k;

	if (!ks)
		return;
	/* Each function ends where the next symbol above it starts. */
	for (i = 0; i < PERF_FUTEX_FNS; i++)
		end[i] = UINT64_MAX;
	for (l = ks; (eol = strchr(l, '\n')); l = eol + 1) {
		k = ks_futex(l, eol);
		if (k >= 0 && (addr = ks_addr(l)))
			start[k] = addr;
	}
	for (l = ks; (eol = strchr(l, '\n')); l = eol + 1) {
		addr = ks_addr(l);
		for (i = 0; i < PERF_FUTEX_FNS; i++)
			if (start[i] && addr > start[i] && addr < end[i])
				end[i] = addr;
	}
	free(ks);
	for (i = 0; i < PERF_FUTEX_FNS; i++) {
		if (!start[i] || end[i] == UINT64_MAX)
			continue;
		p->futex_fn[found++] = (struct krange){ start[i], end[i] };
	}
	p->nr_futex_fn = found;
	p->futex = found > 0;
}

int pproc_threads(struct psrc *p, int pid, int **tids, unsigned int *n)
{
	char path[64];
	struct dirent *d;
	unsigned int cap = 0;
	int *t = NULL, *nt, err = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	*n = 0;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nt = realloc(t, cap * sizeof(*t));
			if (!nt) {
				err = -ENOMEM;
				break;
			}
			t = nt;
		}
		t[(*n)++] = atoi(d->d_name);
	}
	closedir(dir);
	if (err)
		free(t);
	else
		*tids = t;
	return err;
}

/*
 * Thread tid's name and parent from /proc: 1 if it is running ('R'), 0 if
 * not, -1 if it is gone or a zombie (its EXIT record may be in perf's ring
 * already: a START after it would bring it back).
 */
static int thread_info(int pid, int tid, char comm[16], __u32 *ppid)
{
	char path[96], buf[512], *lp, *rp;
	int st = -1, pp;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		lp = strchr(buf, '(');
		rp = strrchr(buf, ')');
		if (lp && rp && rp > lp && rp[1] == ' ' &&
		    sscanf(rp + 2, "%*c %d", &pp) == 1 && !strchr("ZXx", rp[2])) {
			size_t n = rp - lp - 1;

			memcpy(comm, lp + 1, n < 15 ? n : 15);
			*ppid = pp;
			st = rp[2] == 'R';
		}
	}
	fclose(f);
	return st;
}

static void synth_maps(struct psrc *p, int pid)
{
	char path[64], line[4096 + 256], perms[8], file[4096];
	unsigned long long start, end, off, ino;
	union prec_mmap_buf u;
	unsigned int maj, min;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start,
			   &end, perms, &off, &maj, &min, &ino, file);
		if (n < 7 || perms[2] != 'x')
			continue;
		pout_put(&p->cpu[0].out, prec_mmap(&u, &(struct pmap){
				.pid = pid, .tid = pid, .maj = maj, .min = min,
				.prot = 4 | (perms[0] == 'r') | (perms[1] == 'w') << 1,
				.time = p->start_ns, .start = start,
				.len = end - start, .pgoff = off, .ino = ino,
				.path = file, .path_len = strlen(file) }),
			 0, p->start_ns);
	}
	fclose(f);
}

static void pproc_synth(struct psrc *p, int pid, const int *tids,
			unsigned int n)
{
	struct lwprof_rec_task r;
	unsigned int i;
	int run;

	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.hdr.type = LWPROF_REC_TASK;
		r.hdr.size = sizeof(r);
		r.time_ns = p->start_ns;
		r.pid = pid;
		r.tid = tids[i];
		r.event = LWPROF_TASK_START;
		run = thread_info(pid, tids[i], r.comm, &r.ppid);
		if (run < 0)
			continue;
		pout_put(&p->cpu[0].out, &r, 0, p->start_ns);
		pconv_thread(p->conv, pid, tids[i], run, r.comm);
	}
	synth_maps(p, pid);
}

int pproc_synth_pid(struct psrc *p, int pid)
{
	unsigned int n;
	int *tids, err;

	err = pproc_threads(p, pid, &tids, &n);
	if (err)
		return err;
	pproc_synth(p, pid, tids, n);
	free(tids);
	return n;
}

void pproc_synth_all(struct psrc *p)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int n;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		n = pproc_synth_pid(p, atoi(d->d_name));
		if (n <= 0)
			continue;	/* gone since readdir: nothing to say */
		p->synth_procs++;
		p->synth_threads += n;
	}
	closedir(dir);
}
