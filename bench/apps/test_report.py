#!/usr/bin/env python3
"""Unit tests of bench/apps/report.py (CTest bench.apps_report_unit): the
plan of runs, the summaries and ratios, and a whole session against a fake
launcher (no MPI): the report, the JSON, --only, --resume, a failed run."""

import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

# Prints what a program of the suite would: native slower than the others,
# a metric series, MLUP/s growing with the processes (-n) by 9 per process
# from 10 (times the mode's rate); fails when FAKE_FAIL is set, counts its
# calls.
FAKE_WISPRUN = """#!/bin/sh
echo x >> "$(dirname "$0")/calls"
[ -z "$FAKE_FAIL" ] || { echo "check FAILED" >&2; exit 1; }
native=0; async=0; np=1; prev=
for a in "$@"; do
    case "$a" in --native) native=1 ;; MPIR_CVAR_ASYNC_PROGRESS=1) async=1 ;; esac
    [ "$prev" = "-n" ] && np=$a
    prev=$a
done
rate=2; [ $native = 1 ] && rate=1; [ $async = 1 ] && rate=3
echo "# a comment"
echo "metric gflops $rate GFLOP/s higher"
echo "metric mlups $((rate * (9 * np + 1))) MLUP/s higher"
echo "metric iter_ms $((4 / rate)) ms lower"
echo "metric total_recv_0ms 1 ms lower"
echo "metric total_recv_2ms 3 ms lower"
"""


