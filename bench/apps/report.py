#!/usr/bin/env python3
"""The application experiments side by side: natively, under wisp, and with
MPICH's own progress thread, in one session; a Markdown report with PNG plots.

For each build directory given (one per MPI) and each experiment of the
suite (SUITE below, narrowed with --only), the runs alternate between the
modes -- native (`wisprun --native`), wisp (`wisprun`, with the --env
settings) and, for MPICH, async (`wisprun --native` with
MPIR_CVAR_ASYNC_PROGRESS=1) -- after one discarded warm-up run of each,
--reps times. Every program checks its own numbers and prints `metric`
lines only when they are right (bench/run.py's format), so a failed check
stops the experiment instead of reporting the speed of a wrong answer.

Written under --out: <mpi>/<experiment>.json (every sample, the machine, the
MPI, the settings, the git revision), report.md (a headline table, then one
table per experiment: median, min, max, and the ratio to native), and
plots/*.png (matplotlib; without it the plots are left out, with a note).
--resume keeps the experiments whose JSON is already there with the same
settings. See docs/benchmarks.md, "Application experiments".

Example:
    bench/apps/report.py --build build/mpich --build build/openmpi \\
        --out build/report --reps 3 --only 'jacobi|cg'
"""

import argparse
import contextlib
import datetime
import json
import os
import re
import shlex
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import run as bench_run  # noqa: E402  (bench/run.py: launching, parsing, statistics)
import bed as hosts_bed  # noqa: E402  (bench/apps/bed.py: the two-host bed)

FORMAT_VERSION = 1
OMP = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"}
ASYNC = {"MPIR_CVAR_ASYNC_PROGRESS": "1"}
SERIES_RE = re.compile(r"^(?P<series>.+)_(?P<x>\d+)(?P<unit>B|ms|ops)$")
SCALING_RE = re.compile(r"^jacobi_(?P<kind>strong|weak)_np(?P<np>\d+)$")


def experiment(name, program, np, args, small, headline, env=None, wisp_env=None,
               optional=False, variants=None, native_np=None, link=None, windows=False,
               unbound=False):
    """One experiment: `program` (relative to the build directory) with
    `args` (or `small` with --small), np processes, `env` for every mode and
    `wisp_env` for the wisp mode only; `headline` the metric of the headline
    table. An optional one runs only when --only names it. With `variants`
    ({mode: {"env": ..., "args": [...], "np": n}}) the experiment runs
    natively (on `native_np` processes) and under wisp once per variant,
    each adding its settings and arguments, instead of the usual modes (a
    variant named async runs natively with MPICH's progress thread, with
    MPICH only). With `link` (a rate of tools/hosts.sh link, or off) it runs
    across the two hosts of a bed (--hosts), half the processes on each; an
    experiment that makes no `windows` there gets Open MPI without a
    one-sided component, so that wisp's progress thread can run (bed.py).
    An `unbound` one runs its processes on every core (Open MPI binds each
    to one, where OpenMP threads only take turns)."""
    return {"name": name, "program": program, "np": np, "args": args,
            "small": small, "headline": headline, "env": env or {},
            "wisp_env": wisp_env or {}, "optional": optional,
            "variants": variants or {}, "native_np": native_np or np, "link": link,
            "windows": windows, "unbound": unbound}


def ghost_variants(args_hint=None):
    """Where one-sided operations go (issue 28, docs/ghosts.md), 2
    application processes: without a ghost; with one, the route always
    direct (off), always to the ghost (on), decided from each process's
    profile (auto), and, given `args_hint` to append to the program's
    arguments, as its hints say (hint)."""
    ghost = {"WISP_GHOSTS": "1"}
    variants = {"noghost": {"env": {}, "np": 2},
                "off": {"env": {**ghost, "WISP_ASYNC": "off"}},
                "on": {"env": {**ghost, "WISP_ASYNC": "on"}},
                "auto": {"env": {**ghost, "WISP_ASYNC": "auto"}}}
    if args_hint:
        variants["hint"] = {"env": {**ghost, "WISP_ASYNC": "on"}, "args": args_hint}
    return variants


def jacobi(name, variant, np=2, mapping="cart", grid="n=96", env=None,
           small_grid="n=24", sweeps=100, optional=False, faces="pack"):
    """A Jacobi experiment; `faces` the program's faces= (given only when
    not its default, pack, so the pack experiments keep their command
    lines)."""
    env = dict(env or {})
    if variant in ("vector", "task", "tasks"):
        env.update(OMP)
    common = [f"variant={variant}", f"map={mapping}"] + \
        ([f"faces={faces}"] if faces != "pack" else [])
    # Small: a small grid, but sweeps enough (a few ms) that the first
    # messages' set-up does not make the figure (10 sweeps of 13 us read
    # 0.7x native under wisp with MPICH, 200 read 0.97x).
    return experiment(f"jacobi_{name}", "bench/apps/jacobi3d", np,
                      common + grid.split() + [f"sweeps={sweeps}"],
                      common + small_grid.split() + ["sweeps=200"], "mlups", env,
                      optional=optional)


def jacobi_scaling(kind, np):
    """A point of a scaling series (pure MPI, nonblocking): strong, the
    global grid fixed; weak, the grid per process fixed. 4 processes
    oversubscribe 2 cores: optional."""
    grid, small = ("n=64", "n=16") if kind == "strong" else ("local=48", "local=12")
    return jacobi(f"{kind}_np{np}", "nonblocking", np, grid=grid,
                  small_grid=small, optional=np > 2)


