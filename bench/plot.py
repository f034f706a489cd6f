#!/usr/bin/env python3
"""SVG plots of bench/run.py reports: native and wisp against message size.

Reads JSON reports written by `run.py --json` and draws, for each series of
size-suffixed metrics in a report (names ending in _<bytes>B, such as
latency_8B or bw_uni_1048576B; or in _<n>ms, a time such as the target's
computation in acc_flush10_busy_64ms; or in _<n>ops, a number of
operations as in put_heavy_16ops), one SVG file:

* the upper panel shows the native median and the wisp median against the
  message size, time or count (log2 axis), with the min-max range of the
  runs as whiskers
  (cut at the frame: the axis fits the medians); the y axis is logarithmic
  when the medians span a factor of 10 or more (latency, bandwidth), linear
  otherwise;
* the lower panel shows the runner's ratio, oriented as in its table
  (wisp/native for higher-is-better metrics, native/wisp for times), so that
  above 1 means wisp is faster, with a reference line at 1.0 and a dashed one
  at 0.95 (wisp 5% slower).

A size of 0, which a log axis cannot show, is drawn one step left of the
smallest other size, past a break in the axis. Metrics without such a
suffix are not drawn; a report with none is skipped with a note. One
series has one kind of suffix.

Usage: plot.py --out DIR report.json...

Files are named <benchmark>-<mpi>.svg (with -<series> added when a report
holds several series, and -2, -3, ... when a name repeats); their paths are
printed. Exit status: 0 on success, 1 when a report cannot be read or lacks
the fields of format version 1, 2 on a usage error.

Standard library only; see docs/benchmarks.md.
"""

import argparse
import json
import math
import os
import re
import sys
from xml.sax.saxutils import escape, quoteattr

SUPPORTED_FORMAT = 1
SIZE_RE = re.compile(r"^(?P<series>.+)_(?P<size>\d+)(?P<xunit>B|ms|ops)$")
SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")

# Geometry (pixels).
WIDTH = 820
MARGIN_LEFT, MARGIN_RIGHT = 80, 160
TITLE_H = 56
MAIN_H = 330
GAP_H = 34
RATIO_H = 130
BOTTOM_H = 50
HEIGHT = TITLE_H + MAIN_H + GAP_H + RATIO_H + BOTTOM_H

COLORS = {"native": "#1f5fa8", "wisp": "#d2571b", "ratio": "#2a8a3a"}
LOG_Y_SPAN = 10.0  # a log y axis from this max/min ratio of the values on
SLOWER_REF = 0.95  # the dashed line of the ratio panel


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
        match = SIZE_RE.match(str(result.get("metric", "")))
        if not match:
            continue
        ratio = result.get("ratio")
        point = {"size": int(match["size"]), "xunit": match["xunit"],
                 "unit": str(result.get("unit", "")),
                 "better": result.get("better"),
                 "native": side_summary(result, "native", path),
                 "wisp": side_summary(result, "wisp", path),
                 "ratio": float(ratio) if isinstance(ratio, (int, float))
                 else None}
        if point["better"] not in ("higher", "lower"):
            raise PlotError(f"{path}: result {result['metric']!r}: better "
                            f"must be higher or lower")
        series.setdefault(match["series"], []).append(point)
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
# Scales and ticks

def fmt_si(value):
    """Short tick label: 0.5, 20, 1.5k, 3M."""
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.3g}"


def fmt_size(size):
    """Binary size label: 0, 512, 1K, 64K, 4M."""
    for factor, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{suffix}"
    return str(size)


# The x axis of each suffix: its title, a tick label, a point's label.
X_AXES = {
    "B": ("message size (bytes, log2 scale)", fmt_size,
          lambda size: f"{fmt_size(size)}B"),
    "ms": ("milliseconds (log2 scale)", str, lambda size: f"{size} ms"),
    "ops": ("operations (log2 scale)", fmt_si, lambda size: f"{size} ops"),
}


def size_positions(sizes):
    """x position (log2 units) of each size; 0 B one step left of the rest."""
    positive = [s for s in sizes if s > 0]
    zero_at = math.log2(min(positive)) - 1 if positive else 0.0
    return [math.log2(s) if s > 0 else zero_at for s in sizes]


class Scale:
    """Maps data values to pixels, linearly or on log10 of the value."""

    def __init__(self, lo, hi, pix_lo, pix_hi, log=False):
        self.log = log
        self.lo, self.hi = (math.log10(lo), math.log10(hi)) if log \
            else (lo, hi)
        self.pix_lo, self.pix_hi = pix_lo, pix_hi

    def __call__(self, value):
        v = math.log10(value) if self.log else value
        span = self.hi - self.lo
        frac = (v - self.lo) / span if span else 0.5
        return self.pix_lo + frac * (self.pix_hi - self.pix_lo)


