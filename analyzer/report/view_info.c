// SPDX-License-Identifier: GPL-2.0
/*
 * The informational views: -header (the experiments' logs), -overview (the
 * totals of every metric), -statistics (per process and thread: the
 * module's precise microstate totals from usage.txt beside the sampled
 * totals and their ratio: how accurate the sampling was), -thread_list,
 * -cpu_list, -sample_list.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/report/report.h"
#include "libexp/format.h"
#include "libexp/mstate_names.h"

/*
 * The backend that recorded e and, metric by metric, what it gives
 * exactly, approximately or not at all (log.txt's "metric" lines; the
 * module's microstates are all exact).
 */
static void header_backend(FILE *o, const struct an_exp *e)
{
	size_t k, n;

	if (!e->log->backend && !e->log->abi) {
		fprintf(o, "  Backend:        none: tracing only, no clock or counter profiling\n");
		return;
	}
	if (!e->log->backend || !strcmp(e->log->backend, "module")) {
		fprintf(o, "  Backend:        module: every microstate exact\n");
		fprintf(o, "  Module:         %s (ABI %s)\n",
			e->log->module_version ? e->log->module_version : "?",
			e->log->abi ? e->log->abi : "?");
		return;
	}
	fprintf(o, "  Backend:        %s (records ABI %s)\n", e->log->backend,
		e->log->abi ? e->log->abi : "?");
	for (k = 0; k < e->log->nr_metrics; k++) {
		const char *v = e->log->metrics[k];
		const char *label = NULL;
		int i;

		n = strcspn(v, " ");
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			if (strlen(exp_mstate_names[i].name) == n &&
			    !strncmp(v, exp_mstate_names[i].name, n))
				label = exp_mstate_names[i].label;
		fprintf(o, "  Metric:         %-18s %s\n", label ? label : v,
			v[n] ? v + n + 1 : "");
	}
}

/* Seconds from e's start to t (its clock; 0 before it). */
static double exp_secs(const struct an_exp *e, uint64_t t)
{
	return t > e->log->start_ns ? (t - e->log->start_ns) / 1e9 : 0.0;
}

/* usage.txt's record of pid/tid in e, if it says the recording stopped. */
static const struct exp_usage *usage_stopped(const struct an_exp *e,
					    uint32_t pid, uint32_t tid)
{
	size_t u;

	for (u = 0; u < e->nusage; u++) {
		const struct exp_usage *us = &e->usage[u];

		if (us->pid == pid && us->tid == tid &&
		    (us->flags & LWPROF_TU_STOPPED))
			return us;
	}
	return NULL;
}

/*
 * 1.6: the threads whose recording stopped because the recording user
 * could no longer trace them (their stop records, or for those with
 * none, usage.txt), and a session that another one ended.
 */
static void header_stops(struct an *an, size_t e, FILE *o)
{
	const struct an_exp *x = &AN_VEC(an->exps, struct an_exp, e);
	size_t i, u;

	if (x->revoked)
		fprintf(o, "  Session ended:  at %.3f s: %s\n",
			exp_secs(x, x->revoked_ns), exp_stop_why(x->revoked));
	for (i = 0; i < an->threads.n; i++) {
		const struct an_thread *t = &AN_VEC(an->threads, struct an_thread, i);

		if (t->exp == e && t->stop_reason)
			fprintf(o, "  Not recorded:   pid %u tid %u (%s) from %.3f s on: %s\n",
				t->pid, t->tid, t->comm[0] ? t->comm : "?",
				exp_secs(x, t->stop_ns), exp_stop_why(t->stop_reason));
	}
	for (u = 0; u < x->nusage; u++) {
		const struct exp_usage *us = &x->usage[u];
		bool seen = false;

		if (!(us->flags & LWPROF_TU_STOPPED))
			continue;
		for (i = 0; i < an->threads.n && !seen; i++) {
			const struct an_thread *t = &AN_VEC(an->threads, struct an_thread, i);

			seen = t->exp == e && t->stop_reason && t->pid == us->pid &&
			       t->tid == us->tid;
		}
		if (!seen)
			fprintf(o, "  Not recorded:   pid %u tid %u (%s) from %.3f s on: %s\n",
				us->pid, us->tid, us->comm[0] ? us->comm : "?",
				exp_secs(x, us->end_ns),
				exp_stop_why(LWPROF_TU_WHY(us->flags)));
	}
}

