// SPDX-License-Identifier: GPL-2.0
/*
 * seed_example [UNIT_MS]: er_print's worked example of metrics on program
 * structure, one unit of work = UNIT_MS ms of user CPU (default 10):
 *
 *   main() { A(); 2 units; B(); }      A() { C(10); }
 *   B() { C(7.5); 5 units; C(7.5); }   C(u) { 20% here, 40% via E, 40% via F }
 *   F(u) { half here, half via G }
 *
 * then a direct recursion R(3) and a mutual one P -> Q -> P -> Q, whose
 * deepest call does 4 units.  Built with frame pointers and without
 * sibling calls (Makefile), so every call leaves a frame; the work is
 * inlined, so each function's own time is in its own code.  The analyzer's
 * golden tests use a prebuilt copy (tests/data/seed_example.bin) for its
 * symbols and call sites.
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile unsigned long sink;
static double unit_s = 0.01;

static inline __attribute__((always_inline)) void work(double units)
{
	struct timespec ts;
	double end, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + units * unit_s;
	do {
		for (int i = 0; i < 1000; i++)
			sink++;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		now = ts.tv_sec + ts.tv_nsec / 1e9;
	} while (now < end);
}

NOINLINE void G(double u)
{
	work(u);
	sink++;
}

NOINLINE void F(double u)
{
	work(u / 2);
	G(u / 2);
	sink++;
}

NOINLINE void E(double u)
{
	work(u);
	sink++;
}

NOINLINE void C(double u)
{
	work(0.2 * u);
	E(0.4 * u);
	F(0.4 * u);
	sink++;
}

NOINLINE void A(void)
{
	C(10);
	sink++;
}

NOINLINE void B(void)
{
	C(7.5);
	work(5);
	C(7.5);
	sink++;
}

NOINLINE void R(int n, double u)
{
	if (n > 0)
		R(n - 1, u);
	else
		work(u);
	sink++;
}

NOINLINE void Q(int n, double u);

NOINLINE void P(int n, double u)
{
	if (n > 0)
		Q(n - 1, u);
	else
		work(u);
	sink++;
}

NOINLINE void Q(int n, double u)
{
	if (n > 0)
		P(n - 1, u);
	else
		work(u);
	sink++;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit_s = atof(argv[1]) / 1000;
	A();
	work(2);
	B();
	R(3, 4);
	P(3, 4);
	return 0;
}
