// SPDX-License-Identifier: GPL-2.0
/* The Java part of the model (java.h): lookups and its release. */
#include <stdlib.h>

#include "analyzer/model/java.h"

uint32_t an_jvm_find(const struct an_java *j, uint32_t exp, uint32_t pid)
{
	const struct an_jvm *v = j ? j->jvms.p : NULL;
	size_t i;

	for (i = 0; j && i < j->jvms.n; i++)
		if (v[i].exp == exp && v[i].pid == pid)
			return i;
	return UINT32_MAX;
}

void an_java_free(struct an_java *j)
{
	if (!j)
		return;
	free(j->jvms.p);
	free(j->methods.p);
	an_htab_free(&j->methods_h);
	free(j->lines.p);
	free(j->code.p);
	free(j->pcs.p);
	free(j->frames.p);
	free(j->stacks.p);
	free(j->threads.p);
	free(j->unloads.p);
	free(j->alias.p);
	an_htab_free(&j->alias_h);
	free(j->user);
	free(j->expert);
	free(j);
}
