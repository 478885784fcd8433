// SPDX-License-Identifier: GPL-2.0
/*
 * The record decoders of metric data (analyzer/metric.h): a sample
 * record's base values.  A clock sample carries the ten microstates'
 * times (and, on a process's main thread, their sum as the wall time); a
 * counter sample the events of one counter of log.txt.  The bases are
 * made once (an_decode_init, an_decode_counter) so that decoding a record
 * only looks them up.
 */
#include <errno.h>
#include <stdio.h>

#include "an.h"

int an_decode_init(struct an *an)
{
	uint32_t i;

	for (i = 0; i < LWPROF_MS_COUNT; i++) {
		an->ld->sdec.ms[i] = an_base_id(an, AN_B_MSTATE, i);
		if (an->ld->sdec.ms[i] == UINT32_MAX)
			return -ENOMEM;
	}
	an->ld->sdec.wall = an_base_id(an, AN_B_WALL, 0);
	an->ld->sdec.ctr.esz = sizeof(uint32_t);
	return an->ld->sdec.wall == UINT32_MAX ? -ENOMEM : 0;
}

/* The base of counter k (an->ld->sdec.ctr.n == k), made now. */
uint32_t an_decode_counter(struct an *an, uint32_t k)
{
	uint32_t id = an_base_id(an, AN_B_COUNTER, k), *p;

	if (id == UINT32_MAX || !(p = an_vec_push(&an->ld->sdec.ctr)))
		return UINT32_MAX;
	*p = id;
	return id;
}

int an_decode_sample(struct an *an, const struct an_exp *e,
		     const struct lwprof_rec_sample *r, uint32_t *ids,
		     uint64_t *vals, char *msg, size_t len, uint64_t *at)
{
	const struct an_sdec *d = &an->ld->sdec;
	uint64_t sum = 0;
	int nv = 0, i;

	if (r->kind == LWPROF_SK_CLOCK) {
		if (r->counter) {
			*at = 30;
			snprintf(msg, len, "clock sample with counter %u", r->counter);
			return -EINVAL;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++) {
			sum += r->mstate_ns[i];
			if (r->mstate_ns[i]) {
				ids[nv] = d->ms[i];
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
		if (r->pid == r->tid && sum) {
			ids[nv] = d->wall;
			vals[nv++] = sum;
		}
		return nv;
	}
	if (r->kind == LWPROF_SK_COUNTER) {
		if (r->counter >= e->counters.n || r->counter >= d->ctr.n) {
			*at = 30;
			snprintf(msg, len, "counter %u, log.txt names %zu", r->counter,
				 e->counters.n);
			return -EINVAL;
		}
		for (i = 0; i < LWPROF_MS_COUNT; i++)
			if (r->mstate_ns[i]) {
				*at = 40 + 8 * i;
				snprintf(msg, len, "counter sample with microstate time");
				return -EINVAL;
			}
		if (r->value) {
			ids[nv] = AN_VEC(d->ctr, uint32_t, r->counter);
			vals[nv++] = r->value;
		}
		return nv;
	}
	*at = 28;
	snprintf(msg, len, "unknown sample kind %u", r->kind);
	return -EINVAL;
}
