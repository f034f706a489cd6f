#!/usr/bin/env python3
"""The point-to-point figures that issue 10 asks for, in one table per MPI.

Runs bench/p2p_latency, bench/p2p_bandwidth uni and bench/msgrate pair (2
processes; latency and bandwidth with malloc'd buffers, which the shared heap
serves, and with private ones) three ways, alternated run by run so that a
change of load hits all three alike:

  native    wisprun --native (the MPI alone)
  wisprun   wisprun
  preload   the MPI's own mpiexec with libwisp in LD_PRELOAD and nothing else
            set (tests/mpiexec_preload.sh: the README's recipe without wisprun)

and prints, for the sizes 8 B, 1 KiB, 64 KiB and 1 MiB, the median over the
runs of each side and wisp's ratio to native (oriented: above 1 is better),
then the ratio of the best runs.
The calls' own cost (bench/overhead: MPI_Send to MPI_PROC_NULL, an empty
MPI_Iprobe, MPI_Testany over 8 pending requests of the MPI's) is measured in
one process against the MPI's PMPI_ form in the same run, under wisprun and
under the plain mpiexec.

Usage: tools/p2p_table.py --build build/mpich [--reps 5]
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import run as bench_run  # noqa: E402  (bench/run.py: the metric lines and the oriented ratio)

SIZES = [8, 1024, 65536, 1048576]


def mpi_of(build):
    with open(os.path.join(build, "CMakeCache.txt")) as cache:
        for line in cache:
            if line.startswith("WISP_MPI:"):
                return line.strip().split("=", 1)[1]
    sys.exit("p2p_table: no WISP_MPI in %s/CMakeCache.txt" % build)


def launcher(build, mpi, side, np):
    wisprun = os.path.join(build, "wisprun")
    if side == "native":
        return [wisprun, "--native", "-n", str(np)]
    if side == "wisprun":
        return [wisprun, "-n", str(np)]
    preload = os.path.join(build, "libwisp.so")
    return ["bash", os.path.join(HERE, "..", "tests", "mpiexec_preload.sh"), mpi, str(np), preload,
            "--"]


def run(cmd):
    """The metrics a run prints: {name: bench_run.Metric}."""
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode:
        sys.exit("p2p_table: %s failed (%d):\n%s%s" % (" ".join(cmd), out.returncode, out.stdout,
                                                      out.stderr))
    return bench_run.parse_output(out.stdout)


def measure(build, mpi, sides, reps, np, program):
    """{side: {metric: [Metric of each run]}}, the sides alternated run by run."""
    got = {side: {} for side in sides}
    for _ in range(reps):
        for side in sides:
            for name, metric in run(launcher(build, mpi, side, np) + program).items():
                got[side].setdefault(name, []).append(metric)
    return got


def table(title, got, names):
    """Medians, then the best run of each side: this VM runs a job in one of
    two regimes (about 2x apart, natively too), so a median of few runs may
    compare one side's fast regime with the other's slow one."""
    sides = list(got)
    print("\n### %s\n" % title)
    print("| metric | " + " | ".join(sides) + " | " +
          " | ".join("%s/native" % s for s in sides[1:]) + " | best runs: " +
          " | ".join("%s/native" % s for s in sides[1:]) + " |")
    print("|---" * (3 * len(sides) - 1) + "|")
    for name in names:
        if not all(name in got[s] for s in sides):
            continue
        unit, better = got[sides[0]][name][0].unit, got[sides[0]][name][0].better
        values = {s: [m.value for m in got[s][name]] for s in sides}
        med = {s: statistics.median(values[s]) for s in sides}
        best = {s: (max if better == "higher" else min)(values[s]) for s in sides}

        def ratios(of):
            return [bench_run.oriented_ratio(of["native"], of[s], better) or 0 for s in sides[1:]]

        print("| %s (%s) | %s | %s | %s |" % (
            name, unit, " | ".join("%.4g" % med[s] for s in sides),
            " | ".join("%.2f" % r for r in ratios(med)),
            " | ".join("%.2f" % r for r in ratios(best))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", required=True, help="a wisp build directory (build/<mpi>)")
    p.add_argument("--reps", type=int, default=5, help="runs per side (default 5)")
    args = p.parse_args()
    build = os.path.abspath(args.build)
    mpi = mpi_of(build)
    bench = os.path.join(build, "bench")
    sides = ["native", "wisprun", "preload"]
    print("## %s: medians of %d alternated runs per side" % (mpi, args.reps))
    for buffers in ["", "private"]:
        extra = [buffers] if buffers else []
        lat = measure(build, mpi, sides, args.reps, 2, [os.path.join(bench, "p2p_latency")] + extra)
        table("latency, %s buffers (us, one way; ratio above 1: wisp faster)" %
              (buffers or "malloc'd"), lat, ["latency_%dB" % s for s in SIZES])
        bw = measure(build, mpi, sides, args.reps, 2,
                     [os.path.join(bench, "p2p_bandwidth"), "uni"] + extra)
        table("bandwidth, %s buffers" % (buffers or "malloc'd"), bw,
              ["bw_uni_%dB" % s for s in SIZES])
    rate = measure(build, mpi, sides, args.reps, 2, [os.path.join(bench, "msgrate"), "pair"])
    table("8-byte message rate", rate, ["msgrate_pair_8B"])
    calls = measure(build, mpi, ["wisprun", "preload"], args.reps, 1,
                    [os.path.join(bench, "overhead"), "20000000"])
    print("\n### the calls' own cost, 1 process: wisp's rate / the MPI's PMPI_ form in the same run\n")
    print("| metric | wisprun | preload |")
    print("|---|---|---|")
    for name in ["send_proc_null_vs_pmpi", "iprobe_empty_vs_pmpi", "testany_pending8_vs_pmpi"]:
        if all(name in calls[s] for s in calls):
            print("| %s | %s |" % (name, " | ".join(
                "%.2f" % statistics.median(m.value for m in calls[s][name]) for s in calls)))


if __name__ == "__main__":
    main()
