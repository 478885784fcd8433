// SPDX-License-Identifier: GPL-2.0
/*
 * libdwfl finds an object's separate debug file (symbols, lines, CFI)
 * along its debuginfo path: by default ":.debug:/usr/lib/debug", that is
 * by build-id under /usr/lib/debug/.build-id/NN/REST.debug (Debian's
 * -dbgsym and -dbg packages), then by .gnu_debuglink beside the file, in
 * its .debug/ and under /usr/lib/debug.  LWPROF_DEBUGINFO_PATH replaces
 * that path (the same syntax); it is a test hook: the tests put debug
 * files under a temporary root instead of /usr/lib/debug.  The callbacks
 * live as long as the analyzer, as libdwfl keeps a pointer to them.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/internal.h"

struct an_dwfl_cbs {
	Dwfl_Callbacks offline, proc;
	char *path;		/* NULL: libdwfl's default */
};

static struct an_dwfl_cbs *cbs(struct an *an)
{
	const char *env = getenv("LWPROF_DEBUGINFO_PATH");
	struct an_dwfl_cbs *c = an->dwfl_cbs;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (env && *env && !(c->path = strdup(env))) {
		free(c);
		return NULL;
	}
	c->offline.find_elf = dwfl_build_id_find_elf;
	c->offline.find_debuginfo = dwfl_standard_find_debuginfo;
	c->offline.section_address = dwfl_offline_section_address;
	c->offline.debuginfo_path = c->path ? &c->path : NULL;
	c->proc.find_elf = dwfl_build_id_find_elf;
	c->proc.find_debuginfo = dwfl_standard_find_debuginfo;
	c->proc.debuginfo_path = c->offline.debuginfo_path;
	an->dwfl_cbs = c;
	return c;
}

const Dwfl_Callbacks *an_dwfl_offline_cb(struct an *an)
{
	struct an_dwfl_cbs *c = cbs(an);

	return c ? &c->offline : NULL;
}

const Dwfl_Callbacks *an_dwfl_proc_cb(struct an *an)
{
	struct an_dwfl_cbs *c = cbs(an);

	return c ? &c->proc : NULL;
}

void an_dwfl_cb_free(struct an *an)
{
	struct an_dwfl_cbs *c = an->dwfl_cbs;

	if (c)
		free(c->path);
	free(c);
	an->dwfl_cbs = NULL;
}
