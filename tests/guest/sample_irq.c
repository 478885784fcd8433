// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt time apart (ABI 1.4, LWPROF_SS_IRQ with -K): a thread's TRAP
 * time goes into packets of its own, LWPROF_RS_HARDIRQ and
 * LWPROF_RS_SOFTIRQ, with the interrupt's kernel stack.
 *
 * A process sends UDP datagrams to itself over loopback for 1 s: every
 * send raises NET_RX, which runs as a softirq in the sender's context
 * (local_bh_enable), and the clock's own tick is a hard interrupt of it.
 *  - SOFTIRQ packets: the entry of the softirq's action first (one of
 *    6.1's softirq_vec[] functions, net_rx_action among them; which one
 *    ends first after a grid point is the tick's business);
 *  - HARDIRQ packets: an interrupt entry (a sysvec_ or common_interrupt
 *    function) on the stack;
 *  - no frame of lwprof's own probes at their top (names from kallsyms;
 *    below the interrupt's entry, what it interrupted may be lwprof's);
 *  - interrupt packets carry TRAP time only, and per thread every
 *    packet's microstates still add up exactly to the thread's final
 *    totals (READ_USAGE), as sample_sums checks without them.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ksyms.h"
#include "ring.h"
#include "test.h"

static int udp_loop(void *arg)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	uint64_t end = lwr_now() + 1000000000ULL;
	char buf[1024] = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		return 1;
	while (lwr_now() < end) {
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&a,
			   sizeof(a)) < 0 || recv(fd, buf, sizeof(buf), 0) < 0)
			return 2;
	}
	return 0;
}

/* The guest may boot with loopback down; -1 if it cannot come up. */
static int lo_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	strcpy(ifr.ifr_name, "lo");
	ret = fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) ? -1 : 0;
	ifr.ifr_flags |= IFF_UP;
	if (!ret)
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Is addr the entry of one of 6.1's softirq actions (softirq_vec[])? */
static int softirq_action(const struct ks_table *k, uint64_t addr)
{
	static const char *const actions[] = {
		"tasklet_hi_action", "run_timer_softirq", "net_tx_action",
		"net_rx_action", "blk_done_softirq", "irq_poll_softirq",
		"tasklet_action", "run_rebalance_domains",
		"hrtimer_run_softirq", "rcu_core_si",
		"sched_balance_softirq",	/* run_rebalance_domains in 6.12 */
	};
	const char *name = ks_name(k, addr);

	if (!ks_name_is_entry(k, addr))
		return 0;
	for (unsigned int i = 0; i < sizeof(actions) / sizeof(*actions); i++)
		if (!strcmp(name, actions[i]))
			return 1;
	return 0;
}

/*
 * Is one of the top frames (the handler and the interrupt's own path,
 * above what it interrupted, which may be anything) one of lwprof's own?
 */
static int ours(const struct ks_table *k, const struct lwprof_rec_sample *s)
{
	for (unsigned int i = 0; i < s->nr_kernel && i < 2; i++)
		if (!strncmp(ks_name(k, lwr_kips(s)[i] - !!i), "lwprof_", 7)) {
			printf("# lwprof frame:");
			for (unsigned int j = 0; j < s->nr_kernel && j < 10; j++)
				printf(" %s", ks_name(k, lwr_kips(s)[j] - !!j));
			printf("\n");
			return 1;
		}
	return 0;
}

