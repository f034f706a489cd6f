#!/usr/bin/env python3
"""Run MPICH's own test suite (test/mpi of MPICH 4.0.2) natively and under wisp.

The suite is fetched at test time (tools/conformance_fetch.sh), configured
once per MPI, built natively with the MPI's plain compilers (C and
Fortran), and run by its own driver, runtests, once natively and once per
wisp setting, with wisprun as the launcher (tools/conformance_launch.sh). A
test that passes natively must pass in every setting, unless
tests/conformance/expected-failures.txt lists it with a reason; a test that
fails natively is not wisp's concern.
Exit status: 0 when there is no unexpected failure, 1 otherwise.
"""
import argparse
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")

# What is run: `ci` is the part `make check` runs (2 processes at most: the
# machine has 2 cores and MPI processes spin); `gate` is `make conformance`,
# the directories wisp's correctness is judged by, every test of more
# processes run with 2 where it allows that, except in the directories of
# `own_np`, whose tests keep their own count up to the number given (threads:
# a hang between several threads of several processes needs 3 or 4 to show);
# `full` is every directory.
SUBSETS = {
    "ci": {"dirs": ["pt2pt", "coll", "comm", "rma", "datatype", "group"], "maxnp": 2,
           "settings": ["wisp", "vnode1"], "limit": 60},
    "gate": {"dirs": ["pt2pt", "coll", "comm", "group", "rma", "datatype", "errhan", "threads",
                      "attr", "info", "init", "topo", "io", "f77", "f90", "f08"],
             "maxnp": None, "fewer": 2, "own_np": {"threads": 4},
             "settings": ["wisp", "vnode2", "vnode1", "ghosts1"], "limit": 180},
    "full": {"dirs": None, "maxnp": None, "settings": ["wisp", "vnode2", "vnode1", "ghosts1"],
             "limit": 180},
}

# Setting name -> (WISP_* variables, ghosts per node, directories it applies to).
SETTINGS = {
    "wisp": ([], 0, None),
    "vnode2": (["WISP_VNODE_SIZE=2"], 0, None),
    "vnode1": (["WISP_VNODE_SIZE=1"], 0, None),
    # Ghosts serve windows on MPICH; everywhere else the program's world
    # must hide them (communicators, groups, errors, collectives).
    "ghosts1": (["WISP_GHOSTS=1", "WISP_ASYNC=on"], 1, None),
    # Operations always to the ghosts (ghosts1, above), routes decided from
    # profiles (the default) and all direct, where routes matter.
    "ghosts1_auto": (["WISP_GHOSTS=1", "WISP_ASYNC=auto"], 1, ["rma"]),
    "ghosts1_off": (["WISP_GHOSTS=1", "WISP_ASYNC=off"], 1, ["rma"]),
    # Windows served where the MPI needs no help of the target (Open MPI's
    # osc/rdma), as a user may ask.
    "ghosts1_on": (["WISP_GHOSTS=1", "WISP_GHOST_WINDOWS=on"], 1, ["rma"]),
}
MPIS = {
    "mpich": {"configure": [], "settings": None},
    # Open MPI: only what the standard defines; ghosts only where asked to
    # serve its windows (by default they serve MPICH's).
    # The suite's dtpools library calls two MPI-1 functions that Open MPI 4.1
    # no longer has (its mpi.h turns them into a static assertion, and no
    # test can be built): their MPI-2 names take the same arguments.
    "openmpi": {"configure": ["--enable-strictmpi",
                              "CPPFLAGS=-DOMPI_OMIT_MPI1_COMPAT_DECLS=1"
                              " -DMPI_Type_hindexed=MPI_Type_create_hindexed"
                              " -DMPI_Type_hvector=MPI_Type_create_hvector",
                              # the suite's Fortran passes one buffer as several types
                              "FFLAGS=-fallow-argument-mismatch",
                              "FCFLAGS=-fallow-argument-mismatch"],
                "settings": ["wisp", "vnode2", "vnode1", "ghosts1_on"]},
}
# The MPIs from PyPI (build/mpich5, build/openmpi5): configured with the
# wrappers of the wisp tree beside --wisprun (its CMakeCache's
# MPI_C_COMPILER, the Fortran wrappers beside it when they work; neither
# wheel ships any today, so the suite is C only there), with their family's
# options and settings.
# Their CI part (in their smoke set, make check-mpich5/-openmpi5) is
# smaller than Debian MPICH's, to keep make check within its time: CI_PYPI.
# Its two longest tests (rma_contig -iter=10000, 30 s natively, and
# large_acc_flush_local, 30-50 s) are left to the gate.
CI_PYPI = {"dirs": ["pt2pt", "coll", "comm", "rma", "datatype", "attr", "init"], "settings": ["wisp"],
           "leave_out": ["rma/rma_contig", "rma/large_acc_flush_local"]}
