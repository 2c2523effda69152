"""Bundles libdynarock into the package when DYNAROCK_LIBRARY names it.

    DYNAROCK_LIBRARY=build/libdynarock.so pip install --no-build-isolation ./bindings/python

Without it the package finds the library at run time: DYNAROCK_LIBRARY, then
the system's (after `cmake --install`, e.g. /usr/local/lib/libdynarock.so).
"""
import os
import shutil

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
LIB_DIR = os.path.join(HERE, "dynarock", "_lib")

library = os.environ.get("DYNAROCK_LIBRARY")
if library and not os.path.isabs(library):
    # pip runs this file in a copy of the source: relative to where pip was run.
    library = os.path.join(os.environ.get("PWD", os.getcwd()), library)
if library:
    os.makedirs(LIB_DIR, exist_ok=True)
    shutil.copy2(os.path.realpath(library), os.path.join(LIB_DIR, "libdynarock.so"))

setup()
