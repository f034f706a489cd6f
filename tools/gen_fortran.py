#!/usr/bin/env python3
"""Generate wisp's Fortran entry points from the MPI Forum's API description.

Each MPI function whose parameters wisp knows how to convert gets one C
body, f_MPI_X, that converts the Fortran arguments (handles, statuses,
logicals, 1-based indices, the special addresses MPI_BOTTOM / MPI_IN_PLACE),
calls the C MPI_X that libwisp exports (so wisp serves the call, counts it
and translates MPI_COMM_WORLD), and converts the results back. It is exported
under the Fortran symbols of the MPI underneath, each guarded by a macro that
cmake/WispProbeFortran.cmake defines only when the MPI's Fortran library
exports that symbol (docs/fortran.md says which and why):

  WISP_F_MPIF_MPI_X  Open MPI's mpif.h / `use mpi`: ompi_x_f, mpi_x_,
                     mpi_x__, mpi_x, MPI_X (its `use mpi_f08` calls ompi_x_f
                     too, for most functions)
  WISP_F_F08_MPI_X   `use mpi_f08` entries that call PMPI_X (MPICH) or
                     pmpi_x_ (Open MPI) themselves: mpi_x_f08_

  WISP_F_MPICH_MPIF_MPI_X  MPICH's mpif.h / `use mpi`: mpi_x_, mpi_x__, mpi_x,
                     MPI_X, for the attribute calls only (ATTRIBUTE_CALLS):
                     the others call the C MPI_X already.

Functions left out (strings the call writes, callbacks, attribute values,
sessions, arrays whose length the call does not give) are listed with the
reason in src/fortran/gen/left_out.txt. Those that wisp needs to see when
ghost processes are on (a communicator argument that may be MPI_COMM_WORLD,
or a function a routes.def serves) get an entry point all the same, which
forwards the call to the MPI's own (dlsym RTLD_NEXT) with the application's
world in place of MPI_COMM_WORLD, or, for a routed function without a
communicator, stops the job with ghosts with one line naming the function.
The attribute calls go through src/fortran/attr.c (ATTRIBUTE_CALLS).

Usage: gen_fortran.py [--check] OUTDIR
"""

import argparse
import pathlib
import re
import sys

import pympistandard as std

from generated import write_or_check

ROOT = pathlib.Path(__file__).resolve().parent.parent

HANDLES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Group": "Group", "MPI_Op": "Op",
           "MPI_Win": "Win", "MPI_Info": "Info", "MPI_Errhandler": "Errhandler",
           "MPI_Request": "Request", "MPI_Message": "Message", "MPI_File": "File"}
# What an output-only handle holds until the call writes it: a call that
# does not (MPI_Improbe finding nothing) hands back the null handle, never
# stack contents converted.
HANDLE_NULLS = {"MPI_Comm": "MPI_COMM_NULL", "MPI_Datatype": "MPI_DATATYPE_NULL",
                "MPI_Group": "MPI_GROUP_NULL", "MPI_Op": "MPI_OP_NULL", "MPI_Win": "MPI_WIN_NULL",
                "MPI_Info": "MPI_INFO_NULL", "MPI_Errhandler": "MPI_ERRHANDLER_NULL",
                "MPI_Request": "MPI_REQUEST_NULL", "MPI_Message": "MPI_MESSAGE_NULL",
                "MPI_File": "MPI_FILE_NULL"}
assert HANDLE_NULLS.keys() == HANDLES.keys()
# Handles wisp itself makes: converted by wisp (src/fortran/convert.c), the
# others by the MPI's own PMPI_X_f2c / PMPI_X_c2f.
WISP_HANDLES = {"MPI_Request", "MPI_Message"}
ADDRESS_INTS = {"MPI_Aint", "MPI_Count", "MPI_Offset"}
BUFFER_KINDS = {"BUFFER"}  # choice buffers: MPI_BOTTOM and MPI_IN_PLACE apply
PLAIN_POINTER_KINDS = {"C_BUFFER", "C_BUFFER2"}  # addresses passed as they are

