"""Experiment specs: TOML files in tools/experiments/specs/, one per family of docs/results.

load(path, overrides, smoke) -> Spec, or SpecError naming the file, the key and the value at fault.
Spec.commands(only) -> the concrete Command list, in spec order.

A spec has:
  description   what it reproduces (shown by run.py SPEC --list)
  csv           the results file, relative to the repository (its rows: results.py)
  columns       the label columns of every row, before `metric,value`
  doc, tables   the docs/results page and the functions of tables/ that render its tables
  plot_data     optional: the functions of tables/ that make its plots' data files
  [params]      named values (a list is a sweep axis); `run.py --set NAME=V1,V2` overrides one
                (a list of tables is set by names: the tables so named in it or in the spec's
                other lists of tables)
  [flagsets.N]  named sets of flags that commands share (`use = ["N"]`)
  [extracts]    named lists of extract entries that commands share (`extract = "N"`)
  [smoke]       optional: the spec at a size that runs in seconds, so that a test runs every
                experiment end to end and the spec cannot rot (run.py --smoke; load(smoke=True)):
                `params` (name -> value, replacing that param of [params] before any --set;
                a list of names picks tables as --set does, e.g. one point of a grid) and `flags` (binary -> flags, added last to every command of that binary, e.g.
                fewer rounds)
  [[experiment]] name, optional `sweep` (axis -> list or the name of a list param; the points
                are the product of the axes, the first axis slowest), `row` (column ->
                template; a column it does not name is empty), optional `requires` (files that must exist, else the point is
                skipped with a message; a template that renders empty requires nothing), and
                [[experiment.command]] entries, run in order at each point: binary, `use`
                (flagsets, in order), flags (flag -> template; true means a bare --flag, false none;
                "set.FIELD" = value means --set=FIELD=value, an option of the algorithm; a
                flag also in a used flagset replaces it there), optional `creates` (a file it
                writes: the command is skipped when the file exists, e.g. a shared reference
                model), optional `time = true` (run under /usr/bin/time, which adds the line
                `event=time max_rss_kb=N wall_s=S user_s=U sys_s=S`), optional `lock` (a file:
                the command runs under `flock FILE`, so commands that take much memory never
                overlap, even across run.py invocations), optional `status_metric` (the exit
                status is a result, that metric's value, instead of failing the run when it is
                not 0, e.g. for a run that is expected to end early), and `extract`: the name of
                an entry list in [extracts], or a list of entries and such names; an
                entry has `from` (an events selector),
                `metrics` (metric template -> event-line key, or a list of keys named as
                themselves, or the name of a list param of such keys), optional `optional` (a
                missing line or key is then no row instead of an error) and optional `each`
                (column -> event-line key: rows for every matching line, not only the last,
                with those columns taken from the line, e.g. one fold_done line a fold) or
                optional `by` (column -> event-line key: a row set for each distinct value of
                those keys among the matching lines, in the order first seen, e.g. one for
                each phase) and
                optional `divide_by` (the value is the integer part of the number over it,
                e.g. 1024 for KiB to MiB). A metric's key may be `count()` (how many lines
                match, 0 for none) or `mean(KEY)` (the mean of KEY over the matching lines
                that have it, e.g. of a per-round figure) instead of a key; such an entry, or
                one with `by`, reads every matching line (of its group), and a plain key in it
                is the last line's.
                An experiment may also have `choose` (column -> { where = {column -> template},
                lowest = metric }): that column's value is chosen at run time, from the rows the
                CSV holds then, as the one of the row with the lowest `lowest` metric (or the
                highest `highest` metric) among those whose columns match `where` (results.best;
                e.g. the learning rate a tuning experiment found best); "{column}" in the
                experiment's templates is that value. With `tables = "P"` (a list param of tables
                with a `name` and `flags`, e.g. a tuning grid whose rows are named by its tables)
                the value is the name of one of P's tables, whose flags are added to every command
                of the point, last. Such an experiment starts once every experiment before it has
                finished.
A command may be `subset = { from, column, at_most }` instead of a binary, with `creates`: it
writes the lines of `from` whose whitespace-separated field number `column` (from 1, as awk counts)
is at most `at_most` into the `creates` file, as `awk '$column <= at_most'` (e.g. the ratings of
the first 400 movies).
A fedmf-coordinator command may have `parties` (binary, count, use, flags, optional time: `count`
client processes started once the coordinator listens; "{port}" in their flags is its port,
"{party}" the client's index from 0, "{log}" the coordinator's log, e.g. for fedmf-loadgen
--coordinator_log; `time = true` runs each under /usr/bin/time, as a command's `time`; `extract`
reads their logs' lines after the coordinator's) or `until` (an events selector: the coordinator
is stopped once it logs such a line, as when only its accounting is wanted); its flags should
have it listen on port 0 (runs.py).
Templates are Python format strings over the params and the sweep axes: "{data}/u.data"
({out} is the results directory: the csv's, or run.py --out); an axis whose values are tables is
read by field: "{shape[spec]}", and such a table's `flags` are added to every command of its
point, last (e.g. the flags that make each case of an ablation).
"""
import dataclasses
import itertools
import os
import tomllib

