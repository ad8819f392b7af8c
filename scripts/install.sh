#!/usr/bin/env bash
# Builds the release library and installs it under a prefix:
#   lib/libblasst.so.X.Y.Z (+ .so.X, .so links), lib/libblasst.a, include/blasst.h,
#   lib/cmake/blasst/blasst{Config,ConfigVersion}.cmake, lib/pkgconfig/blasst.pc
# Usage: scripts/install.sh PREFIX
set -euo pipefail
prefix=${1:?usage: scripts/install.sh PREFIX}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --lib
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
major=${version%%.*}
mkdir -p "$prefix/lib/cmake/blasst" "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 target/release/libblasst.so "$prefix/lib/libblasst.so.$version"
ln -sf "libblasst.so.$version" "$prefix/lib/libblasst.so.$major"
ln -sf "libblasst.so.$major" "$prefix/lib/libblasst.so"
install -m 0644 target/release/libblasst.a "$prefix/lib/libblasst.a"
install -m 0644 include/blasst.h "$prefix/include/blasst.h"
subst() { sed -e "s|@VERSION@|$version|g" -e "s|@MAJOR@|$major|g" -e "s|@PREFIX@|$prefix|g" "$1" > "$2"; }
subst cmake/blasstConfig.cmake.in "$prefix/lib/cmake/blasst/blasstConfig.cmake"
subst cmake/blasstConfigVersion.cmake.in "$prefix/lib/cmake/blasst/blasstConfigVersion.cmake"
subst cmake/blasst.pc.in "$prefix/lib/pkgconfig/blasst.pc"
echo "installed blasst $version under $prefix"
