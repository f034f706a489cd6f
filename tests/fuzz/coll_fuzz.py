#!/usr/bin/env python3
"""The collectives' differential tester's driver (issue 52 item 7; docs/testing.md).

Runs the interpreter (coll_fuzz, built per MPI as tests/t_coll_fuzz) on a
range of seeds: each batch of consecutive seeds with the same process count
and thread mode is one MPI job, natively and then under wisp in two of the
settings below (in turn, batch by batch). Every rank's log must be the same
as the native one line for line, less the hashes after '~' (float sums and
products, whose bits depend on the order of evaluation: the interpreter
checks them itself against the exact value and writes ok or BAD), and the
exit status too; and under wisp every rank of one allreduce of floats must
have the same bits (its '~' hashes equal). A job past its time limit is a
hang. A batch that differs is taken apart seed by seed; a seed that differs
is run again with the first differing call alone (coll_fuzz --only), and
the finding names the program, the call and the commands that reproduce it.

Known divergences (tests/fuzz/coll-known-divergences.txt: `mpi setting np
seed | why`) are reported but do not fail the run.

Plain python3, no packages; shares fuzz.py's job runner.
"""
import argparse
import atexit
import os
import re
import shutil
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz import load_known, np_of, report_end, run_job  # noqa: E402

# wisp's collectives' settings (tests/coll.cmake, docs/coll.md): name ->
# (extra processes, environment).
SETTINGS = {
    "auto": (0, []),
    "on": (0, ["WISP_COLL=on"]),
    "stage4k": (0, ["WISP_COLL=on", "WISP_COLL_STAGE=4k", "WISP_COLL_AFTER=0"]),
    "copy0": (0, ["WISP_COLL=on", "WISP_COLL_SINGLE_COPY=0"]),
    "vnode2": (0, ["WISP_VNODE_SIZE=2"]),
    "shm_off": (0, ["WISP_SHM=off"]),
}
USELESS = {("vnode2", 2)}  # one node of two: the same as auto
HERE = os.path.dirname(os.path.abspath(__file__))


