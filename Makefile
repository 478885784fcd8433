# SPDX-License-Identifier: GPL-2.0
#
#   make              build lwprof.ko, the lwprof command and the tests
#   make unit         the unit tests alone: seconds, no root, no QEMU
#   make check        run every test, all tiers (the README's test command)
#   make install      install the command and the module (PREFIX, DESTDIR)
#   make uninstall    remove what make install put in place
#   make install-tools   the command, its man pages and bash completion only
#   make install-dkms    the module's source and dkms.conf under /usr/src
#   make deb          the Debian packages lwprof and lwprof-dkms (build/deb/)
#   make module       lwprof.ko for KDIR, failing when it does not build
#   make modules-all  lwprof.ko for every installed kernel (build/kmod/RELEASE/)

# The kernel: KDIR is the build tree make's lwprof.ko is built against,
# the running kernel's when its headers are installed, else the test
# guest's (scripts/kernels: pinned, never merely the newest installed).
# Each kernel's build is in build/kmod/RELEASE/ (scripts/build-kmod);
# lwprof.ko here is a copy of KDIR's.
GUEST_KVER := $(shell awk '$$1 !~ /^\#/ && $$2 == "guest" { print $$1 }' scripts/kernels)
KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; \
	  if [ -e $$d/Makefile ]; then echo $$d; \
	  else echo /lib/modules/$(GUEST_KVER)/build; fi)
KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	  $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The project's version (lwprof version): the packages' and dkms's too.
VERSION := $(shell sed -n 's/^\#define LWPROF_VERSION "\(.*\)"/\1/p' userspace/cmd/cmds.h)
DKMSDIR ?= /usr/src/lwprof-$(VERSION)
MAN_PAGES := $(sort $(wildcard man/*.1))
B := build

CC ?= cc
CFLAGS ?= -O2 -g
# Headers by path from the top (#include "libexp/reader.h"); a program's
# own directory only for its own objects.
LWPROF_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wno-unused-parameter -Iuapi -I. -MMD -MP

# The experiment library (libexp/): the format, its reader, the sample
# layout, the delta codec, the microstate names; both programs link it.
EXP_SRCS := $(sort $(wildcard libexp/*.c))
EXP_OBJS := $(EXP_SRCS:%.c=$(B)/%.o)
EXP_LIB := $(B)/libexp.a

# lwprof, in layers: userspace/{cmd,collect,backend}/, the backends
# in backend/{module,perf}/ (docs/design/overview.md).  collect drains the
# rings with io_uring and reads build-ids with libelf; ptime and top start
# without the analyzer's libraries.
USER_SRCS := $(sort $(wildcard userspace/*/*.c userspace/*/*/*.c))
USER_OBJS := $(USER_SRCS:%.c=$(B)/%.o)
LDLIBS := -luring -lelf -lz

