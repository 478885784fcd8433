// SPDX-License-Identifier: GPL-2.0
/*
 * collect -M (docs/guide/mpi.md): MPI tracing.  Each rank runs under
 * collect, which preloads the MPI wrapper library of the rank's MPI
 * implementation after the tracing library.  In the launcher's form,
 *
 *     lwprof collect -M OPENMPI -o run.er mpirun -np 4 -- ./prog args
 *
 * this collect records nothing itself: it makes run.er, the founder, and
 * runs "mpirun -np 4 lwprof collect OPTIONS -o /abs/run.er ./prog args";
 * each rank's collect then writes run.er/M_rRANK.er (its rank from the
 * launcher's environment).  The founder's mpi.txt says what was run and
 * how it ended.  Without "--" the command is the MPI program itself
 * (mpirun -np 4 lwprof collect -M on ./prog).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userspace/collect/collect.h"

#define FOUNDER_FILE	"mpi.txt"

static const char *const flavour_names[] = {
	[MPI_OPENMPI] = "openmpi", [MPI_MPICH] = "mpich",
};

int collect_mpi_parse(const char *arg, struct rec_opts *o)
{
	if (!strcasecmp(arg, "openmpi") || !strcasecmp(arg, "ompt"))
		o->mpi = MPI_OPENMPI;
	else if (!strcasecmp(arg, "mpich") || !strcasecmp(arg, "mpich2"))
		o->mpi = MPI_MPICH;
	else if (!strcmp(arg, "on"))
		o->mpi = MPI_ON;
	else if (!strcmp(arg, "off"))
		o->mpi = MPI_OFF;
	else
		return -EINVAL;
	return 0;
}

const char *collect_mpi_name(const struct rec_opts *o)
{
	return o->mpi == MPI_OPENMPI || o->mpi == MPI_MPICH ?
		flavour_names[o->mpi] : "none";
}

int collect_mpi_rank(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
	};
	const char *v;
	char *end;
	long r;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		errno = 0;
		r = strtol(v, &end, 10);
		if (!errno && !*end && r >= 0 && r < INT_MAX)
			return r;
	}
	return -1;
}

/*
 * Which MPI library the program at path links (its DT_NEEDED): Open
 * MPI's are libmpi*.so.40 and up, MPICH's libmpich*.so.12 and its
 * libmpi.so.12.  MPI_OFF: none; -1: not an ELF program (a script).
 */
static int linked_flavour(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = MPI_OFF;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	const char *n;
	size_t i;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn)) && found == MPI_OFF) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			n = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!n)
				continue;
			if (!strncmp(n, "libmpich", 8) || !strcmp(n, "libmpi.so.12"))
				found = MPI_MPICH;
			else if (!strncmp(n, "libmpi", 6) && strstr(n, ".so.4"))
				found = MPI_OPENMPI;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * prog as the launcher will run it: an MPI program of o's implementation
 * (-M on: the one it links, into o).  0, or a message in msg.
 */
static int check_prog(const char *prog, struct rec_opts *o, char *msg,
		      size_t len)
{
	char path[PATH_MAX];
	int f;

	if (lwprof_which(prog, path, sizeof(path))) {
		snprintf(msg, len, "%s: no such program", prog);
		return -ENOENT;
	}
	f = linked_flavour(path);
	if (f < 0) {
		if (o->mpi == MPI_ON) {
			snprintf(msg, len, "%s is not an ELF program: -M on cannot tell which MPI it runs; name it (-M OPENMPI or -M MPICH)",
				 prog);
			return -EINVAL;
		}
		return 0;	/* a script: as told */
	}
	if (f == MPI_OFF) {
		snprintf(msg, len, "%s is not an MPI program: it links no MPI library (Open MPI's libmpi.so.40, MPICH's libmpich.so.12); -M traces MPI calls",
			 prog);
		return -ENOEXEC;
	}
	if (o->mpi != MPI_ON && (int)o->mpi != f) {
		snprintf(msg, len, "%s links %s, not %s: give -M %s or -M on",
			 prog, f == MPI_MPICH ? "MPICH" : "Open MPI",
			 o->mpi == MPI_MPICH ? "MPICH" : "Open MPI",
			 f == MPI_MPICH ? "MPICH" : "OPENMPI");
		return -EINVAL;
	}
	o->mpi = f;
	return 0;
}

int collect_mpi_lib(const struct rec_opts *o, char *path, size_t len)
{
	static const char *const dirs[] = { "", "../libexec/lwprof/" };
	char name[64];

	snprintf(name, sizeof(name), "liblwprof_mpi_%s.so", collect_mpi_name(o));
	return lwprof_selfdir_find(name, dirs, 2, R_OK, path, len);
}

int collect_mpi_create(struct exp_writer *e, const struct rec_opts *o,
		       char *path, size_t len)
{
	char founder[PATH_MAX], name[32];
	int rank = collect_mpi_rank();

	if (o->mpi == MPI_OFF || rank < 0 || !o->output)
		return exp_create(e, o->dir, o->output, path, len);
	if (o->dir && o->output[0] != '/')
		snprintf(founder, sizeof(founder), "%s/%s", o->dir, o->output);
	else
		snprintf(founder, sizeof(founder), "%s", o->output);
	/* every rank makes it, or finds it made */
	if (mkdir(founder, 0755) < 0 && errno != EEXIST) {
		snprintf(path, len, "%s", founder);
		return -errno;
	}
	snprintf(name, sizeof(name), "M_r%d.er", rank);
	return exp_create(e, founder, name, path, len);
}

