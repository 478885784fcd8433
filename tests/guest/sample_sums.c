// SPDX-License-Identifier: GPL-2.0
/*
 * Clock packets carry all of a thread's time, on the stack that took it.
 *
 * A workload process: main spins 200 ms, then starts three threads and
 * holds a mutex for 200 ms; "rawsleep" sleeps 300 ms in a nanosleep system
 * call made by its own function (sleep_raw), "libcsleep" sleeps 300 ms in
 * libc's nanosleep() called from sleep_libc, "locker" waits for the mutex.
 * All exit.  Then, per thread:
 *  - the sum over its clock packets of each microstate equals the final
 *    totals of READ_USAGE exactly, and the last packet is its exit packet;
 *  - each sleeper has a packet, deferred to its return from the call,
 *    whose SLEEP is the call's duration as the thread measured it (within
 *    2% or 5 ms), less at most the time the thread waited for a CPU
 *    meanwhile (its schedstat's run delay, read before and after: the
 *    thread's clock reads also take its wait after the wakeup, which a
 *    loaded host makes long), and whose user stack has the caller: rawsleep's
 *    frame-pointer walk starts in sleep_raw and goes on to rawsleep_main;
 *    libcsleep's stack copy holds the return address into sleep_libc (libc
 *    has no frame pointers, so only the copy, unwound with DWARF, has it).
 * Functions are found by address with dladdr() (-rdynamic).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "mstate.h"
#include "ring.h"
#include "test.h"

#define NAP_NS	300000000ULL

/* What the workload measured, shared with the test through a mapping. */
struct truth {
	int tid_raw, tid_libc, tid_lock;
	uint64_t raw_ns, libc_ns;
	uint64_t raw_delay, libc_delay;	/* waits for a CPU meanwhile */
};

static struct truth *truth;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A nanosleep system call made right here (so the pc is in this function). */
__attribute__((noinline)) void sleep_raw(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "0"(SYS_nanosleep), "D"(&ts), "S"(NULL)
		     : "rcx", "r11", "memory");
}

__attribute__((noinline)) void sleep_libc(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
	asm volatile("" ::: "memory");	/* not a tail call */
}

/* The calling thread's time waiting for a CPU so far (schedstat). */
static uint64_t run_delay(void)
{
	unsigned long long run, delay;

	ms_schedstat(&run, &delay);
	return delay;
}

__attribute__((noinline)) void *rawsleep_main(void *arg)
{
	uint64_t t0, d0;

	truth->tid_raw = gettid();
	d0 = run_delay();
	t0 = lwr_now();
	sleep_raw(NAP_NS);
	truth->raw_ns = lwr_now() - t0;
	truth->raw_delay = run_delay() - d0;
	return arg;
}

__attribute__((noinline)) void *libcsleep_main(void *arg)
{
	uint64_t t0, d0;

	truth->tid_libc = gettid();
	d0 = run_delay();
	t0 = lwr_now();
	sleep_libc(NAP_NS);
	truth->libc_ns = lwr_now() - t0;
	truth->libc_delay = run_delay() - d0;
	return arg;
}

