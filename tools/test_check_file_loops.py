#!/usr/bin/env python3
"""Unit tests of tools/check_file_loops.py (CTest tools.check_file_loops_unit):
a loop through a function pointer that the sources fill in by name fails,
as a direct one does; one through a struct of `_callbacks` does not."""
import contextlib
import io
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_file_loops  # noqa: E402

# low.c calls up through `low_up`, which start.c fills in with high.c's
# function; high.c calls low.c by name.
LOW = """
struct KIND { void (*event)(int); };
struct KIND low_up;
void low_run(int n) { low_up.event(n); }
"""
HIGH = """
void low_run(int n);
void high_event(int n) { (void)n; }
void high_go(void) { low_run(1); }
"""
START = {
    "compound": "void high_event(int);\nvoid start(void) { low_up = (struct KIND){.event = high_event}; }",
    "assigned": "void high_event(int);\nvoid start(void) { low_up.event = high_event; }",
}


class FileLoopsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def check(self, kind, start):
        """check_file_loops' verdict on the three files, and what it printed."""
        src, obj = self.root / "src" / "x", self.root / "obj" / "src" / "x"
        shutil.rmtree(self.root / "src", ignore_errors=True)
        src.mkdir(parents=True)
        obj.mkdir(parents=True, exist_ok=True)
        decl = f"struct {kind} {{ void (*event)(int); }};\nextern struct {kind} low_up;\n"
        files = {"low.c": LOW.replace("KIND", kind), "high.c": HIGH,
                 "start.c": decl + START[start].replace("KIND", kind)}
        objects = []
        for name, text in files.items():
            (src / name).write_text(text)
            objects.append(str(obj / f"{name}.o"))
            subprocess.run(["cc", "-c", "-o", objects[-1], str(src / name)], check=True)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ok = check_file_loops.check("src/x", objects, self.root)
        return ok, out.getvalue()

    def test_loop_through_a_pointer_fails(self):
        for start in START:
            ok, out = self.check("low_ops", start)
            self.assertFalse(ok, out)
            self.assertIn("high_event", out)

    def test_callbacks_are_left_out(self):
        for start in START:
            ok, out = self.check("low_callbacks", start)
            self.assertTrue(ok, out)
            self.assertIn("callbacks low_up left out", out)


if __name__ == "__main__":
    if not shutil.which("cc") or not shutil.which("nm"):
        sys.exit("test_check_file_loops: needs cc and nm")
    unittest.main()
