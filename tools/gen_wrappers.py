#!/usr/bin/env python3
"""Generate wisp's MPI wrapper layer from the MPI Forum's API description.

Every C function of the MPI standard (as described by the `pympistandard`
package, pinned in tools/requirements.txt) gets two functions:
  - the exported MPI_X, one indirect jump through the table `wisp_entry`;
  - hooked_MPI_X, which translates communicator arguments
    (wisp_wrap_comm_in), does enter/exit accounting, and calls `wisp_impl`.
`wisp_entry` starts equal to `wisp_impl` (PMPI_X, or a hand-written
implementation), so hooks cost nothing until a feature that needs them
switches them on (src/wrap/wrap.h). The functions are guarded by
WISP_HAVE_<name>, defined at configure time for the functions the underlying
MPI declares and defines (cmake/WispProbeMPI.cmake).

Hand-written implementations are noticed by file name: src/<layer>/MPI_X.c
defines `wisp_impl_MPI_X`; no skip list is kept here. The blocking
collectives (LENDING below, and their large-count forms) get a generated
implementation in lending.c: the MPI alone serves them, so the receives that
wisp would otherwise keep asking the MPI about are lent to it for the call
(src/p2p/match.c).

Usage: gen_wrappers.py [--check] OUTDIR   (--check: fail if OUTDIR is stale)
"""

import argparse
import difflib
import pathlib
import sys

import pympistandard as std

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Functions removed from the standard in MPI-3.0 are absent from the Forum's
# description, but MPICH 4.0 still declares them. Their MPI-2.2 prototypes:
REMOVED_MPI1 = {
    "MPI_Address": "void* location, MPI_Aint* address",
    "MPI_Errhandler_create": "MPI_Handler_function* function, MPI_Errhandler* errhandler",
    "MPI_Errhandler_get": "MPI_Comm comm, MPI_Errhandler* errhandler",
    "MPI_Errhandler_set": "MPI_Comm comm, MPI_Errhandler errhandler",
    "MPI_Type_extent": "MPI_Datatype datatype, MPI_Aint* extent",
    "MPI_Type_hindexed": "int count, int* array_of_blocklengths, "
    "MPI_Aint* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype",
    "MPI_Type_hvector": "int count, int blocklength, MPI_Aint stride, "
    "MPI_Datatype oldtype, MPI_Datatype* newtype",
    "MPI_Type_lb": "MPI_Datatype datatype, MPI_Aint* displacement",
    "MPI_Type_struct": "int count, int* array_of_blocklengths, "
    "MPI_Aint* array_of_displacements, MPI_Datatype* array_of_types, MPI_Datatype* newtype",
    "MPI_Type_ub": "MPI_Datatype datatype, MPI_Aint* displacement",
}

# Parameters whose declaration must differ from what pympistandard renders,
# each with the reason. A wrapper must match the underlying mpi.h exactly.
CORRECTIONS = {
    # pympistandard 0.2.0 drops the pointer; the standard says char *argv[].
    ("MPI_Info_create_env", "argv"): "char* argv[]",
    # MPICH 4.0.2 declares the partitions without const (the only MPI here
    # that has partitioned communication).
    ("MPI_Pready_list", "array_of_partitions"): "int array_of_partitions[]",
}


class Function:
    """One C function: return type, name, parameters as (declaration, name)."""

    def __init__(self, ret, name, params, comms_in):
        self.ret, self.name, self.params, self.comms_in = ret, name, params, comms_in

    def declaration(self):
        return f"{self.ret} {self.name}({', '.join(d for d, _ in self.params) or 'void'})"

    def call_args(self):
        # Variadic tails (MPI_Pcontrol) are not forwarded: MPI ignores them.
        return ", ".join(n for d, n in self.params if d != "...")


def from_standard(c):
    params, comms_in = [], []
    for p in c.parameters:
        if p.kind.name == "VARARGS":
            params.append(("...", None))
            continue
        params.append((CORRECTIONS.get((c.name, p.name), str(p)), p.name))
        if p.kind.name == "COMMUNICATOR" and p.direction is std.Direction.IN and p.pointer_level == 0:
            comms_in.append(p.name)
    return Function(str(c.return_type), c.name, params, comms_in)


def from_removed(name, proto):
    params = [(d.strip(), d.split()[-1].lstrip("*")) for d in proto.split(",")]
    comms = [n for d, n in params if d.startswith("MPI_Comm ")]
    return Function("int", name, params, comms)


