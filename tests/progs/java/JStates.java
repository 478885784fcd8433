// SPDX-License-Identifier: GPL-2.0
/*
 * The Java tests' workload: phases in methods of their own, each timed
 * by the program itself (the truth the tests compare lwprof with): CPU
 * time from ThreadMXBean, blocked time from System.nanoTime.  Prints one
 * line per phase, "phase NAME THREAD_CPU_NS WALL_NS".
 *
 *   java JStates [PHASE_MS] [phases: cpu,sleep,monitor,park,read,alloc]
 */
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public class JStates {
	static final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
	static long ms = 1000;
	static volatile long sink;
	static final Object lock = new Object();

	static void report(String name, long cpu0, long wall0) {
		long cpu = mx.getCurrentThreadCpuTime() - cpu0;
		long wall = System.nanoTime() - wall0;
		System.out.println("phase " + name + " " + cpu + " " + wall);
	}

	/* Spin on the CPU for ms of this thread's CPU time. */
	static long spinStep(long x) {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	/* Spin for ns of this thread's CPU time. */
	static void spinCpu(long ns) {
		long c0 = mx.getCurrentThreadCpuTime(), x = 1;

		while (mx.getCurrentThreadCpuTime() - c0 < ns)
			x = spinStep(x);
		sink = x;
	}

	static void cpu() {
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();

		spinCpu(ms * 1000000L);
		report("cpu", c0, w0);
	}

	/*
	 * Two clock ticks of CPU before a wait, so that no sample spans it
	 * and the wait before (a profiler's packet takes the time since
	 * the thread's previous one): report()'s write may have blocked.
	 */
	static void settle() {
		spinCpu(20000000L);
	}

	static void sleep() throws InterruptedException {
		settle();
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();

		Thread.sleep(ms);
		report("sleep", c0, w0);
	}

	/* Another thread holds the monitor for ms: this one waits for it. */
	static void monitor() throws InterruptedException {
		CountDownLatch held = new CountDownLatch(1);
		Thread holder = new Thread(() -> {
			synchronized (lock) {
				held.countDown();
				try {
					Thread.sleep(ms);
				} catch (InterruptedException e) {
				}
			}
		}, "holder");
		holder.start();
		held.await();	/* until the holder has it */
		settle();
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
		synchronized (lock) {
			sink++;
		}
		report("monitor", c0, w0);
		holder.join();
	}

	static void park() {
		settle();
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
		long end = w0 + ms * 1000000L, now;

		while ((now = System.nanoTime()) < end)
			LockSupport.parkNanos(end - now);
		report("park", c0, w0);
	}

	/*
	 * A read on a pipe whose writer (a child) writes ms after this
	 * thread tells it to start, however long the child took to start.
	 */
	static void read() throws Exception {
		Process p = new ProcessBuilder("sh", "-c",
			"read go; sleep " + (ms / 1000.0) + "; echo x").start();
		InputStream in = p.getInputStream();
		byte[] b = new byte[16];

		settle();
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
		p.getOutputStream().write('\n');
		p.getOutputStream().flush();
		while (in.read(b, 0, b.length) > 0)
			;
		report("read", c0, w0);
		p.waitFor();
	}

	/* Allocation for ms of CPU time: garbage collections. */
	static void alloc() {
		long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
		long n = 0;

		while (mx.getCurrentThreadCpuTime() - c0 < ms * 1000000L) {
			for (int i = 0; i < 1000; i++) {
				long[] a = new long[64 + (i & 63)];
				a[i & 63] = i;
				n += a.length;
			}
		}
		sink = n;
		report("alloc", c0, w0);
	}

	public static void main(String[] args) throws Exception {
		String phases = "cpu,sleep,monitor,park,read,alloc";

		if (args.length > 0)
			ms = Long.parseLong(args[0]);
		if (args.length > 1)
			phases = args[1];
		/*
		 * report() once before any phase: its first string
		 * concatenation links a call site and its first println sets
		 * up the output's encoder, tens of ms of CPU (seconds under
		 * an emulator) that are no phase's.  Then the instant the
		 * phases begin, on the recorder's clock (CLOCK_MONOTONIC).
		 */
		report("warmup", mx.getCurrentThreadCpuTime(), System.nanoTime());
		System.out.println("main " + System.nanoTime());
		for (String ph : phases.split(",")) {
			switch (ph) {
			case "cpu": cpu(); break;
			case "sleep": sleep(); break;
			case "monitor": monitor(); break;
			case "park": park(); break;
			case "read": read(); break;
			case "alloc": alloc(); break;
			default: throw new IllegalArgumentException(ph);
			}
		}
	}
}