MPIS["mpich5"] = dict(MPIS["mpich"], tree=True, subsets={"ci": CI_PYPI})
# Open MPI 5.0.11's wheel: its osc/ucx says "OSC UCX component priority set
# inside component query failed" on stderr at every window's creation here,
# which fails every rma test natively (runtests wants "No Errors" alone), so
# the suite runs it with its other one-sided components (OMPI_MCA_osc=^ucx),
# natively and under wisp alike. Its CI part leaves out what hangs natively
# until the limit (cancelled sends and ctxalloc) and transpose7, whose get
# of a million 4-byte pieces osc/rdma queues one by one: natively it aborts
# or takes 16 GB in most runs, which may OOM-kill a neighbour.
CI_OMPI5 = dict(CI_PYPI, leave_out=CI_PYPI["leave_out"] + [
    "pt2pt/scancel", "pt2pt/pscancel", "pt2pt/cancelrecv", "comm/ctxalloc", "rma/transpose7"])
MPIS["openmpi5"] = dict(MPIS["openmpi"], tree=True, subsets={"ci": CI_OMPI5}, env={"OMPI_MCA_osc": "^ucx"})
# The MPI-5 standard ABI's build (build/abi): the suite built with its
# mpicc_abi, C programs of the ABI over MPICH 5 (the ABI has no Fortran).
# Its CI part: the directories where the ABI's handles and statuses meet
# wisp's own (the rest runs over the same MPICH 5 in mpich5's).
CI_ABI = dict(CI_PYPI, dirs=["pt2pt", "datatype", "rma"])
MPIS["abi"] = dict(MPIS["mpich"], tree=True, subsets={"ci": CI_ABI})
# Intel MPI from PyPI (make deps-impi; I_MPI_ROOT names another): no wisp
# tree of its own, libwisp-mpich serves it (--wisprun build/mpich/wisprun,
# which launches its programs with Intel's mpiexec); the suite is built with
# its mpicc and run over its shared-memory fabric.
IMPI_ROOT = os.environ.get("I_MPI_ROOT") or os.path.join(ROOT, "build", ".venv-mpis", "impi")
MPIS["impi"] = dict(MPIS["mpich"], bindir=os.path.join(IMPI_ROOT, "bin"), env={
    "I_MPI_FABRICS": "shm", "I_MPI_ROOT": IMPI_ROOT,
    "LD_LIBRARY_PATH": ":".join(filter(None, [os.path.join(IMPI_ROOT, "lib"),
                                              os.environ.get("LD_LIBRARY_PATH")]))})
FORTRAN_DIRS = ("f77", "f90", "f08")
FLOOR, SLOWER_OK = 30, 20
CONFIGURE = ["--enable-fortran=all", "--disable-cxx", "--enable-threads=multiple",
             "--disable-perftest", "--disable-ft-tests"]


def log(*args):
    print("conformance:", *args, flush=True)


def run(cmd, cwd=None, env=None, logfile=None):
    """Run cmd; its output goes to logfile (or through). Returns the exit status."""
    if logfile is None:
        return subprocess.call(cmd, cwd=cwd, env=env)
    with open(logfile, "w") as out:
        return subprocess.call(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)


