// SPDX-License-Identifier: GPL-2.0
/*
 * bytes_in SECRET N PATH...: how many times any N bytes in a row of the
 * first 32 bytes of file SECRET occur in the files PATH (directories are
 * walked): the security tests' check that no part of a secret reached an
 * experiment.  Prints the count; exits 2 on an error.  With random
 * secrets and N >= 8 a chance match is out of the question.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char secret[32];
static size_t win;
static unsigned long long hits;

static int scan(const char *path, const struct stat *st, int type,
		struct FTW *ftw)
{
	const unsigned char *p, *at;
	size_t i, left;
	int fd;

	if (type != FTW_F || !S_ISREG(st->st_mode) || !st->st_size)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return perror(path), 1;
	p = mmap(NULL, st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return perror(path), 1;
	for (i = 0; i + win <= sizeof(secret); i++)
		for (at = p, left = st->st_size;
		     (at = memmem(at, left, secret + i, win)); hits++) {
			at++;
			left = st->st_size - (at - p);
		}
	munmap((void *)p, st->st_size);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, i;

	if (argc < 4 || (win = atoi(argv[2])) < 1 || win > sizeof(secret)) {
		fprintf(stderr, "usage: bytes_in SECRET N PATH...\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, secret, sizeof(secret)) != sizeof(secret)) {
		perror(argv[1]);
		return 2;
	}
	close(fd);
	for (i = 3; i < argc; i++)
		if (nftw(argv[i], scan, 16, FTW_PHYS))
			return 2;
	printf("%llu\n", hits);
	return 0;
}
