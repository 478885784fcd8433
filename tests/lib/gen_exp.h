/* SPDX-License-Identifier: GPL-2.0 */
/* gen_exp: the synthetic-experiment generator (see gen_exp.c). */
#ifndef LWPROF_GEN_EXP_H
#define LWPROF_GEN_EXP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwprof.h"
#include "lwprof_record.h"
#include "libexp/format.h"
#include "libexp/mstate_names.h"
#include "libexp/sample.h"

#define GEN_MAX_BIN 64
#define GEN_MAX_CPU 64
#define GEN_MAX_THR 4096

struct gen_sym {
	char *name;
	uint64_t addr, size;
};

struct gen_bin {
	char name[64];
	char path[4096];
	int fd;
	void *elf;
	bool dyn;
	struct gen_sym *syms;
	size_t nsyms;
	uint64_t segs[16][4];	/* vaddr, offset, filesz, memsz of PF_X loads */
	int nsegs;
	char buildid[64];
	bool mapped;
	bool vdso;		/* mapped as "[vdso]", archived as BUILDID/vdso.so */
	int archived;
	uint64_t base;		/* load bias of the last map */
};

struct gen_buf {
	uint8_t *p;
	size_t n, cap;
};

struct gen_thr {
	uint32_t pid, tid, ppid;
	char comm[16];
	uint64_t ms[LWPROF_MS_COUNT];
	uint64_t first, last;
	double scale;
	bool exited;
};

struct gen {
	char out[4096];
	int ncpu;
	char *logextra[64];
	int nlogextra;
	struct gen_bin bins[GEN_MAX_BIN];
	int nbins;
	struct gen_buf cpu[GEN_MAX_CPU];
	FILE *cpuf[GEN_MAX_CPU];	/* streaming (random) */
	struct gen_thr thr[GEN_MAX_THR];
	int nthr;
	bool archive, usage_auto;
	bool compact;		/* "compact on": samples as compact samples */
	uint64_t start_ns, tmax, records;
	uint32_t target;
	double cpu_mhz;
	int ncounters;
	unsigned long line;
	const uint64_t *kips;	/* the next sample's kernel frames (kstack=) */
	int nkips;
	/* "grow": a newer minor's records (forward compatibility) */
	uint32_t minor;		/* the file headers' (EXP_FILE_MINOR) */
	uint32_t extra_bytes;	/* appended to each known record */
	uint16_t extra_flags;	/* flag bits set in each known record */
	/* "point": samples.rec's global sample packets */
	struct gen_buf points;
	uint64_t paused_ns, paused_at;
	/* "omp": the trace file being written, and whose */
	FILE *omp;
	uint32_t omp_pid;
	/* "java": the agent's file being written, and whose */
	FILE *java;
	uint32_t java_pid;
};

void gen_init(struct gen *g);
int gen_script(struct gen *g, FILE *in);
int gen_finish(struct gen *g);

/* gen_elf.c */
int gen_bin_open(struct gen *g, const char *name, const char *path);
struct gen_bin *gen_bin_find(struct gen *g, const char *name);
int gen_frame_addr(struct gen *g, const char *frame, const char *callee,
		   bool leaf, uint64_t *addr);
int gen_archive(struct gen *g, struct gen_bin *b);

/* gen_rec.c */
int gen_rec(struct gen *g, int cpu, const void *rec, size_t len);
void gen_extra(const struct gen *g, uint8_t *p);
struct gen_thr *gen_thread(struct gen *g, uint32_t pid, uint32_t tid);
int gen_map(struct gen *g, int cpu, uint32_t pid, struct gen_bin *b,
	    uint64_t base, uint64_t t);
int gen_sample(struct gen *g, int cpu, uint32_t pid, uint32_t tid, uint64_t t,
	       const uint64_t *ms, int counter, uint64_t cvalue, uint16_t flags,
	       const uint64_t *ips, int nips, const uint64_t *regs,
	       const uint8_t *stack, uint32_t stack_size);
int gen_capture(struct gen *g, const char *file, uint64_t n);
struct lwprof_capture;
int gen_capture_read(struct gen *g, const char *file, struct lwprof_capture *c,
		     uint8_t **stack);

/* gen_sdelta.c */
int gen_capture_delta(struct gen *g, char **kv, int nkv);
size_t gen_sdelta_encode(uint8_t *out, uint64_t sp, uint32_t size,
			 const uint8_t *cur, const uint8_t *base, uint64_t base_t,
			 uint64_t force);

/* gen_trace.c */
int gen_trace(struct gen *g, char **kv, int nkv);
/* gen_omp.c */
int gen_omp(struct gen *g, char **w, int n);
/* gen_java.c */
int gen_java(struct gen *g, char **w, int n);
int gen_random(struct gen *g, char **kv, int nkv);

#endif
