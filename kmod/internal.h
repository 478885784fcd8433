/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between the files of lwprof.ko. */
#ifndef LWPROF_INTERNAL_H
#define LWPROF_INTERNAL_H

#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include <asm/msr.h>

#include "compat.h"
#include "lwprof.h"	/* uapi/lwprof.h: the ABI */

#define LWPROF_MODULE_VERSION	"0.2.0"

/* Bits of LWPROF_FEAT_* this build implements. */
#define LWPROF_FEATURES		(LWPROF_FEAT_MSTATE | LWPROF_FEAT_SAMPLE | \
				 LWPROF_FEAT_SDELTA | LWPROF_FEAT_EXEC | \
				 LWPROF_FEAT_KBLOCK | LWPROF_FEAT_IDLE | \
				 LWPROF_FEAT_KONLY | LWPROF_FEAT_IRQ | \
				 LWPROF_FEAT_USTATE | LWPROF_FEAT_GUARD)

/*
 * The one clock (clock.c): ns on CLOCK_MONOTONIC's time line, NMI-safe.
 * The TSC is read unordered: a reading may move by a few cycles against
 * the instructions around it, which no accounting can see.
 */
struct lwprof_clock {
	u64 mult;		/* ns per cycle << LWPROF_CLOCK_SHIFT */
	u64 offset;		/* wraps: CLOCK_MONOTONIC minus scaled TSC */
	bool tsc;		/* else ktime_get_mono_fast_ns() */
};

/* A constant shift: a multiply and one shrd, no shift count to load. */
#define LWPROF_CLOCK_SHIFT	32

extern struct lwprof_clock lwprof_clock;
void lwprof_clock_anchor(void);

/*
 * cyc * mult >> LWPROF_CLOCK_SHIFT: one mul and one shrd.  In asm, not
 * mul_u64_u64_shr(): its 128-bit type makes GCC realign the stack of the
 * hooks that inline it (five more instructions on every return to user).
 */
static __always_inline u64 lwprof_tsc_ns(u64 cyc, u64 mult)
{
	u64 ns;

	asm("mulq %[mult]\n\tshrdq %[shift], %%rdx, %%rax"
	    : "=a" (ns)
	    : "a" (cyc), [mult] "rm" (mult), [shift] "i" (LWPROF_CLOCK_SHIFT)
	    : "rdx", "cc");
	return ns;
}

/* The TSC clock, for hooks attached only while it is the clock (mstate_sys.c). */
static __always_inline u64 lwprof_tsc_now(void)
{
	return lwprof_tsc_ns(rdtsc(), lwprof_clock.mult) + lwprof_clock.offset;
}

static inline u64 lwprof_now(void)
{
	if (likely(lwprof_clock.tsc))
		return lwprof_tsc_now();
	return ktime_get_mono_fast_ns();
}

/*
 * Kernel contexts a thread can be in while in SYSTEM state; the innermost
 * decides what a sleep is (see mstate.c).
 */
enum lwprof_ctx {
	LWPROF_CTX_SYSCALL = 1,
	LWPROF_CTX_LOCK,	/* a futex wait system call */
	LWPROF_CTX_TFAULT,
	LWPROF_CTX_DFAULT,
	LWPROF_CTX_KFAULT,
};

#define LWPROF_CTX_MAX		4

/* Kinds of interrupt (TRAP time): index of lwprof_thread.irq_pend[]. */
#define LWPROF_TRAP_HARD	0	/* device IRQs, x86 system vectors */
#define LWPROF_TRAP_SOFT	1	/* softirqs */
#define LWPROF_TRAP_KINDS	2

/* lwprof_thread.flags, under the session lock */
#define LWPROF_T_FREED		BIT(0)	/* task freed, out of the hash */
#define LWPROF_T_REPORTED	BIT(1)	/* final record read by the owner */
#define LWPROF_T_ATTACHED	BIT(2)	/* existed before the attach */
#define LWPROF_T_TAKEN		BIT(3)	/* held by lwprof_guard_take() */

/*
 * One accounted thread.  The probes of the thread's own CPU (and the waker,
 * for wakeups) update it; they are serialized by the scheduler (see
 * mstate.c), run with interrupts off and bump seq so that readers on other
 * CPUs get a consistent copy.  Invariant: the sum of acc[] equals
 * last_ns - start_ns.
 */
