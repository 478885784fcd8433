// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness over the experiment's reader (libexp/reader.c) and every
 * command that reads an experiment (scripts/fuzz-reader builds and runs
 * it: with libFuzzer, or with tests/fuzz/fuzz_main.c's deterministic
 * mutations for make check).  An input is one file of an otherwise sound
 * experiment: by its first byte, log.txt (1), usage.txt (2),
 * archives/index.txt (3), samples.rec (4: the global sample packets of
 * format 1.4), or else cpu.0.rec (the whole input).  Three
 * commands read it, in this order, the record files all through
 * libexp/reader.c:
 *  - lwprof print: loaded, resolved and summed into the functions,
 *    callers-callees, call tree and lines views (to /dev/null);
 *  - lwprof dump -s (to /dev/null);
 *  - the archiver's rescan of the MMAP records (collect's end of run when
 *    the drain may have missed some), which rewrites archives/.
 * None may crash (built with ASan and UBSan: no report either), and damage
 * must be an error that names the file, with the byte offset for a
 * cpu.N.rec file; a message that does not is a finding (abort()).
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/load/load.h"
#include "analyzer/report/report.h"
#include "userspace/cmd/cmds.h"
#include "userspace/collect/collect.h"

/* Sanitizer reports go to the real stderr while a reader's is captured. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/*
 * The kind byte of a text input.  Not letters: a record file begins with
 * "LWPROFR", and an 'L' here once made every record input a log.txt.
 */
#define FZ_LOG		1
#define FZ_USAGE	2
#define FZ_INDEX	3
#define FZ_SAMPLES	4

static char dir[256];
static const char *log_txt =
	"lwprof experiment 1.0\ncommand = fuzz\nmode = command\ntarget = 4242\n"
	"cpus = 2\ncpus_possible = 2\ncpu_mhz = 1000\n"
	"start_ns = 1000000000000\nend_ns = 1031501000000\n"
	"clock_interval_ns = 10000000\ncounter = cycles,1000,0,0x0\n"
	"max_depth = 256\nstack_bytes = 65536\n";

