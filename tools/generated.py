"""Writing generated files, or checking that the committed ones are current
(the generators' --check, which the tests generated.*_up_to_date run)."""

import difflib
import sys


def write_or_check(outdir, files, check, tool):
    """Write each {name: text} of `files` into `outdir` where it differs (a
    name may name a folder below it too); with `check`, write nothing, print
    the differences and exit with an error."""
    stale = False
    for name, text in files.items():
        path = outdir / name
        old = path.read_text() if path.exists() else ""
        if old == text:
            continue
        if check:
            stale = True
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), str(path), "regenerated", n=1))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        sys.exit(f"{tool}: committed output is stale; run `make generate`")
