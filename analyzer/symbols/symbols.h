/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols: the layer of lwprof print that names the model's addresses
 * (docs/design/analyzer.md).  Load objects are read from the experiment's
 * archived copies (or their paths) through libdwfl: their functions
 * (obj.c, syms.c), source lines and inlined calls (lines.c), kernel frames
 * from the kallsyms copy and debug images (kernel.c, kdebug.c); the
 * samples with a stack copy are unwound by their DWARF CFI (unwind.c,
 * unwcache.c); the raw stacks are resolved into the pc trie (resolve.c).
 * It reads and adds to the model (model/model.h), nothing above it.
 */
#ifndef LWPROF_ANALYZER_SYMBOLS_H
#define LWPROF_ANALYZER_SYMBOLS_H

#include "analyzer/model/model.h"

/* obj.c: load objects and functions */
uint32_t an_obj_kernel(struct an *an, const char *name);
uint32_t an_obj_get(struct an *an, uint32_t exp, const char *path,
		    uint32_t maj, uint32_t min, uint64_t ino, bool anon);
int an_obj_open(struct an *an, uint32_t obj);
int an_obj_syms(struct an *an, uint32_t obj);	/* syms.c */
uint32_t an_obj_func(struct an *an, uint32_t obj, uint64_t vaddr);
int an_obj_vaddr(struct an *an, uint32_t obj, uint64_t off, uint64_t *vaddr);
uint32_t an_func_pseudo(struct an *an, const char *name);
/* The pseudo object of key (no file: a Java class's), made as name if new. */
uint32_t an_obj_named(struct an *an, const char *key, const char *name);
uint32_t an_func_pseudo_own(struct an *an, uint32_t *f, const char *name);
uint32_t an_func_pseudo_in(struct an *an, const char *oname, const char *name);
void an_obj_free(struct an_obj *o);
int an_objs_init(struct an *an);
int an_objs_trunc(struct an *an);
void an_objs_free(struct an *an);
const char *an_func_name(struct an *an, uint32_t f, bool name_long);
uint32_t an_obj_fname(struct an *an, uint32_t obj, const char *full,
		      uint64_t addr, uint64_t size);

/* lines.c: source lines */
uint32_t an_line_intern(struct an *an, uint32_t func, uint32_t file,
			uint32_t line);
uint32_t an_pc_line(struct an *an, uint32_t obj, uint64_t vaddr,
		    uint32_t func, uint32_t *ifunc);
const char *an_line_file(struct an *an, uint32_t line);
int an_pc_inlines(struct an *an, uint32_t obj, uint64_t vaddr,
		  struct an_inl *out);
uint32_t an_inl_line(struct an *an, uint32_t func, const struct an_inl *call);
int an_func_src(struct an *an, uint32_t f, const char **file, int *line);

/* resolve.c: stacks */
int an_resolve(struct an *an);
uint32_t an_pc_intern(struct an *an, uint32_t obj, uint64_t vaddr, bool ret);
/* the node (parent, pc) of the trie, hashed in t (the loader's, or another
 * made after loading with an_node_hash() of every node) */
uint64_t an_node_hash(uint32_t parent, uint32_t pc);
uint32_t an_node_intern_in(struct an *an, struct an_htab *t, uint32_t parent,
			   uint32_t pc);
/* the pc of key (obj, vaddr, ret), made with func, line, ifunc if new */
uint32_t an_pc_named(struct an *an, uint32_t obj, uint64_t vaddr, uint32_t ret,
		     uint32_t func, uint32_t line, uint32_t ifunc);
/*
 * The same, not hashed: (obj, vaddr, ret) named as well otherwise (a
 * JVM's code address that another method held at another time).
 */
uint32_t an_pc_alias(struct an *an, uint32_t obj, uint64_t vaddr, uint32_t ret,
		     uint32_t func, uint32_t line, uint32_t ifunc);
/* the trie's node of pc under parent (UINT32_MAX: a root), or UINT32_MAX */
uint32_t an_node_intern(struct an *an, uint32_t parent, uint32_t pc);
/* a pseudo function's node under parent, *f made on first use as name */
uint32_t an_pseudo_node(struct an *an, uint32_t parent, uint32_t *f,
			const char *name);

/*
 * java.c: a JVM's code and stacks (model/java.h).  finish: the Java
 * records read whole (frames named, code in address order with its
 * unloads, blocks closed); code_pc: the pc of ip in a JVM's anonymous
 * code, AN_JAVA_NONE if none is there, UINT32_MAX out of memory; stacks:
 * every sample's user and expert stacks (after the machine ones).
 */
#define AN_JAVA_NONE	(UINT32_MAX - 1)
int an_java_finish(struct an *an);
uint32_t an_java_code_pc(struct an *an, const struct an_as *a, uint64_t ip,
			 bool ret);
int an_java_stacks(struct an *an);
/* method m's function (its class a pseudo object), or UINT32_MAX */
uint32_t an_java_func(struct an *an, uint32_t m);

/* kernel.c: kernel frames */
uint32_t an_kernel_obj(struct an *an);
uint32_t an_kernel_func(struct an *an, uint64_t ip, bool ret);
uint32_t an_kernel_sched(struct an *an, const uint64_t *kips, uint32_t n);
void an_kernel_free(struct an *an);
int an_kernel_dwaddr(struct an *an, uint32_t obj, uint64_t look,
		     uint64_t *daddr);
int an_kdebug_vmlinux(struct an *an, uint32_t obj, const char *release);
int an_kdebug_module(struct an *an, uint32_t obj, const char *path);
void an_kdebug_modules(struct an *an, const char *release,
		       void (*found)(struct an *, const char *, const char *));
int an_kdebug_sym(struct an *an, uint32_t obj, const char *name,
		  uint64_t *addr);
void an_kdebug_close(struct an *an, uint32_t obj);

/* unwind.c: the samples with a stack copy (an->ld->deferred) */
int an_unwind_all(struct an *an);
void an_unwind_free(struct an *an);

/* dwflcb.c: libdwfl's callbacks (symbols/internal.h), freed */
void an_dwfl_cb_free(struct an *an);

#endif