def cmake_cache(tree, name):
    """The value of `name` in the CMakeCache.txt of the wisp build tree `tree`, or None."""
    try:
        with open(os.path.join(tree, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def fortran_works(fc, scratch):
    """Whether the Fortran wrapper fc builds a program that uses `use mpi`."""
    os.makedirs(scratch, exist_ok=True)
    src = os.path.join(scratch, "wisp_fortran_check.f90")
    with open(src, "w") as f:
        f.write("program p\n  use mpi\n  integer :: ierr\n  call MPI_Init(ierr)\n"
                "  call MPI_Finalize(ierr)\nend program p\n")
    return subprocess.call([fc, src, "-o", src[:-4]], cwd=scratch, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) == 0


def wrappers(args, build):
    """(cc, f77, fc) for the suite: Debian's mpicc.<mpi>, mpif77.<mpi> and
    mpif90.<mpi>, or for an MPI of its own tree (mpich5, openmpi5, abi) the tree's
    MPI_C_COMPILER, or the mpicc of an MPI's bindir (impi), and the Fortran
    wrappers beside it, (cc, None, None) when it has none that work."""
    mpi = MPIS[args.mpi]
    if mpi.get("bindir"):
        cc = os.path.join(mpi["bindir"], "mpicc")
        if not os.access(cc, os.X_OK):
            sys.exit("conformance: no %s: is %s installed (make deps-%s)?" % (cc, args.mpi, args.mpi))
    elif not mpi.get("tree"):
        return tuple(w + "." + args.mpi for w in ("mpicc", "mpif77", "mpif90"))
    else:
        tree = os.path.dirname(args.wisprun)
        cc = cmake_cache(tree, "MPI_C_COMPILER")
        if not cc or not os.access(cc, os.X_OK):
            sys.exit("conformance: no MPI_C_COMPILER in %s/CMakeCache.txt: is %s a wisp build tree of %s?"
                     % (tree, tree, args.mpi))
    bindir = os.path.dirname(cc)
    fc = next((os.path.join(bindir, w) for w in ("mpifort", "mpif90")
               if os.access(os.path.join(bindir, w), os.X_OK)), None)
    if fc is None or not fortran_works(fc, os.path.join(build, "wisp-fortran-check")):
        log("%s: %s for Fortran, so the suite is built without Fortran"
            % (args.mpi, "no working " + fc if fc else "no mpifort or mpif90 beside " + cc))
        return cc, None, None
    f77 = os.path.join(bindir, "mpif77")
    return cc, f77 if os.access(f77, os.X_OK) else fc, fc


def configure(suite, build, args):
    """Configure test/mpi in build (once; again when the options changed).
    Returns whether the suite has Fortran."""
    cc, f77, fc = wrappers(args, build)
    options = MPIS[args.mpi]["configure"]
    cmd = [os.path.join(suite, "configure"), "CC=" + cc, "MPICC=" + cc]
    if fc:
        cmd += ["F77=" + f77, "MPIF77=" + f77, "FC=" + fc, "MPIFC=" + fc] + CONFIGURE + options
    else:
        cmd += ["--disable-fortran"] + [o for o in CONFIGURE if not o.startswith("--enable-fortran")]
        cmd += [o for o in options if not o.startswith(("FFLAGS=", "FCFLAGS="))]
    stamp = os.path.join(build, "wisp-configure.stamp")
    if os.path.exists(stamp) and open(stamp).read() == " ".join(cmd):
        return bool(fc)
    os.makedirs(build, exist_ok=True)
    log("configuring MPICH's test suite for", args.mpi, "in", build)
    if run(cmd, cwd=build, logfile=os.path.join(build, "wisp-configure.log")) != 0:
        sys.exit("conformance: configure failed, see " + os.path.join(build, "wisp-configure.log"))
    with open(stamp, "w") as f:
        f.write(" ".join(cmd))
    return bool(fc)


def build_f08_library(build, logfile):
    """Outside an MPICH source tree configure leaves f08 out (it cannot tell
    whether the MPI has `use mpi_f08`; both MPIs here do) and with it the
    source of util/libmtest_f08.la, which the f08 tests link: name it."""
    run(["make", "libmtest_f08.la", "libmtest_f08_la_OBJECTS=mtest_f08.lo"],
        cwd=os.path.join(build, "util"), logfile=logfile)


def read_list(build, suite, rel):
    """The lines of rel/testlist: configure's output if it made one, else the source's."""
    for base in (build, suite):
        path = os.path.join(base, rel, "testlist")
        if os.path.exists(path):
            with open(path) as f:
                return [line.split("#")[0].strip() for line in f]
    return []


def line_key(rel, fields):
    """The name runtests gives the test of a testlist line ('dir/prog np args env')."""
    np = fields[1] if len(fields) > 1 and fields[1].isdigit() else "2"
    opts = [f.split("=", 1) for f in fields[2:] if "=" in f]
    return " ".join([rel + "/" + fields[0], np] + [v for k, v in opts if k == "arg"]
                    + [v for k, v in opts if k == "env"])


def select(build, suite, rel, listname, maxnp, tests, limits=None, fewer=None, leave_out=(), only=None):
    """Write rel/<listname>: rel/testlist without the tests above maxnp
    processes or named in leave_out ('dir/prog'), and where `only` (fnmatch
    patterns of 'dir/prog') is given without those it does not name; those
    above `fewer` run with `fewer`, recursively, with the time limits given
    per test; append the chosen tests to `tests`."""
    keep = []
    for line in read_list(build, suite, rel):
        if not line or rel + "/" + line.split()[0] in leave_out:
            continue
        name = rel + "/" + line.split()[0]
        if only and not line.startswith("!") and not os.path.isdir(os.path.join(build, name)) \
                and not any(fnmatch.fnmatchcase(name, o) for o in only):
            continue
        fields = line.split()
        if line.startswith("!"):
            keep.append(line)
        elif os.path.isdir(os.path.join(build, rel, fields[0])):
            select(build, suite, os.path.join(rel, fields[0]), listname, maxnp, tests, limits, fewer,
                   leave_out, only)
            keep.append(fields[0])
        else:
            np = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 2
            if fewer is not None and np > fewer and len(fields) > 1 and fields[1].isdigit():
                fields[1] = str(fewer)  # whether the test allows it shows natively
                line, np = " ".join(fields), fewer
            if maxnp is None or np <= maxnp:
                limit = (limits or {}).get(line_key(rel, fields))
                keep.append(line + (" timeLimit=%d" % limit if limit else ""))  # the last one counts
                tests.append((rel, fields[0]))
    with open(os.path.join(build, rel, listname), "w") as f:
        f.write("\n".join(keep) + "\n")


def test_key(name):
    """runtests names a test ' - ./dir/prog np args env': keep 'dir/prog np args env'."""
    name = re.sub(r"^\s*\d*\s*-\s*(\./)?", "", name)
    return " ".join(name.split())


CASE = re.compile(r'<testcase name="([^"]*)"(?: time="([^"]*)")?>\s*'
                  r'(?:<(failure|skipped)\b.*?<!\[CDATA\[(.*?)\]\]>\s*</\3>\s*)?</testcase>', re.S)


def parse_junit(path):
    """{test: (status, seconds, output)} with status pass, fail, timeout or skip.
    Read with a pattern, not an XML parser: a test's output may hold anything."""
    results = {}
    with open(path, errors="replace") as f:
        text = f.read()
    for name, seconds, tag, output in CASE.findall(text):
        key = test_key(name)
        status = {"failure": "fail", "skipped": "skip"}.get(tag, "pass")
        if status == "fail" and "conformance: TIMEOUT" in output:
            status = "timeout"
        n = 2
        while key in results:  # the same program and arguments twice in one list
            key, n = "%s #%d" % (key.split(" #")[0], n), n + 1
        results[key] = (status, float(seconds or 0), output)
    return results


class Progress:
    """Where the session is: the setting running, its place among them, and
    an estimate of what is left from the native run's time (a wisp setting
    runs the same tests, each limited to a few times its native time); a
    line every minute while runtests, which prints nothing per test, runs."""

    def __init__(self, settings):
        self.settings, self.index, self.native_s = settings, 0, None

    @staticmethod
    def clock(seconds):
        seconds = int(seconds)
        return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)

    def left(self, elapsed):
        """Seconds left in the session, or None before the native run's time is known."""
        if self.native_s is None:
            return None
        return max(0, self.native_s - elapsed) + self.native_s * (len(self.settings) - self.index)

    def begin(self, setting):
        self.index += 1
        left = self.left(0)
        log("setting %d/%d: %s%s" % (self.index, len(self.settings), setting,
                                     "" if left is None else ", about %s left (as natively)" % self.clock(left)))

    def tick(self, setting, elapsed):
        left = self.left(elapsed)
        log("  %s: %s so far%s" % (setting, self.clock(elapsed),
                                   "" if left is None else ", about %s left" % self.clock(left)))

    def end(self, setting, elapsed):
        if setting == "native":
            self.native_s = elapsed


def run_setting(args, build, dirs, listname, setting, outdir, progress=None):
    """Run the chosen tests with runtests in one setting; returns its results."""
    only = None if setting == "native" else SETTINGS[setting][2]
    run_dirs = [d for d in dirs if only is None or d in only]
    if not run_dirs:
        return None
    mpiexec = " ".join(shlex.quote(a) for a in launcher(args, setting))
    junit = os.path.join(outdir, setting + ".junit.xml")
    env = {k: v for k, v in os.environ.items() if not k.startswith("WISP_")}
    env["MPITEST_TIMEOUT"] = str(args.limit)
    cmd = ["perl", "runtests", "-srcdir=" + args.suite, "-tests=" + listname,
           "-testdirs=" + ",".join(run_dirs), "-mpiexec=" + mpiexec, "-junitfile=" + junit]
    start = time.time()
    if progress:
        progress.begin(setting)
    log("running %s (%s) ..." % (setting, ",".join(run_dirs)))
    done = threading.Event()
    if progress:
        def ticks():
            while not done.wait(60):
                progress.tick(setting, time.time() - start)
        threading.Thread(target=ticks, daemon=True).start()
    try:
        run(cmd, cwd=build, env=env, logfile=os.path.join(outdir, setting + ".log"))
    finally:
        done.set()
    if progress:
        progress.end(setting, time.time() - start)
    if not os.path.exists(junit):
        sys.exit("conformance: runtests wrote no results, see " + os.path.join(outdir, setting + ".log"))
    results = parse_junit(junit)
    passed = sum(1 for r in results.values() if r[0] == "pass")
    log("%s: %d of %d passed in %.0f s" % (setting, passed, len(results), time.time() - start))
    return results


def earlier_native(args, outdir, count, dirs):
    """With --reuse-native, the native results of an earlier run of this
    subset, those of the directories `dirs`, when they cover the `count`
    tests chosen now; else None."""
    junit = os.path.join(outdir, "native.junit.xml")
    if not args.reuse_native or not os.path.exists(junit):
        return None
    results = {t: r for t, r in parse_junit(junit).items() if any(t.startswith(d + "/") for d in dirs)}
    if len(results) != count:
        log("native: the earlier results hold %d tests, not %d: running them again" % (len(results), count))
        return None
    log("native: %d of %d passed in the earlier run (%s)" % (
        sum(1 for r in results.values() if r[0] == "pass"), len(results), junit))
    return results


def launcher(args, setting):
    """The command runtests uses as mpiexec in `setting`, as a list."""
    if setting == "native":
        wisp_env, ghosts = [], 0
    else:
        wisp_env, ghosts, _ = SETTINGS[setting]
    opts = ["--native"] if setting == "native" else []
    for kv in wisp_env:
        opts += ["--env", kv]
    return ["bash", os.path.join(TOOLS, "conformance_launch.sh"), args.wisprun, str(ghosts),
            str(args.limit)] + opts


def rerun(args, build, setting, test, limit):
    """Run one test again, alone, as runtests would: (passed, output). A
    test that failed once and passes alone is reported as flaky, not as a
    failure: two cores under load make the MPI's own time limits and UCX
    misbehave now and then (seen: bsendalign's timeout, lots_of_types'
    segfault inside UCX), which says nothing about wisp."""
    words = test.split(" #")[0].split()
    path, np = words[0], words[1]
    is_env = re.compile(r"^[A-Z_][A-Z0-9_]*=").match  # test_key puts env values after the args
    rest = [w for w in words[2:] if not is_env(w)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WISP_")}
    env.update(w.split("=", 1) for w in words[2:] if is_env(w))
    env["MPIEXEC_TIMEOUT"] = str(limit)
    cmd = launcher(args, setting) + ["-n", np, "./" + os.path.basename(path)] + rest
    try:
        out = subprocess.run(cmd, cwd=os.path.join(build, os.path.dirname(path)), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", timeout=limit + 90)
    except subprocess.TimeoutExpired:
        return False, "conformance: TIMEOUT on the second run"
    # As runtests judges: "No Errors" once, and no other output.
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    passed = len(lines) == 1 and re.match(r"^\s*No [Ee]rrors\s*$", lines[0]) is not None
    return out.returncode == 0 and passed, out.stdout


def setting_limits(limits, setting):
    """The time limits under `setting`: runtests' assume a core per process,
    so a test whose processes and ghosts outnumber the cores (2 processes
    and a ghost on 2 cores) gets proportionally more."""
    ghosts, cores = SETTINGS[setting][1], os.cpu_count() or 2

    def procs(test):  # as line_key names it; a test that did not build has no count
        words = test.split()
        return (int(words[1]) if len(words) > 1 and words[1].isdigit() else 2) + ghosts
    return {t: int(limit * max(1.0, procs(t) / cores)) for t, limit in limits.items()}


def retry_failures(args, build, results, limits):
    """Run each test that passed natively and failed in a wisp setting, and
    is not an expected failure, once more; mark those that pass `flaky`."""
    entries = read_expected(args.expected)
    for s, res in results.items():
        if s == "native" or res is None:
            continue
        for test, (status, seconds, output) in list(res.items()):
            native = results["native"].get(test, ("missing",))[0]
            if native != "pass" or status in ("pass", "skip") or \
                    expected_reason(entries, args.mpi, s, test):
                continue
            log("%s failed under %s (%s); running it again alone" % (test, s, status))
            ok, again = rerun(args, build, s, test, limits[s].get(test, args.limit))
            if ok:
                res[test] = ("flaky", seconds, output)


def read_expected(path):
    """[(mpi, setting, test pattern, reason)] from the expected-failures file."""
    entries = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "|" not in line or len(line.split("|")[0].split()) < 4:
                sys.exit("conformance: %s:%d: expected 'mpi setting dir/test np [args] | reason'" % (path, n))
            left, reason = line.split("|", 1)
            mpi, setting, *test = left.split()
            entries.append((mpi, setting, " ".join(test), reason.strip()))
    return entries


def expected_reason(entries, mpi, setting, test):
    for e_mpi, e_setting, e_test, reason in entries:
        if fnmatch.fnmatchcase(mpi, e_mpi) and fnmatch.fnmatchcase(setting, e_setting) \
                and fnmatch.fnmatchcase(test, e_test):
            return reason
    return None


def excerpt(text, lines=6):
    out = [l[3:] if l.startswith("## ") else l for l in text.splitlines() if l.startswith("## ")]
    return out[1:lines + 1]


def report(args, results, outdir):
    """Compare every setting with native; write the summary; return the unexpected failures."""
    entries = read_expected(args.expected)
    native = results["native"]
    settings = [s for s in results if s != "native" and results[s] is not None]
    rows, unexpected, fixed, flaky, lines = [], [], [], [], []
    for test in sorted(native):
        row = {"test": test, "native": native[test][0]}
        for s in settings:
            only = SETTINGS[s][2]  # a setting for some directories is not run in the others
            if only is not None and test.split("/")[0] not in only:
                row[s] = "-"
                continue
            status = results[s].get(test, ("missing", 0, ""))
            row[s] = status[0]
            if status[0] == "flaky":
                flaky.append((s, test))
            if native[test][0] != "pass" or status[0] in ("pass", "skip", "flaky"):
                if native[test][0] == "pass" and expected_reason(entries, args.mpi, s, test):
                    fixed.append((s, test))
                continue
            reason = expected_reason(entries, args.mpi, s, test)
            if reason is None:
                unexpected.append((s, test, status))
            row[s] += " (expected)" if reason else " (UNEXPECTED)"
        rows.append(row)
    cols = ["native"] + settings
    width = max([len(r["test"]) for r in rows] + [4])
    table = ["%-*s  %s" % (width, "test", "  ".join("%-18s" % c for c in cols))]
    table += ["%-*s  %s" % (width, r["test"], "  ".join("%-18s" % r[c] for c in cols)) for r in rows]

    ran = [t for t in native if native[t][0] != "skip"]
    nat_pass = [t for t in ran if native[t][0] == "pass"]
    lines.append("MPICH test suite (%s), %s, subset %s: %d tests" % (args.mpi, args.suite, args.subset, len(ran)))
    lines.append("  native: %d passed, %d failed natively (not counted against wisp)"
                 % (len(nat_pass), len(ran) - len(nat_pass)))
    for s in settings:
        mine = [t for t in nat_pass if t in results[s]]
        ok = [t for t in mine if results[s][t][0] in ("pass", "flaky")]
        shaky = [t for t in ok if results[s][t][0] == "flaky"]
        exp = [t for t in mine if t not in ok and expected_reason(entries, args.mpi, s, t)]
        bad = len(mine) - len(ok) - len(exp)
        lines.append("  %-7s %d of the %d that pass natively passed (%d only on a second run); "
                     "%d expected failures, %d unexpected"
                     % (s + ":", len(ok), len(mine), len(shaky), len(exp), bad))
    for t in sorted(set(ran) - set(nat_pass)):
        reason = expected_reason(entries, args.mpi, "native", t) or "not listed"
        lines.append("  native failure: %s (%s): %s" % (t, native[t][0], reason))
    for s, t in flaky:
        lines.append("  FLAKY: %s under %s: failed once, passed alone on a second run" % (t, s))
    for s, t in fixed:
        lines.append("  passes now, remove it from the expected failures: %s %s %s" % (args.mpi, s, t))
    for s, t, (status, _, text) in unexpected:
        lines.append("  UNEXPECTED: %s under %s: %s" % (t, s, status))
        lines += ["      " + l for l in excerpt(text)]
    summary = "\n".join(lines)
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write(summary + "\n\n" + "\n".join(table) + "\n")
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(summary)
    log("per-test table: " + os.path.join(outdir, "summary.txt"))
    return unexpected


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mpi", choices=sorted(MPIS), default="mpich")
    p.add_argument("--wisprun", required=True, help="the wisp build's wisprun (it names the MPI; for mpich5 and "
                   "openmpi5 its tree's CMakeCache.txt also names the MPI's mpicc)")
    p.add_argument("--work", default=os.path.join(ROOT, "build", "conformance"),
                   help="where the source, the built suite and the results go")
    p.add_argument("--subset", choices=sorted(SUBSETS), default="ci")
    p.add_argument("--dirs", help="comma-separated directories of test/mpi (default: the subset's)")
    p.add_argument("--maxnp", type=int, help="leave out tests with more processes")
    p.add_argument("--fewer", type=int,
                   help="run tests listed with more processes with this many (one that does not "
                        "allow it fails natively, which is not counted against wisp)")
    p.add_argument("--only", help="comma-separated fnmatch patterns of 'dir/prog': only the tests they name "
                   "(e.g. 'coll/p_*,coll/*_init*')")
    p.add_argument("--settings", help="comma-separated wisp settings: " + ",".join(SETTINGS))
    p.add_argument("--limit", type=int, help="seconds before one test is killed")
    p.add_argument("--reuse-native", action="store_true",
                   help="take the native results of the last run of this subset instead of running "
                        "them again (they do not depend on wisp)")
    p.add_argument("--expected", default=os.path.join(ROOT, "tests", "conformance", "expected-failures.txt"))
    args = p.parse_args()
    subset = dict(SUBSETS[args.subset], **MPIS[args.mpi].get("subsets", {}).get(args.subset, {}))
    args.wisprun = os.path.abspath(args.wisprun)
    args.work = os.path.abspath(args.work)  # the steps below run in other directories
    args.limit = args.limit or subset["limit"]
    maxnp = args.maxnp if args.maxnp is not None else subset["maxnp"]
    args.fewer_given = args.fewer is not None  # --maxnp or --fewer: for every directory
    args.fewer = args.fewer if args.fewer is not None else subset.get("fewer")
    settings = args.settings.split(",") if args.settings else subset["settings"]
    settings = [s for s in settings if MPIS[args.mpi]["settings"] is None or s in MPIS[args.mpi]["settings"]]
    for s in settings:
        if s not in SETTINGS:
            sys.exit("conformance: unknown setting %s (known: %s)" % (s, ", ".join(SETTINGS)))

    # The MPI's own environment, for configure, the build and every run.
    os.environ.update(MPIS[args.mpi].get("env", {}))
    fetch = subprocess.run(["bash", os.path.join(TOOLS, "conformance_fetch.sh"), os.path.join(args.work, "src")],
                           stdout=subprocess.PIPE, text=True)
    if fetch.returncode != 0:
        sys.exit("conformance: FAILED: MPICH's test suite could not be fetched (see above)")
    args.suite = fetch.stdout.strip()
    build = os.path.join(args.work, args.mpi, "suite")
    fortran = configure(args.suite, build, args)

    if args.dirs:
        dirs = args.dirs.split(",")
    elif subset["dirs"]:
        dirs = subset["dirs"]
    else:  # every directory configure enabled
        dirs = [l.split()[0] for l in read_list(build, args.suite, ".") if l]
    if not fortran and any(d.split("/")[0] in FORTRAN_DIRS for d in dirs):
        log("without Fortran, leaving out " + ",".join(d for d in dirs if d.split("/")[0] in FORTRAN_DIRS))
        dirs = [d for d in dirs if d.split("/")[0] not in FORTRAN_DIRS]
    listname = "testlist.wisp-" + args.subset
    own_np = {} if args.maxnp is not None or args.fewer_given else subset.get("own_np", {})

    def counts(d):  # (maxnp, fewer) for directory d
        top = d.split("/")[0]
        return (own_np[top], None) if top in own_np else (maxnp, args.fewer)
    leave_out = subset.get("leave_out", [])
    tests = []
    only = args.only.split(",") if args.only else None
    for d in dirs:
        select(build, args.suite, d, listname, counts(d)[0], tests, fewer=counts(d)[1], leave_out=leave_out,
               only=only)
    log("%d tests in %s (at most %s processes%s)" % (
        len(tests), ",".join(dirs), maxnp or "any",
        ", those of more run with %d" % args.fewer if args.fewer else "")
        + "".join("; %s with their own count, up to %d" % kv for kv in own_np.items() if kv[0] in dirs))

    # Build once, natively; runtests' own `make prog` then finds them built.
    start, jobs = time.time(), os.cpu_count() or 2
    outdir = os.path.join(args.work, args.mpi, "results-" + args.subset)
    os.makedirs(outdir, exist_ok=True)
    programs = {}
    for d, name in tests:
        programs.setdefault(d, set()).add(name)
    for d in ["util", "dtpools"]:
        run(["make", "-k", "-j%d" % jobs], cwd=os.path.join(build, d), logfile=os.path.join(outdir, "build-%s.log" % d))
    if any(d.split("/")[0] == "f08" for d in dirs):
        build_f08_library(build, os.path.join(outdir, "build-util-f08.log"))
    for d, names in sorted(programs.items()):
        run(["make", "-k", "-j%d" % jobs] + sorted(names), cwd=os.path.join(build, d),
            logfile=os.path.join(outdir, "build-%s.log" % d.replace("/", "_")))
    log("built in %.0f s" % (time.time() - start))

    progress = Progress(["native"] + settings)
    native = earlier_native(args, outdir, len(tests), dirs)
    if native:
        progress.index += 1  # taken from the earlier run: no time to estimate from
    results = {"native": native or run_setting(args, build, dirs, listname, "native", outdir, progress)}
    # Under wisp a test gets the time it took natively, times SLOWER_OK, at
    # least FLOOR seconds, at most --limit: a hang costs little. One that
    # failed natively gets FLOOR: it is not counted.
    limits = {t: min(args.limit, max(FLOOR, int(SLOWER_OK * r[1]) + 1)) if r[0] == "pass" else FLOOR
              for t, r in results["native"].items()}
    limits = {s: setting_limits(limits, s) for s in settings}
    for s in settings:
        for d in dirs:
            select(build, args.suite, d, listname + "." + s, counts(d)[0], [], limits[s], counts(d)[1],
                   leave_out, only)
        results[s] = run_setting(args, build, dirs, listname + "." + s, s, outdir, progress)
    retry_failures(args, build, results, limits)
    unexpected = report(args, results, outdir)
    log("total %.0f s" % (time.time() - start))
    if unexpected:
        log("FAILED: %d unexpected failures under wisp" % len(unexpected))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
