// SPDX-License-Identifier: GPL-2.0
/*
 * The experiment's other files through libexp, written and read back:
 * usage.txt (rows appended during the run, then the live threads'; a
 * comm's control characters made '?'), archives/index.txt (the copies'
 * names as exp_archive_name() makes them, a path with spaces), the record
 * files listed by id (cpu.N.rec by N, the trace files after them, the
 * rest of the directory left out), and the kallsyms and modules copies
 * line by line.  Damaged usage and index lines are refused by line and
 * byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libexp/exp.h"
#include "libexp/format.h"
#include "libexp/reader.h"
#include "libexp/writer.h"
#include "test.h"

static const char *top;

static void put(const char *dir, const char *name, const char *text)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		t_fatal(path);
}

static struct lwprof_thread_usage row(__u32 pid, __u32 tid, __u32 flags,
				      const char *comm, __u64 base)
{
	struct lwprof_thread_usage t = { .pid = pid, .tid = tid, .ppid = 1,
					 .flags = flags, .start_ns = base,
					 .end_ns = base + 1000 };
	int i;

	for (i = 0; i < LWPROF_MS_COUNT; i++)
		t.mstate_ns[i] = base + i;
	t.vcsw = base + 20;
	t.ivcsw = base + 21;
	t.minflt = base + 22;
	t.majflt = base + 23;
	t.syscalls = base + 24;
	t.signals = base + 25;
	memcpy(t.comm, comm, strlen(comm) < sizeof(t.comm) ? strlen(comm) :
	       sizeof(t.comm));
	return t;
}

static bool same_row(const struct exp_usage *u,
		     const struct lwprof_thread_usage *t, const char *comm)
{
	int i;

	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (u->ms[i] != t->mstate_ns[i])
			return false;
	return u->pid == t->pid && u->tid == t->tid && u->ppid == t->ppid &&
	       u->flags == t->flags && u->start_ns == t->start_ns &&
	       u->end_ns == t->end_ns && u->vcsw == t->vcsw &&
	       u->ivcsw == t->ivcsw && u->minflt == t->minflt &&
	       u->majflt == t->majflt && u->syscalls == t->syscalls &&
	       u->signals == t->signals && !strcmp(u->comm, comm);
}

static void written(void)
{
	struct lwprof_thread_usage exited[2], live;
	struct exp_archive arch[2] = {
		{ .buildid = "65a5317d857d1063", .dev_major = 8, .dev_minor = 1,
		  .ino = 1234, .size = 4096 },
		{ .buildid = "-", .dev_major = 0, .dev_minor = 42, .ino = 99,
		  .size = 77 },
	};
	const struct exp_archive *a;
	const struct exp_usage *u;
	char path[4200], name[2][256], want[8400];
	struct exp_writer e;
	struct exp *x;
	size_t n, na;
	int err, adir;

	exp_archive_name(name[0], sizeof(name[0]), arch[0].buildid, 8, 1, 1234,
			 "libc.so.6");
	exp_archive_name(name[1], sizeof(name[1]), NULL, 0, 42, 99, "my lib.so");
	t_check(!strcmp(name[0], "65a5317d857d1063/libc.so.6") &&
		!strcmp(name[1], "nobuildid/0-42-99/my lib.so"),
		"copies named by build-id, else by device and inode: %s, %s",
		name[0], name[1]);
	arch[0].file = name[0];
	arch[0].orig = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	arch[1].file = "nobuildid/0-42-99/my_lib.so";
	arch[1].orig = "/opt/my lib.so";

	if (exp_create(&e, top, "w.er", path, sizeof(path)))
		t_fatal("exp_create");
	e.set.mode = "command";
	e.finished = true;
	exited[0] = row(10, 10, LWPROF_TU_EXITED, "main", 1000);
	exited[1] = row(10, 11, LWPROF_TU_EXITED, "a\tb\x7f", 2000);
	live = row(10, 12, 0, "worker", 3000);
	err = exp_append_usage(&e, exited, 2);
	err = err ? err : exp_write_usage(&e, &live, 1);
	t_check(!err, "usage.txt: rows appended, then the live ones (%d)", err);
	adir = exp_archives_dir(&e);
	t_check(adir >= 0, "archives/ made");
	if (adir >= 0)
		close(adir);
	err = exp_write_index(&e, arch, 2);
	t_check(!err, "index.txt written (%d)", err);
	err = exp_write_log(&e);
	exp_free(&e);

	err = exp_open(&x, path, 0, NULL, NULL);
	t_check(!err, "exp_open (%s)", err && x ? exp_msg(x) : "");
	if (err) {
		exp_close(x);
		return;
	}
	t_check(exp_usage(x, &u, &n) && n == 3, "three usage rows (%zu)", n);
	if (n == 3)
		t_check(same_row(&u[0], &exited[0], "main") &&
			same_row(&u[1], &exited[1], "a?b?") &&
			same_row(&u[2], &live, "worker"),
			"every field as written, in order; control characters as '?'");
	exp_archives(x, &a, &na);
	t_check(na == 2, "two archive entries (%zu)", na);
	if (na == 2) {
		snprintf(want, sizeof(want), "%s/archives/%s", path, name[0]);
		t_check(!strcmp(a[0].file, want) &&
			!strcmp(a[0].buildid, arch[0].buildid) &&
			a[0].dev_major == 8 && a[0].dev_minor == 1 &&
			a[0].ino == 1234 && a[0].size == 4096 &&
			!strcmp(a[0].orig, arch[0].orig),
			"an entry by build-id: the copy's path in the experiment");
		t_check(!strcmp(a[1].buildid, "-") && !strcmp(a[1].orig, "/opt/my lib.so") &&
			a[1].dev_minor == 42 && a[1].ino == 99 && a[1].size == 77,
			"one without, its original path with a space");
	}
	exp_close(x);
}

static const char *dir_with(const char *name, const char *log)
{
	static char d[4200];

	snprintf(d, sizeof(d), "%s/%s", top, name);
	mkdir(d, 0755);
	put(d, EXP_LOG, log);
	return d;
}

static void damaged_lines(void)
{
	static const char log[] = "lwprof experiment 1.5\nmode = command\n";
	char msg[8400];
	const char *d;
	struct exp *x;
	int err;

	d = dir_with("badusage.er", log);
	put(d, EXP_USAGE, "# head\n1 2 3 0x0 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 comm\n1 2 3\n");
	err = exp_open(&x, d, 0, NULL, NULL);
	snprintf(msg, sizeof(msg), "%s", x ? exp_msg(x) : "");
	t_check(err == -EINVAL && strstr(msg, "/badusage.er/usage.txt: line 3 (byte 70): bad usage line"),
		"a usage row of 3 fields: %s", msg);
	exp_close(x);

	d = dir_with("badindex.er", log);
	snprintf(msg, sizeof(msg), "%s/archives", d);
	mkdir(msg, 0755);
	put(d, EXP_INDEX, "-  8:1  5  6  ../etc/passwd  /x\n");
	err = exp_open(&x, d, 0, NULL, NULL);
	snprintf(msg, sizeof(msg), "%s", x ? exp_msg(x) : "");
	t_check(err == -EINVAL && strstr(msg, "/badindex.er/archives/index.txt: line 1 (byte 0): bad index line"),
		"a copy named outside archives/: %s", msg);
	exp_close(x);

	put(d, EXP_INDEX, "-  8:1  5  6  /abs  /x\n");
	err = exp_open(&x, d, 0, NULL, NULL);
	t_check(err == -EINVAL, "an absolute copy name is refused");
	exp_close(x);

	put(d, EXP_INDEX, "-  8-1  5  6  a/b  /x\n");
	err = exp_open(&x, d, 0, NULL, NULL);
	t_check(err == -EINVAL, "a device not MAJOR:MINOR is refused");
	exp_close(x);
}

static int nsyms, nmods;
static char sym_seen[256], mod_seen[256];

static int sym_line(void *arg, uint64_t a, char type, const char *name,
		    const char *module)
{
	if (nsyms++ == 3)
		snprintf(sym_seen, sizeof(sym_seen), "%llx %c %s %s",
			 (unsigned long long)a, type, name, module ? module : "-");
	return 0;
}

static int mod_line(void *arg, const char *name, uint64_t size, uint64_t a)
{
	if (!nmods++)
		snprintf(mod_seen, sizeof(mod_seen), "%s %llu %llx", name,
			 (unsigned long long)size, (unsigned long long)a);
	return 0;
}

static void files(void)
{
	static const char *names[] = {
		"cpu.0.rec", "cpu.10.rec", "cpu.2.rec", "trace.5.rec",
		"trace.5.1.rec", "trace.3.rec", "samples.rec", "cpu.x.rec",
		"cpu.1.rec.tmp", "trace.rec", "cpu.-1.rec", "notes.txt",
	};
	bool cpus_ok, traces_ok;
	const struct exp_file *f;
	struct exp_reader r;
	char want[8400];
	const char *d;
	struct exp *x;
	size_t n, i;
	int err;

	d = dir_with("files.er", "lwprof experiment 1.5\nmode = command\n");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		put(d, names[i], "");
	snprintf(want, sizeof(want), "%s/archives", d);
	mkdir(want, 0755);
	put(d, EXP_KALLSYMS, "0000000000000000 A fixed_percpu_data\n"
	    "ffffffff81000000 T _text\nffffffff81001000 t helper\n"
	    "ffffffffc0001000 t ext4_read\t[ext4]\nzzz\n");
	put(d, EXP_MODULES, "ext4 1000 2 - Live 0xffffffffc0000000\n");
	err = exp_open(&x, d, 0, NULL, NULL);
	t_check(!err, "exp_open (%s)", err && x ? exp_msg(x) : "");
	if (err) {
		exp_close(x);
		return;
	}
	exp_files(x, &f, &n);
	t_check(n == 6, "six record files, the rest left out (%zu)", n);
	cpus_ok = n == 6 && f[0].id == 0 && f[1].id == 2 && f[2].id == 10 &&
		  !strcmp(f[1].name, "cpu.2.rec");
	t_check(cpus_ok, "cpu.N.rec first, by N, with id N");
	traces_ok = n == 6;
	for (i = 3; traces_ok && i < 6; i++)
		traces_ok = f[i].id == EXP_FILE_TRACE + i - 3 &&
			    !strncmp(f[i].name, "trace.", 6);
	t_check(traces_ok, "then the three trace files, ids EXP_FILE_TRACE + i");
	snprintf(want, sizeof(want), "%s/cpu.2.rec", d);
	t_check(exp_file_path(x, 2) && !strcmp(exp_file_path(x, 2), want),
		"the path of id 2");
	t_check(!exp_file_path(x, 7) && !exp_file_path(x, EXP_FILE_TRACE + 3),
		"no path for an id it has not");
	snprintf(want, sizeof(want), "%s/samples.rec", d);
	t_check(exp_has_samples(x) && !strcmp(exp_file_path(x, EXP_FILE_SAMPLES), want),
		"samples.rec, by its own id");
	err = exp_file_open(x, 7, &r, NULL, NULL);
	t_check(err == -ENOENT && strstr(r.msg, "no record file 7"),
		"opening an id it has not: %s", r.msg);
	exp_reader_close(&r);
	err = exp_file_open(x, 0, &r, NULL, NULL);
	t_check(err == -EBADMSG && strstr(r.msg, "/cpu.0.rec: byte 0: empty file"),
		"opening one through the reader: %s", r.msg);
	exp_reader_close(&r);

	err = exp_kallsyms(x, sym_line, NULL);
	t_check(!err && nsyms == 4 && !strcmp(sym_seen, "ffffffffc0001000 t ext4_read [ext4]"),
		"kallsyms: four lines of symbols, a module's named (%d: %s)",
		nsyms, sym_seen);
	err = exp_modules(x, mod_line, NULL);
	t_check(!err && nmods == 1 && !strcmp(mod_seen, "ext4 1000 ffffffffc0000000"),
		"modules: name, size, address (%s)", mod_seen);
	exp_close(x);

	d = dir_with("nocopies.er", "lwprof experiment 1.5\nmode = command\n");
	exp_open(&x, d, 0, NULL, NULL);
	t_check(exp_kallsyms(x, sym_line, NULL) == -ENOENT &&
		exp_modules(x, mod_line, NULL) == -ENOENT,
		"no copies: -ENOENT");
	t_check(!exp_usage(x, &(const struct exp_usage *){ NULL }, &n) && !n,
		"no usage.txt: none, and not an error");
	exp_close(x);
}

int main(void)
{
	top = t_dir("exp_files");
	written();
	damaged_lines();
	files();
	return t_done();
}
