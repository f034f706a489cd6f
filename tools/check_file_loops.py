#!/usr/bin/env python3
"""Check that no two files of a folder call each other in a loop.

Reads the symbols of the compiled objects (nm): a file uses another when it
needs a function or variable that the other defines. Within each folder the
uses must form no loop, so that it reads from the bottom up (docs/design.md;
docs/p2p.md, "The files, from the bottom up"). Calls through pointers (the
engine's upcalls to matching, p2p/state.h) are not uses.

Usage: check_file_loops.py FOLDER[,FOLDER...] OBJECT...   (exit 1 with each
loop found; a folder as it appears in the objects' paths, e.g. src/p2p)
"""

import os
import subprocess
import sys


def symbols(obj):
    """The global names `obj` defines, and those it needs."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
    return defined, needed


def find_loop(uses):
    """A list of files that call each other in a loop, or None."""
    state = {}  # file -> 1 while on the path, 2 when done

    def visit(f, path):
        state[f] = 1
        for g in sorted(uses.get(f, ())):
            if state.get(g) == 1:
                return path[path.index(g):] + [g]
            if g not in state:
                loop = visit(g, path + [g])
                if loop:
                    return loop
        state[f] = 2
        return None

    for f in sorted(uses):
        if f not in state:
            loop = visit(f, [f])
            if loop:
                return loop
    return None


def check(folder, objects):
    """True if the files of `folder` among `objects` call in no loop."""
    mine = [o for o in objects if f"/{folder}/" in o]
    if not mine:
        sys.exit(f"check_file_loops: no object of {folder} among the {len(objects)} given")
    defined, needed = {}, {}
    for obj in mine:
        name = os.path.relpath(obj, obj[:obj.index(f"/{folder}/") + len(folder) + 2]).removesuffix(".o")
        defined[name], needed[name] = symbols(obj)
    owner = {s: f for f, names in defined.items() for s in names}
    uses = {f: {owner[s] for s in names if s in owner and owner[s] != f}
            for f, names in needed.items()}
    loop = find_loop(uses)
    if not loop:
        print(f"check_file_loops: {len(mine)} files of {folder}, no loop")
        return True
    print(f"check_file_loops: files of {folder} call each other in a loop: " + " -> ".join(loop))
    for a, b in zip(loop, loop[1:]):
        names = sorted(s for s in needed[a] if owner.get(s) == b)
        more = f", and {len(names) - 6} more" if len(names) > 6 else ""
        print(f"  {a} -> {b}: " + ", ".join(names[:6]) + more)
    return False


def main():
    folders, objects = sys.argv[1].split(","), sys.argv[2:]
    ok = [check(folder.strip("/"), objects) for folder in folders]
    sys.exit(0 if all(ok) else 1)


if __name__ == "__main__":
    main()
