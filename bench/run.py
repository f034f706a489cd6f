#!/usr/bin/env python3
"""Benchmark runner for wisp: native MPI versus MPI with wisp, in one session.

Runs a benchmark program through `wisprun --native` and through `wisprun`
alternately (native, wisp, native, wisp, ...), after one discarded warm-up
run of each, so that drift on the machine hits both sides alike. Benchmark
programs print, from rank 0 only,

    metric <name> <value> <unit> <higher|lower>

and every other line is ignored. For each metric the runner prints the
median, min and max of both sides, their ratio and, when a target is given,
a verdict; with --json it also writes a document with the run's context and
every raw sample. See docs/benchmarks.md.

Example:
    bench/run.py --wisprun build/wisprun --mpi mpich --np 2 --reps 7 \\
        --target 'send_proc_null_rate>=0.9' -- build/bench/overhead

Exit status: 0 when all runs succeeded (missed targets included, since
benchmarks report rather than fail), 1 when a run failed or its output was
unusable, 2 on a usage error, 3 when --strict is given and a target was
missed.
"""

import argparse
import datetime
import json
import math
import operator
import os
import platform
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

MODES = ("native", "wisp")
DIRECTIONS = ("higher", "lower")
TARGET_OPS = {">=": operator.ge, ">": operator.gt,
              "<=": operator.le, "<": operator.lt}
# Longest operators first so that ">=" is not read as ">" followed by "=".
TARGET_RE = re.compile(r"^\s*([^<>=\s]+)\s*(>=|<=|>|<)\s*(\S+)\s*$")
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Above this (max - min) / median, a ratio near the target is within noise.
NOISY_SPREAD = 0.10
STDERR_SHOWN = 4000
KILL_GRACE_S = 5
TEXT_COLUMNS = ("metric", "unit", "better", "target", "mpi", "experiment", "figure",
                "what wisp does")
JSON_FORMAT_VERSION = 1


class BenchError(Exception):
    """A run failed or produced output the runner cannot use."""


@dataclass(frozen=True)
class Metric:
    name: str
    value: float
    unit: str
    better: str  # "higher" or "lower"


@dataclass(frozen=True)
class Target:
    metric: str
    op: str
    threshold: float

    def __str__(self):
        return f"{self.op}{self.threshold:g}"


# --------------------------------------------------------------------------
# Parsing

def parse_metric_line(line):
    """Returns a Metric for a `metric ...` line, None for any other line.

    A line that starts with the word `metric` but is malformed raises
    ValueError: it is a benchmark bug, and ignoring it would silently drop
    a result.
    """
    fields = line.split()
    if not fields or fields[0] != "metric":
        return None
    if len(fields) != 5:
        raise ValueError(f"malformed metric line (want 'metric <name> "
                         f"<value> <unit> <higher|lower>'): {line!r}")
    _, name, text, unit, better = fields
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"metric value is not a number: {line!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"metric value is not finite: {line!r}")
    if better not in DIRECTIONS:
        raise ValueError(f"metric direction must be higher or lower: "
                         f"{line!r}")
    return Metric(name, value, unit, better)


def parse_output(text):
    """Returns {name: Metric} for all metric lines of one run's stdout."""
    metrics = {}
    for line in text.splitlines():
        metric = parse_metric_line(line)
        if metric is None:
            continue
        if metric.name in metrics:
            # Usually every rank printing instead of rank 0 only.
            raise ValueError(f"metric {metric.name!r} printed twice in one "
                             f"run (more than one rank printing?)")
        metrics[metric.name] = metric
    return metrics


def parse_target(spec):
    """Parses 'name>=0.9' into a Target; raises ValueError if malformed."""
    match = TARGET_RE.match(spec)
    if not match:
        hint = ""
        if not any(op in spec for op in TARGET_OPS):
            # Unquoted in a shell, '>=0.9' becomes a redirection and only
            # the name arrives here.
            hint = " (no comparison; quote the target in a shell: " \
                   "--target 'name>=0.9')"
        raise ValueError(f"bad target {spec!r}, want NAME>=RATIO{hint}")
    name, op, text = match.groups()
    try:
        threshold = float(text)
    except ValueError:
        raise ValueError(f"bad target {spec!r}: {text!r} is not a number") \
            from None
    return Target(name, op, threshold)


