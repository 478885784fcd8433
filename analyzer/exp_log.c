// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment's text files: log.txt (key = value), usage.txt (the
 * module's precise per-thread totals) and archives/index.txt.  A line that
 * does not parse is an error naming the file, line and byte offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "libexp/format.h"
#include "libexp/mstate_names.h"

/* Read a whole small text file; *len gets its length.  NUL bytes are an error. */
static int slurp(struct an *an, const char *path, char **buf, size_t *len,
		 bool must)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, n = 0, r;
	char *b, *nb;

	*buf = NULL;
	if (!f) {
		if (!must && errno == ENOENT)
			return -ENOENT;
		return an_errf(an, -errno, "%s: %s", path, strerror(errno));
	}
	b = malloc(cap + 1);
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			if (cap >= (64u << 20)) {
				free(b);
				fclose(f);
				return an_errf(an, -EFBIG, "%s: larger than 64 MiB", path);
			}
			nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!b)
		return an_errf(an, -ENOMEM, "%s: out of memory", path);
	b[n] = 0;
	if (memchr(b, 0, n)) {
		size_t off = (char *)memchr(b, 0, n) - b;

		free(b);
		return an_errf(an, -EINVAL, "%s: byte %zu: NUL byte in a text file",
			       path, off);
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Iterate lines: returns the next line (NUL-terminated in place) or NULL. */
struct lines {
	char *p, *end, *start;
	unsigned long no;
	size_t off;
};

static char *next_line(struct lines *l)
{
	char *s = l->p, *nl;

	if (s >= l->end)
		return NULL;
	nl = memchr(s, '\n', l->end - s);
	if (!nl)
		nl = l->end;
	*nl = 0;
	l->p = nl + 1;
	l->no++;
	l->off = s - l->start;
	return s;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (parse_u64(s, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

static int log_counter(struct an_exp *e, char *v)
{
	struct an_counter c;
	char *f[4], *save = NULL;
	int i;

	for (i = 0; i < 4; i++) {
		f[i] = strtok_r(i ? NULL : v, ",", &save);
		if (!f[i])
			return -EINVAL;
	}
	if (strlen(f[0]) >= sizeof(c.name) || !f[0][0] ||
	    parse_u64(f[1], &c.interval) || parse_u32(f[2], &c.type) ||
	    parse_u64(f[3], &c.config))
		return -EINVAL;
	strcpy(c.name, f[0]);
	if (!an_vec_push(&e->counters))
		return -ENOMEM;
	AN_VEC(e->counters, struct an_counter, e->counters.n - 1) = c;
	return 0;
}

/*
 * "metric = NAME STATUS: why" (the perf backend's, format 1.3): NAME a
 * microstate's name, STATUS exact, approximate or absent.  Kept for
 * -header; an absent microstate is shown as absent, never as 0.
 */
static int log_metric(struct an_exp *e, const char *v)
{
	size_t n = strcspn(v, " ");
	char **w;
	int i;

	if (!v[n])
		return -EINVAL;
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (strlen(exp_mstate_names[i].name) == n &&
		    !strncmp(v, exp_mstate_names[i].name, n) &&
		    !strncmp(v + n + 1, "absent", 6))
			e->ms_absent |= 1u << i;
	e->metric_notes.esz = sizeof(char *);
	w = an_vec_push(&e->metric_notes);
	if (!w)
		return -ENOMEM;
	*w = strdup(v);
	return *w ? 0 : -ENOMEM;
}

static int log_key(struct an_exp *e, const char *k, char *v)
{
	static const struct { const char *k; size_t off; } strs[] = {
		{ "command", offsetof(struct an_exp, command) },
		{ "mode", offsetof(struct an_exp, mode) },
		{ "host", offsetof(struct an_exp, host) },
		{ "kernel", offsetof(struct an_exp, kernel) },
		{ "arch", offsetof(struct an_exp, arch) },
		{ "start_time", offsetof(struct an_exp, start_time) },
		{ "end_time", offsetof(struct an_exp, end_time) },
		{ "abi", offsetof(struct an_exp, abi) },
		{ "module_version", offsetof(struct an_exp, module_version) },
		{ "exit", offsetof(struct an_exp, exit) },
		{ "stopped", offsetof(struct an_exp, stopped) },
		{ "flight", offsetof(struct an_exp, flight) },
		{ "trace", offsetof(struct an_exp, trace) },
		{ "sync_calibration", offsetof(struct an_exp, sync_calibration) },
		{ "backend", offsetof(struct an_exp, backend) },
	};
	static const struct { const char *k; size_t off; } u64s[] = {
		{ "start_ns", offsetof(struct an_exp, start_ns) },
		{ "end_ns", offsetof(struct an_exp, end_ns) },
		{ "clock_interval_ns", offsetof(struct an_exp, clock_interval_ns) },
		{ "records", offsetof(struct an_exp, records) },
		{ "lost", offsetof(struct an_exp, lost) },
		{ "sync_threshold_ns", offsetof(struct an_exp, sync_ns) },
		{ "trace_files", offsetof(struct an_exp, ntrace_files) },
		{ "trace_calls", offsetof(struct an_exp, trace_calls) },
	};
	static const struct { const char *k; size_t off; } u32s[] = {
		{ "target", offsetof(struct an_exp, target) },
		{ "cpus", offsetof(struct an_exp, cpus) },
		{ "cpus_possible", offsetof(struct an_exp, cpus_possible) },
		{ "max_depth", offsetof(struct an_exp, max_depth) },
		{ "stack_bytes", offsetof(struct an_exp, stack_bytes) },
		{ "kernel_stacks", offsetof(struct an_exp, kernel_stacks) },
		{ "kallsyms_hidden", offsetof(struct an_exp, kallsyms_hidden) },
		{ "trace_stack_bytes", offsetof(struct an_exp, trace_stack_bytes) },
	};
	char *base = (char *)e, *end, **w;
	size_t i;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(k, strs[i].k))
			return set_str((char **)(base + strs[i].off), v);
	for (i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++)
		if (!strcmp(k, u64s[i].k))
			return parse_u64(v, (uint64_t *)(base + u64s[i].off));
	for (i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++)
		if (!strcmp(k, u32s[i].k))
			return parse_u32(v, (uint32_t *)(base + u32s[i].off));
	if (!strcmp(k, "cpu_mhz")) {
		errno = 0;
		e->cpu_mhz = strtod(v, &end);
		return errno || *end || !(e->cpu_mhz >= 0) ? -EINVAL : 0;
	}
	if (!strcmp(k, "counter"))
		return log_counter(e, v);
	if (!strcmp(k, "metric"))
		return log_metric(e, v);
	if (!strcmp(k, "warning")) {
		e->warnings.esz = sizeof(char *);
		w = an_vec_push(&e->warnings);
		if (!w)
			return -ENOMEM;
		*w = strdup(v);
		return *w ? 0 : -ENOMEM;
	}
	return 0;	/* lost.cpuN, clock and keys of later minors */
}

int an_read_log(struct an *an, struct an_exp *e)
{
	char path[4096], *buf, *s, *eq, *k, *v, *x;
	struct lines l;
	size_t len;
	int err, maj, min, n;

	snprintf(path, sizeof(path), "%s/log.txt", e->dir);
	err = slurp(an, path, &buf, &len, true);
	if (err)
		return err;
	l = (struct lines){ buf, buf + len, buf, 0, 0 };
	s = next_line(&l);
	if (!s || sscanf(s, "lwprof experiment %d.%d%n", &maj, &min, &n) != 2 ||
	    s[n]) {
		err = an_errf(an, -EINVAL,
			      "%s: byte 0: not an lwprof experiment log (first line '%.40s')",
			      path, s ? s : "");
		free(buf);
		return err;
	}
	if (maj != EXP_FILE_MAJOR) {
		free(buf);
		return an_errf(an, -EPROTO,
			       "%s: byte 18: experiment format %d.%d; this lwprof reads %d.x",
			       path, maj, min, EXP_FILE_MAJOR);
	}
	e->fmt_major = maj;
	e->fmt_minor = min;
	while ((s = next_line(&l))) {
		if (!*s || *s == '#')
			continue;
		eq = strstr(s, " = ");
		if (!eq) {
			err = -EINVAL;
			goto bad;
		}
		*eq = 0;
		k = s;
		v = eq + 3;
		for (x = k; *x; x++)
			if (*x == ' ' || *x == '\t')
				break;
		if (!*k || *x) {
			err = -EINVAL;
			goto bad;
		}
		err = log_key(e, k, v);
		if (err == -ENOMEM) {
			free(buf);
			return an_errf(an, err, "out of memory");
		}
		if (err)
			goto bad;
	}
	free(buf);
	if (e->end_ns && e->end_ns < e->start_ns)
		return an_errf(an, -EINVAL, "%s: end_ns %" PRIu64 " before start_ns %" PRIu64,
			       path, e->end_ns, e->start_ns);
	return 0;
bad:
	an_errf(an, err, "%s: line %lu (byte %zu): bad %s line", path, l.no,
		l.off, eq ? k : "key = value");
	free(buf);
	return err;
}

int an_read_usage(struct an *an, struct an_exp *e)
{
	char path[4096], *buf, *s, *tok[22], *save;
	struct an_usage *u;
	struct lines l;
	size_t len;
	int err, i;

	snprintf(path, sizeof(path), "%s/usage.txt", e->dir);
	err = slurp(an, path, &buf, &len, false);
	if (err == -ENOENT && !e->clock_interval_ns && !e->counters.n)
		return 0;	/* tracing only: no thread was accounted */
	if (err == -ENOENT) {
		/*
		 * only the module keeps precise totals; a flight recorder's
		 * window has none: they are the run's
		 */
		if ((!e->backend || !strcmp(e->backend, "module")) && !e->flight)
			an_warn(an, "%s: missing: no precise totals for -statistics",
				path);
		return 0;
	}
	if (err)
		return err;
	e->usage.esz = sizeof(struct an_usage);
	l = (struct lines){ buf, buf + len, buf, 0, 0 };
	while ((s = next_line(&l))) {
		if (!*s || *s == '#')
			continue;
		u = an_vec_push(&e->usage);
		if (!u) {
			free(buf);
			return an_errf(an, -ENOMEM, "out of memory");
		}
		save = NULL;
		for (i = 0; i < 22; i++) {
			tok[i] = strtok_r(i ? NULL : s, " \t", &save);
			if (!tok[i])
				goto bad;
		}
		if (parse_u32(tok[0], &u->pid) || parse_u32(tok[1], &u->tid) ||
		    parse_u32(tok[2], &u->ppid) || parse_u64(tok[4], &u->start_ns) ||
		    parse_u64(tok[5], &u->end_ns))
			goto bad;
		{
			char *end;

			errno = 0;
			u->flags = strtoul(tok[3], &end, 16);
			if (errno || *end)
				goto bad;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			if (parse_u64(tok[6 + i], &u->ms[i]))
				goto bad;
		if (parse_u64(tok[16], &u->vcsw) || parse_u64(tok[17], &u->ivcsw) ||
		    parse_u64(tok[18], &u->minflt) || parse_u64(tok[19], &u->majflt) ||
		    parse_u64(tok[20], &u->syscalls) || parse_u64(tok[21], &u->signals))
			goto bad;
		s = strtok_r(NULL, "", &save);
		snprintf(u->comm, sizeof(u->comm), "%s", s ? s : "");
	}
	free(buf);
	return 0;
bad:
	err = an_errf(an, -EINVAL, "%s: line %lu (byte %zu): bad usage line",
		      path, l.no, l.off);
	free(buf);
	return err;
}

int an_read_index(struct an *an, struct an_exp *e)
{
	char path[4096], file[4096], *buf, *s, *tok[5], *save, *orig;
	struct an_archive *a;
	struct lines l;
	size_t len;
	int err, i;

	snprintf(path, sizeof(path), "%s/archives/index.txt", e->dir);
	err = slurp(an, path, &buf, &len, false);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	e->archives.esz = sizeof(struct an_archive);
	l = (struct lines){ buf, buf + len, buf, 0, 0 };
	while ((s = next_line(&l))) {
		if (!*s || *s == '#')
			continue;
		save = NULL;
		for (i = 0; i < 5; i++) {
			tok[i] = strtok_r(i ? NULL : s, " \t", &save);
			if (!tok[i])
				goto bad;
		}
		orig = strtok_r(NULL, "", &save);
		while (orig && (*orig == ' ' || *orig == '\t'))
			orig++;
		if (!orig || !*orig || strlen(tok[0]) >= 64 ||
		    strstr(tok[4], "..") || tok[4][0] == '/')
			goto bad;
		a = an_vec_push(&e->archives);
		if (!a)
			goto nomem;
		snprintf(a->buildid, sizeof(a->buildid), "%s", tok[0]);
		if (sscanf(tok[1], "%u:%u", &a->dev_major, &a->dev_minor) != 2 ||
		    parse_u64(tok[2], &a->ino) || parse_u64(tok[3], &a->size)) {
			e->archives.n--;
			goto bad;
		}
		snprintf(file, sizeof(file), "%s/archives/%s", e->dir, tok[4]);
		a->file = strdup(file);
		a->orig = strdup(orig);
		if (!a->file || !a->orig)
			goto nomem;
	}
	free(buf);
	return 0;
nomem:
	free(buf);
	return an_errf(an, -ENOMEM, "out of memory");
bad:
	err = an_errf(an, -EINVAL, "%s: line %lu (byte %zu): bad index line",
		      path, l.no, l.off);
	free(buf);
	return err;
}