class PureFunctions(unittest.TestCase):
    def test_plan_alternates_after_warmups(self):
        self.assertEqual(report.plan(["native", "wisp"], 2),
                         [("native", 0, True), ("wisp", 0, True),
                          ("native", 0, False), ("wisp", 0, False),
                          ("native", 1, False), ("wisp", 1, False)])

    def test_variants_replace_the_modes(self):
        exp = report.experiment("x", "bench/x", 3, ["a"], ["s"], "m", native_np=2,
                                variants={"v": {"env": {"K": "1"}, "args": ["h"]},
                                          "w": {"env": {}, "np": 4}})
        self.assertEqual(report.experiment_modes(exp, ["native", "wisp"]),
                         ["native", "v", "w"])
        native = report.launch(exp, "/b", "native", {}, False)
        v = report.launch(exp, "/b", "v", {}, False)
        w = report.launch(exp, "/b", "w", {}, True)
        self.assertIn("--native", native)
        self.assertEqual(native[native.index("-n") + 1], "2")
        self.assertNotIn("--native", v)
        self.assertEqual(v[v.index("-n") + 1], "3")
        self.assertEqual(v[-2:], ["a", "h"])
        self.assertIn("K=1", v)
        self.assertEqual(w[w.index("-n") + 1], "4")
        self.assertEqual(w[-1], "s")

    def test_async_only_with_mpich(self):
        self.assertEqual(report.modes_for("openmpi", ["native", "wisp", "async"]),
                         ["native", "wisp"])
        self.assertEqual(report.modes_for("mpich", ["native", "async"]),
                         ["native", "async"])

    def test_mode_env(self):
        exp = report.experiment("x", "p", 3, [], [], "m", env={"A": "1"},
                                wisp_env={"WISP_GHOSTS": "1"})
        self.assertEqual(report.mode_env(exp, "native", {"B": "2"}), {"A": "1", "B": "2"})
        self.assertEqual(report.mode_env(exp, "wisp", {}), {"A": "1", "WISP_GHOSTS": "1"})
        async_env = report.mode_env(exp, "async", {})
        self.assertEqual(async_env["MPIR_CVAR_ASYNC_PROGRESS"], "1")

    def test_summarize_orients_ratios(self):
        samples = [{"mode": m, "warmup": w, "metrics": {"t": v, "r": 1.0 / v}}
                   for m, w, v in [("native", True, 100.0), ("native", False, 2.0),
                                   ("native", False, 4.0), ("wisp", False, 1.0),
                                   ("wisp", False, 1.0), ("wisp", True, 100.0)]]
        rows = report.summarize(samples, {"t": ("s", "lower"), "r": ("1/s", "higher")},
                                ["native", "wisp"])
        self.assertEqual(rows[0]["native"]["median"], 3.0)  # warm-up left out
        self.assertEqual(rows[0]["ratio_wisp"], 3.0)
        self.assertAlmostEqual(rows[1]["ratio_wisp"], 1.0 / 0.375)

    def test_series(self):
        rows = [{"metric": n} for n in ("total_recv_0ms", "total_recv_4ms", "avail_1024B",
                                        "avail_1048576B", "mlups", "lonely_8B")]
        series = report.series_of(rows)
        self.assertEqual(sorted(series), ["avail (B)", "total_recv (ms)"])
        self.assertEqual([x for x, _ in series["avail (B)"]], [1024, 1048576])

    def test_efficiency(self):
        self.assertEqual(report.efficiency(300.0, 2, 200.0), 0.75)
        self.assertEqual(report.efficiency(50.0, 1, 50.0), 1.0)
        self.assertIsNone(report.efficiency(50.0, 2, None))
        self.assertIsNone(report.efficiency(50.0, 2, 0.0))

    def test_optional_only_when_named(self):
        default = [e["name"] for e in report.select(report.SUITE, "")]
        self.assertIn("jacobi_strong_np2", default)
        self.assertIn("jacobi_tasks", default)
        self.assertNotIn("jacobi_strong_np4", default)
        named = [e["name"] for e in report.select(report.SUITE, "strong")]
        self.assertEqual(named, ["jacobi_strong_np1", "jacobi_strong_np2",
                                 "jacobi_strong_np4"])

    def test_subarray_faces(self):
        """The subarray experiments are their pack counterparts with
        faces=subarray, selected together with the dt_ family."""
        names = {e["name"]: e for e in report.SUITE}
        for sub, pack in (("jacobi_subarray", "jacobi_nonblocking"),
                          ("jacobi_subarray_vnode2", "jacobi_cart_vnode2")):
            for key in ("args", "small"):
                self.assertEqual(names[sub][key],
                                 names[pack][key][:2] + ["faces=subarray"] + names[pack][key][2:])
            for key in ("np", "env", "headline", "optional"):
                self.assertEqual(names[sub][key], names[pack][key])
        self.assertFalse(any("faces=" in a for a in names["jacobi_nonblocking"]["args"]))
        selected = [e["name"] for e in report.select(report.SUITE, "^dt_|jacobi_subarray")]
        self.assertEqual(selected, ["jacobi_subarray", "jacobi_subarray_vnode2", "dt_halo_vector",
                                    "dt_halo_yface", "dt_halo_zface", "dt_pack",
                                    "dt_shm_threads", "dt_omp_barrier"])

    def test_scaling_points(self):
        names = {e["name"]: e for e in report.SUITE}
        for kind in ("strong", "weak"):
            args = {n: " ".join(names[f"jacobi_{kind}_np{n}"]["args"]) for n in (1, 2, 4)}
            self.assertEqual(len(set(args.values())), 1)  # the same program arguments
            self.assertEqual([names[f"jacobi_{kind}_np{n}"]["np"] for n in (1, 2, 4)], [1, 2, 4])
        self.assertIn("local=", " ".join(names["jacobi_weak_np1"]["args"]))

    def test_scaling_rows(self):
        def doc(np, native, wisp):
            row = {"metric": "mlups", "native": {"median": native},
                   "wisp": {"median": wisp}, "ratio_wisp": wisp / native}
            return {"experiment": f"jacobi_weak_np{np}", "command": ["p", "local=8", "x=1"],
                    "signature": {"np": np, "modes": ["native", "wisp"]},
                    "results": [row]}
        docs = [doc(2, 150.0, 400.0), doc(1, 100.0, 100.0), {"experiment": "cg"}]
        series = report.scaling_series(docs)
        self.assertEqual(list(series), ["weak"])
        self.assertEqual([d["signature"]["np"] for d in series["weak"]], [1, 2])
        rows = report.scaling_rows(series["weak"])
        self.assertEqual(rows[1]["np"], 2)
        self.assertEqual(rows[1]["modes"]["native"][1], 0.75)
        self.assertEqual(rows[1]["modes"]["wisp"][1], 2.0)
        self.assertAlmostEqual(rows[1]["ratios"]["wisp"], 400.0 / 150.0)
        self.assertEqual(report.grid_args(series["weak"][0]), "local=8")

    def test_suite_names_unique(self):
        for suite in (report.SUITE, report.hosts_suite(["off", "10gbit"])):
            names = [e["name"] for e in suite]
            self.assertEqual(len(names), len(set(names)))

    def test_hosts_launch(self):
        """Across the bed: from host 1 through hosts.sh, half the
        processes per host, Open MPI over btl tcp with osc pt2pt; async
        (MPICH's progress thread) only with MPICH."""
        bed = report.hosts_bed.Bed("tb")
        bed._run = lambda *args: "/run/wisp-hosts/tb/ssh"  # no bed needed
        exp = next(e for e in report.hosts_suite(["10gbit"]) if "rma_gcu" in e["name"])
        self.assertEqual(exp["link"], "10gbit")
        self.assertEqual(report.experiment_modes(exp, ["native", "wisp"]),
                         ["native", "wisp", "progress", "ghost"])
        self.assertIn("async", report.experiment_modes(exp, ["native", "wisp", "async"]))
        ghost = report.launch(exp, "/b", "ghost", {}, False, "openmpi", bed)
        self.assertEqual(ghost[:5], ["bash", report.hosts_bed.HOSTS_SH, "exec", "tb", "1"])
        self.assertEqual(ghost[ghost.index("-n") + 1], "4")
        self.assertIn("10.77.0.1:2,10.77.0.2:2", ghost)
        self.assertIn("tcp,vader,self", ghost)
        self.assertIn("^ucx", ghost)  # osc pt2pt serves its windows
        cg = next(e for e in report.hosts_suite(["off"]) if "cg" in e["name"])
        self.assertIn("^ucx,pt2pt", report.launch(cg, "/b", "progress", {}, False, "openmpi", bed))
        native = report.launch(exp, "/b", "native", {}, False, "mpich", bed)
        self.assertIn("10.77.0.1:1,10.77.0.2:1", native)
        self.assertLess(native.index("-launcher-exec"), native.index("-n"))
        pack = next(e for e in report.SUITE if e["name"] == "dt_pack")
        self.assertIn("--bind-to", report.launch(pack, "/b", "threads", {}, False, "openmpi"))
        self.assertNotIn("--bind-to", report.launch(pack, "/b", "threads", {}, False, "mpich"))
        here = report.launch(report.SUITE[0], "/b", "native", {}, False, "mpich", bed)
        self.assertNotIn("exec", here)  # no link: on this machine


