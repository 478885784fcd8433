// SPDX-License-Identifier: GPL-2.0
/*
 * archives/: a copy of every file named by an MMAP record, keyed by its GNU
 * build-id (archives/BUILDID/BASENAME) or, without one, by device and inode
 * (archives/nobuildid/MAJOR-MINOR-INODE/BASENAME), and index.txt, one line
 * per mapped file:
 *   BUILDID|-  MAJOR:MINOR  INODE  SIZE  ARCHIVED_NAME  ORIGINAL_PATH
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collect.h"
#include "recfile.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

struct amap {
	__u32 maj, min;
	__u64 ino;
	char *path;
};

struct amaps {
	struct amap *v;
	size_t n, cap;
};

static int add_map(struct amaps *m, const struct lwprof_rec_mmap *r)
{
	struct amap *a;
	size_t i;

	if ((r->hdr.flags & LWPROF_MMAP_ANON) || r->path[0] != '/')
		return 0;	/* //anon, [vdso]: no file */
	for (i = 0; i < m->n; i++)
		if (m->v[i].ino == r->ino && m->v[i].maj == r->dev_major &&
		    m->v[i].min == r->dev_minor && !strcmp(m->v[i].path, r->path))
			return 0;
	if (m->n == m->cap) {
		a = realloc(m->v, (m->cap ? m->cap * 2 : 32) * sizeof(*a));
		if (!a)
			return -ENOMEM;
		m->v = a;
		m->cap = m->cap ? m->cap * 2 : 32;
	}
	a = &m->v[m->n];
	a->path = strdup(r->path);
	if (!a->path)
		return -ENOMEM;
	a->maj = r->dev_major;
	a->min = r->dev_minor;
	a->ino = r->ino;
	m->n++;
	return 0;
}

/* Every distinct mapped file named in the experiment's records. */
static int scan_maps(struct experiment *e, struct amaps *m)
{
	const struct lwprof_rec *rec;
	struct recfile f;
	char name[32], msg[256];
	unsigned int i;
	size_t off;
	int ret;

	for (i = 0; i < e->nr_cpus; i++) {
		snprintf(name, sizeof(name), "cpu.%u.rec", i);
		if (recfile_open(&f, e->dirfd, name, msg, sizeof(msg))) {
			exp_warn(e, "archives: %s", msg);
			continue;
		}
		while ((ret = recfile_next(&f, &rec, &off, msg, sizeof(msg))) > 0)
			if (rec->type == LWPROF_REC_MMAP &&
			    add_map(m, (const void *)rec)) {
				recfile_close(&f);
				return -ENOMEM;
			}
		if (ret < 0)
			exp_warn(e, "archives: %s", msg);
		recfile_close(&f);
	}
	return 0;
}

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
		for (i = 0; i < nh.n_descsz; i++)
			sprintf(hex + 2 * i, "%02x", desc[i]);
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

/* Archive one mapped file; its index line goes to idx. */
static void archive_one(struct experiment *e, int adir, FILE *idx,
			const struct amap *a)
{
	char id[2 * 64 + 1], rel[PATH_MAX], base[NAME_MAX + 1];
	struct stat st;
	char *p;
	int fd, err, has_id;

	fd = open(a->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		exp_warn(e, "archives: %s not archived: %s", a->path,
			 strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		exp_warn(e, "archives: %s not archived: not a regular file",
			 a->path);
		goto out;
	}
	/*
	 * Replaced since it was mapped?  Only the same file system can tell:
	 * on a stacked one (overlayfs) the mapping names the inode of the
	 * layer below, while stat() shows the overlay's numbers.
	 */
	if (st.st_ino != a->ino && st.st_dev == makedev(a->maj, a->min)) {
		exp_warn(e, "archives: %s not archived: it is not the file that was mapped (inode %llu, mapped %llu)",
			 a->path, (unsigned long long)st.st_ino,
			 (unsigned long long)a->ino);
		goto out;
	}
	snprintf(base, sizeof(base), "%s", strrchr(a->path, '/') + 1);
	for (p = base; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '_';
	has_id = build_id(fd, id, sizeof(id));
	if (has_id)
		snprintf(rel, sizeof(rel), "%s/%s", id, base);
	else
		snprintf(rel, sizeof(rel), "nobuildid/%u-%u-%llu/%s", a->maj,
			 a->min, (unsigned long long)a->ino, base);
	if (faccessat(adir, rel, F_OK, 0)) {
		err = mkdirs(adir, rel);
		if (!err)
			err = copy(fd, adir, rel);
		if (err) {
			exp_warn(e, "archives: %s not archived: %s", a->path,
				 strerror(-err));
			goto out;
		}
	}
	fprintf(idx, "%s  %u:%u  %llu  %lld  %s  %s\n", has_id ? id : "-",
		a->maj, a->min, (unsigned long long)a->ino,
		(long long)st.st_size, rel, a->path);
out:
	if (fd >= 0)
		close(fd);
}

/*
 * With kernel stacks (-K): /proc/kallsyms as archives/kallsyms, for the
 * analyzer's kernel function names; not when it shows only zero addresses
 * (kptr_restrict, no CAP_SYSLOG): the analyzer then names frames by address.
 */
static void archive_kallsyms(struct experiment *e, int adir)
{
	char line[256];
	bool shown = false;
	FILE *f;
	int err;

	if (!e->opts || !e->opts->kstack)
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
		exp_warn(e, "archives: /proc/kallsyms shows no addresses (kptr_restrict): kernel frames are named by address");
		fclose(f);
		return;
	}
	err = copy(fileno(f), adir, "kallsyms");
	if (err)
		exp_warn(e, "archives: kallsyms: %s", strerror(-err));
	fclose(f);
}

int exp_archive(struct experiment *e)
{
	struct amaps m = { 0 };
	int adir = -1, fd, err;
	FILE *idx = NULL;
	size_t i;

	err = scan_maps(e, &m);
	if (!err && mkdirat(e->dirfd, "archives", 0755) < 0 && errno != EEXIST)
		err = -errno;
	if (!err) {
		adir = openat(e->dirfd, "archives", O_RDONLY | O_DIRECTORY |
			      O_CLOEXEC);
		fd = adir < 0 ? -1 : openat(adir, ".index.txt.tmp",
					    O_WRONLY | O_CREAT | O_TRUNC |
					    O_CLOEXEC, 0644);
		idx = fd < 0 ? NULL : fdopen(fd, "w");
		if (!idx) {
			err = -errno;
			if (fd >= 0)
				close(fd);
		}
	}
	if (err) {
		exp_warn(e, "archives: %s", strerror(-err));
	} else {
		for (i = 0; i < m.n; i++)
			archive_one(e, adir, idx, &m.v[i]);
		archive_kallsyms(e, adir);
		if (fclose(idx) || renameat(adir, ".index.txt.tmp", adir,
					    "index.txt") < 0) {
			err = -errno;
			exp_warn(e, "archives: index.txt: %s", strerror(errno));
		}
	}
	if (adir >= 0)
		close(adir);
	for (i = 0; i < m.n; i++)
		free(m.v[i].path);
	free(m.v);
	return err;
}
