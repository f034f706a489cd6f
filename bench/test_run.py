#!/usr/bin/env python3
"""Unit tests of the benchmark runner bench/run.py.

Fast and MPI-free: the parsing, statistics, verdicts and JSON layout are
tested directly, and whole sessions run against a stub launcher (a shell
script printing canned metrics) written to a temporary directory.
Run: python3 bench/test_run.py
"""

import contextlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest
import unittest.mock

# Keep the source tree free of __pycache__ when ctest imports run.py.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run  # noqa: E402  (needs the path set up above)

SAMPLE_OUTPUT = textwrap.dedent("""\
    # overhead: np=2 iterations=2000000
    metric send_proc_null_rate 31234567.0 calls/s higher
    some launcher noise
    metric send_proc_null_ns 32.015 ns lower
    metrics are great
    """)


def sample(mode, rep, values, warmup=False):
    return {"mode": mode, "rep": rep, "warmup": warmup, "wall_s": 0.1,
            "metrics": values}


class ParseMetricLineTest(unittest.TestCase):
    def test_valid_line(self):
        m = run.parse_metric_line("metric rate 1.5e6 calls/s higher")
        self.assertEqual(m, run.Metric("rate", 1.5e6, "calls/s", "higher"))

    def test_surrounding_whitespace_is_ignored(self):
        m = run.parse_metric_line("  metric t 3 ns lower \n")
        self.assertEqual(m.value, 3.0)

    def test_other_lines_are_ignored(self):
        for line in ("", "# comment", "metrics 1 2 3 4", "metric:", "x"):
            self.assertIsNone(run.parse_metric_line(line), line)

    def test_malformed_metric_lines_raise(self):
        for line in ("metric rate 1 calls/s",
                     "metric rate 1 calls/s higher extra",
                     "metric rate fast calls/s higher",
                     "metric rate 1 calls/s better",
                     "metric rate nan calls/s higher",
                     "metric rate inf calls/s higher"):
            with self.assertRaises(ValueError, msg=line):
                run.parse_metric_line(line)


class ParseOutputTest(unittest.TestCase):
    def test_keeps_metrics_in_order_and_skips_noise(self):
        metrics = run.parse_output(SAMPLE_OUTPUT)
        self.assertEqual(list(metrics),
                         ["send_proc_null_rate", "send_proc_null_ns"])
        self.assertEqual(metrics["send_proc_null_ns"].better, "lower")
        self.assertEqual(metrics["send_proc_null_rate"].value, 31234567.0)

    def test_duplicate_metric_raises(self):
        text = "metric a 1 s lower\nmetric a 2 s lower\n"
        with self.assertRaisesRegex(ValueError, "printed twice"):
            run.parse_output(text)

    def test_no_metrics_gives_empty_dict(self):
        self.assertEqual(run.parse_output("hello\n"), {})


class ParseTargetTest(unittest.TestCase):
    def test_operators(self):
        for spec, op in (("a>=0.9", ">="), ("a>0.9", ">"),
                         ("a<=1.5", "<="), ("a<1.5", "<")):
            target = run.parse_target(spec)
            self.assertEqual((target.metric, target.op), ("a", op), spec)

    def test_value_and_spaces(self):
        target = run.parse_target(" send_proc_null_rate >= 0.9 ")
        self.assertEqual(target, run.Target("send_proc_null_rate", ">=", 0.9))
        self.assertEqual(str(target), ">=0.9")

    def test_missing_operator_hints_at_shell_quoting(self):
        # What arrives when the shell took '>=0.9' as a redirection.
        with self.assertRaisesRegex(ValueError, "quote"):
            run.parse_target("send_proc_null_rate")

    def test_bad_values(self):
        for spec in ("a>=x", ">=0.9", "a=>0.9", "a>=0.9>=1"):
            with self.assertRaises(ValueError, msg=spec):
                run.parse_target(spec)

    def test_one_target_per_metric(self):
        with self.assertRaisesRegex(ValueError, "more than one"):
            run.parse_targets(["a>=0.9", "a<2"])


class ParseEnvTest(unittest.TestCase):
    def test_valid(self):
        self.assertEqual(run.parse_env("WISP_X=a=b"), ("WISP_X", "a=b"))
        self.assertEqual(run.parse_env("E="), ("E", ""))

    def test_invalid(self):
        for spec in ("NOVALUE", "=1", "1X=2", "A B=1"):
            with self.assertRaises(ValueError, msg=spec):
                run.parse_env(spec)