/*
 * The counts when no record was read (an->need 0: -header alone): the
 * recorder's, from log.txt; the files' bytes, which the reader would
 * have read.
 */
static void header_logged(FILE *o, const struct an_exp *e)
{
	const struct exp_file *files;
	uint64_t bytes = 0;
	size_t nfiles, k;
	struct stat st;

	exp_files(e->x, &files, &nfiles);
	for (k = 0; k < nfiles; k++)
		if (!stat(files[k].path, &st))
			bytes += st.st_size;
	if (e->log->end_ns)
		fprintf(o, "  Records:        %" PRIu64 " written, %" PRIu64 " lost",
			e->log->records, e->log->lost);
	else
		fprintf(o, "  Records:        not counted (the recorder did not finish)");
	fprintf(o, "; %zu files of %.1f MiB, not read (" EXP_LOG "'s counts)\n",
		nfiles, bytes / 1048576.0);
	if (e->log->sample_packets || e->log->paused_ns)
		fprintf(o, "  Sample packets: %" PRIu64 ", recording paused %.3f s\n",
			e->log->sample_packets, e->log->paused_ns / 1e9);
}

int an_view_header(struct an *an, const struct an_settings *vs,
		   struct an_out *out)
{
	FILE *o = out->f;
	size_t i, k;
	uint64_t ncalls;
	bool capped;
	int c;

	for (i = 0; i < an->exps.n; i++) {
		struct an_exp *e = &AN_VEC(an->exps, struct an_exp, i);
		const struct exp_counter *ctr = e->log->counters;

		fprintf(o, "Experiment: %s (format %d.%d)\n", e->name, e->log->fmt_major,
			e->log->fmt_minor);
		if (e->log->command)
			fprintf(o, "  Command:        %s\n", e->log->command);
		fprintf(o, "  Mode:           %s, target pid %u\n",
			e->log->mode ? e->log->mode : "?", e->log->target);
		fprintf(o, "  Host:           %s (%s, kernel %s), %u CPUs online, %u possible, %.0f MHz\n",
			e->log->host ? e->log->host : "?", e->log->arch ? e->log->arch : "?",
			e->log->kernel ? e->log->kernel : "?", e->log->cpus, e->log->cpus_possible,
			e->log->cpu_mhz);
		fprintf(o, "  Started:        %s\n", e->log->start_time ? e->log->start_time : "?");
		fprintf(o, "  Ended:          %s (%.3f s)\n",
			e->log->end_time ? e->log->end_time : "?",
			e->log->end_ns > e->log->start_ns ? (e->log->end_ns - e->log->start_ns) / 1e9 : 0.0);
		if (e->log->clock_interval_ns)
			fprintf(o, "  Clock profiling: every %.3f ms\n",
				e->log->clock_interval_ns / 1e6);
		for (c = 0; c < (int)e->log->nr_counters; c++)
			fprintf(o, "  Counter:        %s every %" PRIu64 " events (type %u, config 0x%" PRIx64 ")\n",
				ctr[c].name, ctr[c].period, ctr[c].type, ctr[c].config);
		/* what perf gave when kernel.perf_event_max_stack capped it */
		capped = e->log->perf_max_stack && e->log->perf_max_stack < e->log->max_depth;
		fprintf(o, "  Stacks:         depth %u%s, %u bytes copied, kernel stacks %s\n",
			capped ? e->log->perf_max_stack : e->log->max_depth,
			capped ? " (kernel.perf_event_max_stack)" : "",
			e->log->stack_bytes, e->log->kernel_stacks ? "on" : "off");
		if (e->log->trace) {
			/* heap calls' stacks are walked in the process (1.10) */
			bool walked = strstr(e->log->trace, "heap") &&
				      e->log->fmt_minor >= EXP_MINOR_THEAP;

			fprintf(o, "  Tracing:        %s; ", e->log->trace);
			if (walked && !strcmp(e->log->trace, "heap"))
				fprintf(o, "stacks walked in the process");
			else
				fprintf(o, "%u bytes of stack copied%s", e->log->trace_stack_bytes,
					walked ? " (heap calls: walked in the process)" : "");
			fprintf(o, "; %" PRIu64 " calls in %" PRIu64 " files\n",
				e->log->trace_calls, e->log->trace_files);
		}
		if (e->log->sync_ns != UINT64_MAX)
			fprintf(o, "  Sync threshold: %.3f us%s%s%s\n", e->log->sync_ns / 1e3,
				e->log->sync_calibration ? " (calibrated: " : "",
				e->log->sync_calibration ? e->log->sync_calibration : "",
				e->log->sync_calibration ? ")" : "");
		header_backend(o, e);
		if (!an->need) {
			header_logged(o, e);
		} else {
			ncalls = e->ncalls;	/* a traced call with a stack is read as a sample */
			fprintf(o, "  Records:        %" PRIu64 " read, %" PRIu64 " samples, ",
				e->nrecords, e->nsamples - ncalls);
			if (ncalls)	/* and the heap calls counted with them */
				fprintf(o, "%" PRIu64 " traced calls, ", ncalls + e->ncounted);
			fprintf(o, "%" PRIu64 " lost\n",
				e->log->lost > e->lost_read ? e->log->lost : e->lost_read);
		}
		fprintf(o, "  Exit:           %s\n", e->log->exit ? e->log->exit : "?");
		header_stops(an, i, o);
		if (e->gs.n)
			fprintf(o, "  Sample packets: %zu, recording paused %.3f s (%" PRIu64 " packets in paused time left out)\n",
				e->gs.n, e->paused_ns / 1e9, e->dropped_paused);
		if (e->log->stopped)
			fprintf(o, "  Stopped early:  %s (the command ran on)\n", e->log->stopped);
		if (e->log->flight)
			fprintf(o, "  Flight recorder: %s\n", e->log->flight);
		for (k = 0; k < e->log->nr_warnings; k++)
			fprintf(o, "  Warning:        %s\n", e->log->warnings[k]);
		fprintf(o, "\n");
	}
	return 0;
}