static void put(const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* A fresh experiment holding the input as the file its first byte says. */
static void setup(const uint8_t *data, size_t size)
{
	char path[512];

	if (!dir[0]) {
		/* $FUZZ_READER_TMP: the script's own, so runs do not meet */
		snprintf(dir, sizeof(dir), "%s/fuzz_reader.%d.er",
			 getenv("FUZZ_READER_TMP") ? : "/tmp", getpid());
		mkdir(dir, 0755);
		if (__sanitizer_set_report_fd)
			__sanitizer_set_report_fd((void *)(intptr_t)dup(2));
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	snprintf(path, sizeof(path), "%s/archives", dir);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(path, 0755);
	put("log.txt", log_txt, strlen(log_txt));
	put("usage.txt", "", 0);
	put("archives/index.txt", "", 0);
	snprintf(path, sizeof(path), "%s/samples.rec", dir);
	unlink(path);
	if (size && data[0] == FZ_SAMPLES) {
		put("samples.rec", data + 1, size - 1);
		put("cpu.0.rec", "", 0);
		return;
	}
	if (size && data[0] >= FZ_LOG && data[0] <= FZ_INDEX) {
		const char *name = data[0] == FZ_LOG ? "log.txt" :
				   data[0] == FZ_USAGE ? "usage.txt" :
				   "archives/index.txt";

		put(name, data + 1, size - 1);
		put("cpu.0.rec", "", 0);
		return;
	}
	put("cpu.0.rec", data, size);
}

/* Send stderr to a file while a reader runs; then read what it said. */
static int capture_begin(void)
{
	char path[512];
	int saved, fd;

	fflush(stderr);
	snprintf(path, sizeof(path), "%s.stderr", dir);
	saved = dup(2);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (saved < 0 || fd < 0 || dup2(fd, 2) < 0)
		abort();
	close(fd);
	return saved;
}

static void capture_end(int saved, char *buf, size_t len)
{
	ssize_t n;

	fflush(stderr);
	n = pread(2, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	dup2(saved, 2);
	close(saved);
}

/* A finding: say which reader said what, and crash for the fuzzer. */
static void finding(const char *reader, const char *what, const char *msg)
{
	fprintf(stderr, "fuzz_reader: %s: %s:\n%s\n", reader, what, msg);
	abort();
}

/*
 * A complaint names the file it is about, as DIR/NAME: (print, dump) or
 * NAME: (the archiver's), and for a record file the byte offset next:
 * "cpu.0.rec: byte N:" (libexp/reader.c's, and print's own checks) or
 * "cpu.0.rec: offset N:" (dump's end of an unfinished recording).  The
 * rest of the message may quote the damaged input: only its start counts.
 */
static int names_offset(const char *msg, int with_dir)
{
	const char *p = msg;
	size_t n = strlen(dir);

	if (with_dir) {
		p = strstr(msg, dir);
		if (!p)
			return 0;
		p += n;
		if (*p != '/')
			return *p == ':';	/* about the experiment */
		p++;
	}
	if (!strncmp(p, "samples.rec: ", 13))
		p += 2;		/* as long as "cpu.0.rec: " */
	else if (strncmp(p, "cpu.0.rec: ", 11))
		return 1;
	p += 11;
	return !strncmp(p, "byte ", 5) || !strncmp(p, "offset ", 7);
}

static void read_print(void)
{
	char warn[4096];
	struct an an;
	struct an_run run = { .nwarn = 0 };
	struct an_settings vs = { .limit = 0 };
	struct an_out out = { .f = stdout };
	int err, saved;

	an_out_mode(&out, AN_PM_TEXT, ',');
	if (an_init(&an, &run))
		abort();
	saved = capture_begin();	/* its warnings */
	err = an_load(&an, dir);
	if (!err)
		err = an_finish(&an);
	if (!err) {
		an_view_flat(&an, &vs, &out, AN_K_FUNC);
		an_view_cc(&an, &vs, &out, NULL);
		an_view_calltree(&an, &vs, &out);
		an_view_flat(&an, &vs, &out, AN_K_LINE);
		an_view_sample_list(&an, &vs, &out);
		an_view_overview(&an, &vs, &out);
	}
	capture_end(saved, warn, sizeof(warn));
	if (err && !strstr(run.err, "out of memory") && !names_offset(run.err, 1))
		finding("print", "an error that does not name the file and offset",
			run.err);
	an_free(&an);
}

/* lwprof dump -s DIR: 0 or 1, and every complaint names its file. */
static void read_dump(void)
{
	char *argv[] = { "dump", "-s", dir, NULL };
	char err[8192], *line, *save;
	int rc, saved;

	saved = capture_begin();
	rc = cmd_dump(3, argv);
	capture_end(saved, err, sizeof(err));
	if (rc != 0 && rc != 1)
		finding("dump", "exit status neither 0 nor 1", err);
	for (line = strtok_r(err, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "lwprof dump: ", 13) || !names_offset(line, 1))
			finding("dump", "a complaint without its file and offset",
				line);
	}
}

/* The archiver's rescan: its warnings about the records name the offset. */
static void read_archiver(void)
{
	struct exp_writer e = { .nr_files = 1 };
	struct archiver *a;
	char err[8192];
	size_t i;
	int saved;

	e.path = strdup(dir);
	e.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!e.path || e.dirfd < 0)
		abort();
	saved = capture_begin();
	if (!archiver_start(&e, 0, &a))	/* no command: copy every file */
		archiver_finish(a, true);
	capture_end(saved, err, sizeof(err));
	for (i = 0; i < e.nr_warnings; i++)
		if (!strncmp(e.warnings[i], "archives: ", 10) &&
		    !names_offset(e.warnings[i] + 10, 0))
			finding("archiver", "a warning without the offset",
				e.warnings[i]);
	exp_free(&e);
}

/* The lowest free descriptor: higher after a reader that leaked one. */
static int lowest_fd(void)
{
	int fd = dup(2);

	close(fd);
	return fd;
}

static void no_leak(const char *reader, int fd)
{
	char msg[64];

	if (lowest_fd() == fd)
		return;
	snprintf(msg, sizeof(msg), "descriptor %d left open", fd);
	finding(reader, "a file descriptor leak", msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;

	setup(data, size);
	fd = lowest_fd();
	read_print();
	no_leak("print", fd);
	read_dump();
	no_leak("dump", fd);
	read_archiver();
	no_leak("archiver", fd);
	return 0;
}
