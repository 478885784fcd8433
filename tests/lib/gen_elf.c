// SPDX-License-Identifier: GPL-2.0
/*
 * gen_exp's ELF side: a binary's function symbols (libelf), its executable
 * segments and build-id, the address of a frame (a leaf's middle
 * instruction, or a caller's return address after its call to the callee,
 * found with capstone), and the copy into archives/.
 */
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gen_exp.h"

static int read_buildid(Elf *elf, char *out, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	strcpy(out, "-");
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) &&
			    nh.n_descsz * 2 < len) {
				const uint8_t *b = (uint8_t *)d->d_buf + doff;

				for (size_t i = 0; i < nh.n_descsz; i++)
					sprintf(out + 2 * i, "%02x", b[i]);
				return 0;
			}
		}
	}
	return 0;
}

int gen_bin_open(struct gen *g, const char *name, const char *path)
{
	struct gen_bin *b;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t n, i;

	if (g->nbins == GEN_MAX_BIN)
		return -E2BIG;
	b = &g->bins[g->nbins];
	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%s", name);
	if (!realpath(path, b->path))
		return -errno;
	b->fd = open(b->path, O_RDONLY);
	if (b->fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	b->elf = elf_begin(b->fd, ELF_C_READ, NULL);
	if (!b->elf || !gelf_getehdr(b->elf, &eh))
		return -EINVAL;
	b->dyn = eh.e_type == ET_DYN;
	if (elf_getphdrnum(b->elf, &n))
		return -EINVAL;
	for (i = 0; i < n && b->nsegs < 16; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		b->segs[b->nsegs][0] = ph.p_vaddr;
		b->segs[b->nsegs][1] = ph.p_offset;
		b->segs[b->nsegs][2] = ph.p_filesz;
		b->segs[b->nsegs++][3] = ph.p_memsz;
	}
	read_buildid(b->elf, b->buildid, sizeof(b->buildid));
	/* .symtab if there is one, else .dynsym */
	for (int pass = 0; pass < 2 && !b->nsyms; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(b->elf, scn))) {
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			d = elf_getdata(scn, NULL);
			n = d ? d->d_size / sh.sh_entsize : 0;
			b->syms = calloc(n + 1, sizeof(*b->syms));
			if (!b->syms)
				return -ENOMEM;
			for (i = 0; i < n; i++) {
				GElf_Sym s;
				const char *nm;

				if (!gelf_getsym(d, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    !s.st_value || !s.st_size)
					continue;
				nm = elf_strptr(b->elf, sh.sh_link, s.st_name);
				if (!nm)
					continue;
				b->syms[b->nsyms].name = strdup(nm);
				b->syms[b->nsyms].addr = s.st_value;
				b->syms[b->nsyms++].size = s.st_size;
			}
			break;
		}
	}
	g->nbins++;
	return 0;
}

struct gen_bin *gen_bin_find(struct gen *g, const char *name)
{
	for (int i = 0; i < g->nbins; i++)
		if (!strcmp(g->bins[i].name, name))
			return &g->bins[i];
	return NULL;
}

/* name in a mapped binary: *bp's first when it is set */
static struct gen_sym *sym_find(struct gen *g, const char *name,
				struct gen_bin **bp)
{
	for (int i = -1; i < g->nbins; i++) {
		struct gen_bin *b = i < 0 ? *bp : &g->bins[i];

		if (!b || !b->mapped)
			continue;
		for (size_t k = 0; k < b->nsyms; k++)
			if (!strcmp(b->syms[k].name, name)) {
				*bp = b;
				return &b->syms[k];
			}
	}
	return NULL;
}

static uint8_t *sym_bytes(struct gen_bin *b, struct gen_sym *s)
{
	uint8_t *buf;

	for (int i = 0; i < b->nsegs; i++) {
		uint64_t v = b->segs[i][0], o = b->segs[i][1], fs = b->segs[i][2];

		if (s->addr < v || s->addr + s->size > v + fs)
			continue;
		buf = malloc(s->size);
		if (buf && pread(b->fd, buf, s->size, s->addr - v + o) == (ssize_t)s->size)
			return buf;
		free(buf);
	}
	return NULL;
}

/* The lowest address in [lo, hi) that the line table gives line. */
static int line_addr(struct gen_bin *b, uint64_t lo, uint64_t hi, int line,
		     uint64_t *addr)
{
	Dwarf *dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool found = false;

	if (!dw)
		return -ENOENT;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    !dwarf_getsrclines(&cu, &lines, &n)) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int ln;

				if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) ||
				    ln != line || a < lo || a >= hi)
					continue;
				if (!found || a < *addr)
					*addr = a;
				found = true;
			}
		}
		off = next;
	}
	dwarf_end(dw);
	return found ? 0 : -ENOENT;
}

/*
 * frame: FUNC, FUNC#K, FUNC+OFF, FUNC@LINE or 0xADDR; callee: the frame below (NULL
 * for the leaf).  The address is the run-time one (load bias added).
 */
