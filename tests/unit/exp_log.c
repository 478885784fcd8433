// SPDX-License-Identifier: GPL-2.0
/*
 * log.txt both ways through libexp's one key table: what the writer puts
 * in (every key type: strings, numbers, counters, metrics, warnings, the
 * recorder's notes, lost.cpuN, the exit) is what exp_open() reads back,
 * field for field; the table's names are unique words; and a damaged log
 * is refused with the file, line and byte named (as print and dump say
 * it), or, with EXP_OPEN_DAMAGED, warned about while the rest is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libexp/exp.h"
#include "libexp/format.h"
#include "libexp/writer.h"
#include "test.h"

static char top[4096];

static void put_file(const char *dir, const char *name, const char *text,
		     size_t len)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		t_fatal(path);
}

/* A directory of its own under top, with log.txt holding text. */
static const char *exp_with_log(const char *name, const char *text)
{
	static char dir[4200];

	snprintf(dir, sizeof(dir), "%s/%s", top, name);
	if (mkdir(dir, 0755) && errno != EEXIST)
		t_fatal(dir);
	put_file(dir, EXP_LOG, text, strlen(text));
	return dir;
}

static int nwarn;
static char lastwarn[1024];

static void count_warn(void *arg, const char *msg)
{
	nwarn++;
	snprintf(lastwarn, sizeof(lastwarn), "%s", msg);
}

/* Open dir strictly; *msg gets the message of a failure. */
static int open_log(const char *dir, char *msg, size_t len)
{
	struct exp *x;
	int err = exp_open(&x, dir, 0, NULL, NULL);

	snprintf(msg, len, "%s", err && x ? exp_msg(x) : "");
	exp_close(x);
	return err;
}

