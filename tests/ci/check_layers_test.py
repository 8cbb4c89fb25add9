#!/usr/bin/env python3
"""ci/check_layers.py and the layered build: the tree as it is keeps every claim; a copy of it with an include
that runs up a layer, a Vulkan header in the check layer, or the database in detection is refused, naming the
file and line; and the build's include path for a layer (build/harness/layers/) finds its own and lower layers'
headers but not a higher layer's, so an upward include does not compile.

Usage: check_layers_test.py BUILD_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(SOURCE, 'ci', 'check_layers.py')
sys.path.insert(0, os.path.join(SOURCE, 'ci'))
import check_layers  # noqa: E402


def fail(msg):
    print(f'FAIL: {msg}', flush=True)
    sys.exit(1)


def run_check(root):
    return subprocess.run([sys.executable, CHECK, '--root', root], capture_output=True, text=True)


def with_line(root, path, line):
    with open(os.path.join(root, path)) as f:
        text = f.read()
    with open(os.path.join(root, path), 'w') as f:
        f.write(line + '\n' + text)


def main():
    build = os.path.abspath(sys.argv[1])
    r = run_check(SOURCE)
    if r.returncode != 0:
        fail(f'the tree breaks a claim:\n{r.stdout}')
    scratch = tempfile.mkdtemp(prefix='sw-layers-test-')
    try:
        for path, line, expect in (
                ('harness/run/gpu_timer.cpp', '#include "families/kernel_family.h"', 'run may use only'),
                ('harness/check/check.cpp', '#include <volk.h>', 'harness/check is pure'),
                ('server/src/detection/detect.cpp', '#include "storage/sql.h"', 'is pure'),
                ('server/src/queries/queries.cpp', '#include "suite/kernel_run.h"', 'the server includes nothing'),
                ('server/src/queries/queries_rankings.cpp', '#include "catalog.h"', 'nothing of the bench\'s catalog')):
            root = os.path.join(scratch, os.path.basename(path))
            for part in ('harness', 'reference', 'server/src', 'kernels'):
                shutil.copytree(os.path.join(SOURCE, part), os.path.join(root, part))
            with_line(root, path, line)
            r = run_check(root)
            if r.returncode != 1 or f'{path}:1: includes' not in r.stdout or expect not in r.stdout:
                fail(f'{line} in {path} was not refused as "{expect}" (exit {r.returncode}):\n{r.stdout}{r.stderr}')
            print(f'refused: {line} in {path}')
    finally:
        shutil.rmtree(scratch)

    # The build: a layer's include path (its staged folders) compiles its own and lower headers, not a higher one's.
    allowed = check_layers.read_layers(os.path.join(SOURCE, 'harness', 'layers.txt'))
    staged = os.path.join(build, 'harness', 'layers')
    flags = [f'-I{os.path.join(staged, layer)}' for layer in allowed['run']]
    flags += [f'-I{os.path.join(SOURCE, d)}' for d in ('kernels', 'reference', 'contract')]
    for header, builds in (('run/gpu_timer.h', True), ('check/answer_check.h', True),
                           ('families/kernel_family.h', False), ('suite/kernel_run.h', False)):
        probe = subprocess.run(['c++', '-std=c++20', '-fsyntax-only', *flags, '-x', 'c++', '-'],
                               input=f'#include "{header}"\n', capture_output=True, text=True)
        if (probe.returncode == 0) != builds:
            fail(f'the run layer\'s include path {"does not build" if builds else "builds"} #include "{header}":\n'
                 f'{probe.stderr[-2000:]}')
        print(f'run layer: #include "{header}" {"builds" if builds else "does not build"}')
    print('PASS')


if __name__ == '__main__':
    main()
