#!/usr/bin/env python3
"""Unit tests of the benchmark plotter bench/plot.py.

Fast and MPI-free: small synthetic reports in the layout run.py writes.
The drawing is checked on the matplotlib Figure that plot.py builds (its
lines carry the plotted numbers) and on the PNG files it writes; these
tests are skipped when matplotlib is missing (the python of .venv, which
`make deps` creates, has it), the metric parsing and report checks are not.
Run: .venv/bin/python bench/test_plot.py
"""

import contextlib
import io
import json
import math
import os
import struct
import sys
import tempfile
import unittest
from unittest import mock

# Keep the source tree free of __pycache__ when ctest imports plot.py.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import plot  # noqa: E402  (needs the path set up above)

HAVE_MATPLOTLIB = plot.load_matplotlib()
needs_matplotlib = unittest.skipUnless(
    HAVE_MATPLOTLIB, "matplotlib is not installed (`make deps` installs it "
    "into .venv)")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def result(metric, native, wisp, unit="us", better="lower"):
    """One entry of a report's results, as run.py writes it."""
    def side(median):
        return {"median": median, "min": median * 0.95,
                "max": median * 1.1, "n": 5}
    num, den = (wisp, native) if better == "higher" else (native, wisp)
    return {"metric": metric, "unit": unit, "better": better,
            "native": side(native), "wisp": side(wisp),
            "ratio": num / den if den else None,
            "ratio_wisp_over_native": wisp / native if native else None,
            "target": None, "met": None}


def report(benchmark, results, mpi="mpich"):
    return {"format_version": 1, "benchmark": benchmark,
            "command": ["bench/p2p_latency"], "np": 2, "reps": 5,
            "warmup_runs": 1, "env": {}, "wisprun": "wisprun",
            "mpi": {"name": mpi, "version": "HYDRA build details: 4.0.2"},
            "machine": {"hostname": "vm", "cores": 2},
            "git_revision": "abc1234",
            "timestamp": "2024-01-01T00:00:00+00:00",
            "targets": [], "results": results, "samples": []}


LATENCY_SIZES = [0, 1, 2, 4, 8, 1024, 1 << 20, 4 << 20]
ULT_COUNTS = [1, 2, 4, 8, 16]


def latency_report(mpi="mpich"):
    return report("p2p_latency", [
        result(f"latency_{s}B", 0.3 + s / 4e3, 0.31 + s / 4.1e3)
        for s in LATENCY_SIZES], mpi)


def bandwidth_report():
    return report("p2p_bw_uni", [
        result(f"bw_uni_{s}B", s * 2.0, s * 2.1, unit="MB/s",
               better="higher") for s in (1, 2, 4, 64, 4096, 4 << 20)])


def ult_msgrate_report(mode):
    """bench/ult_msgrate's metrics in mode threads or ults."""
    results = [result(f"rate_{n}{mode}", 2e7 + n, 1.9e7, unit="msg/s",
                      better="higher") for n in ULT_COUNTS]
    if mode == "ults":
        results = [result("plain_rate", 2e8, 2e8, "msg/s", "higher")] + \
            results + [result("ults16_vs_plain", 0.9, 0.9, "ratio", "higher")]
    return report(f"ult_msgrate_{mode}", results)


def ult_gcu_report():
    """bench/ult_gcu's metrics: time_<N>ult_ms, hidden_<N>ult_pct."""
    return report("ult_gcu", [
        result(f"time_{n}ult_ms", 8.0, 8.0 / (1 + n / 16), unit="ms")
        for n in ULT_COUNTS] + [
        result(f"hidden_{n}ult_pct", 0.5 - n / 100, 10.0 + n, unit="%",
               better="higher") for n in ULT_COUNTS[1:]] + [
        result("comm_pct", 46.0, 48.0, unit="%")])


def medians(doc, metric_prefix, mode):
    return [r[mode]["median"] for r in doc["results"]
            if r["metric"].startswith(metric_prefix)]


