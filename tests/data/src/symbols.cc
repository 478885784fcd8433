// SPDX-License-Identifier: GPL-2.0
/*
 * The source of tests/data/symbols.bin (prebuilt, tests/data/README.md):
 * function names the analyzer must show as the Oracle tools do: a C++
 * method (demangled; short name without parameters), a function with a
 * .cold part (shown as the function), a constant-propagated clone (shown
 * as its parent), two names for one address (one name), a static
 * function, and calls through the PLT (name@plt).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ns {
struct Widget {
	int n;
	__attribute__((noinline)) long spin(int k);
};

long Widget::spin(int k)
{
	long s = 0;

	for (int i = 0; i < k * n; i++)
		s += i ^ (s >> 3);
	return s;
}
} // namespace ns

extern "C" {
volatile int sink;

__attribute__((noinline)) int with_cold(int x)
{
	if (x == 12345) {
		fprintf(stderr, "unlikely %d\n", x);
		for (int i = 0; i < x; i++)
			sink -= i * x;
		abort();
	}
	for (int i = 0; i < x; i++)
		sink += i;
	return sink;
}

static __attribute__((noinline)) int scale(const int *p, int k)
{
	int s = 0;

	for (int i = 0; i < 100; i++)
		s += p[i % 4] * k;
	return s;
}

int real_impl(int x)
{
	return x * 3 + sink;
}
int alias_name(int x) __attribute__((alias("real_impl")));

static __attribute__((noinline)) int helper(const char *s)
{
	return (int)strlen(s) + sink;
}
}

int main(int argc, char **argv)
{
	static const int v[4] = { 1, 2, 3, 4 };
	ns::Widget w = { argc };
	long r = w.spin(1000);

	r += with_cold(argc * 1000);
	r += scale(v, 3) + scale(v + 1, 3);
	r += alias_name(argc) + helper(argv[0]);
	printf("%ld\n", r);
	return 0;
}
