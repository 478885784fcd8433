// SPDX-License-Identifier: GPL-2.0
/*
 * tests/host/java_jfr's workload: six methods of known weight, each a
 * loop of its own arithmetic, called in turn from one loop of main() for
 * SECONDS (default 4) of the thread's CPU time (as many samples however
 * busy the machine), UNIT iterations a unit (default 20000), so that the
 * JIT compiles them on their own and, with a small UNIT, inlines them
 * into main's loop (its on-stack-replacement code): the case where a
 * profiler must name the method inlined at the pc.  The weights (in
 * units of work, about equal in cost) are 40, 25, 15, 10, 6 and 4.
 * Prints "hot UNITS" at the end.
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class JHot {
	static volatile long sink;

	static long alpha(long x, int n) {
		for (int i = 0; i < n; i++)
			x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	static long beta(long x, int n) {
		for (int i = 0; i < n; i++)
			x = (x ^ (x >>> 17)) * 0x9e3779b97f4a7c15L + i;
		return x;
	}

	static long gamma(long x, int n) {
		for (int i = 0; i < n; i++)
			x = Long.rotateLeft(x * 0xbf58476d1ce4e5b9L, 31) + i;
		return x;
	}

	static long delta(long x, int n) {
		for (int i = 0; i < n; i++)
			x = (x + 0x632be59bd9b4e019L) * 0x94d049bb133111ebL;
		return x;
	}

	static long epsilon(long x, int n) {
		for (int i = 0; i < n; i++)
			x = (x ^ (x << 13)) * 0xd6e8feb86659fd93L;
		return x;
	}

	static long zeta(long x, int n) {
		for (int i = 0; i < n; i++)
			x = (x >>> 7 | x << 57) * 0xff51afd7ed558ccdL + 1;
		return x;
	}

	public static void main(String[] args) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		long seconds = args.length > 0 ? Long.parseLong(args[0]) : 4;
		long end = mx.getCurrentThreadCpuTime() + seconds * 1000000000L;
		long x = 1, units = 0;
		final int u = args.length > 1 ? Integer.parseInt(args[1]) : 20000;

		/* the clock read every 4096 rounds: its time is main()'s */
		for (long r = 0; (r & 4095) != 0 ||
			     mx.getCurrentThreadCpuTime() < end; r++) {
			x = alpha(x, 40 * u);
			x = beta(x, 25 * u);
			x = gamma(x, 15 * u);
			x = delta(x, 10 * u);
			x = epsilon(x, 6 * u);
			x = zeta(x, 4 * u);
			units += 100;
		}
		sink = x;
		System.out.println("hot " + units);
	}
}
