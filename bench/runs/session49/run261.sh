#!/usr/bin/env bash
# Run 261 (session 49): the row-tile warps decode kernel (speculative decoding, 17-64 packed rows
# at d = 128), whose dense calls read the cache at 85-87 % of copy bandwidth (run 258; one-token
# calls 98-102 %).
# Hypothesis: its dense producer copied V with its own K, so each K copy waited for the V slot's
# free, one iteration later than K's: K ran 2 tiles ahead of use (the one-token kernel 3). The
# patch (target/device) copies V a tile behind K, as the skip build always did.
# Prediction: dense +3-8 % at 4 x 32K (4 tokens x GQA 8) and 8 tokens x GQA 4; skip within 1 %.
# 1. A/B target/device-base (the tree before) against target/device: bench/ab_decode.py
#    (8 tokens x GQA 4, dense and Skip-Softmax, contiguous and 64-key pages) and
#    bench/micro/paged_layout.py (4 tokens x GQA 8, contiguous, 16- and 64-key pages).
# 2. The GPU tests that run the warps kernel at d = 128 (dense, bit identity, calibration sweep,
#    tile by tile, the latter with the delayed producer too) and memcheck over its warps cases.
# 3. Where the time goes (target/device): torch.profiler per-kernel times (decode kernel, split
#    merge) at default plans and at other split counts (BLASST_DECODE_UNITS), a device copy, and
#    Nsight Compute on the warps kernel (bench/profile_one.py decode-wide).
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile_ab  # (common.sh since the session's review: the same commands)
base=target/device-base/libblasst.so lib=target/device/libblasst.so
step "A/B ab_decode 8 tokens x GQA 4"
timeout 150 python3 bench/ab_decode.py $base $lib --tokens 8 --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/ab-decode.log" 2>&1
echo "ab decode exit $?" | tee -a "$LOG"
grep -E "dense|skip" "$OUT/ab-decode.log" | cut -c1-200 | head -30
LAYOUT_TIMEOUT=120 paged_layout spec4 $base $lib --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072 --size 16x32768 --pages 16,64
tail -20 "$OUT/spec4-paged-layout.log"
step "gpu tests at d = 128 (warps kernel: dense, bit identity, sweep, tile by tile)"
BLASST_TEST_HEAD_DIMS=128 timeout 200 target/device/gpu_tests --test-threads=1 dense_matches_cpu skip_kernel_that_skips_nothing \
  calibration_sweep skip_decisions_match_the_cpu_tile > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "^test |test result" "$OUT/gpu-tests.log" | tee -a "$LOG"
BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000 timeout 100 target/device/gpu_tests --test-threads=1 \
  skip_decisions_match_the_cpu_tile_by_tile > "$OUT/delay.log" 2>&1
echo "delayed producer exit $?" | tee -a "$LOG"
BLASST_TEST_CASES=8,10,12,13 BLASST_TEST_HEAD_DIMS=128 MEMCHECK_TIMEOUT=100 memcheck skip_decisions_match_the_cpu_tile_by_tile
prof() {  # prof NAME [ENV=VALUE ...] -- ARGS...
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  step "profile $name: ${envs[*]} $*"
  env "${envs[@]}" timeout 60 python3 bench/micro/profile_decode_kernels.py $lib "$@" >> "$OUT/prof.log" 2>&1
  echo "profile $name exit $?" | tee -a "$LOG"
}
step "device copy"
python3 - >> "$OUT/prof.log" 2>&1 <<'PY'
import torch
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(20): y.copy_(x)
e.record(); torch.cuda.synchronize()
t = s.elapsed_time(e) / 20 / 1e3
print(f"copy 1 GiB: {t * 1e6:.1f} us, {2 * x.numel() / t / 1e9:.0f} GB/s (read + write), {x.numel() / t / 1e9:.0f} GB/s read")
PY
prof one-token -- --size 1x131072 --size 16x32768
prof spec8 -- --tokens 8 --size 4x32768 --size 1x131072 --size 16x16384
prof spec4 -- --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072 --size 16x32768
for u in 132 396 528; do
  prof spec4-units$u BLASST_DECODE_UNITS=$u -- --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072
done
grep -v "^\s*$" "$OUT/prof.log" | head -120
# Nsight Compute on the warps kernel, 4 x 32K, 4 tokens x 32/4 heads (bench/profile_one.py
# decode-wide: dense, then ~70 % skipped).
NCU_TIMEOUT=120 ncu_kernel warps decode90w 4 decode-wide  # (dense twice, then Skip-Softmax twice)
