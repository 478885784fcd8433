// SPDX-License-Identifier: GPL-2.0
/*
 * The programs a traced process starts (docs/design/tracing.md): exec*,
 * posix_spawn, posix_spawnp, system and popen.  The new program is
 * traced through its environment, the library loaded again by LD_PRELOAD
 * and set by LWPROF_TRACE and LWPROF_TRACE_DIR, so before it starts:
 *  - a new environment without them (execle, execve or posix_spawn with
 *    an environment of the caller's making, env -i) gets them back, as
 *    gprofng's collector does: the descendants are followed as asked;
 *  - a program the dynamic linker will not preload into (static,
 *    set-ID, file capabilities, 32-bit: exp_untraceable) is said in the
 *    trace file (EXP_REC_TRACE_UNTRACED), so collect and print name it
 *    instead of losing it silently.  An exec writes it before, straight
 *    to the file (the exec ends this program and its library), and takes
 *    it back if the exec fails; posix_spawn, system and popen after they
 *    return.
 * system and popen start /bin/sh from the process's own environment
 * inside glibc (the library cannot hand it another): if the program
 * removed the library's variables from it, that is said the same way.
 *
 * An exec may run in a vfork child (a raw vfork, clone(CLONE_VFORK)):
 * what runs here before it allocates nothing and takes no lock; the new
 * environment is built in the caller's frame.
 */
#include <errno.h>
#include <dlfcn.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace.h"

#define PRELOAD		"LD_PRELOAD="
#define V_TRACE		"LWPROF_TRACE="
#define V_DIR		"LWPROF_TRACE_DIR="

/* The variables the new programs need, as this one got them (at load). */
static struct {
	char lib[PATH_MAX];		/* this library's path */
	char trace[128];		/* LWPROF_TRACE=... */
	char dir[PATH_MAX + 32];	/* LWPROF_TRACE_DIR=... */
} env;

void tr_exec_init(const char *trace, const char *dir)
{
	Dl_info di;

	snprintf(env.trace, sizeof(env.trace), V_TRACE "%s", trace);
	snprintf(env.dir, sizeof(env.dir), V_DIR "%s", dir);
	if (dladdr((void *)tr_exec_init, &di) && di.dli_fname)
		snprintf(env.lib, sizeof(env.lib), "%s", di.dli_fname);
}

/* Does LD_PRELOAD's value v name this library (separators ':' and ' ')? */
static bool preloads(const char *v)
{
	size_t n = strlen(env.lib);

	for (; *v; v += strcspn(v, ": ")) {
		v += strspn(v, ": ");
		if (!strncmp(v, env.lib, n) && (!v[n] || v[n] == ':' || v[n] == ' '))
			return true;
	}
	return false;
}

static bool is_var(const char *e, const char *name_eq)
{
	return !strncmp(e, name_eq, strlen(name_eq));
}

/* Is envp (NULL: empty) one the new program would be traced with? */
static bool env_ok(char *const *envp)
{
	bool pre = false, trace = false, dir = false;

	for (; envp && *envp; envp++) {
		if (is_var(*envp, PRELOAD))
			pre = pre || preloads(*envp + strlen(PRELOAD));
		trace = trace || !strcmp(*envp, env.trace);
		dir = dir || !strcmp(*envp, env.dir);
	}
	return pre && trace && dir;
}

size_t tr_env_room(char *const *envp, size_t *bytes)
{
	size_t n = 0;

	*bytes = strlen(PRELOAD) + strlen(env.lib) + 2;
	for (; envp && envp[n]; n++)
		if (is_var(envp[n], PRELOAD))
			*bytes += strlen(envp[n]);
	return n + 4;
}

char *const *tr_env_fix(char *const *envp, char **v, char *buf)
{
	const char *old = NULL;
	size_t n = 0;

	if (!env.lib[0] || env_ok(envp))
		return envp;
	for (; envp && *envp; envp++) {
		if (is_var(*envp, PRELOAD)) {
			if (!old)
				old = *envp + strlen(PRELOAD);
			continue;	/* one LD_PRELOAD: ours first */
		}
		if (is_var(*envp, V_TRACE) || is_var(*envp, V_DIR))
			continue;
		v[n++] = *envp;
	}
	strcpy(buf, PRELOAD);
	strcat(buf, env.lib);
	if (old && *old) {
		strcat(buf, ":");
		strcat(buf, old);
	}
	v[n++] = buf;
	v[n++] = env.trace;
	v[n++] = env.dir;
	v[n] = NULL;
	return v;
}

