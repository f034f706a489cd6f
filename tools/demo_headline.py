#!/usr/bin/env python3
"""The headline of `make demo`: what wisp changed, in one screen.

Reads what tools/demo.sh measured, for each MPI: the JSON reports of
bench/run.py (BUILD/<mpi>/demo-<benchmark>.json) and the application
experiments of bench/apps/report.py (REPORT/report.json), and prints one
table: per MPI and figure, the native median, wisp's median and wisp's
ratio to native, oriented (above 1: wisp did better), with what in wisp
made the difference. A figure whose run did not happen (a failed step, the
ghost row under Open MPI) is left out.

Usage: demo_headline.py BUILD REPORT
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench", "apps"))
import report  # noqa: E402  (bench/apps/report.py: its JSON, read with its load)
from report import bench_run  # noqa: E402  (bench/run.py: number format, table)

# The build trees shown (tools/demo.sh's DEMO_MPIS: e.g. mpich5, a build of
# family mpich, whose experiments report.py keys by that family).
MPIS = tuple(os.environ.get("DEMO_MPIS", "").split()) or ("mpich", "openmpi")
NOISE = 0.05  # a ratio this close to 1 says "the same" on a shared machine

# (source, metric, what wisp does there): source is a run.py benchmark
# (BUILD/<mpi>/demo-<source>.json) or "apps:<experiment>" (report.json).
ROWS = [
    ("p2p_latency", "latency_8B", "fastbox ring: one copy in, one out"),
    ("p2p_latency", "latency_1048576B", "single copy from the shared heap"),
    ("msgrate", "msgrate_pair_8B", "wisp's matching, no MPI in the path"),
    ("coll", "allreduce_8B", "collective through cache-line flags in the heap"),
    ("coll", "bcast_1048576B", "broadcast read in place, the copy shared"),
    ("rma_busy_target", "acc_flush10_busy300ms_ms",
     "a ghost serves the window where the MPI needs one (auto)"),
    ("apps:jacobi_nonblocking", "mlups", "3-D Jacobi, halo exchange"),
    ("apps:cg", "gflops", "CG: halo exchange, allreduce per dot"),
]


def figure(build, experiments, mpi, source, metric):
    """(unit, native median, wisp median, oriented ratio) or None."""
    if source.startswith("apps:"):
        name = source[len("apps:"):]
        family = mpi
        try:
            family = report.build_mpi(os.path.join(build, mpi))
        except SystemExit:
            pass
        docs = [d for d in experiments.get(mpi, experiments.get(family, []))
                if d.get("experiment") == name]
        results = docs[0]["results"] if docs else []
        ratio_key = "ratio_wisp"
    else:
        run = report.load(os.path.join(build, mpi, f"demo-{source}.json")) or {}
        results = run.get("results", [])
        ratio_key = "ratio"
    row = next((r for r in results if r.get("metric") == metric), None)
    if row is None or "wisp" not in row:
        return None
    return row["unit"], row["native"]["median"], row["wisp"]["median"], row.get(ratio_key)


def table(build, report_dir):
    experiments = (report.load(os.path.join(report_dir, "report.json")) or {}).get("experiments", {})
    rows = [["mpi", "figure", "native", "wisp", "wisp vs native", "what wisp does"]]
    for mpi in MPIS:
        for source, metric, what in ROWS:
            got = figure(build, experiments, mpi, source, metric)
            if got is None:
                continue
            unit, native, wisp, ratio = got
            verdict = "-" if ratio is None else f"{ratio:.2f}x " + \
                ("better" if ratio >= 1 + NOISE else "worse" if ratio <= 1 - NOISE else "(same)")
            rows.append([mpi, f"{metric} ({unit})", bench_run.fmt_value(native),
                         bench_run.fmt_value(wisp), verdict, what])
    return rows


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    rows = table(argv[1], argv[2])
    if len(rows) == 1:
        print("demo_headline.py: no figures found: did the demo's runs fail?",
              file=sys.stderr)
        return 1
    print(bench_run.format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
