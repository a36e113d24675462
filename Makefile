# mpilens — top-level build.
#
#   make                      build the tool and one runtime per installed MPI
#                             (a shared library to preload or link, and an archive)
#   make install PREFIX=DIR   install DIR/bin/mpilens and DIR/lib/mpilens/*
#   make test                 run the test suite (tests/run)
#   make bench                run the benchmarks (bench/run)
#   make fuzz                 fuzz the rank-file reader and the analysis for 60 s (clang)
#
# The wrappers are generated here, from the mpi.h and the libraries of the
# MPI installed on this machine (runtime/gen/genwrap.py); they go to build/.

PREFIX ?= /usr/local
B := build
CC ?= gcc
PYTHON ?= python3
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation
RT_CFLAGS := $(CFLAGS) $(WARN) -Wno-deprecated-declarations -fPIC -fvisibility=default -fno-plt -fno-semantic-interposition -std=gnu11 -D_GNU_SOURCE
TOOL_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iformat -Itool -Ilive -Ianalysis

# ---- Open MPI ----------------------------------------------------------
OMPI_CC := $(shell command -v mpicc.openmpi 2>/dev/null)
ifneq ($(OMPI_CC),)
OMPI_INC := $(firstword $(shell mpicc.openmpi --showme:incdirs))
OMPI_LIB := $(firstword $(shell mpicc.openmpi --showme:libdirs))
OMPI_FLIBS := $(foreach l,mpi_mpifh mpi_usempif08 mpi_usempi_ignore_tkr,$(wildcard $(OMPI_LIB)/lib$(l).so))
RUNTIMES += $(B)/lib/mpilens/libmpilens-openmpi.so $(B)/lib/mpilens/libmpilens-openmpi.a $(B)/lib/mpilens/mpilens-pingpong-openmpi
ENGINES += $(B)/bin/mpilens-mpi-openmpi
endif

# ---- MPICH -------------------------------------------------------------
MPICH_CC := $(shell command -v mpicc.mpich 2>/dev/null)
ifneq ($(MPICH_CC),)
MPICH_INC := $(patsubst -I%,%,$(filter -I%,$(shell mpicc.mpich -show)))
MPICH_LIB := $(patsubst -L%,%,$(filter -L%,$(shell mpicc.mpich -show)))
MPICH_FLIBS := $(wildcard $(MPICH_LIB)/libmpichfort.so)
RUNTIMES += $(B)/lib/mpilens/libmpilens-mpich.so $(B)/lib/mpilens/libmpilens-mpich.a $(B)/lib/mpilens/mpilens-pingpong-mpich
ENGINES += $(B)/bin/mpilens-mpi-mpich
endif

