#!/usr/bin/env python3
"""The documentation's command blocks, run as a user would run them.

Reads the code blocks of Markdown files (indented by four spaces, or fenced)
and the example blocks of manual pages (roff .EX ... .EE), and runs each
block that is a command, as written, in a scratch directory that looks like
the source tree, so that a recipe cannot drift from the code. A block is
a command unless the document says otherwise just before it, in a comment:

    <!-- docs-test: output -->              what a command prints: not run
    <!-- docs-test: skip: REASON -->        cannot run here (the reason)
    <!-- docs-test: skip-command PREFIX: REASON -->
                                            run the block without its
                                            commands that start with PREFIX
    .\\" docs-test: skip: REASON             the same in a manual page

A fenced block with a language other than sh, bash or console is code, not
a command. How blocks run (the tree, the install prefix, ./app, PATH) is in
docs/testing.md, "The documentation's commands".

    docs_blocks.py list FILE...
    docs_blocks.py run --source DIR --build DIR --mpi MPI [--mpich-build DIR] FILE...

`list` prints every block and what happens to it; `run` runs those of this
build's MPI, prints a line per block and a count per file, and exits 1 when
a block fails (with its output), 0 otherwise.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARK = re.compile(r"docs-test:\s*(output|skip-command|skip)\b\s*(.*?)\s*(?:-->)?\s*$")
MPIS = ("mpich", "openmpi")
# An install prefix as the docs write it (README: `make install
# PREFIX=/opt/wisp/0.1.0`), replaced by the test's own.
PREFIX = re.compile(r"/opt/wisp/[0-9][0-9.]*")
BLOCK_TIMEOUT = 300
# A command that succeeds but ran without wisp fails its block: the
# loader could not preload the library, or wisp stepped aside (design.md,
# "A library for another MPI").
WITHOUT_WISP = re.compile(r"^(ERROR: ld\.so: .* cannot be preloaded|wisp: this program uses .*(running it without wisp|cannot step aside))", re.M)
WISP_LINE = re.compile(r"^wisp(\[\d+\])?: ")


def mpis_named(text):
    """The MPIs a text names, in the order it first names them."""
    found = sorted((m.start(), mpi) for mpi in MPIS for m in [re.search(rf"(?<![a-z]){mpi}\b", text)] if m)
    return [mpi for _, mpi in found]


class Block:
    def __init__(self, path, line, text, marks, lang=None):
        self.path, self.line, self.text, self.lang = path, line, text, lang
        self.output = False
        self.skip = None  # reason
        self.skip_commands = []  # (prefix, reason)
        for kind, rest in marks:
            if kind == "output":
                self.output = True
            elif kind == "skip":
                self.skip = rest.lstrip(":").strip()
            else:
                prefix, _, reason = rest.partition(":")
                self.skip_commands.append((prefix.strip(), reason.strip()))
        if lang and lang not in ("sh", "bash", "console", "shell"):
            self.skip = f"a fragment of {lang}, not a command"
        # wisp's own messages (`wisp[0]: ...`, `wisp: ...`) are output by
        # their form: no command has that name.
        if all(WISP_LINE.match(l) for l in text.split("\n") if l.strip()):
            self.output = True

    def where(self):
        return f"{os.path.basename(self.path)}:{self.line}"

    def mpis(self):
        """The MPIs the block names, in the order it first names them."""
        return mpis_named(self.text)

    def commands(self):
        """The block's commands (a line and its continuations), less the
        skipped ones; and the skipped ones with their reasons."""
        commands, current = [], ""
        for line in self.text.split("\n"):
            current += line + "\n"
            if not line.rstrip().endswith("\\"):
                commands.append(current)
                current = ""
        if current:
            commands.append(current)
        kept, dropped = [], []
        for c in commands:
            hit = [r for p, r in self.skip_commands if c.strip().startswith(p)]
            (dropped if hit else kept).append((c, hit[0] if hit else None))
        return [c for c, _ in kept], dropped


def marks_before(lines, i, pattern):
    """The docs-test marks on the lines just before line i (blank lines
    between them allowed)."""
    marks = []
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    while j >= 0:
        m = pattern(lines[j])
        if not m:
            break
        marks.insert(0, m)
        j -= 1
        while j >= 0 and not lines[j].strip():
            j -= 1
    return marks


def mark_reader(opener):
    """A reader of the marks in comments that start with `opener`: (kind,
    reason) for a mark, None for any other line (MARK drops a closing -->)."""
    def read(line):
        s = line.strip()
        if not (s.startswith(opener) and "docs-test:" in s):
            return None
        m = MARK.search(s)
        if not m:
            sys.exit(f"docs_blocks: cannot read the mark {s!r}")
        return m.group(1), m.group(2)
    return read


markdown_mark = mark_reader("<!--")
roff_mark = mark_reader('.\\"')


def markdown_blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", line)
        if fence:
            indent, ticks, lang = fence.groups()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(ticks):
                j += 1
            body = [l[len(indent) :] if l.startswith(indent) else l for l in lines[i + 1 : j]]
            blocks.append(Block(path, i + 1, "\n".join(body), marks_before(lines, i, markdown_mark), lang or None))
            i = j + 1
            continue
        # An indented block: after a blank line (or a mark), four spaces
        # deeper than the text around it; lines of a list item's code are
        # indented further still (six spaces under "- ").
        if line.startswith("    ") and line.strip() and i > 0 and not lines[i - 1].strip():
            indent = len(line) - len(line.lstrip())
            j = i
            while j < len(lines) and (
                lines[j].startswith(" " * indent)
                or (not lines[j].strip() and j + 1 < len(lines) and lines[j + 1].startswith(" " * indent))
            ):
                j += 1
            # Only a code block if the paragraph before is less indented.
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            prev_indent = len(lines[k]) - len(lines[k].lstrip()) if k >= 0 else 0
            if lines[k].lstrip().startswith("<!--") or k < 0 or indent >= prev_indent + 4 or prev_indent == 0:
                text = "\n".join(l[indent:] for l in lines[i:j])
                blocks.append(Block(path, i + 1, text, marks_before(lines, i, markdown_mark)))
            i = j
            continue
        i += 1
    return blocks


def roff_text(line):
    """A line of an example as man prints it."""
    line = re.sub(r"\\f[BIRP]|\\f\[[A-Z]*\]|\\&", "", line)
    return line.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'")


def roff_blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() == ".EX":
            j = i + 1
            while j < len(lines) and lines[j].strip() != ".EE":
                j += 1
            text = "\n".join(roff_text(l) for l in lines[i + 1 : j])
            blocks.append(Block(path, i + 1, text, marks_before(lines, i, roff_mark)))
    return blocks


def blocks_of(path):
    return markdown_blocks(path) if path.endswith(".md") else roff_blocks(path)


def cmd_list(files):
    for path in files:
        for b in blocks_of(path):
            if b.output:
                what = "output"
            elif b.skip:
                what = f"skip: {b.skip}"
            else:
                what = "run for " + (" and ".join(b.mpis()) or "each MPI")
                for c, reason in b.commands()[1]:
                    what += f"; without `{c.strip().splitlines()[0]}` ({reason})"
            print(f"{b.where()}: {what}")
            for line in b.text.split("\n"):
                print(f"    {line}")


class Scene:
    """The scratch directory the blocks run in: the source tree's entries as
    links, build/<mpi> the build trees, an install prefix of them, and the
    programs the docs call ./app, app.c, app.py and ./run.sh."""

    def __init__(self, source, builds, mpi):
        self.source, self.builds, self.mpi = source, builds, mpi
        self.dir = tempfile.mkdtemp(prefix="wisp-docs-")
        self.prefix = os.path.join(self.dir, "prefix")
        self.root = os.path.join(self.dir, "root")
        os.mkdir(self.root)
        for name in os.listdir(source):
            if name not in ("build", ".git"):
                os.symlink(os.path.join(source, name), os.path.join(self.root, name))
        # git wants the real .git (git archive, the version's commit).
        if os.path.exists(os.path.join(source, ".git")):
            os.symlink(os.path.join(source, ".git"), os.path.join(self.root, ".git"))
        os.mkdir(os.path.join(self.root, "build"))
        for m, b in builds.items():
            os.symlink(b, os.path.join(self.root, "build", m))
        for m, b in builds.items():
            out = subprocess.run(
                ["cmake", "--install", b, "--prefix", self.prefix], capture_output=True, text=True
            )
            if out.returncode:
                sys.exit(f"FAIL: cmake --install {b} --prefix {self.prefix}:\n{out.stdout}{out.stderr}")
        here = os.path.join(source, "tests", "docs")
        self.apps = {}
        for m in builds:
            exe = os.path.join(self.dir, f"app-{m}")
            out = subprocess.run([f"mpicc.{m}", os.path.join(here, "app.c"), "-o", exe], capture_output=True, text=True)
            if out.returncode:
                sys.exit(f"FAIL: mpicc.{m} tests/docs/app.c:\n{out.stderr}")
            self.apps[m] = exe

    def env(self):
        path = f"{self.prefix}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WISP_", "MODULE", "LMOD", "_LM"))}
        env.update(
            PATH=path,
            MANPATH=f"{self.prefix}/share/man:",
            MODULEPATH=f"{self.prefix}/share/modulefiles/lmod",
            HOME=os.environ.get("HOME", self.dir),
        )
        env.pop("VIRTUAL_ENV", None)
        env.pop("PYTHONPATH", None)
        if os.geteuid() == 0:
            # Root on a small machine: what a user's own account on a larger
            # one would not need (Open MPI refuses both by default).
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
        return env

    def set_files(self):
        """app.c, app.py and ./run.sh; ./app is copied by the block's script,
        before each command, from the program of the MPI that command names
        (else the block's first, else this build's)."""
        here = os.path.join(self.source, "tests", "docs")
        for name in ("app", "app.c", "app.py", "run.sh", "a.out"):
            p = os.path.join(self.root, name)
            if os.path.lexists(p):
                os.remove(p)
        shutil.copy(os.path.join(here, "app.c"), os.path.join(self.root, "app.c"))
        shutil.copy(os.path.join(here, "app.py"), os.path.join(self.root, "app.py"))
        with open(os.path.join(self.root, "run.sh"), "w") as f:
            f.write('#!/bin/sh\n# a program that names no MPI\nexec "$(dirname "$0")/app" "$@"\n')
        os.chmod(os.path.join(self.root, "run.sh"), 0o755)

    def run(self, block, commands):
        self.set_files()
        default = (block.mpis() or [self.mpi])[0]
        script = ""
        for c in commands:
            mpi = (mpis_named(c) or [default])[0]
            # A copy: a command may write ./app (mpicc -o app).
            script += f"cp -f {self.apps[mpi]} {os.path.join(self.root, 'app')}\n" + PREFIX.sub(self.prefix, c)
        # Lmod's `module`, as a login shell has it on Debian.
        prelude = (
            "set -e -o pipefail\n"
            "if [ -r /usr/share/lmod/lmod/init/bash ]; then set +eu; . /usr/share/lmod/lmod/init/bash; set -e; fi\n"
        )
        start = time.monotonic()
        # Its own process group, so that a block past its time is killed
        # with everything it started (the launcher and its ranks).
        proc = subprocess.Popen(
            ["bash", "-c", prelude + script],
            cwd=self.root,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=BLOCK_TIMEOUT)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            # TERM first: wisprun removes the job's /dev/shm files.
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                output, _ = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                output, _ = proc.communicate()
            status = f"none, killed after {BLOCK_TIMEOUT} s"
        return status, output, time.monotonic() - start

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def cmd_run(args):
    builds = {args.mpi: os.path.realpath(args.build)}
    if args.mpich_build and args.mpi != "mpich" and os.path.exists(os.path.join(args.mpich_build, "cmake_install.cmake")):
        builds["mpich"] = os.path.realpath(args.mpich_build)
    scene = Scene(os.path.realpath(args.source), builds, args.mpi)
    failed = 0
    try:
        for path in args.files:
            counts = {"run": 0, "output": 0, "skip": 0, "other MPI": 0}
            for b in blocks_of(path):
                if b.output:
                    counts["output"] += 1
                    continue
                if b.skip:
                    counts["skip"] += 1
                    print(f"skip {b.where()}: {b.skip}")
                    continue
                mpis = b.mpis()
                # A block of one MPI runs in that MPI's test; of both, in
                # the Open MPI build's, which has the MPICH build beside it;
                # of neither, in each.
                mine = not mpis or mpis == [args.mpi] or (len(mpis) == 2 and args.mpi == "openmpi")
                if not mine:
                    counts["other MPI"] += 1
                    continue
                if not all(m in builds for m in mpis):
                    counts["other MPI"] += 1
                    print(f"not run {b.where()}: needs the builds of {' and '.join(mpis)} (the MPICH build beside this one)")
                    continue
                commands, dropped = b.commands()
                for c, reason in dropped:
                    print(f"skip {b.where()}: `{c.strip().splitlines()[0]}`: {reason}")
                status, output, secs = scene.run(b, commands)
                counts["run"] += 1
                if status == 0 and WITHOUT_WISP.search(output):
                    status = "0, but a command ran without wisp"
                if status == 0:
                    print(f"ok {b.where()} ({secs:.0f} s)")
                else:
                    failed += 1
                    print(f"FAIL {b.where()}: exit status {status} ({secs:.0f} s); the block:")
                    print("".join(f"    {l}\n" for l in "".join(commands).rstrip("\n").split("\n")), end="")
                    print("  its output (last 40 lines):")
                    print("".join(f"    {l}\n" for l in output.rstrip("\n").split("\n")[-40:]), end="")
            print(
                f"{os.path.basename(path)} ({args.mpi}): {counts['run']} blocks run, "
                f"{counts['skip']} marked skip, {counts['output']} marked output, "
                f"{counts['other MPI']} for the other MPI"
            )
    finally:
        scene.close()
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("files", nargs="+")
    run = sub.add_parser("run")
    run.add_argument("--source", required=True)
    run.add_argument("--build", required=True)
    run.add_argument("--mpi", required=True, choices=MPIS)
    run.add_argument("--mpich-build")
    run.add_argument("files", nargs="+")
    args = p.parse_args()
    if args.cmd == "list":
        cmd_list(args.files)
        return 0
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
