// SPDX-License-Identifier: GPL-2.0
/*
 * libexp's exp_untraceable() (libexp/traceable.c), which the tracing
 * library asks before every exec, against the kernel's own answer: each
 * case is exec'd right after, a program that prints its auxiliary
 * vector's AT_SECURE (ld.so's secure mode: LD_PRELOAD dropped) and
 * whether it has AT_BASE (a dynamic linker).  The verdict must be
 * "traceable" exactly when the exec gives AT_BASE without AT_SECURE, and
 * the reason the one the exec shows: static (no AT_BASE) or set-ID or
 * capabilities (AT_SECURE).  Cases: a dynamic and a static program; a
 * script whose interpreter is static, and one whose interpreter is that
 * script; the dynamic linker run as a program; as root, set-user-ID and
 * set-group-ID copies of another user and group, the group's without
 * group execute (no set-group-ID then), one of root's own; file
 * capabilities; and in a child that became nobody, or set no_new_privs,
 * the same files again.  A 32-bit ELF header is foreign.
 */
#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "test.h"
#include "libexp/trace.h"

#define NOBODY	65534

static char dir[PATH_MAX - 64], dyn[PATH_MAX - 64], stat_prog[PATH_MAX - 64];

/* What the exec of path says: *secure AT_SECURE, *based AT_BASE != 0. */
static int exec_truth(const char *path, int *secure, int *based)
{
	char buf[64] = "";
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || n <= 0)
		return -1;
	return sscanf(buf, "%d %d", secure, based) == 2 ? 0 : -1;
}

/* The verdict and the truth of path, here: r[0] why, r[1] AT_SECURE, r[2] AT_BASE. */
static void verdict(const char *path, int r[3])
{
	char img[PATH_MAX];

	r[0] = exp_untraceable(path, img, sizeof(img));
	if (exec_truth(path, &r[1], &r[2]))
		r[1] = r[2] = -1;
}

/* The same in a child that is nobody (nnp: or root under no_new_privs). */
static void verdict_as(const char *path, int nnp, int r[3])
{
	int p[2], st;
	pid_t pid;

	r[0] = r[1] = r[2] = -2;
	if (pipe(p))
		return;
	pid = fork();
	if (!pid) {
		if (nnp ? prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) :
		    setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(1);
		verdict(path, r);
		_exit(write(p[1], r, 3 * sizeof(int)) == 3 * sizeof(int) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], r, 3 * sizeof(int)) != 3 * sizeof(int))
		r[0] = r[1] = r[2] = -2;
	close(p[0]);
	waitpid(pid, &st, 0);
}

