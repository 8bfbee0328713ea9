#!/bin/sh
# A new pair of sessions from fedmf-secagg-vectors passes both checkers of the committed vectors:
# the generator still works, and fedmf's C++ and the independent Python implementation of
# docs/protocol.md agree on fresh random keys and inputs at every run.
# Usage: secagg_vectors_fresh.sh GENERATOR CPP_TEST PYTHON3 CHECKER OUT_JSON
# Exit status 77 (skipped) after the C++ checks when PYTHON3 is missing (the checker itself exits
# 77 without python3-cryptography).
set -eu
generator=$1 cpp_test=$2 python3=$3 checker=$4 out=$5
"$generator" --out="$out"
FEDMF_SECAGG_VECTORS="$out" "$cpp_test" --gtest_brief=1
if ! command -v "$python3" >/dev/null 2>&1; then
  echo "SKIP: no python3 for $checker (apt-get install python3-cryptography)"
  exit 77
fi
exec "$python3" "$checker" "$out"
