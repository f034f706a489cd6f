#!/usr/bin/env python3
"""PNG plots of bench/run.py reports: native and wisp against a size or count.

Reads JSON reports written by `run.py --json` and draws with matplotlib, for
each series of metrics in a report whose name holds a size or count, one PNG
file. A metric named <head>_<n><xunit>, or <head>_<n><xunit>_<tail>, is the
point n of the series <head> (or <head>_<tail>), with these x units:

    B        message size in bytes (latency_8B, bw_uni_1048576B)
    ms       a time, such as the target's computation (acc_flush10_busy_64ms)
    ops      a number of operations (put_heavy_16ops)
    ult(s)   a number of user-level threads (rate_16ults, time_8ult_ms)
    threads  a number of threads (rate_16threads)

Other metrics (plain_rate, ults16_vs_plain, comm_pct) are not drawn; a
report with none of these is skipped with a note. One series has one x unit.
Each file has two panels:

* the upper one shows the native median (solid, circles) and the wisp
  median (dashed, squares) on a log2 x axis, with the min-max range of the
  runs as error bars; the y axis fits the medians (a bar reaching past it
  is cut at the frame) and is logarithmic when they span a factor of 10 or
  more (latency, bandwidth), linear otherwise (from 0 when no median is
  negative);
* the lower one shows the runner's ratio, oriented as in its table
  (wisp/native for higher-is-better metrics, native/wisp for times), so that
  above 1 means wisp is faster, with a line at 1.0 and a dashed one at 0.95
  (wisp 5% slower); an undefined ratio (a zero median) leaves a gap.

A size of 0, which a log axis cannot show, is drawn one step left of the
smallest other size, past a break mark.

Usage: plot.py --out DIR [--markdown FILE] report.json...

Files are named <benchmark>-<mpi>.png (with -<series> added when a report
holds several series, and -2, -3, ... when a name repeats); their paths are
printed. With --markdown, a section per report is appended to FILE (`make
report` appends bench/coll's to its report.md): a table of every metric's
medians and ratio, and the plots, linked relative to FILE. Exit status: 0 on success, 1 when a report cannot be read or lacks
the fields of format version 1, 2 on a usage error. Without matplotlib
(`make deps` installs it into .venv, bench/requirements.txt) it says so
and exits 0 without plots. See docs/benchmarks.md.
"""

import argparse
import json
import math
import os
import re
import sys

SUPPORTED_FORMAT = 1
# Greedy head: of two <n><xunit> parts the last one is the point's, as in
# a_8B_16ms; the tail after it is part of the series name (time_8ult_ms).
METRIC_RE = re.compile(r"^(?P<head>.+)_(?P<size>\d+)"
                       r"(?P<xunit>B|ms|ops|ults|ult|threads)"
                       r"(?:_(?P<tail>.+))?$")
XUNIT_KINDS = {"ults": "ult"}  # ult and ults: one axis
SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")

COLORS = {"native": "#1f5fa8", "wisp": "#d2571b", "ratio": "#2a8a3a"}
LOG_Y_SPAN = 10.0  # a log y axis from this max/min ratio of the medians on
SLOWER_REF = 0.95  # the dashed line of the ratio panel
FIG_SIZE = (8.5, 6.5)  # inches, at DPI: 850 x 650 pixels (exact in binary)
DPI = 100
THIN_TICKS = 13  # more sizes than this: label every other power of 2


class PlotError(Exception):
    """A report that cannot be plotted."""


# --------------------------------------------------------------------------
# Reading reports

def load_report(path):
    """The parsed report; PlotError if unreadable or not a run.py report."""
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except OSError as err:
        raise PlotError(f"cannot read {path}: {err.strerror}") from None
    except ValueError as err:
        raise PlotError(f"{path}: not JSON: {err}") from None
    if not isinstance(report, dict):
        raise PlotError(f"{path}: not a run.py report (no JSON object)")
    version = report.get("format_version")
    if version != SUPPORTED_FORMAT:
        raise PlotError(f"{path}: format_version {version!r}, this plot.py "
                        f"reads {SUPPORTED_FORMAT}")
    if not isinstance(report.get("results"), list):
        raise PlotError(f"{path}: no 'results' list")
    return report


