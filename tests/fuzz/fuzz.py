#!/usr/bin/env python3
"""The differential tester's driver (issue 26; docs/testing.md).

Runs the interpreter (p2p_fuzz, built per MPI) on a range of seeds: each
batch of consecutive seeds with the same process count is one MPI job,
natively and then under wisp in two of the gate's settings (in turn, batch
by batch). Every rank's log (what each receive got, in posting order; what
each collective gave) must be the same as the native one, and the exit
status too; a job past its time limit is a hang. A batch that differs is
taken apart: each of its seeds runs alone in that setting, so a finding
names one program (`p2p_fuzz --dump SEED NP` prints it).

Known divergences (tests/fuzz/known-divergences.txt: `mpi setting np seed |
why`) are reported but do not fail the run; with --known-only only they run,
to see whether they still diverge.

Plain python3, no packages; it takes no lock itself (wrap it in the shared
MPI lock by hand, as every MPI command here).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The gate's settings (tests/p2p.cmake): name -> (extra processes, environment).
SETTINGS = {
    "wisp": (0, []),
    "vnode1": (0, ["WISP_VNODE_SIZE=1"]),
    "vnode2": (0, ["WISP_VNODE_SIZE=2"]),
    "staged": (0, ["WISP_VNODE_SIZE=2", "WISP_SHM_CMA=off", "WISP_SHM_SINGLE_COPY=1T",
                   "WISP_HEAP_SIZE=1M"]),
    "progress": (0, ["WISP_PROGRESS=thread"]),
    "ghosts1": (1, ["WISP_GHOSTS=1"]),
}
# Settings that mean nothing new for a process count (vnode2 with 2: one node).
USELESS = {("vnode2", 2)}


def np_of(seed, mix):
    """The process count of a seed's program: mix is e.g. '2:7,3:2,4:1' (weights)."""
    table = []
    for part in mix.split(","):
        n, w = part.split(":")
        table += [int(n)] * int(w)
    return table[seed % len(table)]


def split_programs(text):
    """A rank's log -> {seed: lines of that program}."""
    out, cur, seed = {}, None, None
    for line in text.splitlines():
        if line.startswith("program "):
            seed = int(line.split()[1])
            cur = out.setdefault(seed, [])
        if cur is not None:
            cur.append(line)
        if line.startswith("end "):
            cur = None
    return out


class Job:
    def __init__(self, rc, logs, seconds, timed_out, output):
        self.rc, self.logs, self.seconds, self.timed_out, self.output = rc, logs, seconds, timed_out, output


def launch(wisprun, setting, np, settings=SETTINGS):
    """wisprun's words for np application processes in `setting` (or native)
    of the table `settings` (coll_fuzz.py has its own); the program and its
    arguments follow."""
    if setting == "native":
        return [wisprun, "--native", "-n", str(np)]
    extra, env = settings[setting]
    return [wisprun] + [w for kv in env for w in ("--env", kv)] + ["-n", str(np + extra)]


def run_job(args, setting, np, first, count, timeout, settings=SETTINGS):
    """One MPI job: seeds first..first+count-1 on np processes."""
    work = tempfile.mkdtemp(prefix="fuzz-", dir=args.work)
    cmd = launch(args.wisprun, setting, np, settings) + [
        args.program, work, str(first), str(count),
        "--watchdog", str(max(5, int(timeout) - 10))] + args.program_args
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, text=True, errors="replace")
    # Killed itself (ctest's timeout), the driver takes its job along.
    signal.signal(signal.SIGTERM, lambda *_: (os.killpg(proc.pid, signal.SIGKILL), sys.exit(143)))
    timed_out = False
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
    seconds = time.monotonic() - start
    logs = {}
    for r in range(np):
        try:
            with open(os.path.join(work, f"r{r}.log"), errors="replace") as f:
                logs[r] = split_programs(f.read())
        except OSError:
            logs[r] = {}
    shutil.rmtree(work, ignore_errors=True)
    return Job(None if timed_out else proc.returncode, logs, seconds, timed_out, output)


def first_difference(native, other, np, seed):
    """The first log line of a seed that differs, as text; None if none does."""
    for r in range(np):
        a = native.logs[r].get(seed, [])
        b = other.logs[r].get(seed, [])
        for i in range(max(len(a), len(b))):
            la = a[i] if i < len(a) else "(log ends)"
            lb = b[i] if i < len(b) else "(log ends)"
            if la != lb:
                return f"rank {r}: native '{la}', got '{lb}'"
    return None


def load_known(path, mpi):
    known = {}
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split("#")[0].strip()
            if not line:
                continue
            key, _, why = line.partition("|")
            f = key.split()
            if len(f) == 4 and f[0] in (mpi, "*"):
                known[(f[1], int(f[2]), int(f[3]))] = why.strip()
    return known