# The suite: seed 001 (Jacobi, overlap), seed 004 (availability), seed 003
# (CG), seed 000 (get-compute-update with a ghost, compute- and
# communication-heavy; under Open MPI the ghost serves no window by default,
# WISP_GHOST_WINDOWS=auto, and only sleeps).
SUITE = [
    jacobi("blocking", "blocking"),
    jacobi("nonblocking", "nonblocking"),
    jacobi("vector", "vector"),
    jacobi("task", "task"),
    jacobi("tasks", "tasks"),
    jacobi("cart_vnode2", "nonblocking", 4, "cart", "nx=32 ny=128 nz=32",
           {"WISP_VNODE_SIZE": "2"}),
    jacobi("blocked_vnode2", "nonblocking", 4, "blocked", "nx=32 ny=128 nz=32",
           {"WISP_VNODE_SIZE": "2"}),
    *[jacobi_scaling(kind, np) for kind in ("strong", "weak") for np in (1, 2, 4)],
    # The faces as subarray types, sent and received in place (under wisp
    # its datatype engine moves them): jacobi_nonblocking and
    # jacobi_cart_vnode2 with faces=subarray instead of the program's own
    # packing, the same grids and halo bytes.
    jacobi("subarray", "nonblocking", faces="subarray"),
    jacobi("subarray_vnode2", "nonblocking", 4, "cart", "nx=32 ny=128 nz=32",
           {"WISP_VNODE_SIZE": "2"}, faces="subarray"),
    experiment("cg", "bench/apps/cg", 2, ["n=32"], ["n=12"], "gflops"),
    # Issue 30: a halo face with a derived datatype between 2 processes of a
    # node, and MPI_Pack/MPI_Unpack of a grid's faces with the idle threads
    # of an OpenMP pool of 2 (threads) against the engine alone (wisp).
    *[experiment(f"dt_halo_{shape}", "bench/dt_halo", 2, [shape], [shape], "exchange_us")
      for shape in ("vector", "yface", "zface")],
    experiment("dt_pack", "bench/dt_pack", 1, ["256"], ["64", "2"], "pack_us_y",
               env={"OMP_NUM_THREADS": "2"}, unbound=True,
               variants={"wisp": {"env": {"WISP_DT_THREADS": "1"}}, "threads": {"env": {}}}),
    experiment("dt_shm_threads", "bench/shm_threads", 2, ["8"], ["1"], "bw_mbs_1m",
               env={"OMP_NUM_THREADS": "2"}, unbound=True,
               variants={"wisp": {"env": {"WISP_DT_THREADS": "1"}},
                         "threads": {"env": {"WISP_DT_THREADS": "2"}}}),
    experiment("dt_omp_barrier", "bench/omp_barrier", 1, ["2000"], ["50"], "barrier_us_100",
               env={"OMP_NUM_THREADS": "2"}, unbound=True, optional=True,
               variants={"wisp": {"env": {"WISP_DT_THREADS": "off"}}, "threads": {"env": {}}}),
    experiment("overlap", "bench/apps/overlap", 2, ["reps=5"],
               ["bytes=1048576", "works=0,1,2,4", "reps=3"], "hidden_recv_pct"),
    experiment("rma_gcu_compute", "bench/rma_gcu", 3, ["3", "compute"],
               ["1", "compute"], "time_to_solution_ms", wisp_env={"WISP_GHOSTS": "1"}),
    experiment("rma_gcu_comm", "bench/rma_gcu", 3, ["3", "comm"], ["1", "comm"],
               "time_to_solution_ms", wisp_env={"WISP_GHOSTS": "1"}),
    # Seed 000 Fig. 5.10: alternating compute- and communication-heavy
    # phases; natively and without a ghost 2 workers, else 2 and a ghost.
    *[experiment(f"rma_phases_{kind}", "bench/rma_phases", 3, [kind],
                 [kind, "2", "2", "10"], "total_ms", native_np=2,
                 variants=ghost_variants(["hint"]))
      for kind in ("get", "acc")],
    # Seed 000 Fig. 5.11: how the profiles' interval changes the adaptive
    # choice (WISP_ASYNC=auto), accumulates (decided at safe points only)
    # and gets (also by the live profiles).
    *[experiment(f"rma_phases_{kind}_interval", "bench/rma_phases", 3, [kind],
                 [kind, "2", "2", "10"], "total_ms", native_np=2,
                 variants={f"auto_{ms}ms": {"env": {"WISP_GHOSTS": "1", "WISP_ASYNC": "auto",
                                                    "WISP_ASYNC_INTERVAL": str(ms)}}
                           for ms in (5, 20, 50, 200, 1000)})
      for kind in ("get", "acc")],
    # Seed 000 Fig. 5.7: where asynchronous progress stops paying, by
    # operations per epoch (1-256) and by their size.
    *[experiment(f"rma_crossover_{kind}{'_4k' if size else ''}", "bench/rma_crossover", 3,
                 [kind] + size, [kind] + (size or ["8"]) + ["20"], f"{kind}_epoch_16ops",
                 native_np=2, variants=ghost_variants())
      for kind in ("get", "acc") for size in ([], ["4096"])],
    # Issue 39: NWChem's CCSD(T) water (Debian's nwchem-mpich or -openmpi,
    # tests/real/h2o.nw, its energy checked), natively, under wisp and with
    # a ghost (always, and adaptive); every mode with MPI_Win_create windows
    # (ARMCI_USE_WIN_ALLOCATE=0: MPICH 4.0.2's own MPI_Win_allocate fails it).
    experiment("nwchem", os.path.join(HERE, "nwchem.sh"), 2, [], [], "wall_s",
               env={"ARMCI_USE_WIN_ALLOCATE": "0"}, optional=True,
               variants={"wisp": {"env": {}},
                         "ghost": {"env": {"WISP_GHOSTS": "1"}, "np": 3},
                         "ghost_auto": {"env": {"WISP_GHOSTS": "1", "WISP_ASYNC": "auto"},
                                        "np": 3}}),
    # The same get-compute-update with 2 workers in every mode: what a
    # ghost sharing the 2 cores costs or gains, by route.
    *[experiment(f"rma_gcu_{phase}_routes", "bench/rma_gcu", 3, ["3", phase], ["1", phase],
                 "time_to_solution_ms", native_np=2, variants=ghost_variants())
      for phase in ("compute", "comm")],
]