import events

_TOP = {"description", "csv", "columns", "doc", "tables", "plot_data", "params", "flagsets",
        "extracts", "experiment", "smoke"}
_SMOKE = {"params", "flagsets"}
_EXPERIMENT = {"name", "sweep", "row", "requires", "command", "choose"}
_CHOOSE = {"where", "lowest", "highest", "tables"}
_COMMAND = {"binary", "use", "flags", "creates", "time", "extract", "parties", "until", "lock",
            "subset", "status_metric"}
_SUBSET = {"from", "column", "at_most"}
_PARTIES = {"binary", "count", "use", "flags", "time"}
_EXTRACT = {"from", "metrics", "optional", "each", "by", "divide_by"}


class SpecError(Exception):
    pass


@dataclasses.dataclass
class Extract:
    selector: str
    metrics: dict  # metric -> event-line key
    optional: bool
    each: dict  # column -> event-line key; non-empty: a row set for every matching line
    by: dict  # column -> event-line key; non-empty: a row set for every group of lines
    divide_by: int  # 0: the value as printed


@dataclasses.dataclass
class Command:
    experiment: str
    binary: str
    args: list  # the flags, rendered
    row: dict  # column -> label
    extracts: list
    requires: list
    log_name: str
    point: tuple  # (experiment, point): the commands of a point run in order, one after another
    creates: str  # a file the command writes; it is skipped when the file exists
    time: bool  # run under /usr/bin/time for the peak RSS
    choices: dict  # column -> Choice; "{column}" in args and row until resolved
    parties: object  # Parties or None
    until: str  # an events selector ("": the coordinator runs to its end)
    lock: str  # a file the command runs under flock ("": none)
    subset: object  # Subset or None (then binary and args are unused)
    status_metric: str  # the metric the exit status is ("": a non-zero status fails the run)


@dataclasses.dataclass
class Parties:
    binary: str
    count: int
    args: list  # rendered but "{port}", "{party}" and "{log}"
    time: bool  # each runs under /usr/bin/time


@dataclasses.dataclass
class Subset:
    source: str
    column: int  # from 1
    at_most: float


@dataclasses.dataclass
class Choice:
    where: dict  # column -> rendered value the row must have
    metric: str  # the metric whose lowest (highest) value wins
    highest: bool
    source: str  # the list param of tables the value names ("": none)
    tables: dict  # table name -> its rendered flags, the args added for that value


