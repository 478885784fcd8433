// SPDX-License-Identifier: GPL-2.0
/*
 * Heap tracing (collect -H on): the allocator's calls, each an
 * allocation (its block, the bytes asked, its stack) or a free (the
 * block; no stack).  mmap counts as an allocation and munmap as its free
 * (as Oracle's collector counts them).  The real functions come from
 * dlsym(RTLD_NEXT); while dlsym itself allocates (before they are known)
 * glibc's own entry points (__libc_malloc ...) serve.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);

REAL(void *, malloc, (size_t))
REAL(void *, calloc, (size_t, size_t))
REAL(void *, realloc, (void *, size_t))
REAL(void *, reallocarray, (void *, size_t, size_t))
REAL(void, free, (void *))
REAL(void *, memalign, (size_t, size_t))
REAL(int, posix_memalign, (void **, size_t, size_t))
REAL(void *, aligned_alloc, (size_t, size_t))
REAL(void *, valloc, (size_t))
REAL(void *, pvalloc, (size_t))
REAL(void *, mmap, (void *, size_t, int, int, int, off_t))
REAL(int, munmap, (void *, size_t))

/* While dlsym resolves a real function, it may allocate: glibc serves. */
static __thread int resolving TR_TLS;

#define RESOLVE(name, fallback)						\
	do {								\
		if (!real_##name) {					\
			if (resolving)					\
				return fallback;			\
			resolving = 1;					\
			get_##name();					\
			resolving = 0;					\
			if (!real_##name)				\
				return fallback;			\
		}							\
	} while (0)

static void alloc_ev(uint16_t event, void *p, void *old, size_t bytes)
{
	tr_emit_heap(event, (uint64_t)p, (uint64_t)old, bytes, true);
}

static void free_ev(uint16_t event, void *p, size_t bytes)
{
	tr_emit_heap(event, (uint64_t)p, 0, bytes, false);
}

TR_API void *malloc(size_t n)
{
	void *p;

	RESOLVE(malloc, __libc_malloc(n));
	if (!tr_enter(TR_HEAP))
		return real_malloc(n);
	p = real_malloc(n);
	if (p)
		alloc_ev(EXP_TR_MALLOC, p, NULL, n);
	tr_leave();
	return p;
}

TR_API void *calloc(size_t n, size_t size)
{
	void *p;

	RESOLVE(calloc, __libc_calloc(n, size));
	if (!tr_enter(TR_HEAP))
		return real_calloc(n, size);
	p = real_calloc(n, size);
	if (p)
		alloc_ev(EXP_TR_CALLOC, p, NULL, n * size);
	tr_leave();
	return p;
}

/* realloc: the old block freed (if moved or not) and the new one made. */
TR_API void *realloc(void *old, size_t n)
{
	void *p;

	RESOLVE(realloc, __libc_realloc(old, n));
	if (!tr_enter(TR_HEAP))
		return real_realloc(old, n);
	p = real_realloc(old, n);
	if (p)
		alloc_ev(EXP_TR_REALLOC, p, old, n);
	else if (old && !n)
		free_ev(EXP_TR_FREE, old, 0);	/* realloc(p, 0) frees */
	tr_leave();
	return p;
}

TR_API void *reallocarray(void *old, size_t n, size_t size)
{
	void *p;

	RESOLVE(reallocarray, NULL);
	if (!tr_enter(TR_HEAP))
		return real_reallocarray(old, n, size);
	p = real_reallocarray(old, n, size);
	if (p)
		alloc_ev(EXP_TR_REALLOCARRAY, p, old, n * size);
	tr_leave();
	return p;
}

TR_API void free(void *p)
{
	RESOLVE(free, (__libc_free(p), (void)0));
	if (!p || !tr_enter(TR_HEAP)) {
		real_free(p);
		return;
	}
	/* recorded first: once freed, another thread may get the block */
	free_ev(EXP_TR_FREE, p, 0);
	real_free(p);
	tr_leave();
}

TR_API void *memalign(size_t align, size_t n)
{
	void *p;

	RESOLVE(memalign, __libc_memalign(align, n));
	if (!tr_enter(TR_HEAP))
		return real_memalign(align, n);
	p = real_memalign(align, n);
	if (p)
		alloc_ev(EXP_TR_MEMALIGN, p, NULL, n);
	tr_leave();
	return p;
}

TR_API int posix_memalign(void **pp, size_t align, size_t n)
{
	int err;

	RESOLVE(posix_memalign, ENOMEM);
	if (!tr_enter(TR_HEAP))
		return real_posix_memalign(pp, align, n);
	err = real_posix_memalign(pp, align, n);
	if (!err)
		alloc_ev(EXP_TR_POSIX_MEMALIGN, *pp, NULL, n);
	tr_leave();
	return err;
}

TR_API void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	RESOLVE(aligned_alloc, __libc_memalign(align, n));
	if (!tr_enter(TR_HEAP))
		return real_aligned_alloc(align, n);
	p = real_aligned_alloc(align, n);
	if (p)
		alloc_ev(EXP_TR_ALIGNED_ALLOC, p, NULL, n);
	tr_leave();
	return p;
}

TR_API void *valloc(size_t n)
{
	void *p;

	RESOLVE(valloc, __libc_valloc(n));
	if (!tr_enter(TR_HEAP))
		return real_valloc(n);
	p = real_valloc(n);
	if (p)
		alloc_ev(EXP_TR_VALLOC, p, NULL, n);
	tr_leave();
	return p;
}

TR_API void *pvalloc(size_t n)
{
	void *p;

	RESOLVE(pvalloc, __libc_pvalloc(n));
	if (!tr_enter(TR_HEAP))
		return real_pvalloc(n);
	p = real_pvalloc(n);
	if (p)
		alloc_ev(EXP_TR_PVALLOC, p, NULL, n);
	tr_leave();
	return p;
}

TR_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	RESOLVE(mmap, MAP_FAILED);
	if (!tr_enter(TR_HEAP))
		return real_mmap(addr, len, prot, flags, fd, off);
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED)
		alloc_ev(EXP_TR_MMAP, p, NULL, len);
	tr_leave();
	return p;
}

TR_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off_t off) __attribute__((alias("mmap")));

TR_API int munmap(void *addr, size_t len)
{
	int ret;

	RESOLVE(munmap, -1);
	if (!tr_enter(TR_HEAP))
		return real_munmap(addr, len);
	/* first, as free(): then the range may be mapped again */
	free_ev(EXP_TR_MUNMAP, addr, len);
	ret = real_munmap(addr, len);
	tr_leave();
	return ret;
}
