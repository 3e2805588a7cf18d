#!/usr/bin/env bash
# `cuzk serve` under load on the GPU machine (issue 26): the 2^20 inputs made there (benchmarks/e2e/make_inputs.py,
# the setup on cuda), then benchmarks/serve/load_input.py for each curve of CURVES (default bn254) with the workers
# of WORKERS (default "threads processes"), CLIENTS (default "1 4 16") and REQUESTS (default 120) a row. Each run's
# whole output in $OUT/serve-<curve>.txt; its tables printed.
#     bash benchmarks/serve/h200.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; mkdir -p "$OUT" "$E2E"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
for curve in ${CURVES:-bn254}; do
  input="$E2E/$curve-2^20"
  [[ -f $input/circuit.zkey ]] || python3 benchmarks/e2e/make_inputs.py "$E2E" --curves "$curve" --logs 20 \
    --setup-backend cuda 2>&1 | grep -v "one-party"
  # shellcheck disable=SC2086
  python3 benchmarks/serve/load_input.py "$input" --backend cuda --workers ${WORKERS:-threads processes} \
    --clients ${CLIENTS:-1 4 16} --requests "${REQUESTS:-120}" > "$OUT/serve-$curve.txt" 2>&1
  grep -E "^\||proofs verified|server up|Error" "$OUT/serve-$curve.txt"
done
