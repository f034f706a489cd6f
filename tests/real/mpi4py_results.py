# mpi4py_results.py TESTDIR OUT [main.py's options...]
# Runs mpi4py's own test suite (TESTDIR: test/ of mpi4py's sdist) as its
# runtests.py does, and writes every test's outcome to OUT.<rank>, one line
# per test in the order they ran: "pass|fail|error|skip|xfail|xpass ID"
# (a failing subtest is a line of its own, with the subtest's id). Used by
# tests/real/mpi4py_suite.sh to compare native and wisp runs test by test;
# OUT.<rank>.lib says whether libwisp is mapped in the process ("libwisp"
# or "none"), so that a wisp run that ran without wisp is caught.
import os
import sys
import unittest

testdir, out = sys.argv[1], sys.argv[2]
sys.argv = [os.path.join(testdir, "main.py")] + sys.argv[3:]
sys.path.insert(0, testdir)
sys.dont_write_bytecode = True
import main  # noqa: E402  (mpi4py's test/main.py)


class Result(unittest.TextTestResult):
    log = None

    def record(self, status, test):
        if Result.log is None:
            from mpi4py import MPI

            rank = MPI.COMM_WORLD.Get_rank()
            Result.log = open(f"{out}.{rank}", "w")
            with open("/proc/self/maps") as maps:
                wisp = any("/libwisp" in line for line in maps)
            with open(f"{out}.{rank}.lib", "w") as lib:
                lib.write("libwisp\n" if wisp else "none\n")
        Result.log.write(f"{status} {test.id()}\n")
        Result.log.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.record("pass", test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.record("fail", test)

    def addError(self, test, err):
        super().addError(test, err)
        self.record("error", test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.record("skip", test)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.record("xfail", test)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.record("xpass", test)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.record("fail" if issubclass(err[0], test.failureException) else "error", subtest)


class Runner(unittest.TextTestRunner):
    resultclass = Result


main.main(module=None, testRunner=Runner)
