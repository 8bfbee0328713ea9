"""The one CSV schema of the experiments: one measurement a row, `<label columns>,metric,value`.

The label columns are the spec's `columns` (e.g. group,dataset,seed); rows are appended as runs
finish, so a rerun adds rows and a summary decides which of repeated measurements counts.
append(path, columns, rows) writes the header when the file is new and refuses a file whose
header differs (a different family's file); read(path) -> list of dicts, in file order.
"""
import csv
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