/* The verdict agrees with the exec, and is want. */
static void agree(const char *what, const int r[3], int want)
{
	int kernel = r[1] < 0 ? -1 : !r[2] ? EXP_UT_STATIC : r[1] ? -2 : 0;
	int same = kernel == -2 ? (r[0] == EXP_UT_SETUID || r[0] == EXP_UT_SETGID ||
				    r[0] == EXP_UT_CAPS) : r[0] == kernel;

	t_check(r[1] >= 0 && same && r[0] == want,
		"%s: %s (the exec: AT_SECURE %d, AT_BASE %s)", what,
		r[0] ? exp_untraced_why(r[0]) : "traceable", r[1],
		r[2] > 0 ? "yes" : r[2] ? "?" : "no");
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (in < 0 || out < 0)
		t_fatal(to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			t_fatal(to);
	close(in);
	close(out);
	if (chmod(to, mode))
		t_fatal(to);
}

static void script(const char *path, const char *interp)
{
	FILE *f = fopen(path, "w");

	if (!f)
		t_fatal(path);
	fprintf(f, "#!%s\n", interp);
	fclose(f);
	chmod(path, 0755);
}

static const char *at(const char *name)
{
	static char p[8][PATH_MAX];
	static int i;

	snprintf(p[i & 7], PATH_MAX, "%s/%s", dir, name);
	return p[i++ & 7];
}

int main(void)
{
	const char *b = getenv("LWPROF_BUILD"), *o = getenv("LWPROF_OUT");
	struct vfs_cap_data cap = { 0 };
	char img[PATH_MAX];
	Elf64_Ehdr eh = { 0 };
	int r[3], fd;
	FILE *f;

	if (!b || !o)
		t_skip("run by tests/run (LWPROF_BUILD, LWPROF_OUT)");
	snprintf(dyn, sizeof(dyn), "%s/tests/progs/at_secure", b);
	snprintf(stat_prog, sizeof(stat_prog), "%s/tests/progs/at_secure_static", b);
	snprintf(dir, sizeof(dir), "%s/traceable", o);
	mkdir(dir, 0755);
	chmod(dir, 0755);	/* nobody runs them too */

	verdict(dyn, r);
	agree("a dynamically linked program", r, 0);
	verdict(stat_prog, r);
	agree("a statically linked one", r, EXP_UT_STATIC);
	script(at("s1"), stat_prog);
	verdict(at("s1"), r);
	agree("a script whose interpreter is static", r, EXP_UT_STATIC);
	exp_untraceable(at("s1"), img, sizeof(img));
	t_check(!strcmp(img, stat_prog), "  naming the interpreter (%s)", img);
	script(at("s2"), at("s1"));
	verdict(at("s2"), r);
	agree("a script whose interpreter is that script", r, EXP_UT_STATIC);
	script(at("s3"), dyn);
	verdict(at("s3"), r);
	agree("a script of the dynamic program", r, 0);
	t_check(exp_untraceable("/lib64/ld-linux-x86-64.so.2", img, sizeof(img)) == 0,
		"the dynamic linker run as a program (it preloads)");
	t_check(exp_untraceable(at("missing"), img, sizeof(img)) == 0,
		"a missing file: the exec says");

	/* a 32-bit ELF header */
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_machine = EM_386;
	f = fopen(at("elf32"), "w");
	if (!f || fwrite(&eh, sizeof(eh), 1, f) != 1)
		t_fatal("elf32");
	fclose(f);
	t_check(exp_untraceable(at("elf32"), img, sizeof(img)) == EXP_UT_FOREIGN,
		"a 32-bit ELF file: not an x86-64 program");

	if (geteuid())
		t_skip("the set-ID and capability cases need root");
	copy_file(dyn, at("suid_nobody"), 0755);
	if (chown(at("suid_nobody"), NOBODY, -1) || chmod(at("suid_nobody"), 04755))
		t_fatal("suid_nobody");
	verdict(at("suid_nobody"), r);
	agree("set-user-ID nobody, run by root", r, EXP_UT_SETUID);
	verdict_as(at("suid_nobody"), 0, r);
	agree("  run by nobody", r, 0);
	verdict_as(at("suid_nobody"), 1, r);
	agree("  run by root under no_new_privs", r, 0);
	copy_file(dyn, at("suid_root"), 04755);
	verdict(at("suid_root"), r);
	agree("set-user-ID root, run by root", r, 0);
	verdict_as(at("suid_root"), 0, r);
	agree("  run by nobody", r, EXP_UT_SETUID);

	copy_file(dyn, at("sgid"), 0755);
	if (chown(at("sgid"), -1, NOBODY) || chmod(at("sgid"), 02755))
		t_fatal("sgid");
	verdict(at("sgid"), r);
	agree("set-group-ID nogroup", r, EXP_UT_SETGID);
	chmod(at("sgid"), 02745);
	verdict(at("sgid"), r);
	agree("  without group execute (no set-group-ID)", r, 0);

	copy_file(dyn, at("caps"), 0755);
	cap.magic_etc = VFS_CAP_REVISION_2;
	cap.data[0].permitted = 1u << CAP_NET_BIND_SERVICE;
	if (setxattr(at("caps"), "security.capability", &cap, XATTR_CAPS_SZ_2, 0))
		t_skip("setting file capabilities");
	verdict(at("caps"), r);
	agree("file capabilities, run by root", r, 0);
	verdict_as(at("caps"), 0, r);
	agree("  run by nobody", r, EXP_UT_CAPS);
	cap.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
	cap.data[0].permitted = 0;
	fd = setxattr(at("caps"), "security.capability", &cap, XATTR_CAPS_SZ_2, 0);
	verdict_as(at("caps"), 0, r);
	agree("  the effective flag alone, run by nobody", r, fd ? -1 : EXP_UT_CAPS);
	return t_done();
}
