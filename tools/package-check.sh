#!/usr/bin/env bash
# Builds the Debian packages of build/ (cmake/packaging.cmake), installs them with dpkg -i,
# smoke-runs what they installed, and purges them again:
#   - every installed binary answers --version;
#   - the C example, built out of tree with find_package(fedmf) from /usr, trains against the
#     installed fedmf-coordinator and fedmf-client (tests/integration/c_example_test.sh basic).
# Needs root (dpkg -i) and a release build (tools/run-tests.sh). CI runs it after the tests.
# Usage: tools/package-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) == 0 ]] || { echo "package-check: needs root for dpkg -i" >&2; exit 1; }
WORK="$(mktemp -d)"
PACKAGES=(fedmf-coordinator fedmf-tools libfedmf-mobile-dev "libfedmf-mobile$(sed -nE \
  's/^#define FEDMF_ABI_VERSION ([0-9]+)$/\1/p' client/include/fedmf/fedmf_client.h)")
cleanup() {
  dpkg -P "${PACKAGES[@]}" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

(cd build && cpack -G DEB -B "$WORK/debs" >"$WORK/cpack.log") ||
  { cat "$WORK/cpack.log"; exit 1; }
ls "$WORK"/debs/*.deb
dpkg -i "$WORK"/debs/*.deb
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Package} ${Version} ${Status}\n' "$package"
done
for binary in $(dpkg -L fedmf-coordinator fedmf-tools | grep '^/usr/bin/'); do
  "$binary" --version >/dev/null || { echo "package-check: $binary --version failed" >&2; exit 1; }
done
echo "ok installed binaries answer --version ($(/usr/bin/fedmf-coordinator --version))"
/usr/bin/fedmf-coordinator describe dpmf-rp >"$WORK/describe.log" &&
  grep -q '^  mechanism = ' "$WORK/describe.log" ||
  { echo "package-check: fedmf-coordinator describe dpmf-rp failed" >&2; exit 1; }
for config in /usr/share/fedmf/configs/*/*.textproto; do
  algorithm="$(basename "$(dirname "$config")")"
  /usr/bin/fedmf-coordinator --config="$config" describe "$algorithm" >/dev/null ||
    { echo "package-check: $config" >&2; exit 1; }
done
echo "ok installed options files: $(find /usr/share/fedmf/configs -name '*.textproto' | wc -l)"

cmake -S tests/install/consumer -B "$WORK/consumer" -DCMAKE_BUILD_TYPE=Release >"$WORK/configure.log"
cmake --build "$WORK/consumer" -j "$(nproc)" >"$WORK/build.log" ||
  { tail -40 "$WORK/build.log"; exit 1; }
FEDMF_C_EXAMPLE="$WORK/consumer/c-example-mobile" FEDMF_COORDINATOR=/usr/bin/fedmf-coordinator \
  FEDMF_CLIENT=/usr/bin/fedmf-client tests/integration/c_example_test.sh build basic
echo "PASS package-check"
