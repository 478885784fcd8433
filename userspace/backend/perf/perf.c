// SPDX-License-Identifier: GPL-2.0
/*
 * The perf backend (perf.h): its record part (record.c) and its usage
 * part (usage.c).  It runs wherever perf_event_open(2) does; what the
 * kernel lets it see (perf_event_paranoid, capabilities) each part says
 * in its own messages and in log.txt.
 */
#include "userspace/backend/perf/perf.h"

static int perf_probe(char *why, size_t len)
{
	return 0;
}

const struct backend_ops backend_perf = {
	.name = "perf",
	.probe = perf_probe,
	.rec = &perf_rec_ops,
	.usage = &perf_usage_ops,
};