# Outputs whose value is an index into an array: 1-based in Fortran.
INDEX_OUT = {("MPI_Waitany", "index"), ("MPI_Testany", "index"),
             ("MPI_Waitsome", "array_of_indices"), ("MPI_Testsome", "array_of_indices"),
             ("MPI_Request_get_status_any", "index"),
             ("MPI_Request_get_status_some", "array_of_indices")}

# How many elements an array that must be converted has (C expression over
# the converted C arguments, c_<name>); `written` arrays are written back for
# that many only. Any other array of handles, logicals or statuses leaves
# its function out.
LENGTHS = {
    ("MPI_Waitall", "array_of_requests"): "c_count",
    ("MPI_Waitall", "array_of_statuses"): "c_count",
    ("MPI_Testall", "array_of_requests"): "c_count",
    ("MPI_Testall", "array_of_statuses"): "c_count",
    ("MPI_Waitany", "array_of_requests"): "c_count",
    ("MPI_Testany", "array_of_requests"): "c_count",
    ("MPI_Waitsome", "array_of_requests"): "c_incount",
    ("MPI_Waitsome", "array_of_statuses"): "c_incount",
    ("MPI_Testsome", "array_of_requests"): "c_incount",
    ("MPI_Testsome", "array_of_statuses"): "c_incount",
    ("MPI_Startall", "array_of_requests"): "c_count",
    ("MPI_Type_create_struct", "array_of_types"): "c_count",
    ("MPI_Cart_create", "periods"): "c_ndims",
    ("MPI_Cart_get", "periods"): "c_maxdims",
    ("MPI_Cart_sub", "remain_dims"): "wisp_f_cartdim(c_comm)",
    ("MPI_Cart_map", "periods"): "c_ndims",
    ("MPI_Type_get_contents", "array_of_datatypes"): "c_max_datatypes",
    ("MPI_Request_get_status_all", "array_of_requests"): "c_count",
    ("MPI_Request_get_status_all", "array_of_statuses"): "c_count",
    ("MPI_Request_get_status_any", "array_of_requests"): "c_count",
    ("MPI_Request_get_status_some", "array_of_requests"): "c_incount",
    ("MPI_Request_get_status_some", "array_of_statuses"): "c_incount",
    ("MPI_Alltoallw_init", "sendtypes"): "wisp_f_comm_size(c_comm)",
    ("MPI_Alltoallw_init", "recvtypes"): "wisp_f_comm_size(c_comm)",
    ("MPI_Alltoallw", "sendtypes"): "wisp_f_comm_size(c_comm)",
    ("MPI_Alltoallw", "recvtypes"): "wisp_f_comm_size(c_comm)",
    ("MPI_Ialltoallw", "sendtypes"): "wisp_f_comm_size(c_comm)",
    ("MPI_Ialltoallw", "recvtypes"): "wisp_f_comm_size(c_comm)",
}
# Arrays only partly written by the call.
WRITTEN = {("MPI_Waitsome", "array_of_statuses"): "*c_outcount",
           ("MPI_Testsome", "array_of_statuses"): "*c_outcount",
           ("MPI_Waitsome", "array_of_indices"): "*c_outcount",
           ("MPI_Testsome", "array_of_indices"): "*c_outcount",
           ("MPI_Request_get_status_some", "array_of_statuses"): "*c_outcount",
           ("MPI_Request_get_status_some", "array_of_indices"): "*c_outcount"}

# Functions left out on purpose, with the reason.
LEFT_OUT = {
    "MPI_Buffer_detach": "returns the buffer's address through a choice argument",
    "MPI_Pcontrol": "variadic in C",
    "MPI_Aint_add": "a function returning MPI_Aint",
    "MPI_Aint_diff": "a function returning MPI_Aint",
}
UNSUPPORTED_KINDS = {
    "STRING_ARRAY": "an array of strings",
    "STRING_2DARRAY": "arrays of strings", "FUNCTION": "a callback",
    "POLYFUNCTION": "a callback", "ATTRIBUTE_VAL": "an attribute value",
    "ATTRIBUTE_VAL_10": "an attribute value", "EXTRA_STATE": "a callback's extra state",
    "EXTRA_STATE2": "a callback's extra state", "LOGICAL_VOID": "an untyped flag",
    "SESSION": "a session handle (MPI-4), which these bindings do not convert",
    "F08_STATUS": "a status conversion", "F90_STATUS": "a status conversion",
    "VARARGS": "variadic in C", "WEIGHT": "graph weights (MPI_UNWEIGHTED)",
}

