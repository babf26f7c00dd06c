#!/usr/bin/env python3
"""The source tree's include boundaries, checked (compiler/README.md).

Every `#include` of the project's sources is an edge from one stage (a
folder) to another. This script fails, naming file and line, on an edge the
architecture forbids:

  * a stage including a stage it may not see (ALLOWED below: the front end
    sees only itself, the runtime never sees the compiler, the loop IR never
    sees the tensor IR, runtime/init and runtime/io never see runtime/train,
    ...);
  * LLVM headers anywhere but compiler/backend/, Clang headers anywhere but
    compiler/backend/cpp/ (the C++ backend, the one target linking Clang);
  * a stage reaching into another stage's internal header (a header whose
    banner says "Internal header" is private to its folder).

tests/, bench/ and examples/ may include anything: they test internals.

  check_includes.py ROOT              check the tree; exit 1 on a violation
  check_includes.py --self-test ROOT  plant forbidden edges in a copy of
                                      three files and require each be caught
"""
import os
import re
import sys

# Stage -> the stages it may include (itself always). Order = the pipeline.
ALLOWED = {
    'runtime/support': [],
    # Inside the runtime, the folders that batch/ and app/ build on stay
    # apart: support/ sees nothing, io/ and init/ never see train/.
    'runtime': ['runtime/support', 'runtime/io', 'runtime/train', 'runtime/init', 'runtime/paths',
                'runtime/logsig', 'runtime/data'],
    # The embedding API sits on top of the runtime; nothing of the runtime
    # (the model commands, model binaries) depends on it.
    'runtime/embed': ['runtime'],
    'runtime/io': ['runtime/support', 'runtime/abi.h'],
    'runtime/train': ['runtime/support', 'runtime/io', 'runtime/abi.h'],
    'runtime/init': ['runtime/support', 'runtime/abi.h', 'runtime/solvers/tableau.h'],
    'runtime/paths': ['runtime/support'],
    'runtime/logsig': ['runtime/paths', 'runtime/support'],
    'runtime/data': ['runtime/support'],
    'dsl': ['runtime/support'],
    'compiler/ir': ['runtime/support'],
    'compiler/interp': ['compiler/ir', 'runtime/support'],
    'compiler/autodiff': ['compiler/ir', 'runtime/solvers/tableau.h', 'runtime/support'],
    'compiler/passes': ['compiler/ir', 'compiler/interp', 'runtime/support'],
    'compiler/irgen': ['dsl', 'compiler/ir', 'runtime/support'],
    'compiler/model': ['dsl', 'compiler/ir', 'compiler/interp', 'compiler/autodiff', 'compiler/passes',
                       'compiler/irgen', 'runtime/solvers/tableau.h', 'runtime/support'],
    'compiler/loops': ['runtime/support'],
    'compiler/loopgen': ['compiler/ir', 'compiler/loops', 'runtime/support'],
    'compiler/abi': ['dsl', 'compiler/ir', 'compiler/autodiff', 'compiler/irgen', 'compiler/model',
                     'compiler/loops', 'compiler/loopgen', 'runtime/abi.h', 'runtime/abi_kernels.def',
                     'runtime/solvers/tableau.h', 'runtime/support'],
    'compiler/backend': ['compiler/ir', 'compiler/model', 'compiler/loops', 'compiler/abi',
                         'runtime/abi.h', 'runtime/abi_kernels.def', 'runtime/support', '<llvm'],
    'compiler/backend/cpp': ['compiler/ir', 'compiler/model', 'compiler/loops', 'compiler/abi',
                             'compiler/backend', 'runtime/abi.h', 'runtime/abi_kernels.def',
                             'runtime/support', '<llvm', '<clang'],
    # Questions about a model (where a NaN came from): the IR and its
    # interpreter, the model's layout, and the runtime pieces that feed a
    # sample's inputs and describe a failed batch; never a backend.
    'compiler/analysis': ['dsl', 'compiler/ir', 'compiler/interp', 'compiler/autodiff',
                          'compiler/model', 'compiler/abi', 'compiler/loops', 'compiler/loopgen',
                          'compiler/irgen', 'runtime/abi.h', 'runtime/batch', 'runtime/solvers',
                          'runtime/support', 'runtime/data', 'runtime/paths', 'runtime/logsig',
                          'runtime/train', 'runtime/io', 'runtime/init'],
    'compiler/driver': ['dsl', 'compiler', 'runtime'],
    # The Python module: the front end, compiler and runtime, like the driver.
    'python': ['dsl', 'compiler', 'runtime'],
}
CHECKED_ROOTS = ('dsl', 'compiler', 'runtime', 'python')
SYSTEM_FORBIDDEN = ('llvm/', 'clang/', 'clang-c/', 'llvm-c/')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def stage_of(path):
    """The most specific stage key that `path` (a source or header) lies in."""
    best = None
    for key in ALLOWED:
        if path == key or path.startswith(key + '/'):
            if best is None or len(key) > len(best):
                best = key
    return best