static int overview_samples(struct an *an, struct an_filter *f, FILE *o);

int an_view_overview(struct an *an, const struct an_settings *vs,
		     struct an_out *out)
{
	char desc[1024];
	struct an_agg g;
	double total;
	int m, err;

	err = an_aggregate(an, vs->filter, &g);
	if (err)
		return err;
	total = an_metric_val(an, AN_M_TOTAL, g.total);
	fprintf(out->f, "Overview: %zu experiment(s), %" PRIu64 " samples selected, filter: %s\n\n",
		an->exps.n, g.nsamples,
		an_filter_desc(vs->filter, desc, sizeof(desc)));
	for (m = 0; m < an_metric_count(an); m++) {
		double v = an_metric_val(an, m, g.total);
		char buf[64];

		if (!an_metric_present(an, m))
			continue;
		an_fmt_num(buf, sizeof(buf), an_metric_cell(an, m), v);
		if (an_metric_absent(an, m))
			fprintf(out->f, "    %-24s %14s (the recording's backend cannot measure it: -header)\n",
				an_metric_title(an, m), buf);
		else if (an_metric_flags(an, m) & AN_MF_THREAD)
			fprintf(out->f, "  %c %-24s %14s sec. %7.2f%%\n", v > 0 ? '*' : ' ',
				an_metric_title(an, m), buf, total > 0 ? 100 * v / total : 0.0);
		else
			fprintf(out->f, "  %c %-24s %14s %s\n", v > 0 ? '*' : ' ',
				an_metric_title(an, m), buf,
				an_metric_unit_name(an, m));
	}
	an_agg_free(&g);
	return overview_samples(an, vs->filter, out->f);
}

