#!/usr/bin/env bash
# Run 185 (session 28): where a Hopper prefill CTA's time goes outside its visit loop, again
# (run 115's instrumentation, bench/micro/cta_profile.patch, rebased and with one more timestamp
# after the consumers' last barrier), on target/device-prof/libblasst.so (fd52ccf + the patch).
# Question: is the skip kernel's extra ~0.55 us between CTAs (run 115: 1.22-1.25 us against
# dense's 0.67, measured from warpgroup 0's thread 0 after its own stores) the other warpgroup
# finishing later, or the CTA's exit and the next one's launch?
# Prediction: mostly the other warpgroup (its last turn and epilogue after warpgroup 0's), which
# the dense kernel's equal warpgroups do not have.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}; mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
timeout 200 python3 bench/micro/profile_ctas.py target/device-prof/libblasst.so > "$OUT/profile.log" 2>&1
echo "profile exit $?" >> "$OUT/profile.log"
cat "$OUT/profile.log"
