#!/usr/bin/env bash
# Run 301 (session 59; ran: bench/RESULTS.md "Session 59"): does a warpgroup get its issue slot back while its own wgmma chain runs?
# bench/micro/wgmma_chain.cu's issue_bench (new): a chain of 8 m64n128k16 (a 128-key visit's
# Q K^T), commit, then WORK = 0/64/256/512 FMUL+FMNMX pairs on 16 registers of their own, then
# the wait; cycles per iteration and from the first issue to the commit's return, with one
# warpgroup and with two. Why: run 298's visit profile has the tree's S issue taking 445-790
# cycles (no wait in it, and ptxas does not serialise the tree's chains), and run 299's S_AHEAD
# (serialised) ~1000. If issuing 8 wgmmas returns only when most of the chain has run, no
# ordering inside a warpgroup can put its row maxima under its own next Q K^T.
# Prediction (either outcome is useful): issue alone ~60-150 cycles if the tensor core queues
# the chain, or ~450-550 if the issue waits for the chain; with WORK 64 (~128 instructions)
# the iteration stays at the chain's ~570 if it overlaps.
set -uo pipefail
source bench/runs/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
step "wgmma_chain (with issue_bench)"
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a bench/micro/wgmma_chain.cu -o /tmp/wgmma_chain > "$OUT/wgmma-chain.log" 2>&1 \
  && timeout 120 /tmp/wgmma_chain >> "$OUT/wgmma-chain.log" 2>&1
echo "exit $?" | tee -a "$LOG"
cat "$OUT/wgmma-chain.log"
