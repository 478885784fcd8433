// SPDX-License-Identifier: GPL-2.0
/*
 * A main() for tests/fuzz/fuzz_reader.c without libFuzzer (gcc, ASan and
 * UBSan; make check's short run, scripts/fuzz-reader -m): ITERATIONS
 * inputs, each a seed file of the corpus mutated by a deterministic
 * generator, so a seed and an iteration number reproduce an input:
 *
 *   fuzz_main [-n ITERATIONS] [-s SEED] [-o FILE] CORPUS-FILE...
 *   fuzz_main -r FILE...        (each file once, as it is: a replay)
 *
 * Mutations are the damage files see: bits flipped, bytes set to 0 or
 * 0xff, a 32-bit field set to an edge value (sizes, counts and offsets;
 * in a record file, mostly a field of a record's first 128 bytes), a cut,
 * a chunk deleted or repeated.  Each input is written to FILE (default fuzz_main.input)
 * before it is read, so a crash leaves it behind for -r.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lwprof.h"
#include "libexp/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LEN	(1 << 20)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/*
 * In a record file, a 4-aligned offset in the first 128 bytes of a record
 * (the fields a reader trusts: size, frame counts, stack size...), by
 * walking the records' sizes; else anywhere.
 */
static size_t field_at(uint64_t *s, const uint8_t *b, size_t n)
{
	size_t at = sizeof(struct exp_file_header), starts[1024];
	unsigned int k = 0;
	uint32_t size;

	if (n < at || memcmp(b, EXP_FILE_MAGIC, 8))
		return rnd(s) % n;
	while (at + 8 <= n && k < 1024) {
		starts[k++] = at;
		memcpy(&size, b + at + 4, 4);
		if (size < 8 || size % 8)
			break;
		at += size;
	}
	if (!k)
		return rnd(s) % n;
	at = starts[rnd(s) % k] + 4 * (rnd(s) % 32);
	return at < n ? at : rnd(s) % n;
}

static size_t mutate(uint64_t *s, uint8_t *b, size_t n)
{
	static const uint32_t edge[] = { 0, 1, 7, 8, 16, 24, 0x7fffffff,
		0x80000000, 0xfffffff8, 0xffffffff, 65536, 4096, 1024, 200 };
	unsigned int k, i = 1 + rnd(s) % 4;
	size_t at, len;

	while (i-- && n) {
		at = rnd(s) % n;
		switch (rnd(s) % 7) {
		case 0:
			b[at] ^= 1 << (rnd(s) % 8);
			break;
		case 1:
			b[at] = rnd(s) & 1 ? 0 : 0xff;
			break;
		case 2:
			at = field_at(s, b, n) & ~(size_t)3;
			k = edge[rnd(s) % (sizeof(edge) / sizeof(edge[0]))];
			if (at + 4 <= n)
				memcpy(b + at, &k, 4);
			break;
		case 3:
			b[at] = rnd(s);
			break;
		case 4:
			n = at;
			break;
		case 5:
			len = rnd(s) % (n - at) + 1;
			memmove(b + at, b + at + len, n - at - len);
			n -= len;
			break;
		default:
			len = rnd(s) % (n - at) + 1;
			if (n + len <= MAX_LEN) {
				memmove(b + at + len, b + at, n - at);
				n += len;
			}
			break;
		}
	}
	return n;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	uint8_t *b = malloc(MAX_LEN);
	FILE *f = fopen(path, "rb");

	if (!b || !f) {
		perror(path);
		exit(2);
	}
	*n = fread(b, 1, MAX_LEN, f);
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	uint64_t iters = 1000, seed = time(NULL) ^ getpid(), i, s;
	const char *keep = "fuzz_main.input";
	uint8_t **seeds, *buf = malloc(MAX_LEN);
	size_t *lens, n;
	FILE *f;
	int c, nseeds, replay = 0;

	while ((c = getopt(argc, argv, "n:s:o:r")) != -1) {
		switch (c) {
		case 'r': replay = 1; break;
		case 'n': iters = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'o': keep = optarg; break;
		default: return 2;
		}
	}
	nseeds = argc - optind;
	seeds = calloc(nseeds + 1, sizeof(*seeds));
	lens = calloc(nseeds + 1, sizeof(*lens));
	if (!nseeds || !seeds || !lens || !buf)
		return 2;
	for (c = 0; c < nseeds; c++)
		seeds[c] = slurp(argv[optind + c], &lens[c]);
	if (replay)
		iters = nseeds;
	fprintf(stderr, "fuzz_main: seed %" PRIu64 ", %d corpus files, %" PRIu64 " iterations\n",
		seed, nseeds, iters);
	for (i = 0; i < iters; i++) {
		s = seed * 0x9e3779b97f4a7c15ULL + i * 0xbf58476d1ce4e5b9ULL;
		s |= 1;
		c = rnd(&s) % nseeds;
		if (replay)
			c = i;
		memcpy(buf, seeds[c], lens[c]);
		n = lens[c];
		if (!replay) {
			n = mutate(&s, buf, lens[c]);
			f = fopen(keep, "wb");
			if (f) {
				fwrite(buf, 1, n, f);
				fclose(f);
			}
		}
		LLVMFuzzerTestOneInput(buf, n);
	}
	fprintf(stderr, "fuzz_main: %" PRIu64 " iterations, no crash\n", iters);
	for (c = 0; c < nseeds; c++)
		free(seeds[c]);
	free(seeds);
	free(lens);
	free(buf);
	return 0;
}
