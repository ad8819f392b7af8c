#!/usr/bin/env bash
# Run 199 (session 31): the portable decode kernel's depth now keeps two CTAs per SM where the
# shared memory allows (an A100: 4 stages at d = 64, 2 at d = 128, where it ran 5 and 3 with one
# CTA per SM). On the H200, emulating an A100's 164 KB per SM with BLASST_SMEM_PER_SM=167936 (new
# diagnostic switch) and the portable kernels: the GPU tests (but the occupancy test, whose
# driver count sees the H200's real shared memory), then interleaving is impossible across the
# once-read switches, so one process per configuration: the old A100 depth (BLASST_DECODE_STAGES
# = 5 at d = 64, 3 at d = 128: the plan then counts one CTA per SM) against the new default.
# Last, the occupancy test with the default kernels (no emulation).
source bench/runs/common.sh
precompile
A100="BLASST_SMEM_PER_SM=167936 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"
step "gpu tests, A100 emulation ($A100)"
env $A100 timeout 200 target/device/gpu_tests --test-threads=1 --skip decode_plan_counts > "$OUT/gpu-tests-a100.log" 2>&1
echo "gpu tests (A100 emulation) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-a100.log" | head -5 | tee -a "$LOG"
for cfg in "--d64 5" "--d64 -" "--d128 3" "--d128 -"; do
  set -- $cfg
  st=$2
  extra=""
  [ "$st" != "-" ] && extra="BLASST_DECODE_STAGES=$st"
  step "A100 emulation, $1, stages $st"
  echo "===== A100 emulation $1 stages $st" >> "$OUT/ab.log"
  env $A100 $extra PYTHONUNBUFFERED=1 timeout 90 python3 bench/ab_decode.py target/device/libblasst.so \
    --size 1x131072 --size 16x32768 --size 64x8192 $1 >> "$OUT/ab.log" 2>&1
done
step "gpu tests (default kernels): occupancy"
timeout 60 target/device/gpu_tests --test-threads=1 decode_plan_counts > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
step done
