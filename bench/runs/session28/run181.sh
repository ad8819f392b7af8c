#!/usr/bin/env bash
# Run 181 (session 28): the device check of session 27's untested commits and this session's test
# refactor (the tile-by-tile and num_pages GPU tests through one for_each_structured helper):
# precompile, check_prefill and check_paged_prefill (bench.py's shared reference_attention,
# d65c75f), the GPU tests (tensor_maps' geometry as pure functions, 2f9493b), threads, contexts,
# the portable kernels' tests with the kernel-family listing, the no-TMA tests, demo. Memcheck
# follows in run 182 (one call would come close to the 600 s limit).
SKIP_SANITIZER=1 SKIP_BENCH=1 bash scripts/device-check.sh
echo "=== done ($(date +%T))" | tee -a "$OUT/run.log"