static void roundtrip(void)
{
	static const struct exp_counter ctr[2] = {
		{ "cycles", 0, 0, 1000003 },
		{ "page-faults", 1, 2, 1 },
	};
	char *const argv[] = { "prog", "a b", "it's", NULL };
	const struct exp_info *in;
	struct exp_writer e;
	char path[4200], text[8192];
	struct exp *x;
	int fd, err;
	ssize_t n;

	err = exp_create(&e, top, "rt.er", path, sizeof(path));
	t_check(!err, "exp_create %s", path);
	if (err)
		return;
	e.set = (struct exp_settings){ "command", argv, 10000000, 2, ctr, 64,
				       8192, true };
	e.target = 4242;
	e.start_ns = 1000;
	e.end_ns = 2000000001000;
	e.start_rt = (struct timespec){ 1767225600, 5 };
	e.end_rt = (struct timespec){ 1767225602, 123456789 };
	exp_create_files(&e, 2, 1, 4);
	e.records = 123;
	e.lost = 4;
	e.lost_file[1] = 4;
	e.exit_status = 3 << 8;		/* exited, status 3 */
	e.finished = true;
	exp_note(&e, EXP_K_BACKEND, "%s", "perf");
	exp_note(&e, EXP_K_ABI, "%u.%u", 1, 4);
	exp_note(&e, EXP_K_MODULE_VERSION, "0.1.0");
	exp_note(&e, EXP_K_RING_PAGES, "%u", 256);
	exp_note(&e, EXP_K_METRIC, "trap absent: perf cannot see traps");
	exp_note(&e, EXP_K_METRIC, "user exact: the scheduler's");
	exp_note(&e, EXP_K_METRIC, "lock absent: no futex wait");
	exp_note(&e, EXP_K_TRACE, "heap");
	exp_note(&e, EXP_K_SYNC_THRESHOLD_NS, "%u", 1500);
	exp_note(&e, EXP_K_SYNC_CALIBRATION, "calibrated, times 6");
	exp_note(&e, EXP_K_TRACE_STACK_BYTES, "2048");
	exp_note(&e, EXP_K_TRACE_FILES, "3");
	exp_note(&e, EXP_K_TRACE_CALLS, "77");
	exp_note(&e, EXP_K_KALLSYMS_HIDDEN, "1");
	exp_note(&e, EXP_K_STOPPED, "the data limit");
	exp_note(&e, EXP_K_FLIGHT, "the last 1 MB");
	exp_warn(&e, "first warning");
	exp_warn(&e, "second = with an equals sign");
	err = exp_write_log(&e);
	t_check(!err, "exp_write_log (%d)", err);
	exp_free(&e);

	err = exp_open(&x, path, 0, NULL, NULL);
	t_check(!err, "exp_open reads what the writer wrote (%s)",
		err && x ? exp_msg(x) : "");
	if (err) {
		exp_close(x);
		return;
	}
	in = exp_info(x);
	t_check(in->fmt_major == EXP_FILE_MAJOR && in->fmt_minor == EXP_FILE_MINOR,
		"format %d.%d", in->fmt_major, in->fmt_minor);
	t_check(in->command && !strcmp(in->command, "prog 'a b' 'it'\\''s'"),
		"command, shell-quoted: %s", in->command);
	t_check(in->mode && !strcmp(in->mode, "command"), "mode");
	t_check(in->target == 4242, "target");
	t_check(in->host && in->kernel && in->arch, "host, kernel, arch");
	t_check(in->cpus_possible == 2, "cpus_possible: the files made");
	t_check(in->start_ns == 1000 && in->end_ns == 2000000001000,
		"start_ns, end_ns");
	t_check(in->start_time && !strcmp(in->start_time, "2026-01-01T00:00:00.000000005Z"),
		"start_time: %s", in->start_time);
	t_check(in->end_time && !strcmp(in->end_time, "2026-01-01T00:00:02.123456789Z"),
		"end_time: %s", in->end_time);
	t_check(in->clock_interval_ns == 10000000, "clock_interval_ns");
	t_check(in->nr_counters == 2 && !strcmp(in->counters[0].name, "cycles") &&
		in->counters[0].period == 1000003 && in->counters[0].type == 0 &&
		in->counters[0].config == 0 &&
		!strcmp(in->counters[1].name, "page-faults") &&
		in->counters[1].type == 1 && in->counters[1].config == 2 &&
		in->counters[1].period == 1, "counters, in order");
	t_check(in->max_depth == 64 && in->stack_bytes == 8192 &&
		in->kernel_stacks == 1, "max_depth, stack_bytes, kernel_stacks");
	t_check(in->records == 123 && in->lost == 4, "records, lost");
	t_check(in->exit && !strcmp(in->exit, "status 3"), "exit: %s", in->exit);
	t_check(in->backend && !strcmp(in->backend, "perf") && in->abi &&
		!strcmp(in->abi, "1.4") && in->module_version &&
		!strcmp(in->module_version, "0.1.0"),
		"notes: backend, abi, module_version");
	t_check(in->nr_metrics == 3 && !strcmp(in->metrics[1], "user exact: the scheduler's"),
		"metric lines kept in order");
	t_check(in->ms_absent == (1u << LWPROF_MS_TRAP | 1u << LWPROF_MS_USER_LOCK),
		"absent microstates: trap and lock (0x%x)", in->ms_absent);
	t_check(in->trace && !strcmp(in->trace, "heap") && in->sync_ns == 1500 &&
		in->sync_calibration && in->trace_stack_bytes == 2048 &&
		in->trace_files == 3 && in->trace_calls == 77,
		"tracing's notes");
	t_check(in->kallsyms_hidden == 1, "kallsyms_hidden");
	t_check(in->stopped && !strcmp(in->stopped, "the data limit") &&
		in->flight && !strcmp(in->flight, "the last 1 MB"),
		"stopped, flight");
	t_check(in->nr_warnings == 2 && !strcmp(in->warnings[0], "first warning") &&
		!strcmp(in->warnings[1], "second = with an equals sign"),
		"warnings, a value's own \" = \" kept");
	exp_close(x);

	/* the lines no field keeps, as the writer spells them */
	snprintf(text, sizeof(text), "%s/%s", path, EXP_LOG);
	fd = open(text, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = 0;
	t_check(strstr(text, "\nlost.cpu1 = 4\n") && !strstr(text, "lost.cpu0"),
		"lost.cpuN: the file that lost records only");
	t_check(strstr(text, "\nring_pages = 256\n") &&
		strstr(text, "\nclock = CLOCK_MONOTONIC\n"), "notes kept as written");
	t_check(!strncmp(text, "lwprof experiment 1.", 20), "the first line");
}

static void unfinished(void)
{
	struct exp_writer e;
	char path[4200];
	struct exp *x;
	int err;

	if (exp_create(&e, top, "unfinished.er", path, sizeof(path)))
		t_fatal("exp_create");
	e.set.mode = "attach";
	e.start_ns = 5;
	exp_write_log(&e);
	exp_free(&e);
	err = exp_open(&x, path, 0, NULL, NULL);
	t_check(!err && !exp_info(x)->end_ns && !exp_info(x)->exit &&
		!exp_info(x)->end_time,
		"an unfinished recording: no end_ns, end_time, exit (its comment line skipped)");
	exp_close(x);
}

static void table(void)
{
	size_t i, j;
	bool ok = true;

	for (i = 0; i < EXP_K_COUNT; i++) {
		const struct exp_key_def *k = &exp_keys[i];

		if (!k->name || !*k->name || strpbrk(k->name, " \t=")) {
			t_check(0, "key %zu has a name, one word", i);
			ok = false;
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(k->name, exp_keys[j].name)) {
				t_check(0, "key %s named once", k->name);
				ok = false;
			}
		if (k->type != EXP_KT_NOTE && k->off >= sizeof(struct exp_info)) {
			t_check(0, "key %s's field inside struct exp_info", k->name);
			ok = false;
		}
	}
	t_check(ok, "the key table: %d keys, each one word, named once", EXP_K_COUNT);
}

static void damage(void)
{
	char msg[1024], want[8192];
	const char *d;
	struct exp *x;
	int err;

	d = exp_with_log("major.er", "lwprof experiment 2.0\nmode = command\n");
	err = open_log(d, msg, sizeof(msg));
	snprintf(want, sizeof(want),
		 "%s/log.txt: byte 18: experiment format 2.0; this lwprof reads 1.x", d);
	t_check(err == -EPROTO && !strcmp(msg, want), "another major: %s", msg);

	d = exp_with_log("notalog.er", "hello\n");
	err = open_log(d, msg, sizeof(msg));
	snprintf(want, sizeof(want),
		 "%s/log.txt: byte 0: not an lwprof experiment log (first line 'hello')", d);
	t_check(err == -EINVAL && !strcmp(msg, want), "not a log: %s", msg);

	d = exp_with_log("noeq.er", "lwprof experiment 1.5\nmode = command\nno equals\n");
	err = open_log(d, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/log.txt: line 3 (byte 37): bad key = value line", d);
	t_check(err == -EINVAL && !strcmp(msg, want), "a line without ' = ': %s", msg);

	d = exp_with_log("badnum.er", "lwprof experiment 1.5\ncpus = many\n");
	err = open_log(d, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/log.txt: line 2 (byte 22): bad cpus line", d);
	t_check(err == -EINVAL && !strcmp(msg, want), "a bad number: %s", msg);

	d = exp_with_log("bigu32.er", "lwprof experiment 1.5\ntarget = 4294967296\n");
	t_check(open_log(d, msg, sizeof(msg)) == -EINVAL && strstr(msg, "bad target line"),
		"a u32 key over 32 bits: %s", msg);

	d = exp_with_log("ctr.er", "lwprof experiment 1.5\ncounter = cycles,1,0\n");
	t_check(open_log(d, msg, sizeof(msg)) == -EINVAL && strstr(msg, "bad counter line"),
		"a counter of three fields: %s", msg);

	d = exp_with_log("order.er", "lwprof experiment 1.5\nstart_ns = 10\nend_ns = 5\n");
	err = open_log(d, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/log.txt: end_ns 5 before start_ns 10", d);
	t_check(err == -EINVAL && !strcmp(msg, want), "end before start: %s", msg);

	d = exp_with_log("later.er", "lwprof experiment 1.9\nfuture_key = 1\nlost.cpu3 = 7\n");
	t_check(!open_log(d, msg, sizeof(msg)),
		"a later minor's keys, lost.cpuN: read past (%s)", msg);

	d = exp_with_log("nul.er", "");
	put_file(d, EXP_LOG, "lwprof experiment 1.5\nmode = c\0md\n", 34);
	err = open_log(d, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s/log.txt: byte 30: NUL byte in a text file", d);
	t_check(err == -EINVAL && !strcmp(msg, want), "a NUL byte: %s", msg);

	snprintf(want, sizeof(want), "%s/nolog.er", top);
	mkdir(want, 0755);
	err = open_log(want, msg, sizeof(msg));
	t_check(err == -ENOENT && strstr(msg, "/nolog.er: not an experiment directory"),
		"no log.txt, no record file: %s", msg);
	/* an experiment that lost its log: damage, named at the log */
	put_file(want, "cpu.0.rec", "", 0);
	err = open_log(want, msg, sizeof(msg));
	t_check(err == -ENOENT && strstr(msg, "/nolog.er/log.txt: No such file or directory"),
		"no log.txt beside a record file: %s", msg);

	/* lwprof dump's way: each complaint a warning, the rest read */
	d = exp_with_log("damaged.er",
			 "lwprof experiment 2.0\nno equals\ncpus = x\nend_ns = 99\n");
	nwarn = 0;
	err = exp_open(&x, d, EXP_OPEN_DAMAGED, count_warn, NULL);
	t_check(!err && nwarn == 3 && exp_info(x)->end_ns == 99,
		"EXP_OPEN_DAMAGED: three warnings, end_ns read all the same (%d: %s)",
		nwarn, lastwarn);
	exp_close(x);
}

int main(void)
{
	snprintf(top, sizeof(top), "%s", t_dir("exp_log"));
	roundtrip();
	unfinished();
	table();
	damage();
	return t_done();
}
