// SPDX-License-Identifier: GPL-2.0
/*
 * Where off-CPU time lands (ABI 1.4, -K with LWPROF_SS_OFFCPU): the packet
 * that carries a thread's time asleep has the kernel stack at which it left
 * the CPU (LWPROF_RS_KBLOCK), and a wait ended by a signal has the user
 * stack of the call that waited, not the signal handler's
 * (LWPROF_RS_SIGNAL).  Without the flag (a reader of ABI 1.3) no packet
 * has a flag of 1.4, and the signalled wait still has the call's stack.
 *
 * A process with four threads, each blocked in one way while its main
 * thread waits 600 ms, then wakes them:
 *  - napper: three nanosleep()s of 200 ms: SLEEP in do_nanosleep;
 *  - piper: read() of an empty pipe until main writes it: SLEEP in
 *    pipe_read;
 *  - locker: FUTEX_WAIT until main wakes it: USER_LOCK in futex_wait*;
 *  - signalled: read() of an empty pipe in sig_blocker(), with a SIGUSR1
 *    handler (no SA_RESTART), until main sends it SIGUSR1: the read fails
 *    with EINTR and the handler runs.  Its packet must have been taken
 *    before the handler's frame: pc in libc's read() (not the handler's
 *    first instruction), and the return address into sig_blocker in the
 *    stack copy.
 * Kernel frames are named with /proc/kallsyms.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <linux/futex.h>

#include "ksyms.h"
#include "ring.h"
#include "test.h"

enum { NAPPER, PIPER, LOCKER, SIGNALLED, NTHREADS };

static const char *const names[NTHREADS] = {
	"napper", "piper", "locker", "signalled"
};

/* Shared with the test: each thread's tid, and the child's verdict. */
struct shared {
	int tid[NTHREADS];
	int handled;		/* the handler ran */
	int eintr;		/* sig_blocker's read failed with EINTR */
};

static struct shared *sh;
static int pipe_fd[2], sig_fd[2];
static uint32_t futex_word;

void on_signal(int sig);	/* not static: dladdr() names it */

void on_signal(int sig)
{
	sh->handled = 1;
}

__attribute__((noinline)) void *napper(void *arg)
{
	struct timespec ts = { 0, 200000000 };

	sh->tid[NAPPER] = gettid();
	for (int i = 0; i < 3; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

__attribute__((noinline)) void *piper(void *arg)
{
	char c;

	sh->tid[PIPER] = gettid();
	if (read(pipe_fd[0], &c, 1) != 1)
		return (void *)1;
	return NULL;
}

__attribute__((noinline)) void *locker(void *arg)
{
	sh->tid[LOCKER] = gettid();
	while (!__atomic_load_n(&futex_word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL,
			NULL, 0);
	return NULL;
}

__attribute__((noinline)) int sig_blocker(void)
{
	char c;
	int ret = read(sig_fd[0], &c, 1);

	asm volatile("" ::: "memory");
	return ret < 0 && errno == EINTR;
}

__attribute__((noinline)) void *signalled(void *arg)
{
	sh->tid[SIGNALLED] = gettid();
	sh->eintr = sig_blocker();
	return NULL;
}

static int workload(void *arg)
{
	void *(*fns[NTHREADS])(void *) = { napper, piper, locker, signalled };
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec ts = { 0, 600000000 };
	pthread_t th[NTHREADS];
	int i, bad = 0;
	void *ret;

	if (pipe(pipe_fd) || pipe(sig_fd) || sigaction(SIGUSR1, &sa, NULL))
		return 2;
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, fns[i], NULL))
			return 3;
	nanosleep(&ts, NULL);
	if (write(pipe_fd[1], "x", 1) != 1)
		return 4;
	__atomic_store_n(&futex_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	syscall(SYS_tgkill, getpid(), sh->tid[SIGNALLED], SIGUSR1);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], &ret);
		bad |= ret != NULL;
	}
	return bad;
}

static const char *fn_name(uint64_t addr)
{
	Dl_info di;

	return dladdr((void *)addr, &di) && di.dli_sname ? di.dli_sname : "?";
}

/* Does the sample's stack copy hold an address inside function fn? */
static int copy_has(const struct lwprof_rec_sample *s, const char *fn)
{
	uint64_t w;

	for (unsigned int i = 0; i + 8 <= s->stack_size; i += 8) {
		memcpy(&w, lwr_stack(s) + i, 8);
		if (!strcmp(fn_name(w), fn))
			return 1;
	}
	return 0;
}

/* What one thread's packets showed. */
struct seen {
	unsigned int big;	/* packets with >= 100 ms in the wait's state */
	unsigned int kblock;	/* of those: KBLOCK, kernel frames */
	unsigned int named;	/* of those: the blocking function in them */
	unsigned int signal;	/* of those: taken at the signal */
	unsigned int user_ok;	/* of those: the pc not in the handler, and
				 * the return into sig_blocker in the copy */
	uint64_t waited;	/* ns in the wait's state, all packets */
	char pc[64];		/* the function of a big packet's pc */
};