class TempDirTestCase(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.out = os.path.join(self.dir, "plots")

    def write_json(self, name, document):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f)
        return path

    def run_main(self, *argv):
        """plot.main's exit status, stdout and stderr."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = plot.main(list(argv))
        return status, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------
# Metric names and reports (no matplotlib needed)

class MetricNameTest(unittest.TestCase):
    def assert_parses(self, cases):
        """Each name parses to its (series, size, x unit)."""
        for name, want in cases.items():
            self.assertEqual(plot.parse_metric(name), want, name)

    def test_existing_names_parse_as_before(self):
        cases = {
            "latency_8B": ("latency", 8, "B"),
            "latency_0B": ("latency", 0, "B"),
            "latency_fresh_4194304B": ("latency_fresh", 4194304, "B"),
            "bw_uni_1048576B": ("bw_uni", 1048576, "B"),
            "send_blocking_8B": ("send_blocking", 8, "B"),
            "msgrate_pair_8B": ("msgrate_pair", 8, "B"),
            "acc_flush10_busy_64ms": ("acc_flush10_busy", 64, "ms"),
            "fence_acc_fence_busy_0ms": ("fence_acc_fence_busy", 0, "ms"),
            "put_heavy_16ops": ("put_heavy", 16, "ops"),
        }
        self.assert_parses(cases)

    def test_ult_and_thread_counts(self):
        cases = {
            "rate_16ults": ("rate", 16, "ult"),
            "rate_1ults": ("rate", 1, "ult"),
            "rate_8threads": ("rate", 8, "threads"),
            "time_8ult_ms": ("time_ms", 8, "ult"),
            "hidden_2ult_pct": ("hidden_pct", 2, "ult"),
            "x_4B_us": ("x_us", 4, "B"),
            # Of two sized parts the last is the point's.
            "a_8B_16ms": ("a_8B", 16, "ms"),
        }
        self.assert_parses(cases)

    def test_collective_modes(self):
        # bench/coll's modes: a series per collective and mode.
        self.assert_parses({
            "allreduce_8B": ("allreduce", 8, "B"),
            "allreduce_1048576B_vary": ("allreduce_vary", 1048576, "B"),
            "reduce_scatter_block_65536B_first":
                ("reduce_scatter_block_first", 65536, "B"),
        })
        self.assertIsNone(plot.parse_metric("barrier_first"))

    def test_scalars_are_not_points(self):
        for name in ("acc_flush10_busy100ms_ms", "acc_flush10_busy300ms_pct",
                     "ults16_vs_plain", "plain_rate", "comm_pct",
                     "testany_wild4_ns", "ra_time_s", "send_proc_null_rate",
                     "latency_B", "8B", "_8B", "latency_8", "latency_8Bytes",
                     "latency_8b", "rate_16ult_", "ults_16_rate"):
            self.assertIsNone(plot.parse_metric(name), name)


class ExtractTest(unittest.TestCase):
    def test_points_sorted_with_ratio_and_unit(self):
        doc = report("lat", [result("latency_16B", 2.0, 1.0),
                             result("latency_0B", 1.0, 0.0),
                             result("latency_8B", 1.5, 1.5),
                             result("send_proc_null_rate", 1.0, 1.0)])
        series = plot.extract_series(doc)
        self.assertEqual(list(series), ["latency"])
        points = series["latency"]
        self.assertEqual([p["size"] for p in points], [0, 8, 16])
        self.assertEqual([p["ratio"] for p in points], [None, 1.0, 2.0])
        self.assertEqual(points[2]["native"],
                         {"median": 2.0, "min": 1.9, "max": 2.2})
        self.assertEqual({(p["unit"], p["better"], p["xunit"])
                          for p in points}, {("us", "lower", "B")})

    def test_ult_reports(self):
        series = plot.extract_series(ult_msgrate_report("ults"))
        self.assertEqual(list(series), ["rate"])  # plain_rate etc. left out
        self.assertEqual([p["size"] for p in series["rate"]], ULT_COUNTS)
        self.assertEqual(series["rate"][0]["xunit"], "ult")
        series = plot.extract_series(ult_msgrate_report("threads"))
        self.assertEqual([p["xunit"] for p in series["rate"]],
                         ["threads"] * len(ULT_COUNTS))
        series = plot.extract_series(ult_gcu_report())
        self.assertEqual(sorted(series), ["hidden_pct", "time_ms"])
        self.assertEqual([p["size"] for p in series["time_ms"]], ULT_COUNTS)
        self.assertEqual([p["size"] for p in series["hidden_pct"]],
                         ULT_COUNTS[1:])

    def test_ult_and_ults_are_one_axis(self):
        series = plot.extract_series(report("u", [
            result("rate_1ult", 1.0, 1.0), result("rate_2ults", 1.0, 1.0)]))
        self.assertEqual([p["size"] for p in series["rate"]], [1, 2])
        with self.assertRaisesRegex(plot.PlotError, "x axes"):
            plot.extract_series(report("u", [
                result("rate_1ults", 1.0, 1.0),
                result("rate_2threads", 1.0, 1.0)]))

    def test_series_mixing_x_axes_or_units(self):
        with self.assertRaisesRegex(plot.PlotError, "mixes units"):
            plot.extract_series(report("m", [result("t_8B", 1.0, 1.0),
                                             result("t_8ms", 1.0, 1.0)]))
        with self.assertRaisesRegex(plot.PlotError, "mixes units"):
            plot.extract_series(report("m", [
                result("t_8B", 1.0, 1.0),
                result("t_16B", 1.0, 1.0, unit="ms")]))

    def test_repeated_size_and_bad_better(self):
        with self.assertRaisesRegex(plot.PlotError, "repeats a size"):
            plot.extract_series(report("r", [result("t_8B", 1.0, 1.0),
                                             result("t_8B", 2.0, 2.0)]))
        bad = result("t_8B", 1.0, 1.0)
        bad["better"] = "more"
        with self.assertRaisesRegex(plot.PlotError, "higher or lower"):
            plot.extract_series(report("b", [bad]))

    def test_malformed_result(self):
        doc = latency_report()
        del doc["results"][0]["wisp"]
        with self.assertRaisesRegex(plot.PlotError, "lacks numeric wisp"):
            plot.extract_series(doc, "m.json")
        doc = latency_report()
        doc["results"].append("latency_8B")
        with self.assertRaisesRegex(plot.PlotError, "not an object"):
            plot.extract_series(doc)


class LoadReportTest(TempDirTestCase):
    def test_errors(self):
        bad_json = os.path.join(self.dir, "bad.json")
        with open(bad_json, "w", encoding="utf-8") as f:
            f.write("{not json")
        cases = {
            bad_json: "not JSON",
            os.path.join(self.dir, "missing.json"): "cannot read",
            self.write_json("v.json", dict(latency_report(),
                                           format_version=99)):
                "format_version 99",
            self.write_json("l.json", [1, 2]): "no JSON object",
            self.write_json("r.json", dict(latency_report(), results={})):
                "no 'results' list",
        }
        for path, message in cases.items():
            with self.assertRaisesRegex(plot.PlotError, message):
                plot.load_report(path)

    def test_good_report(self):
        path = self.write_json("good.json", latency_report())
        self.assertEqual(plot.load_report(path), latency_report())

    def test_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as cm:
                plot.main(["--out", self.out])
        self.assertEqual(cm.exception.code, 2)

    def test_without_matplotlib_a_note_and_exit_0(self):
        path = self.write_json("good.json", latency_report())
        # A None entry makes `import matplotlib` raise ImportError.
        hidden = {name: None for name in ("matplotlib", "matplotlib.figure",
                                          "matplotlib.ticker")}
        with mock.patch.dict(sys.modules, hidden):
            status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("matplotlib", err)
        self.assertIn("make deps", err)
        self.assertFalse(os.path.exists(self.out))


# --------------------------------------------------------------------------
# Drawing (matplotlib)

def figure_of(doc, name):
    return plot.series_figure(doc, name, plot.extract_series(doc)[name])


@needs_matplotlib
class FigureTest(unittest.TestCase):
    def line(self, ax, gid):
        """The one line of ax with this gid."""
        lines = [ln for ln in ax.lines if ln.get_gid() == gid]
        self.assertEqual(len(lines), 1, gid)
        return lines[0]

    def test_latency_lines_carry_medians_and_ratios(self):
        doc = latency_report()
        fig = figure_of(doc, "latency")
        self.assertEqual(len(fig.axes), 2)
        ax, ax_ratio = fig.axes
        xs = [0.5] + LATENCY_SIZES[1:]  # 0 B one step left of 1 B
        for mode, style, marker in (("native", "-", "o"),
                                    ("wisp", "--", "s")):
            line = self.line(ax, mode)
            self.assertEqual(list(line.get_ydata()),
                             medians(doc, "latency_", mode))
            self.assertEqual(list(line.get_xdata()), xs)
            self.assertEqual(line.get_linestyle(), style)
            self.assertEqual(line.get_marker(), marker)
        ratio = self.line(ax_ratio, "ratio")
        self.assertEqual(list(ratio.get_ydata()),
                         [r["ratio"] for r in doc["results"]])
        self.assertEqual(list(ratio.get_xdata()), xs)
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertEqual(legend, ["native mpich", "wisp"])

    def test_error_bars_span_min_to_max(self):
        doc = latency_report()
        ax = figure_of(doc, "latency").axes[0]
        self.assertEqual(len(ax.containers), 2)
        for mode, container in zip(("native", "wisp"), ax.containers):
            (bars,) = container.lines[2]
            spans = [(seg[0][1], seg[1][1]) for seg in bars.get_segments()]
            want = [(r[mode]["min"], r[mode]["max"]) for r in doc["results"]]
            for got, expected in zip(spans, want):
                self.assertAlmostEqual(got[0], expected[0])
                self.assertAlmostEqual(got[1], expected[1])
            self.assertEqual(len(spans), len(want))

    def test_reference_lines(self):
        ax_ratio = figure_of(latency_report(), "latency").axes[1]
        parity = self.line(ax_ratio, "ref-1")
        slower = self.line(ax_ratio, "ref-slower")
        self.assertEqual(list(parity.get_ydata()), [1.0, 1.0])
        self.assertEqual(parity.get_linestyle(), "-")
        self.assertEqual(list(slower.get_ydata()), [0.95, 0.95])
        self.assertEqual(slower.get_linestyle(), "--")
        self.assertIn("5% slower", slower.get_label())
        # Both reference lines are in view.
        lo, hi = ax_ratio.get_ylim()
        self.assertLess(lo, 0.95)
        self.assertGreater(hi, 1.0)

    def test_missing_ratio_leaves_a_gap(self):
        doc = report("zero", [result("latency_1B", 1.0, 1.0),
                              result("latency_2B", 0.0, 0.0),
                              result("latency_4B", 1.0, 1.0)])
        fig = figure_of(doc, "latency")
        ydata = list(self.line(fig.axes[1], "ratio").get_ydata())
        self.assertEqual(ydata[0], 1.0)
        self.assertTrue(math.isnan(ydata[1]))  # matplotlib breaks the line
        self.assertEqual(ydata[2], 1.0)
        # A zero median rules out the log axis but is still drawn.
        self.assertEqual(fig.axes[0].get_yscale(), "linear")
        self.assertEqual(list(self.line(fig.axes[0], "native").get_ydata()),
                         [1.0, 0.0, 1.0])

    def test_log_y_from_a_factor_of_10(self):
        def yscale(native_lo, native_hi):
            doc = report("t", [result("t_1B", native_lo, native_lo),
                               result("t_2B", native_hi, native_hi)])
            return figure_of(doc, "t").axes[0].get_yscale()
        self.assertEqual(yscale(1.0, 10.0), "log")
        self.assertEqual(yscale(1.0, 9.9), "linear")
        self.assertEqual(figure_of(latency_report(), "latency")
                         .axes[0].get_yscale(), "log")
        self.assertEqual(figure_of(bandwidth_report(), "bw_uni")
                         .axes[0].get_yscale(), "log")

    def test_y_axis_fits_the_medians(self):
        doc = latency_report()
        doc["results"][3]["native"]["max"] = 1e6  # an outlier run
        ax = figure_of(doc, "latency").axes[0]
        lo, hi = ax.get_ylim()
        meds = medians(doc, "latency_", "native") + \
            medians(doc, "latency_", "wisp")
        self.assertLess(lo, min(meds))
        self.assertGreater(hi, max(meds))
        self.assertLess(hi, 1e4)  # the outlier's bar is cut at the frame

    def test_linear_axis_of_positive_values_starts_at_0(self):
        doc = report("msgrate_pair", [
            result("msgrate_pair_8B", 2.5e6, 2.4e6, unit="msg/s",
                   better="higher")])
        ax, ax_ratio = figure_of(doc, "msgrate_pair").axes
        self.assertEqual(ax.get_yscale(), "linear")
        lo, hi = ax.get_ylim()
        self.assertEqual(lo, 0.0)
        self.assertGreater(hi, 2.5e6)
        self.assertEqual(list(self.line(ax, "wisp").get_ydata()), [2.4e6])
        self.assertIn("wisp/native", ax_ratio.get_ylabel())

    def test_x_axis_is_log2_with_size_labels(self):
        fig = figure_of(latency_report(), "latency")
        for ax in fig.axes:
            self.assertEqual(ax.get_xscale(), "log")
            self.assertEqual(ax.xaxis.get_transform().base, 2)
        ax_ratio = fig.axes[1]
        self.assertEqual(list(ax_ratio.get_xticks()),
                         [0.5] + LATENCY_SIZES[1:])
        labels = [t.get_text() for t in ax_ratio.get_xticklabels()]
        self.assertEqual(labels, ["0", "1", "2", "4", "8", "1K", "1M", "4M"])
        self.assertEqual(ax_ratio.get_xlabel(),
                         "message size (bytes, log2 scale)")
        lo, hi = ax_ratio.get_xlim()
        self.assertLess(lo, 0.5)
        self.assertGreater(hi, 4 << 20)

    def test_long_series_labels_every_other_power(self):
        sizes = [0] + [1 << e for e in range(23)]
        doc = report("lat", [result(f"latency_{s}B", 1.0 + s, 1.0 + s)
                             for s in sizes])
        labels = [t.get_text() for t in
                  figure_of(doc, "latency").axes[1].get_xticklabels()]
        self.assertEqual(len(labels), len(sizes))
        self.assertEqual(labels[:6], ["0", "1", "", "4", "", "16"])
        self.assertEqual(labels[-1], "4M")

    def test_titles_and_labels(self):
        fig = figure_of(latency_report(), "latency")
        ax, ax_ratio = fig.axes
        self.assertEqual(fig.get_suptitle(),
                         "p2p_latency: latency (us), mpich")
        context = ax.get_title(loc="left")
        for part in ("HYDRA build details: 4.0.2", "np 2", "5 reps",
                     "git abc1234", "host vm", "2024-01-01T00:00:00"):
            self.assertIn(part, context)
        self.assertIn("lower is better", ax.get_ylabel())
        self.assertIn("native/wisp", ax_ratio.get_ylabel())  # times
        self.assertIn("(>1: wisp faster)", ax_ratio.get_ylabel())

    def test_x_titles_per_unit(self):
        busy = report("rma_busy_passive", [
            result(f"acc_flush10_busy_{b}ms", b + 0.01, 0.02, unit="ms")
            for b in (0, 1, 4, 16, 64, 256)] + [
            result(f"put_heavy_{k}ops", k * 0.1, k * 0.05, unit="ms")
            for k in (1, 4, 16)])
        cases = [
            (busy, "acc_flush10_busy", "milliseconds (log2 scale)",
             ["0", "1", "4", "16", "64", "256"]),
            (busy, "put_heavy", "operations (log2 scale)", ["1", "4", "16"]),
            (ult_msgrate_report("ults"), "rate",
             "user-level threads (log2 scale)", ["1", "2", "4", "8", "16"]),
            (ult_msgrate_report("threads"), "rate", "threads (log2 scale)",
             ["1", "2", "4", "8", "16"]),
            (ult_gcu_report(), "hidden_pct",
             "user-level threads (log2 scale)", ["2", "4", "8", "16"]),
        ]
        for doc, name, title, labels in cases:
            ax_ratio = figure_of(doc, name).axes[1]
            self.assertEqual(ax_ratio.get_xlabel(), title, name)
            self.assertEqual([t.get_text() for t in
                              ax_ratio.get_xticklabels()], labels, name)

    def test_ult_series_plot_their_values(self):
        doc = ult_gcu_report()
        fig = figure_of(doc, "time_ms")
        self.assertEqual(fig.get_suptitle(), "ult_gcu: time_ms (ms), mpich")
        self.assertEqual(list(self.line(fig.axes[0], "wisp").get_ydata()),
                         medians(doc, "time_", "wisp"))
        self.assertEqual(list(self.line(fig.axes[0], "wisp").get_xdata()),
                         ULT_COUNTS)
        fig = figure_of(doc, "hidden_pct")
        self.assertEqual(list(self.line(fig.axes[1], "ratio").get_ydata()),
                         [r["ratio"] for r in doc["results"]
                          if r["metric"].startswith("hidden_")])
        self.assertIn("higher is better", fig.axes[0].get_ylabel())
        # The x axis fits the counts 2-16 (error bars do not stretch it).
        lo, hi = fig.axes[0].get_xlim()
        self.assertTrue(1.0 < lo < 2.0 and 16.0 < hi < 32.0, (lo, hi))


# --------------------------------------------------------------------------
# Files (matplotlib)

@needs_matplotlib
class EndToEndTest(TempDirTestCase):
    def assert_png(self, path):
        """path is a PNG of the figure's size."""
        with open(path, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], PNG_MAGIC, path)
        width, height = struct.unpack(">II", head[16:24])  # IHDR
        self.assertEqual((width, height),
                         (round(plot.FIG_SIZE[0] * plot.DPI),
                          round(plot.FIG_SIZE[1] * plot.DPI)))

    def test_latency_plot(self):
        path = self.write_json("bench-p2p_latency.json", latency_report())
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        png = os.path.join(self.out, "p2p_latency-mpich.png")
        self.assertEqual(out.split(), [png])
        self.assert_png(png)
        self.assertEqual(os.listdir(self.out), ["p2p_latency-mpich.png"])

    def test_several_files_and_repeated_names(self):
        paths = [self.write_json("a.json", bandwidth_report()),
                 self.write_json("b.json", latency_report("openmpi")),
                 self.write_json("c.json", latency_report("openmpi"))]
        status, out, err = self.run_main("--out", self.out, *paths)
        self.assertEqual(status, 0, err)
        names = [os.path.basename(p) for p in out.split()]
        self.assertEqual(names, ["p2p_bw_uni-mpich.png",
                                 "p2p_latency-openmpi.png",
                                 "p2p_latency-openmpi-2.png"])
        for path in out.split():
            self.assert_png(path)

    def test_several_series_in_one_report_and_unsized_metrics(self):
        path = self.write_json("x.json", report("mixed", [
            result("send_proc_null_rate", 1e8, 1e8, "calls/s", "higher"),
            result("latency_8B", 1.0, 1.0), result("latency_16B", 1.1, 1.0),
            result("bw_uni_8B", 10.0, 11.0, "MB/s", "higher")]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        self.assertEqual(sorted(os.path.basename(p) for p in out.split()),
                         ["mixed-mpich-bw_uni.png", "mixed-mpich-latency.png"])

    def test_busy_time_and_operation_count_files(self):
        path = self.write_json("b.json", report("rma_busy_passive", [
            result(f"acc_flush10_busy_{b}ms", b + 0.01, 0.02, unit="ms")
            for b in (0, 1, 4, 16, 64, 256)] + [
            result(f"put_heavy_{k}ops", k * 0.1, k * 0.05, unit="ms")
            for k in (1, 4, 16)]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        self.assertEqual(sorted(os.path.basename(f) for f in out.split()),
                         ["rma_busy_passive-mpich-acc_flush10_busy.png",
                          "rma_busy_passive-mpich-put_heavy.png"])
        for path in out.split():
            self.assert_png(path)

    def test_ult_reports(self):
        paths = [self.write_json("u.json", ult_msgrate_report("ults")),
                 self.write_json("t.json", ult_msgrate_report("threads")),
                 self.write_json("g.json", ult_gcu_report())]
        status, out, err = self.run_main("--out", self.out, *paths)
        self.assertEqual(status, 0, err)
        self.assertEqual(err, "")
        self.assertEqual([os.path.basename(p) for p in out.split()],
                         ["ult_msgrate_ults-mpich.png",
                          "ult_msgrate_threads-mpich.png",
                          "ult_gcu-mpich-time_ms.png",
                          "ult_gcu-mpich-hidden_pct.png"])
        for path in out.split():
            self.assert_png(path)

    def test_markdown_section_appended(self):
        doc = report("coll", [
            result("barrier", 0.5, 0.1),
            result("allreduce_8B", 0.3, 0.1), result("allreduce_65536B", 20.0, 8.0),
            result("allreduce_8B_first", 30.0, 60.0),
            result("allreduce_65536B_first", 40.0, 80.0)])
        path = self.write_json("coll.json", doc)
        md = os.path.join(self.dir, "report.md")
        with open(md, "w", encoding="utf-8") as f:
            f.write("# Report\n")
        status, out, err = self.run_main("--out", self.out, "--markdown", md, path)
        self.assertEqual(status, 0, err)
        with open(md, encoding="utf-8") as f:
            text = f.read()
        self.assertTrue(text.startswith("# Report\n"))
        self.assertIn("## coll (mpich, np 2)", text)
        self.assertIn("| barrier | us | 0.5 | 0.1 | 5.000 |", text)
        self.assertIn("| allreduce_8B_first | us | 30 | 60 | 0.500 |", text)
        self.assertIn("![coll-mpich-allreduce.png](plots/coll-mpich-allreduce.png)", text)
        self.assertIn("(plots/coll-mpich-allreduce_first.png)", text)
        for path in out.split():
            self.assert_png(path)

    def test_odd_names_are_made_safe(self):
        doc = latency_report()
        doc["benchmark"] = 'a<b & "c"'
        path = self.write_json("e.json", doc)
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        self.assertEqual(os.path.basename(out.strip()), "a_b_c_-mpich.png")
        self.assert_png(out.strip())
        self.assertTrue(figure_of(doc, "latency").get_suptitle()
                        .startswith('a<b & "c": latency'))

    def test_bad_reports_exit_1_and_good_ones_still_plot(self):
        bad_json = os.path.join(self.dir, "bad.json")
        with open(bad_json, "w", encoding="utf-8") as f:
            f.write("{not json")
        wrong_version = self.write_json("v.json", dict(latency_report(),
                                                       format_version=99))
        missing = os.path.join(self.dir, "missing.json")
        good = self.write_json("good.json", latency_report())
        status, out, err = self.run_main("--out", self.out, bad_json,
                                         wrong_version, missing, good)
        self.assertEqual(status, 1)
        self.assertIn("not JSON", err)
        self.assertIn("format_version 99", err)
        self.assertIn("cannot read", err)
        self.assertEqual([os.path.basename(p) for p in out.split()],
                         ["p2p_latency-mpich.png"])
        self.assert_png(out.strip())

    def test_report_without_sized_metrics_is_skipped(self):
        path = self.write_json("o.json", report("overhead", [
            result("send_proc_null_rate", 1e8, 1e8, "calls/s", "higher"),
            result("ults16_vs_plain", 0.9, 0.9, "ratio", "higher")]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0)
        self.assertEqual(out, "")
        self.assertIn("nothing to plot", err)
        self.assertEqual(os.listdir(self.out), [])

    def test_malformed_result_and_mixed_axes_exit_1(self):
        doc = latency_report()
        del doc["results"][0]["wisp"]
        mixed = report("mixed", [result("t_8B", 1.0, 1.0),
                                 result("t_8ms", 1.0, 1.0)])
        status, out, err = self.run_main(
            "--out", self.out, self.write_json("m.json", doc),
            self.write_json("x.json", mixed))
        self.assertEqual(status, 1)
        self.assertEqual(out, "")
        self.assertIn("lacks numeric wisp", err)
        self.assertIn("x axes", err)

    def test_unwritable_output_directory(self):
        blocker = os.path.join(self.dir, "file")
        with open(blocker, "w", encoding="utf-8"):
            pass
        path = self.write_json("good.json", latency_report())
        status, out, err = self.run_main("--out", blocker, path)
        self.assertEqual(status, 1)
        self.assertEqual(out, "")
        self.assertIn("cannot create", err)


if __name__ == "__main__":
    unittest.main()