struct lwprof_thread {
	struct hlist_node hnode;	/* lwprof_threads, keyed by task */
	struct list_head snode;		/* session->threads */
	struct rcu_head rcu;
	struct task_struct *task;	/* key only; valid until FREED */
	struct lwprof_session *session;
	seqcount_t seq;
	u8 state;			/* LWPROF_MS_* */
	u8 resume;			/* state after WAIT_CPU */
	u8 depth;			/* entries used in ctx[] */
	u8 ctx[LWPROF_CTX_MAX];
	u8 exited;			/* final switch done: totals final */
	u8 guessed;			/* running at attach: state guessed */
	u8 pre_exec;			/* ATTACH_EXEC: no exec yet, no samples */
	u8 newborn;			/* forked, not yet woken: nothing counted */
	u8 want_urn;			/* its return to user mode: the notifier */
	u8 stopped;			/* guard.c: LWPROF_STOP_*, not recorded */
	u8 taking;			/* guard.c: being taken out; session lock */
	/* guard.c: its session's owner is not privileged (the return checks it) */
	u8 guarded;
	u64 fault_cnt;			/* faults done at last fault start */
	u32 flags;			/* LWPROF_T_*; session->lock */
	u64 last_ns;
	u64 acc[LWPROF_MS_COUNT];
	u64 start_ns;
	u64 end_ns;
	u32 pid, tid, ppid;		/* in the session's pid namespace */
	u64 vcsw, ivcsw, syscalls, signals;
	u64 minflt0, majflt0;		/* task counters at start */
	u64 minflt, majflt;		/* final, at exit */
	char comm[TASK_COMM_LEN];
	/* sample.c: clock packets; the thread's own CPU, interrupts off */
	u64 smp_base[LWPROF_MS_COUNT];	/* acc[] at its last clock packet */
	u64 smp_next;			/* a packet is due from then; 0: unset */
	u8 smp_due;			/* take it at the return to user mode */
	u8 us_on;			/* us set (ustate.c); follows smp_due */
	struct lwprof_sdelta_state *sd;	/* sdelta.c: the last stack copy */
	struct lwprof_kblock *kb;	/* offcpu.c: where it last blocked */
	u8 idle;			/* idle.c: a CPU's idle task */
	/* irq.c: TRAP not yet sent, and next packet, per interrupt kind */
	u64 irq_pend[LWPROF_TRAP_KINDS];
	u64 irq_next[LWPROF_TRAP_KINDS];
	/* ustate.c: the slot the thread reads its microstates from */
	struct lwprof_ustate *us;	/* NULL: none */
	struct lwprof_us_area *us_area;	/* holds a reference; NULL: none */
	u32 us_slot;
	/* guard.c: credentials last found traceable (compared, not held) */
	const struct cred *cred_ok;
	/* counter.c: its clock counters' counts at their last overflow */
	u64 ctr_last[LWPROF_MAX_COUNTERS];
};

struct lwprof_session {
	raw_spinlock_t lock;		/* threads, closing, thread flags */
	struct mutex read_mutex;	/* one READ_USAGE at a time */
	struct list_head threads;
	bool closing;
	bool machine;
	struct pid_namespace *pid_ns;
	atomic64_t lost;		/* threads not accounted: no memory */
	pid_t exclude_tgid;		/* machine session without this process */
	bool attach_exec;		/* LWPROF_ATTACH_EXEC */
	struct lwprof_smp *smp;		/* sample.c: rings and sampling */
	/* guard.c: the owner's rights, as the attach found them */
	const struct cred *owner;	/* the attacher's credentials */
	bool priv;			/* may record any thread (no guard) */
	u8 stopped;			/* LWPROF_STOP_REVOKED: ended by another */
	bool revoke;			/* marked by an attach; sessions mutex */
	struct list_head link;		/* every session; sessions mutex */
	/* charge.c: its memory, charged to its owner */
	struct user_struct *user;	/* its locked_vm, its count of sessions */
	struct mem_cgroup *memcg;	/* what probes allocate for it */
	unsigned int nthreads;		/* entries on threads; lock */
	unsigned int max_threads;	/* beyond: lost (counted); 0: no limit */
};

