#!/usr/bin/env bash
# A change's effect on `cuzk serve` under load, like for like (issue 26): the 2^20 input of CURVE (default bn254)
# made once (benchmarks/e2e/make_inputs.py, the setup on cuda), then benchmarks/serve/load_input.py with the tree
# before and after the change alternating ROUNDS (default 1) times on the same machine. PATCH is the change (a diff
# of this tree): "before" is this tree with it reversed in place. WORKERS (default threads), CLIENTS (default
# "1 4"), REQUESTS (default 100) as in benchmarks/serve/h200.sh. Whole outputs in $OUT/serve-ab-<tree><round>.txt;
# the tables printed.
#     PATCH=change.patch bash benchmarks/serve/ab_h200.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; mkdir -p "$OUT" "$E2E"
export PYTHONUNBUFFERED=1
source "$(dirname "$0")/../ab_patch.sh"
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
curve=${CURVE:-bn254}; input="$E2E/$curve-2^20"
[[ -f $input/circuit.zkey ]] || python3 benchmarks/e2e/make_inputs.py "$E2E" --curves "$curve" --logs 20 \
  --setup-backend cuda 2>&1 | tail -1
for round in $(seq "${ROUNDS:-1}"); do
  for tree in before after; do
    # shellcheck disable=SC2086
    on_tree "$tree" python3 benchmarks/serve/load_input.py "$input" --backend cuda --workers ${WORKERS:-threads} \
      --clients ${CLIENTS:-1 4} --requests "${REQUESTS:-100}" > "$OUT/serve-ab-$tree$round.txt" 2>&1
    echo "== $tree, round $round"; grep -E "^\||proofs verified|Error" "$OUT/serve-ab-$tree$round.txt"
  done
done
