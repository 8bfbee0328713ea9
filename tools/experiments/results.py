"""The one CSV schema of the experiments: one measurement a row, `<label columns>,metric,value`.

The label columns are the spec's `columns` (e.g. group,dataset,seed); rows are appended as runs
finish, so a rerun adds rows and a summary decides which of repeated measurements counts.
append(path, columns, rows) writes the header when the file is new and refuses a file whose
header differs (a different family's file); read(path) -> list of dicts, in file order.
best(rows, where, metric, column, highest=False) -> the `column` of the row with the lowest (or
highest) numeric `metric` among the rows whose columns have the values of `where` (a NaN or empty
value never wins; the first row wins a tie), or None when there is none.
"""
import csv
import math
import os


def header(columns):
    return list(columns) + ["metric", "value"]


def append(path, columns, rows):
    expected = header(columns)
    if os.path.exists(path):
        with open(path, newline="") as f:
            found = next(csv.reader(f), [])
        if found != expected:
            raise ValueError(f"{path}: header {','.join(found)} is not {','.join(expected)}")
    else:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerow(expected)
    with open(path, "a", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        for row in rows:
            writer.writerow([row[c] for c in expected])


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def best(rows, where, metric, column, highest=False):
    sign = -1 if highest else 1
    found = None
    for row in rows:
        if row["metric"] != metric or any(row[c] != v for c, v in where.items()):
            continue
        try:
            value = sign * float(row["value"])
        except ValueError:
            continue
        if not math.isnan(value) and (found is None or value < found[0]):
            found = (value, row[column])
    return found and found[1]
