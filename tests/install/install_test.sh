#!/usr/bin/env bash
# `cmake --install` gives an app developer what they build against, checked from outside the
# build: the installed tree's files (the library's SONAME, header, pkg-config files, CMake
# package); a C program built with pkg-config on the shared and on the static library; the C
# example built out of tree with find_package(fedmf) on each, then trained against a coordinator
# (c_example_test.sh basic) with each build.
# Usage: install_test.sh SOURCE_DIR BUILD_DIR VERSION ABI_VERSION
set -euo pipefail
SOURCE="$1"
BUILD="$2"
VERSION="$3"
ABI="$4"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
fail() { echo "FAIL $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
for file in bin/fedmf-coordinator bin/fedmf-client include/fedmf/fedmf_client.h \
    lib/libfedmf_mobile.so "lib/libfedmf_mobile.so.$ABI" lib/libfedmf_mobile.a \
    lib/pkgconfig/fedmf-mobile.pc lib/pkgconfig/fedmf-mobile-static.pc \
    lib/cmake/fedmf/fedmfConfig.cmake lib/cmake/fedmf/fedmfConfigVersion.cmake; do
  [[ -e "$PREFIX/$file" ]] || fail "not installed: $file"
done
soname="$(objdump -p "$PREFIX/lib/libfedmf_mobile.so" | awk '$1 == "SONAME" {print $2}')"
[[ "$soname" == "libfedmf_mobile.so.$ABI" ]] || fail "SONAME '$soname', expected libfedmf_mobile.so.$ABI"
echo "ok installed tree, SONAME $soname"

# pkg-config, shared and static.
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
cc -std=c11 -Wall -Werror -o "$WORK/version-shared" "$SOURCE/tests/install/consumer/version.c" \
  $(pkg-config --cflags --libs fedmf-mobile)
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$WORK/version-static" "$SOURCE/tests/install/consumer/version.c" \
  $(pkg-config --cflags --libs fedmf-mobile-static)
LD_LIBRARY_PATH="$PREFIX/lib" "$WORK/version-shared" | grep -q "^fedmf_version=$VERSION abi=$ABI " ||
  fail "pkg-config shared consumer"
"$WORK/version-static" | grep -q "^fedmf_version=$VERSION abi=$ABI " || fail "pkg-config static consumer"
if ldd "$WORK/version-static" | grep -q libfedmf_mobile; then fail "static consumer loads the .so"; fi
echo "ok pkg-config consumers (shared, static)"

# find_package(fedmf): the C example out of tree.
cmake -S "$SOURCE/tests/install/consumer" -B "$WORK/consumer" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_BUILD_TYPE=Release >"$WORK/consumer-configure.log" 2>&1 ||
  { cat "$WORK/consumer-configure.log"; fail "consumer configure"; }
cmake --build "$WORK/consumer" -j "$(nproc)" >"$WORK/consumer-build.log" 2>&1 ||
  { tail -40 "$WORK/consumer-build.log"; fail "consumer build"; }
for variant in mobile mobile_static; do
  FEDMF_C_EXAMPLE="$WORK/consumer/c-example-$variant" \
    "$SOURCE/tests/integration/c_example_test.sh" "$BUILD" basic >"$WORK/run-$variant.log" 2>&1 ||
    { tail -30 "$WORK/run-$variant.log"; fail "the out-of-tree C example ($variant) did not train"; }
  echo "ok out-of-tree C example on fedmf::$variant trained"
done
echo "PASS install"