def hosts_suite(links):
    """Issue 29: the experiments that depend on a network, across the two
    hosts of a bed, one process per host (two with a ghost), at each link
    setting: natively; under wisp; with ULTs (ult_gcu's and cg's own); with
    the progress thread; with a ghost; with MPICH's own progress thread."""
    progress = {"env": {"WISP_PROGRESS": "thread"}}
    common = {"wisp": {"env": {}}, "progress": progress, "async": {"env": {}}}
    suite = []
    for link in links:
        tag = "" if link == "off" else f"_{link}"
        suite += [
            experiment(f"hosts_link{tag}", "bench/link_check", 2, ["32"], ["4"],
                       "bandwidth", variants={"wisp": {"env": {}}}, link=link),
            # Seed 003 Fig. 6: the origin's ULTs (wisp mode) against one task
            # at a time (native).
            experiment(f"hosts_ult_gcu{tag}", "bench/ult_gcu", 2, [], [],
                       "hidden_8ult_pct", variants={"wisp": {"env": {}}, "progress": progress},
                       link=link, windows=True),
            # Seed 003 Listing 4: the allreduce in a ULT behind A r.
            experiment(f"hosts_cg{tag}", "bench/apps/cg", 2, ["n=32"], ["n=12"], "iter_ms",
                       variants={**common, "ult": {"env": {}, "args": ["variant=ult"]}},
                       link=link),
            # Seeds 001, 004: overlap and availability.
            experiment(f"hosts_overlap{tag}", "bench/apps/overlap", 2, ["reps=5"],
                       ["bytes=1048576", "works=0,1,2,4", "reps=3"], "hidden_recv_pct",
                       variants=common, link=link),
            # Seed 000: get-compute-update; with a ghost, 2 processes per host.
            experiment(f"hosts_rma_gcu{tag}", "bench/rma_gcu", 2, ["3", "compute"],
                       ["1", "compute"], "time_to_solution_ms",
                       variants={**common, "ghost": {"env": {"WISP_GHOSTS": "1"}, "np": 4}},
                       link=link, windows=True),
            # The progress thread's polling interval on a shared core: its
            # availability (overlap) against its cost to an application that
            # keeps calling MPI (cg).
            *[experiment(f"hosts_interval_{name}{tag}", f"bench/apps/{name}", 2, args,
                         quick, metric, variants={"wisp": {"env": {}}, **{
                             f"progress_{us}us": {"env": {"WISP_PROGRESS": "thread",
                                                          "WISP_PROGRESS_INTERVAL": str(us)}}
                             for us in (50, 200, 1000, 5000)}}, link=link)
              for name, args, quick, metric in (
                  ("overlap", ["reps=5"], ["bytes=1048576", "works=0,1,2,4", "reps=3"],
                   "avail_recv_1048576B"),
                  ("cg", ["n=32"], ["n=12"], "iter_ms"))],
            # Seed 001: Jacobi across the hosts (one core each: no threads).
            experiment(f"hosts_jacobi{tag}", "bench/apps/jacobi3d", 2,
                       ["variant=nonblocking", "map=cart", "n=96", "sweeps=100"],
                       ["variant=nonblocking", "map=cart", "n=24", "sweeps=200"], "mlups",
                       variants=common, link=link),
        ]
    return suite


# --------------------------------------------------------------------------
# Running

