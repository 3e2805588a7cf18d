#!/usr/bin/env bash
# The whole-process checks of issues 24 and 26 on the GPU machine, in one call: the end-to-end benchmark on a BN254
# 2^20 key (benchmarks/e2e/h200.sh: first and warm processes, proofs kept for snarkjs), the first processes of the
# committed fixtures with empty caches (prebuilt_h200.sh, BUILD=0), then `cuzk serve --backend cuda` under load
# with the 2^20 key (benchmarks/serve/load_input.py). Reports in $OUT; the summary last.
set -uo pipefail
export OUT=${OUT:-out} PYTHONUNBUFFERED=1; mkdir -p "$OUT"
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
LOGS_BN254=${LOGS_BN254:-20} LOGS_BLS=${LOGS_BLS-} bash benchmarks/e2e/h200.sh > "$OUT/e2e_log.txt" 2>&1
[[ ${COLD:-1} == 1 ]] && BUILD=0 bash benchmarks/gpu/prebuilt_h200.sh > "$OUT/cold_log.txt" 2>&1
if [[ ${SERVE:-1} == 1 ]]; then  # every 2^20 input made above
  for input in /tmp/e2e/bn254-2^20 /tmp/e2e/bls12_381-2^20; do
    [[ -d $input ]] || continue
    (cd benchmarks/serve && timeout 240 python3 load_input.py "$input" --backend cuda --clients 1 4 16 \
      --requests "${REQUESTS:-200}") >> "$OUT/serve.txt" 2>&1
  done
fi
echo "--- e2e"; sed -n '/--- summary/,$p' "$OUT/e2e_log.txt"
echo "--- cold start"; sed -n '/--- summary/,$p' "$OUT/cold_log.txt"
echo "--- serve"; grep -v "^ *$" "$OUT/serve.txt" | tail -n 30
(cd "$OUT" && tar czf logs.tgz ./*.txt && rm -f ./*.txt)  # the device tool brings back 8 files at most
