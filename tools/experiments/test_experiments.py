"""Unit tests of the experiment driver (run by ctest as experiments_driver_python; no binary is run).

The table tests render every spec's tables from its committed CSV and require each to appear
verbatim in the spec's docs/results page: the page's figures came from earlier runs, so this
checks that the summaries reproduce them digit for digit.
"""
import contextlib
import io
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import events  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402
import runs  # noqa: E402
import specs  # noqa: E402
import tables  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
SPECS = sorted(os.path.join(HERE, "specs", f) for f in os.listdir(os.path.join(HERE, "specs"))
               if f.endswith(".toml"))


def write_spec(directory, text):
    path = os.path.join(directory, "spec.toml")
    with open(path, "w") as f:
        f.write(text)
    return path


def fake_central(directory, script):
    """A fedmf-central in directory/build that runs the shell script; the build directory."""
    fake = os.path.join(directory, "build", "tools", "fedmf-central")
    os.makedirs(os.path.dirname(fake))
    with open(fake, "w") as f:
        f.write("#!/bin/sh\n" + script)
    os.chmod(fake, 0o755)
    return os.path.join(directory, "build")


HEADER = """
description = "test"
csv = "out/runs.csv"
columns = ["group", "seed"]
[params]
seeds = [1, 2]
"""
MINIMAL = HEADER + """base = "/data"
file = "{base}/u.data"
[[experiment]]
name = "e"
sweep = { seed = "seeds", model = ["als", "popularity"] }
row = { group = "g-{model}", seed = "{seed}" }
[[experiment.command]]
binary = "fedmf-central"
flags = { data = "ml-100k:{file}", model = "{model}", seed = "{seed}", plain_sum = true }
extract = [{ from = "event=fold_done", metrics = { "{model}_f1" = "f1" } }]
"""


class EventsTest(unittest.TestCase):
    def test_plain_and_quoted_values(self):
        line = ('I1129 12:00:00 sim.cc:10] event=round_aborted round=3 '
                'reason="no \\"quorum\\" here" f1_10=0.25 data=ml-100k:/d/u.data?test=/t empty=')
        self.assertEqual(events.parse(line), {
            "event": "round_aborted", "round": "3", "reason": 'no "quorum" here',
            "f1_10": "0.25", "data": "ml-100k:/d/u.data?test=/t", "empty": ""})

    def test_matching_lines(self):
        lines = ["event=evaluation round=1 f1_10=0.1", "event=round round=2",
                 "event=evaluation round=2 f1_10=0.2", "users=943 items=1682"]
        self.assertEqual([f["f1_10"] for f in events.matching(lines, "event=evaluation")],
                         ["0.1", "0.2"])
        self.assertEqual([f["items"] for f in events.matching(lines, "users")], ["1682"])
        self.assertEqual(events.matching(lines, "event=fold_done"), [])
        self.assertEqual([f["round"] for f in events.matching(lines, "event=evaluation round=2")],
                         ["2"])
        self.assertEqual(events.matching(lines, "event=round f1_10"), [])

    def test_values_over_lines(self):
        found = [{"n": "3", "x": "a"}, {"x": "b"}, {"n": "4", "x": "c"}]
        self.assertEqual(events.value(found, "x"), "c")
        self.assertEqual(events.value(found, "count()"), "3")
        self.assertEqual(events.value(found, "mean(n)"), "3.5")
        self.assertEqual(events.value([], "count()"), "0")
        self.assertEqual(events.value([], "mean(n)"), "")
        with self.assertRaisesRegex(ValueError, r"'sum\(n\)': an event-line key, count\(\)"):
            events.is_aggregate("sum(n)")