def build_mpi(build):
    """The MPI a build directory was configured for (CMakeCache WISP_MPI)."""
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("WISP_MPI:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    raise SystemExit(f"report.py: {build} is not a configured wisp build directory")


def modes_for(mpi, wanted):
    """The modes run for an MPI: async only exists with MPICH."""
    return [m for m in wanted if m != "async" or mpi == "mpich"]


def experiment_modes(exp, modes):
    """The modes of one experiment: its variants' names after native, if it
    has variants (async only where `modes` has it), else `modes`."""
    if not exp["variants"]:
        return modes
    return ["native", *[v for v in exp["variants"] if v != "async" or "async" in modes]]


def mode_env(exp, mode, settings):
    """The environment of one mode: the experiment's, the --env settings
    (given to every mode, as run.py does, so that the baseline runs with the
    same MPI configuration), the wisp-only settings (and a variant's), the
    progress thread."""
    env = dict(exp["env"])
    env.update(settings)
    if mode == "wisp" or mode in exp["variants"]:
        env.update(exp["wisp_env"])
    if mode in exp["variants"]:
        env.update(exp["variants"][mode]["env"])
    if mode == "async":
        env.update(ASYNC)
    return env


def launch(exp, build, mode, settings, small, mpi=None, bed=None):
    """The command line of one run of `exp` in `mode` (across `bed`'s hosts
    when the experiment has a link)."""
    variant = exp["variants"].get(mode, {})
    np = variant.get("np", exp["native_np"] if mode in ("native", "async") else exp["np"])
    command = [os.path.join(build, exp["program"])] + \
        (exp["small"] if small else exp["args"]) + variant.get("args", [])
    cmd = bench_run.launch_command(os.path.join(build, "wisprun"),
                                   mode in ("native", "async"),
                                   mode_env(exp, mode, settings), np, command)
    if exp["unbound"] and mpi == "openmpi":
        cmd[1:1] = ["--mpiexec-arg", "--bind-to", "--mpiexec-arg", "none"]
    if not (exp["link"] and bed):
        return cmd
    return bed.launch(mpi, max(1, np // 2), cmd, exp["windows"])


def plan(modes, reps):
    """(mode, rep, warmup): a warm-up of each mode, then rounds of all modes."""
    order = [(m, 0, True) for m in modes]
    for rep in range(reps):
        order += [(m, rep, False) for m in modes]
    return order


def signature(exp, mpi, modes, reps, settings, small):
    """What --resume compares: a result is reused only for the same run."""
    return {"mpi": mpi, "modes": modes, "reps": reps, "settings": settings,
            "small": small, "np": exp["np"],
            "args": exp["small"] if small else exp["args"],
            "link": exp["link"], "windows": exp["windows"]}


class Progress:
    """What runs and how far the session is, on stderr: a line when an
    experiment starts (its runs and modes), and one per run with its place
    in the whole session, the time so far and an estimate of what is left
    (the mean run so far times the runs left: the experiments differ, so
    it firms up as the session goes)."""

    def __init__(self, total, experiments):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.experiments, self.started, self.end = experiments, 0, 0

    @staticmethod
    def clock(seconds):
        seconds = int(seconds)
        if seconds >= 3600:
            return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        return f"{seconds // 60}:{seconds % 60:02d}"

    def begin(self, mpi, name, modes, runs):
        self.started += 1
        self.end = self.done + runs
        print(f"report.py: experiment {self.started}/{self.experiments}, {mpi} {name}: "
              f"{runs} runs ({', '.join(modes)}, each a warm-up and the repetitions)",
              file=sys.stderr, flush=True)

    def run(self, mpi, name, mode, label, wall):
        self.done += 1
        elapsed = time.monotonic() - self.start
        left = elapsed / self.done * (self.total - self.done)
        print(f"[{self.done}/{self.total}] {mpi} {name}: {mode} {label} "
              f"({wall:.1f} s; {self.clock(elapsed)} elapsed, about {self.clock(left)} left)",
              file=sys.stderr, flush=True)

    def abandon(self):
        """The experiment failed: its runs not made count as done."""
        self.done = max(self.done, self.end)


def run_experiment(exp, build, mpi, modes, reps, settings, small, timeout,
                   progress, bed=None):
    """Runs one experiment in every mode; returns its JSON document."""
    command = [os.path.join(build, exp["program"])] + \
        (exp["small"] if small else exp["args"])
    if exp["link"]:
        bed.set_link(exp["link"])
    samples, kinds = [], None
    progress.begin(mpi, exp["name"], modes, len(plan(modes, reps)))
    for mode, rep, warmup in plan(modes, reps):
        cmd = launch(exp, build, mode, settings, small, mpi, bed)
        metrics, wall = bench_run.run_once(cmd, timeout)
        if kinds is None:
            kinds = {m.name: (m.unit, m.better) for m in metrics.values()}
        bench_run.check_consistent(kinds, metrics, shlex.join(cmd))
        samples.append({"mode": mode, "rep": rep, "warmup": warmup,
                        "wall_s": round(wall, 3),
                        "metrics": {n: m.value for n, m in metrics.items()}})
        progress.run(mpi, exp["name"], mode,
                     "warm-up" if warmup else f"rep {rep + 1}/{reps}", wall)
    return {
        "format_version": FORMAT_VERSION,
        "experiment": exp["name"],
        "signature": signature(exp, mpi, modes, reps, settings, small),
        "command": command,
        "launch": {m: launch(exp, build, m, settings, small, mpi, bed) for m in modes},
        "link": exp["link"],
        "headline": exp["headline"],
        "results": summarize(samples, kinds, modes),
        "samples": samples,
    }


def summarize(samples, kinds, modes):
    """Per metric: each mode's median/min/max, and its oriented ratio to
    native (> 1: better than native)."""
    results = []
    for name, (unit, better) in kinds.items():
        row = {"metric": name, "unit": unit, "better": better}
        for mode in modes:
            values = [s["metrics"][name] for s in samples
                      if s["mode"] == mode and not s["warmup"]]
            row[mode] = bench_run.summarize(values)
        for mode in modes:
            if mode != "native":
                row[f"ratio_{mode}"] = bench_run.oriented_ratio(
                    row["native"]["median"], row[mode]["median"], better)
        results.append(row)
    return results


# --------------------------------------------------------------------------
# The report

def fmt_ratio(value):
    return "-" if value is None else f"{value:.2f}"


def fmt_cell(summary):
    f = bench_run.fmt_value
    return f"{f(summary['median'])} ({f(summary['min'])}-{f(summary['max'])})"


def headline_rows(docs):
    """(mpi, experiment document, its headline metric's row) of each
    experiment that measured its headline metric, but the scaling series
    (scaling_section)."""
    for mpi, exps in docs.items():
        for doc in exps:
            if SCALING_RE.match(doc["experiment"]):
                continue  # their own table
            row = next((r for r in doc["results"] if r["metric"] == doc["headline"]), None)
            if row is not None:
                yield mpi, doc, row


def markdown(context, docs, plots):
    """The report: context, headline table, one table per experiment."""
    lines = ["# Application experiments: native, wisp, MPICH's progress thread",
             "",
             f"- git revision: `{context['git_revision']}`, "
             f"{context['timestamp']}",
             f"- machine: {context['machine']['hostname']}, "
             f"{context['machine']['cpu_model']}, "
             f"{context['machine']['cores']} cores, load average at start "
             f"{context['machine'].get('loadavg_at_start')}",
             f"- settings given to every mode: "
             f"`{context['settings'] or 'none'}`; wisp mode adds each "
             f"experiment's own (e.g. `WISP_GHOSTS=1` for rma_gcu); async = "
             f"native with `MPIR_CVAR_ASYNC_PROGRESS=1` (MPICH only)",
             f"- {context['reps']} measured runs per mode after one warm-up, "
             f"modes alternating; cells are median (min-max)",
             "",
             "Ratios are oriented: above 1 the mode did better than native "
             "(higher rate or shorter time). On a shared machine with few "
             "cores these are illustrations, not measurements to quote: look "
             "at min-max before believing a ratio.",
             "", "## Headline", "",
             "| MPI | experiment | metric | native | wisp | ratio | async | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for mpi, doc, row in headline_rows(docs):
        cells = [mpi, doc["experiment"],
                 f"{row['metric']} ({row['unit']}, {row['better']})",
                 fmt_cell(row["native"])]
        for mode in ("wisp", "async"):
            if mode in row:
                cells += [fmt_cell(row[mode]), fmt_ratio(row[f"ratio_{mode}"])]
            else:
                cells += ["-", "-"]
        lines.append("| " + " | ".join(cells) + " |")
    for mpi, exps in docs.items():
        lines += scaling_section(mpi, exps, plots)
    for mpi, exps in docs.items():
        for doc in exps:
            modes = doc["signature"]["modes"]
            ctx = doc.get("context", {})
            lines += ["", f"## {mpi}: {doc['experiment']}", "",
                      f"`{shlex.join(wisp_launch(doc))}`", "",
                      f"measured at git `{ctx.get('git_revision', '?')}`, "
                      f"{ctx.get('timestamp', '?')}, load average at start "
                      f"{ctx.get('machine', {}).get('loadavg_at_start')}", ""]
            head = ["metric", "unit"] + [m for m in modes] + \
                [f"{m}/native" for m in modes if m != "native"]
            lines += ["| " + " | ".join(head) + " |",
                      "|" + "---|" * len(head)]
            for row in doc["results"]:
                cells = [row["metric"], row["unit"]] + \
                    [fmt_cell(row[m]) for m in modes] + \
                    [fmt_ratio(row[f"ratio_{m}"]) for m in modes
                     if m != "native"]
                lines.append("| " + " | ".join(cells) + " |")
            for path in plots.get((mpi, doc["experiment"]), []):
                lines += ["", f"![{os.path.basename(path)}]({path})"]
    return "\n".join(lines) + "\n"


def wisp_launch(doc):
    """The command line of the wisp mode, or of the first variant."""
    launches = doc["launch"]
    return launches.get("wisp") or next(v for m, v in launches.items() if m != "native")


def headline_text(docs):
    """The headline as fixed-width text, for the terminal and the demo."""
    rows = [["mpi", "experiment", "metric", "native", "wisp", "ratio",
             "async", "ratio"]]
    f = bench_run.fmt_value
    for mpi, doc, row in headline_rows(docs):
        cells = [mpi, doc["experiment"], f"{row['metric']} ({row['unit']})",
                 f(row["native"]["median"])]
        for mode in ("wisp", "async"):
            cells += [f(row[mode]["median"]), fmt_ratio(row[f"ratio_{mode}"])] \
                if mode in row else ["-", "-"]
        rows.append(cells)
    return bench_run.format_table(rows)


# --------------------------------------------------------------------------
# Scaling (Jacobi, strong and weak)

SCALING_TITLE = {"strong": "strong scaling: the global grid fixed",
                 "weak": "weak scaling: the grid per process fixed"}


def scaling_series(exps):
    """{kind: [document, ...] by process count} of the Jacobi scaling
    experiments among one MPI's documents."""
    series = {}
    for doc in exps:
        match = SCALING_RE.match(doc["experiment"])
        if match:
            series.setdefault(match["kind"], []).append(doc)
    return {k: sorted(v, key=lambda d: d["signature"]["np"])
            for k, v in sorted(series.items())}


def efficiency(rate, np, rate_one):
    """Parallel efficiency from rates: rate(p) / (p x rate(1)). With the
    global grid fixed that is the speed-up over p; with the grid per process
    fixed, the rate per process against one process's."""
    if rate_one is None or rate_one <= 0 or np <= 0:
        return None
    return rate / (np * rate_one)


def scaling_rows(docs):
    """Per process count: {"np", "modes": {mode: (MLUP/s summary,
    efficiency against the same mode's 1-process median)}, "ratios":
    {mode: oriented ratio to native}}."""
    def mlups(doc):
        return next((r for r in doc["results"] if r["metric"] == "mlups"), None)
    one = next((mlups(d) for d in docs if d["signature"]["np"] == 1), None)
    rows = []
    for doc in docs:
        row, np = mlups(doc), doc["signature"]["np"]
        if row is None:
            continue
        modes = doc["signature"]["modes"]
        rows.append({
            "np": np,
            "modes": {m: (row[m], efficiency(row[m]["median"], np,
                                             one[m]["median"] if one and m in one else None))
                      for m in modes},
            "ratios": {m: row[f"ratio_{m}"] for m in modes if m != "native"}})
    return rows


def grid_args(doc):
    """The grid and sweeps of a Jacobi run, as given to the program."""
    return " ".join(a for a in doc["command"][1:]
                    if a.split("=")[0] in ("n", "nx", "ny", "nz", "local", "sweeps"))


def scaling_section(mpi, exps, plots):
    """The Markdown of one MPI's scaling series: a table per kind, the plot."""
    series = scaling_series(exps)
    if not series:
        return []
    lines = ["", f"## {mpi}: Jacobi scaling", "",
             "Pure MPI (`variant=nonblocking`); MLUP/s as median (min-max); "
             "efficiency = rate(p) / (p x rate(1)) of the medians, each mode "
             "against its own 1-process run; mode/native at the same p (above "
             "1: faster than native)."]
    for kind, docs in series.items():
        modes = docs[0]["signature"]["modes"]
        head = ["processes"]
        for m in modes:
            head += [f"{m} MLUP/s", "efficiency"] + ([f"{m}/native"] if m != "native" else [])
        lines += ["", f"### {SCALING_TITLE[kind]} (`{grid_args(docs[0])}`)", "",
                  "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for row in scaling_rows(docs):
            cells = [str(row["np"])]
            for m in modes:
                summary, eff = row["modes"].get(m, (None, None))
                cells += [fmt_cell(summary) if summary else "-", fmt_ratio(eff)]
                if m != "native":
                    cells.append(fmt_ratio(row["ratios"].get(m)))
            lines.append("| " + " | ".join(cells) + " |")
    for path in plots.get((mpi, "jacobi_scaling"), []):
        lines += ["", f"![{os.path.basename(path)}]({path})"]
    return lines


# --------------------------------------------------------------------------
# Plots

def series_of(results):
    """{series: [(x, row)]} for the metrics named <series>_<n>B, _<n>ms or
    _<n>ops (operations per epoch)."""
    series = {}
    for row in results:
        match = SERIES_RE.match(row["metric"])
        if match:
            key = f"{match['series']} ({match['unit']})"
            series.setdefault(key, []).append((int(match["x"]), row))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in series.items()
            if len(v) > 1}


def draw_plots(docs, out):
    """PNG files under out/plots; returns {(mpi, experiment): [paths]}."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib is not installed: no plots "
              "(`make report` installs it into .venv)", file=sys.stderr)
        return {}
    colors = ModeColors()
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    made = {}
    for mpi, exps in docs.items():
        for doc in exps:
            if SCALING_RE.match(doc["experiment"]):
                continue  # drawn together by draw_scaling
            modes = doc["signature"]["modes"]
            series = series_of(doc["results"])
            scalars = [r for r in doc["results"] if not SERIES_RE.match(r["metric"])]
            panels = len(series) + (1 if scalars else 0)
            cols = min(3, panels)
            rows = (panels + cols - 1) // cols
            fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.2 * rows),
                                     squeeze=False)
            axes = list(axes.flat)
            for ax in axes[panels:]:
                ax.set_visible(False)
            axes = axes[:panels]
            for ax, (name, points) in zip(axes, series.items()):
                xs = [x for x, _ in points]
                for mode in modes:
                    med = [r[mode]["median"] for _, r in points]
                    low = [r[mode]["median"] - r[mode]["min"] for _, r in points]
                    high = [r[mode]["max"] - r[mode]["median"] for _, r in points]
                    ax.errorbar(xs, med, yerr=[low, high], marker="o",
                                capsize=3, color=colors[mode], label=mode)
                if name.startswith("total_") and 0 in xs:
                    t_c = points[0][1]["native"]["median"]
                    ax.plot(xs, [t_c + x for x in xs], "k:", label="no overlap")
                    ax.plot(xs, [max(t_c, x) for x in xs], "k--",
                            label="full overlap")
                if name.endswith("(B)") or name.endswith("(ops)"):
                    ax.set_xscale("log", base=2)
                ax.set_title(name)
                ax.set_xlabel("work (ms)" if name.endswith("(ms)") else
                              "operations per epoch" if name.endswith("(ops)") else
                              "message size (bytes)")
                ax.set_ylabel(points[0][1]["unit"])
                ax.grid(alpha=0.3)
                ax.legend(fontsize=8)
            if scalars:
                draw_scalars(axes[-1], scalars, modes, colors)
            fig.suptitle(f"{doc['experiment']} ({mpi}, np "
                         f"{doc['signature']['np']})")
            fig.tight_layout()
            path = os.path.join("plots", f"{doc['experiment']}-{mpi}.png")
            fig.savefig(os.path.join(out, path), dpi=90)
            plt.close(fig)
            made.setdefault((mpi, doc["experiment"]), []).append(path)
        path = draw_jacobi_model(plt, mpi, exps, out, colors)
        if path:
            first = next(d for d in exps if is_jacobi_variant(d))
            made.setdefault((mpi, first["experiment"]), []).insert(0, path)
        path = draw_scaling(plt, mpi, exps, out, colors)
        if path:
            made[(mpi, "jacobi_scaling")] = [path]
    return made


def is_jacobi_variant(doc):
    """A Jacobi experiment of the model plot: not a scaling point."""
    return doc["experiment"].startswith("jacobi_") and \
        not SCALING_RE.match(doc["experiment"])


def draw_scaling(plt, mpi, exps, out, colors):
    """MLUP/s against processes, a panel per scaling kind, each mode with
    its ideal line (p x its 1-process median, dotted)."""
    series = scaling_series(exps)
    if not series:
        return None
    fig, axes = plt.subplots(1, len(series), figsize=(5.5 * len(series), 4.2),
                             squeeze=False)
    for ax, (kind, docs) in zip(axes[0], series.items()):
        rows = scaling_rows(docs)
        xs = [r["np"] for r in rows]
        for mode in docs[0]["signature"]["modes"]:
            summaries = [r["modes"][mode][0] for r in rows]
            med = [s["median"] for s in summaries]
            ax.errorbar(xs, med, yerr=[[s["median"] - s["min"] for s in summaries],
                                       [s["max"] - s["median"] for s in summaries]],
                        marker="o", capsize=3, color=colors[mode], label=mode)
            if 1 in xs:
                one = med[xs.index(1)]
                ax.plot(xs, [one * x for x in xs], ":", color=colors[mode],
                        label="ideal (each mode)" if mode == "native" else None)
        ax.set_xticks(xs)
        ax.set_xlabel("processes")
        ax.set_ylabel("MLUP/s")
        ax.set_title(f"{SCALING_TITLE[kind]}\n({grid_args(docs[0])})", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"3-D Jacobi scaling ({mpi}); dotted: p x the 1-process rate")
    fig.tight_layout()
    path = os.path.join("plots", f"jacobi_scaling-{mpi}.png")
    fig.savefig(os.path.join(out, path), dpi=90)
    plt.close(fig)
    return path


class ModeColors(dict):
    """A color per mode: fixed for the usual ones, from a palette for
    variants."""
    PALETTE = ["#7b3fa0", "#c23b6e", "#8c6d1f", "#17a2b8", "#555555", "#e377c2"]

    def __init__(self):
        super().__init__({"native": "#1f5fa8", "wisp": "#d2571b", "async": "#2a8a3a"})

    def __missing__(self, mode):
        color = self.PALETTE[(len(self) - 3) % len(self.PALETTE)]
        self[mode] = color
        return color


def draw_scalars(ax, scalars, modes, colors):
    """Bars of the metrics that are not a series: their medians when they
    share a unit (the overlap's percentages), else each mode's ratio to
    native, oriented as in the tables (> 1: better than native; a metric
    that a zero median leaves without a ratio is left out)."""
    absolute = len({r["unit"] for r in scalars}) == 1
    if not absolute:
        scalars = [r for r in scalars if all(
            bench_run.oriented_ratio(r["native"]["median"], r[m]["median"],
                                     r["better"]) is not None for m in modes)]
    width = 0.8 / len(modes)
    for i, mode in enumerate(modes):
        values = [r[mode]["median"] if absolute else bench_run.oriented_ratio(
            r["native"]["median"], r[mode]["median"], r["better"])
            for r in scalars]
        ax.bar([j + i * width for j in range(len(scalars))], values, width,
               color=colors[mode], label=mode)
    if absolute:
        ax.set_ylabel(scalars[0]["unit"])
        ax.set_title("medians")
    else:
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("ratio to native (> 1: better)")
        ax.set_title("each metric against native")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(scalars))])
    ax.set_xticklabels([r["metric"] for r in scalars], rotation=45,
                       ha="right", fontsize=8)
    ax.legend(fontsize=8)


def draw_jacobi_model(plt, mpi, exps, out, colors):
    """Measured MLUP/s against the model's prediction, per Jacobi variant."""
    jac = [d for d in exps if is_jacobi_variant(d)]
    if not jac:
        return None
    modes = jac[0]["signature"]["modes"]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(jac)), 4.2))
    width = 0.8 / len(modes)
    for i, mode in enumerate(modes):
        rows = [{r["metric"]: r for r in d["results"]} for d in jac]
        xs = [j + i * width for j in range(len(jac))]
        ax.bar(xs, [r["mlups"][mode]["median"] for r in rows], width,
               color=colors[mode], label=f"{mode} measured")
        ax.scatter(xs, [r["model_mlups"][mode]["median"] for r in rows],
                   marker="_", s=400, color="black", zorder=3,
                   label="model" if i == 0 else None)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(jac))])
    ax.set_xticklabels([d["experiment"][7:] for d in jac], rotation=20)
    ax.set_ylabel("MLUP/s")
    ax.set_title(f"3-D Jacobi, measured and predicted ({mpi})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join("plots", f"jacobi_model-{mpi}.png")
    fig.savefig(os.path.join(out, path), dpi=90)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------
# Command line

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", action="append", required=True,
                   help="a build directory (repeat for each MPI)")
    p.add_argument("--out", default="build/report", help="output directory")
    p.add_argument("--reps", type=bench_run.positive_int, default=3,
                   help="measured runs per mode (default 3)")
    p.add_argument("--only", default="", metavar="REGEX",
                   help="the experiments whose name matches (re.search)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting for every mode, e.g. WISP_SHM_...")
    p.add_argument("--modes", default="native,wisp,async",
                   help="comma-separated, of native, wisp, async")
    p.add_argument("--small", action="store_true",
                   help="the small configurations (the demo, smoke tests)")
    p.add_argument("--resume", action="store_true",
                   help="keep results already in --out for the same settings")
    p.add_argument("--timeout", type=bench_run.positive_int, default=300,
                   help="seconds allowed per run (default 300)")
    p.add_argument("--list", action="store_true", help="list the suite and exit")
    p.add_argument("--hosts", action="store_true",
                   help="the experiments across the two hosts of a bed of "
                        "network namespaces (tools/hosts.sh; root)")
    p.add_argument("--links", default="off,10gbit",
                   help="with --hosts: the link settings, each a pass of the "
                        "suite (off: the veth pair as it is; default off,10gbit)")
    args = p.parse_args(argv)
    try:
        args.settings = dict(bench_run.parse_env(e) for e in args.env)
    except ValueError as err:
        p.error(str(err))
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if "native" not in args.modes or \
            any(m not in ("native", "wisp", "async") for m in args.modes):
        p.error("--modes: native and any of wisp, async")
    links = [x.strip() for x in args.links.split(",") if x.strip()]
    args.suite = hosts_suite(links) if args.hosts else SUITE
    try:
        args.selected = select(args.suite, args.only)
    except re.error as err:
        p.error(f"--only: {err}")
    if not args.selected:
        p.error(f"--only {args.only!r} matches no experiment "
                f"({', '.join(e['name'] for e in args.suite)})")
    return args


