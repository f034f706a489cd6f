#!/usr/bin/env python3
"""Generate wisp's MPI wrapper layer from the MPI Forum's API description.

Every C function of the MPI standard (as described by the `pympistandard`
package, pinned in tools/requirements.txt) gets two functions:
  - the exported MPI_X, one indirect jump through the table `wisp_entry`
    (which holds a profiling tool's MPI_X where one comes after libwisp);
  - hooked_MPI_X, which translates communicator arguments
    (wisp_core_comm_in), does enter/exit accounting, and calls `wisp_impl`;
and one that reports an event (it starts or completes requests, blocks, or
makes or frees a window) a third:
  - watched_MPI_X, which calls `wisp_impl` and records the event for the
    progress thread, when nothing else needs hooks.
Every function also gets, in pmpi.c, the exported PMPI_X that profiling
tools call (it serves as MPI_X does once a tool is found, src/wrap/pmpi.h);
and, in the bottom layer's src/mpi/gen/, wisp_mpi_PMPI_X, the call into the
MPI's own PMPI_X that wisp's calls of PMPI_X reach (calls.c; pmpi_names.h
renames them, src/mpi/calls.h).
`wisp_entry` starts equal to `wisp_impl` (PMPI_X, or wisp's implementation),
so hooks cost nothing until a feature that needs them switches them on
(src/wrap/wrap.h). The functions are guarded by WISP_HAVE_<name>, defined at
configure time for the functions the underlying MPI declares and defines
(cmake/WispProbeMPI.cmake).

Which functions wisp implements, and how, is said by the layers' route
tables, src/<layer>/routes.def (the format is described in
src/p2p/routes.def). The generator emits wisp_impl_MPI_X from them into
routes.c, the large-count form MPI_X_c from the line of MPI_X, the functions
that are the MPI's own until wisp begins their group (`until GROUP`) into
groups.def for src/wrap/dispatch.c, and refuses to
run when a function of a family that wisp owns (anything taking a request,
a message, a tag or a window, and everything that creates or frees a
communicator) has no route: a new MPI function of those families cannot
slip past wisp to the MPI unnoticed.

Blocking functions that must yield to other user-level threads while they
wait are listed in src/ult/yields.def (its format is described there): for
those, wisp_impl_MPI_X checks the line's condition first and otherwise does
what the route says (or calls the MPI).

Usage: gen_wrappers.py [--check] SRCDIR [--tables FILE...] [--yields FILE]
  (writes SRCDIR/wrap/gen/ and SRCDIR/mpi/gen/; --check: fail if either is
  stale; --tables: other route tables, for tests)
"""

import argparse
import fnmatch
import pathlib
import sys

import pympistandard as std

from generated import write_or_check

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
    # MPICH 4.0.2 and Open MPI 5 declare the partitions without const,
    # MPICH 5 with it (as MPI-4.1 does): cmake/WispProbeMPI.cmake defines
    # WISP_PREADY_LIST_CONST from the MPI's mpi.h.
    ("MPI_Pready_list", "array_of_partitions"): "WISP_PREADY_LIST_CONST int array_of_partitions[]",
}


class Function:
    """One C function: return type, name, parameters as (declaration, name),
    the kinds of its parameters, and whether it makes or frees a communicator."""

    def __init__(self, ret, name, params, comms_in, kinds=frozenset(), comm_out=False,
                 event=None):
        self.ret, self.name, self.params, self.comms_in = ret, name, params, comms_in
        self.kinds, self.comm_out, self.event = kinds, comm_out, event
        self.large = False  # the large-count form of another function

    def declaration(self, name=None):
        params = ", ".join(d for d, _ in self.params) or "void"
        return f"{self.ret} {name or self.name}({params})"

    def call_args(self):
        # Variadic tails (MPI_Pcontrol) are not forwarded: MPI ignores them.
        return ", ".join(n for d, n in self.params if d != "...")

    def owned(self):
        """Is it of a family that some layer of wisp must route?"""
        return bool(self.kinds & OWNED_KINDS) or self.comm_out


