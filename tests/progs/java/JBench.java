// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/bench-java's workloads.  "work N": a fixed CPU-bound job (N
 * rounds of hashing and sorting arrays: JIT-compiled code, calls,
 * allocation), timed by itself, printing "work ELAPSED_NS CPU_NS".
 * "idle THREADS SECONDS": THREADS threads parked for SECONDS, the main
 * thread sleeping meanwhile.
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

public class JBench {
	static volatile long sink;

	static long round(int[] a, long seed) {
		for (int i = 0; i < a.length; i++) {
			seed = seed * 6364136223846793005L + 1442695040888963407L;
			a[i] = (int)(seed >>> 33);
		}
		Arrays.sort(a);
		long h = 0;
		for (int x : a)
			h = h * 31 + x;
		return h ^ seed;
	}

	static void work(long n) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
		int[] a = new int[4096];
		long h = 1;

		for (long r = 0; r < n; r++)
			h += round(a, h + r);
		sink = h;
		System.out.println("work " + (System.nanoTime() - w0) + " " +
				   (mx.getCurrentThreadCpuTime() - c0));
	}

	static void idle(int threads, long seconds) throws InterruptedException {
		long end = System.nanoTime() + seconds * 1000000000L;

		for (int i = 0; i < threads; i++) {
			Thread t = new Thread(() -> {
				long now;

				while ((now = System.nanoTime()) < end)
					LockSupport.parkNanos(end - now);
			});
			t.setDaemon(true);
			t.start();
		}
		Thread.sleep(seconds * 1000);
		System.out.println("idle " + threads);
	}

	public static void main(String[] args) throws Exception {
		if (args[0].equals("work"))
			work(Long.parseLong(args[1]));
		else
			idle(Integer.parseInt(args[1]), Long.parseLong(args[2]));
	}
}
