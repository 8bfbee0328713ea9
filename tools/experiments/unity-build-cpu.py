#!/usr/bin/env python3
"""Compile CPU time of unity batches against the same sources compiled one by one.

For every unity batch (Unity/unity_N_<lang>.<ext>) of the selected targets in a configured build
tree with CMAKE_UNITY_BUILD=ON, compiles the batch once and each source it includes once, with
the batch's own compile command (same compiler, flags and definitions; the compiler launcher,
e.g. ccache, is dropped so that everything really compiles), objects into a scratch directory.
Prints user+sys CPU seconds per target and in total: "one by one" is what the target costs with
UNITY_BUILD OFF, "unity" what it costs with it on. Linking is not measured.

The tree's generated headers (protobuf, build info) must exist: build the targets once first.

Usage: tools/experiments/unity-build-cpu.py BUILD_DIR [--targets=a,b,...] [--under=tests/]
                                            [--jobs=N]
  --targets  the targets to measure (default: every target whose sources lie under --under)
  --under    source folder selecting the default targets (default tests/)
  --jobs     compilations run at once (default 1; CPU time does not depend on it)
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile


def cpu_seconds(command, directory):
    """Runs `command` in `directory`; returns its user+sys CPU seconds (children included)."""
    timed = ['/usr/bin/time', '-f', '%U %S'] + command
    result = subprocess.run(timed, cwd=directory, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f'compile failed in {directory}: {shlex.join(command)}\n{result.stderr}')
    user, system = result.stderr.strip().split('\n')[-1].split()
    return float(user) + float(system)


def compile_command(entry, source, obj):
    """The entry's command compiling `source` into `obj` instead, without a launcher."""
    args = shlex.split(entry['command'])
    while os.path.basename(args[0]) in ('ccache', 'sccache'):
        args = args[1:]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ('-o', '-c'):
            skip = True
            continue
        out.append(a)
    return out + ['-o', obj, '-c', source]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('build_dir')
    parser.add_argument('--targets', default='')
    parser.add_argument('--under', default='tests/')
    parser.add_argument('--jobs', type=int, default=1)
    args = parser.parse_args()

    path = os.path.join(args.build_dir, 'compile_commands.json')
    if not os.path.exists(path):
        sys.exit(f'{path}: not found (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)')
    batches = {}  # target -> [(entry, [member sources])]
    for entry in json.load(open(path)):
        m = re.search(r'/CMakeFiles/([^/]+)\.dir/Unity/unity_\d+_\w+\.\w+$', entry['file'])
        if not m:
            continue
        members = re.findall(r'^#include "([^"]+)"', open(entry['file']).read(), re.M)
        batches.setdefault(m.group(1), []).append((entry, members))
    root = os.path.dirname(os.path.abspath(__file__)) + '/../../'
    under = os.path.realpath(os.path.join(root, args.under)) + '/'
    wanted = [t for t in args.targets.split(',') if t]
    for t in wanted:
        if t not in batches:
            sys.exit(f'--targets: {t} has no unity batch in {path}')
    if not wanted:
        wanted = sorted(t for t, b in batches.items()
                        if all(os.path.realpath(s).startswith(under) for _, ms in b for s in ms))

    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = []  # (target, kind, future)
        for target in wanted:
            for n, (entry, members) in enumerate(batches[target]):
                obj = os.path.join(scratch, f'{target}.{n}.o')
                jobs.append((target, 'unity', pool.submit(
                    cpu_seconds, compile_command(entry, entry['file'], obj), entry['directory'])))
                for k, source in enumerate(members):
                    obj = os.path.join(scratch, f'{target}.{n}.{k}.o')
                    jobs.append((target, 'single', pool.submit(
                        cpu_seconds, compile_command(entry, source, obj), entry['directory'])))
        totals = {}
        for target, kind, future in jobs:
            totals.setdefault(target, {'unity': 0.0, 'single': 0.0, 'files': 0})
            totals[target][kind] += future.result()
            totals[target]['files'] += kind == 'single'

    print(f'{"target":32} {"files":>5} {"one by one s":>13} {"unity s":>9} {"ratio":>6}')
    single = unity = files = 0
    for target in wanted:
        t = totals[target]
        print(f'{target:32} {t["files"]:5d} {t["single"]:13.1f} {t["unity"]:9.1f} '
              f'{t["single"] / t["unity"]:6.2f}')
        single, unity, files = single + t['single'], unity + t['unity'], files + t['files']
    print(f'{"total":32} {files:5d} {single:13.1f} {unity:9.1f} {single / unity:6.2f}')


if __name__ == '__main__':
    main()