/* Sampled microstate totals per thread (all samples, no filter). */
static uint64_t *sampled_per_thread(struct an *an)
{
	uint64_t *t = calloc(an->threads.n * LWPROF_MS_COUNT + 1, sizeof(*t));
	const uint64_t *v = an->s.vals;
	size_t i;

	if (!t)
		return NULL;
	for (i = 0; i < an->s.n; i++) {
		const uint32_t *l = an_layout(an, an->s.layout[i]);
		uint32_t j;

		for (j = 1; j <= l[0]; j++, v++) {
			const struct an_base *b = &AN_VEC(an->bases, struct an_base, l[j]);

			if (b->kind == AN_B_MSTATE)
				t[an->s.thr[i] * LWPROF_MS_COUNT + b->idx] += *v;
		}
	}
	return t;
}

/*
 * Sync wait tracing's time beside the User Lock time of clock
 * profiling, which can exceed it (waits under the threshold are not
 * traced; lock time outside the traced calls is not either).
 */
static void sync_vs_lock(struct an *an, size_t e, const uint64_t *samp, FILE *o)
{
	const struct an_exp *x = &AN_VEC(an->exps, struct an_exp, e);
	uint64_t n = 0, ns = 0, lp = 0, ls = 0, lock, nms = 0, all = 0;
	uint64_t ms[LWPROF_MS_COUNT] = { 0 };
	size_t i;

	if (x->log->sync_ns == UINT64_MAX)
		return;
	an_trace_sync_sum(an, e, &n, &ns, &nms, ms);
	for (i = 0; i < an->threads.n; i++)
		if (AN_VEC(an->threads, struct an_thread, i).exp == e)
			ls += samp[i * LWPROF_MS_COUNT + LWPROF_MS_USER_LOCK];
	for (i = 0; i < x->nusage; i++)
		lp += x->usage[i].ms[LWPROF_MS_USER_LOCK];
	fprintf(o, "Sync wait tracing (threshold %.3f us): %" PRIu64 " waits, Sync Wait Time %.3f s\n",
		x->log->sync_ns / 1e3, n, ns / 1e9);
	if (nms) {
		/* over each call, read by the library from the module */
		fprintf(o, "  Microstates of the %" PRIu64 " waits the module accounted:", nms);
		for (i = 0; i < LWPROF_MS_COUNT; all += ms[i++])
			if (ms[i])
				fprintf(o, " %s %.6f s,", exp_mstate_names[i].label, ms[i] / 1e9);
		fprintf(o, " in all %.6f s\n", all / 1e9);
	}
	if (!x->log->clock_interval_ns) {
		fprintf(o, "  User Lock Time: not measured (no clock profiling)\n\n");
		return;
	}
	lock = x->nusage ? lp : ls;
	fprintf(o, "  User Lock Time: %.3f s%s, %.3f s sampled; %s Sync Wait Time by %.3f s%s\n",
		lock / 1e9, x->nusage ? " precise" : "", ls / 1e9,
		lock >= ns ? "above" : "below",
		(lock >= ns ? lock - ns : ns - lock) / 1e9, lock >= ns ?
		" (waits under the threshold, and lock time outside traced calls)" : "");
	an_trace_sync_top(an, e, 5, o);
	fputc('\n', o);
}

static void stat_block(FILE *o, const char *indent, const uint64_t *precise,
		       const uint64_t *sampled, bool have_precise)
{
	uint64_t tp = 0, ts = 0;
	int i;

	fprintf(o, "%s%-18s %16s %16s %8s\n", indent, "Microstate", "Precise (sec.)",
		"Sampled (sec.)", "Ratio");
	for (i = 0; i <= LWPROF_MS_COUNT; i++) {
		uint64_t p = i < LWPROF_MS_COUNT ? precise[i] : tp;
		uint64_t s = i < LWPROF_MS_COUNT ? sampled[i] : ts;
		char ratio[32] = "-";

		if (i < LWPROF_MS_COUNT) {
			tp += p;
			ts += s;
		}
		if (!p && !s && i < LWPROF_MS_COUNT)
			continue;
		if (have_precise && p)
			snprintf(ratio, sizeof(ratio), "%.4f", (double)s / p);
		/* no precise total: an empty cell, never a 0 beside the sampled */
		if (have_precise)
			fprintf(o, "%s%-18s %16.6f %16.6f %8s\n", indent,
				i < LWPROF_MS_COUNT ? exp_mstate_names[i].label : "Total",
				p / 1e9, s / 1e9, ratio);
		else
			fprintf(o, "%s%-18s %16s %16.6f %8s\n", indent,
				i < LWPROF_MS_COUNT ? exp_mstate_names[i].label : "Total",
				"", s / 1e9, "-");
	}
}

