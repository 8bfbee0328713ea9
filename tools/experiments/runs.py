"""Running a spec's commands: each binary under `nice -n 10` (the machine is shared), its output
in OUT/logs/, its extracted metrics appended to OUT/<csv name> as they come (results.py).

run(commands, build, out, csv_name, columns, jobs, progress) -> number of rows written; raises
RunError at the first command that fails or lacks a required metric, naming its log.
A command whose `requires` files are absent is skipped with a message, like the real datasets
that are not on every machine.
"""
import concurrent.futures
import os
import shlex
import subprocess
import time

import events
import results

# Where each binary is in a CMake build directory.
BINARIES = {
    "fedmf-sim": "tools/sim/fedmf-sim",
    "fedmf-central": "tools/fedmf-central",
    "fedmf-data": "tools/fedmf-data",
}


class RunError(Exception):
    pass


def argv(command, build):
    if command.binary not in BINARIES:
        raise RunError(f"unknown binary {command.binary!r} (known: {', '.join(BINARIES)})")
    return [os.path.join(build, BINARIES[command.binary])] + command.args


def missing_inputs(command):
    return [path for path in command.requires if not os.path.exists(path)]


def rows_of(command, lines, log):
    rows = []
    for extract in command.extracts:
        fields = events.last(lines, extract.selector)
        for metric, key in extract.metrics.items():
            value = (fields or {}).get(key, "")
            if value == "":
                if extract.optional:
                    continue
                raise RunError(f"no {key} in the last {extract.selector} line (metric {metric}); "
                               f"see {log}")
            rows.append(dict(command.row, metric=metric, value=value))
    return rows


def _execute(command, build, logs):
    log = os.path.join(logs, command.log_name)
    started = time.monotonic()
    with open(log, "w") as f:
        status = subprocess.run(["nice", "-n", "10"] + argv(command, build), stdout=f,
                                stderr=subprocess.STDOUT).returncode
    if status != 0:
        raise RunError(f"{command.binary} exited with {status}; see {log}")
    with open(log, errors="replace") as f:
        return rows_of(command, f.read().splitlines(), log), time.monotonic() - started


def run(commands, build, out, csv_name, columns, jobs, progress):
    for command in commands:
        binary = argv(command, build)[0]
        if not os.access(binary, os.X_OK):
            raise RunError(f"{binary} missing: build it first (cmake --build --preset release)")
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    todo = []
    for command in commands:
        absent = missing_inputs(command)
        if absent:
            progress(f"skipped {command.experiment} {command.log_name}: {', '.join(absent)} "
                     "not found")
        else:
            todo.append(command)
    written = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_execute, c, build, logs): c for c in todo}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            command = futures[future]
            try:
                rows, seconds = future.result()
            except RunError:
                pool.shutdown(cancel_futures=True)  # stop at once: the rest would be wasted
                raise
            results.append(os.path.join(out, csv_name), columns, rows)
            written += len(rows)
            progress(f"[{done}/{len(todo)}] {command.experiment} {command.log_name} "
                     f"({seconds:.1f} s): " + " ".join(f"{r['metric']}={r['value']}" for r in rows))
    return written


def describe(command, build):
    return shlex.join(["nice", "-n", "10"] + argv(command, build))
