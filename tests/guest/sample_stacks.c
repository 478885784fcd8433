// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks in clock packets.
 *
 * User: a process spins in spin() called through main -> chain_a ->
 * chain_b -> spin (built with frame pointers).  Packets taken at the tick
 * have the registers (pc = ips[0], sp and bp in the thread's stack) and a
 * frame-pointer walk spin, chain_b, chain_a, workload in that order (the
 * few taken while in the vDSO's clock_gettime lack spin's frame); the
 * stack copy starts at sp: the word at bp - sp + 8 in it is ips[1], the
 * return address into chain_b; it has 8 KiB, or less where the stack
 * mapping ends or has a page that was never touched (the copy takes no
 * faults): the workload finds where with /proc/self/maps and mincore().
 * A walk cut by max_depth says so.
 *
 * Kernel (-K, root): a process that spends its time in read() of
 * /dev/zero gets packets taken in the kernel (LWPROF_RS_KMODE) with kernel
 * frames (kernel addresses) and its user stack at the call (the copy holds
 * the return address into reader()).  Without -K no
 * packet has kernel frames.
 */
#include <dlfcn.h>

#include "ring.h"
#include "test.h"

/*
 * How far up from the workload's frame its stack can be read without a
 * fault: to the end of the [stack] mapping (/proc/self/maps), or to the
 * first page that was never touched (mincore()), as there is often such a
 * gap below the arguments and environment.  The workload finds it itself.
 */
static uint64_t *stack_end;

static void find_stack_end(void)
{
	unsigned long lo, hi, page = getpagesize();
	uint64_t from = (uint64_t)__builtin_frame_address(0) & ~(page - 1);
	unsigned char vec[256];
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned int i;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			*stack_end = hi;
	if (f)
		fclose(f);
	if (*stack_end - from > sizeof(vec) * page ||
	    mincore((void *)from, *stack_end - from, vec))
		return;
	for (i = 0; from + i * page < *stack_end; i++) {
		if (!(vec[i] & 1)) {
			*stack_end = from + i * page;
			break;
		}
	}
}

__attribute__((noinline)) void spin(uint64_t ns)
{
	uint64_t end = lwr_now() + ns;
	volatile unsigned long n = 0;

	while (lwr_now() < end)
		for (int i = 0; i < 20000; i++)
			n++;
}

__attribute__((noinline)) void chain_b(uint64_t ns)
{
	spin(ns);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void chain_a(uint64_t ns)
{
	chain_b(ns);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) int workload(void *arg)
{
	find_stack_end();
	chain_a(1000000000);
	asm volatile("" ::: "memory");
	return 0;
}

__attribute__((noinline)) int reader(void *arg)
{
	static char buf[1 << 20];
	uint64_t end = lwr_now() + 1000000000;
	int fd = open("/dev/zero", O_RDONLY);

	while (lwr_now() < end)
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
	return 0;
}

static const char *fn_name(uint64_t addr)
{
	Dl_info di;

	return dladdr((void *)addr, &di) && di.dli_sname ? di.dli_sname : "?";
}

/* Does the sample's stack copy hold an address inside function fn? */
static int copy_has(const struct lwprof_rec_sample *s, const char *fn)
{
	unsigned int i;
	uint64_t w;

	for (i = 0; i + 8 <= s->stack_size; i += 8) {
		memcpy(&w, lwr_stack(s) + i, 8);
		if (!strcmp(fn_name(w), fn))
			return 1;
	}
	return 0;
}

/* Sample a run of fn at 1 ms with the given flags and depth. */
static int collect(struct lwr *r, int (*fn)(void *), unsigned int flags,
		   unsigned int depth, int *pid)
{
	struct lwprof_sample_start ss;
	struct lwr_child c;
	int ret;

	lwr_clock_req(&ss, 1000000, 8192);
	ss.flags = flags;
	ss.max_depth = depth;
	ret = lwr_begin(r, &c, fn, NULL, 512, &ss);
	*pid = c.pid;
	if (ret)
		return ret;
	ret = lwr_finish(r, &c, NULL, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "workload exited 0");
	return 0;
}

static void user_stacks(void)
{
	static const char *const chain[] = {
		"spin", "chain_b", "chain_a", "workload"
	};
	unsigned int ticks = 0, good = 0, regs_ok = 0, copy_ok = 0, kframes = 0;
	unsigned int pc_ok = 0, dbg = 0;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	struct lwr r;
	int pid;

	printf("# user stacks\n");
	if (collect(&r, workload, 0, 0, &pid))
		t_fatal("SAMPLE_START");
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		const uint64_t *regs = lwr_regs(s), *ips = lwr_ips(s);
		unsigned int i, match = 1;
		uint64_t sp, bp, w, want;

		if (rec->type != LWPROF_REC_SAMPLE || s->tid != (__u32)pid)
			continue;
		kframes += s->nr_kernel;
		if (rec->flags & (LWPROF_RS_DEFERRED | LWPROF_RS_EXIT |
				  LWPROF_RS_KMODE))
			continue;
		ticks++;
		if (!regs || !s->nr_user)
			continue;
		sp = regs[LWPROF_REG_SP];
		bp = regs[LWPROF_REG_BP];
		want = *stack_end - sp < 8192 ? *stack_end - sp : 8192;
		pc_ok += regs[LWPROF_REG_IP] == ips[0] && s->stack_size == want;
		if (s->stack_size != want && dbg++ < 3)
			printf("# sp %llx readable to %llx: %llu bytes, got %u\n",
			       (unsigned long long)sp,
			       (unsigned long long)*stack_end,
			       (unsigned long long)want, s->stack_size);
		for (i = 0; i < 4; i++)
			match &= i < s->nr_user &&
				 !strcmp(fn_name(ips[i]), chain[i]);
		good += match;
		regs_ok += match && bp >= sp && bp - sp < 4096;
		if (match && bp - sp + 16 <= s->stack_size) {
			memcpy(&w, lwr_stack(s) + (bp - sp) + 8, 8);
			copy_ok += w == ips[1];
		}
	}
	printf("# %u packets at the tick: %u with the whole chain, %u sane registers, %u copies agree\n",
	       ticks, good, regs_ok, copy_ok);
	t_check(ticks >= 100, "packets at the tick (%u)", ticks);
	t_check(good * 10 >= ticks * 9,
		"at least 90%% have spin <- chain_b <- chain_a <- workload (%u of %u)",
		good, ticks);
	t_check(pc_ok == ticks,
		"all have pc = ips[0] and a copy of the stack from sp to its end, or 8 KiB (%u of %u)",
		pc_ok, ticks);
	t_check(regs_ok == good,
		"those in spin have sp <= bp < sp + 4096 (%u of %u)", regs_ok,
		good);
	t_check(copy_ok == good,
		"the stack copy starts at sp: the return address at bp + 8 is ips[1] (%u of %u)",
		copy_ok, good);
	t_check(kframes == 0, "no kernel frames without -K (%u)", kframes);
	lwr_close(&r);

	printf("# max_depth 2\n");
	memset(&it, 0, sizeof(it));
	ticks = good = 0;
	if (collect(&r, workload, 0, 2, &pid))
		t_fatal("SAMPLE_START");
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		const uint64_t *ips = lwr_ips(s);

		if (rec->type != LWPROF_REC_SAMPLE || s->tid != (__u32)pid ||
		    (rec->flags & (LWPROF_RS_DEFERRED | LWPROF_RS_EXIT |
				   LWPROF_RS_KMODE)))
			continue;
		ticks++;
		good += s->nr_user == 2 && (rec->flags & LWPROF_RS_TRUNC) &&
			!strcmp(fn_name(ips[0]), "spin") &&
			!strcmp(fn_name(ips[1]), "chain_b");
	}
	t_check(ticks && good * 10 >= ticks * 9,
		"at least 90%% stop at spin <- chain_b, marked truncated (%u of %u)",
		good, ticks);
	lwr_close(&r);
}