HEADER = "/* Generated by tools/gen_fortran.py from pympistandard; do not edit. */\n"


class Skip(Exception):
    pass


def split_decl(decl):
    """'const MPI_Request array_of_requests[]' -> ('MPI_Request', stars, is_array)"""
    d = decl.replace("const ", "").strip()
    array = d.endswith("[]") or d.endswith("[][3]")  # MPI_Group_range_incl's ranges
    d = d.split("[", 1)[0] if array else d
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\**)\s*([A-Za-z_][A-Za-z0-9_]*)$", d)
    if not m:
        raise Skip(f"cannot read the declaration '{decl}'")
    return m.group(1), len(m.group(2)), array


class Body:
    """The pieces of one f_MPI_X: Fortran parameters, locals, conversions in,
    call arguments, conversions out."""

    def __init__(self, name):
        self.name, self.fparams, self.pre, self.args, self.post, self.cleanup = name, [], [], [], [], []
        self.late = []  # array conversions, after the scalars their lengths use
        self.hidden = []  # the hidden lengths of CHARACTER arguments, after ierror

    def param(self, p):
        name, kind, direction = p.name, p.kind.name, p.direction
        fn = self.name
        if kind in UNSUPPORTED_KINDS:
            raise Skip(UNSUPPORTED_KINDS[kind])
        base, stars, array = split_decl(str(p))
        c = f"c_{name}"
        if kind == "STRING":
            if direction is not std.Direction.IN or array or stars != 1:
                raise Skip("a string written by the call")
            self.fparams.append(f"char *{name}")
            self.hidden.append(f"size_t {name}_len")
            self.pre.append(f"char *{c} = wisp_f_string_in({name}, {name}_len);")
            self.args.append(c)
            self.cleanup.append(f"free({c});")
            return
        inp = direction in (std.Direction.IN, std.Direction.INOUT)
        out = direction in (std.Direction.OUT, std.Direction.INOUT)
        c = f"c_{name}"
        if base in HANDLES:
            self.fparams.append(f"MPI_Fint *{name}")
            f2c, c2f = self.conv(base)
            if not array and stars == 0:
                self.pre.append(f"{base} {c} = {f2c}(*{name});")
                self.args.append(c)
            elif not array and stars == 1:
                self.pre.append(f"{base} {c} = {f2c}(*{name});" if inp else
                                f"{base} {c} = {HANDLE_NULLS[base]};")
                self.args.append(f"&{c}")
                if out:
                    self.post.append(f"if (rc == MPI_SUCCESS)\n        *{name} = {c2f}({c});")
            elif array and stars == 0:
                n = self.length(name)
                kindname = HANDLES[base]
                self.pre.append(f"{base} {c}_local[WISP_F_LOCAL];")
                self.late.append(f"{base} *{c} = wisp_f_{kindname.lower()}s_in({name}, {n}, "
                                f"{c}_local);")
                self.args.append(c)
                if out:
                    self.post.append(f"if (rc == MPI_SUCCESS)\n        "
                                     f"wisp_f_{kindname.lower()}s_out({c}, {n}, {name});")
                self.cleanup.append(f"wisp_f_release({c}, {c}_local);")
            else:
                raise Skip(f"{name}: {str(p)}")
            return
        if base == "int":
            self.fparams.append(f"MPI_Fint *{name}")
            if kind == "LOGICAL":
                if not array and stars == 0:
                    self.args.append(f"wisp_f_logical_in(*{name})")
                elif not array and stars == 1:
                    self.pre.append(f"int {c} = {'wisp_f_logical_in(*' + name + ')' if inp else '0'};")
                    self.args.append(f"&{c}")
                    self.post.append(f"*{name} = wisp_f_logical_out({c});")
                else:
                    n = self.length(name)
                    self.pre.append(f"int {c}_local[WISP_F_LOCAL];")
                    self.late.append(f"int *{c} = wisp_f_logicals_in({name}, {n}, {c}_local, {int(inp)});")
                    self.args.append(c)
                    if out:
                        self.post.append(f"if (rc == MPI_SUCCESS)\n        "
                                         f"wisp_f_logicals_out({c}, {n}, {name});")
                    self.cleanup.append(f"wisp_f_release({c}, {c}_local);")
                return
            if (fn, name) in INDEX_OUT:
                if array:
                    n = WRITTEN[(fn, name)]
                    self.args.append(f"(int *){name}")
                    self.post.append(f"if (rc == MPI_SUCCESS)\n        wisp_f_indices_out({name}, {n});")
                else:
                    self.pre.append(f"int {c};")
                    self.args.append(f"&{c}")
                    self.post.append(f"if (rc == MPI_SUCCESS)\n        "
                                     f"*{name} = {c} == MPI_UNDEFINED ? {c} : {c} + 1;")
                return
            if not array and stars == 0:
                self.pre.append(f"int {c} = (int)*{name};")
                self.args.append(c)
            elif stars == 1 and not array:
                self.pre.append(f"int *{c} = (int *){name};")
                self.args.append(c)
            elif stars == 0:
                self.args.append(f"(int(*)[3]){name}" if "[3]" in str(p) else f"(int *){name}")
            else:
                raise Skip(f"{name}: {str(p)}")
            return
        if base in ADDRESS_INTS:
            self.fparams.append(f"{base} *{name}")
            self.args.append(f"*{name}" if not array and stars == 0 else name)
            return
        if base == "void" and stars == 1 and not array:
            self.fparams.append(f"void *{name}")
            if kind in BUFFER_KINDS:
                self.args.append(f"wisp_f_buf({name})")
            elif kind in PLAIN_POINTER_KINDS:
                self.args.append(name)
            else:
                raise Skip(f"{name}: an untyped pointer of kind {kind}")
            return
        if base == "MPI_Status":
            self.fparams.append(f"MPI_Fint *{name}")
            if not array and stars == 1:
                self.pre.append(f"MPI_Status {c}_local;")
                self.pre.append(f"MPI_Status *{c} = wisp_f_status_in(abi, {name}, &{c}_local);")
                self.args.append(c)
                if out:
                    self.post.append(f"wisp_f_status_out({c}, {name});")
            elif array and stars == 0:
                n = self.length(name)
                written = WRITTEN.get((fn, name), n)
                self.pre.append(f"MPI_Status {c}_local[WISP_F_LOCAL];")
                self.late.append(f"MPI_Status *{c} = wisp_f_statuses_in(abi, {name}, {n}, {c}_local);")
                self.args.append(c)
                self.post.append(f"wisp_f_statuses_out({c}, {written}, {name});")
                self.cleanup.append(f"wisp_f_release({c}, {c}_local);")
            else:
                raise Skip(f"{name}: {str(p)}")
            return
        raise Skip(f"{name}: a parameter of type {base} (kind {kind})")

    def conv(self, base):
        kind = HANDLES[base]
        if base in WISP_HANDLES:
            return f"wisp_f_{kind.lower()}_f2c", f"wisp_f_{kind.lower()}_c2f"
        return f"PMPI_{kind}_f2c", f"PMPI_{kind}_c2f"

    def length(self, name):
        n = LENGTHS.get((self.name, name))
        if n is None:
            raise Skip(f"{name}: an array whose length the call does not give")
        return n