@dataclasses.dataclass
class Spec:
    path: str
    description: str
    csv: str
    columns: list
    doc: str
    tables: list
    plot_data: list
    params: dict
    flagsets: dict
    extracts: dict
    experiments: list

    def extracts_of(self, command):
        return _entries(command.get("extract", []), self.extracts)

    def names(self):
        return [e["name"] for e in self.experiments]

    def commands(self, only=None):
        unknown = sorted(set(only or ()) - set(self.names()))
        if unknown:
            raise SpecError(f"{self.path}: no experiment {', '.join(unknown)} "
                            f"(it has {', '.join(self.names())})")
        out = []
        for index, experiment in enumerate(self.experiments):
            if not only or experiment["name"] in only:
                out.extend(self._expand(index, experiment))
        return out

    def _expand(self, index, experiment):
        where = f"{self.path}: experiment[{index}] ({experiment['name']})"
        axes = {}
        for axis, values in experiment.get("sweep", {}).items():
            if isinstance(values, str):
                if values not in self.params or not isinstance(self.params[values], list):
                    raise SpecError(f"{where}: sweep.{axis} = {values!r} names no list param")
                values = self.params[values]
            axes[axis] = values
        for number_of_point, point in enumerate(itertools.product(*axes.values())):
            scope = dict(self.params, **dict(zip(axes, point)))
            choose = experiment.get("choose", {})
            scope.update({name: "{" + name + "}" for name in choose})  # kept for run time
            fill = lambda key, template: _render(f"{where}: {key}", template, scope)
            choices = {name: Choice(
                {c: fill(f"choose.{name}.where.{c}", t) for c, t in choice["where"].items()},
                choice.get("lowest") or choice["highest"], "highest" in choice,
                choice.get("tables", ""),
                {str(t["name"]): _args(t.get("flags", {}), lambda flag, value: fill(
                    f"choose.{name}.tables.{flag}", value))
                 for t in self.params.get(choice.get("tables"), [])})
                for name, choice in choose.items()}
            row = {c: fill(f"row.{c}", experiment["row"].get(c, "")) for c in self.columns}
            requires = [p for p in (fill("requires", r) for r in experiment.get("requires", []))
                        if p]
            for number, command in enumerate(experiment["command"]):
                flags = {}
                for name in command.get("use", []):
                    flags.update(self.flagsets[name])
                flags.update(command.get("flags", {}))
                for value in point:
                    if isinstance(value, dict):
                        flags.update(value.get("flags", {}))
                args = _args(flags, lambda flag, value: fill(
                    f"command[{number}].flags.{flag}", value))
                parties = None
                if "parties" in command:
                    p = command["parties"]
                    party_scope = dict(scope, port="{port}", party="{party}", log="{log}")
                    count = fill(f"command[{number}].parties.count", p["count"])
                    if not count.isdigit():
                        raise SpecError(f"{where}: command[{number}].parties.count = "
                                        f"{p['count']!r} is {count!r}, not a count")
                    party_flags = {}
                    for name in p.get("use", []):
                        party_flags.update(self.flagsets[name])
                    party_flags.update(p.get("flags", {}))
                    parties = Parties(p["binary"], int(count), _args(
                        party_flags, lambda flag, value: _render(
                            f"{where}: command[{number}].parties.flags.{flag}", value,
                            party_scope)), p.get("time", False))
                extracts = []
                for e in self.extracts_of(command):
                    metrics = e["metrics"]
                    if isinstance(metrics, str):  # the name of a list param
                        if not isinstance(self.params.get(metrics), list):
                            raise SpecError(f"{where}: metrics = {metrics!r} names no list param")
                        metrics = self.params[metrics]
                    if isinstance(metrics, list):  # metric names are the keys themselves
                        metrics = {m: m for m in metrics}
                    extracts.append(Extract(
                        e["from"], {fill("metric", m): k for m, k in metrics.items()},
                        e.get("optional", False), e.get("each", {}), e.get("by", {}),
                        e.get("divide_by", 0)))
                label = "-".join(_label(v) for v in point)
                log_name = f"{experiment['name']}{'-' + label if label else ''}-{number}.log"
                creates = fill(f"command[{number}].creates", command.get("creates", ""))
                subset = None
                if "subset" in command:
                    s = {key: fill(f"command[{number}].subset.{key}", value)
                         for key, value in command["subset"].items()}
                    try:
                        subset = Subset(s["from"], int(s["column"]), float(s["at_most"]))
                    except ValueError as error:
                        raise SpecError(f"{where}: command[{number}].subset = {s!r}: {error}")
                yield Command(experiment["name"], command.get("binary", "subset"), args, row,
                              extracts, requires, log_name.replace("/", "_").replace(":", "_"),
                              (index, number_of_point), creates, command.get("time", False),
                              choices, parties, command.get("until", ""),
                              fill(f"command[{number}].lock", command.get("lock", "")), subset,
                              command.get("status_metric", ""))


def _entries(extract, named):
    """A command's extract entries: a name in [extracts], or a list of entries and names."""
    if isinstance(extract, str):
        return named[extract]
    return [entry for e in extract for entry in (named[e] if isinstance(e, str) else [e])]


