// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over lwprof print's experiment reader (scripts/
 * fuzz-reader builds and runs it; not part of make).  An input is one file
 * of an otherwise sound experiment: by its first byte, log.txt ('L'),
 * usage.txt ('U'), archives/index.txt ('I'), or else cpu.0.rec (the whole
 * input).  The experiment is loaded, resolved and summed into the
 * functions, callers-callees and call tree views (to /dev/null).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an.h"
#include "compute.h"

static char dir[64];
static const char *log_txt =
	"lwprof experiment 1.0\ncommand = fuzz\nmode = command\ntarget = 4242\n"
	"cpus = 2\ncpus_possible = 2\ncpu_mhz = 1000\n"
	"start_ns = 1000000000000\nend_ns = 1031501000000\n"
	"clock_interval_ns = 10000000\ncounter = cycles,1000,0,0x0\n"
	"max_depth = 256\nstack_bytes = 65536\n";

static void put(const char *name, const void *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct an an;
	int err;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_reader.%d.er", getpid());
		mkdir(dir, 0755);
		snprintf(dir + strlen(dir), 16, "/archives");
		mkdir(dir, 0755);
		dir[strlen(dir) - 9] = 0;
		null = fopen("/dev/null", "w");
	}
	put("log.txt", log_txt, strlen(log_txt));
	put("usage.txt", "", 0);
	put("archives/index.txt", "", 0);
	if (size && (data[0] == 'L' || data[0] == 'U' || data[0] == 'I')) {
		put(data[0] == 'L' ? "log.txt" : data[0] == 'U' ? "usage.txt" :
		    "archives/index.txt", data + 1, size - 1);
		put("cpu.0.rec", "", 0);
	} else {
		put("cpu.0.rec", data, size);
	}
	if (an_init(&an))
		abort();
	an.out = null;
	err = an_load(&an, dir);
	if (!err)
		err = an_finish(&an);
	if (!err) {
		an_view_flat(&an, AN_K_FUNC);
		an_view_cc(&an, NULL);
		an_view_calltree(&an);
		an_view_flat(&an, AN_K_LINE);
	}
	an_filter_free(&an);
	an_free(&an);
	return 0;
}