class SpecsTest(unittest.TestCase):
    def test_sweep_expands_in_order_with_nested_params(self):
        with tempfile.TemporaryDirectory() as d:
            spec = specs.load(write_spec(d, MINIMAL))
            commands = spec.commands()
        self.assertEqual([(c.row["group"], c.row["seed"]) for c in commands],
                         [("g-als", "1"), ("g-popularity", "1"), ("g-als", "2"),
                          ("g-popularity", "2")])
        self.assertEqual(commands[0].args, ["--data=ml-100k:/data/u.data", "--model=als",
                                            "--seed=1", "--plain_sum"])
        self.assertEqual(commands[1].extracts[0].metrics, {"popularity_f1": "f1"})

    def test_false_drops_a_flag_a_flagset_sets(self):
        text = MINIMAL.replace("[[experiment]]", "[flagsets.f]\nplain_sum = true\nbase = 1\n"
                               "[[experiment]]").replace(
            'binary = "fedmf-central"', 'binary = "fedmf-central"\nuse = ["f"]').replace(
            "plain_sum = true }", "plain_sum = false }")
        with tempfile.TemporaryDirectory() as d:
            args = specs.load(write_spec(d, text)).commands()[0].args
        self.assertEqual(args, ["--base=1", "--data=ml-100k:/data/u.data", "--model=als",
                                "--seed=1"])

    def test_set_overrides_a_list_param(self):
        with tempfile.TemporaryDirectory() as d:
            spec = specs.load(write_spec(d, MINIMAL), ["seeds=3,4,5"])
        self.assertEqual(sorted({c.row["seed"] for c in spec.commands()}), ["3", "4", "5"])

    def test_smoke_replaces_params_and_flagset_flags_but_not_a_commands_own(self):
        text = MINIMAL.replace("[[experiment]]", "[flagsets.f]\nrounds = 100\nmodel = \"x\"\n"
                               "[smoke.params]\nseeds = [7]\n[smoke.flagsets.f]\nrounds = 2\n"
                               "model = \"y\"\n[[experiment]]").replace(
            'binary = "fedmf-central"', 'binary = "fedmf-central"\nuse = ["f"]')
        with tempfile.TemporaryDirectory() as d:
            path = write_spec(d, text)
            full, smoke = specs.load(path).commands(), specs.load(path, smoke=True).commands()
        self.assertEqual(full[0].args[:1], ["--rounds=100"])
        self.assertEqual(sorted({c.row["seed"] for c in smoke}), ["7"])
        # The command's own model flag still wins over the flagset's, as without [smoke].
        self.assertEqual(smoke[0].args, ["--rounds=2", "--model=als", "--data=ml-100k:/data/u.data",
                                         "--seed=7", "--plain_sum"])

    def test_smoke_names_pick_tables_as_set_does(self):
        text = MINIMAL.replace("[[experiment]]", "shapes = [{ name = \"big\", n = 1000 }]\n"
                               "tiny = [{ name = \"tiny\", n = 10 }]\n"
                               "[smoke.params]\nshapes = [\"tiny\"]\n[[experiment]]").replace(
            'model = ["als", "popularity"]', 'shape = "shapes"').replace(
            '"g-{model}"', '"g-{shape[n]}"').replace('model = "{model}", ', "").replace(
            '"{model}_f1"', '"f1"')
        with tempfile.TemporaryDirectory() as d:
            path = write_spec(d, text)
            groups = {c.row["group"] for c in specs.load(path, smoke=True).commands()}
        self.assertEqual(groups, {"g-10"})

    def test_smoke_errors_name_the_key(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_spec(d, MINIMAL)
            with self.assertRaisesRegex(specs.SpecError, r"no \[smoke\] table"):
                specs.load(path, smoke=True)
        for smoke, fragment in (("[smoke.params]\nseedz = [1]", "smoke.params.seedz: no such"),
                                ("[smoke.flagsets.g]\nrounds = 1", "smoke.flagsets.g: no such"),
                                ("[smoke]\nflags = {}", "unknown key 'flags'")):
            with tempfile.TemporaryDirectory() as d:
                path = write_spec(d, MINIMAL.replace("[[experiment]]", smoke + "\n[[experiment]]"))
                with self.assertRaises(specs.SpecError) as caught:
                    specs.load(path, smoke=True)
                self.assertIn(fragment, str(caught.exception))

    def assert_error(self, text, overrides, *fragments):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(specs.SpecError) as caught:
                specs.load(write_spec(d, text), overrides).commands()
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))

    def test_errors_name_the_key_and_value(self):
        self.assert_error(MINIMAL.replace('name = "e"', 'name = "e"\nswep = 1'), [],
                          "experiment[0]", "unknown key 'swep'")
        self.assert_error(MINIMAL.replace('"{model}"', '"{modle}"'), [],
                          "command[0].flags.model", "'{modle}'", "modle")
        self.assert_error(MINIMAL, ["seed=1"], "--set 'seed=1'", "seeds")
        self.assert_error(MINIMAL.replace('seed = "{seed}" }', 'sed = "{seed}" }'), [],
                          "row names sed, not among columns")
        self.assert_error(MINIMAL.replace("[params]", "[params"), [], "spec.toml")

    def test_choose_names_a_column(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(specs.SpecError, r"choose.lr: lr not among columns"):
                specs.load(write_spec(d, MINIMAL.replace(
                    'row = {', 'choose = { lr = { where = {}, lowest = "f1" } }\nrow = {')))

    def test_unknown_experiment_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            spec = specs.load(write_spec(d, MINIMAL))
        with self.assertRaises(specs.SpecError) as caught:
            spec.commands(["nope"])
        self.assertIn("no experiment nope (it has e)", str(caught.exception))


class RunsTest(unittest.TestCase):
    def test_rows_of_a_log(self):
        with tempfile.TemporaryDirectory() as d:
            command = specs.load(write_spec(d, MINIMAL)).commands()[1]
        lines = ["event=fold_done fold=0 f1=0.1", "event=fold_done fold=1 f1=0.13"]
        self.assertEqual(runs.rows_of(command, lines, "log"),
                         [{"group": "g-popularity", "seed": "1", "metric": "popularity_f1",
                           "value": "0.13"}])
        with self.assertRaises(runs.RunError) as caught:
            runs.rows_of(command, ["event=evaluation f1=1"], "the.log")
        self.assertIn("no f1 in the last event=fold_done line", str(caught.exception))
        self.assertIn("the.log", str(caught.exception))

    @staticmethod
    def command_extracting(extract):
        """MINIMAL's first command with its extract's metrics replaced by `extract`."""
        spec = MINIMAL.replace('metrics = { "{model}_f1" = "f1" } }', extract + " }")
        with tempfile.TemporaryDirectory() as d:
            return specs.load(write_spec(d, spec)).commands()[0]

    def test_mean_over_the_matching_lines(self):
        command = self.command_extracting('metrics = { f1 = "mean(f1)", x = "mean(x)" }')
        lines = ["event=fold_done f1=0.5 x=1", "event=round f1=9", "event=fold_done f1=1.5"]
        self.assertEqual([(r["metric"], r["value"]) for r in runs.rows_of(command, lines, "log")],
                         [("f1", "1"), ("x", "1")])
        with self.assertRaisesRegex(runs.RunError, r"no mean\(f1\) in any event=fold_done line"):
            runs.rows_of(command, ["event=round f1=1"], "log")

    def test_each_matching_line_gives_rows_labelled_from_the_line(self):
        command = self.command_extracting('each = { seed = "fold" }, metrics = { f1 = "f1" }')
        lines = ["event=fold_done fold=1 f1=0.1", "event=round", "event=fold_done fold=2 f1=0.2"]
        self.assertEqual([(r["seed"], r["value"]) for r in runs.rows_of(command, lines, "log")],
                         [("1", "0.1"), ("2", "0.2")])

    def test_by_groups_lines_and_aggregates_each_group(self):
        spec = MINIMAL.replace(
            'extract = [{ from = "event=fold_done", metrics = { "{model}_f1" = "f1" } }]',
            'extract = [{ from = "event=round applied=yes", by = { seed = "phase" }, metrics = '
            '{ rounds = "count()", n = "mean(n)", last = "n" } }, '
            '{ from = "event=round applied=no", metrics = { failed = "count()" } }, '
            '{ from = "event=nothing", optional = true, metrics = { m = "mean(n)" } }]')
        with tempfile.TemporaryDirectory() as d:
            command = specs.load(write_spec(d, spec)).commands()[0]
        lines = ["event=round phase=0 applied=yes n=94", "event=round phase=1 applied=no",
                 "event=round phase=0 applied=yes n=75", "event=round phase=1 applied=yes n=75"]
        self.assertEqual([(r["seed"], r["metric"], r["value"])
                          for r in runs.rows_of(command, lines, "log")],
                         [("0", "rounds", "2"), ("0", "n", "84.5"), ("0", "last", "75"),
                          ("1", "rounds", "1"), ("1", "n", "75"), ("1", "last", "75"),
                          ("1", "failed", "1")])
        with self.assertRaisesRegex(runs.RunError, r"no event=round applied=yes line; see l"):
            runs.rows_of(command, ["event=round applied=no"], "l")

    def test_an_unknown_aggregate_or_each_with_by_is_a_spec_error(self):
        for extract, message in [
                ('metrics = { x = "sum(n)" }', r"metrics: 'sum\(n\)': an event-line key"),
                ('each = { seed = "a" }, by = { seed = "a" }, metrics = { x = "n" }',
                 "each or by, not both")]:
            spec = MINIMAL.replace('metrics = { "{model}_f1" = "f1" }', extract)
            with tempfile.TemporaryDirectory() as d, self.assertRaisesRegex(specs.SpecError,
                                                                            message):
                specs.load(write_spec(d, spec))

    def test_best_picks_the_column_of_the_best_matching_row(self):
        rows = [dict(group=g, lr=lr, seed="1", metric=m, value=v) for g, lr, m, v in [
            ("tune", "0.1", "train_mse", "nan"), ("tune", "0.2", "train_mse", "0.5"),
            ("tune", "0.3", "train_mse", ""), ("tune", "0.4", "train_mse", "0.5"),
            ("tune", "0.7", "train_mse", "0.6"), ("tune", "0.8", "train_mse", "0.6"),
            ("tune", "0.5", "test_mse", "0.1"), ("other", "0.6", "train_mse", "0.1")]]
        self.assertEqual(results.best(rows, {"group": "tune"}, "train_mse", "lr"), "0.2")
        self.assertEqual(results.best(rows, {"group": "tune"}, "train_mse", "lr", True), "0.7")
        self.assertEqual(results.best(rows, {"group": "other"}, "train_mse", "lr"), "0.6")
        self.assertIsNone(results.best(rows, {"group": "none"}, "train_mse", "lr"))

    def test_csv_appends_and_refuses_another_header(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "runs.csv")
            row = {"group": "g", "seed": "1", "metric": "m", "value": "0.5"}
            results.append(path, ["group", "seed"], [row])
            results.append(path, ["group", "seed"], [dict(row, value="0.6")])
            self.assertEqual([r["value"] for r in results.read(path)], ["0.5", "0.6"])
            with self.assertRaises(ValueError):
                results.append(path, ["group", "dataset"], [])


class CommittedSpecsTest(unittest.TestCase):
    def test_every_spec_loads_and_expands(self):
        for path in SPECS:
            with self.subTest(spec=os.path.basename(path)):
                spec = specs.load(path)
                self.assertTrue(spec.commands())
                for command in spec.commands():
                    runs.describe(command, "build")
                with open(path) as f:
                    has_smoke = "\n[smoke" in f.read()
                if has_smoke:
                    self.assertTrue(specs.load(path, smoke=True).commands())

    def test_committed_runs_are_at_the_values_their_spec_chooses(self):
        """Some committed runs of a choosing experiment are at the value it chooses from the
        committed rows (runs at a value a later tuning superseded may remain: the tables count
        only the chosen one)."""
        for path in SPECS:
            spec = specs.load(path)
            choosing = [e["name"] for e in spec.experiments if "choose" in e]
            if not choosing:
                continue
            rows = results.read(os.path.join(ROOT, spec.csv))
            for command in spec.commands(choosing):
                labels = {c: v for c, v in command.row.items() if c not in command.choices}
                found = {r[c] for r in rows if all(r[k] == v for k, v in labels.items())
                         for c in command.choices}
                if found:
                    with self.subTest(spec=os.path.basename(path), row=labels):
                        chosen = runs.resolve(command, rows).row
                        self.assertTrue({chosen[c] for c in command.choices} <= found)

    def test_tables_reproduce_the_pages(self):
        for path in SPECS:
            spec = specs.load(path)
            with open(os.path.join(ROOT, spec.doc)) as f:
                page = f.read()
            rows = results.read(os.path.join(ROOT, spec.csv))
            for name in spec.tables:
                for table in getattr(tables, name)(rows).split("\n\n"):
                    with self.subTest(spec=os.path.basename(path), table=table.splitlines()[0]):
                        self.assertIn(table + "\n", page)


class RunnerTest(unittest.TestCase):
    """runs.run on a fake fedmf-central that prints event lines and logs its arguments."""

    SPEC = HEADER + """[[experiment]]
name = "e"
sweep = { seed = "seeds" }
requires = ["{input}"]
row = { group = "g", seed = "{seed}" }
[[experiment.command]]
binary = "fedmf-central"
creates = "{out}/shared.txt"
flags = { make = "{out}/shared.txt" }
[[experiment.command]]
binary = "fedmf-central"
flags = { seed = "{seed}" }
extract = [{ from = "event=fold_done", metrics = { f1 = "f1" } }]
"""

    def test_points_run_in_order_and_shared_outputs_once(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(fake_central(d, 'echo "$@" >> "$(dirname "$0")/calls"\n'
                                            'case "$1" in --make=*) touch "${1#--make=}" ;; esac\n'
                                            'echo "event=fold_done f1=0.${1#--seed=}"\n'),
                                "tools", "fedmf-central")
            out = os.path.join(d, "out")
            spec = specs.load(write_spec(d, self.SPEC.replace("{input}", fake)),
                              [f"out={out}"])
            messages = []
            written = runs.run(spec.commands(), os.path.join(d, "build"), out, "runs.csv",
                               spec.columns, 2, messages.append)
            with open(os.path.join(d, "build", "tools", "calls")) as f:
                calls = f.read().split()
            rows = results.read(os.path.join(out, "runs.csv"))
        self.assertEqual(written, 2)
        self.assertEqual(sorted((r["seed"], r["value"]) for r in rows), [("1", "0.1"), ("2", "0.2")])
        self.assertEqual(calls.count(f"--make={out}/shared.txt"), 1)
        self.assertEqual(sorted(c for c in calls if c.startswith("--seed")), ["--seed=1", "--seed=2"])
        self.assertEqual(len(messages), 4)

    def test_a_missing_input_skips_the_point(self):
        with tempfile.TemporaryDirectory() as d:
            spec = specs.load(write_spec(d, self.SPEC.replace("{input}", "/nonexistent")))
            messages = []
            written = runs.run(spec.commands(), "/nonexistent-build-unused", d, "runs.csv",
                               spec.columns, 1, messages.append)
        self.assertEqual(written, 0)
        self.assertIn("/nonexistent not found", messages[0])


    SUBSET = HEADER + """[[experiment]]
name = "e"
sweep = { seed = "seeds" }
row = { group = "g", seed = "{seed}" }
[[experiment.command]]
subset = { from = "IN", column = 2, at_most = "{seed}" }
creates = "{out}/logs/items{seed}.data"
[[experiment.command]]
binary = "fedmf-central"
lock = "{out}/lock"
flags = { data = "{out}/logs/items{seed}.data" }
extract = [{ from = "event=fold_done", metrics = { lines = "lines" } }]
"""

    def test_a_subset_keeps_the_lines_and_a_lock_wraps_the_binary(self):
        with tempfile.TemporaryDirectory() as d:
            build = fake_central(d, 'echo "event=fold_done lines=$(wc -l < "${1#--data=}")"\n')
            source = os.path.join(d, "u.data")
            with open(source, "w") as f:
                f.write("1 1 5\n1 2 4\n2 3 1\n")
            out = os.path.join(d, "out")
            spec = specs.load(write_spec(d, self.SUBSET.replace("IN", source)), [f"out={out}"])
            commands = spec.commands()
            runs.run(commands, build, out, "runs.csv", spec.columns, 1, lambda _: None)
            rows = results.read(os.path.join(out, "runs.csv"))
            with open(os.path.join(out, "logs", "items2.data")) as f:
                kept = f.read()
        self.assertEqual([(r["seed"], r["value"]) for r in rows], [("1", "1"), ("2", "2")])
        self.assertEqual(kept, "1 1 5\n1 2 4\n")
        self.assertEqual(runs.describe(commands[0], "/b"),
                         f"awk '$2 <= 1' {source} > {out}/logs/items1.data")
        self.assertEqual(runs.describe(commands[1], "/b").split()[:5],
                         ["flock", f"{out}/lock", "nice", "-n", "10"])

    def test_a_subset_has_creates_and_nothing_else(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(specs.SpecError, r"a subset has `creates` and no binary"):
                specs.load(write_spec(d, self.SUBSET.replace(
                    'creates = "{out}/logs/items{seed}.data"',
                    'creates = "x"\nbinary = "fedmf-central"')))

    CHOOSING = """
description = "test"
csv = "out/runs.csv"
columns = ["group", "lr"]
[[experiment]]
name = "tune"
sweep = { lr = ["0.1", "0.2", "0.3"] }
row = { group = "tune", lr = "{lr}" }
[[experiment.command]]
binary = "fedmf-central"
flags = { lr = "{lr}" }
extract = [{ from = "event=fold_done", metrics = { loss = "loss" } }]
[[experiment]]
name = "final"
sweep = { seed = [1, 2] }
choose = { lr = { where = { group = "tune" }, lowest = "loss" } }
row = { group = "final-{seed}", lr = "{lr}" }
[[experiment.command]]
binary = "fedmf-central"
flags = { lr = "{lr}", seed = "{seed}" }
extract = [{ from = "event=fold_done", metrics = { loss = "loss" } }]
"""

    def fake_loss_binary(self, directory):
        """A fedmf-central whose loss is |lr - 0.2| + 1, which logs its arguments."""
        return fake_central(directory, 'echo "$@" >> "$(dirname "$0")/calls"\nsleep 0.1\n'
                            'lr="${1#--lr=}"\n'
                            'echo "event=fold_done loss=$(echo "$lr" | awk \'{ d = $1 - 0.2; '
                            'print 1 + (d < 0 ? -d : d) }\')"\n')

    def test_a_choosing_experiment_runs_after_the_others_with_their_best_value(self):
        with tempfile.TemporaryDirectory() as d:
            build = self.fake_loss_binary(d)
            out = os.path.join(d, "out")
            spec = specs.load(write_spec(d, self.CHOOSING), [f"out={out}"])
            runs.run(spec.commands(), build, out, "runs.csv", spec.columns, 3, lambda _: None)
            with open(os.path.join(build, "tools", "calls")) as f:
                calls = f.read().splitlines()
            rows = results.read(os.path.join(out, "runs.csv"))
        self.assertEqual(sorted(calls[:3]), ["--lr=0.1", "--lr=0.2", "--lr=0.3"])
        self.assertEqual(sorted(calls[3:]), ["--lr=0.2 --seed=1", "--lr=0.2 --seed=2"])
        self.assertEqual(sorted((r["group"], r["lr"]) for r in rows if r["group"] != "tune"),
                         [("final-1", "0.2"), ("final-2", "0.2")])

    TABLES = CHOOSING.replace('columns = ["group", "lr"]', 'columns = ["group", "lr"]\n'
                              '[params]\ngrid = [{ name = "0.1", flags = { x = "a" } }, '
                              '{ name = "0.2", flags = { x = "{seed}b" } }]').replace(
        'lowest = "loss" }', 'highest = "loss", tables = "grid" }')

    def test_a_chosen_table_adds_its_flags(self):
        with tempfile.TemporaryDirectory() as d:
            command = specs.load(write_spec(d, self.TABLES)).commands(["final"])[1]
        rows = [dict(group="tune", lr=lr, metric="loss", value=v)
                for lr, v in (("0.1", "1.1"), ("0.2", "1.3"), ("0.3", "1.2"))]
        with self.assertRaisesRegex(runs.RunError, r"the chosen lr '0.3' is no table of grid"):
            runs.resolve(command, rows[2:])
        self.assertEqual(runs.resolve(command, rows[:2]).args, ["--lr=0.2", "--seed=2", "--x=2b"])

    def test_a_choice_names_a_list_of_named_tables(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(specs.SpecError, r"tables = 'seeds' names no list"):
                specs.load(write_spec(d, self.TABLES.replace('tables = "grid"', 'tables = "seeds"')
                                      .replace("[params]", "[params]\nseeds = [1]")))
            with self.assertRaisesRegex(specs.SpecError, r"give one of lowest and highest"):
                specs.load(write_spec(d, self.TABLES.replace('highest =',
                                                             'lowest = "a", highest =')))

    def test_choosing_without_the_rows_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            build = self.fake_loss_binary(d)
            spec = specs.load(write_spec(d, self.CHOOSING))
            with self.assertRaisesRegex(runs.RunError,
                                        r"final: no row with loss where group=tune in the CSV"):
                runs.run(spec.commands(["final"]), build, d, "runs.csv", spec.columns, 1,
                         lambda _: None)


class NetworkedTest(unittest.TestCase):
    """runs.run on a fake fedmf-coordinator and fedmf-client (shell scripts)."""

    SPEC = HEADER + """[[experiment]]
name = "e"
sweep = { seed = [1], parties = [2] }
row = { group = "g", seed = "{seed}" }
[[experiment.command]]
binary = "fedmf-coordinator"
flags = { dir = "DIR", mode = "MODE" }
parties = { binary = "fedmf-client", count = "{parties}", flags = { coordinator = "127.0.0.1:{port}", party = "p{party}/2" } }
extract = [{ from = "event=training_end", metrics = { mse = "test_mse" } }]
"""
    COORDINATOR = """#!/bin/sh
dir="${1#--dir=}"
[ "$2" = --mode=fail ] && exit 3
echo "event=new_run z=2.5"
echo $$ > "$dir/pid"
[ "$2" = --mode=hang ] && exec sleep 60
echo "ts=1 event=listening address=127.0.0.1:0 port=4321"
for i in $(seq 100); do [ -e "$dir/p1" ] && [ -e "$dir/p0" ] && break; sleep 0.05; done
echo "event=training_end test_mse=$(ls "$dir"/p? | wc -l)"
[ "$2" = --mode=abort ] && exit 4
exit 0
"""
    CLIENT = """#!/bin/sh
echo "$@" > "DIR/$(echo "$2" | sed 's/--party=//; s|/2||')"
echo party "$@"
"""

    def setup(self, directory, mode, spec_text=None):
        build = os.path.join(directory, "build")
        for path, text in (("server/fedmf-coordinator", self.COORDINATOR),
                           ("client/fedmf-client", self.CLIENT.replace("DIR", directory))):
            os.makedirs(os.path.dirname(os.path.join(build, path)), exist_ok=True)
            with open(os.path.join(build, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(build, path), 0o755)
        text = (spec_text or self.SPEC).replace("DIR", directory).replace("MODE", mode)
        return build, specs.load(write_spec(directory, text))

    def test_the_parties_join_the_coordinators_port(self):
        with tempfile.TemporaryDirectory() as d:
            build, spec = self.setup(d, "run")
            out = os.path.join(d, "out")
            runs.run(spec.commands(), build, out, "runs.csv", spec.columns, 1, lambda _: None)
            rows = results.read(os.path.join(out, "runs.csv"))
            with open(os.path.join(d, "p1")) as f:
                args = f.read().split()
            logs = sorted(os.listdir(os.path.join(out, "logs")))
        self.assertEqual([(r["metric"], r["value"]) for r in rows], [("mse", "2")])
        self.assertEqual(args, ["--coordinator=127.0.0.1:4321", "--party=p1/2"])
        self.assertEqual(logs, ["e-1-2-0-party-0.log", "e-1-2-0-party-1.log", "e-1-2-0.log"])

    def test_timed_parties_logs_are_read_after_the_coordinators(self):
        spec_text = self.SPEC.replace('count = "{parties}",', 'count = "{parties}", time = true,'
                                      ).replace('metrics = { mse = "test_mse" } }',
                                                'metrics = { mse = "test_mse" } }, { from = '
                                                '"event=time", metrics = { cpu = "mean(user_s)" } }')
        with tempfile.TemporaryDirectory() as d:
            build, spec = self.setup(d, "run", spec_text)
            out = os.path.join(d, "out")
            runs.run(spec.commands(), build, out, "runs.csv", spec.columns, 1, lambda _: None)
            rows = results.read(os.path.join(out, "runs.csv"))
        self.assertEqual([r["metric"] for r in rows], ["mse", "cpu"])
        self.assertGreaterEqual(float(rows[1]["value"]), 0)

    def test_a_status_metric_records_a_failed_run_and_parties_see_its_log(self):
        spec_text = self.SPEC.replace('party = "p{party}/2" }', 'party = "p{party}/2", '
                                      'coordinator_log = "{log}" }').replace(
            'extract = [', 'status_metric = "exit_status"\nextract = [')
        with tempfile.TemporaryDirectory() as d:
            build, spec = self.setup(d, "abort", spec_text)
            runs.run(spec.commands(), build, d, "runs.csv", spec.columns, 1, lambda _: None)
            rows = results.read(os.path.join(d, "runs.csv"))
            with open(os.path.join(d, "p0")) as f:
                args = f.read().split()
        self.assertEqual([(r["metric"], r["value"]) for r in rows],
                         [("mse", "2"), ("exit_status", "4")])
        self.assertEqual(args[2], f"--coordinator_log={os.path.join(d, 'logs', 'e-1-2-0.log')}")

    def test_a_failed_coordinator_names_its_log(self):
        with tempfile.TemporaryDirectory() as d:
            build, spec = self.setup(d, "fail")
            with self.assertRaisesRegex(runs.RunError, r"exited before a event=listening line"):
                runs.run(spec.commands(), build, d, "runs.csv", spec.columns, 1, lambda _: None)

    def test_a_coordinator_that_never_listens_is_stopped_under_time_too(self):
        with tempfile.TemporaryDirectory() as d:
            build, spec = self.setup(d, "hang", self.SPEC.replace(
                'binary = "fedmf-coordinator"', 'binary = "fedmf-coordinator"\ntime = true'))
            listen, runs.LISTEN_TIMEOUT_S = runs.LISTEN_TIMEOUT_S, 1
            self.addCleanup(setattr, runs, "LISTEN_TIMEOUT_S", listen)
            with self.assertRaisesRegex(runs.RunError, r"no event=listening line within 1 s"):
                runs.run(spec.commands(), build, d, "runs.csv", spec.columns, 1, lambda _: None)
            with open(os.path.join(d, "pid")) as f:
                pid = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)

    def test_until_stops_the_coordinator_at_its_line(self):
        spec_text = self.SPEC.replace(
            'parties = {', 'until = "event=new_run"\n# parties = {').replace(
            '"event=training_end", metrics = { mse = "test_mse" }',
            '"event=new_run", metrics = { z = "z" }')
        with tempfile.TemporaryDirectory() as d:
            build, spec = self.setup(d, "hang", spec_text)
            started = time.monotonic()
            runs.run(spec.commands(), build, d, "runs.csv", spec.columns, 1, lambda _: None)
            rows = results.read(os.path.join(d, "runs.csv"))
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual([(r["metric"], r["value"]) for r in rows], [("z", "2.5")])


class RunTest(unittest.TestCase):
    def test_dry_run_prints_the_commands(self):
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(out):
            run.main([write_spec(d, MINIMAL), "--set", "seeds=7", "--dry-run", "--build", "/b"])
        self.assertEqual(out.getvalue().splitlines(), [
            f"nice -n 10 /b/tools/fedmf-central --data=ml-100k:/data/u.data --model={m} "
            "--seed=7 --plain_sum" for m in ("als", "popularity")])

    def test_dry_run_says_what_a_placeholder_will_be(self):
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(out):
            run.main([write_spec(d, RunnerTest.CHOOSING), "--only", "final", "--dry-run",
                      "--build", "/b"])
        self.assertEqual(out.getvalue().splitlines()[0],
                         "nice -n 10 /b/tools/fedmf-central '--lr={lr}' --seed=1"
                         "  # {lr}: lowest loss where group=tune")


if __name__ == "__main__":
    unittest.main()
