"""The Python package (bindings/python), as a user gets it.

1. `pip install --no-build-isolation --no-deps --target DIR ./bindings/python`
   with DYNAROCK_LIBRARY naming the built libdynarock.so: installable offline
   with what Debian ships, the library bundled into the package.
2. tests/python/same_code.py from that install: one test module run unchanged
   against boto3 + dynarock.serve() and against the in-process client.
3. The pytest fixtures (tests/python/test_with_fixtures.py) under pytest, for
   each python on this machine that has pytest (Debian's python3-pytest is for
   /usr/bin/python3): the plugin is found through the installed entry point.
4. examples/python/quickstart.py prints what it should.

Run: DYNAROCK_LIBRARY=build/libdynarock.so python3 tests/python/test_python_package.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
LIBRARY = os.path.abspath(os.environ.get("DYNAROCK_LIBRARY") or
                          os.path.join(ROOT, "build", "libdynarock.so"))


def run(cmd, env, timeout=300):
    return subprocess.run(cmd, env=env, cwd=HERE, capture_output=True, text=True, timeout=timeout)


class PythonPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(LIBRARY):
            raise unittest.SkipTest("no libdynarock at %s (build first)" % LIBRARY)
        cls.tmp = tempfile.mkdtemp(prefix="dynarock-py-")
        cls.site = os.path.join(cls.tmp, "site")
        src = os.path.join(cls.tmp, "src")
        # A copy: building writes into the source tree (egg-info, _lib).
        shutil.copytree(os.path.join(ROOT, "bindings", "python"), src)
        env = dict(os.environ, DYNAROCK_LIBRARY=LIBRARY, PIP_NO_INDEX="1",
                   PIP_DISABLE_PIP_VERSION_CHECK="1")
        # pip with setuptools and wheel, as Debian ships them (python3-pip,
        # python3-setuptools, python3-wheel for /usr/bin/python3).
        builder = None
        for p in (sys.executable, "/usr/bin/python3"):
            if os.path.exists(p) and run([p, "-c", "import setuptools, wheel, pip"],
                                         env).returncode == 0:
                builder = p
                break
        if builder is None:
            raise AssertionError("no python here has pip, setuptools and wheel "
                                 "(scripts/install-deps.sh installs Debian's)")
        r = run([builder, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                 "--target", cls.site, src], env)
        if r.returncode != 0:
            raise AssertionError("pip install failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        # The installed package must not need the build tree: no DYNAROCK_LIBRARY.
        cls.env = {k: v for k, v in os.environ.items() if k != "DYNAROCK_LIBRARY"}
        cls.env["PYTHONPATH"] = cls.site

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_installed_with_the_library_inside(self):
        self.assertTrue(os.path.exists(os.path.join(self.site, "dynarock", "_lib",
                                                    "libdynarock.so")))
        self.assertTrue(any(d.startswith("dynarock-") and d.endswith(".dist-info")
                            for d in os.listdir(self.site)))

    def test_same_code_in_process_and_over_http(self):
        r = run([sys.executable, os.path.join(HERE, "same_code.py"), "-v"], self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("test_orders (__main__.InProcess", r.stderr)
        try:
            import boto3  # noqa: F401
            self.assertNotIn("skipped", r.stderr.split("Boto3OverServe")[1].split("\n")[0])
        except ImportError:
            pass

    def test_pytest_fixtures(self):
        pythons = []
        for p in (sys.executable, "/usr/bin/python3"):
            if p not in pythons and os.path.exists(p) and \
                    run([p, "-c", "import pytest"], self.env).returncode == 0:
                pythons.append(p)
        if not pythons:
            self.skipTest("no python here has pytest (Debian: python3-pytest)")
        for p in pythons:
            r = run([p, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     os.path.join(HERE, "test_with_fixtures.py")], self.env)
            self.assertEqual(r.returncode, 0, p + ":\n" + r.stdout[-4000:] + r.stderr[-2000:])
            self.assertRegex(r.stdout, r"\b[23] passed")

    def test_second_process_gets_in_use(self):
        data = os.path.join(self.tmp, "data")
        holder = subprocess.Popen(
            [sys.executable, "-c",
             "import dynarock, sys, time\n"
             "db = dynarock.open(sys.argv[1])\n"
             "print('open', flush=True)\n"
             "sys.stdin.read()\n", data],
            env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(holder.stdout.readline().strip(), "open")
            r = run([sys.executable, "-c",
                     "import dynarock, sys\n"
                     "try:\n"
                     "    dynarock.open(sys.argv[1])\n"
                     "except dynarock.DynarockError as e:\n"
                     "    print(e)\n", data], self.env)
            self.assertIn("is in use by another process", r.stdout, r.stderr)
        finally:
            holder.stdin.close()
            holder.wait(timeout=30)

    def test_quickstart_example(self):
        r = run([sys.executable, os.path.join(ROOT, "examples", "python", "quickstart.py")],
                self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("in process: b'\\x00hi' ConditionalCheckFailedException", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
