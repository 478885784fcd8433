// SPDX-License-Identifier: GPL-2.0
/*
 * The progress line (progress.h): "\r" and the line, then erase to its
 * end ("\033[K"), so a shorter line leaves nothing of a longer one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libexp/progress.h"

#define DELAY_NS	500000000ULL	/* a phase shorter than this shows nothing */
#define EVERY_NS	100000000ULL	/* at most ten redraws a second */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void exp_progress_init(struct exp_progress *p, int fd, const char *who)
{
	const char *env = getenv("LWPROF_PROGRESS");

	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->who = who;
	p->on = isatty(fd) && !(env && !strcmp(env, "0"));
	p->now = env && !strcmp(env, "now");
}

void exp_progress_phase(struct exp_progress *p, uint64_t total,
			const char *fmt, ...)
{
	va_list ap;

	if (!p || !p->on)
		return;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	p->done = 0;
	p->total = total;
	p->t0 = mono_ns();
	p->next = p->now ? 0 : p->t0 + DELAY_NS;
	if (p->now)
		exp_progress_add(p, 0);
}

void exp_progress_add(struct exp_progress *p, uint64_t n)
{
	char line[256];
	uint64_t now;
	int len;

	if (!p || !p->on)
		return;
	p->done += n;
	now = mono_ns();
	if (now < p->next)
		return;
	p->next = now + EVERY_NS;
	if (p->total)
		len = snprintf(line, sizeof(line), "\r%s: %s: %3u%%\033[K", p->who, p->what,
			       (unsigned)(p->done >= p->total ? 100 :
					  p->done * 100 / p->total));
	else if (p->bytes)
		len = snprintf(line, sizeof(line), "\r%s: %s: %.1f MiB\033[K", p->who,
			       p->what, p->done / 1048576.0);
	else
		len = snprintf(line, sizeof(line), "\r%s: %s ...\033[K", p->who, p->what);
	if (len <= 0)
		return;
	if ((size_t)len >= sizeof(line))
		len = sizeof(line) - 1;
	if (write(p->fd, line, len) > 0)
		p->drawn = true;
}

void exp_progress_end(struct exp_progress *p)
{
	if (p)
		p->bytes = false;
	if (!p || !p->on || !p->drawn)
		return;
	if (write(p->fd, "\r\033[K", 4) == 4)
		p->drawn = false;
}
