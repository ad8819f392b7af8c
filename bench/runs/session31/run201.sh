#!/usr/bin/env bash
# Run 201 (session 31): the portable prefill kernel's compact layout (64-row CTAs, one V buffer:
# 48 KB at d = 128, nvrtc::prefill_compact), which GPUs of 100 KB per SM now run at d = 128 (two
# CTAs per SM instead of one). Its usual layout's instructions are 83fc5fc's (nvdisasm, all 72
# portable prefill variants for sm_80 and sm_90a). Here: the GPU tests on the H200 emulating a
# 100 KB GPU with the portable kernels, head dims 64 and 128 (as run 200, now with the compact
# prefill at d = 128), then the portable prefill's speed in both layouts on the H200 (one
# process each, `blasst bench` with the mma switch; both layouts run 8 warps per SM there).
# (Rewritten after the run to call common.sh's emulated_gpu_tests: the same command.)
source bench/runs/common.sh
precompile
emulated_gpu_tests 102400 64,128 100kb
for emu in "BLASST_SMEM_PER_SM=233472" "BLASST_SMEM_PER_SM=102400"; do
  for th in 0 0.001; do
    step "blasst bench, portable prefill, $emu, threshold $th"
    echo "===== $emu threshold $th" >> "$OUT/bench.log"
    env $emu BLASST_PREFILL_KERNEL=mma timeout 40 target/device/blasst bench --device cuda --seqlen 8192 --heads 32 --threshold $th >> "$OUT/bench.log" 2>&1
    echo "exit $?" >> "$OUT/bench.log"
  done
done
tail -20 "$OUT/bench.log"
step done
