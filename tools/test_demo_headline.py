#!/usr/bin/env python3
"""Unit tests of tools/demo_headline.py (CTest tools.demo_headline_unit)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import demo_headline  # noqa: E402


def run_result(metric, unit, better, native, wisp, ratio):
    return {"metric": metric, "unit": unit, "better": better,
            "native": {"median": native}, "wisp": {"median": wisp}, "ratio": ratio}


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


class HeadlineTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.build = self.dir.name
        self.report = os.path.join(self.build, "demo-report")

    def tearDown(self):
        self.dir.cleanup()

    def fill(self):
        write(os.path.join(self.build, "mpich", "demo-p2p_latency.json"), {"results": [
            run_result("latency_8B", "us", "lower", 0.6, 0.4, 1.5),
            run_result("latency_1048576B", "us", "lower", 90.0, 20.0, 4.5)]})
        write(os.path.join(self.build, "openmpi", "demo-msgrate.json"), {"results": [
            run_result("msgrate_pair_8B", "msg/s", "higher", 10e6, 9e6, 0.9)]})
        write(os.path.join(self.report, "report.json"), {"experiments": {"mpich": [
            {"experiment": "cg", "results": [
                {"metric": "gflops", "unit": "GFLOP/s", "better": "higher",
                 "native": {"median": 3.0}, "wisp": {"median": 3.03},
                 "async": {"median": 1.0}, "ratio_wisp": 1.01, "ratio_async": 0.33}]}]}})

    def test_rows_in_order_with_oriented_verdicts(self):
        self.fill()
        rows = demo_headline.table(self.build, self.report)
        self.assertEqual(rows[0][:5], ["mpi", "figure", "native", "wisp", "wisp vs native"])
        got = [(r[0], r[1], r[4]) for r in rows[1:]]
        self.assertEqual(got, [
            ("mpich", "latency_8B (us)", "1.50x better"),
            ("mpich", "latency_1048576B (us)", "4.50x better"),
            ("mpich", "gflops (GFLOP/s)", "1.01x (same)"),
            ("openmpi", "msgrate_pair_8B (msg/s)", "0.90x worse")])
        self.assertEqual(rows[1][2:4], ["0.6000", "0.4000"])

    def test_missing_runs_are_left_out_and_nothing_is_an_error(self):
        rows = demo_headline.table(self.build, self.report)
        self.assertEqual(len(rows), 1)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(demo_headline.main(["x", self.build, self.report]), 1)
        self.assertIn("no figures", err.getvalue())

    def test_main_prints_the_table(self):
        self.fill()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(demo_headline.main(["x", self.build, self.report]), 0)
        self.assertEqual(len(out.getvalue().splitlines()), 5)
        self.assertIn("single copy from the shared heap", out.getvalue())

    def test_usage(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(demo_headline.main(["x"]), 2)


if __name__ == "__main__":
    unittest.main()
