#!/usr/bin/env bash
# Run 298 (prepared in session 57, run in session 58 from bench/runs/session58/run298.sh). Where today's skipped
# prefill visit spends its ~0.57 of a kept visit's time, now that run 296 showed the K/V copies
# are not the limit. Nsight Compute (bench/runs/common.sh ncu_kernel: speed of light, warp states,
# per-instruction stall samples summarised by bench/ncu_stalls.py) over the d = 128 skip kernel
# on bench/profile_one.py's `prefill` input (8K non-causal, ~90 % skipped), with the P V overlap
# (the default) and without it (BLASST_PREFILL_PV_OVERLAP=0, a copy of the library: one process
# keeps the first kernel it builds per variant). The last such profile is session 5's (a kernel
# ~20 % slower). What to read: the stall reasons on the skipped path's instructions (the
# wgmma wait, the FMNMX trees, SHFL, VOTE, the turn's BAR), and issued instructions per visit
# (sm__inst_executed over the ~90 % call's visits): latency (long_scoreboard/wait/barrier on a
# short chain) against issue (math pipe throttle, not selected).
# Then, if target/device-prof is there, the cycles per visit phase (bench/micro/visit_profile.patch,
# rewritten in session 57 for the overlapped kernel, with bench/micro/profile_visits.py), overlap
# on and off.
# Build: scripts/build-device.sh; then for the profile: git apply bench/micro/visit_profile.patch,
# cargo build --release, mkdir -p target/device-prof, cp target/release/libblasst.so
# target/device-prof/, git checkout kernels/prefill_sm90.cu; carry target/device and
# target/device-prof. ~5 minutes.
# First, 20 seconds: bench/micro/wgmma_chain.cu's MODE 3 (session 57), a warpgroup's chain of 8
# m64n128k16 wgmmas with both operands in shared memory, the Q K^T of today's 128-key visit, alone
# and with both warpgroups issuing: if both together are near 100 % tensor busy (~1024 cycles per
# iteration), a skipped visit's ~1600-1700 cycles are the chain around S, as session 6 found for
# the 64-key visits; if not, S itself is slow.
set -uo pipefail
source bench/runs/common.sh
run_start
step "wgmma chains"
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a bench/micro/wgmma_chain.cu -o /tmp/wgmma_chain > "$OUT/wgmma-chain.log" 2>&1 \
  && timeout 60 /tmp/wgmma_chain >> "$OUT/wgmma-chain.log" 2>&1
echo "wgmma chain exit $?" | tee -a "$LOG"
mkdir -p target/device-off && cp target/device/libblasst.so target/device-off/
BLASST_PREFILL_PV_OVERLAP=0 timeout 120 target/device/blasst precompile > /dev/null 2>&1
ncu_kernel skip90-on "prefill90_bf16_d128_skip" 1 prefill
BLASST_PREFILL_PV_OVERLAP=0 ncu_kernel skip90-off "prefill90_bf16_d128_skip" 1 prefill target/device-off/libblasst.so
ncu_kernel dense-on "prefill90_bf16_d128_dense" 1 prefill
if [ -f target/device-prof/libblasst.so ]; then
  mkdir -p target/device-prof-off && cp target/device-prof/libblasst.so target/device-prof-off/
  step "visit profile, overlap on"
  timeout 120 python3 bench/micro/profile_visits.py target/device-prof/libblasst.so > "$OUT/visits-on.log" 2>&1
  echo "profile exit $?" | tee -a "$LOG"
  step "visit profile, overlap off"
  BLASST_PREFILL_PV_OVERLAP=0 timeout 120 python3 bench/micro/profile_visits.py target/device-prof-off/libblasst.so > "$OUT/visits-off.log" 2>&1
  echo "profile exit $?" | tee -a "$LOG"
fi
# (ncu_kernel writes three files per kernel: more than the 8 that come back.)
pack_out run298
