"""Event lines: the `key=value` lines the fedmf binaries print.

parse(line) -> dict of the line's fields in order; a value is a run of non-blank characters or a
double-quoted string (`reason="no quorum"`, with \\" and \\\\ escapes), returned without quotes.
Text that is not key=value (a log prefix such as a timestamp) is skipped.
matching(lines, selector) -> the fields of every line that matches selector, in order: "KEY"
(the line has KEY) or "KEY=VALUE" (KEY has that value).
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
    key, _, wanted = selector.partition("=")
    out = []
    for line in lines:
        fields = parse(line)
        if key in fields and (not wanted or fields[key] == wanted):
            out.append(fields)
    return out
