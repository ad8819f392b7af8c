#!/usr/bin/env bash
# Run 207 (session 33): padded head dims' prefill products cut to the head dim (S over
# ceil(dim / 16) steps of 16 columns, P V's last O block an m64nNk16 MMA of the columns that hold
# data; the portable prefill's loops likewise). target/device: the new build; target/device-base:
# ec52527's. Correctness first: the padded-head-dim GPU test at a dim of every kind of last
# block (8, 40, 56 on the d = 64 kernel; 72, 96, 120 on 128; 136, 160, 248 on 256) with the Hopper
# and the portable kernels, merge_states; then interleaved A/Bs at d = 96, 80, 40 and 160; then
# the d = 96 rows against PyTorch SDPA; memcheck over the padded test.
source bench/runs/common.sh
DIMS=8,40,56,72,96,120,136,160,248
step "precompile padded head dims (new, base)"
timeout 150 target/device/blasst precompile --head-dims $DIMS,80 > "$OUT/precompile-padded.log" 2>&1
echo "precompile padded exit $?" | tee -a "$LOG"
tail -1 "$OUT/precompile-padded.log" | tee -a "$LOG"
timeout 100 target/device-base/blasst precompile --head-dims 40,80,96,160 > "$OUT/precompile-base.log" 2>&1
echo "precompile base exit $?" | tee -a "$LOG"
step "padded gpu tests (Hopper kernels)"
BLASST_TEST_PADDED_HEAD_DIMS=$DIMS timeout 200 target/device/gpu_tests --test-threads=1 --nocapture padded merge_states > "$OUT/gpu-tests-padded.log" 2>&1
echo "padded gpu tests exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests-padded.log" | head -5 | tee -a "$LOG"
step "padded gpu tests (portable kernels)"
BLASST_TEST_PADDED_HEAD_DIMS=40,96,120,160 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout 120 target/device/gpu_tests --test-threads=1 --nocapture padded > "$OUT/gpu-tests-padded-mma.log" 2>&1
echo "padded gpu tests (mma) exit $?" | tee -a "$LOG"
grep -aE "test result|panicked|FAILED" "$OUT/gpu-tests-padded-mma.log" | head -5 | tee -a "$LOG"
for d in 96 80 40 160; do
  AB_TIMEOUT=90 ab "d = $d" --d $d
done
step "ab d = 96 portable"
echo "===== d = 96 portable" >> "$OUT/ab.log"
PYTHONUNBUFFERED=1 timeout 90 python3 bench/ab_prefill.py --d 96 target/device-base/libblasst.so:BLASST_PREFILL_KERNEL=mma target/device/libblasst.so:BLASST_PREFILL_KERNEL=mma >> "$OUT/ab.log" 2>&1
step "timings at d = 96 (new)"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/head_dim_256.py target/device/libblasst.so --d 96 > "$OUT/d96.log" 2>&1
echo "d96 exit $?" | tee -a "$LOG"
memcheck padded
step done
