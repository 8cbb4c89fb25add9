#!/usr/bin/env python3
"""Checks the dependency claims of ARCHITECTURE.md against the source's own includes:

  1. harness/: each file includes headers of its own layer and of the layers below it that harness/layers.txt
     lets it use (the same file the build reads to link the layers and set their include paths);
  2. the pure parts include no Vulkan, no database and no HTTP: reference/, harness/common, harness/inputs,
     harness/check, server/src/detection (but run_detector, change_attribution, verdict_evidence, what_ran and
     alert_triage), ingest_parse and point_grouping;
  3. neither half includes the other: the server none of harness/ nor of the bench's catalog (kernels/: what
     the server needs of it comes in the documents, contract/), the harness none of server/.

  ci/check_layers.py [--root DIR]

Prints each include that breaks a claim (file:line, the include, the claim) and exits 1, or one line and 0.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = ('.h', '.hpp', '.cpp', '.cc')

# What a pure part may not include: Vulkan, a database, HTTP, and the server's stages with I/O.
IMPURE_SYSTEM = re.compile(r'^(volk\.h|vulkan/|sqlite3\.h|libpq-fe\.h|httplib\.h|nvml\.h)')
IMPURE_SERVER = re.compile(r'^(storage|http|service|queries|tokens|cli)/')
PURE_HARNESS = ('common', 'inputs', 'check')
PURE_SERVER_FILES = ('server/src/ingest/ingest_parse.', 'server/src/ingest/point_grouping.')
IMPURE_DETECTION = ('server/src/detection/run_detector.', 'server/src/detection/change_attribution.',
                    'server/src/detection/verdict_evidence.', 'server/src/detection/what_ran.',
                    'server/src/detection/alert_triage.')


def read_layers(path):
    """{layer: the layers it may include, itself and every one below it that it names, directly or not}."""
    named = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r'([a-z]+):\s*([a-z ]*)', line)
            if not m:
                sys.exit(f'{path}:{n}: not "layer: the layers below it": {line!r}')
            below = m.group(2).split()
            unknown = [b for b in below if b not in named]
            if unknown:
                sys.exit(f'{path}:{n}: {m.group(1)} names {", ".join(unknown)}, not a layer above it in the file')
            named[m.group(1)] = below
    allowed = {}
    for layer, below in named.items():  # in file order: every layer below is complete already
        allowed[layer] = {layer}.union(*(allowed[b] for b in below))
    return allowed


def sources(root, folder):
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def includes(root, path):
    with open(os.path.join(root, path), errors='replace') as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1), m.group(2)


def check(root):
    broken = []
    allowed = read_layers(os.path.join(root, 'harness', 'layers.txt'))
    for path in sources(root, 'harness'):
        layer = path.split(os.sep)[1]
        if layer not in allowed:
            broken.append(f'{path}: harness/{layer}/ is not a layer of harness/layers.txt')
            continue
        for n, kind, inc in includes(root, path):
            top = inc.split('/', 1)[0]
            if kind == '"' and '/' in inc and top in allowed and top not in allowed[layer]:
                broken.append(f'{path}:{n}: includes "{inc}": {layer} may use only '
                              f'{", ".join(sorted(allowed[layer]))} (harness/layers.txt)')
            if layer in PURE_HARNESS and kind == '<' and IMPURE_SYSTEM.match(inc):
                broken.append(f'{path}:{n}: includes <{inc}>: harness/{layer} is pure (no Vulkan)')
            if inc.startswith('server/') or inc.startswith('src/'):
                broken.append(f'{path}:{n}: includes "{inc}": the harness includes nothing of the server')
    pure = [p for p in sources(root, 'reference')]
    pure += [p for p in sources(root, os.path.join('server', 'src', 'detection')) if not p.startswith(IMPURE_DETECTION)]
    pure += [p for p in sources(root, os.path.join('server', 'src', 'ingest')) if p.startswith(PURE_SERVER_FILES)]
    for path in pure:
        for n, kind, inc in includes(root, path):
            if IMPURE_SYSTEM.match(inc) or (kind == '"' and IMPURE_SERVER.match(inc)):
                broken.append(f'{path}:{n}: includes {inc}: {os.path.dirname(path)} is pure (no Vulkan, database or HTTP)')
    harness_headers = {p.split(os.sep, 1)[1] for p in sources(root, 'harness')}
    catalog_headers = {os.path.basename(p) for p in sources(root, 'kernels') if p.endswith('.h')}
    for path in sources(root, 'server'):
        for n, kind, inc in includes(root, path):
            if kind == '"' and inc in harness_headers and not os.path.exists(os.path.join(root, 'server', 'src', inc)):
                broken.append(f'{path}:{n}: includes "{inc}": the server includes nothing of the harness')
            if kind == '"' and inc in catalog_headers and not os.path.exists(os.path.join(root, 'server', 'src', inc)):
                broken.append(f'{path}:{n}: includes "{inc}": the server includes nothing of the bench\'s catalog')
    return broken


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help='the source tree (default: this script\'s)')
    args = ap.parse_args()
    broken = check(args.root)
    for line in broken:
        print(line)
    if broken:
        print(f'{len(broken)} include(s) break ARCHITECTURE.md\'s dependency claims')
        return 1
    print('every include keeps ARCHITECTURE.md\'s dependency claims (harness/layers.txt, the pure parts, the two halves)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
