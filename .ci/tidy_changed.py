#!/usr/bin/env python3
"""Which of the given source files clang-tidy must look at again.

Prints, one per line, each file named on stdin that is itself in the changed
set or that includes (directly or through any header) a changed file, using
the header dependencies ninja recorded while building ($1 = the build folder).
The changed set is argv[2:] (paths relative to the repository root).

Used by .ci/tidy: a file whose text and every header it includes are
unchanged since the last commit that was clang-tidy clean cannot have gained
a finding, so only the others are checked again (the usual incremental
clang-tidy, as clang-tidy-diff does, but following headers).
"""
import os
import subprocess
import sys

build_dir = sys.argv[1]
changed = {os.path.normpath(p) for p in sys.argv[2:]}
root = os.getcwd()

deps_text = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], check=True,
                           capture_output=True, text=True).stdout
sources_to_deps = {}
current = None
for line in deps_text.splitlines():
    if not line.strip():
        current = None
        continue
    if not line.startswith(" "):
        current = []   # a new object: its first dependency is its source file
        continue
    if current is None:
        continue
    path = os.path.relpath(os.path.normpath(os.path.join(build_dir, line.strip())), root)
    if not current:   # the same source may be built in several targets
        current = sources_to_deps.setdefault(path, [])
        current.append(path)
    current.append(path)

for source in (line.strip() for line in sys.stdin):
    if not source:
        continue
    deps = sources_to_deps.get(source)
    # A file ninja has no record of (new, or not built) is always checked.
    if deps is None or source in changed or any(d in changed for d in deps):
        print(source)
