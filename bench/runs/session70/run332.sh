#!/usr/bin/env bash
# Run 332 (session 70): the checks the tree's last two kernel changes have not had on a GPU.
# 1. The GPU tests with the portable kernels (BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma):
#    0d6b389 (session 69) made kernels/prefill.cu's two-row vote call `rows_vote_skip` from
#    common.cuh; the sm_90 build of that kernel, which these tests run, is its only GPU check
#    here (no lent GPU runs the sm_80 cubins); head dims 64, 128 and 256, the padded ones left
#    out for time. Predicted: all pass, as before the change.
# 2. racecheck and synccheck over the tile-by-tile cases at d = 128 (prefill, one-token and
#    speculative decode, small pages) on the default Hopper kernels: LATE_CHECK (session 68) put
#    a vote.sync of its own PTX after the quad shuffles; the last synccheck (run 314, session 66)
#    predates it. Predicted: 0 hazards, 0 errors. (synccheck only unless RACECHECK=1: the
#    session's failed starts left ~575 s of device time; LATE_CHECK touches no shared memory.)
set -uo pipefail
source bench/runs/common.sh
run_start
step "gpu tests, portable kernels"
BLASST_TEST_PADDED_HEAD_DIMS= BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma timeout ${MMA_TIMEOUT:-220} target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests-mma.log" 2>&1
echo "gpu tests (portable) exit $?" | tee -a "$LOG"
grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-mma.log" | tail -5 | tee -a "$LOG"
for tool in $([ "${RACECHECK:-0}" = 1 ] && echo racecheck) synccheck; do
  BLASST_TEST_HEAD_DIMS=128 SANITIZE_TIMEOUT=100 sanitize_tile_cases $tool 0,6,7,8,10,12,13,14,15
done
pack_out logs
