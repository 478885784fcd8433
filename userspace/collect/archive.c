// SPDX-License-Identifier: GPL-2.0
/*
 * Copying one load object into archives/, under the name libexp gives it
 * (exp_archive_name(): by its GNU build-id or, without one, by device and
 * inode); the vDSO as BUILDID/vdso.so.  The result is the object's
 * index.txt entry (archiver.c has libexp write the file).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libexp/format.h"
#include "userspace/collect/collect.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static int note_build_id(Elf_Data *d, char *hex, size_t len)
{
	size_t off = 0, noff, doff, i;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const unsigned char *desc = (const unsigned char *)d->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + noff, "GNU", 4) ||
		    !nh.n_descsz || nh.n_descsz * 2 + 1 > len)
			continue;
		for (i = 0; i < nh.n_descsz; i++) {
			hex[2 * i] = "0123456789abcdef"[desc[i] >> 4];
			hex[2 * i + 1] = "0123456789abcdef"[desc[i] & 15];
		}
		hex[2 * i] = 0;
		return 1;
	}
	return 0;
}

/* The GNU build-id of an ELF file as hex; 0 if it has none. */
static int build_id(int fd, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t n, i;
	int found = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n))
		for (i = 0; i < n && !found; i++) {
			Elf_Data *d;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 :
						 ELF_T_NHDR);
			found = d && note_build_id(d, hex, len);
		}
	while (!found && elf_kind(elf) == ELF_K_ELF &&
	       (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE) {
			Elf_Data *d = elf_getdata(scn, NULL);

			found = d && note_build_id(d, hex, len);
		}
	}
	elf_end(elf);
	return found;
}

