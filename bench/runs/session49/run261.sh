#!/usr/bin/env bash
# Run 261 (session 49): where a speculative-decode call's time goes (the row-tile warps decode
# kernel, 17-64 packed rows at d = 128, which reads the cache at 85-87 % of copy bandwidth in
# run 258 against 98-102 % for one-token calls): torch.profiler per-kernel times (the decode
# kernel, the split merge) of dense calls, default plans and other split counts
# (BLASST_DECODE_UNITS), with one-token calls and a device copy for reference.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}
mkdir -p "$OUT"
source bench/runs/common.sh
precompile
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
lib=target/device/libblasst.so
prof() {  # prof NAME [ENV=VALUE ...] -- ARGS...
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  step "profile $name: ${envs[*]} $*"
  env "${envs[@]}" timeout 120 python3 bench/micro/profile_decode_kernels.py $lib "$@" >> "$OUT/prof.log" 2>&1
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
prof one-token -- --size 1x131072 --size 16x32768 --size 64x8192
prof spec8 -- --tokens 8 --size 4x32768 --size 1x131072 --size 16x16384
prof spec4 -- --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072 --size 16x32768
for u in 66 132 396 528; do
  prof spec8-units$u BLASST_DECODE_UNITS=$u -- --tokens 8 --size 4x32768 --size 1x131072
  prof spec4-units$u BLASST_DECODE_UNITS=$u -- --tokens 4 --heads 32/4 --size 4x32768 --size 1x131072
done
cat "$OUT/prof.log" | grep -v "^\s*$" | head -150
# Nsight Compute on the warps kernel, 4 x 32K, 4 tokens x 32/4 heads (bench/profile_one.py
# decode-wide: dense, then ~70 % skipped): speed of light, warp states, memory, stall samples.
ncu_kernel warps decode90w 4 decode-wide  # (dense twice, then Skip-Softmax twice)
