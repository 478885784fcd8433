/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name a user most likely meant: of a table's names, the nearest to
 * a mistyped one, for every command's "did you mean" (lwprof's commands,
 * collect's options, print's commands and export's formats).
 */
#ifndef LWPROF_LIBEXP_NEAREST_H
#define LWPROF_LIBEXP_NEAREST_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Edit distance of a and b: insertions, deletions, substitutions and
 * swaps of two neighbours, each 1 (99 for names over 62 bytes).
 */
int exp_name_distance(const char *a, const char *b);

/*
 * The nearest to name (its leading dashes left out) of n names, the
 * first a const char * at names, each stride bytes after the one before
 * (a table's name field), those ok takes (ok NULL: all), when near
 * enough to be what was meant: at most a third of its letters off.
 * NULL: none is.
 */
const char *exp_nearest_name(const char *name, const void *names, size_t n,
			     size_t stride, bool (*ok)(const char *));

/*
 * getopt_long's error for prog, called with opterr 0 and a short option
 * string beginning with ':' (after any '+'): c ':' is an option without
 * its value, any other an unknown option, said with the nearest long
 * option and the valid ones (every one of shortopts and longopts, so that
 * one added to either is listed).  Returns 2, the usage error's status.
 */
int exp_option_error(const char *prog, char *const *argv, int c,
		     const char *shortopts, const struct option *longopts);

#endif
