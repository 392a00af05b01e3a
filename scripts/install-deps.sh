#!/usr/bin/env bash
# Installs every Debian package nvcre needs to build, test and run. Idempotent: packages already
# present are skipped, and `apt-get update` runs at most once per call.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libcaf-dev                                   # C++ Actor Framework 0.17 (caf_core, caf_io)
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libyaml-cpp-dev libspdlog-dev libfmt-dev libssl-dev zlib1g-dev
  libcli11-dev prometheus-cpp-dev libre2-dev libkainjow-mustache-dev
  libjemalloc-dev                              # the manager's allocator (actors/CMakeLists.txt)
  libzstd-dev                                  # the informer cache packs object text (k8s/packed_text.hpp)
  libgtest-dev libgmock-dev libbenchmark-dev
  kubectl python3 python3-yaml                # python3-yaml: deploy/crds generator check
  python3-kubernetes                           # test/python: the official client against kube-sim
  universal-ctags                              # scripts/check-sizes.sh measures functions with it
  clang-format                                 # scripts/check-format.sh (Debian bookworm: version 14)
  clang libclang-rt-14-dev                     # scripts/fuzz.sh: clang 14 and its libFuzzer, ASan, UBSan
  chromium                                     # headless browser: the HTML report's integration test
  skopeo                                       # scripts/build-image.sh: the image test inspects it
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
# kubectl is not in Debian's archive on every mirror; it is only needed by integration tests,
# so a machine without it still builds and runs the unit and golden suites.
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  rest=()
  for pkg in "${missing[@]}"; do [ "$pkg" = kubectl ] || rest+=("$pkg"); done
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${rest[@]}"
fi
echo "install-deps: done"