/* The programs the tracing library could not enter (1.5's records). */
static void untraced(const struct an_exp *x, FILE *o)
{
	char line[4096 + 256];
	size_t i;

	if (x->untraced.n)
		fprintf(o, "Not traced: programs the tracing library could not enter\n");
	for (i = 0; i < x->untraced.n; i++) {
		exp_untraced_str(&x->untraced.v[i], line, sizeof(line));
		fprintf(o, "  %s\n", line);
	}
	if (x->untraced.n)
		fprintf(o, "\n");
}

int an_view_statistics(struct an *an, const struct an_settings *vs,
		       struct an_out *out)
{
	uint64_t *samp = sampled_per_thread(an);
	FILE *o = out->f;
	size_t e, t, u;

	if (!samp)
		return an_errf(an, -ENOMEM, "out of memory");
	for (e = 0; e < an->exps.n; e++) {
		struct an_exp *x = &AN_VEC(an->exps, struct an_exp, e);
		uint32_t lastpid = 0;
		bool first = true;

		fprintf(o, "Experiment %s: %" PRIu64 " records, %" PRIu64 " samples, %" PRIu64 " lost\n\n",
			x->name, x->nrecords, x->nsamples,
			x->log->lost > x->lost_read ? x->log->lost : x->lost_read);
		if (!x->nusage && x->log->backend && strcmp(x->log->backend, "module"))
			fprintf(o, "No precise totals: the %s backend keeps none (no " EXP_USAGE "); the sampled totals alone.\n\n",
				x->log->backend);
		if (x->pauses.n)
			fprintf(o, "Recording was paused %.3f s: the sampled totals leave it out, the precise ones include it.\n\n",
				x->paused_ns / 1e9);
		for (t = 0; t < an->threads.n; t++) {
			struct an_thread *th = &AN_VEC(an->threads, struct an_thread, t);
			const struct exp_usage *us = NULL;
			uint64_t pp[LWPROF_MS_COUNT] = { 0 }, ps[LWPROF_MS_COUNT] = { 0 };
			bool havep = false;
			size_t k;
			int i;

			if (th->exp != e)
				continue;
			if (first || th->pid != lastpid) {
				/* the process: its threads' sums */
				for (k = 0; k < an->threads.n; k++) {
					struct an_thread *o2 = &AN_VEC(an->threads, struct an_thread, k);

					if (o2->exp != e || o2->pid != th->pid)
						continue;
					for (i = 0; i < LWPROF_MS_COUNT; i++)
						ps[i] += samp[k * LWPROF_MS_COUNT + i];
				}
				for (u = 0; u < x->nusage; u++) {
					const struct exp_usage *uu = &x->usage[u];

					if (uu->pid != th->pid)
						continue;
					havep = true;
					for (i = 0; i < LWPROF_MS_COUNT; i++)
						pp[i] += uu->ms[i];
				}
				fprintf(o, "Process %u (%s)\n", th->pid, th->comm);
				stat_block(o, "  ", pp, ps, havep);
				fprintf(o, "\n");
				first = false;
				lastpid = th->pid;
			}
			for (u = 0; u < x->nusage; u++) {
				const struct exp_usage *uu = &x->usage[u];

				if (uu->pid == th->pid && uu->tid == th->tid)
					us = uu;
			}
			fprintf(o, "  Thread %zu: tid %u (%s)", t + 1, th->tid, th->comm);
			if (us)
				fprintf(o, ", %" PRIu64 " voluntary / %" PRIu64 " involuntary switches, %" PRIu64 " minor / %" PRIu64 " major faults, %" PRIu64 " system calls, %" PRIu64 " signals",
					us->vcsw, us->ivcsw, us->minflt, us->majflt,
					us->syscalls, us->signals);
			fprintf(o, "\n");
			stat_block(o, "    ", us ? us->ms : pp, samp + t * LWPROF_MS_COUNT,
				   us != NULL);
			fprintf(o, "\n");
		}
		sync_vs_lock(an, e, samp, o);
		untraced(x, o);
	}
	free(samp);
	return 0;
}

