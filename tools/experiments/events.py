"""Event lines: the `key=value` lines the fedmf binaries print.

parse(line) -> dict of the line's fields in order; a value is a run of non-blank characters or a
double-quoted string (`reason="no quorum"`, with \\" and \\\\ escapes), returned without quotes.
Text that is not key=value (a log prefix such as a timestamp) is skipped.
matching(lines, selector) -> the fields of every line that matches selector, in order: conditions
separated by blanks, each "KEY" (the line has KEY) or "KEY=VALUE" (KEY has that value), all of
which the line meets ("event=round applied=yes").
value(lines_fields, key) -> KEY's value over matched lines (the fields matching() returns): the
last line's, or for "count()" how many there are and for "mean(KEY)" the mean of KEY over the
lines that have it; "" when there is none. is_aggregate(key) says whether key is such a function.
"""
import re

_FIELD = re.compile(r'([A-Za-z_][A-Za-z0-9_.@-]*)=("(?:[^"\\]|\\.)*"|\S*)')


def parse(line):
    fields = {}
    for key, value in _FIELD.findall(line):
        if value.startswith('"'):
            value = re.sub(r'\\(.)', r'\1', value[1:-1])
        fields[key] = value
    return fields


def matching(lines, selector):
    conditions = [c.partition("=") for c in selector.split()]
    out = []
    for line in lines:
        fields = parse(line)
        if all(key in fields and (not has_value or fields[key] == wanted)
               for key, has_value, wanted in conditions):
            out.append(fields)
    return out


_AGGREGATE = re.compile(r"count\(\)|mean\(([A-Za-z_][A-Za-z0-9_.@-]*)\)")


def is_aggregate(key):
    """True for count() and mean(KEY); a ValueError for another key with a parenthesis."""
    if _AGGREGATE.fullmatch(key):
        return True
    if "(" in key or ")" in key:
        raise ValueError(f"{key!r}: an event-line key, count() or mean(KEY)")
    return False


def value(found, key):
    if key == "count()":
        return str(len(found))
    if is_aggregate(key):
        name = _AGGREGATE.fullmatch(key).group(1)
        numbers = [float(f[name]) for f in found if f.get(name, "") != ""]
        return f"{sum(numbers) / len(numbers):.10g}" if numbers else ""
    return found[-1].get(key, "") if found else ""