class StatisticsTest(unittest.TestCase):
    def test_summarize_odd_and_even(self):
        self.assertEqual(run.summarize([3, 1, 2]),
                         {"median": 2, "min": 1, "max": 3, "n": 3})
        self.assertEqual(run.summarize([4, 1, 3, 2])["median"], 2.5)

    def test_ratio_orientation(self):
        # Higher is better: wisp/native. Lower is better: native/wisp.
        self.assertAlmostEqual(run.oriented_ratio(100, 90, "higher"), 0.9)
        self.assertAlmostEqual(run.oriented_ratio(10, 20, "lower"), 0.5)
        self.assertIsNone(run.oriented_ratio(0, 5, "higher"))
        self.assertIsNone(run.oriented_ratio(5, 0, "lower"))

    def test_meets(self):
        target = run.Target("a", ">=", 0.9)
        self.assertTrue(run.meets(0.9, target))
        self.assertFalse(run.meets(0.8999, target))
        self.assertFalse(run.meets(None, target))

    def test_spread(self):
        self.assertAlmostEqual(
            run.spread({"median": 10, "min": 9, "max": 11}), 0.2)
        self.assertIsNone(run.spread({"median": 0, "min": 0, "max": 1}))


class BuildResultsTest(unittest.TestCase):
    KINDS = {"rate": ("calls/s", "higher"), "ns": ("ns", "lower")}

    def samples(self):
        return [
            # Warm-ups are wildly off on purpose: they must not count.
            sample("native", 0, {"rate": 1.0, "ns": 1e9}, warmup=True),
            sample("wisp", 0, {"rate": 1.0, "ns": 1e9}, warmup=True),
            sample("native", 0, {"rate": 100.0, "ns": 10.0}),
            sample("wisp", 0, {"rate": 80.0, "ns": 12.5}),
            sample("native", 1, {"rate": 120.0, "ns": 8.0}),
            sample("wisp", 1, {"rate": 95.0, "ns": 11.0}),
            sample("native", 2, {"rate": 110.0, "ns": 9.0}),
            sample("wisp", 2, {"rate": 90.0, "ns": 11.1}),
        ]

    def test_medians_ratios_and_verdicts(self):
        targets = [run.Target("rate", ">=", 0.8)]
        rate, ns = run.build_results(self.samples(), self.KINDS, targets)
        self.assertEqual(rate["native"],
                         {"median": 110.0, "min": 100.0, "max": 120.0,
                          "n": 3})
        self.assertEqual(rate["wisp"]["median"], 90.0)
        self.assertAlmostEqual(rate["ratio"], 90.0 / 110.0)
        self.assertAlmostEqual(rate["ratio_wisp_over_native"], 90 / 110)
        self.assertEqual(rate["target"], {"op": ">=", "value": 0.8})
        self.assertTrue(rate["met"])
        self.assertAlmostEqual(ns["ratio"], 9.0 / 11.1)
        self.assertAlmostEqual(ns["ratio_wisp_over_native"], 11.1 / 9.0)
        self.assertIsNone(ns["target"])
        self.assertIsNone(ns["met"])

    def test_missed_and_unknown_targets(self):
        targets = [run.Target("rate", ">=", 0.9), run.Target("gone", ">=", 1)]
        results = run.build_results(self.samples(), self.KINDS, targets)
        self.assertFalse(results[0]["met"])
        self.assertEqual(run.unknown_targets(targets, results), [targets[1]])
        self.assertFalse(run.target_met(targets[1], results))
        self.assertFalse(run.all_met(targets, results))
        self.assertTrue(run.all_met([], results))


class NoiseNotesTest(unittest.TestCase):
    def test_only_noisy_metrics_get_a_note(self):
        quiet = {"median": 10, "min": 9.9, "max": 10.1}
        noisy = {"median": 10, "min": 8, "max": 12}
        results = [{"metric": "a", "native": quiet, "wisp": quiet},
                   {"metric": "b", "native": quiet, "wisp": noisy}]
        self.assertEqual(run.noise_notes(results),
                         ["noisy: b: (max-min)/median native 2%, wisp 40%"])