def _args(flags, fill):
    """--flag=value arguments, a bare --flag for true, none for false (a command's false drops a
    flag its flagsets set), and --set=FIELD=value for a key "set.FIELD" (an option of the
    algorithm: fedmf-sim describe NAME); fill(flag, template) renders a value."""
    args = []
    for flag, value in flags.items():
        if flag.startswith("set."):
            text = str(value).lower() if isinstance(value, bool) else fill(flag, value)
            args.append(f"--set={flag[4:]}={text}")
        elif value is False:
            continue
        elif value is True:
            args.append(f"--{flag}")
        else:
            args.append(f"--{flag}={fill(flag, value)}")
    return args


def _label(value):
    """A sweep value in a log file name: a table by its name, else by its fields but flags."""
    if not isinstance(value, dict):
        return str(value)
    return str(value.get("name") or "-".join(str(v) for k, v in value.items() if k != "flags"))


def _render(where, template, scope):
    text = str(template)
    try:
        for _ in range(4):  # a param may name others ("{data}/u.data"): render to a fixed point
            rendered = text.format_map(scope)
            if rendered == text:
                return text
            text = rendered
    except (KeyError, ValueError, IndexError, TypeError) as error:
        raise SpecError(f"{where} = {template!r}: {error!r} (params: {', '.join(scope)})")
    raise SpecError(f"{where} = {template!r}: still has templates after 4 renderings: {text!r}")


def _check_keys(where, table, allowed, required):
    if not isinstance(table, dict):
        raise SpecError(f"{where}: expected a table, got {table!r}")
    for key in table:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in table:
            raise SpecError(f"{where}: missing key {key!r}")


def _parse_override(path, params, text):
    name, sep, value = text.partition("=")
    if not sep or name not in params:
        raise SpecError(f"{path}: --set {text!r}: expected NAME=VALUE with NAME one of "
                        f"{', '.join(params)}")
    if not isinstance(params[name], list):
        return name, value
    wanted = value.replace(",", " ").split()
    if not params[name] or not all(isinstance(v, dict) for v in params[name]):
        return name, wanted
    known = {}  # name -> table, from this param first, then the spec's other lists of tables
    for values in [params[name]] + [v for v in params.values() if isinstance(v, list)]:
        for table in values:
            if isinstance(table, dict) and "name" in table:
                known.setdefault(str(table["name"]), table)
    if any(w not in known for w in wanted):
        raise SpecError(f"{path}: --set {text!r}: no table named so; known: {', '.join(known)}")
    return name, [known[w] for w in wanted]


def _smoke(path, raw, params, flagsets):
    """Applies the [smoke] table's params and flagsets to `params` and `flagsets`."""
    if "smoke" not in raw:
        raise SpecError(f"{path}: no [smoke] table: this spec has no smoke size")
    smoke = raw["smoke"]
    _check_keys(f"{path}: smoke", smoke, _SMOKE, [])
    for name, value in smoke.get("params", {}).items():
        if name not in raw.get("params", {}):
            raise SpecError(f"{path}: smoke.params.{name}: no such param in [params]")
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = _parse_override(f"{path}: smoke", params, f"{name}={','.join(value)}")[1]
        params[name] = value
    for name, flags in smoke.get("flagsets", {}).items():
        if name not in flagsets:
            raise SpecError(f"{path}: smoke.flagsets.{name}: no such flagset in [flagsets]")
        flagsets[name] = dict(flagsets[name], **flags)


