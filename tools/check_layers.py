#!/usr/bin/env python3
"""Check that every include and every call in src/ points down the layers.

LAYERS lists wisp's folders from the bottom up (docs/design.md, "Layers and
folders"). A file may include a header of its own folder or of a lower
layer, and may name a function or variable of its own layer or of a lower
one; folders of the same layer do not use each other. A name's layer is the
folder that defines it (a function or variable of a .c file, not static),
else its prefix, as the names follow the layers (wisp_core_, wisp_shm_,
...); the public API of include/wisp.h is left out, as its functions live
where core or a component answers them. Comments and strings are left out; generated code
(src/*/gen/) counts as its folder's. ALLOWED names the exceptions, each with
its reason: core's two tables, which the top fills in. At the bottom, below
core, `mpi` holds wisp's calls into the MPI: every other layer's calls of
PMPI_X are renamed to its wisp_mpi_PMPI_X by a header forced into every
file (src/mpi/calls.h), so they point down although no include shows them.

Usage: check_layers.py [ROOT]   (exit 1 with one line per arrow that points up)
"""

import pathlib
import re
import sys

# From the bottom up; a tuple holds folders of one layer.
LAYERS = [
    ("mpi",),  # wisp's calls into the MPI (src/mpi/calls.h)
    ("core",),
    ("shm",),
    ("team",),
    ("dt",),
    ("p2p", "ghost", "ult"),
    ("coll",),
    ("progress",),
    ("fortran",),
    ("wrap",),
    ("components.c",),  # src/components.c, above everything: it fills in core's tables
]

# Names any file may use although defined above it: why.
ALLOWED = {
    "wisp_components": "core's table of the components (core/component.h), "
                       "which src/components.c fills in",
    "wisp_core_wrapper": "core's table of the wrapper layer's entries (core/wrapper.h), "
                         "which src/components.c fills in",
}

LEVEL = {folder: level for level, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)
ANY = re.compile(r"\bwisp_\w+")
DEFINED = re.compile(r"^(?!static\b|extern\b)[A-Za-z_][\w \t*]*?\b(wisp_\w+)\s*"
                     r"(?:\([^;{]*\)\s*\{|(?:\[[^\]]*\])?\s*(?:=[^;]*)?;)", re.M)
NAME = re.compile(r"\bwisp_(" + "|".join(f for f in LEVEL if "." not in f) + r")_\w+")
PUBLIC = re.compile(r"\b(wisp_\w+)\s*\(")
SOURCES = (".c", ".h", ".def", ".inc")


LEXEMES = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def strip(text, strings=True):
    """The text without comments and (with `strings`) string and character
    literals, on the same lines."""
    def blank(m):
        s = m.group(0)
        if s[0] in "\"'":
            return " " if strings else s
        return "\n" * s.count("\n")
    return LEXEMES.sub(blank, text)


def folder_of(root, path):
    rel = path.relative_to(root / "src")
    return rel.parts[0] if len(rel.parts) > 1 else rel.name


def owners(root):
    """The folder of each name defined in src/: its layer."""
    owner = {}
    for path in (root / "src").rglob("*.c"):
        for name in DEFINED.findall(strip(path.read_text())):
            owner[name] = folder_of(root, path)
    return owner


def layer_of(name, owner):
    if name in owner:
        return owner[name]
    m = NAME.match(name)
    return m.group(1) if m else None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else __file__).resolve()
    if root.is_file():
        root = root.parent.parent
    public = set(PUBLIC.findall(strip((root / "include" / "wisp.h").read_text())))
    owner = owners(root)
    bad = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        here = folder_of(root, path)
        if here not in LEVEL:
            bad.append(f"{path.relative_to(root)}: folder '{here}' is not in LAYERS")
            continue
        raw = path.read_text()
        text = strip(raw)
        rel = str(path.relative_to(root))
        used = {(m, "includes") for m in INCLUDE.findall(strip(raw, strings=False))}
        used |= {(layer_of(n, owner), n) for n in set(ANY.findall(text)) - public}
        for there, what in sorted(used, key=lambda u: (u[0] or "", u[1])):
            if there is None or there == here or there not in LEVEL or LEVEL[there] < LEVEL[here]:
                continue
            if what in ALLOWED:
                continue
            how = f"includes {there}/" if what == "includes" else f"uses {what}"
            bad.append(f"{rel} ({here}) {how}, a layer not below it")
    for line in bad:
        print(line, flush=True)
    if bad:
        sys.exit(f"check_layers.py: {len(bad)} arrows point up or sideways (docs/design.md)")
    print(f"check_layers.py: every include and call in src/ points down ({len(LAYERS)} layers)")


if __name__ == "__main__":
    main()
