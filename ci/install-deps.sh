#!/usr/bin/env bash
# Installs konform's build and test dependencies from Debian's packages when
# any is missing. Safe to run again: with everything present it only checks.
set -euo pipefail

packages=(
  libdnnl-dev libxnnpack-dev libpthreadpool-dev  # the peers of adapters/ (docs/peers.md)
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
  librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev libboost-dev
  nlohmann-json3-dev libhwy-dev libsleef-dev libmpfr-dev libgmp-dev ccache
  python3 python3-jsonschema clang-format-14
  libopenblas-dev libblis-dev
  chromium-headless-shell
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
