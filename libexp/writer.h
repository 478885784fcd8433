/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiment writer (docs/design/experiment-format.md): the directory, the
 * cpu.N.rec files with their headers, log.txt (through the key table
 * exp_open() reads it with, libexp/exp.h), usage.txt and archives/
 * index.txt.  A text file is written to a temporary name and renamed, so
 * a reader never sees half of one.  It knows what a recording asked for
 * and what came of it (the fields below, filled in by the recorder), not
 * which recorder or source made the records.  Every function returns 0
 * or a negative errno; none exits.
 */
#ifndef LIBEXP_WRITER_H
#define LIBEXP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "libexp/exp.h"
#include "lwprof.h"

/* What the recording asked for, as log.txt says it. */
struct exp_settings {
	const char *mode;	/* "command", "attach", "machine" */
	char *const *argv;	/* the command line logged, or NULL */
	__u64 clock_ns;		/* 0 = no clock profiling */
	unsigned int nr_counters;
	const struct exp_counter *counters;
	__u32 depth;
	__u32 stack_bytes;
	bool kstack;
};

/* A line of log.txt the recorder added (exp_note()). */
struct exp_note {
	enum exp_key key;
	char *value;
};

struct exp_writer {
	char *path;		/* the directory */
	int dirfd;
	const char *who;	/* if set, echo warnings to stderr after it */
	unsigned int nr_files;	/* cpu.0.rec ... */
	int *fds;		/* cpu.N.rec, open for writing */
	/* For log.txt: */
	struct exp_settings set;	/* its pointers live as long as e */
	int target;		/* the process recorded, or 0 */
	__u64 start_ns, end_ns;	/* CLOCK_MONOTONIC */
	struct timespec start_rt, end_rt;
	__u64 records, lost;
	__u64 *lost_file;	/* per cpu.N.rec */
	int exit_status;	/* waitpid status, or -1 */
	bool exited;		/* the target ended (attach mode) */
	struct exp_note *notes;	/* exp_note()'s, in order */
	size_t nr_notes;
	char **warnings;
	size_t nr_warnings;
	bool finished;
	/* 1.4: samples.rec, the global sample packets (exp_create_samples) */
	int samples_fd;		/* valid when has_samples */
	bool has_samples;
	__u64 samples_bytes;	/* written to it, its header included */
	FILE *usage_spill;	/* usage.txt being made (exp_append_usage) */
};

/* A writer of no directory yet (its settings, notes and warnings only). */
void exp_init(struct exp_writer *e);
/*
 * Create the directory dir/name (dir NULL: the current directory), or,
 * with name NULL, the first free dir/test.N.er.  path (len bytes) gets the
 * directory's name: on an error the one tried last (-EEXIST: name exists).
 */
int exp_create(struct exp_writer *e, const char *dir, const char *name,
	       char *path, size_t len);
/*
 * Create cpu.0.rec ... cpu.(nr - 1).rec, each with its file header: the
 * records' ABI (abi_major.abi_minor) and its number.
 */
int exp_create_files(struct exp_writer *e, unsigned int nr, __u32 abi_major,
		     __u32 abi_minor);
/*
 * 1.4: samples.rec, for the global sample packets, with a header like the
 * cpu files' (its cpu EXP_CPU_NONE).
 */
int exp_create_samples(struct exp_writer *e, __u32 abi_major, __u32 abi_minor);
struct exp_rec_gsample;
/*
 * The packet g (its fields but hdr and name_len) with name (NULL: none;
 * cut to EXP_GS_NAME_MAX - 1 bytes) as a whole record into buf (cap
 * bytes, at least sizeof(*g) + EXP_GS_NAME_MAX): its size.
 */
size_t exp_gsample_encode(void *buf, size_t cap,
			  const struct exp_rec_gsample *g, const char *name);
/* Append record rec (size bytes, encoded) to samples.rec. */
int exp_write_gsample(struct exp_writer *e, const void *rec, size_t size);
/* Add a line "key = value" to log.txt, after the settings. */
int exp_note(struct exp_writer *e, enum exp_key key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void exp_warn(struct exp_writer *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int exp_write_log(struct exp_writer *e);
/*
 * usage.txt: the n threads' precise usage, after the rows appended before
 * (exp_append_usage); renamed into place whole.
 */
int exp_write_usage(struct exp_writer *e,
		    const struct lwprof_thread_usage *tu, size_t n);
/*
 * Append n threads' rows to the usage.txt being made (a hidden file until
 * exp_write_usage), e.g. exited threads as they are read.
 */
int exp_append_usage(struct exp_writer *e,
		     const struct lwprof_thread_usage *tu, size_t n);
/*
 * archives/, made if need be: a descriptor of it (the caller closes it)
 * for the copies (names: exp_archive_name()), or a negative errno.
 */
int exp_archives_dir(struct exp_writer *e);
/*
 * archives/index.txt: the n copies of v (their file: ARCHIVED_NAME),
 * renamed into place whole.
 */
int exp_write_index(struct exp_writer *e, const struct exp_archive *v,
		    size_t n);
/* Remove a just-created experiment that never started. */
void exp_remove(struct exp_writer *e);
void exp_free(struct exp_writer *e);

#endif
