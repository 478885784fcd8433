// SPDX-License-Identifier: GPL-2.0
/*
 * smp_drain [-c CLOCK_NS] [-s STACK_BYTES] [-d DEPTH] [-p PAGES] [-f FLAGS]
 *           [-a] CMD ARGS...
 *
 * Run CMD under a sampling session and drain the rings with the tests'
 * plain poll() reader (tests/lib/ring.h), counting what comes: a stand-in
 * for `lwprof collect` in scripts/bench-sample and bench-kprof.  -f:
 * SAMPLE_START's flags (LWPROF_SS_*, a number); -a: the whole machine but
 * smp_drain itself (LWPROF_ATTACH_EXCLUDE_SELF) instead of CMD.  CMD's
 * output passes through; then, on stderr:
 *
 *   drain records N bytes N lost N secs S status N
 *
 * (records and lost from SAMPLE_STOP, bytes read from the rings, secs from
 * SAMPLE_START to CMD's exit).
 */
#include "ring.h"

int main(int argc, char **argv)
{
	struct lwprof_sample_stop st;
	struct lwprof_sample_start ss;
	unsigned int pages = 256, attach = 0;
	struct lwr_child c;
	uint64_t t0, t1;
	struct lwr r;
	int opt, ret, status;

	lwr_clock_req(&ss, 10000000, 8192);
	while ((opt = getopt(argc, argv, "+c:s:d:p:f:a")) != -1) {
		switch (opt) {
		case 'c':
			ss.clock_ns = strtoull(optarg, NULL, 0);
			break;
		case 's':
			ss.stack_bytes = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			ss.max_depth = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			pages = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			ss.flags = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			attach = LWPROF_ATTACH_MACHINE |
				 LWPROF_ATTACH_EXCLUDE_SELF;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: smp_drain [-c NS] [-s BYTES] [-d DEPTH] [-p PAGES] [-f FLAGS] [-a] CMD ARGS...\n");
		return 2;
	}
	if (lwr_spawn(&c, lwr_exec_fn, argv + optind))
		return 1;
	ret = lwr_open(&r, attach, attach ? 0 : c.pid, pages);
	if (!ret)
		ret = lwr_start(&r, &ss);
	if (ret) {
		fprintf(stderr, "smp_drain: %s\n", strerror(-ret));
		kill(c.pid, SIGKILL);
		lwr_go(&c);
		return 1;
	}
	r.keep = 0;
	t0 = lwr_now();
	lwr_go(&c);
	status = lwr_wait(&r, &c);
	t1 = lwr_now();
	lwr_stop(&r, &st);
	fprintf(stderr, "drain records %llu bytes %llu lost %llu secs %.3f status %d\n",
		(unsigned long long)st.records, (unsigned long long)r.bytes,
		(unsigned long long)st.lost, (t1 - t0) / 1e9, status);
	lwr_close(&r);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
