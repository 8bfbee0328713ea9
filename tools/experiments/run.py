#!/usr/bin/env python3
"""The experiment driver: runs a spec's experiments and prints its docs/results tables.

    tools/experiments/run.py SPEC [--only NAME,...] [--set PARAM=VALUE ...] [--dry-run]
                             [--jobs N] [--out DIR] [--build DIR] [--list] [--table]
                             [--plot-data] [--smoke]

SPEC is a name in tools/experiments/specs/ (synthetic-data) or a path to a .toml file
(specs.py describes the format). Runs append rows to OUT/<the spec's csv name> (default OUT: the
spec's results directory under docs/results/) and logs to OUT/logs/; --table prints the tables
of the spec's page from that CSV, --plot-data writes the data files of its plots into OUT;
--list shows its experiments and params. --smoke runs the spec at its [smoke] size (seconds, on
tiny data: what a test runs so that no experiment rots; --out is then required). Exit status: 0,
or 1 with one line saying what failed (spec file, key and value, or the log of the failed run).
"""
import argparse
import os
import sys

import results
import runs
import specs
import tables

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def spec_path(name):
    if name.endswith(".toml") or os.sep in name:
        return name
    return os.path.join(HERE, "specs", f"{name}.toml")


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="run.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="specs: " + ", ".join(sorted(
            f[:-5] for f in os.listdir(os.path.join(HERE, "specs")) if f.endswith(".toml"))))
    parser.add_argument("spec", help="spec name or .toml path")
    parser.add_argument("--only", action="append", default=[], metavar="NAME,...",
                        help="run only these experiments (default: all)")
    parser.add_argument("--set", action="append", default=[], metavar="PARAM=VALUE",
                        help="override a param; a list param takes VALUE,VALUE,...")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--jobs", type=int, default=1, help="sweep points run at once, each point's commands in order (default 1)")
    parser.add_argument("--out", help="results directory (default: the spec's, in docs/results)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="CMake build directory with the binaries (default: build/)")
    parser.add_argument("--list", action="store_true", help="list experiments and params")
    parser.add_argument("--table", action="store_true", help="print the tables from the CSV")
    parser.add_argument("--plot-data", action="store_true",
                        help="write the plots' data files into OUT, from the CSV")
    parser.add_argument("--smoke", action="store_true",
                        help="run at the spec's [smoke] size (needs --out)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.smoke and not args.out:
        parser.error("--smoke needs --out: its rows must not reach the spec's CSV")
    args.only = [n for item in args.only for n in item.split(",") if n]
    return args


def main(argv):
    args = parse_args(argv)
    os.chdir(ROOT)  # spec paths (csv, data) are relative to the repository
    spec = specs.load(spec_path(args.spec), args.set, args.smoke)
    for key, names in (("tables", spec.tables), ("plot_data", spec.plot_data)):
        unknown = [name for name in names if not callable(getattr(tables, name, None))]
        if unknown:
            raise specs.SpecError(f"{spec.path}: {key} = {unknown!r}: no such function in tables/ (tables/__init__.py lists them)")
    out = args.out or os.path.dirname(spec.csv)
    spec.params["out"] = out
    csv_path = os.path.join(out, os.path.basename(spec.csv))
    if args.list:
        print(spec.description)
        for name, value in spec.params.items():
            if value and isinstance(value, list) and all(
                    isinstance(v, dict) and "name" in v for v in value):
                value = [v["name"] for v in value]  # tables by name, as --set takes them
            print(f"param {name} = {value!r}")
        for name in spec.names():
            print(f"experiment {name}: {len(spec.commands([name]))} command(s)")
        return 0
    if args.table:
        rows = results.read(csv_path)
        for name in spec.tables:
            print(getattr(tables, name)(rows))
        return 0
    if args.plot_data:
        rows = results.read(csv_path)
        for name in spec.plot_data:
            for file_name, text in getattr(tables, name)(rows, out).items():
                with open(os.path.join(out, file_name), "w") as f:
                    f.write(text)
                print(f"wrote {os.path.join(out, file_name)}")
        return 0
    commands = spec.commands(args.only)
    if args.dry_run:
        for command in commands:
            absent = runs.missing_inputs(command)
            note = f"  # skipped: {', '.join(absent)} not found" if absent else ""
            note += "".join(f"  # {runs.describe_choice(name, c)}"
                            for name, c in command.choices.items())
            print(runs.describe(command, args.build) + note)
        return 0
    progress = lambda text: print(f"run.py {os.path.basename(spec.path)}: {text}",
                                  file=sys.stderr, flush=True)
    progress(f"{len(commands)} command(s), {args.jobs} at a time, rows to {csv_path}")
    written = runs.run(commands, args.build, out, os.path.basename(spec.csv), spec.columns,
                       args.jobs, progress)
    progress(f"done: {written} row(s) in {csv_path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (specs.SpecError, runs.RunError, ValueError, OSError) as error:
        print(f"run.py: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:  # the binaries, in the same process group, got it too
        print("run.py: interrupted; the rows of finished commands are in the CSV", file=sys.stderr)
        sys.exit(130)