def nice_step(span, count=5):
    """A 1, 2 or 5 times a power of ten step giving about count ticks."""
    if span <= 0:
        return 1.0
    raw = span / count
    base = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * base:
            return mult * base
    return 10 * base


def linear_range(values, include_zero):
    """(lo, hi, ticks) of a padded linear axis covering values."""
    lo, hi = min(values), max(values)
    if include_zero:
        lo = min(lo, 0.0)
    # Headroom so that no point sits on the frame; none below a zero floor.
    pad = (hi - lo) * 0.05 or abs(hi) * 0.1 or 1.0
    hi += pad
    if not (include_zero and lo == 0):
        lo -= pad
    step = nice_step(hi - lo)
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    ticks = []
    k = 0
    while lo + k * step <= hi + step * 1e-9:
        ticks.append(round(lo + k * step, 12))
        k += 1
    return lo, hi, ticks


def log_range(values):
    """(lo, hi, ticks) of a log axis covering positive values."""
    lo, hi = min(values), max(values)
    e_lo, e_hi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if e_hi == e_lo:
        e_hi += 1
    mults = (1,) if e_hi - e_lo > 3 else (1, 2, 5)
    ticks = [m * 10.0 ** e for e in range(e_lo, e_hi + 1) for m in mults]
    ticks = [t for t in ticks if 10.0 ** e_lo <= t <= 10.0 ** e_hi]
    return 10.0 ** e_lo, 10.0 ** e_hi, ticks


def use_log_y(values):
    positive = all(v > 0 for v in values)
    return positive and max(values) / min(values) >= LOG_Y_SPAN


# --------------------------------------------------------------------------
# SVG

class Svg:
    """A list of SVG element strings with small helpers."""

    def __init__(self):
        self.parts = []

    def add(self, text):
        self.parts.append(text)

    def text(self, x, y, content, size=12, anchor="start", cls=None,
             extra=""):
        cls_attr = f' class="{cls}"' if cls else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                 f'text-anchor="{anchor}"{cls_attr}{extra}>'
                 f'{escape(content)}</text>')

    def line(self, x1, y1, x2, y2, stroke="#000", width=1.0, dash=None,
             cls=None):
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        cls_attr = f' class="{cls}"' if cls else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                 f'y2="{y2:.1f}" stroke="{stroke}" stroke-width="{width}"'
                 f'{dash_attr}{cls_attr}/>')

    def polyline(self, points, color, cls, width=2.0, dash=None):
        if not points:
            return
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<polyline class="{cls}" points="{coords}" fill="none" '
                 f'stroke="{color}" stroke-width="{width}"{dash_attr}/>')

    def marker(self, x, y, color, shape, tooltip, cls):
        title = f"<title>{escape(tooltip)}</title>"
        if shape == "square":
            self.add(f'<rect class="{cls}" x="{x - 3.5:.1f}" '
                     f'y="{y - 3.5:.1f}" width="7" height="7" '
                     f'fill="{color}">{title}</rect>')
        else:
            self.add(f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" '
                     f'r="3.5" fill="{color}">{title}</circle>')

    def document(self, title):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
                f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
                f'font-family="sans-serif">\n<title>{escape(title)}</title>\n'
                f'<rect width="100%" height="100%" fill="#fff"/>\n')
        return head + "\n".join(self.parts) + "\n</svg>\n"


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


def draw_x_axis(svg, xscale, sizes, positions, y_top, y_bottom, labels,
                tick=fmt_size):
    """Vertical grid lines at each size; labels under y_bottom if asked."""
    thin = len(sizes) > 13
    for size, pos in zip(sizes, positions):
        x = xscale(pos)
        svg.line(x, y_top, x, y_bottom, stroke="#e4e4e4")
        if labels:
            svg.line(x, y_bottom, x, y_bottom + 4, stroke="#444")
            exponent = int(round(math.log2(size))) if size > 0 else 0
            if not thin or size == 0 or exponent % 2 == 0:
                svg.text(x, y_bottom + 17, tick(size), size=11,
                         anchor="middle")
    if labels and 0 in sizes and len(sizes) > 1:
        # A break between 0 B and the log2 part of the axis.
        x = (xscale(positions[0]) + xscale(positions[1])) / 2
        for dx in (-3, 3):
            svg.line(x + dx - 3, y_bottom + 5, x + dx + 3, y_bottom - 5,
                     stroke="#444", width=1.2)