def select(suite, only):
    """The experiments whose name matches `only`; the optional ones only
    when `only` is given."""
    return [e for e in suite if re.search(only, e["name"])
            and (only or not e.get("optional"))]


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_todo(todo, args, context, docs, progress, bed):
    """Runs the experiments not kept; writes each one's JSON; 1 if any
    failed."""
    status = 0
    for build, mpi, modes, exp, path in todo:
        try:
            doc = run_experiment(exp, build, mpi, modes, args.reps,
                                 args.settings, args.small, args.timeout,
                                 progress, bed)
        except bench_run.BenchError as err:
            print(f"report.py: {mpi} {exp['name']} failed: {err}", file=sys.stderr)
            progress.abandon()
            status = 1
            continue
        doc.update(context=context)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        docs[mpi][args.selected.index(exp)] = doc
    return status


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list:
        for e in args.suite:
            print(f"{e['name']:24} np {e['np']}  {e['program']} {shlex.join(e['args'])}"
                  + ("  (optional: only when --only names it)" if e.get("optional") else ""))
        return 0
    builds = [(b, build_mpi(b)) for b in args.build]
    first = bench_run.session_context(argparse.Namespace(mpi=builds[0][1]))
    context = {**first, "settings": args.settings, "reps": args.reps,
               "mpi": {mpi: bench_run.mpi_info(mpi) for _, mpi in builds},
               "small": args.small}
    todo, docs = [], {}
    for build, mpi in builds:
        os.makedirs(os.path.join(args.out, mpi), exist_ok=True)
        docs[mpi] = []
        for exp in args.selected:
            modes = experiment_modes(exp, modes_for(mpi, args.modes))
            path = os.path.join(args.out, mpi, f"{exp['name']}.json")
            old = load(path) if args.resume else None
            sig = signature(exp, mpi, modes, args.reps, args.settings, args.small)
            if old and old.get("signature") == sig:
                print(f"report.py: {mpi} {exp['name']}: kept from {path}",
                      file=sys.stderr)
                docs[mpi].append(old)
            else:
                todo.append((build, mpi, modes, exp, path))
                docs[mpi].append(None)
    progress = Progress(sum(len(plan(m, args.reps)) for _, _, m, _, _ in todo), len(todo))
    if todo:
        print(f"report.py: {len(todo)} experiment{'s' * (len(todo) != 1)}, {progress.total} runs "
              f"({args.reps} repetition{'s' * (args.reps != 1)} and a warm-up per mode)",
              file=sys.stderr, flush=True)
    try:
        with contextlib.ExitStack() as stack:
            bed = stack.enter_context(hosts_bed.Bed()) if args.hosts and todo else None
            status = run_todo(todo, args, context, docs, progress, bed)
    except hosts_bed.BedError as err:
        print(f"report.py: the two-host bed: {err}", file=sys.stderr)
        return 1
    docs = {mpi: [d for d in exps if d] for mpi, exps in docs.items()}
    plots = draw_plots(docs, args.out)
    context["finished"] = datetime.datetime.now(datetime.timezone.utc) \
        .isoformat(timespec="seconds")
    with open(os.path.join(args.out, "report.md"), "w", encoding="utf-8") as f:
        f.write(markdown(context, docs, plots))
    with open(os.path.join(args.out, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"format_version": FORMAT_VERSION, "context": context,
                   "experiments": docs}, f, indent=1)
        f.write("\n")
    print(headline_text(docs))
    print(f"\nreport: {os.path.join(args.out, 'report.md')} "
          f"(JSON and plots beside it)")
    return status


if __name__ == "__main__":
    sys.exit(main())