def build(c):
    """(signature parameters, body text) of f_MPI_X, or raise Skip."""
    if c.name in LEFT_OUT:
        raise Skip(LEFT_OUT[c.name])
    if str(c.return_type) != "int":
        raise Skip(f"returns {c.return_type}")
    b = Body(c.name)
    params = list(c.parameters)
    if c.name in ("MPI_Init", "MPI_Init_thread"):
        params = params[2:]  # Fortran has no argc, argv
        b.args += ["NULL", "NULL"]
    for p in params:
        b.param(p)
    return b


def render_body(c, b):
    fparams = ", ".join(b.fparams + ["MPI_Fint *ierror"] + b.hidden)
    lines = [f"static inline __attribute__((always_inline)) void f_{c.name}({fparams}, "
             "enum wisp_f_abi abi)", "{"]
    if not any("abi" in x for x in b.pre + b.post):
        lines.append("    (void)abi;")
    lines += [f"    {x}" for x in b.pre + b.late]
    lines.append(f"    int rc = {c.name}({', '.join(b.args)});")
    lines += [f"    {x}" for x in b.post + b.cleanup]
    lines += ["    if (ierror) /* optional in `use mpi_f08` */", "        *ierror = rc;", "}"]
    return lines


def routed_by_wisp():
    """Functions a layer of wisp serves itself (call or lend in routes.def)."""
    names = set()
    for path in sorted((ROOT / "src").glob("*/routes.def")):
        # A long name stands alone, its route on the next (indented) line.
        text = re.sub(r"^(MPI_[A-Za-z0-9_]+)[ \t]*\n[ \t]+", r"\1 ", path.read_text(),
                      flags=re.M)
        for line in text.splitlines():
            m = re.match(r"^(MPI_[A-Za-z0-9_]+)\s+(lend|call)\b", line)
            if m:
                names.add(m.group(1))
    return names