def draw_y_axis(svg, yscale, ticks, x_left, x_right, fmt):
    for tick in ticks:
        y = yscale(tick)
        svg.line(x_left, y, x_right, y, stroke="#e4e4e4")
        svg.line(x_left - 4, y, x_left, y, stroke="#444")
        svg.text(x_left - 7, y + 4, fmt(tick), size=11, anchor="end")


def render_svg(report, series_name, points):
    """The SVG text of one series of one report."""
    sizes = [p["size"] for p in points]
    positions = size_positions(sizes)
    unit, better = points[0]["unit"], points[0]["better"]
    x_title, x_tick, x_label = X_AXES[points[0]["xunit"]]
    benchmark = str(report.get("benchmark", "?"))
    mpi_name, mpi_version, context = report_context(report)

    x_left, x_right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    main_top = TITLE_H
    main_bottom = main_top + MAIN_H
    ratio_top = main_bottom + GAP_H
    ratio_bottom = ratio_top + RATIO_H

    span_lo, span_hi = min(positions) - 0.5, max(positions) + 0.5
    if span_hi - span_lo < 2:
        span_lo, span_hi = span_lo - 1, span_hi + 1
    xscale = Scale(span_lo, span_hi, x_left, x_right)

    # The axis fits the medians; a whisker reaching past it (one run
    # disturbed by another process) is cut at the frame.
    values = [p[mode]["median"] for p in points for mode in ("native", "wisp")]
    log_y = use_log_y(values)
    if log_y:
        y_lo, y_hi, y_ticks = log_range(values)
    else:
        y_lo, y_hi, y_ticks = linear_range(values,
                                           include_zero=min(values) >= 0)
    yscale = Scale(y_lo, y_hi, main_bottom, main_top, log=log_y)

    ratios = [p["ratio"] for p in points if p["ratio"] is not None]
    r_lo, r_hi, r_ticks = linear_range(
        ratios + [SLOWER_REF - 0.05, 1.05], include_zero=False)
    rscale = Scale(r_lo, r_hi, ratio_bottom, ratio_top)

    svg = Svg()
    title = f"{benchmark}: {series_name} ({unit}), {mpi_name}"
    svg.text(x_left, 22, title, size=16, cls="title")
    svg.text(x_left, 41, f"{mpi_version}; {context}", size=10,
             extra=' fill="#555"')

    # Upper panel: medians with min-max whiskers.
    draw_x_axis(svg, xscale, sizes, positions, main_top, main_bottom, False)
    draw_y_axis(svg, yscale, y_ticks, x_left, x_right, fmt_si)
    shapes = {"native": "circle", "wisp": "square"}
    for mode in ("native", "wisp"):
        color = COLORS[mode]
        line = []
        for p, pos in zip(points, positions):
            x = xscale(pos)
            s = p[mode]
            ys = [min(max(yscale(v), main_top), main_bottom)
                  if v > 0 or not log_y else main_bottom
                  for v in (s["min"], s["max"])]
            svg.line(x, ys[0], x, ys[1], stroke=color, width=1.2,
                     cls=f"range-{mode}")
            line.append((x, yscale(s["median"])))
        svg.polyline(line, color, f"series series-{mode}",
                     dash="6,3" if mode == "wisp" else None)
        for p, (x, y) in zip(points, line):
            s = p[mode]
            tip = (f"{x_label(p['size'])} {mode}: median {s['median']:.4g} "
                   f"{unit} (min {s['min']:.4g}, max {s['max']:.4g})")
            svg.marker(x, y, color, shapes[mode], tip, f"point-{mode}")
    svg.add(f'<rect x="{x_left}" y="{main_top}" width="{x_right - x_left}" '
            f'height="{MAIN_H}" fill="none" stroke="#444"/>')
    y_label = f"{series_name} ({unit}, {better} is better" + \
        (", log scale)" if log_y else ")")
    mid = (main_top + main_bottom) / 2
    svg.text(18, mid, y_label, size=12, anchor="middle",
             extra=f' transform="rotate(-90 18 {mid:.1f})"')

    # Lower panel: the oriented ratio, references at 1.0 and SLOWER_REF.
    draw_x_axis(svg, xscale, sizes, positions, ratio_top, ratio_bottom, True,
                x_tick)
    draw_y_axis(svg, rscale, r_ticks, x_left, x_right, lambda v: f"{v:g}")
    svg.line(x_left, rscale(1.0), x_right, rscale(1.0), stroke="#222",
             width=1.3, cls="ref-1")
    svg.line(x_left, rscale(SLOWER_REF), x_right, rscale(SLOWER_REF),
             stroke="#888", dash="4,3", cls="ref-slower")
    svg.text(x_right + 5, rscale(1.0) + 4, "1.0 parity", size=10)
    svg.text(x_right + 5, rscale(SLOWER_REF) + 12,
             f"{SLOWER_REF:g} (5% slower)", size=10, extra=' fill="#666"')
    segment, segments = [], []
    for p, pos in zip(points, positions):
        if p["ratio"] is None:  # a zero median: leave a gap
            if segment:
                segments.append(segment)
            segment = []
            continue
        segment.append((xscale(pos), rscale(p["ratio"]), p))
    if segment:
        segments.append(segment)
    for seg in segments:
        svg.polyline([(x, y) for x, y, _ in seg], COLORS["ratio"],
                     "series series-ratio", width=1.6)
        for x, y, p in seg:
            svg.marker(x, y, COLORS["ratio"], "circle",
                       f"{x_label(p['size'])}: ratio {p['ratio']:.3f}",
                       "point-ratio")
    svg.add(f'<rect x="{x_left}" y="{ratio_top}" '
            f'width="{x_right - x_left}" height="{RATIO_H}" fill="none" '
            f'stroke="#444"/>')
    ratio_name = "wisp/native" if better == "higher" else "native/wisp"
    mid = (ratio_top + ratio_bottom) / 2
    svg.text(18, mid, ratio_name, size=12, anchor="middle",
             extra=f' transform="rotate(-90 18 {mid:.1f})"')
    svg.text(36, mid, "(>1: wisp faster)", size=10, anchor="middle",
             extra=f' transform="rotate(-90 36 {mid:.1f})" fill="#555"')
    svg.text((x_left + x_right) / 2, HEIGHT - 12,
             x_title, size=12, anchor="middle")

    # Legend, right of the upper panel.
    lx, ly = x_right + 14, main_top + 14
    entries = [("native", f"native {mpi_name}"), ("wisp", "wisp")]
    for i, (mode, label) in enumerate(entries):
        y = ly + 20 * i
        svg.line(lx, y, lx + 26, y, stroke=COLORS[mode], width=2,
                 dash="6,3" if mode == "wisp" else None)
        svg.marker(lx + 13, y, COLORS[mode], shapes[mode], label,
                   f"legend-{mode}")
        svg.text(lx + 32, y + 4, label, size=12, cls=f"legend legend-{mode}")
    svg.text(lx, ly + 44, "median of the runs;", size=10,
             extra=' fill="#555"')
    svg.text(lx, ly + 57, "bars: min to max of", size=10,
             extra=' fill="#555"')
    svg.text(lx, ly + 70, "the runs (cut at frame)", size=10,
             extra=' fill="#555"')
    y = ratio_top + 14
    svg.line(lx, y, lx + 26, y, stroke=COLORS["ratio"], width=1.6)
    svg.text(lx + 32, y + 4, "ratio", size=12, cls="legend legend-ratio")

    return svg.document(title)