int an_view_thread_list(struct an *an, const struct an_settings *vs,
			struct an_out *out)
{
	size_t i;

	fprintf(out->f, "%6s %4s %8s %8s %-16s %10s %12s %12s\n", "Thread", "Exp",
		"PID", "TID", "Name", "Samples", "First (s)", "Last (s)");
	for (i = 0; i < an->threads.n; i++) {
		struct an_thread *t = &AN_VEC(an->threads, struct an_thread, i);
		const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, t->exp);
		const struct exp_usage *us = usage_stopped(e, t->pid, t->tid);
		unsigned int why = t->stop_reason ? t->stop_reason :
				   us ? LWPROF_TU_WHY(us->flags) : 0;
		uint64_t at = t->stop_reason ? t->stop_ns : us ? us->end_ns : 0;

		fprintf(out->f, "%6zu %4u %8u %8u %-16s %10" PRIu64 " %12.6f %12.6f",
			i + 1, t->exp + 1, t->pid, t->tid, t->comm[0] ? t->comm : "?",
			t->nsamples,
			t->nsamples ? (t->first_ns - an->tmin) / 1e9 : 0.0,
			t->nsamples ? (t->last_ns - an->tmin) / 1e9 : 0.0);
		/* 1.6: the recording user could no longer trace it */
		if (why)
			fprintf(out->f, "  not recorded from %.6f s: %s",
				at > an->tmin ? (at - an->tmin) / 1e9 : 0.0,
				exp_stop_why(why));
		fputc('\n', out->f);
	}
	return 0;
}

/*
 * Per CPU (the samples' cpu, every sample): the packets, then each CPU's
 * user, system, interrupt (trap) and idle time, from the registry's
 * metrics over the bases the CPU's samples carry, and their sum (in a
 * whole-machine experiment with idle packets, the run's elapsed time).
 */
int an_view_cpu_list(struct an *an, const struct an_settings *vs,
		     struct an_out *out)
{
	static const char *const kw[] = { "user", "system", "trap", "idle" };
	size_t nb = an->bases.n, i, ncpu = 0;
	const uint64_t *v = an->s.vals;
	uint64_t *n, *acc;
	int m[4];
	unsigned int k;

	for (i = 0; i < an->s.n; i++)
		if (an->s.cpu[i] >= ncpu)
			ncpu = an->s.cpu[i] + 1;
	n = calloc(ncpu + 1, sizeof(*n));
	acc = calloc((ncpu + 1) * nb, sizeof(*acc));
	if (!n || !acc) {
		free(n);
		free(acc);
		return an_errf(an, -ENOMEM, "out of memory");
	}
	for (k = 0; k < 4; k++)
		m[k] = an_metric_find(an, kw[k]);
	for (i = 0; i < an->s.n; i++) {
		const uint32_t *l = an_layout(an, an->s.layout[i]);
		uint64_t *a = acc + an->s.cpu[i] * nb;
		uint32_t j;

		n[an->s.cpu[i]] += !(an->s.part[i] & AN_PART_CONT);
		for (j = 1; j <= l[0]; j++, v++)
			a[l[j]] += *v;
	}
	fprintf(out->f, "%6s %10s %10s %10s %10s %10s %10s\n", "CPU", "Samples",
		"User", "System", "Interrupt", "Idle", "Sum");
	for (i = 0; i < ncpu; i++) {
		double t, sum = 0;

		if (!n[i])
			continue;
		fprintf(out->f, "%6zu %10" PRIu64, i, n[i]);
		for (k = 0; k < 4; k++) {
			t = m[k] < 0 ? 0.0 : an_metric_val(an, m[k], acc + i * nb);
			sum += t;
			fprintf(out->f, " %10.3f", t);
		}
		fprintf(out->f, " %10.3f\n", sum);
	}
	free(n);
	free(acc);
	return 0;
}