static void look(const struct ks_table *k, const struct lwprof_rec_sample *s,
		 unsigned int state, const char *fn, struct seen *v)
{
	const uint64_t *ips = lwr_ips(s);

	v->waited += s->mstate_ns[state];
	if (s->mstate_ns[state] < 100000000)
		return;
	v->big++;
	v->signal += !!(s->hdr.flags & LWPROF_RS_SIGNAL);
	v->user_ok += s->nr_user && strstr(fn_name(ips[0]), "read") &&
		      copy_has(s, "sig_blocker");
	if (s->nr_user)
		snprintf(v->pc, sizeof(v->pc), "%s", fn_name(ips[0]));
	if (!(s->hdr.flags & LWPROF_RS_KBLOCK) || !s->nr_kernel)
		return;
	v->kblock++;
	v->named += ks_has(k, lwr_kips(s), s->nr_kernel, fn);
	if (v->kblock == 1) {
		printf("# tid %u blocked in:", s->tid);
		for (unsigned int i = 0; i < s->nr_kernel && i < 8; i++)
			printf(" %s", ks_name(k, lwr_kips(s)[i] - 1));
		printf("\n");
	}
}

static const unsigned int state[NTHREADS] = {
	LWPROF_MS_SLEEP, LWPROF_MS_SLEEP, LWPROF_MS_USER_LOCK, LWPROF_MS_SLEEP
};
static const char *const fn[NTHREADS] = {
	"do_nanosleep", "pipe_read", "futex_wait", "pipe_read"
};

/*
 * One run of the workload sampled at 10 ms with -K and flags; what each
 * thread's packets showed into v, and the flag bits of ABI 1.4 seen.
 */
static unsigned int run(const struct ks_table *k, unsigned int flags,
			struct seen *v)
{
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	unsigned int newflags = 0;
	struct lwr_child c;
	struct lwr r;
	int i, ret;

	memset(sh, 0, sizeof(*sh));
	memset(v, 0, NTHREADS * sizeof(*v));
	lwr_clock_req(&ss, 10000000, 8192);
	ss.flags = LWPROF_SS_KSTACK | flags;
	ret = lwr_begin(&r, &c, workload, NULL, 256, &ss);
	if (ret) {
		errno = -ret;
		t_fatal("SAMPLE_START with -K");
	}
	ret = lwr_finish(&r, &c, NULL, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret),
		"the workload's threads all woke as planned (status %#x)", ret);
	t_check(sh->handled && sh->eintr,
		"the handler ran and the read failed with EINTR (%d, %d)",
		sh->handled, sh->eintr);
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;

		if (rec->type != LWPROF_REC_SAMPLE || s->kind != LWPROF_SK_CLOCK)
			continue;
		newflags |= rec->flags & ~0xffu;
		for (i = 0; i < NTHREADS; i++)
			if (s->tid == (__u32)sh->tid[i])
				look(k, s, state[i], fn[i], &v[i]);
	}
	lwr_close(&r);
	return newflags;
}

int main(void)
{
	struct seen v[NTHREADS];
	unsigned int newflags;
	struct ks_table k;
	int i;

	lwr_test_begin();
	if (ks_load(&k))
		t_skip("no kernel addresses in /proc/kallsyms");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		t_fatal("mmap");

	printf("# -K with LWPROF_SS_OFFCPU\n");
	run(&k, LWPROF_SS_OFFCPU, v);
	for (i = 0; i < NTHREADS; i++) {
		printf("# %s (tid %d): %.0f ms waiting; %u packets of >= 100 ms, %u with KBLOCK frames, %u with %s\n",
		       names[i], sh->tid[i], v[i].waited / 1e6, v[i].big,
		       v[i].kblock, v[i].named, fn[i]);
		t_check(v[i].big >= 1, "%s: its wait is in a packet (%u)",
			names[i], v[i].big);
		t_check(v[i].kblock == v[i].big,
			"%s: those packets carry the kernel stack where it blocked (%u of %u)",
			names[i], v[i].kblock, v[i].big);
		t_check(v[i].named == v[i].big,
			"%s: ... with %s in it (%u of %u)", names[i], fn[i],
			v[i].named, v[i].big);
	}
	t_check(v[NAPPER].big >= 3, "napper: one packet per 200 ms sleep (%u)",
		v[NAPPER].big);
	printf("# signalled: the pc of its packet is in %s\n", v[SIGNALLED].pc);
	t_check(v[SIGNALLED].signal == v[SIGNALLED].big,
		"signalled: its packet was taken at the signal (%u of %u)",
		v[SIGNALLED].signal, v[SIGNALLED].big);
	t_check(v[SIGNALLED].user_ok == v[SIGNALLED].big,
		"signalled: with the user stack of the read in sig_blocker (pc in read), not the handler's (%u of %u)",
		v[SIGNALLED].user_ok, v[SIGNALLED].big);

	/* A reader of ABI 1.3 (no OFFCPU): no flag it does not know. */
	printf("# -K without LWPROF_SS_OFFCPU\n");
	newflags = run(&k, 0, v);
	t_check(!newflags, "no flags of ABI 1.4 (%#x)", newflags);
	printf("# signalled: the pc of its packet is in %s\n", v[SIGNALLED].pc);
	t_check(v[SIGNALLED].big >= 1 &&
		v[SIGNALLED].user_ok == v[SIGNALLED].big,
		"signalled: still the user stack of the read, not the handler's (%u of %u)",
		v[SIGNALLED].user_ok, v[SIGNALLED].big);
	return lwr_test_end();
}
