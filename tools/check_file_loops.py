#!/usr/bin/env python3
"""Check that no two files of a folder call each other in a loop.

Reads the symbols of the compiled objects (nm): a file (of the folder or of
a folder within it) uses another when it needs a function or variable that
the other defines. Within each folder the uses must form no loop, so that it reads from the bottom up (docs/design.md;
docs/p2p.md, "The files, from the bottom up").

A call through a function pointer is a use too, where the sources say which
function the pointer holds: a variable filled in by name
(`var = (struct T){.f = function}`, `struct T var = {.f = function}`,
`var.f = function;`) and called as `var.f(...)` uses the file that defines
`function`, so a loop hidden behind a pointer fails as a direct one does.
Only a struct whose type is named `..._callbacks` is left out: each of its
members is an event that a lower file reports up (as UCX's active-message
handlers), said so where it is declared (p2p/state.h).

Usage: check_file_loops.py [--root ROOT] FOLDER[,FOLDER...] OBJECT...   (exit
1 with each loop found; a folder as it appears in the objects' paths, e.g.
src/p2p, and under ROOT, the repository by default)
"""

import os
import pathlib
import re
import subprocess
import sys

LEXEMES = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
# var = (struct T){...}, struct T var = {...}: the members filled in by name.
COMPOUND = re.compile(r"\b(\w+)\s*=\s*\(\s*struct\s+(\w+)\s*\)\s*\{([^{}]*)\}")
DEFINITION = re.compile(r"\bstruct\s+(\w+)\s+(\w+)\s*=\s*\{([^{}]*)\}")
DESIGNATED = re.compile(r"\.\s*(\w+)\s*=\s*&?\s*(\w+)\s*(?=[,}]|$)")
# var.member = function; and var.member(...), var->member(...)
ASSIGNED = re.compile(r"\b(\w+)\s*(?:\.|->)\s*(\w+)\s*=\s*&?\s*(\w+)\s*;")
DECLARED = re.compile(r"\bstruct\s+(\w+)\s+\**\s*(\w+)\s*[;=\[]")
CALL = re.compile(r"\b(\w+)\s*(?:\.|->)\s*(\w+)\s*\(")


def symbols(obj):
    """The global names `obj` defines (and which of them are functions),
    and those it needs."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, functions, needed = set(), set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
            if parts[1] == "T":
                functions.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
    return defined, functions, needed


def strip(text):
    """The text without comments and string or character literals."""
    return LEXEMES.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else " ", text)


def pointers(texts, functions):
    """What the sources fill function pointers with: {(var, member): function}
    for each pointer filled in by the name of one of `functions`, but the
    members of a `..._callbacks` struct; and the variables of such structs."""
    held, callbacks = {}, set()
    for text in texts:
        for kind, var in DECLARED.findall(text):
            if kind.endswith("_callbacks"):
                callbacks.add(var)
        fills = [(var, kind, body) for var, kind, body in COMPOUND.findall(text)]
        fills += [(var, kind, body) for kind, var, body in DEFINITION.findall(text)]
        for var, kind, body in fills:
            if kind.endswith("_callbacks"):
                callbacks.add(var)
            for member, name in DESIGNATED.findall(body):
                if name in functions:
                    held[(var, member)] = name
        for var, member, name in ASSIGNED.findall(text):
            if name in functions:
                held[(var, member)] = name
    return {k: f for k, f in held.items() if k[0] not in callbacks}, callbacks


def pointer_calls(text, held):
    """The functions that `text` calls through the pointers of `held`."""
    return {held[k] for k in CALL.findall(text) if k in held}


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


def check(folder, objects, root):
    """True if the files of `folder` among `objects` call in no loop."""
    mine = [o for o in objects if f"/{folder}/" in o]
    if not mine:
        sys.exit(f"check_file_loops: no object of {folder} among the {len(objects)} given")
    defined, functions, needed = {}, set(), {}
    for obj in mine:
        name = os.path.relpath(obj, obj[:obj.index(f"/{folder}/") + len(folder) + 2]).removesuffix(".o")
        defined[name], fns, needed[name] = symbols(obj)
        functions |= fns
    owner = {s: f for f, names in defined.items() for s in names}
    # Calls through pointers, from the sources of the folder (with its headers).
    base = root / folder
    texts = {p.relative_to(base).as_posix(): strip(p.read_text())
             for p in sorted(base.rglob("*.[ch]")) if p.is_file()}
    held, callbacks = pointers(texts.values(), functions)
    through = 0
    for name in needed:
        if name in texts:
            calls = pointer_calls(texts[name], held)
            through += len(calls)
            needed[name] = needed[name] | calls
    uses = {f: {owner[s] for s in names if s in owner and owner[s] != f}
            for f, names in needed.items()}
    loop = find_loop(uses)
    if not loop:
        extra = f", {through} calls through pointers counted" if through else ""
        extra += f", callbacks {', '.join(sorted(callbacks))} left out" if callbacks else ""
        print(f"check_file_loops: {len(mine)} files of {folder}{extra}, no loop")
        return True
    print(f"check_file_loops: files of {folder} call each other in a loop: " + " -> ".join(loop))
    for a, b in zip(loop, loop[1:]):
        names = sorted(s for s in needed[a] if owner.get(s) == b)
        more = f", and {len(names) - 6} more" if len(names) > 6 else ""
        print(f"  {a} -> {b}: " + ", ".join(names[:6]) + more)
    return False


def main():
    args = sys.argv[1:]
    root = pathlib.Path(__file__).resolve().parent.parent
    if args[:1] == ["--root"]:
        root, args = pathlib.Path(args[1]), args[2:]
    folders, objects = args[0].split(","), args[1:]
    ok = [check(folder.strip("/"), objects, root) for folder in folders]
    sys.exit(0 if all(ok) else 1)


if __name__ == "__main__":
    main()