def side_summary(result, mode, path):
    side = result.get(mode)
    try:
        return {k: float(side[k]) for k in ("median", "min", "max")}
    except (TypeError, KeyError, ValueError):
        raise PlotError(f"{path}: result {result.get('metric')!r} lacks "
                        f"numeric {mode} median/min/max") from None


def parse_metric(name):
    """(series, size, x unit) of a metric that is a point, else None."""
    match = METRIC_RE.match(name)
    if not match:
        return None
    series = match["head"] + (f"_{match['tail']}" if match["tail"] else "")
    xunit = XUNIT_KINDS.get(match["xunit"], match["xunit"])
    return series, int(match["size"]), xunit


def extract_series(report, path="report"):
    """{series: [point, ...]} of the size-suffixed metrics, sizes ascending.

    A point is a dict: size, native and wisp (median/min/max), ratio (the
    oriented ratio or None); the series' unit and better are checked to be
    the same for all its points.
    """
    series = {}
    for result in report["results"]:
        if not isinstance(result, dict):
            raise PlotError(f"{path}: a result is not an object")
        parsed = parse_metric(str(result.get("metric", "")))
        if not parsed:
            continue
        name, size, xunit = parsed
        ratio = result.get("ratio")
        point = {"size": size, "xunit": xunit,
                 "unit": str(result.get("unit", "")),
                 "better": result.get("better"),
                 "native": side_summary(result, "native", path),
                 "wisp": side_summary(result, "wisp", path),
                 "ratio": float(ratio) if isinstance(ratio, (int, float))
                 else None}
        if point["better"] not in ("higher", "lower"):
            raise PlotError(f"{path}: result {result['metric']!r}: better "
                            f"must be higher or lower")
        series.setdefault(name, []).append(point)
    for name, points in series.items():
        points.sort(key=lambda p: p["size"])
        kinds = {(p["unit"], p["better"], p["xunit"]) for p in points}
        if len(kinds) > 1:
            raise PlotError(f"{path}: series {name!r} mixes units, "
                            f"directions or x axes: {sorted(kinds)}")
        sizes = [p["size"] for p in points]
        if len(set(sizes)) != len(sizes):
            raise PlotError(f"{path}: series {name!r} repeats a size")
    return series


# --------------------------------------------------------------------------
# Drawing

def fmt_size(size):
    """Binary size label: 0, 512, 1K, 64K, 4M."""
    for factor, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{suffix}"
    return str(size)


# The x axis of each unit: its title and its tick labels.
X_AXES = {
    "B": ("message size (bytes, log2 scale)", fmt_size),
    "ms": ("milliseconds (log2 scale)", str),
    "ops": ("operations (log2 scale)", str),
    "ult": ("user-level threads (log2 scale)", str),
    "threads": ("threads (log2 scale)", str),
}


def x_values(sizes):
    """Where each size is drawn: 0 (off a log axis) one step left of the
    smallest other size."""
    positive = [s for s in sizes if s > 0]
    zero_at = min(positive) / 2 if positive else 1.0
    return [s if s > 0 else zero_at for s in sizes]


def use_log_y(values):
    positive = all(v > 0 for v in values)
    return positive and max(values) / min(values) >= LOG_Y_SPAN