def is_internal(root, header):
    try:
        with open(os.path.join(root, header), encoding='utf-8', errors='replace') as f:
            banner = f.read(1500)
    except OSError:
        return False
    return 'Internal header' in banner


def covered(target, allowed):
    return any(target == a or target.startswith(a.rstrip('/') + '/') for a in allowed)


def violations(root, files):
    out = []
    for rel in files:
        stage = stage_of(rel)
        if stage is None:
            continue
        allowed = ALLOWED[stage]
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, target = m.groups()
                where = f'{rel}:{lineno}'
                if kind == '<':
                    if target.startswith(SYSTEM_FORBIDDEN) and not any(
                            a.startswith('<') and target.startswith(a[1:]) for a in allowed):
                        out.append(f'{where}: {stage} may not include <{target}> '
                                   f'(LLVM belongs to compiler/backend, Clang to compiler/backend/cpp)')
                    continue
                if not target.startswith(CHECKED_ROOTS):
                    continue  # generated files, tests' own helpers
                here = os.path.dirname(rel)
                if os.path.dirname(target) != here and is_internal(root, target):
                    out.append(f'{where}: "{target}" is internal to {os.path.dirname(target)}/')
                    continue
                tstage = stage_of(target)
                if tstage == stage or covered(target, allowed):
                    continue
                out.append(f'{where}: {stage} may not include "{target}" (allowed: '
                           f'{", ".join(allowed) or "nothing outside itself"})')
    return out


def source_files(root):
    for top in CHECKED_ROOTS:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith(('.h', '.cpp', '.inc')):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def self_test(root):
    """Plants one edge of each forbidden kind and requires each be reported."""
    import shutil, tempfile
    planted = {
        'runtime/abi.h': '#include "compiler/ir/ir.h"\n',
        'dsl/lexer.h': '#include "compiler/model/model_functions.h"\n',
        'compiler/loops/loop_ir.h': '#include <llvm/IR/Module.h>\n',
        'compiler/backend/compiled_model.h': '#include <clang/Basic/Version.h>\n',
        'compiler/abi/table.h': '#include "compiler/interp/eval_ops.h"\n',
        'runtime/init/init.h': '#include "runtime/train/optimizer.h"\n',
        'runtime/support/rng.h': '#include "runtime/io/safetensors.h"\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        for top in CHECKED_ROOTS:
            shutil.copytree(os.path.join(root, top), os.path.join(tmp, top))
        clean = violations(tmp, list(source_files(tmp)))
        if clean:
            print('self-test: the unmodified tree already has violations:\n' + '\n'.join(clean))
            return 1
        for rel, line in planted.items():
            with open(os.path.join(tmp, rel), 'a') as f:
                f.write(line)
        found = violations(tmp, list(source_files(tmp)))
    missed = [rel for rel in planted if not any(v.startswith(rel + ':') for v in found)]
    for v in found:
        print('caught:', v)
    if missed:
        print('self-test: planted edges not caught in ' + ', '.join(missed))
        return 1
    print(f'self-test: all {len(planted)} planted edges caught')
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == '--self-test':
        return self_test(argv[2])
    if len(argv) != 2:
        print(__doc__)
        return 2
    root = argv[1]
    found = violations(root, list(source_files(root)))
    for v in found:
        print(v)
    if found:
        print(f'{len(found)} forbidden include edge(s); see compiler/README.md for the stage rules')
        return 1
    print('include boundaries: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