def all_functions():
    std.use_api_version(1)
    funcs = {}
    for proc in std.all_iso_c_procedures():
        express = [proc.express.iso_c]
        if proc.has_embiggenment and proc.express.embiggen is not None:
            express.append(proc.express.embiggen.iso_c)
        for c in filter(None, express):
            funcs[c.name] = from_standard(c)
    for name, proto in REMOVED_MPI1.items():
        funcs[name] = from_removed(name, proto)
    return [funcs[n] for n in sorted(funcs)]


def hand_written():
    return sorted(p.stem for p in ROOT.glob("src/*/MPI_*.c"))


# Blocking calls that wait for other processes inside the MPI alone: while
# one runs, wisp cannot ask the MPI for the remote messages its pending
# wildcard receives wait for, so it lends those receives to the MPI.
LENDING = [
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Allreduce", "MPI_Alltoall", "MPI_Alltoallv",
    "MPI_Alltoallw", "MPI_Barrier", "MPI_Bcast", "MPI_Exscan", "MPI_Gather", "MPI_Gatherv",
    "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall",
    "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw", "MPI_Reduce", "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Scatter", "MPI_Scatterv",
]

HEADER = "/* Generated by tools/gen_wrappers.py from pympistandard; do not edit. */\n"


def lending(funcs, hand):
    names = set(LENDING) | {n + "_c" for n in LENDING}
    return [f for f in funcs if f.name in names and f.name not in hand]


def render_lending(f):
    args = f"({f.call_args()})"
    return "\n".join([
        f"#ifdef WISP_HAVE_{f.name}",
        f.declaration().replace(" MPI_", " wisp_impl_MPI_", 1), "{",
        "    bool lent = wisp_p2p_lend();",
        f"    int rc = P{f.name}{args};",
        "    if (lent)", "        wisp_p2p_reclaim();", "    return rc;", "}", "#endif", ""])


def render_wrapper(f):
    args = f"({f.call_args()})"
    lines = [f"#ifdef WISP_HAVE_{f.name}", "WISP_EXPORT " + f.declaration(), "{",
             f"    return wisp_entry.{f.name}{args};", "}", ""]
    lines += ["static " + f.declaration().replace(" MPI_", " hooked_MPI_", 1), "{"]
    lines += [f"    {c} = wisp_wrap_comm_in({c});" for c in f.comms_in]
    lines += [f"    WISP_WRAP_HOOKED({f.name}, {args});", "}", "#endif", ""]
    return "\n".join(lines)


def render_hooked_table(funcs):
    lines = ["const struct wisp_dispatch wisp_hooked = {"]
    for f in funcs:
        lines += [f"#ifdef WISP_HAVE_{f.name}", f"    .{f.name} = hooked_{f.name},", "#endif"]
    return "\n".join(lines + ["};", ""])


def render(funcs, hand):
    wrappers = HEADER + '\n#include "wrap/wrap.h"\n\n'
    wrappers += "\n".join(render_wrapper(f) for f in funcs)
    wrappers += "\n" + render_hooked_table(funcs)
    functions = HEADER + "".join(f"WISP_FN({f.name})\n" for f in funcs)
    lent = lending(funcs, hand)
    impls = sorted(hand + [f.name for f in lent])
    impl_def = HEADER + "".join(
        f"#ifdef WISP_HAVE_{n}\nWISP_IMPL({n})\n#endif\n" for n in impls)
    lending_c = HEADER + '\n#include "p2p/p2p.h"\n#include "wrap/impls.h"\n\n'
    lending_c += "\n".join(render_lending(f) for f in lent)
    return {"wrappers.c": wrappers, "mpi_functions.def": functions, "impls.def": impl_def,
            "lending.c": lending_c}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=pathlib.Path)
    ap.add_argument("--check", action="store_true", help="fail if OUTDIR differs")
    args = ap.parse_args()
    known = {f.name for f in all_functions()}
    unknown = [n for n in hand_written() if n not in known]
    if unknown:
        sys.exit(f"gen_wrappers: hand-written files name no MPI function: {unknown}")
    files = render(all_functions(), hand_written())
    stale = False
    for name, text in files.items():
        path = args.outdir / name
        old = path.read_text() if path.exists() else ""
        if old == text:
            continue
        if args.check:
            stale = True
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), str(path), "regenerated", n=1))
        else:
            args.outdir.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        sys.exit("gen_wrappers: committed output is stale; run `make generate`")


if __name__ == "__main__":
    main()