/* sdelta.c, offcpu.c */
struct lwprof_sdelta_state;
void lwprof_sd_free(struct lwprof_sdelta_state *sd);
struct lwprof_kblock;
void lwprof_kb_free(struct lwprof_kblock *kb);

/* thread.c: the table of accounted threads */
#define LWPROF_HASH_BITS	12
extern struct hlist_head lwprof_threads[1 << LWPROF_HASH_BITS];

/* RCU (or preemption off): the entry of task, if it is accounted. */
static __always_inline struct lwprof_thread *
lwprof_thread_find(struct task_struct *task)
{
	struct lwprof_thread *t;

	hash_for_each_possible_rcu(lwprof_threads, t, hnode,
				   (unsigned long)task) {
		if (t->task == task)
			return t;
	}
	return NULL;
}

struct lwprof_thread *lwprof_thread_alloc(gfp_t gfp);
void lwprof_thread_reserve_fill(void);
void lwprof_thread_reserve_drain(void);
struct lwprof_thread *lwprof_thread_new(struct lwprof_session *s);
void lwprof_thread_listed(struct lwprof_session *s, struct lwprof_thread *t);
void lwprof_thread_unlisted(struct lwprof_session *s, struct lwprof_thread *t);
void lwprof_thread_spares_free(struct lwprof_thread *t);
void lwprof_thread_free(struct lwprof_thread *t);
void lwprof_thread_begin(struct lwprof_thread *t, struct task_struct *task,
			 u64 now);
void lwprof_thread_init(struct lwprof_thread *t, struct task_struct *task,
			struct lwprof_session *s, u64 now);
int lwprof_thread_hash(struct lwprof_thread *t);
void lwprof_thread_unhash(struct lwprof_thread *t);
void lwprof_thread_snapshot(struct lwprof_thread *t, u64 now,
			    struct lwprof_thread_usage *u);
void lwprof_thread_final(struct lwprof_thread *t, struct task_struct *task);
int lwprof_threads_init(void);
void lwprof_threads_exit(void);

/* A tracepoint the module attaches to (probes.c). */
struct lwprof_tp {
	const char *name;
	void *probe;
	bool optional;		/* absent on some configurations */
	bool syscall;		/* not needed while the ftrace hook is on */
	struct tracepoint *tp;
	bool registered;
};

/* mstate*.c: the state machine */
extern struct lwprof_tp lwprof_mstate_tps[];
extern atomic_t lwprof_adopting;
void lwprof_ms_initial(struct lwprof_thread *t, struct task_struct *task);
void lwprof_ms_cpu_adopt(void *unused);
void lwprof_ms_cpu_forget(struct lwprof_session *s);
void lwprof_ms_cpus_reset(void);
void lwprof_ms_cpus_fast(void);
u64 lwprof_ms_pending(struct lwprof_thread *t);
int lwprof_ms_sys_init(void);
int lwprof_ms_sys_on(void);
void lwprof_ms_sys_off(void);
void lwprof_ms_sys_exit(void);
int lwprof_ms_ret_init(void);
int lwprof_ms_ret_on(void);
void lwprof_ms_ret_off(void);
void lwprof_ms_ret_exit(void);
extern struct lwprof_session __rcu *lwprof_machine;

/* probes.c: attaching the state machine to the kernel */
int lwprof_probes_init(void);
int lwprof_probes_get(void);
void lwprof_probes_put(void);
void lwprof_probes_exit(void);
extern bool lwprof_live;

/* records.c: the kprobe on perf_event_mmap, registered with the probes */
int lwprof_mmap_hook_init(void);
void lwprof_mmap_hook_exit(void);

/*
 * Is some session open?  The acquire makes the per-CPU reset and the
 * clock's anchor visible (probes.c).
 */
static __always_inline bool lwprof_probes_live(void)
{
	/* Pairs with the release in lwprof_probes_get(). */
	return smp_load_acquire(&lwprof_live);
}

/*
 * Should a probe that looks a thread up return at once?  Only resident
 * probes can run with no session open (probes.c): the others are
 * attached for the first session and detached after the last, and the
 * table is empty before and after, so they test nothing (a no-op in the
 * code while lwprof_resident_key is off).
 */
DECLARE_STATIC_KEY_FALSE(lwprof_resident_key);

static __always_inline bool lwprof_probes_dormant(void)
{
	return static_branch_unlikely(&lwprof_resident_key) &&
	       !lwprof_probes_live();
}