/*
 * file as execvp would find it on the caller's PATH (glibc's default
 * without one), into out; file itself when it has a slash or nothing is
 * found (the exec says why).
 */
static const char *search(const char *file, char *out, size_t len)
{
	const char *p = getenv("PATH"), *end;
	struct stat st;
	size_t n, fl = strlen(file);

	if (!*file || strchr(file, '/'))
		return file;
	for (p = p ? p : "/bin:/usr/bin"; ; p = end + 1) {
		end = strchrnul(p, ':');
		n = end - p;
		if (n + fl + 2 <= len) {
			memcpy(out, p, n);
			out[n] = n ? '/' : 0;
			memcpy(out + n + !!n, file, fl + 1);
			if (!syscall(SYS_access, out, X_OK) &&
			    !syscall(SYS_stat, out, &st) && S_ISREG(st.st_mode))
				return out;
		}
		if (!*end)
			return file;
	}
}

/*
 * 0, or why the program at path (searched: on PATH) will not be traced;
 * img the program at fault (fexecve's descriptor: the file it opened).
 */
static int check(const char *path, bool searched, char *img, size_t len)
{
	char found[PATH_MAX];
	long n;
	int why;

	if (searched)
		path = search(path, found, sizeof(found));
	why = exp_untraceable(path, img, len);
	if (why && !strcmp(img, path) && !strncmp(path, "/proc/self/fd/", 14)) {
		n = syscall(SYS_readlink, path, img, len - 1);
		img[n > 0 ? n : 0] = 0;
		if (n <= 0)
			strcpy(img, path);
	}
	return why;
}

void tr_untraced(uint32_t pid, uint32_t ppid, unsigned int reason,
		 const char *path)
{
	union {
		struct exp_rec_trace_untraced u;
		uint8_t b[sizeof(struct exp_rec_trace_untraced) + PATH_MAX];
	} r;
	size_t len = strnlen(path, PATH_MAX - 1);
	size_t size = sizeof(r.u) + ((len + 8) & ~7UL);
	int err = errno, fd = tr_trace_fd();

	if (fd < 0)
		return;
	memset(&r, 0, size);
	r.u.hdr.type = EXP_REC_TRACE_UNTRACED;
	r.u.hdr.size = size;
	r.u.time_ns = tr_now();
	r.u.pid = pid;
	r.u.ppid = ppid;
	r.u.reason = reason;
	memcpy(r.u.path, path, len);
	syscall(SYS_write, fd, &r, size);	/* O_APPEND: whole */
	errno = err;
}

static pid_t raw_getpid(void)
{
	return syscall(SYS_getpid);
}

/*
 * An exec: the buffers out, the program checked, the environment fixed;
 * CALL (using ENVP) runs it; on its return (a failure) the untraced
 * record is taken back.
 */
#define EXEC(path, searched, envp, call)				\
	do {								\
		char img_[PATH_MAX];					\
		size_t bytes_, n_ = tr_env_room(envp, &bytes_);		\
		char *v_[n_], buf_[bytes_];				\
		char *const *ENVP = tr_env_fix(envp, v_, buf_);		\
		pid_t me_ = raw_getpid();				\
		int why_, ret_, err_;					\
									\
		tr_before_exec();					\
		why_ = check(path, searched, img_, sizeof(img_));	\
		if (why_)						\
			tr_untraced(me_, me_, why_, img_);		\
		ret_ = call;						\
		err_ = errno;						\
		if (why_)						\
			tr_untraced(me_, me_, EXP_UT_EXEC_FAILED, img_);	\
		errno = err_;						\
		return ret_;						\
	} while (0)

REAL(int, execve, (const char *, char *const[], char *const[]))
REAL(int, execvpe, (const char *, char *const[], char *const[]))
REAL(int, fexecve, (int, char *const[], char *const[]))

/* The real function NAME, or ENOSYS; untraced: straight on. */
#define EXEC_REAL(name, ...)						\
	do {								\
		if (!get_##name()) {					\
			errno = ENOSYS;					\
			return -1;					\
		}							\
		if (!tr_conf.kinds)					\
			return real_##name(__VA_ARGS__);		\
	} while (0)

TR_API int execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_REAL(execve, path, argv, envp);
	EXEC(path, false, envp, real_execve(path, argv, ENVP));
}

TR_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_REAL(execvpe, file, argv, envp);
	EXEC(file, true, envp, real_execvpe(file, argv, ENVP));
}