class ScheduleTest(unittest.TestCase):
    def test_warmup_pair_then_alternating(self):
        plan = run.schedule(3)
        self.assertEqual(plan[:2], [("native", 0, True), ("wisp", 0, True)])
        self.assertEqual([m for m, _, _ in plan[2:]],
                         ["native", "wisp"] * 3)
        self.assertEqual([r for _, r, _ in plan[2:]], [0, 0, 1, 1, 2, 2])
        self.assertFalse(any(w for _, _, w in plan[2:]))

    def test_launch_command(self):
        env = {"A": "1", "B": "x y"}
        self.assertEqual(
            run.launch_command("wr", True, env, 2, ["./b", "10"]),
            ["wr", "--native", "--env", "A=1", "--env", "B=x y",
             "-n", "2", "./b", "10"])
        self.assertEqual(run.launch_command("wr", False, {}, 1, ["./b"]),
                         ["wr", "-n", "1", "./b"])


class FormatTest(unittest.TestCase):
    def test_fmt_value(self):
        self.assertEqual(run.fmt_value(31234567.0), "31.23M")
        self.assertEqual(run.fmt_value(4.1), "4.100")
        self.assertEqual(run.fmt_value(1500.0), "1.500k")
        self.assertEqual(run.fmt_value(None), "-")

    def test_table_is_fixed_width(self):
        results = run.build_results(
            BuildResultsTest().samples(), BuildResultsTest.KINDS,
            [run.Target("rate", ">=", 0.9)])
        text = run.format_table(run.table_rows(results, True))
        lines = text.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("metric"))
        self.assertIn("MISS (>=0.9)", lines[1])
        # Right-aligned numbers end in the same column on every row.
        col = lines[0].index("ratio") + len("ratio")
        self.assertEqual(lines[1][col - 5:col], "0.818")
        self.assertEqual(lines[2][col - 5:col], "0.811")


@unittest.skipUnless(shutil.which("git"), "git not installed")
class GitRevisionTest(unittest.TestCase):
    def git(self, *argv):
        subprocess.run(["git", "-C", self.dir, "-c", "user.name=t",
                        "-c", "user.email=t@t", *argv],
                       check=True, capture_output=True)

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        # Even if the temporary directory lies inside a checkout, git must
        # not find that enclosing repository.
        patcher = unittest.mock.patch.dict(
            os.environ, {"GIT_CEILING_DIRECTORIES": os.path.dirname(tmp.name)})
        patcher.start()
        self.addCleanup(patcher.stop)

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
            f.write(text)

    def test_unknown_without_commits(self):
        self.assertEqual(run.git_revision(self.dir), "unknown")
        self.git("init", "-q")
        self.assertEqual(run.git_revision(self.dir), "unknown")

    def test_clean_dirty_and_untracked(self):
        self.git("init", "-q")
        self.write("f", "1")
        self.git("add", "f")
        self.git("commit", "-q", "-m", "x")
        rev = run.git_revision(self.dir)
        self.assertRegex(rev, r"^[0-9a-f]{4,}$")
        self.write("untracked", "x")
        self.assertEqual(run.git_revision(self.dir), rev)
        self.write("f", "2")
        self.assertEqual(run.git_revision(self.dir), rev + "-dirty")


class SplitCommandTest(unittest.TestCase):
    def test_split_at_first_double_dash(self):
        argv = ["--np", "2", "--", "p", "--", "x"]
        self.assertEqual(run.split_command(argv),
                         (["--np", "2"], ["p", "--", "x"]))
        self.assertEqual(run.split_command(["--np", "2"]), (["--np", "2"], []))


# Stub launcher: records its argv, prints rate 100 natively and 90 under
# "wisp"; FAIL_MODE makes that mode exit 3 with a message on stderr.
STUB_LAUNCHER = """\
#!/bin/sh
echo "$*" >> "$LOG"
mode=wisp
[ "$1" = --native ] && mode=native
if [ "$mode" = "$FAIL_MODE" ]; then echo "stub: boom" >&2; exit 3; fi
echo "noise before"
if [ $mode = native ]; then rate=100; else rate=90; fi
echo "metric rate $rate calls/s higher"
echo "metric ns 10 ns lower"
"""


class SessionTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.launcher = os.path.join(self.tmp.name, "wisprun")
        with open(self.launcher, "w", encoding="utf-8") as f:
            f.write(STUB_LAUNCHER)
        os.chmod(self.launcher, stat.S_IRWXU)
        self.log = os.path.join(self.tmp.name, "log")
        self.json = os.path.join(self.tmp.name, "out.json")
        patcher = unittest.mock.patch.dict(
            os.environ, {"LOG": self.log, "FAIL_MODE": ""})
        patcher.start()
        self.addCleanup(patcher.stop)

    def main(self, *extra):
        argv = ["--wisprun", self.launcher, "--mpi", "nosuchmpi",
                "--np", "2", "--reps", "3", "--json", self.json,
                "--env", "WISP_X=1", *extra, "--", "./bench", "5"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run.main(argv)
        return status, out.getvalue(), err.getvalue()

    def test_alternates_and_passes_settings(self):
        status, out, _ = self.main("--target", "rate>=0.9")
        self.assertEqual(status, 0)
        with open(self.log, encoding="utf-8") as f:
            calls = f.read().splitlines()
        self.assertEqual(len(calls), 8)
        self.assertEqual(calls[0],
                         "--native --env WISP_X=1 -n 2 ./bench 5")
        self.assertEqual(calls[1], "--env WISP_X=1 -n 2 ./bench 5")
        self.assertEqual([c.startswith("--native") for c in calls],
                         [True, False] * 4)
        self.assertIn("ok (>=0.9)", out)
        self.assertIn("targets met: 1/1", out)

    def test_json_document(self):
        self.main("--target", "rate>=0.95", "--name", "stub")
        with open(self.json, encoding="utf-8") as f:
            doc = json.load(f)
        for key in ("benchmark", "command", "np", "reps", "env", "mpi",
                    "machine", "git_revision", "timestamp", "results",
                    "samples", "targets", "launch"):
            self.assertIn(key, doc)
        self.assertEqual(doc["benchmark"], "stub")
        self.assertEqual(doc["command"], ["./bench", "5"])
        self.assertEqual((doc["np"], doc["reps"]), (2, 3))
        self.assertEqual(doc["env"], {"WISP_X": "1"})
        self.assertEqual(doc["mpi"], {"name": "nosuchmpi",
                                      "version": "unknown"})
        for key in ("hostname", "cpu_model", "cores", "kernel"):
            self.assertIn(key, doc["machine"])
        self.assertEqual(len(doc["samples"]), 8)
        self.assertEqual(sum(s["warmup"] for s in doc["samples"]), 2)
        rate = doc["results"][0]
        self.assertEqual(rate["metric"], "rate")
        self.assertAlmostEqual(rate["ratio"], 0.9)
        self.assertFalse(rate["met"])
        self.assertEqual(doc["targets"], [{"metric": "rate", "op": ">=",
                                           "value": 0.95, "met": False}])

    def test_missed_target_exits_zero_unless_strict(self):
        self.assertEqual(self.main("--target", "rate>=0.95")[0], 0)
        self.assertEqual(
            self.main("--target", "rate>=0.95", "--strict")[0], 3)
        self.assertEqual(
            self.main("--target", "missing>=1", "--strict")[0], 3)
        self.assertEqual(self.main("--target", "rate>=0.5", "--strict")[0], 0)

    def test_failing_run_aborts_with_command_and_stderr(self):
        os.environ["FAIL_MODE"] = "wisp"
        status, out, err = self.main()
        self.assertEqual(status, 1)
        self.assertEqual(out, "")
        self.assertIn("exit status 3", err)
        self.assertIn(f"{self.launcher} --env WISP_X=1 -n 2 ./bench 5", err)
        self.assertIn("stub: boom", err)
        self.assertFalse(os.path.exists(self.json))

    def test_hung_run_is_killed(self):
        with self.assertRaisesRegex(run.BenchError, "timed out"):
            run.run_once(["sleep", "5"], 0.2)

    def test_usage_errors(self):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as cm:
                run.main(["--wisprun", "x", "--mpi", "m", "--target", "a"])
            self.assertEqual(cm.exception.code, 2)
            with self.assertRaises(SystemExit):
                run.main(["--wisprun", "x", "--mpi", "m", "--", ])


if __name__ == "__main__":
    unittest.main()
