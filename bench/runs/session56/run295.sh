#!/usr/bin/env bash
# (Not run as such: session 57's run296.sh holds both of its A/Bs, next to V on demand.)
# Run 295 (session 56): are the prefill's skipped visits bound by their K/V copies now? (Session 6
# found them latency-bound, with a kernel ~20 % slower than today's.) An interleaved A/B of the
# tree (target/device-base, 3748d13) against run295-no-v-reload.patch (target/device: V copied
# only while the ring fills; wrong output, timing only), both with the P V overlap on (default).
# (Session 57: both builds also with the overlap off, BLASST_PREFILL_PV_OVERLAP=0, from copies of
# their libraries, since one process keeps the first kernel it builds per variant.) If skipped visits get much cheaper without V's 32 KB per
# visit, the high-sparsity rows are copy-bound and skipping V loads in prefill (as decode does)
# is the way to issue 5's ratios; if not, they are latency-bound.
# Prediction: latency-bound as in session 6: the 90 % rows within ~3 %.
# Build: build-device.sh, copy libblasst.so/blasst/build-info.txt into target/device-base, git
# apply the patch, build-device.sh again, git checkout kernels/prefill_sm90.cu; carry both.
set -uo pipefail
source bench/runs/common.sh
precompile_ab
step "A/B: tree against no V reload (overlap on, the default)"
timeout 150 python3 bench/ab_prefill.py target/device-base/libblasst.so target/device/libblasst.so > "$OUT/ab.log" 2>&1
echo "ab exit $?" | tee -a "$LOG"
step "A/B: the same, overlap off"
mkdir -p target/device-base-off target/device-off
cp target/device-base/libblasst.so target/device-base-off/ && cp target/device/libblasst.so target/device-off/
BLASST_PREFILL_PV_OVERLAP=0 timeout 120 target/device-base/blasst precompile > /dev/null 2>&1
BLASST_PREFILL_PV_OVERLAP=0 timeout 120 target/device/blasst precompile > /dev/null 2>&1
timeout 150 python3 bench/ab_prefill.py target/device-base-off/libblasst.so:BLASST_PREFILL_PV_OVERLAP=0 \
  target/device-off/libblasst.so:BLASST_PREFILL_PV_OVERLAP=0 > "$OUT/ab-off.log" 2>&1
echo "ab (off) exit $?" | tee -a "$LOG"