/*
 * Per sample (an->spans): its packets (a packet split in parts counts once)
 * and its ten sampled microstate times, of the samples that pass f (NULL:
 * all); *used gets the microstates seen.  NULL when out of memory.
 */
#define SROW (LWPROF_MS_COUNT + 1)
static uint64_t *span_rows(struct an *an, struct an_filter *f, uint64_t *used)
{
	const uint64_t *v = an->s.vals;
	uint64_t *row;
	size_t i;

	if (an_spans_build(an))
		return NULL;
	row = calloc(an->spans.n * SROW + 1, sizeof(*row));
	if (!row)
		return NULL;
	for (i = 0; i < an->s.n; i++) {
		const uint32_t *l = an_layout(an, an->s.layout[i]);
		uint64_t *r = row + (size_t)an->span_of[i] * SROW;
		bool pass = !f || an_filter_pass(an, f, i);
		uint32_t j;

		if (pass)
			r[0] += !(an->s.part[i] & AN_PART_CONT);
		for (j = 1; j <= l[0]; j++, v++) {
			const struct an_base *ba = &AN_VEC(an->bases, struct an_base, l[j]);

			if (pass && ba->kind == AN_B_MSTATE) {
				r[1 + ba->idx] += *v;
				*used |= 1ULL << ba->idx;
			}
		}
	}
	return row;
}

/* A sample's name: its first packet's, else that packet's kind. */
static const char *span_name(struct an *an, const struct an_span *s)
{
	static const char *const kinds[] = {
		"?", "(start)", "(periodic)", "(signal)", "(api)", "(pause)",
		"(resume)", "(end)",
	};
	const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, s->exp);
	const struct an_gs *g;

	if (s->gs_begin < 0)
		return "";
	g = &AN_VEC(e->gs, struct an_gs, s->gs_begin);
	return g->name ? g->name : kinds[g->kind <= EXP_GS_KIND_MAX ? g->kind : 0];
}

static uint64_t row_total(const uint64_t *r)
{
	uint64_t t = 0;
	int b;

	for (b = 0; b < LWPROF_MS_COUNT; b++)
		t += r[1 + b];
	return t;
}

/*
 * The global data of sample s: the differences of its packets' counts
 * (memory: at its end), and the time recording was paused in it; false
 * if a packet has no statistics.
 */
static bool span_data(struct an *an, const struct an_span *s, uint64_t d[AN_GS_NSTAT])
{
	const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, s->exp);
	const struct an_gs *a, *b;
	int k;

	if (s->gs_begin < 0)
		return false;
	a = &AN_VEC(e->gs, struct an_gs, s->gs_begin);
	b = &AN_VEC(e->gs, struct an_gs, s->gs_end);
	if (!(a->flags & b->flags & EXP_GS_STATS))
		return false;
	for (k = 0; k < AN_GS_NSTAT; k++)
		d[k] = b->stat[k] >= a->stat[k] ? b->stat[k] - a->stat[k] : 0;
	d[8] = b->stat[8];	/* resident */
	d[9] = b->stat[9];	/* swapped */
	return true;
}

/*
 * The samples of every experiment: the spans between its global sample
 * packets (samples.rec), each with its packets, sampled microstate times
 * (s), its data (page faults, bytes read and written, context switches,
 * resident and swapped memory at its end, paused time) and its name; an
 * experiment without packets is divided into seconds.  Unfiltered.
 */
int an_view_sample_list(struct an *an, const struct an_settings *vs,
			struct an_out *out)
{
	static const char *const data[] = {
		"MinFlt", "MajFlt", "ReadB", "WriteB", "", "", "VCSW", "ICSW",
		"RSS_KB", "Swap_KB",
	};
	uint64_t used = 0, *row, d[AN_GS_NSTAT];
	bool packets = false;
	size_t k;
	int b;