# Parameter kinds of the families wisp serves: point-to-point and requests,
# matched messages, and one-sided communication.
OWNED_KINDS = {"REQUEST", "MESSAGE", "TAG", "WINDOW"}


# What the wrappers report (src/core/account.h, enum wisp_core_event): calls
# that leave an operation in flight (a request out, or a persistent one
# started), calls that complete requests, and windows made and freed; and
# (render) the blocking calls of src/ult/yields.def.
STARTERS = {"MPI_Start", "MPI_Startall"}
COMPLETERS = {f"MPI_{w}{s}" for w in ("Wait", "Test") for s in ("", "all", "any", "some")}


# Calls that return at once (starts of operations, tests, queries in hot
# loops): the accounting reads the clock only as they begin and takes that
# for their end too (src/core/account.c), one time-stamp read saved per call.
QUICK = ({f"MPI_Test{s}" for s in ("", "all", "any", "some")} |
         {"MPI_Iprobe", "MPI_Improbe", "MPI_Get_count", "MPI_Get_elements", "MPI_Comm_rank",
          "MPI_Comm_size", "MPI_Wtime", "MPI_Request_get_status", "MPI_Put", "MPI_Get",
          "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap"})


def from_standard(c):
    params, comms_in, kinds, comm_out, event = [], [], set(), False, None
    for p in c.parameters:
        if p.kind.name == "VARARGS":
            params.append(("...", None))
            continue
        params.append((CORRECTIONS.get((c.name, p.name), str(p)), p.name))
        kinds.add(p.kind.name)
        if p.kind.name == "COMMUNICATOR":
            if p.direction is std.Direction.IN and p.pointer_level == 0:
                comms_in.append(p.name)
            elif p.direction is not std.Direction.IN:
                comm_out = True  # it makes (or frees) a communicator
        if p.direction is std.Direction.OUT and p.kind.name == "REQUEST":
            event = "WISP_CORE_STARTS"
        if p.direction is std.Direction.OUT and p.kind.name == "WINDOW":
            event = "WISP_CORE_WIN_MADE"
    if c.name in STARTERS:
        event = "WISP_CORE_STARTS"
    if c.name in COMPLETERS:
        event = "WISP_CORE_COMPLETES"
    if c.name == "MPI_Win_free":
        event = "WISP_CORE_WIN_FREED"
    return Function(str(c.return_type), c.name, params, comms_in, frozenset(kinds), comm_out,
                    event)


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
        express = [c for c in express if c is not None]
        for c in express:
            funcs[c.name] = from_standard(c)
        funcs[express[-1].name].large = len(express) > 1
    for name, proto in REMOVED_MPI1.items():
        funcs[name] = from_removed(name, proto)
    return [funcs[n] for n in sorted(funcs)]


class Route:
    """One line of a route table: a function (or, for pass-throughs, a
    pattern), and how wisp serves it."""

    KINDS = ("call", "pass", "absent")

    def __init__(self, where, pattern, kind, text, lend, group=None):
        self.where, self.pattern, self.kind, self.text, self.lend = where, pattern, kind, text, lend
        self.group = group  # `until GROUP`: the MPI's own until wisp begins GROUP

    def matches(self, name):
        return fnmatch.fnmatchcase(name, self.pattern)


