#!/usr/bin/env bash
# Run 243 (session 43): the benchmark of 997b125 (right after run 242's checks, same lease).
SKIP_TESTS=1 SKIP_SANITIZER=1 bash scripts/device-check.sh