class Session(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = os.path.join(self.tmp.name, "build")
        os.makedirs(self.build)
        with open(os.path.join(self.build, "CMakeCache.txt"), "w") as f:
            f.write("WISP_MPI:STRING=mpich\n")
        wisprun = os.path.join(self.build, "wisprun")
        with open(wisprun, "w") as f:
            f.write(FAKE_WISPRUN)
        os.chmod(wisprun, stat.S_IRWXU)
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        os.environ.pop("FAKE_FAIL", None)
        self.tmp.cleanup()

    def main(self, *extra):
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            status = report.main(["--build", self.build, "--out", self.out,
                                  "--reps", "2", "--only", "^cg$", *extra])
        return status, out.getvalue(), err.getvalue()

    def calls(self):
        with open(os.path.join(self.build, "calls")) as f:
            return len(f.readlines())

    def test_session_report_and_resume(self):
        status, out, err = self.main()
        self.assertEqual(status, 0, err)
        self.assertEqual(self.calls(), 9)  # 3 modes x (warm-up + 2)
        self.assertIn("[9/9] mpich cg: async rep 2/2", err)
        with open(os.path.join(self.out, "mpich", "cg.json")) as f:
            doc = json.load(f)
        gflops = doc["results"][0]
        self.assertEqual(gflops["ratio_wisp"], 2.0)
        self.assertEqual(gflops["ratio_async"], 3.0)
        self.assertIn("git_revision", doc["context"])
        self.assertIn("machine", doc["context"])
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        self.assertIn("| mpich | cg | gflops (GFLOP/s, higher) |", md)
        self.assertIn("2.00", out)
        # Resumed with the same settings: nothing runs again.
        status, out, err = self.main("--resume")
        self.assertEqual((status, self.calls()), (0, 9))
        self.assertIn("kept from", err)
        # Other settings: run again.
        status, out, err = self.main("--resume", "--env", "WISP_STATS=0")
        self.assertEqual((status, self.calls()), (0, 18))

    def test_scaling_table(self):
        status, out, err = self.main("--only", "^jacobi_strong_np[12]$",
                                     "--modes", "native,wisp", "--reps", "1")
        self.assertEqual(status, 0, err)
        self.assertEqual(self.calls(), 8)  # 2 points x 2 modes x (warm-up + 1)
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        self.assertIn("## mpich: Jacobi scaling", md)
        self.assertIn("### strong scaling: the global grid fixed (`n=64 sweeps=100`)", md)
        self.assertIn("| processes | native MLUP/s | efficiency | wisp MLUP/s | efficiency "
                      "| wisp/native |", md)
        # 10 and 19 MLUP/s natively (efficiency 19 / (2 x 10)), twice that under wisp.
        self.assertIn("| 1 | 10.00 (10.00-10.00) | 1.00 | 20.00 (20.00-20.00) | 1.00 | 2.00 |", md)
        self.assertIn("| 2 | 19.00 (19.00-19.00) | 0.95 | 38.00 (38.00-38.00) | 0.95 | 2.00 |", md)
        self.assertNotIn("| mpich | jacobi_strong", md)  # not in the headline
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return
        self.assertIn("![jacobi_scaling-mpich.png](plots/jacobi_scaling-mpich.png)", md)
        self.assertTrue(os.path.exists(os.path.join(self.out, "plots",
                                                    "jacobi_scaling-mpich.png")))

    def test_failed_run(self):
        os.environ["FAKE_FAIL"] = "1"
        status, out, err = self.main()
        self.assertEqual(status, 1)
        self.assertIn("mpich cg failed", err)
        self.assertFalse(os.path.exists(os.path.join(self.out, "mpich", "cg.json")))

    def test_bad_only(self):
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            report.main(["--build", self.build, "--only", "nothing-like-this"])


if __name__ == "__main__":
    unittest.main()
