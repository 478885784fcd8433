// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "export.h"
int an_export_perfetto(struct an *an, const struct an_settings *vs, FILE *f)
{
	return an_errf(an, -ENOSYS, "perfetto: not yet");
}
