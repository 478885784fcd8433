// SPDX-License-Identifier: GPL-2.0
/*
 * Can the tracing library enter a program (libexp/trace.h)?  It is
 * preloaded by the dynamic linker through LD_PRELOAD, so not into:
 *  - a statically linked program (no PT_INTERP: no dynamic linker; the
 *    dynamic linker itself, run as a program, is the exception);
 *  - one the kernel starts in secure mode (AT_SECURE), where ld.so drops
 *    every LD_PRELOAD entry with a slash: the kernel's rule
 *    (cap_bprm_creds_from_file) is a new effective user or group ID other
 *    than the real one (a set-user-ID file of another user, a
 *    set-group-ID one with group execute of another group; not on a
 *    nosuid mount, not under no_new_privs), or, for a real user other
 *    than root, file capabilities that make it effective or add
 *    permitted ones;
 *  - a program of another class or machine (a 32-bit one), whose ld.so
 *    refuses the 64-bit library.
 * A script is its interpreter's case (the kernel ignores a script's own
 * set-ID bits), up to the kernel's four interpreters deep.  What the
 * kernel decides beyond these (an LSM's transition) is not seen here.
 *
 * Called by the library before an exec, maybe in a vfork child: system
 * calls only (syscall(), which sets errno and nothing else), no
 * allocation, no lock.  collect uses it on its command.
 */
#include <elf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libexp/trace.h"

#define MAX_INTERP	4	/* the kernel's nesting of #! interpreters */
#define LD_SO		"/lib64/ld-linux-x86-64.so.2"	/* the x86-64 ABI's */

static long sys_open(const char *path)
{
	return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
}

static long sys_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return syscall(SYS_pread64, fd, buf, n, off);
}

/* Is the ELF file fd (its header eh) the dynamic linker itself? */
static int is_ld_so(const struct stat *st)
{
	struct stat ld;

	return !syscall(SYS_stat, LD_SO, &ld) && ld.st_dev == st->st_dev &&
	       ld.st_ino == st->st_ino;
}

/* The ELF file fd: 0, EXP_UT_STATIC or EXP_UT_FOREIGN; -1: not ELF. */
static int elf_reason(int fd, const unsigned char *head, size_t n,
		      const struct stat *st)
{
	const Elf64_Ehdr *eh = (const void *)head;
	Elf64_Phdr ph;
	unsigned int i;

	if (n < EI_NIDENT || memcmp(head, ELFMAG, SELFMAG))
		return -1;
	if (n < sizeof(*eh))
		return 0;	/* cut short: the exec fails */
	if (head[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64)
		return EXP_UT_FOREIGN;
	if (eh->e_phentsize != sizeof(ph))
		return 0;	/* not for us to judge: the exec will */
	for (i = 0; i < eh->e_phnum; i++) {
		if (sys_pread(fd, &ph, sizeof(ph), eh->e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return 0;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	return eh->e_type == ET_DYN && is_ld_so(st) ? 0 : EXP_UT_STATIC;
}

/* Does file fd's security.capability make its exec a secure one? */
static int caps_secure(int fd)
{
	struct vfs_ns_cap_data c;
	long n;

	if (!syscall(SYS_getuid))
		return 0;	/* root gains nothing it had not */
	memset(&c, 0, sizeof(c));
	n = syscall(SYS_fgetxattr, fd, "security.capability", &c, sizeof(c));
	if (n < (long)XATTR_CAPS_SZ_1)
		return 0;
	return (c.magic_etc & VFS_CAP_FLAGS_EFFECTIVE) || c.data[0].permitted ||
	       (n >= (long)XATTR_CAPS_SZ_2 && c.data[1].permitted);
}

/* The set-ID and capability rules of a regular file fd (st its stat). */
static int secure_reason(int fd, const struct stat *st)
{
	struct statfs fs;
	long euid = syscall(SYS_geteuid), egid = syscall(SYS_getegid);
	int setid_ok = !syscall(SYS_fstatfs, fd, &fs) && !(fs.f_flags & ST_NOSUID) &&
		       syscall(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1;

	if (setid_ok && (st->st_mode & S_ISUID))
		euid = st->st_uid;
	if (setid_ok && (st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		egid = st->st_gid;
	if (euid != syscall(SYS_getuid))
		return EXP_UT_SETUID;
	if (egid != syscall(SYS_getgid))
		return EXP_UT_SETGID;
	return caps_secure(fd) ? EXP_UT_CAPS : 0;
}

/* A script's interpreter: the path after "#!" in head, into out. */
static int interp(const unsigned char *head, size_t n, char *out, size_t len)
{
	size_t i = 2, k = 0;

	while (i < n && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < n && k + 1 < len && head[i] && head[i] != ' ' &&
	       head[i] != '\t' && head[i] != '\n')
		out[k++] = head[i++];
	out[k] = 0;
	return k ? 0 : -1;
}

static void copy(char *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

int exp_untraceable(const char *path, char *img, size_t len)
{
	unsigned char head[256];
	char next[256];
	struct stat st;
	int depth, fd, why = 0;
	long n;

	copy(img, path, len);
	for (depth = 0; depth <= MAX_INTERP; depth++) {
		fd = sys_open(img);
		if (fd < 0)
			return 0;	/* the exec says what is wrong */
		n = syscall(SYS_fstat, fd, &st) ? -1 : sys_pread(fd, head, sizeof(head), 0);
		if (n < 0 || !S_ISREG(st.st_mode)) {
			syscall(SYS_close, fd);
			return 0;
		}
		why = elf_reason(fd, head, n, &st);
		if (why < 0 && n >= 2 && head[0] == '#' && head[1] == '!') {
			syscall(SYS_close, fd);
			if (interp(head, n, next, sizeof(next)))
				return 0;
			copy(img, next, len);
			continue;	/* the script's own set-ID bits do nothing */
		}
		if (why <= 0)
			why = secure_reason(fd, &st);
		syscall(SYS_close, fd);
		return why;
	}
	return 0;
}