/* "/proc/self/fd/N" without printf (a vfork child) */
static void fd_path(int fd, char *out)
{
	char d[12];
	int n = 0;

	strcpy(out, "/proc/self/fd/");
	do
		d[n++] = '0' + fd % 10;
	while ((fd /= 10) > 0);
	out += strlen(out);
	while (n)
		*out++ = d[--n];
	*out = 0;
}

TR_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	char path[32];

	EXEC_REAL(fexecve, fd, argv, envp);
	fd_path(fd < 0 ? 0 : fd, path);
	EXEC(path, false, envp, real_fexecve(fd, argv, ENVP));
}

TR_API int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

TR_API int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/*
 * execl, execlp, execle: the arguments after arg0 up to the NULL as a
 * vector (and execle's environment after it), then as execve/execvpe.
 */
#define EXEC_LIST(call, arg0, env)					\
	do {								\
		char *const *envp = environ;				\
		va_list ap;						\
		size_t n = 1, i;					\
									\
		va_start(ap, arg0);					\
		while (va_arg(ap, char *))				\
			n++;						\
		va_end(ap);						\
		char *argv[n + 1];					\
		argv[0] = (char *)arg0;					\
		va_start(ap, arg0);					\
		for (i = 1; i <= n; i++)				\
			argv[i] = va_arg(ap, char *);			\
		if (env)						\
			envp = va_arg(ap, char *const *);		\
		va_end(ap);						\
		return call(file, argv, envp);				\
	} while (0)

TR_API int execl(const char *file, const char *arg, ...)
{
	EXEC_LIST(execve, arg, 0);
}

TR_API int execlp(const char *file, const char *arg, ...)
{
	EXEC_LIST(execvpe, arg, 0);
}

TR_API int execle(const char *file, const char *arg, ...)
{
	EXEC_LIST(execve, arg, 1);
}

/*
 * posix_spawn, posix_spawnp: glibc's child (clone(CLONE_VM|CLONE_VFORK))
 * runs none of the library's code, so the check and the environment are
 * the parent's business, and the record is written once the child runs
 * (they return 0 only when its exec succeeded).
 */
#define SPAWN(name, searched)						\
	TR_API int name(pid_t *pid, const char *path,			\
			const posix_spawn_file_actions_t *fa,		\
			const posix_spawnattr_t *at, char *const argv[],	\
			char *const envp[])				\
	{								\
		static int (*real)(pid_t *, const char *,		\
				   const posix_spawn_file_actions_t *,	\
				   const posix_spawnattr_t *,		\
				   char *const[], char *const[]);	\
		char img[PATH_MAX];					\
		pid_t child = 0;					\
		int why, ret;						\
									\
		if (!real && !(real = tr_real(#name)))			\
			return ENOSYS;					\
		if (!tr_conf.kinds)					\
			return real(pid, path, fa, at, argv, envp);	\
		size_t bytes, n = tr_env_room(envp, &bytes);		\
		char *v[n], buf[bytes];					\
									\
		why = check(path, searched, img, sizeof(img));		\
		ret = real(&child, path, fa, at, argv,			\
			   tr_env_fix(envp, v, buf));			\
		if (!ret && why)					\
			tr_untraced(child, raw_getpid(), why, img);	\
		if (pid)						\
			*pid = child;					\
		return ret;						\
	}

SPAWN(posix_spawn, false)
SPAWN(posix_spawnp, true)

/*
 * system's and popen's /bin/sh: from this process's environment (glibc
 * spawns it with environ), so it is traced if that still has the
 * library's variables and the shell can load it.
 */
static int shell_check(char *img, size_t len)
{
	snprintf(img, len, "/bin/sh");
	return env_ok(environ) ? exp_untraceable("/bin/sh", img, len) : EXP_UT_ENV;
}

TR_API int system(const char *cmd)
{
	static int (*real)(const char *);
	char img[PATH_MAX];
	int why, ret;

	if (!real && !(real = tr_real("system")))
		return -1;
	if (!tr_conf.kinds || !cmd)
		return real(cmd);
	why = shell_check(img, sizeof(img));
	ret = real(cmd);
	if (why && ret != -1)
		tr_untraced(0, raw_getpid(), why, img);
	return ret;
}

TR_API FILE *popen(const char *cmd, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	char img[PATH_MAX];
	FILE *f;
	int why;

	if (!real && !(real = tr_real("popen")))
		return NULL;
	if (!tr_conf.kinds)
		return real(cmd, mode);
	why = shell_check(img, sizeof(img));
	f = real(cmd, mode);
	if (why && f)
		tr_untraced(0, raw_getpid(), why, img);
	return f;
}