/* ---- the launcher's form ---- */

static int find_sep(char **argv)
{
	int i;

	for (i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "--"))
			return i;
	return -1;
}

/* argv quoted into one line of mpi.txt */
static void put_argv(FILE *f, const char *key, char *const *argv, int n)
{
	int i;

	fprintf(f, "%s:", key);
	for (i = 0; i < n && argv[i]; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
}

/* The subexperiments made: M_r0.er ... (those that exist). */
static int count_ranks(const char *founder, FILE *f)
{
	char p[PATH_MAX + 32];
	struct stat st;
	int r, n = 0, miss = 0;

	for (r = 0; miss < 64; r++) {
		snprintf(p, sizeof(p), "%s/M_r%d.er", founder, r);
		if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
			miss++;
			continue;
		}
		miss = 0;
		n++;
		if (f)
			fprintf(f, "rank: %d M_r%d.er\n", r, r);
	}
	return n;
}

static int run_launcher(int argc, char **argv, struct rec_opts *o, int sep)
{
	char self[PATH_MAX], founder[PATH_MAX], abs[PATH_MAX], msg[PATH_MAX + 160];
	char **cmd, **opts = argv + 1, *prog;
	int nopts = o->argv - opts, nlaunch = sep, nprog, i, k, st, ret;
	struct exp_writer e;
	ssize_t n;
	pid_t pid;
	FILE *f;

	if (sep == 0) {
		fprintf(stderr, COLLECT ": -M: no launcher before '--' (lwprof collect -M on -o run.er mpirun -np 4 -- ./prog)\n");
		return 2;
	}
	prog = o->argv[sep + 1];
	if (!prog) {
		fprintf(stderr, COLLECT ": -M: no program after '--'\n");
		return 2;
	}
	if (check_prog(prog, o, msg, sizeof(msg))) {
		fprintf(stderr, COLLECT ": %s\n", msg);
		return 1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		perror(COLLECT ": /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	ret = exp_create(&e, o->dir, o->output, founder, sizeof(founder));
	if (ret) {
		if (ret == -EEXIST && o->output)
			fprintf(stderr, COLLECT ": %s already exists; choose another -o\n",
				founder);
		else
			fprintf(stderr, COLLECT ": cannot create %s: %s\n",
				founder, strerror(-ret));
		exp_free(&e);
		return 1;
	}
	if (!realpath(founder, abs)) {
		perror(COLLECT ": the founder experiment");
		exp_free(&e);
		return 1;
	}
	exp_free(&e);
	/* LAUNCHER ARGS lwprof collect OPTIONS -M FLAVOUR -o ABS PROG ARGS */
	for (nprog = 0; o->argv[sep + 1 + nprog]; nprog++)
		;
	cmd = calloc(nlaunch + nopts + nprog + 8, sizeof(*cmd));
	if (!cmd)
		return 1;
	k = 0;
	for (i = 0; i < nlaunch; i++)
		cmd[k++] = o->argv[i];
	cmd[k++] = self;
	cmd[k++] = "collect";
	for (i = 0; i < nopts; i++)
		cmd[k++] = opts[i];
	cmd[k++] = "-M";
	cmd[k++] = (char *)flavour_names[o->mpi];
	cmd[k++] = "-o";
	cmd[k++] = abs;
	for (i = 0; i < nprog; i++)
		cmd[k++] = o->argv[sep + 1 + i];
	cmd[k] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror(COLLECT ": fork");
		free(cmd);
		return 1;
	}
	if (!pid) {
		execvp(cmd[0], cmd);
		fprintf(stderr, COLLECT ": %s: %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* the terminal's ^C reaches the launcher, which ends the ranks */
	signal(SIGINT, SIG_IGN);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	signal(SIGINT, SIG_DFL);
	snprintf(msg, sizeof(msg), "%s/" FOUNDER_FILE, abs);
	f = fopen(msg, "we");
	if (f) {
		fprintf(f, "lwprof MPI experiment\n");
		fprintf(f, "mpi: %s\n", flavour_names[o->mpi]);
		put_argv(f, "launcher", o->argv, nlaunch);
		put_argv(f, "program", o->argv + sep + 1, nprog);
		if (WIFEXITED(st))
			fprintf(f, "exit: %d\n", WEXITSTATUS(st));
		else
			fprintf(f, "exit: signal %d\n", WTERMSIG(st));
		count_ranks(abs, f);
		fclose(f);
	}
	fprintf(stderr, COLLECT ": %s: %d ranks recorded (M_rN.er)\n", founder,
		count_ranks(abs, NULL));
	free(cmd);
	if (WIFEXITED(st))
		return WEXITSTATUS(st) ? WEXITSTATUS(st) : -1;
	return 128 + WTERMSIG(st);
}

int collect_mpi_prepare(int argc, char **argv, struct rec_opts *o)
{
	char msg[PATH_MAX + 160];
	int sep, err;

	if (o->mpi == MPI_OFF || !o->argv)
		return 0;
	sep = find_sep(o->argv);
	if (sep >= 0)
		return run_launcher(argc, argv, o, sep);
	err = check_prog(o->argv[0], o, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, COLLECT ": %s%s\n", msg,
			err == -ENOEXEC && collect_mpi_rank() < 0 ?
			" (a launcher? give it as LAUNCHER ARGS -- PROG ARGS)" : "");
		return 1;
	}
	return 0;
}
