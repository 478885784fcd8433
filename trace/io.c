// SPDX-License-Identifier: GPL-2.0
/*
 * I/O tracing (collect -i on): the read and write families, the calls
 * that open, duplicate, sync, seek and close descriptors, and stdio's
 * streams; each call with its descriptor, the bytes moved, its time and
 * stack; a failed one with -errno.  open and fopen also record the name
 * the descriptor was opened with (tr_emit_file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "trace.h"

static void io_ev(uint16_t event, uint64_t *regs, int fd, uint64_t t0,
		  int64_t ret, int err, bool moves)
{
	struct tr_ev ev = { .event = event, .fd = fd, .start = t0 };
	uint64_t ms[LWPROF_MS_COUNT];

	ev.end = tr_clock_end();
	ev.ret = ret < 0 ? -(int64_t)err : ret;
	ev.bytes = moves && ret > 0 ? (uint64_t)ret : 0;
	ev.ms = tr_ms_delta(t0, ev.end, ms) ? ms : NULL;
	tr_emit(&ev, regs);
}

/*
 * NAME(ARGS) returning RT, traced as EVENT: FD the descriptor, taken
 * before the call (fclose ends it), RETV the result (-1 with errno: a
 * failure), and with MOVES the bytes moved; FAIL what it returns when
 * the real function is missing.
 */
#define IO_CALL_AS(link, rt, name, sym, event, proto, args, fd, retv, moves, fail) \
	link rt name proto						\
	{								\
		static rt (*real) proto;				\
		uint64_t regs[EXP_TR_NR_REGS], t0;			\
		int tfd, err;						\
		rt ret;							\
									\
		if (!real && !(real = tr_real(sym))) {		\
			errno = ENOSYS;					\
			return fail;					\
		}							\
		if (!tr_enter(TR_IO))					\
			return real args;				\
		TR_REGS(regs);						\
		tfd = fd;						\
		t0 = tr_clock_start();					\
		ret = real args;					\
		err = errno;						\
		io_ev(event, regs, tfd, t0, retv, err, moves);		\
		errno = err;						\
		tr_leave();						\
		return ret;						\
	}

#define IO_CALL(rt, name, event, proto, args, fd, retv, moves, fail) \
	IO_CALL_AS(TR_API, rt, name, #name, event, proto, args, fd, retv, moves, fail)

#define IO(rt, name, event, proto, args, fd, moves) \
	IO_CALL(rt, name, event, proto, args, fd, (int64_t)ret, moves, -1)
#define RD(name, ev, proto, args) IO(ssize_t, name, ev, proto, args, fd, true)

RD(read, EXP_TR_READ, (int fd, void *b, size_t n), (fd, b, n))
RD(__read_chk, EXP_TR_READ, (int fd, void *b, size_t n, size_t bl), (fd, b, n, bl))
RD(pread, EXP_TR_PREAD, (int fd, void *b, size_t n, off_t o), (fd, b, n, o))
RD(pread64, EXP_TR_PREAD, (int fd, void *b, size_t n, off_t o), (fd, b, n, o))
RD(readv, EXP_TR_READV, (int fd, const struct iovec *v, int n), (fd, v, n))
RD(preadv, EXP_TR_PREADV, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o))
RD(preadv64, EXP_TR_PREADV, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o))
RD(write, EXP_TR_WRITE, (int fd, const void *b, size_t n), (fd, b, n))
RD(pwrite, EXP_TR_PWRITE, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
RD(pwrite64, EXP_TR_PWRITE, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
RD(writev, EXP_TR_WRITEV, (int fd, const struct iovec *v, int n), (fd, v, n))
RD(pwritev, EXP_TR_PWRITEV, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o))
RD(pwritev64, EXP_TR_PWRITEV, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o))

/*
 * close, dup2 and dup3 keep off the trace file's descriptor: a program
 * that closes every descriptor (a daemon) would lose it, or give its
 * number to a file of its own, which the buffers would then be written
 * to.  Closing it is pretended; dup2 onto it moves it first.
 */
#define KEEP_TRACE_FD(fd, move)						\
	do {								\
		if (tr_own_fd(fd, move) && !(move))			\
			return 0;					\
	} while (0)

#define KEPT(name, sym, event, proto, args) \
	IO_CALL_AS(static inline __attribute__((always_inline)), int, name, sym, \
		   event, proto, args, fd, (int64_t)ret, false, -1)

KEPT(traced_close, "close", EXP_TR_CLOSE, (int fd), (fd))
KEPT(traced_dup2, "dup2", EXP_TR_DUP, (int fd, int nfd), (fd, nfd))
KEPT(traced_dup3, "dup3", EXP_TR_DUP, (int fd, int nfd, int fl), (fd, nfd, fl))

TR_API int close(int fd)
{
	KEEP_TRACE_FD(fd, false);
	return traced_close(fd);
}

TR_API int dup2(int fd, int nfd)
{
	KEEP_TRACE_FD(nfd, true);
	return traced_dup2(fd, nfd);
}

TR_API int dup3(int fd, int nfd, int fl)
{
	KEEP_TRACE_FD(nfd, true);
	return traced_dup3(fd, nfd, fl);
}

