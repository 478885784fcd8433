// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for a kernel's debug image (tests/host/print_kdebug.sh):
 * linked with -g -O0 it plays vmlinux (its _text as the kernel's), and
 * compiled alone with -ffunction-sections (the Makefile's kdbg_kernel.ko)
 * a module's NAME.ko, whose functions the loader places as it likes.  The
 * test gives the functions the addresses of a KASLR'd kernel in kallsyms
 * and expects the lines marked "KD:" back.
 */
__asm__(".text\n.globl _text\n_text:\n\tnop\n");

__attribute__((noinline)) int kd_leaf(int x)
{
	int y = x * 3;	/* KD:leaf */

	return y + 1;
}

__attribute__((noinline)) int kd_mid(int x)
{
	int r = kd_leaf(x);	/* KD:mid */

	return r + 2;
}

int main(int argc, char **argv)
{
	return kd_mid(argc) == 5 ? 0 : 1;
}
