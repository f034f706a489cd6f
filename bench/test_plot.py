#!/usr/bin/env python3
"""Unit tests of the benchmark plotter bench/plot.py.

Fast and MPI-free: small synthetic reports in the layout run.py writes are
plotted into a temporary directory, and the SVG files are parsed with
xml.etree to check that they are well-formed and hold both series.
Run: python3 bench/test_plot.py
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

# Keep the source tree free of __pycache__ when ctest imports plot.py.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import plot  # noqa: E402  (needs the path set up above)

SVG = "{http://www.w3.org/2000/svg}"


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


def latency_report(mpi="mpich"):
    return report("p2p_latency", [
        result(f"latency_{s}B", 0.3 + s / 4e3, 0.31 + s / 4.1e3)
        for s in LATENCY_SIZES], mpi)


def bandwidth_report():
    return report("p2p_bw_uni", [
        result(f"bw_uni_{s}B", s * 2.0, s * 2.1, unit="MB/s",
               better="higher") for s in (1, 2, 4, 64, 4096, 4 << 20)])


class PlotTestCase(unittest.TestCase):
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

    def parse(self, path):
        """The SVG root; fails the test if the file is not well-formed."""
        root = ET.parse(path).getroot()
        self.assertEqual(root.tag, f"{SVG}svg")
        return root

    @staticmethod
    def with_class(root, tag, cls):
        return [e for e in root.iter(f"{SVG}{tag}")
                if cls in e.get("class", "").split()]

    @staticmethod
    def texts(root):
        return [e.text or "" for e in root.iter(f"{SVG}text")]


class EndToEndTest(PlotTestCase):
    def test_latency_plot_has_both_series_and_ratio(self):
        path = self.write_json("bench-p2p_latency.json", latency_report())
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        svg = os.path.join(self.out, "p2p_latency-mpich.svg")
        self.assertEqual(out.split(), [svg])
        root = self.parse(svg)

        for cls in ("series-native", "series-wisp", "series-ratio"):
            lines = self.with_class(root, "polyline", cls)
            self.assertEqual(len(lines), 1, cls)
            points = lines[0].get("points").split()
            self.assertEqual(len(points), len(LATENCY_SIZES), cls)
        self.assertEqual(len(self.with_class(root, "circle", "point-native")),
                         len(LATENCY_SIZES))
        self.assertEqual(len(self.with_class(root, "rect", "point-wisp")),
                         len(LATENCY_SIZES))
        self.assertEqual(len(self.with_class(root, "line", "ref-1")), 1)

        texts = self.texts(root)
        self.assertIn("native mpich", texts)
        self.assertIn("wisp", texts)
        self.assertIn("0", texts)           # the 0 B position
        self.assertIn("1M", texts)
        self.assertTrue(any("log scale" in t for t in texts), texts)
        self.assertIn("native/wisp", texts)  # times: oriented ratio

    def test_everything_is_drawn_inside_the_canvas(self):
        doc = latency_report()
        doc["results"][3]["native"]["max"] = 1e6  # an outlier run
        path = self.write_json("o.json", doc)
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        root = self.parse(out.strip())
        width, height = float(root.get("width")), float(root.get("height"))
        coords = []
        for e in root.iter():
            for name in ("x", "x1", "x2", "cx", "y", "y1", "y2", "cy"):
                if e.get(name) is not None and not e.get(name).endswith("%"):
                    coords.append((name[0] in "xc" and "y" not in name,
                                   float(e.get(name))))
            for pair in (e.get("points") or "").split():
                x, y = pair.split(",")
                coords += [(True, float(x)), (False, float(y))]
        self.assertTrue(coords)
        for is_x, v in coords:
            self.assertTrue(0 <= v <= (width if is_x else height), (is_x, v))
        # The outlier's whisker is cut at the top of the upper panel.
        tops = [min(float(e.get("y1")), float(e.get("y2")))
                for e in self.with_class(root, "line", "range-native")]
        self.assertEqual(min(tops), plot.TITLE_H)

    def test_native_below_wisp_for_slower_wisp_times(self):
        # SVG y grows downwards: a smaller time is drawn lower.
        path = self.write_json("r.json", report("lat", [
            result("latency_8B", 1.0, 2.0), result("latency_16B", 1.0, 2.0)]))
        self.assertEqual(self.run_main("--out", self.out, path)[0], 0)
        root = self.parse(os.path.join(self.out, "lat-mpich.svg"))
        ys = {}
        for mode in ("native", "wisp"):
            line = self.with_class(root, "polyline", f"series-{mode}")[0]
            ys[mode] = [float(p.split(",")[1])
                        for p in line.get("points").split()]
        self.assertTrue(all(n > w for n, w in zip(ys["native"], ys["wisp"])))

    def test_bandwidth_and_several_files(self):
        paths = [self.write_json("a.json", bandwidth_report()),
                 self.write_json("b.json", latency_report("openmpi")),
                 self.write_json("c.json", latency_report("openmpi"))]
        status, out, err = self.run_main("--out", self.out, *paths)
        self.assertEqual(status, 0, err)
        names = [os.path.basename(p) for p in out.split()]
        self.assertEqual(names, ["p2p_bw_uni-mpich.svg",
                                 "p2p_latency-openmpi.svg",
                                 "p2p_latency-openmpi-2.svg"])
        root = self.parse(os.path.join(self.out, names[0]))
        self.assertIn("wisp/native", self.texts(root))
        self.assertEqual(len(self.with_class(root, "polyline",
                                             "series-wisp")), 1)

    def test_single_point_series_uses_linear_axis(self):
        path = self.write_json("m.json", report("msgrate_pair", [
            result("msgrate_pair_8B", 2.5e6, 2.4e6, unit="msg/s",
                   better="higher")]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        root = self.parse(out.strip())
        self.assertFalse(any("log scale" in t for t in self.texts(root)))
        for mode in ("native", "wisp"):
            self.assertEqual(len(self.with_class(root, "circle" if mode ==
                                                 "native" else "rect",
                                                 f"point-{mode}")), 1)

    def test_several_series_in_one_report_and_unsized_metrics(self):
        path = self.write_json("x.json", report("mixed", [
            result("send_proc_null_rate", 1e8, 1e8, "calls/s", "higher"),
            result("latency_8B", 1.0, 1.0), result("latency_16B", 1.1, 1.0),
            result("bw_uni_8B", 10.0, 11.0, "MB/s", "higher")]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        self.assertEqual(sorted(os.path.basename(p) for p in out.split()),
                         ["mixed-mpich-bw_uni.svg", "mixed-mpich-latency.svg"])

    def test_missing_ratio_leaves_a_gap(self):
        results = [result("latency_1B", 1.0, 1.0),
                   result("latency_2B", 0.0, 0.0),
                   result("latency_4B", 1.0, 1.0)]
        path = self.write_json("z.json", report("zero", results))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        root = self.parse(out.strip())
        self.assertEqual(len(self.with_class(root, "polyline",
                                             "series-ratio")), 2)
        # A zero value rules out the log axis but is still drawn.
        self.assertFalse(any("log scale" in t for t in self.texts(root)))

    def test_text_is_escaped(self):
        doc = latency_report()
        doc["benchmark"] = 'a<b & "c"'
        doc["mpi"]["version"] = "<&>"
        path = self.write_json("e.json", doc)
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        self.assertEqual(os.path.basename(out.strip()), "a_b_c_-mpich.svg")
        root = self.parse(out.strip())
        self.assertTrue(any('a<b & "c"' in t for t in self.texts(root)))

    def test_busy_time_and_operation_count_axes(self):
        busy = [0, 1, 4, 16, 64, 256]
        path = self.write_json("b.json", report("rma_busy_passive", [
            result(f"acc_flush10_busy_{b}ms", b + 0.01, 0.02, unit="ms")
            for b in busy] + [
            result(f"put_heavy_{k}ops", k * 0.1, k * 0.05, unit="ms")
            for k in (1, 4, 16)]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0, err)
        files = sorted(out.split())
        self.assertEqual([os.path.basename(f) for f in files],
                         ["rma_busy_passive-mpich-acc_flush10_busy.svg",
                          "rma_busy_passive-mpich-put_heavy.svg"])
        root = self.parse(files[0])
        texts = self.texts(root)
        self.assertIn("milliseconds (log2 scale)", texts)
        self.assertIn("256", texts)
        tips = [e.text for e in root.iter(f"{SVG}title")]
        self.assertTrue(any(t.startswith("64 ms wisp: median") for t in tips))
        self.assertIn("operations (log2 scale)",
                      self.texts(self.parse(files[1])))


class ErrorTest(PlotTestCase):
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
        self.assertEqual(len(out.split()), 1)

    def test_report_without_sized_metrics_is_skipped(self):
        path = self.write_json("o.json", report("overhead", [
            result("send_proc_null_rate", 1e8, 1e8, "calls/s", "higher")]))
        status, out, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 0)
        self.assertEqual(out, "")
        self.assertIn("nothing to plot", err)

    def test_malformed_result_is_reported(self):
        doc = latency_report()
        del doc["results"][0]["wisp"]
        path = self.write_json("m.json", doc)
        status, _, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 1)
        self.assertIn("lacks numeric wisp", err)

    def test_series_mixing_x_axes_is_reported(self):
        path = self.write_json("x.json", report("mixed", [
            result("t_8B", 1.0, 1.0), result("t_8ms", 1.0, 1.0)]))
        status, _, err = self.run_main("--out", self.out, path)
        self.assertEqual(status, 1)
        self.assertIn("x axes", err)

    def test_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as cm:
                plot.main(["--out", self.out])
        self.assertEqual(cm.exception.code, 2)


class ScaleTest(unittest.TestCase):
    def test_size_positions_put_zero_one_step_left(self):
        self.assertEqual(plot.size_positions([0, 1, 2, 1024]),
                         [-1.0, 0.0, 1.0, 10.0])
        self.assertEqual(plot.size_positions([0, 8]), [2.0, 3.0])

    def test_fmt_size_and_si(self):
        self.assertEqual([plot.fmt_size(s) for s in (0, 512, 1024, 4 << 20)],
                         ["0", "512", "1K", "4M"])
        self.assertEqual(plot.fmt_si(1500.0), "1.5k")
        self.assertEqual(plot.fmt_si(0.25), "0.25")

    def test_log_range_covers_values_with_decade_ticks(self):
        lo, hi, ticks = plot.log_range([0.3, 1500.0])
        self.assertEqual((lo, hi), (0.1, 10000.0))
        self.assertIn(1.0, ticks)
        self.assertIn(1000.0, ticks)

    def test_linear_range_covers_values(self):
        lo, hi, ticks = plot.linear_range([0.93, 1.02], include_zero=False)
        self.assertLessEqual(lo, 0.93)
        self.assertGreaterEqual(hi, 1.02)
        self.assertEqual(ticks[0], lo)
        lo, hi, _ = plot.linear_range([5.0], include_zero=True)
        self.assertEqual(lo, 0.0)
        self.assertGreater(hi, 5.0)


if __name__ == "__main__":
    unittest.main()