def parse_targets(specs):
    """Parses all --target options; at most one per metric."""
    targets = [parse_target(spec) for spec in specs]
    names = [t.metric for t in targets]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"more than one target for {name!r}")
    return targets


def parse_env(spec):
    """Parses 'NAME=VALUE' into a (name, value) pair."""
    name, sep, value = spec.partition("=")
    if not sep or not ENV_NAME_RE.match(name):
        raise ValueError(f"bad --env {spec!r}, want NAME=VALUE")
    return name, value


# --------------------------------------------------------------------------
# Statistics

def summarize(values):
    """Returns median, min, max and count of a non-empty list of numbers."""
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values)}


def oriented_ratio(native, wisp, better):
    """Ratio of medians oriented so that > 1 means wisp did better.

    wisp/native for higher-is-better metrics, native/wisp for lower-is-better
    ones; None when the denominator is zero.
    """
    num, den = (wisp, native) if better == "higher" else (native, wisp)
    return num / den if den else None


def meets(ratio, target):
    """True if the ratio satisfies the target; a missing ratio never does."""
    return ratio is not None and TARGET_OPS[target.op](ratio, target.threshold)


def spread(summary):
    """Relative spread (max - min) / median, None if the median is zero."""
    if not summary["median"]:
        return None
    return (summary["max"] - summary["min"]) / abs(summary["median"])


def collect_values(samples, mode, name):
    """The measured (non-warm-up) values of one metric for one mode."""
    return [s["metrics"][name] for s in samples
            if s["mode"] == mode and not s["warmup"]]


def build_results(samples, kinds, targets):
    """One result row per metric, in the order the benchmark printed them.

    kinds maps a metric name to its (unit, better) pair.
    """
    by_metric = {t.metric: t for t in targets}
    results = []
    for name, (unit, better) in kinds.items():
        sides = {m: summarize(collect_values(samples, m, name))
                 for m in MODES}
        native, wisp = sides["native"]["median"], sides["wisp"]["median"]
        ratio = oriented_ratio(native, wisp, better)
        target = by_metric.get(name)
        results.append({
            "metric": name, "unit": unit, "better": better,
            "native": sides["native"], "wisp": sides["wisp"],
            "ratio": ratio,
            "ratio_wisp_over_native": wisp / native if native else None,
            "target": None if target is None else
            {"op": target.op, "value": target.threshold},
            "met": None if target is None else meets(ratio, target),
        })
    return results


def unknown_targets(targets, results):
    """Targets that name a metric the benchmark never printed."""
    names = {r["metric"] for r in results}
    return [t for t in targets if t.metric not in names]


def target_met(target, results):
    """Whether a target holds; one naming an unknown metric is missed."""
    return any(r["metric"] == target.metric and r["met"] for r in results)


# --------------------------------------------------------------------------
# Running

def launch_command(wisprun, native, env, np, command):
    """The wisprun command line for one run.

    The settings go to both sides: a setting that changes the MPI library's
    behaviour must apply to the baseline too, or the ratio would compare two
    different configurations.
    """
    cmd = [wisprun]
    if native:
        cmd.append("--native")
    for name, value in env.items():
        cmd += ["--env", f"{name}={value}"]
    return cmd + ["-n", str(np)] + list(command)


def tail(text, limit):
    """The end of text, marked when cut, for error messages."""
    if len(text) <= limit:
        return text
    return "[... cut ...]\n" + text[-limit:]