int main(void)
{
	unsigned int soft = 0, soft_ok = 0, hard = 0, hard_ok = 0, own = 0;
	unsigned int trap_only = 0, irq_pkts = 0, sums_ok = 0, net_rx = 0;
	struct lwprof_sample_start ss;
	const struct lwprof_rec *rec;
	struct lwr_usage us = { 0 };
	uint64_t soft_ns = 0, hard_ns = 0;
	struct ks_table k;
	struct lwr_child c;
	struct lwr r;
	int ret;

	lwr_test_begin();
	if (ks_load(&k))
		t_skip("no kernel addresses in /proc/kallsyms");
	if (lo_up())
		t_skip("no loopback interface");
	lwr_clock_req(&ss, 10000000, 0);
	ss.flags = LWPROF_SS_KSTACK | LWPROF_SS_IRQ;
	ret = lwr_begin(&r, &c, udp_loop, NULL, 512, &ss);
	if (ret) {
		errno = -ret;
		t_fatal("SAMPLE_START with LWPROF_SS_IRQ");
	}
	ret = lwr_finish(&r, &c, &us, NULL);
	t_check(WIFEXITED(ret) && !WEXITSTATUS(ret), "udp loop exited 0 (%#x)",
		ret);

	for (unsigned int u = 0; u < us.n; u++) {
		uint64_t sum[LWPROF_MS_COUNT] = { 0 };
		struct lwr_iter it = { 0 };
		int same = 1;

		while ((rec = lwr_iter_next(&r, &it)) != NULL) {
			const struct lwprof_rec_sample *s = (const void *)rec;

			if (rec->type != LWPROF_REC_SAMPLE ||
			    s->kind != LWPROF_SK_CLOCK || s->tid != us.u[u].tid)
				continue;
			for (int m = 0; m < LWPROF_MS_COUNT; m++)
				sum[m] += s->mstate_ns[m];
		}
		for (int m = 0; m < LWPROF_MS_COUNT; m++)
			same &= sum[m] == us.u[u].mstate_ns[m];
		sums_ok += same;
	}
	t_check(us.n && sums_ok == us.n,
		"every thread's packets add up to its totals exactly (%u of %u)",
		sums_ok, us.n);

	for (struct lwr_iter it = { 0 }; (rec = lwr_iter_next(&r, &it));) {
		const struct lwprof_rec_sample *s = (const void *)rec;
		const uint64_t *kips = lwr_kips(s);

		if (rec->type != LWPROF_REC_SAMPLE ||
		    !(rec->flags & (LWPROF_RS_HARDIRQ | LWPROF_RS_SOFTIRQ)))
			continue;
		irq_pkts++;
		trap_only += s->value == s->mstate_ns[LWPROF_MS_TRAP];
		own += ours(&k, s);
		if (rec->flags & LWPROF_RS_SOFTIRQ) {
			soft++;
			soft_ns += s->value;
			soft_ok += s->nr_kernel && softirq_action(&k, kips[0]);
			net_rx += s->nr_kernel &&
				  !strcmp(ks_name(&k, kips[0]), "net_rx_action");
			if (soft == 1) {
				printf("# a softirq packet:");
				for (unsigned int i = 0; i < s->nr_kernel && i < 8; i++)
					printf(" %s", ks_name(&k, kips[i] - !!i));
				printf("\n");
			}
		} else {
			hard++;
			hard_ns += s->value;
			hard_ok += ks_has(&k, kips, s->nr_kernel, "sysvec_") ||
				   ks_has(&k, kips, s->nr_kernel, "__sysvec_") ||
				   ks_has(&k, kips, s->nr_kernel,
					  "common_interrupt");
			if (hard == 1) {
				printf("# a hardirq packet:");
				for (unsigned int i = 0; i < s->nr_kernel && i < 8; i++)
					printf(" %s", ks_name(&k, kips[i] - 1));
				printf("\n");
			}
		}
	}
	printf("# %u softirq packets (%.1f ms), %u with a softirq action first, %u of them net_rx_action; %u hardirq packets (%.1f ms), %u with an interrupt entry\n",
	       soft, soft_ns / 1e6, soft_ok, net_rx, hard, hard_ns / 1e6,
	       hard_ok);
	t_check(trap_only == irq_pkts,
		"interrupt packets carry TRAP time only (%u of %u)", trap_only,
		irq_pkts);
	if (lwr_gaps() & LWPROF_GAP_SOFTIRQ_THREADS) {
		/*
		 * PREEMPT_RT: softirqs run in threads, their time that
		 * thread's System (lwprof version says so): no softirq TRAP.
		 */
		t_check(soft == 0, "softirqs run in threads: no softirq packet (%u)",
			soft);
	} else {
		t_check(soft >= 20 && soft_ok == soft,
			"softirq packets, each with the entry of a softirq action first (%u of %u)",
			soft_ok, soft);
		t_check(net_rx >= 1, "... net_rx_action among them (%u)", net_rx);
	}
	t_check(hard >= 20 && hard_ok == hard,
		"hardirq packets, each with an interrupt entry on the stack (%u of %u)",
		hard_ok, hard);
	t_check(own == 0, "no frame of lwprof's own at the top (%u)", own);
	free(us.u);
	lwr_close(&r);
	return lwr_test_end();
}
