// SPDX-License-Identifier: GPL-2.0
/*
 * The record decoders of metric data (model/model.h): a sample
 * record's base values.  A clock sample carries the ten microstates'
 * times (and, on a process's main thread, their sum as the wall time); a
 * CPU's idle packet (LWPROF_RS_IDLE) its idle time (the idle task's
 * SYSTEM) and the interrupts taken while idle (TRAP); a counter sample
 * the events of one counter of log.txt.  The bases and
 * the counters' layouts are made once (an_decode_init, an_decode_counter),
 * the clock samples' layouts the first time their fields have values, so
 * that decoding a record only looks its layout up.
 */
#include <errno.h>
#include <stdio.h>

#include "analyzer/load/load.h"
#include "libexp/format.h"

int an_decode_init(struct an *an)
{
	struct an_sdec *d = &an->ld->sdec;
	uint32_t i;

	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		d->ms[i] = an_base_id(an, AN_B_MSTATE, i);
		if (d->ms[i] == UINT32_MAX)
			return -ENOMEM;
	}
	d->wall = an_base_id(an, AN_B_WALL, 0);
	d->idle = an_base_id(an, AN_B_IDLE, 0);
	for (i = 0; i < AN_SDEC_CLOCK; i++)
		d->clock[i] = UINT32_MAX;
	d->ctr.esz = d->ctr_lay.esz = sizeof(uint32_t);
	d->none = an_layout_intern(an, NULL, 0);
	if (d->wall == UINT32_MAX || d->idle == UINT32_MAX ||
	    d->none == UINT32_MAX)
		return -ENOMEM;
	return 0;
}

/* The base and layout of counter k (an->ld->sdec.ctr.n == k), made now. */
uint32_t an_decode_counter(struct an *an, uint32_t k)
{
	struct an_sdec *d = &an->ld->sdec;
	uint32_t id = an_base_id(an, AN_B_COUNTER, k), *p, *q;

	if (id == UINT32_MAX || !(p = an_vec_push(&d->ctr)) ||
	    !(q = an_vec_push(&d->ctr_lay)))
		return UINT32_MAX;
	*p = id;
	*q = an_layout_intern(an, &id, 1);
	return *q == UINT32_MAX ? UINT32_MAX : id;
}

/* The layout of a clock sample whose fields in bit set f have values. */
static uint32_t clock_layout(struct an *an, uint32_t f)
{
	struct an_sdec *d = &an->ld->sdec;
	uint32_t ids[AN_SAMPLE_VALUES_MAX], n = 0, i;

	for (i = 0; i < LWPROF_MS_COUNT; i++)
		if (f & 1u << i)
			ids[n++] = d->ms[i];
	if (f & 1u << AN_SDEC_WALL)
		ids[n++] = d->wall;
	if (f & 1u << AN_SDEC_IDLE)
		ids[n++] = d->idle;
	d->clock[f] = an_layout_intern(an, ids, n);
	return d->clock[f];
}

int an_decode_sample(struct an *an, const struct an_exp *e,
		     const struct lwprof_rec_sample *r, uint32_t *layout,
		     uint64_t *vals, char *msg, size_t len, uint64_t *at)
{
	const struct an_sdec *d = &an->ld->sdec;
	bool idle = r->hdr.flags & LWPROF_RS_IDLE;
	uint64_t sum = 0;
	uint32_t f = 0;
	int nv = 0, i;

	if (r->kind == LWPROF_SK_CLOCK) {
		if (r->counter) {
			*at = 30;
			snprintf(msg, len, "clock sample with counter %u", r->counter);
			return -EINVAL;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++) {
			sum += r->mstate_ns[i];
			/* the idle task's running time is the CPU's idle time */
			if (r->mstate_ns[i] && !(idle && i == LWPROF_MS_SYSTEM)) {
				f |= 1u << i;
				vals[nv++] = r->mstate_ns[i];
			}
		}
		if (sum != r->value) {
			*at = 32;
			snprintf(msg, len, "clock value %llu but microstates sum to %llu",
				 (unsigned long long)r->value,
				 (unsigned long long)sum);
			return -EINVAL;
		}
		if (r->pid == r->tid && sum && !idle) {
			f |= 1u << AN_SDEC_WALL;
			vals[nv++] = sum;
		}
		if (idle && r->mstate_ns[LWPROF_MS_SYSTEM]) {
			f |= 1u << AN_SDEC_IDLE;
			vals[nv++] = r->mstate_ns[LWPROF_MS_SYSTEM];
		}
		*layout = d->clock[f] != UINT32_MAX ? d->clock[f] : clock_layout(an, f);
		return *layout == UINT32_MAX ? -ENOMEM : nv;
	}
	if (r->kind == LWPROF_SK_COUNTER) {
		if (r->counter >= e->log->nr_counters || r->counter >= d->ctr.n) {
			*at = 30;
			snprintf(msg, len, "counter %u, " EXP_LOG " names %zu",
				 r->counter, e->log->nr_counters);
			return -EINVAL;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			if (r->mstate_ns[i]) {
				*at = 40 + 8 * i;
				snprintf(msg, len, "counter sample with microstate time");
				return -EINVAL;
			}
		*layout = d->none;
		if (r->value) {
			*layout = AN_VEC(d->ctr_lay, uint32_t, r->counter);
			vals[nv++] = r->value;
		}
		return nv;
	}
	*at = 28;
	snprintf(msg, len, "unknown sample kind %u", r->kind);
	return -EINVAL;
}