def unserved_check(c, routed):
    """For a function left out: the C expression naming the argument slot of
    its Fortran communicator, which gets the application's world in place of
    MPI_COMM_WORLD ("NULL": none, and the call itself needs wisp with ghosts,
    so it is refused with them), or None when the MPI can serve it alone
    whatever wisp does."""
    if c.name in ATTRIBUTE_CALLS:
        return "attr.c"
    params = [p for p in c.parameters if p.kind.name != "VARARGS"]
    for i, p in enumerate(params):
        if p.kind.name == "COMMUNICATOR" and p.direction is std.Direction.IN and \
                p.pointer_level == 0 and "[" not in str(p):
            return f"&a{i}"
    return "NULL" if c.name in routed else None


# Left out and served by hand with ghosts (src/fortran/attr.c): the MPI
# keeps an attribute value set from Fortran itself, so the call goes on to
# the MPI's own entry point through wisp_f_x(next, arguments...), which
# passes the application's world and answers what the ghosts change. MPICH's
# mpif.h entries of these call MPICH's internals (MPII_Comm_set_attr, ...),
# not the C functions, so they get entry points under MPICH too. The count
# of arguments (none has a hidden length).
ATTRIBUTE_CALLS = {"MPI_Attr_get": 5, "MPI_Attr_put": 4, "MPI_Comm_get_attr": 5,
                   "MPI_Comm_set_attr": 4, "MPI_Win_get_attr": 5}


def render_unserved(c, check):
    lower = c.name[4:].lower()
    # (guard, symbol, other spellings, the name as the binding spells it)
    entries = [(f"WISP_F_MPIF_{c.name}", f"ompi_{lower}_f",
                f"WISP_F_MPIF_ALIASES({lower}, {lower.upper()}, (WISP_F_ANY_PARAMS))",
                c.name.upper()),
               (f"WISP_F_F08_{c.name}", f"mpi_{lower}_f08_", None, c.name)]
    if c.name in ATTRIBUTE_CALLS:
        entries.append((f"WISP_F_MPICH_MPIF_{c.name}", f"mpi_{lower}_",
                        f"WISP_F_MPICH_ALIASES({lower}, {lower.upper()}, (WISP_F_ANY_PARAMS))",
                        c.name.upper()))
    params = "WISP_F_ANY_PARAMS"
    if c.name in ATTRIBUTE_CALLS:
        params = ", ".join(f"long a{i}" for i in range(ATTRIBUTE_CALLS[c.name]))
    out = []
    for guard, symbol, aliases, name in entries:
        if aliases:
            aliases = aliases.replace("(WISP_F_ANY_PARAMS)", f"({params})")
        out += [f"#ifdef {guard}", f"WISP_EXPORT void {symbol}({params})", "{"]
        if c.name in ATTRIBUTE_CALLS:
            # MPICH's strong pmpi_x_ behind its weak mpi_x_ (ours, here).
            next_symbol = f"p{symbol}" if symbol == f"mpi_{lower}_" else symbol
            args = ", ".join(f"(void *)a{i}" for i in range(ATTRIBUTE_CALLS[c.name]))
            out += ["    static wisp_f_any_fn next;",
                    f'    wisp_f_{lower}(wisp_f_next("{name}", "{next_symbol}", &next), {args});']
        else:
            out.append(f'    WISP_F_UNSERVED("{name}", "{symbol}", {check});')
        out += ["}"] + ([aliases] if aliases else []) + ["#endif"]
    return out + [""]