def threaded(seed):
    """Seeds run with --threads: blocks of 10, one in three."""
    return (seed // 10) % 3 == 2


def comparable(line):
    """A log line less its '~' hashes (checked by the interpreter itself)."""
    return re.sub(r"~[0-9a-f]+", "~", line)


def first_difference(native, other, np, seed):
    """(call, text) of the first line of a seed that differs; None if none."""
    for r in range(np):
        a = native.logs[r].get(seed, [])
        b = other.logs[r].get(seed, [])
        for i in range(max(len(a), len(b))):
            la = a[i] if i < len(a) else "(log ends)"
            lb = b[i] if i < len(b) else "(log ends)"
            if comparable(la) != comparable(lb):
                m = re.match(r"c(\d+) ", lb) or re.match(r"c(\d+) ", la)
                return (int(m.group(1)) if m else None,
                        f"rank {r}: native '{la}', got '{lb}'")
    return None


def split_allreduce(job, np, seed):
    """(call, text) of an allreduce whose ranks got different float bits."""
    seen = {}
    for r in range(np):
        for line in job.logs[r].get(seed, []):
            m = re.match(r"(c\d+) i?allreduce .* g=(\d+):.* res~([0-9a-f]+)", line)
            if m:
                seen.setdefault((m.group(1), m.group(2)), {})[r] = m.group(3)
    for (call, g), hashes in sorted(seen.items(), key=lambda kv: int(kv[0][0][1:])):
        if len(set(hashes.values())) > 1:
            return (int(call[1:]), f"{call} (group {g}): the ranks' results differ: {hashes}")
    return None


def job_args(args, threads, only=None):
    extra = (["--threads"] if threads else []) + (["--only", str(only)] if only is not None else [])
    return types.SimpleNamespace(work=args.work, wisprun=args.wisprun, program=args.program,
                                 program_args=extra + args.program_args)


def reproduce(args, setting, np, seed, threads, call):
    program = getattr(args, "shown_program", args.program)
    t = " --threads" if threads else ""
    env = "".join(f" --env {kv}" for kv in SETTINGS[setting][1])
    lines = [f"python3 tests/fuzz/coll_fuzz.py --wisprun {args.wisprun} --program {program} "
             f"--mpi {args.mpi} --first {seed} --count 1 --np {np}:1 --settings {setting}"]
    if call is not None:
        lines.append(f"{args.wisprun}{env} --env WISP_COLL_AFTER=0 -n {np} {program} LOGDIR {seed} 1{t} --only {call}"
                     f"   # and --native; {program} --dump {seed} {np}{t} | grep '^c{call} '")
    return "\n    ".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wisprun", required=True)
    ap.add_argument("--program", required=True, help="the build's tests/t_coll_fuzz")
    ap.add_argument("--mpi", default="mpich")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=100, help="programs (seeds)")
    ap.add_argument("--np", default="2:5,3:2,4:3", help="process counts and their weights")
    ap.add_argument("--batch", type=int, default=10, help="seeds per MPI job")
    ap.add_argument("--settings", default="on,auto,stage4k,vnode2,shm_off,copy0",
                    help="wisp settings, two per batch in turn (comma list; 'all': every one)")
    ap.add_argument("--per-batch", type=int, default=2, help="settings per batch")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per job of 10 seeds")
    ap.add_argument("--known", default=os.path.join(HERE, "coll-known-divergences.txt"))
    ap.add_argument("--work", default=None, help="where the jobs' logs go (a temporary folder)")
    ap.add_argument("program_args", nargs="*", help="after --: options for coll_fuzz")
    args = ap.parse_args()
    settings = list(SETTINGS) if args.settings == "all" else args.settings.split(",")
    for s in settings:
        if s not in SETTINGS:
            ap.error(f"unknown setting {s}; known: {', '.join(SETTINGS)}")
    known = load_known(args.known, args.mpi)
    t0 = time.monotonic()
    # Run a copy of the program: a rebuild of the tree during the run (a
    # shared checkout) must not change it between the native run and wisp's.
    shown_program = args.program
    copy_dir = tempfile.mkdtemp(prefix="coll_fuzz-bin-")
    atexit.register(shutil.rmtree, copy_dir, True)
    args.program = shutil.copy2(args.program, copy_dir)
    args.shown_program = shown_program

    plan, batch_no = [], {}
    seed, end = args.first, args.first + args.count
    while seed < end:
        np, th = np_of(seed, args.np), threaded(seed)
        count = 1
        while (seed + count < end and count < args.batch and np_of(seed + count, args.np) == np
               and threaded(seed + count) == th):
            count += 1
        b = batch_no.get(np, 0)
        batch_no[np] = b + 1
        chosen, k = [], b * args.per_batch
        while len(chosen) < min(args.per_batch, len(settings)) and k < b * args.per_batch + 4 * len(settings):
            s = settings[k % len(settings)]
            k += 1
            if s not in chosen and (s, np) not in USELESS:
                chosen.append(s)
        plan.append((np, seed, count, th, chosen))
        seed += count

    def timeout_of(np, count):
        return args.timeout * {2: 1, 3: 2, 4: 3}.get(np, 4) * max(1, count / 10)

    programs, runs, served = {}, {}, {}
    findings, native_failures, known_seen = [], [], []
    for (np, first, count, th, chosen) in plan:
        programs[np] = programs.get(np, 0) + count
        ja = job_args(args, th)
        native = run_job(ja, "native", np, first, count, timeout_of(np, count), SETTINGS)
        runs["native"] = runs.get("native", 0) + count
        if native.timed_out or native.rc != 0:
            what = "timeout" if native.timed_out else f"exit status {native.rc}"
            native_failures.append(f"np {np} seeds {first}..{first + count - 1}"
                                   f"{' --threads' if th else ''}: native {what}\n" + native.output[-2000:])
            print(f"native run failed ({what}): np {np} seeds {first}..{first + count - 1}", flush=True)
            continue
        for setting in chosen:
            job = run_job(ja, setting, np, first, count, timeout_of(np, count), SETTINGS)
            runs[setting] = runs.get(setting, 0) + count
            m = re.search(r"wisp served (\d+) collectives, passed (\d+)", job.output)
            if m:
                sv = served.setdefault(setting, [0, 0])
                sv[0] += int(m.group(1))
                sv[1] += int(m.group(2))

            def verdict(j, s):
                if j.timed_out:
                    return None, "hang (timeout)"
                if j.rc != native.rc:
                    return None, f"exit status {j.rc}"
                d = first_difference(native, j, np, s) or split_allreduce(j, np, s)
                return (d[0], f"log differs: {d[1]}") if d else (None, None)

            bad = [s for s in range(first, first + count) if verdict(job, s)[1]]
            if not bad and not job.timed_out and job.rc == native.rc:
                continue
            suspects = bad if bad and job.rc == native.rc else list(range(first, first + count))
            found_one = False
            for s in suspects:
                alone = job if count == 1 else run_job(ja, setting, np, s, 1, timeout_of(np, 1), SETTINGS)
                call, what = verdict(alone, s)
                if not what:
                    continue
                if call is None:  # a crash or a hang: where each rank's log stops
                    last = [next((ln.split()[0] for ln in reversed(alone.logs[r].get(s, []))
                                  if re.match(r"c\d+ ", ln)), "-") for r in range(np)]
                    what += f" (the ranks' last calls logged: {' '.join(last)})"
                found_one = True
                if call is not None:  # the call alone: does it still differ?
                    # (as its communicator's first call: wisp's with WISP_COLL_AFTER=0)
                    jo = job_args(args, th, call)
                    alone_settings = dict(SETTINGS)
                    alone_settings[setting] = (SETTINGS[setting][0],
                                               SETTINGS[setting][1] + ["WISP_COLL_AFTER=0"])
                    n1 = run_job(jo, "native", np, s, 1, timeout_of(np, 1), SETTINGS)
                    w1 = run_job(jo, setting, np, s, 1, timeout_of(np, 1), alone_settings)
                    d1 = (w1.timed_out or w1.rc != n1.rc or first_difference(n1, w1, np, s)
                          or split_allreduce(w1, np, s))
                    what += f" [call c{call} alone: {'differs too' if d1 else 'no difference'}]"
                key = (setting, np, s)
                line = (f"{args.mpi} {setting} np {np} seed {s}{' --threads' if th else ''}: {what}\n"
                        f"  reproduce: {reproduce(args, setting, np, s, th, call)}")
                if key in known:
                    known_seen.append(line + f"  [known: {known[key]}]")
                else:
                    findings.append(line + "\n" + alone.output[-1500:])
                print(("KNOWN " if key in known else "FINDING ") + line, flush=True)
            if not found_one:
                what = ("hang (timeout)" if job.timed_out else
                        f"exit status {job.rc}" if job.rc != native.rc else "log differs")
                line = (f"{args.mpi} {setting} np {np} seeds {first}..{first + count - 1} together: "
                        f"{what}, but no seed alone")
                findings.append(line + "\n" + job.output[-1500:])
                print("FINDING " + line, flush=True)

    total = sum(programs.values())
    print(f"\ncoll_fuzz ({args.mpi}): {total} programs "
          f"({', '.join(f'{v} on {k} processes' for k, v in sorted(programs.items()))}) in "
          f"{time.monotonic() - t0:.0f} s; runs per setting: "
          + ", ".join(f"{k} {v}" for k, v in runs.items()))
    print("rank 0's calls that wisp served / passed to the MPI, per setting: "
          + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in served.items()))
    return report_end(known_seen, native_failures, findings)


if __name__ == "__main__":
    sys.exit(main())