def report_end(known_seen, native_failures, findings):
    """Print what a session found; its exit status (1: a divergence or a
    native failure). The collectives' tester (coll_fuzz.py) ends alike."""
    for line in known_seen:
        print("known divergence, still there: " + line)
    for f in native_failures:
        print("NATIVE FAILURE (the generator's or the MPI's): " + f)
    for f in findings:
        print("DIVERGENCE: " + f)
    print(f"{len(findings)} divergences, {len(native_failures)} native failures, "
          f"{len(known_seen)} known")
    return 1 if findings or native_failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wisprun", required=True)
    ap.add_argument("--program", required=True, help="the build's tests/t_p2p_fuzz")
    ap.add_argument("--mpi", default="mpich")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=200, help="programs (seeds)")
    ap.add_argument("--np", default="2:7,3:2,4:1", help="process counts and their weights")
    ap.add_argument("--batch", type=int, default=10, help="seeds per MPI job")
    ap.add_argument("--settings", default="wisp,vnode1,staged,progress,vnode2",
                    help="wisp settings, two per batch in turn (comma list; 'all': every one)")
    ap.add_argument("--per-batch", type=int, default=2, help="settings per batch")
    ap.add_argument("--timeout", type=float, default=40, help="seconds per job of np 2 (more for 3, 4)")
    ap.add_argument("--known", default=os.path.join(os.path.dirname(__file__), "known-divergences.txt"))
    ap.add_argument("--known-only", action="store_true", help="run only the known divergences")
    ap.add_argument("--work", default=None, help="where the jobs' logs go (a temporary folder)")
    ap.add_argument("program_args", nargs="*", help="after --: options for p2p_fuzz")
    args = ap.parse_args()
    settings = list(SETTINGS) if args.settings == "all" else args.settings.split(",")
    for s in settings:
        if s not in SETTINGS:
            ap.error(f"unknown setting {s}; known: {', '.join(SETTINGS)}")
    known = load_known(args.known, args.mpi)
    t0 = time.monotonic()

    # The plan: (np, first, count, settings) per job.
    plan = []
    if args.known_only:
        for (setting, np, seed) in sorted(known):
            plan.append((np, seed, 1, [setting]))
    else:
        batch_no = {}  # per process count: its batches take the settings in turn
        seed, end = args.first, args.first + args.count
        while seed < end:
            np = np_of(seed, args.np)
            count = 1
            while seed + count < end and count < args.batch and np_of(seed + count, args.np) == np:
                count += 1
            chosen = []
            b = batch_no.get(np, 0)
            batch_no[np] = b + 1
            k = b * args.per_batch
            while len(chosen) < min(args.per_batch, len(settings)) and k < b * args.per_batch + 4 * len(settings):
                s = settings[k % len(settings)]
                k += 1
                if s not in chosen and (s, np) not in USELESS:
                    chosen.append(s)
            plan.append((np, seed, count, chosen))
            seed += count

    programs = {2: 0, 3: 0, 4: 0}
    runs = {}
    findings, native_failures, known_seen = [], [], []

    def timeout_of(np, count, setting):
        scale = {2: 1, 3: 3, 4: 4}.get(np, 4) * (2 if setting == "ghosts1" else 1)
        return args.timeout * scale * max(1, count / 10)

    for (np, first, count, chosen) in plan:
        programs[np] = programs.get(np, 0) + count
        native = run_job(args, "native", np, first, count, timeout_of(np, count, "native"))
        runs["native"] = runs.get("native", 0) + count
        bad_native = native.timed_out or native.rc != 0
        if bad_native:
            what = "timeout" if native.timed_out else f"exit status {native.rc}"
            native_failures.append(f"np {np} seeds {first}..{first + count - 1}: native {what}\n"
                                   + native.output[-2000:])
            print(f"native run failed ({what}): np {np} seeds {first}..{first + count - 1}", flush=True)
            continue
        for setting in chosen:
            job = run_job(args, setting, np, first, count, timeout_of(np, count, setting))
            runs[setting] = runs.get(setting, 0) + count
            diffs = [] if job.timed_out or job.rc != native.rc else \
                [s for s in range(first, first + count) if first_difference(native, job, np, s)]
            if not job.timed_out and job.rc == native.rc and not diffs:
                continue
            # Take the batch apart: each seed alone.
            suspects = diffs if diffs and job.rc == native.rc else list(range(first, first + count))
            found_one = False
            for seed in suspects:
                alone = job if count == 1 else run_job(args, setting, np, seed, 1,
                                                       timeout_of(np, 1, setting))
                if alone.timed_out:
                    what = "hang (timeout)"
                elif alone.rc != 0:
                    what = f"exit status {alone.rc}"
                else:
                    d = first_difference(native, alone, np, seed)
                    what = f"log differs: {d}" if d else None
                if not what:
                    continue
                found_one = True
                key = (setting, np, seed)
                line = f"{args.mpi} {setting} np {np} seed {seed}: {what}"
                if key in known:
                    known_seen.append(line + f"  [known: {known[key]}]")
                else:
                    findings.append(line + "\n" + alone.output[-1500:])
                print(("KNOWN " if key in known else "FINDING ") + line, flush=True)
            if not found_one:
                what = "hang (timeout)" if job.timed_out else f"exit status {job.rc}" if job.rc != native.rc else "log differs"
                line = (f"{args.mpi} {setting} np {np} seeds {first}..{first + count - 1} together: "
                        f"{what}, but no seed alone")
                findings.append(line + "\n" + job.output[-1500:])
                print("FINDING " + line, flush=True)

    total = sum(programs.values())
    print(f"\nfuzz ({args.mpi}): {total} programs "
          f"({', '.join(f'{v} on {k} processes' for k, v in programs.items() if v)}) in "
          f"{time.monotonic() - t0:.0f} s; runs per setting: "
          + ", ".join(f"{k} {v}" for k, v in runs.items()))
    return report_end(known_seen, native_failures, findings)


if __name__ == "__main__":
    sys.exit(main())