static void kernel_stacks(void)
{
	unsigned int kmode = 0, kok = 0, users = 0;
	const struct lwprof_rec *rec;
	struct lwr_iter it = { 0 };
	struct lwr r;
	int pid, ret;

	printf("# kernel stacks (-K)\n");
	ret = collect(&r, reader, LWPROF_SS_KSTACK, 0, &pid);
	t_check(ret == 0, "root may ask for kernel stacks (%s)", strerror(-ret));
	if (ret)
		return;
	while ((rec = lwr_iter_next(&r, &it)) != NULL) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		const uint64_t *kips = lwr_kips(s);
		unsigned int i, kern = s->nr_kernel > 0;

		if (rec->type != LWPROF_REC_SAMPLE || s->tid != (__u32)pid ||
		    !(rec->flags & LWPROF_RS_KMODE) ||
		    !(rec->flags & LWPROF_RS_REGS))
			continue;
		kmode++;
		for (i = 0; i < s->nr_kernel; i++)
			kern &= kips[i] >= 0xffff800000000000ULL;
		kok += kern;
		users += copy_has(s, "reader");
	}
	printf("# %u packets in the kernel: %u with kernel frames, %u with the user caller\n",
	       kmode, kok, users);
	t_check(kmode >= 100, "packets taken in the kernel during read() (%u)",
		kmode);
	t_check(kok * 10 >= kmode * 9,
		"at least 90%% have kernel frames, all kernel addresses (%u of %u)",
		kok, kmode);
	t_check(users * 10 >= kmode * 9,
		"at least 90%% have the user stack of the read() call: a return address into reader in the copy (%u of %u)",
		users, kmode);
	lwr_close(&r);
}

int main(void)
{
	lwr_test_begin();
	stack_end = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stack_end == MAP_FAILED)
		t_fatal("mmap");
	user_stacks();
	kernel_stacks();
	return lwr_test_end();
}
