// SPDX-License-Identifier: GPL-2.0
/*
 * The analyzer's metric registry (analyzer/model/metric.c) and metric
 * lists (analyzer/report/mlist.c) on a model with no experiment, against
 * what er_print's Table A says: total first, then total CPU, the ten
 * microstates under their keywords in the uapi's order, each summing its
 * own base value; total sums all ten and the CPUs' idle time; a counter
 * added as log.txt names it is a count, and cycles at a known clock rate
 * are time; er_print's list specs parse into the columns they name, and
 * a name that is no metric is refused.
 */
#include <errno.h>
#include <string.h>

#include "analyzer/load/load.h"
#include "analyzer/report/report.h"
#include "libexp/mstate_names.h"
#include "test.h"

int main(void)
{
	uint64_t base[64] = { 0 };
	struct an_run run = { .nwarn = 0 };
	struct an_mlist l = { 0 };
	struct an_msort so;
	struct an an;
	int i, m, ok, err, cyc, ins;

	if (an_init(&an, &run))
		t_fatal("an_init");
	t_check(!strcmp(an_metric_kw(&an, AN_M_TOTAL), "total") &&
		!strcmp(an_metric_title(&an, AN_M_TOTAL), "Total Thread Time"),
		"the first metric: total, Total Thread Time");
	t_check(!strcmp(an_metric_kw(&an, 1), "totalcpu"), "then totalcpu");
	for (i = ok = 0; i < LWPROF_MS_COUNT; i++) {
		m = an_metric_find(&an, exp_mstate_names[i].keyword);
		ok += m == 2 + i && !strcmp(an_metric_title(&an, m),
					    exp_mstate_names[i].title) &&
		      an_metric_is_time(&an, m) &&
		      (an_metric_flags(&an, m) & AN_MF_STATE);
	}
	t_check(ok == LWPROF_MS_COUNT,
		"the ten microstates next, in uapi's order, as time (%d)", ok);

	/* base value i of the ten microstates (the decoders' first bases), idle */
	for (i = 0; i < LWPROF_MS_COUNT; i++)
		base[an_base_id(&an, AN_B_MSTATE, i)] = (i + 1) * 1000000000ULL;
	base[an_base_id(&an, AN_B_IDLE, 0)] = 500000000;
	t_check(an_metric_raw(&an, AN_M_TOTAL, base) == 55500000000ULL,
		"total: the ten microstates and idle summed (%llu)",
		(unsigned long long)an_metric_raw(&an, AN_M_TOTAL, base));
	m = an_metric_find(&an, "totalcpu");
	t_check(an_metric_val(&an, m, base) == 6.0,
		"totalcpu: user + system + trap, in seconds (%g)",
		an_metric_val(&an, m, base));
	m = an_metric_find(&an, "lock");
	t_check(an_metric_val(&an, m, base) == 7.0, "lock: its own base, 7 s");

	/* as load/load.c adds log.txt's: the decoder's base, then the metric */
	err = an_decode_counter(&an, 0) == UINT32_MAX ? -ENOMEM :
		an_metric_add_counter(&an, "insts", 0);
	err = err ? err : an_decode_counter(&an, 1) == UINT32_MAX ? -ENOMEM :
		an_metric_add_counter(&an, "cycles", 2000);
	t_check(!err && an.nctr == 2, "two counters added");
	ins = an_metric_find(&an, "insts");
	cyc = an_metric_find(&an, "cycles");
	base[an_base_id(&an, AN_B_COUNTER, 1)] = 4000000;
	t_check(ins >= 0 && !an_metric_is_time(&an, ins) &&
		!strcmp(an_metric_title(&an, ins), "insts Events") &&
		!strcmp(an_metric_unit_name(&an, ins), "events"),
		"a counter: events (%s)", ins >= 0 ? an_metric_title(&an, ins) : "");
	t_check(cyc >= 0 && an_metric_is_time(&an, cyc) &&
		!strcmp(an_metric_title(&an, cyc), "cycles Time") &&
		an_metric_val(&an, cyc, base) == 0.002,
		"cycles at 2000 MHz: time, 4e6 cycles = 2 ms (%g)",
		cyc >= 0 ? an_metric_val(&an, cyc, base) : -1);
	t_check(!strcmp(an_counter_name(&an, 1), "cycles"), "counter 1's name");

	err = an_mlist_parse(&an, "e.%user:i.user:a.lock:name", &l);
	t_check(!err && l.n == 4 && l.c[0].flavor == 'e' && l.c[0].value &&
		l.c[0].pct && l.c[1].flavor == 'i' && !l.c[1].pct &&
		l.c[2].flavor == 'a' && l.c[2].m == an_metric_find(&an, "lock") &&
		l.c[3].m == AN_M_NAME,
		"e.%%user:i.user:a.lock:name: four columns as asked");
	err = an_mlist_parse(&an, "ei%total:e!user", &l);
	t_check(!err && l.n == 2 && l.c[0].flavor == 'e' && l.c[1].flavor == 'i' &&
		!l.c[0].value && l.c[0].pct,
		"ei%%total: both flavors, percentages alone; e!user hidden");
	err = an_mlist_parse(&an, "e.bogus", &l);
	t_check(err == -EINVAL && strstr(run.err, "'e.bogus': not a metric"),
		"a name that is no metric: %s", run.err);
	err = an_msort_parse(&an, "i.cycles", &so);
	t_check(!err && so.flavor == 'i' && so.m == cyc, "sort by i.cycles");
	an_mlist_free(&l);
	an_free(&an);
	return t_done();
}