# --------------------------------------------------------------------------
# Files

def safe_name(text):
    return SAFE_NAME_RE.sub("_", text).strip("._") or "report"


def plot_report(report, path, out_dir, used):
    """Writes the report's SVG files; returns their paths.

    used is the set of file names already written in this run.
    """
    series = extract_series(report, path)
    mpi = (report.get("mpi") or {}).get("name", "mpi")
    base = safe_name(f"{report.get('benchmark', 'benchmark')}-{mpi}")
    written = []
    for name, points in series.items():
        stem = base if len(series) == 1 else f"{base}-{safe_name(name)}"
        file_name, n = f"{stem}.svg", 1
        while file_name in used:
            n += 1
            file_name = f"{stem}-{n}.svg"
        used.add(file_name)
        target = os.path.join(out_dir, file_name)
        with open(target, "w", encoding="utf-8") as f:
            f.write(render_svg(report, name, points))
        written.append(target)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="plot.py",
        description="Draw SVG plots (native vs wisp against message size, "
                    "time or operation count) "
                    "of bench/run.py JSON reports.")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="directory for the SVG files (created)")
    parser.add_argument("reports", nargs="+", metavar="report.json")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)

    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as err:
        print(f"plot.py: cannot create {args.out}: {err.strerror}",
              file=sys.stderr)
        return 1
    used, status = set(), 0
    for path in args.reports:
        try:
            written = plot_report(load_report(path), path, args.out, used)
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
            print(f"plot.py: {path}: no metrics named <series>_<n>B, "
                  f"_<n>ms or _<n>ops, nothing to plot", file=sys.stderr)
        for target in written:
            print(target)
    return status


if __name__ == "__main__":
    sys.exit(main())
