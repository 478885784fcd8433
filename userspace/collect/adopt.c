// SPDX-License-Identifier: GPL-2.0
/*
 * The files libraries in the command wrote into the experiment (the
 * tracing library's trace.PID.rec, the Java agent's java.PID.rec): at
 * the end each is checked through the one reader, its records counted
 * into the experiment's and handed to the caller, and damage warned of.
 */
#include <string.h>

#include "libexp/reader.h"
#include "userspace/collect/collect.h"

static void adopt_warn(void *arg, const char *msg)
{
	exp_warn(arg, "%s", msg);
}

unsigned long long collect_adopt(struct exp_writer *e, uint32_t lo,
				 uint32_t hi, const char *what,
				 collect_adopt_fn *fn, void *arg)
{
	unsigned long long files = 0, recs = 0;
	const struct lwprof_rec *rec;
	struct exp_file *v;
	struct exp_reader f;
	size_t n, k;
	int ret;

	ret = exp_files_list(e->dirfd, e->path, &v, &n);
	if (ret) {
		exp_warn(e, "%s: reading the experiment: %s", what, strerror(-ret));
		return 0;
	}
	for (k = 0; k < n; k++) {
		if (v[k].id < lo || v[k].id >= hi)
			continue;
		files++;
		ret = exp_reader_open(&f, e->dirfd, v[k].name, adopt_warn, e);
		while (!ret || ret == 1) {
			ret = exp_reader_next(&f, &rec);
			if (ret <= 0)
				break;
			recs++;
			if (fn)
				fn(arg, &f, rec);
		}
		if (ret < 0)
			exp_warn(e, "%s: %s", what, f.msg);
		exp_reader_close(&f);
	}
	exp_files_free(v, n);
	e->records += recs;
	return files;
}
