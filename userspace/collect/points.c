// SPDX-License-Identifier: GPL-2.0
/*
 * lwprof collect's global sample packets (Oracle's "global (sample)
 * data"; libexp/format.h, EXP_REC_GSAMPLE) and the pause state they
 * mark: each packet carries its time, its kind and name, how long
 * recording has been paused so far, and the target process's statistics
 * read from /proc (page faults, bytes read and written, context switches,
 * resident and swapped memory, CPU times).  Packets go to samples.rec, or
 * to the flight recorder's memory (gs->sink).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexp/format.h"
#include "userspace/collect/collect.h"

/* The whole small file dirfd/name into buf (NUL-terminated): 0 or -errno. */
static int slurp(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* "Key:   N" in text: N, or 0. */
static unsigned long long field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int thr_cmp(const void *a, const void *b)
{
	const struct gs_thr *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The thread tid as read at the pass before (sorted by tid), or NULL. */
static const struct gs_thr *thr_last(const struct gsamp *gs, int tid)
{
	struct gs_thr k = { .tid = tid };

	return gs->thr ? bsearch(&k, gs->thr, gs->nthr, sizeof(k), thr_cmp) : NULL;
}

/*
 * Context switches of the process's live threads (each thread's own).
 * A thread's status, where the counts are, is costly to make (a
 * thousand idle threads: a hundredth of a CPU at a packet a second); its
 * schedstat says how many times it was put on a CPU, and one that has not
 * been since the last packet has not switched: its counts are the last.
 */
static void switches(struct gsamp *gs, int pdir, struct exp_rec_gsample *g)
{
	char buf[4096], name[300];
	struct gs_thr *now = NULL, *x;
	const struct gs_thr *was;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int tfd;
	DIR *d;

	tfd = openat(pdir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return;
	d = fdopendir(tfd);
	if (!d) {
		close(tfd);
		return;
	}
	while ((de = readdir(d))) {
		unsigned long long runs = 0;
		bool ran = true;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (n == cap) {
			x = realloc(now, (cap = cap ? 2 * cap : 64) * sizeof(*now));
			if (!x)
				break;
			now = x;
		}
		x = &now[n];
		x->tid = atoi(de->d_name);
		snprintf(name, sizeof(name), "%s/schedstat", de->d_name);
		if (!slurp(tfd, name, buf, sizeof(buf)) &&
		    sscanf(buf, "%*u %*u %llu", &runs) == 1) {
			was = thr_last(gs, x->tid);
			ran = !was || was->runs != runs;
			if (!ran)
				*x = *was;
		}
		if (ran) {
			snprintf(name, sizeof(name), "%s/status", de->d_name);
			if (slurp(tfd, name, buf, sizeof(buf)))
				continue;
			x->nvcsw = field(buf, "\nvoluntary_ctxt_switches:");
			x->nivcsw = field(buf, "\nnonvoluntary_ctxt_switches:");
			x->runs = runs;
		}
		g->nvcsw += x->nvcsw;
		g->nivcsw += x->nivcsw;
		n++;
	}
	closedir(d);
	qsort(now, n, sizeof(*now), thr_cmp);
	free(gs->thr);
	gs->thr = now;
	gs->nthr = n;
}

/* The statistics of gs's process now into g: 0 or -errno. */
static int stats(struct gsamp *gs, struct exp_rec_gsample *g)
{
	int pid = gs->pid;
	unsigned long long minflt, majflt, ut, st;
	long tck = sysconf(_SC_CLK_TCK);
	char path[32], buf[4096];
	const char *p;
	int pdir, err;

	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	pdir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pdir < 0)
		return -errno;
	err = slurp(pdir, "stat", buf, sizeof(buf));
	p = err ? NULL : strrchr(buf, ')');
	/* after the comm: state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu",
			 &minflt, &majflt, &ut, &st) != 4) {
		close(pdir);
		return err ? err : -EPROTO;
	}
	g->minflt = minflt;
	g->majflt = majflt;
	if (tck > 0) {
		g->utime_ns = ut * (1000000000ULL / tck);
		g->stime_ns = st * (1000000000ULL / tck);
	}
	if (!slurp(pdir, "io", buf, sizeof(buf))) {
		g->rchar = field(buf, "rchar:");
		g->wchar = field(buf, "wchar:");
		g->read_bytes = field(buf, "\nread_bytes:");
		g->write_bytes = field(buf, "\nwrite_bytes:");
	}
	if (!slurp(pdir, "status", buf, sizeof(buf))) {
		g->rss_bytes = field(buf, "\nVmRSS:") << 10;
		g->swap_bytes = field(buf, "\nVmSwap:") << 10;
	}
	switches(gs, pdir, g);
	close(pdir);
	return 0;
}

/*
 * Read the process's statistics now into gs->last: called before the
 * recorder reaps it, so that the last packet still has its final counts.
 */
void gs_refresh(struct gsamp *gs)
{
	struct exp_rec_gsample g;

	memset(&g, 0, sizeof(g));
	if (!stats(gs, &g)) {
		gs->last = g;
		gs->has_last = true;
	}
}

int gs_emit(struct gsamp *gs, int kind, __u64 t, const char *name)
{
	unsigned char buf[sizeof(struct exp_rec_gsample) + EXP_GS_NAME_MAX];
	struct exp_rec_gsample g;
	size_t size;

	/* the process gone: its counts as last read (they are final) */
	gs_refresh(gs);
	if (gs->has_last)
		g = gs->last;
	else
		memset(&g, 0, sizeof(g));
	g.time_ns = t;
	g.kind = kind;
	g.pid = gs->pid > 0 ? gs->pid : 0;
	g.paused_ns = gs->paused_ns;
	if (gs->has_last)
		g.hdr.flags |= EXP_GS_STATS;
	size = exp_gsample_encode(buf, sizeof(buf), &g, name && *name ? name : NULL);
	gs->packets++;
	if (gs->sink) {
		gs->sink(gs->sink_arg, buf, size);
		return 0;
	}
	return exp_write_gsample(gs->e, buf, size);
}

int gs_pause(struct gsamp *gs, __u64 t, const char *name)
{
	if (gs->paused || gs->halted)
		return 0;
	gs->paused = true;
	gs->paused_at = t;
	return gs_emit(gs, EXP_GS_PAUSE, t, name);
}

int gs_resume(struct gsamp *gs, __u64 t, const char *name)
{
	if (!gs->paused || gs->halted)
		return 0;
	gs->paused = false;
	if (t > gs->paused_at)
		gs->paused_ns += t - gs->paused_at;
	gs->last_from = gs->paused_at;
	gs->last_to = t;
	return gs_emit(gs, EXP_GS_RESUME, t, name);
}

/* -y's signal: pause, or resume. */
int gs_toggle(struct gsamp *gs, __u64 t, const char *name)
{
	return gs->paused ? gs_resume(gs, t, name) : gs_pause(gs, t, name);
}

/* The end of recording (stop, -L, -t END): closes the last sample. */
int gs_end(struct gsamp *gs, __u64 t, const char *name)
{
	int err;

	if (gs->halted)
		return 0;
	if (gs->paused && t > gs->paused_at)
		gs->paused_ns += t - gs->paused_at;
	gs->paused = false;
	err = gs_emit(gs, EXP_GS_END, t, name);
	gs->halted = true;
	free(gs->thr);
	gs->thr = NULL;
	gs->nthr = 0;
	return err;
}
