#!/usr/bin/env bash
# One call on the GPU machine for the checks of a change to the device path (issue 24): the CUDA programs rebuilt
# and the cuda tests and conformance suite (stored_h200.sh), the end-to-end benchmark with first and warm processes
# and the committed fixtures' first processes (wrapper_h200.sh, no service), then where a warm process's seconds go
# (profile_h200.sh). The programs come back in $OUT/prebuilt.tgz, the proofs in proofs.tgz, the end-to-end logs in
# logs.tgz and the rest in session.tgz; the summaries last.
#     LOGS_BN254=20 LOGS_BLS=20 bash benchmarks/gpu/session_h200.sh
set -uo pipefail
export OUT=${OUT:-out}; mkdir -p "$OUT/logs"
BUILD=${BUILD:-1} bash benchmarks/gpu/stored_h200.sh > "$OUT/logs/stored_log.txt" 2>&1
cp "$OUT"/*.txt "$OUT"/*.json "$OUT/logs/" 2>/dev/null; rm -f "$OUT"/*.txt "$OUT"/*.json
SERVE=0 bash benchmarks/gpu/wrapper_h200.sh > "$OUT/logs/wrapper_summary.txt" 2>&1
RUNS=${RUNS:-3} INPUT=${PROFILE_INPUT:-bn254-2^20} OUT=$OUT/logs bash benchmarks/gpu/profile_h200.sh \
  > "$OUT/logs/profile_log.txt" 2>&1
tar czf "$OUT/session.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
tar xzf "$OUT/session.tgz" -O logs/stored_log.txt | tail -14
tar xzf "$OUT/session.tgz" -O logs/wrapper_summary.txt | tail -30
tar xzf "$OUT/session.tgz" -O logs/summary.txt
