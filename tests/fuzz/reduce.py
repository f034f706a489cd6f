#!/usr/bin/env python3
"""Cut a differential tester's finding down to the messages that make it.

Given a seed whose program fails under wisp in one setting (a hang, a crash,
a log line the program itself marks BAD, or another non-zero exit status),
drop messages (and the receives they match: p2p_fuzz --drop) while the same
kind of failure stays, by delta debugging over (phase, message) pairs.
Prints the messages kept and the program that is left (`p2p_fuzz --dump`),
which must still pass natively: that is checked last.

A failure that depends on timing may not come back in every run: --tries
runs each candidate that many times before calling it a pass.

usage: reduce.py --wisprun W --program P --seed S --np N [--setting vnode2]
Plain python3; wrap it in the shared MPI lock by hand.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz import SETTINGS, launch  # noqa: E402


def phases_of(program, seed, np):
    """[(phase, message)] of the whole program, from its dump."""
    out = subprocess.run([program, "--dump", str(seed), str(np)], check=True,
                         capture_output=True, text=True).stdout
    items = []
    for line in out.splitlines():
        if line.startswith("phase "):
            phase = int(line.split()[1].rstrip(":"))
            items += [(phase, m) for m in range(int(line.split()[2]))]
    return items


def write_drop(path, all_items, kept):
    keep = set(kept)
    with open(path, "w") as f:
        for p, m in all_items:
            if (p, m) not in keep:
                f.write(f"{p} {m}\n")


def failure(rc, work, np):
    """The kind of failure of a run: None, 'hang', 'crash', 'bad' or 'exit'."""
    if rc == "hang":
        return "hang"
    if rc < 0 or rc >= 128:
        return "crash"
    for r in range(np):
        try:
            if "BAD" in open(os.path.join(work, f"r{r}.log"), errors="replace").read():
                return "bad"
        except OSError:
            pass
    return "exit" if rc else None


def run(args, setting, drop, work):
    cmd = launch(args.wisprun, setting, args.np) + [
        args.program, work, str(args.seed), "1", "--watchdog", str(args.timeout), "--drop", drop]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=args.timeout + 15, start_new_session=True)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        rc = "hang"
    return failure(rc, work, args.np)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wisprun", required=True)
    ap.add_argument("--program", required=True, help="the build's tests/t_p2p_fuzz")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--setting", default="wisp", choices=sorted(SETTINGS))
    ap.add_argument("--tries", type=int, default=1, help="runs before a candidate passes")
    ap.add_argument("--timeout", type=int, default=20, help="seconds per run")
    ap.add_argument("--failure", choices=["hang", "crash", "bad", "exit"],
                    help="the kind to keep (default: that of the first failing run)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="reduce-")
    drop = os.path.join(work, "drop.txt")
    all_items = phases_of(args.program, args.seed, args.np)
    runs = 0

    def fails(kept):
        nonlocal runs
        write_drop(drop, all_items, kept)
        for _ in range(args.tries):
            runs += 1
            kind = run(args, args.setting, drop, work)
            if kind and not args.failure:
                args.failure = kind
                print(f"reduce: keeping a failure of kind '{kind}'", flush=True)
            if kind and kind == args.failure:
                return True
        return False

    items = list(all_items)
    if not fails(items):
        sys.exit(f"seed {args.seed} np {args.np}: no failure ({args.failure or 'any'}) in "
                 f"{args.setting} in {args.tries} runs: nothing to cut down")
    n = 2
    while len(items) >= 2:
        size = -(-len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        for chunk in chunks:
            rest = [x for x in items if x not in chunk]
            if rest and fails(rest):
                items, n = rest, max(n - 1, 2)
                print(f"reduce: {len(items)} messages left ({runs} runs)", flush=True)
                break
        else:
            if n >= len(items):
                break
            n = min(len(items), 2 * n)
    write_drop(drop, all_items, items)
    native = run(args, "native", drop, work)
    print(f"reduce: {len(items)} of {len(all_items)} messages after {runs} runs "
          f"({args.failure}); natively: {'passes' if not native else f'FAILS ({native})'}")
    print("kept (phase message):", " ".join(f"{p}:{m}" for p, m in items))
    print(f"drop file: {drop} (p2p_fuzz --dump {args.seed} {args.np} --drop {drop})")
    print(subprocess.run([args.program, "--dump", str(args.seed), str(args.np), "--drop", drop],
                         capture_output=True, text=True).stdout)


if __name__ == "__main__":
    main()
