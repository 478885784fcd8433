// SPDX-License-Identifier: GPL-2.0
/*
 * The OMPT tool's clock (ompt.h): CLOCK_MONOTONIC nanoseconds, the time
 * of every record, read on an empty region's path eight times.  Where
 * the kernel keeps that clock on the CPU's time-stamp counter (its
 * clocksource is the TSC, which runs at a constant rate through every
 * power state: constant_tsc, nonstop_tsc), the tool reads the counter
 * (rdtsc, half a vDSO clock_gettime()) and turns it into the clock's
 * nanoseconds itself, from an anchor: a counter reading and the clock
 * read with it, and the clock's rate against the counter measured
 * between two anchors.  NTP slews CLOCK_MONOTONIC (by up to 500 parts
 * in a million), so the anchor is taken again every 2^25 ticks (about
 * 10 ms) and the rate measured again every 2^28 (about 0.1 s): a time
 * is within tens of nanoseconds of what clock_gettime() would have
 * said, a few microseconds while NTP changes its slew.  Elsewhere (no
 * TSC, another clocksource, another architecture), and where the module
 * accounts the process (whose microstates are read with the clock,
 * trace/mstate.c), it is clock_gettime().
 *
 * The anchor is the process's, one cache line that any thread that
 * finds it old sets again under a sequence count; the others read it
 * as it was (a retaken anchor is no later than theirs).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "ompt/ompt.h"
#include "trace.h"

#define ANCHOR_TICKS	(1LL << 25)	/* an anchor's life */
#define RATE_TICKS	(1LL << 28)	/* the span a rate is measured over */
#define FIRST_NS	4000000LL	/* ... the first rate's, clock_gettime() until then */
#define PAIR_TICKS	512		/* a counter and clock pair read within */

static struct {
	uint32_t seq;		/* odd while a thread sets the rest */
	bool on;		/* the counter is the clock's */
	int64_t tsc, ns;	/* the anchor */
	uint64_t mult;		/* ns a tick, 32.32 fixed point (0: not measured) */
	int64_t base_tsc, base_ns;	/* the anchor the rate is measured from */
} __attribute__((aligned(64))) tc;

#if defined(__x86_64__)
/* The start of file into buf (NUL-terminated); false: none. */
static bool slurp(const char *file, char *buf, size_t size)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n > 0;
}

/* Is w a word of the line at s? */
static bool has_word(const char *s, const char *w)
{
	size_t len = strlen(w);
	const char *p;

	for (p = strstr(s, w); p; p = strstr(p + 1, w)) {
		if (memchr(s, '\n', p - s))
			return false;	/* past the line */
		if ((p == s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') &&
		    (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	}
	return false;
}

/* The counter is the kernel's CLOCK_MONOTONIC, at a constant rate. */
static bool tsc_usable(void)
{
	char buf[8192];
	const char *flags;

	if (!slurp("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		   buf, sizeof(buf)) || strcmp(buf, "tsc\n"))
		return false;
	if (!slurp("/proc/cpuinfo", buf, sizeof(buf)))
		return false;
	flags = strstr(buf, "\nflags");
	return flags && has_word(flags + 1, "constant_tsc") &&
	       has_word(flags + 1, "nonstop_tsc");
}

/* The counter and the clock read together: the counter's middle of it. */
static int64_t pair(int64_t *ns)
{
	uint64_t t1, t2;
	int i;

	for (i = 0; i < 8; i++) {
		t1 = __rdtsc();
		*ns = tr_now();
		t2 = __rdtsc();
		if (t2 - t1 < PAIR_TICKS)
			break;	/* else an interrupt or a preemption in between */
	}
	return t1 + (t2 - t1) / 2;
}

/*
 * A new anchor, and a new rate where the last was measured long enough
 * ago; the clock now.  Another thread at it: the clock, read.
 */
static uint64_t reanchor(uint32_t seq)
{
	int64_t x, ns, d;

	if ((seq & 1) || !__atomic_compare_exchange_n(&tc.seq, &seq, seq + 1, false,
						      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return tr_now();
	x = pair(&ns);
	d = x - tc.base_tsc;
	if (!tc.base_tsc) {
		tc.base_tsc = x;
		tc.base_ns = ns;
	} else if (d > 0 && (tc.mult ? d >= RATE_TICKS : ns - tc.base_ns >= FIRST_NS)) {
		__atomic_store_n(&tc.mult, (uint64_t)(((unsigned __int128)(ns - tc.base_ns) << 32) / (uint64_t)d),
				 __ATOMIC_RELAXED);
		tc.base_tsc = x;
		tc.base_ns = ns;
	}
	__atomic_store_n(&tc.tsc, x, __ATOMIC_RELAXED);
	__atomic_store_n(&tc.ns, ns, __ATOMIC_RELAXED);
	/* the anchor before the even count that publishes it */
	__atomic_store_n(&tc.seq, seq + 2, __ATOMIC_RELEASE);
	return ns;
}

uint64_t omp_now(void)
{
	uint32_t seq;
	int64_t x, a, n, d;
	uint64_t m, t;

	if (!tc.on)
		return tr_now();
	x = __rdtsc();
	/* acquire: the anchor of this count or a later one */
	seq = __atomic_load_n(&tc.seq, __ATOMIC_ACQUIRE);
	a = __atomic_load_n(&tc.tsc, __ATOMIC_RELAXED);
	n = __atomic_load_n(&tc.ns, __ATOMIC_RELAXED);
	m = __atomic_load_n(&tc.mult, __ATOMIC_RELAXED);
	/* the anchor's loads before the count is read again */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((seq & 1) || seq != __atomic_load_n(&tc.seq, __ATOMIC_RELAXED))
		return tr_now();	/* being set */
	if (!m) {	/* no rate yet */
		t = tr_now();
		return (int64_t)t - n >= FIRST_NS ? reanchor(seq) : t;
	}
	d = x - a;	/* below 0: read before another thread's anchor */
	if (d > ANCHOR_TICKS || d < -ANCHOR_TICKS)
		return reanchor(seq);
	return n + (int64_t)(((__int128)d * (__int128)m) >> 32);
}

void omp_clock_init(void)
{
	if (tr_ms_mapped() || !tsc_usable())
		return;
	reanchor(0);
	tc.on = true;
}
#else
uint64_t omp_now(void)
{
	return tr_now();
}

void omp_clock_init(void)
{
}
#endif

bool omp_clock_ms(uint64_t *t, uint64_t *v)
{
	if (tc.on) {
		*t = omp_now();
		return false;
	}
	return tr_clock_ms(t, v);
}