/* close_range and closefrom: the range without the trace file's. */
TR_API int close_range(unsigned int lo, unsigned int hi, int flags)
{
	static int (*real)(unsigned int, unsigned int, int);
	int t = tr_trace_fd(), err = 0;

	if (!real && !(real = tr_real("close_range"))) {
		errno = ENOSYS;
		return -1;
	}
	if (t < 0 || (unsigned int)t < lo || (unsigned int)t > hi)
		return real(lo, hi, flags);
	if ((unsigned int)t > lo)
		err = real(lo, t - 1, flags);
	if (!err && (unsigned int)t < hi)
		err = real(t + 1, hi, flags);
	return err;
}

TR_API void closefrom(int lo)
{
	close_range(lo, ~0U, 0);
}
IO(int, fsync, EXP_TR_FSYNC, (int fd), (fd), fd, false)
IO(int, fdatasync, EXP_TR_FDATASYNC, (int fd), (fd), fd, false)
IO(off_t, lseek, EXP_TR_LSEEK, (int fd, off_t o, int w), (fd, o, w), fd, false)
IO(off_t, lseek64, EXP_TR_LSEEK, (int fd, off_t o, int w), (fd, o, w), fd, false)
IO(int, ftruncate, EXP_TR_FTRUNCATE, (int fd, off_t o), (fd, o), fd, false)
IO(int, ftruncate64, EXP_TR_FTRUNCATE, (int fd, off_t o), (fd, o), fd, false)
/* dup: fd the old descriptor, the new one its return value */
IO(int, dup, EXP_TR_DUP, (int fd), (fd), fd, false)


/* open and friends: the new descriptor, and the name it stands for. */
static int opened(uint16_t event, uint64_t *regs, uint64_t t0, int fd,
		  const char *path)
{
	int err = errno;

	if (fd >= 0)
		tr_emit_file(fd, path);
	io_ev(event, regs, fd, t0, fd, err, false);
	errno = err;
	return fd;
}

/* open's mode, when its flags say there is one */
#define GETMODE								\
	do {								\
		va_list ap;						\
		va_start(ap, flags);					\
		if (__OPEN_NEEDS_MODE(flags))				\
			mode = va_arg(ap, mode_t);			\
		va_end(ap);						\
	} while (0)

#define OPEN(name, proto, args, path, getmode)				\
	TR_API int name proto						\
	{								\
		static int (*real) proto;				\
		uint64_t regs[EXP_TR_NR_REGS], t0;			\
		mode_t mode = 0;					\
		int fd;							\
									\
		getmode;						\
		(void)mode;						\
		if (!real && !(real = tr_real(#name))) {		\
			errno = ENOSYS;					\
			return -1;					\
		}							\
		if (!tr_enter(TR_IO))					\
			return real args;				\
		TR_REGS(regs);						\
		t0 = tr_clock_start();					\
		fd = opened(EXP_TR_OPEN, regs, t0, real args, path);	\
		tr_leave();						\
		return fd;						\
	}

OPEN(open, (const char *p, int flags, ...), (p, flags, mode), p, GETMODE)
OPEN(open64, (const char *p, int flags, ...), (p, flags, mode), p, GETMODE)
OPEN(openat, (int d, const char *p, int flags, ...), (d, p, flags, mode), p, GETMODE)
OPEN(openat64, (int d, const char *p, int flags, ...), (d, p, flags, mode), p, GETMODE)
OPEN(__open_2, (const char *p, int flags), (p, flags), p, )
OPEN(__open64_2, (const char *p, int flags), (p, flags), p, )
OPEN(creat, (const char *p, mode_t m), (p, m), p, )
OPEN(creat64, (const char *p, mode_t m), (p, m), p, )

/* ---- stdio ---- */

static FILE *fopened(uint64_t *regs, uint64_t t0, FILE *f,
		     const char *path)
{
	int err = errno;

	if (f)
		tr_emit_file(fileno(f), path);
	io_ev(EXP_TR_FOPEN, regs, f ? fileno(f) : -1, t0, f ? 0 : -1, err, false);
	errno = err;
	return f;
}

#define FOPEN(name)							\
	TR_API FILE *name(const char *p, const char *m)			\
	{								\
		static FILE *(*real)(const char *, const char *);	\
		uint64_t regs[EXP_TR_NR_REGS], t0;			\
		FILE *f;						\
									\
		if (!real && !(real = tr_real(#name)))			\
			return NULL;					\
		if (!tr_enter(TR_IO))					\
			return real(p, m);				\
		TR_REGS(regs);						\
		t0 = tr_clock_start();					\
		f = fopened(regs, t0, real(p, m), p);			\
		tr_leave();						\
		return f;						\
	}

FOPEN(fopen)
FOPEN(fopen64)

/* A stream's descriptor; fflush(NULL) has none. */
static __attribute__((noinline)) int stream_fd(FILE *f)
{
	return f ? fileno(f) : -1;
}

/* A stream call: its descriptor, the bytes it moved or -1. */
#define STREAM(rt, name, event, proto, args, f, bytes, fail) \
	IO_CALL(rt, name, event, proto, args, stream_fd(f), bytes, true, fail)

STREAM(size_t, fread, EXP_TR_FREAD, (void *b, size_t s, size_t n, FILE *f),
       (b, s, n, f), f, (int64_t)(ret * s), 0)
STREAM(size_t, fwrite, EXP_TR_FWRITE, (const void *b, size_t s, size_t n, FILE *f),
       (b, s, n, f), f, (int64_t)(ret * s), 0)
STREAM(int, fclose, EXP_TR_FCLOSE, (FILE *f), (f), f, (int64_t)ret, EOF)
STREAM(int, fflush, EXP_TR_FFLUSH, (FILE *f), (f), f, (int64_t)(ret ? -1 : 0), EOF)