static void *locker_main(void *arg)
{
	truth->tid_lock = gettid();
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

static int workload(void *arg)
{
	uint64_t end = lwr_now() + 200000000;
	pthread_t t[3];
	int i;

	while (lwr_now() < end)
		;
	pthread_mutex_lock(&lock);
	pthread_create(&t[0], NULL, rawsleep_main, NULL);
	pthread_create(&t[1], NULL, libcsleep_main, NULL);
	pthread_create(&t[2], NULL, locker_main, NULL);
	usleep(200000);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* Is addr inside the function called name? */
static int in_fn(uint64_t addr, const char *name)
{
	Dl_info di;

	return dladdr((void *)addr, &di) && di.dli_sname &&
	       !strcmp(di.dli_sname, name);
}

/* Is got within want - less .. want, give or take 2% of want or 5 ms? */
static int near(uint64_t got, uint64_t want, uint64_t less)
{
	uint64_t tol = want / 50 > 5000000 ? want / 50 : 5000000;

	return got + tol + less >= want && got <= want + tol;
}

struct per_thread {
	uint64_t sum[LWPROF_MS_COUNT];
	unsigned int packets, exits;
	int last_was_exit;
	const struct lwprof_rec_sample *sleep;	/* its longest SLEEP packet */
};

static void check_sleeper(const char *who, const struct per_thread *pt,
			  uint64_t truth_ns, uint64_t delay_ns, const char *fn,
			  const char *caller)
{
	const struct lwprof_rec_sample *s = pt->sleep;
	const uint64_t *ips, *regs;
	const unsigned char *stk;
	unsigned int i, found = 0;

	if (!s) {
		t_check(0, "%s: a packet with SLEEP", who);
		return;
	}
	ips = lwr_ips(s);
	regs = lwr_regs(s);
	t_check(near(s->mstate_ns[LWPROF_MS_SLEEP], truth_ns, delay_ns),
		"%s: a packet's SLEEP %.3f ms is its nanosleep's %.3f ms less up to its %.1f us runnable (2%% or 5 ms)",
		who, s->mstate_ns[LWPROF_MS_SLEEP] / 1e6, truth_ns / 1e6,
		delay_ns / 1e3);
	t_check(s->hdr.flags & LWPROF_RS_DEFERRED,
		"%s: taken at its return to user mode (flags 0x%x)", who,
		s->hdr.flags);
	t_check(regs && s->nr_user >= 1 && regs[LWPROF_REG_IP] == ips[0],
		"%s: registers present, pc is ips[0]", who);
	if (caller) {
		t_check(s->nr_user >= 2 && in_fn(ips[0], fn) &&
			in_fn(ips[1], caller),
			"%s: frame-pointer stack %s <- %s (%u frames)", who, fn,
			caller, s->nr_user);
		return;
	}
	stk = lwr_stack(s);
	for (i = 0; i + 8 <= s->stack_size; i += 8) {
		uint64_t w;

		memcpy(&w, stk + i, 8);
		found |= in_fn(w, fn);
	}
	t_check(found, "%s: its %u-byte stack copy holds a return address into %s",
		who, s->stack_size, fn);
}

int main(void)
{
	struct per_thread pts[8] = { 0 };
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_usage us = { 0 };
	struct lwr_iter it = { 0 };
	unsigned int i, k, bad = 0;
	struct lwr_child c;
	struct lwr r;
	int ret, status;

	lwr_test_begin();
	truth = mmap(NULL, sizeof(*truth), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (truth == MAP_FAILED)
		t_fatal("mmap");
	lwr_clock_req(&ss, 10000000, 8192);
	ret = lwr_begin(&r, &c, workload, NULL, 256, &ss);
	t_check(ret == 0, "SAMPLE_START (%s)", strerror(-ret));
	status = lwr_finish(&r, &c, &us, NULL);
	t_check(WIFEXITED(status) && !WEXITSTATUS(status), "workload exited 0");
	t_check(us.n == 4, "4 threads (%u)", us.n);

	/* Packets by thread, in time order within each ring. */
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		struct per_thread *pt;

		if (rec->type != LWPROF_REC_SAMPLE || s->kind != LWPROF_SK_CLOCK)
			continue;
		for (k = 0; k < us.n && us.u[k].tid != s->tid; k++)
			;
		if (k == us.n || k >= 8) {
			bad++;
			continue;
		}
		pt = &pts[k];
		pt->packets++;
		pt->exits += !!(rec->flags & LWPROF_RS_EXIT);
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			pt->sum[i] += s->mstate_ns[i];
		if (!(rec->flags & LWPROF_RS_EXIT) &&
		    (!pt->sleep || s->mstate_ns[LWPROF_MS_SLEEP] >
				   pt->sleep->mstate_ns[LWPROF_MS_SLEEP]))
			pt->sleep = s;
	}
	t_check(bad == 0, "every packet is of a thread of the session (%u not)",
		bad);
	for (k = 0; k < us.n && k < 8; k++) {
		const struct lwprof_thread_usage *u = &us.u[k];
		int same = 1;

		for (i = 0; i < LWPROF_MS_COUNT; i++) {
			if (pts[k].sum[i] != u->mstate_ns[i]) {
				printf("#   state %u: packets %llu, usage %llu\n", i,
				       (unsigned long long)pts[k].sum[i],
				       (unsigned long long)u->mstate_ns[i]);
				same = 0;
			}
		}
		t_check(same, "tid %u (%s): its %u packets' microstates sum to its final totals exactly",
			u->tid, u->comm, pts[k].packets);
		t_check(pts[k].exits == 1, "tid %u: one exit packet (%u)",
			u->tid, pts[k].exits);
	}
	for (k = 0; k < us.n && k < 8; k++) {
		if (us.u[k].tid == (__u32)truth->tid_raw)
			check_sleeper("rawsleep", &pts[k], truth->raw_ns,
				      truth->raw_delay, "sleep_raw",
				      "rawsleep_main");
		if (us.u[k].tid == (__u32)truth->tid_libc)
			check_sleeper("libcsleep", &pts[k], truth->libc_ns,
				      truth->libc_delay, "sleep_libc", NULL);
		if (us.u[k].tid == (__u32)truth->tid_lock)
			t_check(us.u[k].mstate_ns[LWPROF_MS_USER_LOCK] > 150000000,
				"locker waited in USER_LOCK (%.3f ms)",
				us.u[k].mstate_ns[LWPROF_MS_USER_LOCK] / 1e6);
	}
	free(us.u);
	lwr_close(&r);
	return lwr_test_end();
}
