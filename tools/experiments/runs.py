"""Running a spec's commands: each binary under `nice -n 10` (the machine is shared; under
/usr/bin/time too when the spec asks for the peak RSS, under flock when it names a lock; a subset
command is done here, in Python), its output
in OUT/logs/, its extracted metrics appended to OUT/<csv name> as they come (results.py).

run(commands, build, out, csv_name, columns, jobs, progress) -> number of rows written; raises
RunError at the first command that fails or lacks a required metric, naming its log.
The commands of one sweep point run in order in one worker (a later one may read what an earlier
one wrote); --jobs runs points side by side. A command whose `requires` files are absent is
skipped with a message, like the real datasets that are not on every machine; one whose
`creates` file exists is skipped silently (a lock per file keeps two points from making it at
once). A command whose experiment has `choose` columns gets their values from the CSV just
before it runs (results.best; RunError when no row qualifies), and its experiment's points start
only after every point of the experiments before it has finished.
A fedmf-coordinator command runs as tools/lib/processes.sh runs one: the runner waits for its
`event=listening` line (LISTEN_TIMEOUT_S) for the port, then starts its parties (their logs
next to its own, `-party-N.log`, whose lines `extract` reads after its own), waits for it to end
and then for them (PARTY_TIMEOUT_S, then they are stopped); with `until`, it stops the
coordinator once such a line is logged. A party still running when the coordinator fails is
stopped. A command with `status_metric` records its exit status as that metric, and its other
metrics as the logs have them, instead of failing.
"""
import collections
import concurrent.futures
import dataclasses
import os
import shlex
import signal
import subprocess
import threading
import time

import events
import results

# Where each binary is in a CMake build directory.
BINARIES = {
    "fedmf-sim": "tools/sim/fedmf-sim",
    "fedmf-central": "tools/fedmf-central",
    "fedmf-data": "tools/fedmf-data",
    "fedmf-compare-models": "tools/fedmf-compare-models",
    "fedmf-coordinator": "server/fedmf-coordinator",
    "fedmf-client": "client/fedmf-client",
    "fedmf-loadgen": "tools/loadgen/fedmf-loadgen",
}
LISTEN_TIMEOUT_S = 30
PARTY_TIMEOUT_S = 60


class RunError(Exception):
    pass


# GNU time's report as an event line (in the log with the binary's output).
TIME = ["/usr/bin/time", "-f", "event=time max_rss_kb=%M wall_s=%e user_s=%U sys_s=%S"]


def binary_path(binary, build):
    if binary not in BINARIES:
        raise RunError(f"unknown binary {binary!r} (known: {', '.join(BINARIES)})")
    return os.path.join(build, BINARIES[binary])


def argv(command, build):
    return [binary_path(command.binary, build)] + command.args


def party_argv(command, build, port, party, log):
    args = [a.replace("{port}", str(port)).replace("{party}", str(party)).replace("{log}", log)
            for a in command.parties.args]
    return (["nice", "-n", "10"] + (TIME if command.parties.time else [])
            + [binary_path(command.parties.binary, build)] + args)


def full_argv(command, build):
    return (["flock", command.lock] if command.lock else []) + ["nice", "-n", "10"] + (
        TIME if command.time else []) + argv(command, build)


def missing_inputs(command):
    return [path for path in command.requires if not os.path.exists(path)]