TOOL_SRC := $(wildcard tool/*.c) $(wildcard live/*.c) $(wildcard format/*.c) $(wildcard analysis/*.c)
# C++ names are demangled by libstdc++ (format/demangle.cc, the tool's only C++)
TOOL_CXX_SRC := $(wildcard format/*.cc)
CXX ?= g++
TOOL_HDR := $(wildcard tool/*.h) $(wildcard live/*.h) $(wildcard format/*.h) $(wildcard analysis/*.h)

# OTF2 export (only the tool links libotf2; without it --format=otf2 says so)
OTF2_LIBS := $(shell pkg-config --libs otf2 2>/dev/null)
ifeq ($(OTF2_LIBS),)
TOOL_CFLAGS += -DML_NO_OTF2
else
TOOL_CFLAGS += $(shell pkg-config --cflags otf2 2>/dev/null)
endif
RT_SRC := runtime/rt.c runtime/failsafe.c runtime/requests.c runtime/python.c

all: $(B)/bin/mpilens $(RUNTIMES) $(ENGINES)

$(B)/obj/tool/demangle.o: format/demangle.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) $(WARN) -c -o $@ $<

# The page of `mpilens view`: views/ inlined into one C file (never committed)
VIEW_SRC := $(wildcard views/*.html) $(wildcard views/*.js) $(wildcard views/*.css)
$(B)/gen/views.c: views/embed.py $(VIEW_SRC)
	@mkdir -p $(dir $@)
	$(PYTHON) views/embed.py views $@

$(B)/bin/mpilens: $(TOOL_SRC) $(TOOL_HDR) $(B)/obj/tool/demangle.o $(B)/gen/views.c
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -o $@ $(TOOL_SRC) $(B)/gen/views.c $(B)/obj/tool/demangle.o -ldw -lelf -lm -lz -lstdc++ $(OTF2_LIBS)

# The parallel analysis, one per MPI (docs/PARALLEL.md): the same tool with
# the MPI exchange and its own main; `mpilens` execs it when mpirun starts
# it as several processes.
ENGINE_SRC := tool/mpi/engine.c analysis/mpi/exchange_mpi.c
$(B)/bin/mpilens-mpi-openmpi: $(TOOL_SRC) $(TOOL_HDR) $(ENGINE_SRC) $(B)/obj/tool/demangle.o $(B)/gen/views.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) mpicc.openmpi $(TOOL_CFLAGS) -DML_MPI_ENGINE -o $@ $(TOOL_SRC) $(ENGINE_SRC) $(B)/gen/views.c \
	  $(B)/obj/tool/demangle.o -ldw -lelf -lm -lz -lstdc++ $(OTF2_LIBS)

$(B)/bin/mpilens-mpi-mpich: $(TOOL_SRC) $(TOOL_HDR) $(ENGINE_SRC) $(B)/obj/tool/demangle.o $(B)/gen/views.c
	@mkdir -p $(dir $@)
	MPICH_CC=$(CC) mpicc.mpich $(TOOL_CFLAGS) -DML_MPI_ENGINE -o $@ $(TOOL_SRC) $(ENGINE_SRC) $(B)/gen/views.c \
	  $(B)/obj/tool/demangle.o -ldw -lelf -lm -lz -lstdc++ $(OTF2_LIBS)

$(B)/gen/wrap-openmpi.c: runtime/gen/genwrap.py
	@mkdir -p $(dir $@)
	$(PYTHON) runtime/gen/genwrap.py --impl openmpi --cc "mpicc.openmpi" --header $(OMPI_INC)/mpi.h \
	  --clib $(OMPI_LIB)/libmpi.so $(addprefix --flib ,$(OMPI_FLIBS)) --out $@ --list $(B)/gen/wrapped-openmpi.txt

$(B)/gen/wrap-mpich.c: runtime/gen/genwrap.py
	@mkdir -p $(dir $@)
	$(PYTHON) runtime/gen/genwrap.py --impl mpich --cc "mpicc.mpich" --header $(MPICH_INC)/mpi.h \
	  --clib $(MPICH_LIB)/libmpich.so $(addprefix --flib ,$(MPICH_FLIBS)) --out $@ --list $(B)/gen/wrapped-mpich.txt

# Each runtime source compiled to its own object (per MPI and per kind:
# shared object or archive), so that a change to rt.c does not recompile
# the generated wrappers (minutes each); a change to a header does.
RT_HDR := runtime/rt.h runtime/rt_more.h format/mlformat.h
RT_AR_CFLAGS := $(RT_CFLAGS) -fno-reorder-functions -fno-reorder-blocks-and-partition
# rt_objs IMPL CCVAR KIND FLAGS: the rules for $(B)/obj/KIND-IMPL/*.o
define rt_objs
$(B)/obj/$(3)-$(1)/%.o: runtime/%.c $(RT_HDR)
	@mkdir -p $$(dir $$@)
	$(2)=$(CC) mpicc.$(1) $(4) -Iruntime -DML_IMPL='"$(1)"' -c -o $$@ $$<
$(B)/obj/$(3)-$(1)/wrap-$(1).o: $(B)/gen/wrap-$(1).c $(RT_HDR)
	@mkdir -p $$(dir $$@)
	$(2)=$(CC) mpicc.$(1) $(4) -Iruntime -DML_IMPL='"$(1)"' -c -o $$@ $$<
endef
$(eval $(call rt_objs,openmpi,OMPI_CC,so,$(RT_CFLAGS)))
$(eval $(call rt_objs,mpich,MPICH_CC,so,$(RT_CFLAGS)))
$(eval $(call rt_objs,openmpi,OMPI_CC,ar,$(RT_AR_CFLAGS)))
$(eval $(call rt_objs,mpich,MPICH_CC,ar,$(RT_AR_CFLAGS)))
rt_obj = $(patsubst runtime/%.c,$(B)/obj/$(2)-$(1)/%.o,$(RT_SRC)) $(B)/obj/$(2)-$(1)/wrap-$(1).o

$(B)/lib/mpilens/libmpilens-openmpi.so: $(call rt_obj,openmpi,so)
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) mpicc.openmpi $(RT_CFLAGS) -shared -o $@ $^ -Wl,-soname,libmpilens-openmpi.so -ldl -lpthread

$(B)/lib/mpilens/libmpilens-mpich.so: $(call rt_obj,mpich,so)
	@mkdir -p $(dir $@)
	MPICH_CC=$(CC) mpicc.mpich $(RT_CFLAGS) -shared -o $@ $^ -Wl,-soname,libmpilens-mpich.so -ldl -lpthread

# The same runtime as a static archive, for linking it into a program
# explicitly (before the MPI library; needed where the program links MPI
# statically).  One relocatable object, so that a link takes all of it;
# its code in one section of its own, mpilens_text, so that the failure
# backtraces can still tell the runtime's frames from the program's
# (__start_/__stop_mpilens_text, runtime/failsafe.c).
define rt_archive
	@mkdir -p $(dir $@)
	rm -f $@
	ld -r -o $(B)/obj/ar-$(1)/all.o $^
	objcopy $$(objdump -h $(B)/obj/ar-$(1)/all.o | awk '$$2 ~ /^\.text/ { printf " --rename-section %s=mpilens_text", $$2 }') \
	  $(B)/obj/ar-$(1)/all.o $(B)/obj/ar-$(1)/libmpilens-$(1).o
	ar rcs $@ $(B)/obj/ar-$(1)/libmpilens-$(1).o
	rm -f $(B)/obj/ar-$(1)/all.o $(B)/obj/ar-$(1)/libmpilens-$(1).o
endef

$(B)/lib/mpilens/libmpilens-openmpi.a: $(call rt_obj,openmpi,ar)
	$(call rt_archive,openmpi)

$(B)/lib/mpilens/libmpilens-mpich.a: $(call rt_obj,mpich,ar)
	$(call rt_archive,mpich)

# The ping-pong of `mpilens calibrate`, one per MPI (tool/calibrate/)
$(B)/lib/mpilens/mpilens-pingpong-openmpi: tool/calibrate/pingpong.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) mpicc.openmpi -O2 -o $@ $<

$(B)/lib/mpilens/mpilens-pingpong-mpich: tool/calibrate/pingpong.c
	@mkdir -p $(dir $@)
	MPICH_CC=$(CC) mpicc.mpich -O2 -o $@ $<

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/mpilens $(DESTDIR)$(PREFIX)/include
	install -m 755 $(B)/bin/mpilens $(DESTDIR)$(PREFIX)/bin/mpilens
	$(if $(ENGINES),install -m 755 $(ENGINES) $(DESTDIR)$(PREFIX)/bin/)
	install -m 755 $(filter %.so,$(RUNTIMES)) $(DESTDIR)$(PREFIX)/lib/mpilens/
	install -m 644 $(filter %.a,$(RUNTIMES)) $(DESTDIR)$(PREFIX)/lib/mpilens/
	install -m 755 $(filter %-openmpi %-mpich,$(RUNTIMES)) $(DESTDIR)$(PREFIX)/lib/mpilens/
	install -m 644 format/mlformat.h $(DESTDIR)$(PREFIX)/include/mlformat.h

test: all
	tests/run

bench: all
	bench/run

fuzz:
	tests/fuzz/run_fuzz.sh 60

clean:
	rm -rf $(B)

.PHONY: all install test bench fuzz clean