def load_matplotlib():
    """True when matplotlib can be imported; selects Agg (files only)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.figure  # noqa: F401  (what series_figure needs)
        import matplotlib.ticker  # noqa: F401
    except ImportError:
        return False
    return True


def report_context(report):
    mpi = report.get("mpi") or {}
    machine = report.get("machine") or {}
    name = str(mpi.get("name", "?"))
    version = str(mpi.get("version", ""))
    context = (f"np {report.get('np', '?')}, {report.get('reps', '?')} reps "
               f"each (medians), git {report.get('git_revision', '?')}, "
               f"host {machine.get('hostname', '?')}, "
               f"{report.get('timestamp', '')}")
    return name, version, context


def series_figure(report, series_name, points):
    """The matplotlib Figure of one series of one report.

    load_matplotlib() must have returned True.
    """
    from matplotlib.figure import Figure
    from matplotlib import ticker

    sizes = [p["size"] for p in points]
    xs = x_values(sizes)
    unit, better = points[0]["unit"], points[0]["better"]
    x_title, x_tick = X_AXES[points[0]["xunit"]]
    benchmark = str(report.get("benchmark", "?"))
    mpi_name, mpi_version, context = report_context(report)

    # A Figure without pyplot: no global figure list to leak into.
    fig = Figure(figsize=FIG_SIZE, dpi=DPI, layout="constrained")
    ax, ax_ratio = fig.subplots(2, 1, sharex=True,
                                gridspec_kw={"height_ratios": [5, 2]})
    fig.suptitle(f"{benchmark}: {series_name} ({unit}), {mpi_name}",
                 x=0.01, ha="left", fontsize=13)
    ax.set_title(f"{mpi_version}; {context}", loc="left", fontsize=7.5,
                 color="#555")

    # Upper panel: medians first, then the limits frozen, so that the axes
    # fit the medians: a run disturbed by another process only gets its
    # error bar cut at the frame (and on a log x axis matplotlib would
    # stretch x to 1 for the bars' collection).
    medians = [p[mode]["median"] for p in points
               for mode in ("native", "wisp")]
    log_y = use_log_y(medians)
    ax.set_xscale("log", base=2)
    if log_y:
        ax.set_yscale("log")
    styles = {"native": ("-", "o", f"native {mpi_name}"),
              "wisp": ("--", "s", "wisp")}
    for mode, (line_style, marker, label) in styles.items():
        ax.plot(xs, [p[mode]["median"] for p in points], ls=line_style,
                marker=marker, ms=5, lw=2, color=COLORS[mode], label=label,
                gid=mode)
    lo, hi = ax.get_ylim()
    if not log_y and min(medians) >= 0:
        # A linear axis of positive values from 0 (no magnified gaps), with
        # headroom so that the highest median is off the frame.
        lo, hi = 0.0, max(hi, 1.05 * max(medians))
    ax.set_ylim(lo, hi)
    ax.set_xlim(ax.get_xlim())
    for mode in styles:
        med = [p[mode]["median"] for p in points]
        ax.errorbar(xs, med, fmt="none", ecolor=COLORS[mode], elinewidth=1.2,
                    capsize=3, gid=f"range-{mode}",
                    yerr=[[max(m - p[mode]["min"], 0.0) for m, p in
                           zip(med, points)],
                          [max(p[mode]["max"] - m, 0.0) for m, p in
                           zip(med, points)]])
    ax.set_ylabel(f"{series_name} ({unit}, {better} is better" +
                  (", log scale)" if log_y else ")"))
    ax.legend(title="medians; bars: min-max of the runs", fontsize=9,
              title_fontsize=8)
    ax.grid(True, color="#e4e4e4")

    # Lower panel: the oriented ratio; NaN for None breaks the line.
    ratios = [p["ratio"] if p["ratio"] is not None else math.nan
              for p in points]
    ax_ratio.plot(xs, ratios, marker="o", ms=4, lw=1.6, color=COLORS["ratio"],
                  label="ratio", gid="ratio")
    ax_ratio.axhline(1.0, color="#222", lw=1.3, label="1.0: parity",
                     gid="ref-1")
    ax_ratio.axhline(SLOWER_REF, color="#888", ls="--", lw=1,
                     label=f"{SLOWER_REF:g}: 5% slower", gid="ref-slower")
    ax_ratio.set_ylabel(("wisp/native" if better == "higher" else
                         "native/wisp") + "\n(>1: wisp faster)")
    ax_ratio.set_xlabel(x_title)
    ax_ratio.legend(fontsize=8, loc="best")
    ax_ratio.grid(True, color="#e4e4e4")

    # x ticks at the measured sizes, labelled in the axis' unit.
    thin = len(sizes) > THIN_TICKS
    labels = [x_tick(s) if s == 0 or not thin or
              round(math.log2(s)) % 2 == 0 else "" for s in sizes]
    ax_ratio.xaxis.set_major_locator(ticker.FixedLocator(xs))
    ax_ratio.xaxis.set_major_formatter(ticker.FixedFormatter(labels))
    ax_ratio.xaxis.set_minor_locator(ticker.NullLocator())
    if 0 in sizes and len(sizes) > 1:
        # The break between 0 and the log2 part of the axis.
        ax_ratio.text(math.sqrt(xs[0] * xs[1]), 0, "//", ha="center",
                      va="center", fontsize=9, clip_on=False,
                      transform=ax_ratio.get_xaxis_transform(),
                      bbox={"fc": "white", "ec": "none", "pad": 0})
    return fig


def save_figure(fig, target):
    fig.savefig(target, format="png", dpi=DPI)


# --------------------------------------------------------------------------
# Files

def safe_name(text):
    return SAFE_NAME_RE.sub("_", text).strip("._") or "report"


def plot_report(report, path, out_dir, used):
    """Writes the report's PNG files; returns their paths.

    used is the set of file names already written in this run.
    """
    series = extract_series(report, path)
    mpi = (report.get("mpi") or {}).get("name", "mpi")
    base = safe_name(f"{report.get('benchmark', 'benchmark')}-{mpi}")
    written = []
    for name, points in series.items():
        stem = base if len(series) == 1 else f"{base}-{safe_name(name)}"
        file_name, n = f"{stem}.png", 1
        while file_name in used:
            n += 1
            file_name = f"{stem}-{n}.png"
        used.add(file_name)
        target = os.path.join(out_dir, file_name)
        save_figure(series_figure(report, name, points), target)
        written.append(target)
    return written


def fmt_number(value):
    """A median for the Markdown table: 4 significant digits."""
    return f"{value:.4g}"


def markdown_section(report, written, markdown_path):
    """The Markdown section of one report: its table, then its plots."""
    mpi = (report.get("mpi") or {}).get("name", "mpi")
    np_ = report.get("np", "?")
    lines = [f"## {report.get('benchmark', 'benchmark')} ({mpi}, np {np_})", "",
             "| metric | unit | native | wisp | ratio |", "|---|---|---|---|---|"]
    for result in report["results"]:
        ratio = result.get("ratio")
        try:
            native = fmt_number(float(result["native"]["median"]))
            wisp = fmt_number(float(result["wisp"]["median"]))
        except (TypeError, KeyError, ValueError):
            native = wisp = "?"
        shown = f"{ratio:.3f}" if isinstance(ratio, (int, float)) else "-"
        lines.append(f"| {result.get('metric')} | {result.get('unit', '')} | {native} | "
                     f"{wisp} | {shown} |")
    base = os.path.dirname(os.path.abspath(markdown_path))
    for target in written:
        rel = os.path.relpath(os.path.abspath(target), base)
        lines += ["", f"![{os.path.basename(target)}]({rel})"]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="plot.py",
        description="Draw PNG plots (native vs wisp against message size, "
                    "time, operation, ULT or thread count) "
                    "of bench/run.py JSON reports, with matplotlib.")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="directory for the PNG files (created)")
    parser.add_argument("--markdown", metavar="FILE",
                        help="append a section per report to FILE: its "
                             "table and its plots")
    parser.add_argument("reports", nargs="+", metavar="report.json")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)

    if not load_matplotlib():
        # Not an error: the benchmark test that runs plot.py has measured.
        print("plot.py: matplotlib is not installed: no plots "
              "(`make deps` installs it into .venv)", file=sys.stderr)
        return 0
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as err:
        print(f"plot.py: cannot create {args.out}: {err.strerror}",
              file=sys.stderr)
        return 1
    used, status, sections = set(), 0, []
    for path in args.reports:
        try:
            report = load_report(path)
            written = plot_report(report, path, args.out, used)
        except PlotError as err:
            print(f"plot.py: {err}", file=sys.stderr)
            status = 1
            continue
        except OSError as err:
            print(f"plot.py: cannot write a plot of {path}: {err}",
                  file=sys.stderr)
            status = 1
            continue
        if not written:
            print(f"plot.py: {path}: no metrics named <series>_<n><unit> "
                  f"(unit B, ms, ops, ult, ults or threads), nothing to "
                  f"plot", file=sys.stderr)
        for target in written:
            print(target)
        if args.markdown:
            sections.append(markdown_section(report, written, args.markdown))
    if sections:
        try:
            with open(args.markdown, "a", encoding="utf-8") as f:
                f.write("\n" + "\n".join(sections))
        except OSError as err:
            print(f"plot.py: cannot append to {args.markdown}: {err.strerror}",
                  file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
