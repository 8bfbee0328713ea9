#!/usr/bin/env bash
# Every fedmf binary answers --help and --version as scripts and packagers expect: exit status 0,
# output on stdout only; --help groups its flags under files that exist in the repository, named
# relative to it (never the path of the machine it was built on); --version prints
# "fedmf VERSION (commit HASH)".
# Usage: cli_usage_test.sh SOURCE_DIR VERSION BINARY...
set -euo pipefail
SOURCE="$1"
VERSION="$2"
shift 2
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL $*" >&2; exit 1; }

for binary in "$@"; do
  name="$(basename "$binary")"
  for flag in --help --helpfull --version; do
    rc=0
    "$binary" "$flag" >"$WORK/out" 2>"$WORK/err" || rc=$?
    ((rc == 0)) || fail "$name $flag exited $rc"
    [[ -s "$WORK/out" ]] || fail "$name $flag printed nothing on stdout"
    [[ ! -s "$WORK/err" ]] || fail "$name $flag wrote to stderr: $(head -c 300 "$WORK/err")"
  done
  "$binary" --version >"$WORK/out"
  grep -Eqx "fedmf $VERSION \\(commit ([0-9a-f]{7,}(-dirty)?|unknown)\\)" "$WORK/out" ||
    fail "$name --version: $(cat "$WORK/out")"
  "$binary" --help >"$WORK/out"
  files="$(sed -nE 's/^ *Flags from (.*):$/\1/p' "$WORK/out")"
  [[ -n "$files" ]] || fail "$name --help names no flag file"
  while read -r file; do
    [[ -f "$SOURCE/$file" ]] || fail "$name --help: flags from '$file', not a repository file"
  done <<<"$files"
  echo "ok $name"
done
echo "PASS cli usage"