static int mkdirs(int dirfd, char *rel)
{
	char *p;

	for (p = strchr(rel, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		if (mkdirat(dirfd, rel, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

static int copy(int in, int dirfd, const char *rel)
{
	char tmp[PATH_MAX + 8], buf[65536];
	ssize_t n, w;
	off_t off = 0;
	int out, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", rel);
	out = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	while ((n = pread(in, buf, sizeof(buf), off)) > 0) {
		for (w = 0; w < n && !err; ) {
			ssize_t k = write(out, buf + w, n - w);

			if (k < 0)
				err = -errno;
			else
				w += k;
		}
		off += n;
	}
	if (n < 0)
		err = -errno;
	if (close(out) < 0 && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, rel) < 0)
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
}

static char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* a's index.txt entry: its copy is rel (file and orig: a's to free). */
static void archived(struct amap *a, const char *id, __u32 maj, __u32 min,
		     __u64 ino, __u64 size, const char *rel, char *orig)
{
	a->arch = (struct exp_archive){ .dev_major = maj, .dev_minor = min,
					.ino = ino, .size = size,
					.file = strdup(rel), .orig = orig };
	snprintf(a->arch.buildid, sizeof(a->arch.buildid), "%s", id);
	if (!a->arch.file)
		a->warn = xasprintf("archives: %s not archived: out of memory",
				    orig);
}

/* Copy fd to adir/rel unless it is there already (same build-id). */
static int store(int fd, int adir, char *rel)
{
	int err;

	if (!faccessat(adir, rel, F_OK, 0))
		return 0;
	err = mkdirs(adir, rel);
	return err ? err : copy(fd, adir, rel);
}

/*
 * The mapped file itself, through /proc/PID/map_files (the kernel allows
 * it to CAP_SYS_ADMIN), while the process that mapped it lives: for a file
 * deleted or replaced since.
 */
static int open_mapped(const struct amap *a, struct stat *st)
{
	char p[96];
	int fd;

	if (!a->pid)
		return -1;
	snprintf(p, sizeof(p), "/proc/%u/map_files/%llx-%llx", a->pid,
		 (unsigned long long)a->start, (unsigned long long)a->end);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, st) < 0 || st->st_ino != a->ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Open the file a maps, keeping it open in a->fd so that it can be copied
 * later even if it is deleted or replaced meanwhile; a->err says why not.
 * Replaced since it was mapped?  Only the same file system can tell: on a
 * stacked one (overlayfs) the mapping names the inode of the layer below,
 * while stat() shows the overlay's numbers.
 */
void archive_pin(struct amap *a)
{
	struct stat st;
	int fd;

	a->err = 0;
	fd = open(a->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 ||
	    (st.st_ino != a->ino && st.st_dev == makedev(a->maj, a->min))) {
		a->err = fd < 0 ? errno : ESTALE;
		if (fd >= 0)
			close(fd);
		fd = open_mapped(a, &st);
		if (fd >= 0)
			a->err = 0;
	}
	a->fd = fd;
}

/* Copy the file a maps (pinned, or opened now) into adir. */
void archive_one(int adir, struct amap *a)
{
	char id[2 * 64 + 1], rel[PATH_MAX], base[NAME_MAX + 1];
	struct stat st;
	char *p;
	int fd, err, has_id;

	if (a->fd < 0 && !a->err)
		archive_pin(a);
	fd = a->fd;
	a->fd = -1;
	if (fd < 0 && a->err == ESTALE) {
		a->warn = xasprintf("archives: %s not archived: it is not the file that was mapped (mapped inode %llu)",
				    a->path, (unsigned long long)a->ino);
		goto out;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		a->warn = xasprintf("archives: %s not archived: %s", a->path,
				    strerror(fd < 0 ? a->err : errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		a->warn = xasprintf("archives: %s not archived: not a regular file",
				    a->path);
		goto out;
	}
	snprintf(base, sizeof(base), "%s", strrchr(a->path, '/') + 1);
	for (p = base; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '_';
	has_id = build_id(fd, id, sizeof(id));
	exp_archive_name(rel, sizeof(rel), has_id ? id : NULL, a->maj, a->min,
			 a->ino, base);
	err = store(fd, adir, rel);
	if (err) {
		a->warn = xasprintf("archives: %s not archived: %s", a->path,
				    strerror(-err));
		goto out;
	}
	archived(a, has_id ? id : "-", a->maj, a->min, a->ino, st.st_size,
		 rel, a->path);
out:
	if (fd >= 0)
		close(fd);
}

/*
 * The vDSO is no file: its image is the same in every 64-bit process of
 * this kernel, so the recorder copies its own (the [vdso] line of
 * /proc/self/maps) as BUILDID/vdso.so, index path "[vdso]".
 */
void archive_vdso(int adir, struct amap *a)
{
	unsigned long lo = 0, hi = 0;
	char line[512], id[2 * 64 + 1], rel[PATH_MAX];
	size_t len;
	FILE *f;
	int fd, err = 0;

	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	if (f)
		fclose(f);
	len = hi > lo ? hi - lo : 0;
	if (!len) {
		a->warn = xasprintf("archives: [vdso] not archived: not in /proc/self/maps");
		return;
	}
	/* The image as a file, for build_id() and store(). */
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0 || write(fd, (const void *)lo, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	else if (!build_id(fd, id, sizeof(id)))
		err = ENODATA;
	if (!err) {
		snprintf(rel, sizeof(rel), "%s/vdso.so", id);
		err = -store(fd, adir, rel);
	}
	if (fd >= 0)
		close(fd);
	if (err)
		a->warn = xasprintf("archives: [vdso] not archived: %s",
				    err == ENODATA ? "no build-id" :
				    strerror(err));
	else
		archived(a, id, 0, 0, 0, len, rel, "[vdso]");
}

/*
 * Why /proc/kallsyms showed the recorder only zero addresses, and what to
 * do: the kernel shows them to a reader with CAP_SYSLOG when
 * kernel.kptr_restrict is 0 or 1, to any reader when it is 0 and
 * kernel.perf_event_paranoid is at most 1, to no one when it is 2.
 */
static const char *kallsyms_advice(void)
{
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	if (v == 2)
		return "kernel.kptr_restrict is 2, which hides them from everyone: set it to 1 and record as root (CAP_SYSLOG), or to 0";
	if (v == 0)
		return "kernel.kptr_restrict is 0, but kernel.perf_event_paranoid is above 1 and the recorder lacks CAP_SYSLOG: record as root (CAP_SYSLOG) or set kernel.perf_event_paranoid to 1";
	return "kernel.kptr_restrict: record as root (CAP_SYSLOG), or set kernel.kptr_restrict to 0 and kernel.perf_event_paranoid to 1";
}

/*
 * /proc/modules as archives/modules, for the modules' address ranges
 * (NAME SIZE ... ADDRESS lines); none without module support.
 */
static void archive_modules(struct exp_writer *e)
{
	int fd = open("/proc/modules", O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		if (errno != ENOENT)
			exp_warn(e, "archives: /proc/modules: %s", strerror(errno));
		return;
	}
	err = copy(fd, e->dirfd, EXP_MODULES);
	if (err)
		exp_warn(e, "%s: %s", EXP_MODULES, strerror(-err));
	close(fd);
}

/*
 * With kernel stacks (-K): /proc/kallsyms as archives/kallsyms, for the
 * analyzer's kernel function names, and /proc/modules as archives/modules
 * for the modules' load objects; not when kallsyms shows only zero
 * addresses (kptr_restrict, no CAP_SYSLOG): the log says so (a warning,
 * kallsyms_hidden = 1) and the analyzer names frames by address.
 */
void archive_kallsyms(struct exp_writer *e)
{
	char line[256];
	bool shown = false;
	FILE *f;
	int err;

	if (!e->set.kstack)
		return;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		exp_warn(e, "archives: /proc/kallsyms: %s", strerror(errno));
		return;
	}
	/* per-CPU symbols are at 0 anyway: look for any other address */
	while (!shown && fgets(line, sizeof(line), f))
		shown = strtoull(line, NULL, 16) != 0;
	if (!shown) {
		exp_warn(e, "archives: /proc/kallsyms shows no addresses: kernel frames cannot be named (by address only); %s",
			 kallsyms_advice());
		exp_note(e, EXP_K_KALLSYMS_HIDDEN, "1");
		fclose(f);
		return;
	}
	err = copy(fileno(f), e->dirfd, EXP_KALLSYMS);
	if (err)
		exp_warn(e, "%s: %s", EXP_KALLSYMS, strerror(-err));
	fclose(f);
	archive_modules(e);
}