	row = span_rows(an, NULL, &used);
	if (!row)
		return an_errf(an, -ENOMEM, "out of memory");
	for (k = 0; k < an->spans.n; k++)
		packets |= AN_VEC(an->spans, struct an_span, k).gs_begin >= 0;
	if (!packets)
		fprintf(out->f, "No global sample packets: a sample is a second of an experiment's run (Oracle's default sampling interval), with its packets' sampled times (s).\n");
	else
		fprintf(out->f, "Samples: the spans between global sample packets; sampled times and paused time in s, the process's counts in the span, memory at its end.\n");
	fprintf(out->f, "%4s %6s %10s %10s %8s %9s", "Exp", "Sample", "Start", "End",
		"Packets", "Total");
	for (b = 0; b < LWPROF_MS_COUNT; b++)
		if (used & 1ULL << b)
			fprintf(out->f, " %9s", exp_mstate_names[b].brief);
	if (packets) {
		for (b = 0; b < 10; b++)
			if (*data[b])
				fprintf(out->f, " %9s", data[b]);
		fprintf(out->f, " %9s %s", "Paused", "Name");
	}
	fputc('\n', out->f);
	for (k = 0; k < an->spans.n; k++) {
		const struct an_span *s = &AN_VEC(an->spans, struct an_span, k);
		const struct an_exp *e = &AN_VEC(an->exps, struct an_exp, s->exp);
		uint64_t *r = row + k * SROW;
		uint64_t t0 = s->start >= an->tmin ? s->start - an->tmin : 0;
		uint64_t t1 = s->end >= an->tmin ? s->end - an->tmin : 0;
		bool has = span_data(an, s, d);

		fprintf(out->f, "%4u %6u %10.3f %10.3f %8" PRIu64 " %9.3f", s->exp + 1,
			s->num, t0 / 1e9, t1 / 1e9, r[0], row_total(r) / 1e9);
		for (b = 0; b < LWPROF_MS_COUNT; b++)
			if (used & 1ULL << b)
				fprintf(out->f, " %9.3f", r[1 + b] / 1e9);
		if (packets) {
			for (b = 0; b < 10; b++) {
				if (!*data[b])
					continue;
				if (has)
					fprintf(out->f, " %9" PRIu64, b >= 8 ? d[b] >> 10 : d[b]);
				else
					fprintf(out->f, " %9s", "-");
			}
			fprintf(out->f, " %9.3f %s", (s->end - s->start -
				an_unpaused(e, s->start, s->end)) / 1e9,
				span_name(an, s));
		}
		fputc('\n', out->f);
	}
	free(row);
	return 0;
}

/*
 * -overview's time line: each sample the filter leaves something of,
 * its span, the sampled thread time in it and a bar of its share of the
 * largest.
 */
static int overview_samples(struct an *an, struct an_filter *f, FILE *o)
{
	uint64_t used = 0, *row, max = 0;
	size_t k;

	row = span_rows(an, f, &used);
	if (!row)
		return an_errf(an, -ENOMEM, "out of memory");
	for (k = 0; k < an->spans.n; k++)
		if (row_total(row + k * SROW) > max)
			max = row_total(row + k * SROW);
	fprintf(o, "\nSamples over time (Exp Sample Start-End s: thread time s, bar; name):\n");
	for (k = 0; k < an->spans.n; k++) {
		const struct an_span *s = &AN_VEC(an->spans, struct an_span, k);
		uint64_t tot = row_total(row + k * SROW);
		int bar = max ? (int)(40 * tot / max) : 0;

		if (f && !tot)
			continue;
		fprintf(o, "  %3u %5u %9.3f-%-9.3f %9.3f %.*s", s->exp + 1,
			s->num, (s->start - (s->start >= an->tmin ? an->tmin : s->start)) / 1e9,
			(s->end - (s->end >= an->tmin ? an->tmin : s->end)) / 1e9,
			tot / 1e9, bar, "########################################");
		if (*span_name(an, s))
			fprintf(o, "%*s %s", 40 - bar, "", span_name(an, s));
		fputc('\n', o);
	}
	free(row);
	return 0;
}
