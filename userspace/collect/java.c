// SPDX-License-Identifier: GPL-2.0
/*
 * collect -j on|off (docs/guide/java.md): a JVM gets the JVMTI agent
 * (liblwprof_jvmti.so), which writes java.PID.rec files into the
 * experiment: its methods, compiled code and the Java stacks of its
 * threads.  On by default when the command is a JVM (`java`, by name or
 * by what it resolves to), as Oracle's collect decides.  A `java` command
 * gets the agent's options on its command line; another command asked
 * for with -j on (a script that runs java) gets them through
 * JAVA_TOOL_OPTIONS, which every JVM it starts reads.  The JVM keeps its
 * frame pointers (-XX:+PreserveFramePointer), so that the native stacks
 * walk through compiled Java code.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexp/java.h"
#include "userspace/collect/collect.h"

#define JAVA_AGENT	"liblwprof_jvmti.so"
/*
 * The JVM's options besides the agent: frame pointers kept in compiled
 * code; debug information at every pc of it, not only at safepoints, so
 * that a tick in compiled code names the method inlined there and its
 * line (as JFR has it when it records); and no warning when the agent
 * binds the natives that block (Thread.sleep ...) to its wrappers.
 */
#define JAVA_FP		"-XX:+PreserveFramePointer"
#define JAVA_DEBUG	"-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"
#define JAVA_LOG	"-Xlog:jni+resolve=error"

static const char *const lib_dirs[] = { "", "../libexec/lwprof/" };

/* Is cmd a JVM launcher: named java, or a link to one? */
static bool is_jvm(const char *cmd)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *base;

	base = strrchr(cmd, '/');
	if (!strcmp(base ? base + 1 : cmd, "java"))
		return true;
	if (lwprof_which(cmd, path, sizeof(path)) || !realpath(path, real))
		return false;
	base = strrchr(real, '/');
	return !strcmp(base ? base + 1 : real, "java");
}

/* Does this recording load the agent? */
static bool wanted(const struct rec_opts *o)
{
	if (o->java < 0 || !o->argv)
		return false;
	return o->java > 0 || is_jvm(o->argv[0]);
}

int collect_java_check(const struct rec_opts *o, char *msg, size_t len)
{
	char lib[PATH_MAX + 64];

	if (o->java > 0 && !o->argv) {
		snprintf(msg, len, "-j on needs a command to run: a running JVM (-P) cannot be given the agent");
		return -EINVAL;
	}
	if (!wanted(o))
		return 0;
	if (lwprof_selfdir_find(JAVA_AGENT, lib_dirs, 2, R_OK, lib, sizeof(lib))) {
		if (!o->java)
			return 0;	/* a JVM, not asked for: native profiling */
		snprintf(msg, len, "-j on needs the JVMTI agent: no %s (make with a JDK's headers, or make install)",
			 lib);
		return -ENOENT;
	}
	return 0;
}

/* A new argv: argv[0], then n options, then the rest. */
static char **argv_with(char **argv, char **opts, int n)
{
	int argc = 0, i;
	char **v;

	while (argv[argc])
		argc++;
	v = calloc(argc + n + 1, sizeof(*v));
	if (!v)
		return NULL;
	v[0] = argv[0];
	for (i = 0; i < n; i++)
		v[1 + i] = opts[i];
	for (i = 1; i < argc; i++)
		v[n + i] = argv[i];
	return v;
}

int collect_java_env(const struct rec_opts *o, struct exp_writer *e,
		     char ***argv, char *msg, size_t len)
{
	char lib[PATH_MAX + 64], dir[PATH_MAX], *agent = NULL, *tool = NULL;
	const char *old = getenv("JAVA_TOOL_OPTIONS");
	char *opts[5];
	int err = 0;

	*argv = o->argv;
	msg[0] = 0;
	if (!wanted(o) ||
	    lwprof_selfdir_find(JAVA_AGENT, lib_dirs, 2, R_OK, lib, sizeof(lib)))
		return 0;
	if (!realpath(e->path, dir)) {
		snprintf(msg, len, "the experiment's path: %s", strerror(errno));
		return -errno;
	}
	if (asprintf(&agent, "-agentpath:%s=interval=%llu", lib,
		     (unsigned long long)o->clock_ns) < 0)
		return -ENOMEM;
	if (setenv("LWPROF_JAVA_DIR", dir, 1)) {
		err = -errno;
		goto out;
	}
	if (is_jvm(o->argv[0])) {
		opts[0] = agent;
		opts[1] = JAVA_FP;
		opts[2] = "-XX:+UnlockDiagnosticVMOptions";
		opts[3] = "-XX:+DebugNonSafepoints";
		opts[4] = JAVA_LOG;
		*argv = argv_with(o->argv, opts, 5);
		if (!*argv) {
			err = -ENOMEM;
			goto out;
		}
		agent = NULL;	/* the new argv's, for the exec */
		exp_note(e, EXP_K_JAVA, "command line: %s " JAVA_FP " " JAVA_DEBUG
			 " " JAVA_LOG, opts[0]);
	} else {
		if (strchr(lib, ' ')) {
			snprintf(msg, len, "the agent's path %s has a space, which JAVA_TOOL_OPTIONS cannot carry: run java itself under collect",
				 lib);
			err = -EINVAL;
			goto out;
		}
		if (asprintf(&tool, "%s%s%s " JAVA_FP " " JAVA_DEBUG " " JAVA_LOG,
			     old && *old ? old : "",
			     old && *old ? " " : "", agent) < 0 ||
		    setenv("JAVA_TOOL_OPTIONS", tool, 1)) {
			err = -ENOMEM;
			goto out;
		}
		exp_note(e, EXP_K_JAVA, "JAVA_TOOL_OPTIONS: %s " JAVA_FP " "
			 JAVA_DEBUG " " JAVA_LOG, agent);
	}
	exp_note(e, EXP_K_JAVA_AGENT, "%s", lib);
out:
	if (err && !msg[0])
		snprintf(msg, len, "setting the JVM's options: %s", strerror(-err));
	free(agent);
	free(tool);
	return err;
}

void collect_java_adopt(const struct rec_opts *o, struct exp_writer *e)
{
	unsigned long long files, recs = e->records;
	char lib[PATH_MAX + 64];

	if (!wanted(o) ||
	    lwprof_selfdir_find(JAVA_AGENT, lib_dirs, 2, R_OK, lib, sizeof(lib)))
		return;	/* no agent given */
	files = collect_adopt(e, EXP_FILE_JAVA, EXP_FILE_SAMPLES, "java", NULL,
			      NULL);
	exp_note(e, EXP_K_JAVA_FILES, "%llu", files);
	exp_note(e, EXP_K_JAVA_RECORDS, "%llu", e->records - recs);
	if (!files)
		exp_warn(e, "java: no java.PID.rec files: no JVM loaded the agent (not a HotSpot JVM, or its options were replaced)");
}