# lwprof-print, the analyzer (lwprof print execs it), in layers:
# analyzer/{model,symbols,load,report,export,cmd}/ (docs/design/
# overview.md).  elfutils for symbols, lines and unwinding, capstone for
# -disasm, libstdc++ for __cxa_demangle, zlib for pprof's gzip.
ANA_SRCS := $(sort $(wildcard analyzer/*/*.c))
ANA_OBJS := $(ANA_SRCS:%.c=$(B)/%.o)
ANA_LDLIBS := -ldw -lelf -lcapstone -lstdc++ -lz

# Tests written in C: tests/{unit,host,guest}/NAME.c become
# build/tests/.../NAME (tests/run: the tiers).  Programs that exist only to
# be run or profiled by tests: tests/progs/.
TEST_SRCS := $(sort $(wildcard tests/unit/*.c tests/host/*.c tests/guest/*.c tests/progs/*.c))
TEST_BINS := $(TEST_SRCS:%.c=$(B)/%)

# liblwprof_trace.so, the tracing library collect -s/-H/-i preloads
# (trace/, docs/design/tracing.md): position-independent, only the interposed
# functions exported, with the file header code of libexp and its check
# of the programs it can enter.
TRACE_SRCS := $(sort $(wildcard trace/*.c ompt/*.c)) libexp/format.c libexp/traceable.c
TRACE_OBJS := $(TRACE_SRCS:%.c=$(B)/pic/%.o)
TRACE_LIB := $(B)/liblwprof_trace.so

all: kmod tools tests

# The module for KDIR.  In make (all) one that does not build stops
# nothing: the tools build without it and make check's tests say what
# failed; make module fails.
kmod:
	+@scripts/build-kmod -c lwprof.ko "$(KDIR)" || \
		echo "make: lwprof.ko did not build for $(KDIR); the tools did" >&2

module:
	+scripts/build-kmod -c lwprof.ko "$(KDIR)"

# Every installed kernel's headers (host/kmod_matrix checks them).
modules-all:
	+scripts/build-kmod

tools: $(B)/lwprof $(B)/lwprof-print $(TRACE_LIB) $(B)/liblwprof_collector.so

$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itrace $(CFLAGS) -fPIC -fvisibility=hidden \
		-fasynchronous-unwind-tables -c -o $@ $<

$(TRACE_LIB): $(TRACE_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ -lunwind -lz -ldl -lpthread

# liblwprof_jvmti.so, the JVMTI agent collect -j on loads into a JVM
# (jvmti/, docs/guide/java.md): built where a JDK's headers are, found
# from javac (openjdk-17-jdk-headless) or JDK_HOME; without them the
# tools build and the Java tests skip.
JDK_HOME ?= $(shell j=$$(readlink -f "$$(command -v javac)" 2>/dev/null) && \
	   [ -n "$$j" ] && dirname "$$(dirname "$$j")")
JVMTI_LIB := $(if $(wildcard $(JDK_HOME)/include/jvmti.h),$(B)/liblwprof_jvmti.so)
JVMTI_SRCS := $(sort $(wildcard jvmti/*.c)) libexp/format.c libexp/java.c
JVMTI_OBJS := $(JVMTI_SRCS:%.c=$(B)/jvmti-pic/%.o)
tools: $(JVMTI_LIB)
$(B)/jvmti-pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -I$(JDK_HOME)/include -I$(JDK_HOME)/include/linux \
		$(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(B)/liblwprof_jvmti.so: $(JVMTI_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ -ldl -lpthread -lrt
# The Java tests' workloads (tests/progs/java/), where javac is.
JAVAC := $(if $(JVMTI_LIB),$(JDK_HOME)/bin/javac)
JAVA_CLASSES := $(if $(JAVAC),$(patsubst tests/progs/java/%.java,$(B)/tests/progs/java/%.class,$(wildcard tests/progs/java/*.java)))
tests: $(JAVA_CLASSES)
$(B)/tests/progs/java/%.class: tests/progs/java/%.java
	@mkdir -p $(@D)
	$(JAVAC) -g -d $(@D) $<

# The collector API (include/lwprof/collector.h) for programs to link, and
# the signal handlers collect -l / -y preload into the target.
$(B)/liblwprof_collector.so: collector/collector.c collector/proto.h \
		include/lwprof/collector.h
	$(CC) $(LWPROF_CFLAGS) $(CFLAGS) -fPIC -shared -fvisibility=hidden \
		-Wl,-soname,liblwprof_collector.so -o $@ $<

# The MPI tracing library collect -M preloads after the tracing one
# (mpi/, docs/guide/mpi.md): one per MPI implementation installed (their
# handles differ), built by its own compiler wrapper; the wrappers of the
# functions that need only their time are written from its mpi.h
# (mpi/gen.awk).  MPI test programs: tests/progs/mpi/, one build each,
# bound at load (-z now): a first call's lazy binding would lie between
# the program's clock read and the wrapper's, in what the program timed
# (1.5 ms of a barrier's wait once, on a loaded machine).
MPI_FLAVOURS := $(foreach f,openmpi mpich,$(if $(shell command -v mpicc.$(f) 2>/dev/null),$(f)))
MPI_SRCS := $(sort $(wildcard mpi/*.c))
MPI_LIBS := $(MPI_FLAVOURS:%=$(B)/liblwprof_mpi_%.so)
MPI_PROGS := $(foreach f,$(MPI_FLAVOURS),$(patsubst tests/progs/mpi/%.c,$(B)/tests/progs/mpi/$(f)/%,$(wildcard tests/progs/mpi/*.c)))
MPI_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wno-unused-parameter -Wno-deprecated-declarations -Iuapi -I.
.PRECIOUS: $(B)/mpi/%/gen.c
$(B)/mpi/%/gen.c: mpi/gen.awk libexp/mpi_funcs.h
	@mkdir -p $(@D)
	echo '#include <mpi.h>' | mpicc.$* -E -P -x c - | \
		awk -f mpi/gen.awk libexp/mpi_funcs.h - >$@.tmp
	mv $@.tmp $@
$(B)/liblwprof_mpi_%.so: $(MPI_SRCS) $(B)/mpi/%/gen.c mpi/lwmpi.h trace/mpi.h \
		trace/trace.h libexp/mpi.h libexp/mpi_funcs.h
	mpicc.$* $(MPI_CFLAGS) -Impi $(CFLAGS) -fPIC -shared -fvisibility=hidden \
		-fasynchronous-unwind-tables -o $@ $(MPI_SRCS) $(B)/mpi/$*/gen.c -ldl
$(B)/tests/progs/mpi/openmpi/%: tests/progs/mpi/%.c tests/progs/mpi/mpitest.h
	@mkdir -p $(@D)
	mpicc.openmpi $(MPI_CFLAGS) $(CFLAGS) -fno-omit-frame-pointer -Wl,-z,now -o $@ $< -lm
$(B)/tests/progs/mpi/mpich/%: tests/progs/mpi/%.c tests/progs/mpi/mpitest.h
	@mkdir -p $(@D)
	mpicc.mpich $(MPI_CFLAGS) $(CFLAGS) -fno-omit-frame-pointer -Wl,-z,now -o $@ $< -lm
# Fortran's bindings: tests/progs/mpi/mpi_fortran.F90, built with the mpi
# module, and with mpi_f08 (-DMPI_F08) as mpi_fortran_f08
MPI_FPROGS := $(foreach f,$(MPI_FLAVOURS),$(addprefix $(B)/tests/progs/mpi/$(f)/,mpi_fortran mpi_fortran_f08))
$(B)/tests/progs/mpi/%/mpi_fortran: tests/progs/mpi/mpi_fortran.F90
	@mkdir -p $(@D)
	cd $(@D) && mpif90.$* -O2 -g -o $(@F) $(abspath $<)
$(B)/tests/progs/mpi/%/mpi_fortran_f08: tests/progs/mpi/mpi_fortran.F90
	@mkdir -p $(@D)
	cd $(@D) && mpif90.$* -O2 -g -DMPI_F08 -o $(@F) $(abspath $<)
tools: $(MPI_LIBS)
tests: $(MPI_PROGS) $(MPI_FPROGS)

# OpenMP test programs (tests/progs/omp/), for the guest's tests: built
# by clang on LLVM's libomp where both are installed (the host tests
# build their own, and skip without them), bound at load as the MPI ones.
OMP_CC := $(if $(wildcard /usr/lib/llvm-*/lib/libomp.so),$(shell command -v clang 2>/dev/null))
OMP_PROGS := $(if $(OMP_CC),$(patsubst tests/progs/omp/%.c,$(B)/tests/progs/omp/%,$(wildcard tests/progs/omp/*.c)))
$(B)/tests/progs/omp/%: tests/progs/omp/%.c tests/progs/omp/truth.h
	@mkdir -p $(@D)
	$(OMP_CC) -g -O1 -fopenmp -Wl,-z,now -o $@ $<
tests: $(OMP_PROGS)

tests: $(TEST_BINS) $(B)/tests/data/cold.bin

$(EXP_LIB): $(EXP_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/lwprof: $(USER_OBJS) $(EXP_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/lwprof-print: $(ANA_OBJS) $(EXP_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ANA_LDLIBS)

# The html export's page (analyzer/export/html/: script, style, body),
# built into lwprof-print as C strings by scripts/embed-c.
HTML_DIR := analyzer/export/html
HTML_PAGE := $(HTML_DIR)/report.js $(HTML_DIR)/report.css $(HTML_DIR)/report.html
$(B)/analyzer-html.c: $(HTML_PAGE) scripts/embed-c
	@mkdir -p $(@D)
	scripts/embed-c an_html_js $(HTML_DIR)/report.js an_html_css \
		$(HTML_DIR)/report.css an_html_body $(HTML_DIR)/report.html >$@.tmp
	mv $@.tmp $@
$(B)/analyzer-html.o: $(B)/analyzer-html.c
	$(CC) $(CFLAGS) -c -o $@ $<
$(B)/lwprof-print: $(B)/analyzer-html.o

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/%.c tests/lib/test.h tests/lib/mstate.h tests/lib/mslot.h tests/lib/ring.h tests/lib/ksyms.h \
		tests/lib/peer.h tests/lib/sdelta_enc.h tests/lib/recfile.h
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< -lpthread $(TEST_LDLIBS)

# trace_tstack includes the tracing library's trace/stack.c (its three
# comparisons) and reads the copies back with libexp.
$(B)/tests/unit/trace_tstack: tests/unit/trace_tstack.c trace/stack.c trace/trace.h \
		tests/lib/test.h $(EXP_LIB)
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< $(EXP_LIB)

# collect_source runs lwprof collect's loop (collect_run) with a recording
# source of its own, perf_convert the perf source's converter on perf
# rings of its own, flight_window the flight recorder on rings of its own:
# they link collect's objects.
COLLECT_OBJS := $(filter-out $(B)/userspace/cmd/main.o,$(USER_OBJS))
$(B)/tests/unit/collect_source $(B)/tests/unit/perf_convert $(B)/tests/unit/flight_window: \
		$(B)/tests/unit/%: \
		tests/unit/%.c tests/lib/test.h $(COLLECT_OBJS) $(EXP_LIB)
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(COLLECT_OBJS) $(EXP_LIB) -lpthread $(LDLIBS)

# Sampling tests and their workloads know their call chains: frame
# pointers, and symbols for dladdr().
$(B)/tests/guest/sample_% $(B)/tests/progs/smp_%: CFLAGS += -fno-omit-frame-pointer -rdynamic
$(B)/tests/guest/sample_life: TEST_LDLIBS = -luring
$(B)/tests/guest/mstate_ioworker: TEST_LDLIBS = -luring

# A 32 MiB file for the page-fault tests; the guest reads it from the host
# (9p), so dropping the guest's page cache makes it cold again.
$(B)/tests/data/cold.bin:
	@mkdir -p $(@D)
	head -c 32M /dev/urandom >$@.tmp && mv $@.tmp $@

# Workloads of the analyzer's tests: the worked example keeps every
# call's frame; the unwinding target has no frame pointers; the lines
# target is DWARF 5 (gcc 12's default, said explicitly) and a DWARF 4 copy.
$(B)/tests/progs/seed_example $(B)/tests/progs/zero_reader $(B)/tests/progs/spin_nap $(B)/tests/progs/epilogue_spin $(B)/tests/progs/deep_fp: CFLAGS += -fno-omit-frame-pointer -fno-optimize-sibling-calls
# The worked example also measures its functions' CPU time itself
# (tests/lib/seed_truth.h), its source untouched: the analyzer's golden
# tests show that source beside a prebuilt copy's lines.
$(B)/tests/progs/seed_example: tests/lib/seed_truth.h
$(B)/tests/progs/seed_example: CFLAGS += -finstrument-functions \
	-finstrument-functions-exclude-function-list=work \
	-include tests/lib/seed_truth.h -rdynamic
$(B)/tests/progs/qsort_unwind $(B)/tests/progs/deep_recurse $(B)/tests/progs/unwind_sampler: CFLAGS += -fomit-frame-pointer
# ... and libunwind's walk, as the tracing library's of a heap call
$(B)/tests/progs/qsort_unwind: TEST_LDLIBS = -lunwind
# The PLT unwinding test's second build: IBT PLT entries (.plt.sec, and
# the .plt's lazy part with endbr64 first), as -fcf-protection toolchains
# make them.
$(B)/tests/progs/unwind_sampler_ibt: tests/progs/unwind_sampler.c tests/lib/capture.h
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) -fomit-frame-pointer \
		-fcf-protection -Wl,-z,ibtplt -o $@ $<
tests: $(B)/tests/progs/unwind_sampler_ibt
# The collector API's test program links liblwprof_collector.so as a
# user's would (-I include, -L, -l, and finds it beside itself).
$(B)/tests/progs/phases: tests/progs/phases.c include/lwprof/collector.h \
		$(B)/liblwprof_collector.so
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) $(CFLAGS) -fno-omit-frame-pointer -Iinclude -o $@ $< \
		-L$(B) -llwprof_collector -Wl,-rpath,'$$ORIGIN/../..'
# Tracing's workloads (docs/design/tracing.md) count their own calls: the
# compiler must neither drop a malloc/free pair nor turn a call into a jump.
$(B)/tests/progs/trace_%: CFLAGS += -fno-builtin -fno-optimize-sibling-calls
$(B)/tests/progs/trace_static: LDFLAGS += -static
# exp_untraceable's test (tests/unit/traceable) against the kernel: a
# program that prints what its exec gave it, dynamic and static.
$(B)/tests/progs/at_secure_static: tests/progs/at_secure.c
	$(CC) $(LWPROF_CFLAGS) $(CFLAGS) -static -o $@ $<
tests: $(B)/tests/progs/at_secure_static
$(B)/tests/unit/traceable: $(EXP_LIB)
$(B)/tests/unit/traceable: TEST_LDLIBS = $(EXP_LIB)
# The unit tests of libexp (tests/run -U) link it.
EXP_UNITS := $(B)/tests/unit/exp_log $(B)/tests/unit/exp_files \
	$(B)/tests/unit/reader $(B)/tests/unit/stack $(B)/tests/unit/java_records \
	$(B)/tests/unit/mpi_records $(B)/tests/unit/omp_records
$(EXP_UNITS): $(EXP_LIB)
$(EXP_UNITS): TEST_LDLIBS = $(EXP_LIB)
# ... and the analyzer's, its layers but its command.
ANA_LIB_OBJS := $(filter-out $(B)/analyzer/cmd/%,$(ANA_OBJS)) $(B)/analyzer-html.o
$(B)/tests/unit/metrics: tests/unit/metrics.c tests/lib/test.h $(ANA_LIB_OBJS) $(EXP_LIB)
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(ANA_LIB_OBJS) $(EXP_LIB) $(ANA_LDLIBS)
$(B)/tests/progs/lines_example: CFLAGS += -gdwarf-5
$(B)/tests/progs/lines_example_dw4: tests/progs/lines_example.c
	$(CC) $(LWPROF_CFLAGS) $(CFLAGS) -gdwarf-4 -o $@ $<
tests: $(B)/tests/progs/lines_example_dw4
# The kernel debug image stand-in: "vmlinux" (a program at fixed link
# addresses, no optimizing) and the same code as a module's relocatable
# .ko, a section per function.
$(B)/tests/progs/kdbg_kernel: CFLAGS += -O0 -no-pie
$(B)/tests/progs/kdbg_kernel.ko: tests/progs/kdbg_kernel.c
	$(CC) $(LWPROF_CFLAGS) $(CFLAGS) -O0 -ffunction-sections -c -o $@ $<
tests: $(B)/tests/progs/kdbg_kernel.ko

# The synthetic-experiment generator (tests/lib/gen_*.c).
GEN_SRCS := $(sort $(wildcard tests/lib/gen_*.c))
$(B)/tests/lib/gen_exp: $(GEN_SRCS) tests/lib/gen_exp.h tests/lib/capture.h tests/lib/sdelta_enc.h $(EXP_LIB)
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) -o $@ $(GEN_SRCS) $(EXP_LIB) -ldw -lelf -lcapstone -lz
tests: $(B)/tests/lib/gen_exp

# The ABI header must compile on its own with no implicit padding.
$(B)/tests/unit/uapi_layout: LWPROF_CFLAGS += -Wpadded

# A stand-in for the module's microstate ioctls (LD_PRELOAD), for host tests
# of lwprof ptime and top.
TEST_LIBS := $(B)/tests/lib/fake_lwprof.so
tests: $(TEST_LIBS)

# Its rings and samples (for lwprof collect and dump) are in fake_ring.c,
# scripted processes and mappings in fake_maps.c.
$(B)/tests/lib/fake_lwprof.so: tests/lib/fake_lwprof.c tests/lib/fake_ring.c \
		tests/lib/fake_maps.c \
		tests/lib/fake_lwprof.h uapi/lwprof.h uapi/lwprof_record.h
	@mkdir -p $(@D)
	$(CC) $(LWPROF_CFLAGS) -Itests/lib $(CFLAGS) -shared -fPIC -o $@ \
		$(filter %.c,$^) -ldl -lpthread

# The guest matrix boots kernels besides KDIR's with their own build.
check: all
	+-@scripts/build-kmod -q
	tests/run

# The unit tier (tests/run -U): what it tests needs no module, so neither
# does it build one.
unit: tools tests
	tests/run -U

install: all module install-tools
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(B)/kmod/$(KVER) INSTALL_MOD_DIR=extra modules_install
	@[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

install-tools: tools
	install -D -m 0755 $(B)/lwprof $(DESTDIR)$(BINDIR)/lwprof
	install -D -m 0755 $(B)/lwprof-print $(DESTDIR)$(LIBEXECDIR)/lwprof/lwprof-print
	install -D -m 0755 $(TRACE_LIB) $(DESTDIR)$(LIBEXECDIR)/lwprof/liblwprof_trace.so
	$(foreach l,$(MPI_LIBS) $(JVMTI_LIB),install -D -m 0755 $(l) $(DESTDIR)$(LIBEXECDIR)/lwprof/$(notdir $(l));)
	install -D -m 0755 $(B)/liblwprof_collector.so $(DESTDIR)$(LIBDIR)/liblwprof_collector.so
	install -D -m 0644 include/lwprof/collector.h $(DESTDIR)$(INCLUDEDIR)/lwprof/collector.h
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -D -m 0644 completion/lwprof.bash $(DESTDIR)$(BASHCOMPDIR)/lwprof

# What dkms builds the module from (dkms.conf, Kbuild, kmod/, uapi/), with
# dkms.conf's #MODULE_VERSION# set (dh_dkms -V does the same).
install-dkms:
	install -d $(DESTDIR)$(DKMSDIR)/kmod $(DESTDIR)$(DKMSDIR)/uapi
	install -m 0644 Kbuild $(DESTDIR)$(DKMSDIR)/
	install -m 0644 kmod/*.c kmod/*.h $(DESTDIR)$(DKMSDIR)/kmod/
	install -m 0644 uapi/*.h $(DESTDIR)$(DKMSDIR)/uapi/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DESTDIR)$(DKMSDIR)/dkms.conf

deb:
	scripts/build-deb

print-version:
	@echo $(VERSION)

# The optional libraries this machine builds (MPI wrappers, JVMTI agent).
print-optional-libs:
	@echo $(notdir $(MPI_LIBS) $(JVMTI_LIB))

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lwprof
	rm -f $(DESTDIR)$(LIBEXECDIR)/lwprof/lwprof-print
	rm -f $(DESTDIR)$(LIBDIR)/liblwprof_collector.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/lwprof/collector.h
	-rmdir $(DESTDIR)$(INCLUDEDIR)/lwprof 2>/dev/null
	rm -f $(DESTDIR)$(LIBEXECDIR)/lwprof/liblwprof_trace.so
	rm -f $(DESTDIR)$(LIBEXECDIR)/lwprof/liblwprof_mpi_*.so
	rm -f $(DESTDIR)$(LIBEXECDIR)/lwprof/liblwprof_jvmti.so
	-rmdir $(DESTDIR)$(LIBEXECDIR)/lwprof 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	rm -f $(DESTDIR)$(BASHCOMPDIR)/lwprof
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/lwprof.ko*
	@[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

clean:
	-[ ! -d "$(KDIR)" ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(B)/kmod lwprof.ko
	rm -rf $(B)/userspace $(B)/analyzer $(B)/libexp $(B)/tests $(B)/lwprof \
		$(B)/lwprof-print $(B)/liblwprof_collector.so $(EXP_LIB) $(B)/deb tests/out $(B)/analyzer-html.[co]

-include $(USER_OBJS:.o=.d) $(ANA_OBJS:.o=.d) $(EXP_OBJS:.o=.d) $(TEST_BINS:%=%.d)
-include $(TRACE_OBJS:.o=.d)

.PHONY: all kmod module modules-all tools tests unit check install install-tools install-dkms deb print-version print-optional-libs uninstall clean