/* session.c */
int lwprof_session_attach(struct file *file, u32 flags, s32 pid);
long lwprof_session_read(struct file *file, struct lwprof_usage_read *req);
void lwprof_session_release(struct file *file);

/* compat.c */
int lwprof_compat_init(void);
bool lwprof_may_trace(struct task_struct *task);
int lwprof_perf_paranoid(void);
unsigned long lwprof_softirq_fn(unsigned int nr);

struct cred;
struct linux_binprm;
struct perf_event_attr;
struct mem_cgroup;
struct page;
struct user_struct;

/*
 * guard.c: whom a session may go on recording (docs/design/security.md).  The
 * hooks that write a packet or a record of a thread ask lwprof_guard()
 * first, on the thread's CPU with interrupts off (lwprof_guard_why() in
 * an NMI, which may not stop it).
 */
int lwprof_guard_open(struct lwprof_session *s);
void lwprof_guard_close(struct lwprof_session *s);
int lwprof_guard_user(void);
bool lwprof_guard_task(struct lwprof_session *s, struct task_struct *task);
unsigned int lwprof_guard_why(struct lwprof_thread *t);
bool __lwprof_guard(struct lwprof_thread *t);
bool lwprof_guard_exec(struct lwprof_thread *t, struct linux_binprm *bprm);
bool lwprof_guard_fork(struct lwprof_thread *pt, struct task_struct *child);
void lwprof_guard_sweep(struct lwprof_session *s);
void lwprof_guard_take(struct lwprof_session *s, unsigned int why);
bool lwprof_guard_caller_priv(void);
int lwprof_guard_counter(struct perf_event_attr *attr, bool cpu);
int lwprof_guard_kernel(void);

static __always_inline bool lwprof_guard(struct lwprof_thread *t)
{
	return likely(t->session->priv) || __lwprof_guard(t);
}

/*
 * The same at t's return to user mode (t's task is current): where a
 * setuid() or a prctl(PR_SET_DUMPABLE) shows first.  A pointer and two
 * bits before the call.
 */
static __always_inline bool lwprof_guard_current(struct lwprof_thread *t)
{
	struct mm_struct *mm = current->mm;

	if (likely(t->session->priv))
		return true;
	if (likely(rcu_access_pointer(current->real_cred) ==
		   READ_ONCE(t->cred_ok) &&
		   (!mm || __get_dumpable(mm->flags) == SUID_DUMP_USER)))
		return true;
	return __lwprof_guard(t);
}

/* charge.c: a session's memory, charged to its owner */
struct lwprof_locked {
	unsigned long user_pages;	/* on the owner's user->locked_vm */
	unsigned long mm_pages;		/* on mm->pinned_vm (RLIMIT_MEMLOCK) */
	struct mm_struct *mm;		/* held (mmgrab) while mm_pages */
};

int lwprof_charge_open(struct lwprof_session *s);
void lwprof_charge_close(struct lwprof_session *s);
unsigned int lwprof_charge_max_sessions(void);
int lwprof_charge_lock(struct lwprof_session *s, struct lwprof_locked *l,
		       unsigned long pages);
void lwprof_charge_unlock(struct lwprof_session *s, struct lwprof_locked *l);
void *lwprof_charge_alloc(struct lwprof_session *s, size_t size, gfp_t gfp);
void *lwprof_charge_vmap(size_t size, struct page ***pages);
void lwprof_charge_vunmap(void *mem, size_t size, struct page **pages);

/* compat.c, its security block: what perf_event_open() itself applies */
int lwprof_compat_sec_init(unsigned long (*lookup)(const char *name));
u64 lwprof_compat_sec_gaps(void);
int lwprof_perf_mlock_kb(void);
int lwprof_perf_lsm(struct perf_event_attr *attr, int type);

/*
 * Sampling (sample.c, ring.c, packet.c, records.c, counter.c): the hooks
 * the state machine calls, and the file operations and ioctls.
 */
void __lwprof_smp_user_return(struct lwprof_thread *t);
void __lwprof_smp_switch_in(struct lwprof_thread *t, u64 now);

/*
 * On while some session takes clock packets (probes.c counts them): until
 * then the hooks the hottest probes call (every return to user mode and
 * switch-in of an accounted thread) are a no-op in the code.
 */