def render(funcs):
    out = [HEADER, '#include "fortran/fortran.h"', ""]
    left = []
    served = []
    routed = routed_by_wisp()
    unserved = []
    for c in funcs:
        try:
            b = build(c)
        except Skip as why:
            check = unserved_check(c, routed)
            refused = {None: "", "NULL": " (refused with ghosts)",
                       "attr.c": " (served by src/fortran/attr.c)"}.get(
                check, " (the application's world passed on with ghosts)")
            left.append(f"{c.name}: {why}{refused}")
            if check:
                unserved += render_unserved(c, check)
                served.append(c.name)
            continue
        served.append(c.name)
        fparams = ", ".join(b.fparams + ["MPI_Fint *ierror"] + b.hidden)
        fargs = ", ".join([re.split(r"[ *]+", x)[-1] for x in b.fparams] + ["ierror"] +
                          [x.split()[-1] for x in b.hidden])
        lower = c.name[4:].lower()
        guard = f"WISP_HAVE_{c.name}"
        out.append(f"#if defined({guard}) && (defined(WISP_F_MPIF_{c.name}) || "
                   f"defined(WISP_F_F08_{c.name}))")
        out += render_body(c, b)
        out.append(f"#ifdef WISP_F_MPIF_{c.name}")
        out.append(f"WISP_EXPORT void ompi_{lower}_f({fparams})")
        out.append(f"{{\n    f_{c.name}({fargs}, WISP_F_ABI_MPIF);\n}}")
        out.append(f"WISP_F_MPIF_ALIASES({lower}, {lower.upper()}, ({fparams}))")
        out.append("#endif")
        out.append(f"#ifdef WISP_F_F08_{c.name}")
        out.append(f"WISP_EXPORT void mpi_{lower}_f08_({fparams})")
        out.append(f"{{\n    f_{c.name}({fargs}, WISP_F_ABI_F08);\n}}")
        out.append("#endif")
        out.append("#endif")
        out.append("")
    out.append("/* Left out, and needed by wisp with ghosts: forwarded to the MPI with the")
    out.append(" * application's world, served by attr.c, or refused. */")
    out += unserved
    functions = HEADER.replace("/*", "#").replace(" */", "") + "".join(
        f"{n}\n" for n in served)
    left_out = HEADER.replace("/*", "#").replace(" */", "") + "".join(f"{x}\n" for x in left)
    return {"bindings.c": "\n".join(out), "functions.txt": functions, "left_out.txt": left_out}


def all_functions():
    std.use_api_version(1)
    funcs = []
    for proc in std.all_iso_c_procedures():
        c = proc.express.iso_c
        if c is None or proc.express.f90 is None:
            continue  # no Fortran binding (MPI_X_f2c, ...)
        funcs.append(c)
    return sorted(funcs, key=lambda c: c.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=pathlib.Path)
    ap.add_argument("--check", action="store_true", help="fail if OUTDIR differs")
    args = ap.parse_args()
    write_or_check(args.outdir, render(all_functions()), args.check, "gen_fortran")


if __name__ == "__main__":
    main()