int gen_frame_addr(struct gen *g, const char *frame, const char *callee,
		   bool leaf, uint64_t *addr)
{
	char name[512], cname[512], *p;
	struct gen_bin *b = NULL, *cb = NULL;
	struct gen_sym *s, *cs;
	uint64_t off = 0, target;
	int k = 1, found = 0;
	cs_insn *insn;
	size_t n, i;
	uint8_t *bytes;
	csh h;

	if (!strncmp(frame, "0x", 2)) {
		*addr = strtoull(frame, NULL, 16);
		return 0;
	}
	snprintf(name, sizeof(name), "%s", frame);
	if ((p = strchr(name, '#'))) {
		*p = 0;
		k = atoi(p + 1);
	}
	if ((p = strchr(name, '@'))) {
		*p = 0;
		s = sym_find(g, name, &b);
		if (!s)
			goto nosym;
		if (line_addr(b, s->addr, s->addr + s->size, atoi(p + 1), addr)) {
			fprintf(stderr, "gen_exp: line %lu: no line %s in %s\n",
				g->line, p + 1, name);
			return -ENOENT;
		}
		*addr += b->base;
		return 0;
	}
	if ((p = strchr(name, '+'))) {
		*p = 0;
		off = strtoull(p + 1, NULL, 0);
		s = sym_find(g, name, &b);
		if (!s)
			goto nosym;
		*addr = b->base + s->addr + off;
		return 0;
	}
	if (callee) {	/* a caller: in the callee's binary first */
		char cn[512];

		snprintf(cn, sizeof(cn), "%s", callee);
		if ((p = strpbrk(cn, "#+@")))
			*p = 0;
		sym_find(g, cn, &b);
	}
	s = sym_find(g, name, &b);
	if (!s)
		goto nosym;
	bytes = sym_bytes(b, s);
	if (!bytes || cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -EINVAL;
	n = cs_disasm(h, bytes, s->size, s->addr, 0, &insn);
	free(bytes);
	if (leaf) {
		for (i = 0; i < n; i++)
			if (insn[i].address >= s->addr + s->size / 2 &&
			    strcmp(insn[i].mnemonic, "call"))
				break;
		*addr = b->base + (i < n ? insn[i].address : s->addr);
		found = 1;
	} else {
		snprintf(cname, sizeof(cname), "%s", callee);
		if ((p = strpbrk(cname, "#+@")))
			*p = 0;
		/* a call to foo.constprop.0, else to foo (foo.cold is jumped to) */
		for (int pass = 0; pass < 2 && found != k; pass++) {
			if (pass && (!(p = strchr(cname, '.')) || p == cname))
				break;
			if (pass)
				*p = 0;
			cb = b;
			cs = sym_find(g, cname, &cb);
			target = cs ? cs->addr : 0;
			if (!strncmp(cname, "0x", 2)) {	/* a raw address: a stub */
				cs = s;
				cb = b;
				target = strtoull(cname, NULL, 16) - b->base;
			}
			found = 0;
			for (i = 0; cs && cb == b && i < n; i++) {
				if (strcmp(insn[i].mnemonic, "call") ||
				    strtoull(insn[i].op_str, NULL, 16) != target)
					continue;
				if (++found == k) {
					*addr = b->base + insn[i].address + insn[i].size;
					break;
				}
			}
		}
		if (found != k)
			found = 0;
	}
	cs_free(insn, n);
	cs_close(&h);
	if (!found) {
		fprintf(stderr, "gen_exp: line %lu: no call #%d from %s to %s\n",
			g->line, k, name, callee ? callee : "?");
		return -ENOENT;
	}
	return 0;
nosym:
	fprintf(stderr, "gen_exp: line %lu: no function %s in a mapped binary\n",
		g->line, name);
	return -ENOENT;
}

int gen_archive(struct gen *g, struct gen_bin *b)
{
	char dir[9000], dst[9000], cmd[30000], rel[4300];
	const char *base = strrchr(b->path, '/') ? strrchr(b->path, '/') + 1 : b->path;
	struct stat st;
	FILE *idx;

	if (stat(b->path, &st))
		return -errno;
	if (b->vdso)
		base = "vdso.so";
	if (strcmp(b->buildid, "-"))
		snprintf(rel, sizeof(rel), "%s/%s", b->buildid, base);
	else
		snprintf(rel, sizeof(rel), "nobuildid/%lu-%lu/%s",
			 (unsigned long)st.st_dev, (unsigned long)st.st_ino, base);
	snprintf(dst, sizeof(dst), "%s/archives/%s", g->out, rel);
	snprintf(dir, sizeof(dir), "%s", dst);
	*strrchr(dir, '/') = 0;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s'", dir, b->path, dst);
	if (system(cmd))
		return -EIO;
	snprintf(dir, sizeof(dir), "%s/archives/index.txt", g->out);
	idx = fopen(dir, "a");
	if (!idx)
		return -errno;
	if (b->vdso)
		fprintf(idx, "%s  0:0  0  %lu  %s  [vdso]\n", b->buildid,
			(unsigned long)st.st_size, rel);
	else
		fprintf(idx, "%s  %u:%u  %lu  %lu  %s  %s\n", b->buildid,
			major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino,
			(unsigned long)st.st_size, rel, b->path);
	fclose(idx);
	return 0;
}