def rows_of(command, lines, log):
    rows = []
    for extract in command.extracts:
        found = events.matching(lines, extract.selector)
        labels_of = extract.each or extract.by
        if not labels_of and not any(map(events.is_aggregate, extract.metrics.values())):
            found = found[-1:]
        elif labels_of and not found and not extract.optional:
            raise RunError(f"no {extract.selector} line; see {log}")
        groups = {}  # labels -> the lines of its row set
        for number, fields in enumerate(found):
            labels = {column: fields.get(key, "") for column, key in labels_of.items()}
            groups.setdefault(number if extract.each else tuple(labels.items()), []).append(fields)
        for group in groups.values() if labels_of else [found]:
            labels = {column: group[-1].get(key, "") for column, key in labels_of.items()}
            for metric, key in extract.metrics.items():
                value = events.value(group, key)
                if value == "":
                    if extract.optional:
                        continue
                    scope = "any" if labels_of or events.is_aggregate(key) else "the last"
                    raise RunError(f"no {key} in {scope} {extract.selector} line "
                                   f"(metric {metric}); see {log}")
                if extract.divide_by:
                    value = str(int(float(value) // extract.divide_by))
                rows.append(dict(command.row, **labels, metric=metric, value=value))
    return rows


def resolve(command, rows):
    """The command with its chosen columns filled in from rows (the CSV's, results.read)."""
    chosen = {}
    extra = []  # the flags of the chosen tables
    for name, choice in command.choices.items():
        value = results.best(rows, choice.where, choice.metric, name, choice.highest)
        if value is None:
            raise RunError(f"{command.experiment}: no row with {choice.metric} where "
                           f"{describe_where(choice.where)} in the CSV to choose {name} from: "
                           "run the experiment that makes them first")
        if choice.source:
            if value not in choice.tables:
                raise RunError(f"{command.experiment}: the chosen {name} {value!r} is no table "
                               f"of {choice.source}")
            extra += choice.tables[value]
        chosen["{" + name + "}"] = value

    def fill(text):
        for placeholder, value in chosen.items():
            text = text.replace(placeholder, value)
        return text
    return dataclasses.replace(
        command, args=[fill(a) for a in command.args] + extra,
        row={c: fill(v) for c, v in command.row.items()}, choices={})


def describe_where(where):
    return " ".join(f"{c}={v}" for c, v in where.items())


def describe_choice(name, choice):
    """What a dry run says of a column chosen at run time."""
    text = (f"{{{name}}}: {'highest' if choice.highest else 'lowest'} {choice.metric} where "
            f"{describe_where(choice.where)}")
    return text + (f", with that table's flags from {choice.source}" if choice.source else "")


_creating = collections.defaultdict(threading.Lock)  # `creates` file -> who may make it


def _execute(command, build, logs):
    if command.creates:
        with _creating[command.creates]:
            if os.path.exists(command.creates):
                return [], None
            os.makedirs(os.path.dirname(command.creates) or ".", exist_ok=True)
            return _execute_now(command, build, logs)
    return _execute_now(command, build, logs)


def _write_subset(subset, path):
    """The lines of subset.source whose field subset.column is at most subset.at_most."""
    with open(subset.source, errors="replace") as source, open(path, "w") as out:
        for line in source:
            fields = line.split()
            if len(fields) >= subset.column and float(fields[subset.column - 1]) <= subset.at_most:
                out.write(line)


def _execute_now(command, build, logs):
    log = os.path.join(logs, command.log_name)
    started = time.monotonic()
    if command.subset:
        _write_subset(command.subset, command.creates)
        return [], time.monotonic() - started
    with open(log, "w") as f:
        if command.parties or command.until:
            status = _networked(command, build, log, f)
        else:
            status = subprocess.run(full_argv(command, build), stdout=f,
                                    stderr=subprocess.STDOUT).returncode
    if status != 0 and not command.status_metric:
        raise RunError(f"{command.binary} exited with {status}; see {log}")
    lines = []
    for path in [log] + [party_log(log, party) for party in
                         range(command.parties.count if command.parties else 0)]:
        with open(path, errors="replace") as f:
            lines += f.read().splitlines()
    rows = rows_of(command, lines, log)
    if command.status_metric:
        rows.append(dict(command.row, metric=command.status_metric, value=str(status)))
    return rows, time.monotonic() - started


def party_log(log, party):
    return f"{log[:-len('.log')]}-party-{party}.log"


def _wait_for_line(log, process, selector, timeout):
    """The fields of the first line of log matching selector, once it is there."""
    deadline = time.monotonic() + timeout
    while True:
        with open(log, errors="replace") as f:
            found = events.matching(f.read().splitlines(), selector)
        if found:
            return found[0]
        if process.poll() is not None:
            raise RunError(f"{os.path.basename(log)}: the coordinator exited before a "
                           f"{selector} line; see {log}")
        if time.monotonic() > deadline:
            raise RunError(f"no {selector} line within {timeout} s; see {log}")
        time.sleep(0.05)


def _networked(command, build, log, out):
    """Runs a coordinator command (its parties or its `until`); its exit status."""
    coordinator = subprocess.Popen(full_argv(command, build), stdout=out,
                                   stderr=subprocess.STDOUT)
    parties = []
    try:
        if command.until:
            _wait_for_line(log, coordinator, command.until, LISTEN_TIMEOUT_S)
            coordinator.terminate()
            coordinator.wait()
            return 0
        port = _wait_for_line(log, coordinator, "event=listening", LISTEN_TIMEOUT_S)["port"]
        for party in range(command.parties.count):
            with open(party_log(log, party), "w") as f:
                parties.append(subprocess.Popen(party_argv(command, build, port, party, log),
                                                stdout=f, stderr=subprocess.STDOUT))
        status = coordinator.wait()
        if status == 0:
            for process in parties:
                process.wait(timeout=PARTY_TIMEOUT_S)
        return status
    except subprocess.TimeoutExpired:
        raise RunError(f"a party still ran {PARTY_TIMEOUT_S} s after the coordinator ended; "
                       f"see {log[:-len('.log')]}-party-*.log")
    finally:
        for process in [coordinator] + parties:
            _stop(process)


def _stop(process):
    """Stops a process still running, and first its children (a binary under /usr/bin/time)."""
    if process.poll() is not None:
        return
    try:
        with open(f"/proc/{process.pid}/task/{process.pid}/children") as f:
            children = [int(pid) for pid in f.read().split()]
    except OSError:
        children = []
    for pid in children:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    try:
        process.wait(timeout=5 if children else 0)  # /usr/bin/time ends with its child
    except subprocess.TimeoutExpired:
        process.terminate()
        process.wait()


def run(commands, build, out, csv_name, columns, jobs, progress):
    todo = []
    for command in commands:
        absent = missing_inputs(command)
        if absent:
            progress(f"skipped {command.experiment} {command.log_name}: {', '.join(absent)} "
                     "not found")
        else:
            todo.append(command)
    for command in (c for c in todo if not c.subset):  # all checked before the first run
        for name in [command.binary] + ([command.parties.binary] if command.parties else []):
            binary = binary_path(name, build)
            if not os.access(binary, os.X_OK):
                raise RunError(f"{binary} missing: build it first (cmake --build --preset release)")
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    points = collections.defaultdict(list)
    for command in todo:
        points[command.point].append(command)
    stages = []  # lists of points; a stage starts at each experiment that chooses
    for key, commands in points.items():
        if not stages or (commands[0].choices and key[0] != stages[-1][-1][0].point[0]):
            stages.append([])
        stages[-1].append(commands)
    csv_path = os.path.join(out, csv_name)
    done = [0]
    lock = threading.Lock()  # the CSV and the count are shared by the workers

    def point(commands):
        written = 0
        for command in commands:
            if command.choices:
                with lock:
                    command = resolve(command, results.read(csv_path)
                                      if os.path.exists(csv_path) else [])
            rows, seconds = _execute(command, build, logs)
            with lock:
                results.append(csv_path, columns, rows)
                done[0] += 1
                took = f"{seconds:.1f} s" if seconds is not None else f"{command.creates} exists"
                progress(f"[{done[0]}/{len(todo)}] {command.experiment} {command.log_name} "
                         f"({took}): " + " ".join(f"{r['metric']}={r['value']}" for r in rows))
            written += len(rows)
        return written

    written = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for stage in stages:
            futures = [pool.submit(point, commands) for commands in stage]
            for future in concurrent.futures.as_completed(futures):
                try:
                    written += future.result()
                except RunError:
                    pool.shutdown(cancel_futures=True)  # start no more points: wasted
                    raise
    return written


def describe(command, build):
    if command.subset:
        s = command.subset
        return (f"awk '${s.column} <= {s.at_most:g}' {shlex.quote(s.source)} > "
                f"{shlex.quote(command.creates)}")
    text = shlex.join(full_argv(command, build))
    if command.parties:
        text += (f" & then {command.parties.count} x "
                 + shlex.join(party_argv(command, build, "{port}", "{party}", "{log}")))
    return text + (f"  # until {command.until}" if command.until else "")