class Tables:
    """Every layer's routes.def: the includes the implementations need and
    the routes, in file order."""

    def __init__(self, paths):
        self.includes, self.routes, self.errors = [], [], []
        for path in paths:
            self.read(path)

    def fail(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    def read(self, path):
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        lines = []  # logical lines: [where, text]
        for number, raw in enumerate(path.read_text().splitlines(), 1):
            line = raw.split("#", 1)[0].rstrip()
            if not line:
                continue
            if not line[0].isspace():
                lines.append([f"{rel}:{number}", line])
            elif lines:  # a continuation of the line above
                lines[-1][1] += " " + line.strip()
            else:
                self.fail(f"{rel}:{number}", "continuation of nothing")
        for where, line in lines:
            words = line.split(None, 1)
            if words[0] == "include":
                self.includes.append(words[1].strip())
            else:
                self.parse(where, words[0], words[1] if len(words) > 1 else "")

    def parse(self, where, pattern, rest):
        group = None
        if rest.startswith("until "):
            _, group, rest = (rest.split(None, 2) + ["", ""])[:3]
            # Its slot holds the MPI's own function until then: only a call
            # route (a lend lends on every call, an absent function must
            # refuse every call, a pass has nothing of wisp's to begin).
            if not group.isidentifier() or not rest.startswith("call ") or \
                    any(c in pattern for c in "*?["):
                self.fail(where, f"{pattern}: expected until GROUP call EXPR")
                return
        lend = rest == "lend" or rest.startswith("lend ")
        if lend:
            rest = rest[4:].strip() or "call @mpi"
        kind, _, text = rest.partition(" ")
        if kind not in Route.KINDS or not text.strip():
            self.fail(where, f"{pattern}: expected [lend] call EXPR | pass WHY | absent WHY")
            return
        if any(c in pattern for c in "*?[") and kind == "call" and text.strip() != "@mpi":
            self.fail(where, f"{pattern}: a pattern may only lend, pass or be absent")
            return
        self.routes.append(Route(where, pattern, kind, text.strip(), lend, group))


def resolve(funcs, tables):
    """The route of every function that has one: its own line; else its
    MPI_X line when it is MPI_X_c; else the first pattern that matches."""
    names = {f.name for f in funcs}
    exact, used = {}, set()
    for r in tables.routes:
        if any(c in r.pattern for c in "*?["):
            continue
        if r.pattern not in names:
            tables.fail(r.where, f"{r.pattern} is no MPI function")
        elif r.pattern in exact:
            tables.fail(r.where, f"{r.pattern} is routed twice (also {exact[r.pattern].where})")
        else:
            exact[r.pattern] = r
    routes = {}
    for f in funcs:
        base = f.name[:-2] if f.name.endswith("_c") else None
        r = exact.get(f.name) or exact.get(base)
        if r is None:
            r = next((p for p in tables.routes if p.pattern not in exact and p.matches(f.name)),
                     None)
        if r is not None:
            routes[f.name] = r
            used.add(id(r))
    for r in tables.routes:
        if id(r) not in used:
            tables.fail(r.where, f"{r.pattern} matches no MPI function")
    for f in funcs:
        if f.owned() and f.name not in routes:
            tables.fail("routes", f"{f.name} is of a family wisp owns but no routes.def routes it")
    return routes


class Yields:
    """src/ult/yields.def: per blocking function, how it yields in a ULT."""

    KINDS = {"start": "wisp_ult_may_yield()", "collective": "wisp_core_nonblocking_collectives",
             "rma": "wisp_ult_may_yield() && wisp_ult_rma_open(win)", "call": "wisp_ult_may_yield()",
             "sync": "wisp_ult_rma_windows", "flush": "wisp_ult_rma_requests", "always": None}

    def __init__(self, path, funcs, tables):
        self.includes, self.lines = [], {}
        if not path.exists():
            return
        names = {f.name for f in funcs}
        reader = Tables([])
        reader.parse = lambda where, name, rest: self.add(tables, names, where, name, rest)
        reader.read(path)
        self.includes = reader.includes
        tables.errors += reader.errors

    def add(self, tables, names, where, name, rest):
        kind, _, text = rest.partition(" ")
        if kind not in self.KINDS or not text.strip():
            tables.fail(where, f"{name}: expected {' | '.join(self.KINDS)} followed by the call")
        elif name not in names:
            tables.fail(where, f"{name} is no MPI function")
        elif name in self.lines:
            tables.fail(where, f"{name} yields twice")
        else:
            self.lines[name] = (kind, " ".join(text.split()))

    def of(self, f):
        return self.lines.get(f.name) or (f.large and self.lines.get(f.name[:-2])) or None


HEADER = "/* Generated by tools/gen_wrappers.py from pympistandard; do not edit. */\n"


def route_body(f, r):
    """The statements that serve f as its route says (or the MPI, with none)."""
    call = f"P{f.name}({f.call_args()})"
    if r is None or r.kind == "pass":
        return [f"    return {call};"]
    expr = r.text.replace("@mpi", call).replace("@large", "true" if f.large else "false")
    if r.lend:
        return ["    bool lent = wisp_p2p_lend();", f"    {f.ret} rc = {expr};",
                "    if (lent)", "        wisp_p2p_reclaim();", "    return rc;"]
    return [f"    return {expr};"]


def yield_body(f, kind, text):
    """The statements that serve f in a ULT; the start function of a `start`,
    `collective` or `rma` line may be missing from the MPI (#ifdef)."""
    if kind == "always":
        return [f"    return {text.replace('@next', f'route_{f.name}')};"]
    if kind in ("call", "sync", "flush"):
        return [f"    if ({Yields.KINDS[kind]})",
                f"        return {text.replace('@next', f'route_{f.name}')};"]
    fn, _, args = text.partition("(")
    fn = fn.strip() + ("_c" if f.large else "")
    names = {n for _, n in f.params}
    status = "status" if "status" in names else "MPI_STATUS_IGNORE"
    finish = ("wisp_ult_rma_track(win, target_rank, request_)" if kind == "rma"
              else f"wisp_ult_wait(&request_, {status})")
    # A call with MPI_PROC_NULL returns at once: no request to wait for.
    cond = "".join(f"{p} != MPI_PROC_NULL && " for p in ("dest", "source")
                   if kind == "start" and p in names) + Yields.KINDS[kind]
    return [f"#ifdef WISP_HAVE_{fn}", f"    if ({cond}) {{",
            "        MPI_Request request_;",
            f"        int rc_ = wisp_impl.{fn}({args.replace('@request', '&request_')};",
            f"        return rc_ != MPI_SUCCESS ? rc_ : {finish};", "    }", "#endif"]


def render_route(f, r, y):
    """wisp_impl_MPI_X from its route: the expression, with `@mpi` the
    underlying call and `@large` whether this is the large-count form; with
    a yield line, its condition first and the route in route_MPI_X."""
    if r is not None and r.kind == "absent":
        # Not routed: an MPI that has it (MPICH 5 has MPI-4.1's and the
        # MPI-5 ABI's) builds, and a program that calls it stops with one
        # line at the call instead of the MPI seeing wisp's handles.
        why = r.text.replace("\\", "\\\\").replace('"', '\\"')
        return "\n".join([f"#ifdef WISP_HAVE_{f.name}", f.declaration(f"wisp_impl_{f.name}"), "{",
                           f'    wisp_fatal("{f.name} is not supported under wisp yet: {why} '
                             f'({r.where}); run the program without wisp (wisprun --native)");',
                             "}", "#endif", ""])
    lines = [f"#ifdef WISP_HAVE_{f.name}"]
    if y is None:
        lines += [f.declaration(f"wisp_impl_{f.name}"), "{"] + route_body(f, r)
    else:
        lines += ["static " + f.declaration(f"route_{f.name}"), "{"] + route_body(f, r) + ["}", ""]
        lines += [f.declaration(f"wisp_impl_{f.name}"), "{"] + yield_body(f, *y)
        if y[0] != "always":
            lines.append(f"    return route_{f.name}({f.call_args()});")
    return "\n".join(lines + ["}", "#endif", ""])


def render_wrapper(f):
    args = f"({f.call_args()})"
    lines = [f"#ifdef WISP_HAVE_{f.name}", "WISP_EXPORT " + f.declaration(), "{",
             f"    return wisp_entry.{f.name}{args};", "}", ""]
    lines += ["static " + f.declaration(f"hooked_{f.name}"), "{"]
    lines += [f"    {c} = wisp_core_comm_in({c});" for c in f.comms_in]
    lines += [f"    WISP_WRAP_HOOKED({f.name}, {args});", "}"]
    if f.event:
        lines += ["", "static " + f.declaration(f"watched_{f.name}"), "{",
                  f"    WISP_WRAP_WATCHED({f.name}, {f.event}, {args});", "}"]
    return "\n".join(lines + ["#endif", ""])


def render_tables(funcs):
    def table(decl, prefix, fs):
        lines = [decl + " = {"]
        for f in fs:
            lines += [f"#ifdef WISP_HAVE_{f.name}", f"    .{f.name} = {prefix}{f.name},", "#endif"]
        return lines + ["};", ""]
    evented = [f for f in funcs if f.event]
    lines = table("const struct wisp_dispatch wisp_hooked", "hooked_", funcs)
    lines += table("const struct wisp_dispatch wisp_watched", "watched_", evented)
    lines += ["const unsigned char wisp_wrap_events[WISP_FN_COUNT] = {"]
    for f in evented:
        lines += [f"#ifdef WISP_HAVE_{f.name}", f"    [WISP_FN_ID_{f.name}] = {f.event},", "#endif"]
    lines += ["};", "", "const bool wisp_wrap_quick[WISP_FN_COUNT] = {"]
    for f in funcs:
        if f.event == "WISP_CORE_STARTS" or f.name in QUICK:
            lines += [f"#ifdef WISP_HAVE_{f.name}", f"    [WISP_FN_ID_{f.name}] = true,", "#endif"]
    return "\n".join(lines + ["};", ""])


def render_initial(decl, what):
    """A dispatch table that starts as PMPI_X and wisp's implementations
    (src/wrap/implementations.inc), defined in the file its readers use, so
    that the files of src/wrap call each other in no loop."""
    return "\n".join([f"/* {what} */",
                      '#pragma GCC diagnostic ignored "-Woverride-init" /* impls override defaults */',
                      decl, '#include "wrap/implementations.inc"', "    ;", ""])


def render_pmpi(funcs):
    """The PMPI_X that libwisp exports for profiling tools (src/wrap/pmpi.h)."""
    lines = [HEADER + '\n#include "wrap/pmpi.h"\n']
    for f in funcs:
        args = f"({f.call_args()})"
        lines += [f"#ifdef WISP_HAVE_{f.name}",
                  "WISP_EXPORT " + f.declaration(f"P{f.name}"), "{",
                  "    if (WISP_PMPI_STRAIGHT())",
                  f"        return WISP_MPI(P{f.name}){args};",
                  f"    return wisp_serve.{f.name}{args};", "}", "#endif", ""]
    return "\n".join(lines)


def render_mpi_calls(funcs):
    """The bottom layer's calls into the MPI (src/mpi/calls.h): wisp_mpi_PMPI_X,
    and the header that renames wisp's calls of PMPI_X to them."""
    names = HEADER + PMPI_NAMES_DOC + ("#if !defined(WISP_GEN_PMPI_NAMES_H) && "
                                       "!defined(WISP_NO_PMPI_NAMES)\n#define WISP_GEN_PMPI_NAMES_H\n")
    names += "".join(f"#define P{f.name} wisp_mpi_P{f.name}\n" for f in funcs)
    names += "#endif\n"
    lines = [HEADER + '\n#include "mpi/calls.h"\n']
    for f in funcs:
        lines += [f"#ifdef WISP_HAVE_{f.name}",
                  "WISP_MPI_CALL " + f.declaration(f"wisp_mpi_P{f.name}"), "{",
                  f"    return WISP_MPI(P{f.name})({f.call_args()});", "}", "#endif", ""]
    return names, "\n".join(lines)


PMPI_NAMES_DOC = """
/* Forced into every file of libwisp but src/mpi's and src/wrap/gen/pmpi.c
 * (CMakeLists.txt): wisp's own calls of PMPI_X go to the MPI through
 * wisp_mpi_PMPI_X (src/mpi/calls.h), not to the PMPI_X that libwisp exports
 * for profiling tools (src/wrap/pmpi.h). */
"""


GROUPS_DOC = """
/* The functions of each group of src/wrap/dispatch.c, the lines marked
 * `until GROUP` in the route tables: WISP_GROUP(GROUP, MPI_X), GROUP naming
 * enum wisp_core_group's WISP_CORE_GROUP (core/wrapper.h). */
"""


def render(funcs, tables, routes, yields):
    for f in funcs:  # a blocking call: the progress thread skips its looks meanwhile
        if not f.event and yields.of(f):
            f.event = "WISP_CORE_BLOCKS"
    wrappers = HEADER + '\n#include "wrap/impls.h"\n#include "wrap/wrap.h"\n\n'
    wrappers += "\n".join(render_wrapper(f) for f in funcs)
    wrappers += "\n" + render_tables(funcs)
    wrappers += "\n" + render_initial("struct wisp_dispatch wisp_entry =",
                                      "What the exported MPI_X jump through (src/wrap/dispatch.c).")
    functions = HEADER + "".join(f"WISP_FN({f.name})\n" for f in funcs)
    served = [f for f in funcs if yields.of(f) or
              (f.name in routes and routes[f.name].kind != "pass")]
    impl_def = HEADER + "".join(f"#ifdef WISP_HAVE_{f.name}\nWISP_IMPL({f.name})\n#endif\n"
                                for f in served if yields.of(f) or routes[f.name].kind in ("call", "absent"))
    routes_c = HEADER + "\n#include <stdbool.h>\n\n" + "".join(
        f'#include "{h}"\n' for h in ["core/log.h"] + tables.includes + yields.includes + ["wrap/impls.h"])
    routes_c += '\n#pragma GCC diagnostic ignored "-Wunused-parameter" /* routes use some */\n\n'
    routes_c += "\n".join(render_route(f, routes.get(f.name), yields.of(f)) for f in served)
    routes_c += "\n" + render_initial("struct wisp_dispatch wisp_impl =",
                                      "The implementations (src/wrap/dispatch.c).")
    pmpi_names, calls_c = render_mpi_calls(funcs)
    grouped = [(f.name, routes[f.name].group.upper()) for f in funcs
               if f.name in routes and routes[f.name].group]
    groups = HEADER + GROUPS_DOC + "".join(
        f"#ifdef WISP_HAVE_{n}\nWISP_GROUP({g}, {n})\n#endif\n" for n, g in grouped)
    wrap = {"wrappers.c": wrappers, "mpi_functions.def": functions, "impls.def": impl_def,
            "groups.def": groups, "routes.c": routes_c, "pmpi.c": render_pmpi(funcs)}
    mpi = {"pmpi_names.h": pmpi_names, "calls.c": calls_c}
    return {**{f"wrap/gen/{n}": t for n, t in wrap.items()},
            **{f"mpi/gen/{n}": t for n, t in mpi.items()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("srcdir", type=pathlib.Path, help="src/: writes its wrap/gen/ and mpi/gen/")
    ap.add_argument("--check", action="store_true", help="fail if the output differs")
    ap.add_argument("--tables", nargs="+", type=pathlib.Path,
                    default=sorted(ROOT.glob("src/*/routes.def")),
                    help="the route tables (default: src/*/routes.def)")
    ap.add_argument("--yields", type=pathlib.Path, default=ROOT / "src/ult/yields.def",
                    help="the yielding blocking functions (default: src/ult/yields.def)")
    args = ap.parse_args()
    funcs = all_functions()
    tables = Tables(p.resolve() for p in args.tables)
    routes = resolve(funcs, tables)
    yields = Yields(args.yields.resolve(), funcs, tables)
    if tables.errors:
        sys.exit("gen_wrappers: the route tables are wrong:\n  " + "\n  ".join(tables.errors))
    write_or_check(args.srcdir, render(funcs, tables, routes, yields), args.check, "gen_wrappers")


if __name__ == "__main__":
    main()
