// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel told this program at its exec (tests/host/traceable):
 * AT_SECURE (ld.so's secure mode, where LD_PRELOAD is dropped) and
 * whether it has a dynamic linker (AT_BASE), as "SECURE BASED".  Built
 * dynamic and static (at_secure_static).
 */
#include <stdio.h>
#include <sys/auxv.h>

int main(void)
{
	printf("%lu %d\n", getauxval(AT_SECURE), getauxval(AT_BASE) != 0);
	return 0;
}