def run_process(cmd, timeout):
    """Runs cmd; returns (exit status, stdout, stderr).

    The launcher gets its own process group, and the whole group is killed
    on a timeout or an interrupt: killing only the launcher would leave MPI
    processes behind, still holding the output pipes open.
    """
    with subprocess.Popen(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          errors="replace", start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            stop_group(proc)
            raise
    return proc.returncode, out, err


def signal_group(pgid, signum):
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def stop_group(proc):
    """Stops a launcher's process group, politely first.

    SIGTERM lets mpiexec take down ranks that it placed in process groups of
    their own (Open MPI does); SIGKILL follows for whatever is left.
    """
    signal_group(proc.pid, signal.SIGTERM)
    try:
        proc.communicate(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        signal_group(proc.pid, signal.SIGKILL)
        proc.communicate()


def run_once(cmd, timeout):
    """Runs one benchmark process; returns ({name: Metric}, wall seconds)."""
    shown = shlex.join(cmd)
    start = time.monotonic()
    try:
        status, out, err = run_process(cmd, timeout)
    except OSError as error:
        raise BenchError(f"cannot start {shown}: {error}") from None
    except subprocess.TimeoutExpired:
        raise BenchError(f"run timed out after {timeout} s and was killed: "
                         f"{shown}") from None
    wall = time.monotonic() - start
    if status != 0:
        # Launchers sometimes report on stdout; show it when stderr is empty.
        raise BenchError(f"run failed with exit status {status}: {shown}\n"
                         f"--- stderr ---\n{tail(err or out, STDERR_SHOWN)}")
    try:
        metrics = parse_output(out)
    except ValueError as error:
        raise BenchError(f"{error}\n  in the output of: {shown}") from None
    if not metrics:
        raise BenchError(f"no 'metric' lines in the output of: {shown}\n"
                         f"--- stdout ---\n{tail(out, STDERR_SHOWN)}")
    return metrics, wall


def check_consistent(kinds, metrics, shown):
    """Fails unless a run printed the same metrics, units and directions."""
    got = {m.name: (m.unit, m.better) for m in metrics.values()}
    if got != kinds:
        raise BenchError(f"metrics differ between runs: first run had "
                         f"{kinds}, this run has {got}\n  command: {shown}")


def schedule(reps):
    """(mode, rep, warmup) triples: a warm-up pair, then alternating pairs."""
    order = [(mode, 0, True) for mode in MODES]
    for rep in range(reps):
        order += [(mode, rep, False) for mode in MODES]
    return order


def run_session(args, env, progress):
    """Runs the whole schedule; returns (samples, {name: (unit, better)})."""
    samples, kinds = [], None
    plan = schedule(args.reps)
    for i, (mode, rep, warmup) in enumerate(plan, 1):
        cmd = launch_command(args.wisprun, mode == "native", env, args.np,
                             args.command)
        metrics, wall = run_once(cmd, args.timeout)
        if kinds is None:
            kinds = {m.name: (m.unit, m.better) for m in metrics.values()}
        check_consistent(kinds, metrics, shlex.join(cmd))
        samples.append({"mode": mode, "rep": rep, "warmup": warmup,
                        "wall_s": round(wall, 3),
                        "metrics": {n: m.value for n, m in metrics.items()}})
        label = "warm-up" if warmup else f"rep {rep + 1}/{args.reps}"
        progress(f"[{i}/{len(plan)}] {mode:6} {label} ({wall:.2f} s)")
    return samples, kinds


# --------------------------------------------------------------------------
# Context of the measurement

def command_output_lines(cmd):
    """Lines of stdout+stderr of a short command, None if it cannot run."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (proc.stdout + proc.stderr).splitlines()


def mpi_info(name):
    """The MPI's name and the first line of `mpiexec.<name> --version`.

    MPICH's Hydra starts with a bare "HYDRA build details:" heading, so the
    first line that carries a digit is kept beside it.
    """
    lines = command_output_lines([f"mpiexec.{name}", "--version"])
    lines = [ln.strip() for ln in lines or [] if ln.strip()]
    if not lines:
        return {"name": name, "version": "unknown"}
    version = lines[0]
    if not re.search(r"\d", version):
        numbered = next((ln for ln in lines if re.search(r"\d", ln)), None)
        if numbered:
            version = f"{version} {' '.join(numbered.split())}"
    return {"name": name, "version": version}


def cpu_model():
    """The CPU model from /proc/cpuinfo, with a fallback off x86."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info():
    info = {"hostname": socket.gethostname(), "cpu_model": cpu_model(),
            "cores": os.cpu_count(), "kernel": platform.release()}
    if hasattr(os, "sched_getaffinity"):
        info["cores_usable"] = len(os.sched_getaffinity(0))
    if hasattr(os, "getloadavg"):
        # A busy machine explains odd numbers later; cheap to keep.
        info["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    return info


def git_revision(repo_dir):
    """Short HEAD of the repository, '-dirty' if tracked files changed.

    Untracked files do not count, as with `git describe --dirty`, so that
    build directories inside the tree do not mark every run dirty.
    """
    def git(*argv):
        return subprocess.run(["git", "-C", repo_dir, *argv],
                              capture_output=True, text=True, timeout=30,
                              check=False)
    try:
        head = git("rev-parse", "--short", "HEAD")
        if head.returncode != 0:
            return "unknown"
        status = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    # A status that cannot be read counts as dirty: claiming a clean tree
    # is the mistake that misleads.
    dirty = "-dirty" if status.returncode != 0 or status.stdout.strip() else ""
    return head.stdout.strip() + dirty


def session_context(args):
    """Where and on what the session runs, taken before the first run.

    Taken first so that the load average is the one the runs met, and the
    git revision the one that was built, even if the tree changes meanwhile.
    """
    return {
        "mpi": mpi_info(args.mpi),
        "machine": machine_info(),
        "git_revision": git_revision(
            os.path.dirname(os.path.abspath(__file__))),
        "timestamp": datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="seconds"),
    }


def build_report(args, env, context, samples, results):
    """The JSON document: what was run, where, and every sample."""
    targets = args.targets
    return {
        "format_version": JSON_FORMAT_VERSION,
        "benchmark": args.name,
        "command": list(args.command),
        "np": args.np,
        "reps": args.reps,
        "warmup_runs": 1,
        "env": dict(env),
        "wisprun": args.wisprun,
        "launch": {m: launch_command(args.wisprun, m == "native", env,
                                     args.np, args.command) for m in MODES},
        **context,
        "targets": [{"metric": t.metric, "op": t.op, "value": t.threshold,
                     "met": target_met(t, results)} for t in targets],
        "results": results,
        "samples": samples,
    }


# --------------------------------------------------------------------------
# Output

def fmt_value(value):
    """Four significant digits with an SI prefix: 31.23M, 4.489, 1.200k."""
    if value is None:
        return "-"
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:#.4g}{suffix}"
    return f"{value:#.4g}"


def fmt_verdict(result):
    if result["target"] is None:
        return ""
    target = Target(result["metric"], result["target"]["op"],
                    result["target"]["value"])
    return f"{'ok' if result['met'] else 'MISS'} ({target})"


def table_rows(results, with_verdict):
    header = ["metric", "unit", "better",
              "native med", "min", "max", "wisp med", "min", "max", "ratio"]
    rows = [header + (["target"] if with_verdict else [])]
    for r in results:
        row = [r["metric"], r["unit"], r["better"]]
        for mode in MODES:
            row += [fmt_value(r[mode][k]) for k in ("median", "min", "max")]
        row.append("-" if r["ratio"] is None else f"{r['ratio']:.3f}")
        if with_verdict:
            row.append(fmt_verdict(r))
        rows.append(row)
    return rows


def format_table(rows):
    """Fixed-width columns: text left-aligned, numbers right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    left = [name in TEXT_COLUMNS for name in rows[0]]
    lines = []
    for row in rows:
        cells = [cell.ljust(w) if is_left else cell.rjust(w)
                 for cell, w, is_left in zip(row, widths, left)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def noise_notes(results):
    """One line per metric whose samples vary more than NOISY_SPREAD."""
    notes = []
    for r in results:
        spreads = {mode: spread(r[mode]) for mode in MODES}
        if any(s is not None and s > NOISY_SPREAD for s in spreads.values()):
            shown = ", ".join(f"{mode} {'-' if s is None else f'{s:.0%}'}"
                              for mode, s in spreads.items())
            notes.append(f"noisy: {r['metric']}: (max-min)/median {shown}")
    return notes


def format_report(report, targets):
    mpi, results = report["mpi"], report["results"]
    lines = [
        f"benchmark {report['benchmark']}: {shlex.join(report['command'])}",
        f"mpi {mpi['name']} ({mpi['version']}), np {report['np']}, "
        f"{report['reps']} reps + 1 warm-up each, git "
        f"{report['git_revision']}, host {report['machine']['hostname']}",
        "",
        format_table(table_rows(results, bool(targets))),
        "",
        "ratio: wisp/native for 'higher' metrics, native/wisp for 'lower' "
        "ones (> 1: wisp faster)",
    ]
    lines += noise_notes(results)
    for t in unknown_targets(targets, results):
        lines.append(f"MISS: target {t.metric}{t} names a metric the "
                     f"benchmark did not print")
    if targets:
        met = sum(1 for t in targets if target_met(t, results))
        lines.append(f"targets met: {met}/{len(targets)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Command line

def split_command(argv):
    """Splits argv at the first '--' into (runner options, command)."""
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def make_parser():
    parser = argparse.ArgumentParser(
        prog="run.py",
        usage="%(prog)s --wisprun PATH --mpi NAME [options] -- PROGRAM "
              "[ARGS...]",
        description="Compare a benchmark natively and under wisp.")
    parser.add_argument("--wisprun", required=True,
                        help="path of the wisprun launcher")
    parser.add_argument("--mpi", required=True,
                        help="MPI name, e.g. mpich or openmpi (recorded; "
                             "mpiexec.NAME --version gives its version)")
    parser.add_argument("--np", type=positive_int, default=1,
                        help="number of MPI processes (default 1)")
    parser.add_argument("--reps", type=positive_int, default=5,
                        help="measured runs per side (default 5)")
    parser.add_argument("--env", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="setting passed to both sides (repeatable)")
    parser.add_argument("--target", action="append", default=[],
                        metavar="METRIC>=RATIO",
                        help="goal on the oriented ratio (repeatable)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the full report as JSON")
    parser.add_argument("--name", help="benchmark name (default: program "
                                       "file name)")
    parser.add_argument("--timeout", type=positive_int, default=300,
                        help="seconds allowed per run (default 300)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 3 if a target is missed")
    return parser


def parse_args(argv):
    options, command = split_command(argv)
    parser = make_parser()
    args = parser.parse_args(options)
    if not command:
        parser.error("no benchmark command; give it after '--'")
    args.command = command
    args.name = args.name or os.path.basename(command[0])
    try:
        args.targets = parse_targets(args.target)
        env = dict(parse_env(e) for e in args.env)
    except ValueError as err:
        parser.error(str(err))
    return args, env


def write_json(path, report):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


def all_met(targets, results):
    return all(target_met(t, results) for t in targets)


def progress(msg):
    print(msg, file=sys.stderr, flush=True)


def main(argv=None):
    args, env = parse_args(sys.argv[1:] if argv is None else argv)
    context = session_context(args)
    try:
        samples, kinds = run_session(args, env, progress)
    except BenchError as err:
        print(f"run.py: benchmark {args.name} aborted: {err}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"run.py: benchmark {args.name} interrupted", file=sys.stderr)
        return 130
    results = build_results(samples, kinds, args.targets)
    report = build_report(args, env, context, samples, results)
    # The table first: a bad --json path must not lose a session's results.
    print(format_report(report, args.targets), flush=True)
    if args.json:
        try:
            write_json(args.json, report)
        except OSError as err:
            print(f"run.py: cannot write {args.json}: {err}", file=sys.stderr)
            return 1
    if args.strict and not all_met(args.targets, results):
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