def load(path, overrides=(), smoke=False):
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except OSError as error:
        raise SpecError(f"{path}: {error.strerror}")
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: {error}")
    _check_keys(path, raw, _TOP, ["description", "csv", "columns", "experiment"])
    params = dict(raw.get("params", {}), out=os.path.dirname(raw["csv"]))
    flagsets = dict(raw.get("flagsets", {}))
    if smoke:
        _smoke(path, raw, params, flagsets)
    for text in overrides:
        name, value = _parse_override(path, params, text)
        params[name] = value
    names = set()
    for i, experiment in enumerate(raw["experiment"]):
        where = f"{path}: experiment[{i}]"
        _check_keys(where, experiment, _EXPERIMENT, ["name", "row", "command"])
        if experiment["name"] in names:
            raise SpecError(f"{where}: name {experiment['name']!r} is used twice")
        names.add(experiment["name"])
        strange = [c for c in experiment["row"] if c not in raw["columns"]]
        if strange:
            raise SpecError(f"{where}: row names {', '.join(strange)}, not among columns")
        for name, choice in experiment.get("choose", {}).items():
            _check_keys(f"{where}.choose.{name}", choice, _CHOOSE, ["where"])
            if ("lowest" in choice) == ("highest" in choice):
                raise SpecError(f"{where}.choose.{name}: give one of lowest and highest")
            tables = params.get(choice.get("tables"), [])
            if "tables" in choice and not (tables and all(
                    isinstance(t, dict) and "name" in t for t in tables)):
                raise SpecError(f"{where}.choose.{name}: tables = {choice['tables']!r} names no "
                                "list param of named tables")
            strange = [c for c in [name, *choice["where"]] if c not in raw["columns"]]
            if strange:
                raise SpecError(f"{where}.choose.{name}: {', '.join(strange)} not among columns")
        for j, command in enumerate(experiment["command"]):
            if "subset" in command:
                _check_keys(f"{where}.command[{j}].subset", command["subset"], _SUBSET, _SUBSET)
                strange = sorted(set(command) - {"subset", "creates"})
                if strange or "creates" not in command:
                    raise SpecError(f"{where}.command[{j}]: a subset has `creates` and no "
                                    f"{', '.join(strange) or 'other key'}")
            else:
                _check_keys(f"{where}.command[{j}]", command, _COMMAND, ["binary"])
            if "parties" in command:
                _check_keys(f"{where}.command[{j}].parties", command["parties"], _PARTIES,
                            ["binary", "count"])
                for name in command["parties"].get("use", []):
                    if name not in raw.get("flagsets", {}):
                        raise SpecError(f"{where}.command[{j}].parties: use = {name!r}: no such "
                                        "flagset")
            if ("parties" in command or "until" in command) and (
                    command["binary"] != "fedmf-coordinator"):
                raise SpecError(f"{where}.command[{j}]: parties and until are for a "
                                "fedmf-coordinator command")
            if "until" in command and command.get("time"):
                raise SpecError(f"{where}.command[{j}]: until stops the coordinator: no time")
            for name in command.get("use", []):
                if name not in raw.get("flagsets", {}):
                    raise SpecError(f"{where}.command[{j}]: use = {name!r}: no such flagset "
                                    f"(has {', '.join(raw.get('flagsets', {})) or 'none'})")
            extract = command.get("extract", [])
            entry_names = [extract] if isinstance(extract, str) else [
                e for e in extract if isinstance(e, str)]
            for name in entry_names:
                if name not in raw.get("extracts", {}):
                    raise SpecError(f"{where}.command[{j}]: extract = {name!r}: no such entry "
                                    f"in [extracts] (has "
                                    f"{', '.join(raw.get('extracts', {})) or 'none'})")
            for k, extract in enumerate(_entries(extract, raw.get("extracts", {}))):
                _check_keys(f"{where}.command[{j}].extract[{k}]", extract, _EXTRACT,
                            ["from", "metrics"])
                for key in ("each", "by"):
                    strange = [c for c in extract.get(key, {}) if c not in raw["columns"]]
                    if strange:
                        raise SpecError(f"{where}.command[{j}].extract[{k}]: {key} names "
                                        f"{', '.join(strange)}, not among columns")
                if "each" in extract and "by" in extract:
                    raise SpecError(f"{where}.command[{j}].extract[{k}]: each or by, not both")
                metrics = extract["metrics"]
                keys = metrics.values() if isinstance(metrics, dict) else (
                    metrics if isinstance(metrics, list) else [])
                try:
                    for key in keys:
                        events.is_aggregate(key)
                except ValueError as error:
                    raise SpecError(f"{where}.command[{j}].extract[{k}].metrics: {error}")
    return Spec(path, raw["description"], raw["csv"], raw["columns"], raw.get("doc", ""),
                raw.get("tables", []), raw.get("plot_data", []), params, flagsets,
                raw.get("extracts", {}), raw["experiment"])