DECLARE_STATIC_KEY_FALSE(lwprof_clock_key);
void lwprof_clock_hooks_get(void);
void lwprof_clock_hooks_put(void);

/* Interrupts off: t returns to user mode; is a clock packet due? */
static __always_inline void lwprof_smp_user_return(struct lwprof_thread *t)
{
	if (static_branch_unlikely(&lwprof_clock_key) && unlikely(t->smp_due))
		__lwprof_smp_user_return(t);
}

/* sched_switch: t is switched in at now. */
static __always_inline void lwprof_smp_switch_in(struct lwprof_thread *t,
						 u64 now)
{
	if (static_branch_unlikely(&lwprof_clock_key))
		__lwprof_smp_switch_in(t, now);
}

/*
 * The end of an outermost interrupt of kind that took dur ns of t's TRAP
 * time; fn its handler, or 0 (interrupts off).
 */
void __lwprof_smp_irq(struct lwprof_thread *t, unsigned int kind, u64 dur,
		      unsigned long fn, u64 now);

static __always_inline void lwprof_smp_irq(struct lwprof_thread *t,
					   unsigned int kind, u64 dur,
					   unsigned long fn, u64 now)
{
	if (static_branch_unlikely(&lwprof_clock_key))
		__lwprof_smp_irq(t, kind, dur, fn, now);
}

/* signal_deliver: a packet owed is taken before the handler's frame. */
void __lwprof_smp_signal(struct lwprof_thread *t);

static __always_inline void lwprof_smp_signal(struct lwprof_thread *t)
{
	if (static_branch_unlikely(&lwprof_clock_key) && unlikely(t->smp_due))
		__lwprof_smp_signal(t);
}

void lwprof_smp_exit(struct lwprof_thread *t);
void lwprof_smp_stopped(struct lwprof_thread *t);
void lwprof_smp_fork(struct lwprof_thread *t, struct task_struct *child);
void lwprof_smp_exec(struct lwprof_thread *t, struct task_struct *p);
void lwprof_smp_tp_rename(void *data, struct task_struct *task,
			  const char *comm);
long lwprof_smp_ring_setup(struct file *file, struct lwprof_ring_setup *req);
long lwprof_smp_start(struct file *file, struct lwprof_sample_start *req);
long lwprof_smp_stop(struct file *file, struct lwprof_sample_stop *req);
int lwprof_smp_mmap(struct file *file, struct vm_area_struct *vma);
__poll_t lwprof_smp_poll(struct file *file, struct poll_table_struct *pt);
void lwprof_smp_release(struct lwprof_session *s);
void lwprof_smp_revoke(struct lwprof_session *s);
void lwprof_smp_free(struct lwprof_session *s);

long lwprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/*
 * ustate.c: microstates user space reads without a system call.  Store
 * t's state into us (t NULL: keep the fields), owned by tid: seq odd
 * around the writes.  Interrupts off, on the owner's CPU, or with no
 * probe able to find t (ustate.c says who writes a slot).
 */
static __always_inline void lwprof_us_store(struct lwprof_ustate *us,
					    const struct lwprof_thread *t,
					    u32 tid)
{
	u32 seq = us->seq;

	WRITE_ONCE(us->seq, seq + 1);
	/* The odd count before the fields: a reader that saw them retries. */
	smp_wmb();
	if (t) {
		us->state = t->state;
		us->last_ns = t->last_ns;
		memcpy(us->mstate_ns, t->acc, sizeof(us->mstate_ns));
	}
	WRITE_ONCE(us->tid, tid);
	/* The fields before the even count: a reader that sees it has them. */
	smp_wmb();
	WRITE_ONCE(us->seq, seq + 2);
}

/* The return to user mode (interrupts off): t's slot, if it has one. */
static __always_inline void lwprof_us_publish(struct lwprof_thread *t)
{
	if (unlikely(t->us))
		lwprof_us_store(t->us, t, t->us->tid);
}

struct lwprof_us_area;
void lwprof_us_release(struct lwprof_thread *t);
void lwprof_us_drop(struct lwprof_thread *t);
long lwprof_us_open(struct lwprof_ustate_open *req);
long lwprof_us_claim(struct lwprof_ustate_claim *req);

#endif /* LWPROF_INTERNAL_H */
