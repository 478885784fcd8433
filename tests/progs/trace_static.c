// SPDX-License-Identifier: GPL-2.0
/* A statically linked program: collect -s/-H/-i must refuse it. */
#include <stdlib.h>

int main(void)
{
	free(malloc(1));
	return 0;
}
