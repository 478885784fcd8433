/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny helpers for lwprof's C tests.  A test prints one line per check,
 * exits 0 when all passed, 1 when any failed and 77 to skip (tests/run
 * turns those into TAP lines).  Header-only so each test is one file.
 */
#ifndef LWPROF_TEST_H
#define LWPROF_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_SKIP 77

static int t_failed;

static inline void t_check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record one check: prints "ok: what" or "FAIL: what". */
static inline void t_check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", cond ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		t_failed = 1;
}

/* A call expected to fail with errno == want (ret < 0). */
#define t_errno(ret, want, what) \
	t_check((ret) < 0 && errno == (want), "%s -> %s (got %s)", (what), \
		strerror(want), (ret) < 0 ? strerror(errno) : "success")

static inline void t_skip(const char *why) __attribute__((noreturn));
static inline void t_skip(const char *why)
{
	printf("skip: %s\n", why);
	exit(T_SKIP);
}

/* Give up now: a precondition for the remaining checks failed. */
static inline void t_fatal(const char *what) __attribute__((noreturn));
static inline void t_fatal(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * A fresh, empty directory for the test's files: $LWPROF_OUT/tmp/NAME
 * (tests/run sets LWPROF_OUT), else /tmp/lwprof-NAME; exits if it cannot.
 */
static inline const char *t_dir(const char *name)
{
	static char dir[4096];
	const char *out = getenv("LWPROF_OUT");
	char cmd[8300];

	if (out && *out)
		snprintf(dir, sizeof(dir), "%s/tmp/%s", out, name);
	else
		snprintf(dir, sizeof(dir), "/tmp/lwprof-%s", name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	if (system(cmd))
		t_fatal(dir);
	return dir;
}

static inline int t_done(void)
{
	return t_failed ? 1 : 0;
}

#endif
