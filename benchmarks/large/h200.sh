#!/usr/bin/env bash
# The large-proof benchmark (issue 27) on the GPU machine: the array setup's tests on cuda first, then
# benchmarks/large/prove.py for each size of LOGS (default 20,22) and curve of CURVES (default bls12_381), one
# process each (so that each size's peak host memory is its own), PROOFS proofs per witness (default 2), each run
# bounded by RUN_TIMEOUT seconds (default 300); WITNESS (default porep,dense) the witnesses, G2_BACKEND (e.g. cpu)
# where B_G2 runs instead of the GPU, G2_AFTER=1 B_G2 on the GPU after the G1 MSMs, G2_BESIDE=1 on a thread
# beside them (default: the engine's, after them from 2^25 points on one device); DENSITY=k first times benchmarks/large/msm_density.py at 2^k (kernel by
# kernel). CUPY_GPU_MEMORY_LIMIT (e.g. 83%) caps CuPy's pool, and the plans keep within it; TRACE=1 writes each
# witness's last proof as a Chrome trace; COMPARE_WINDOW=c then proves each witness again with every query MSM in
# c-bit windows (rows "porep_wc", "dense_wc"); ASYNC_POOL=1 has CuPy allocate through CUDA's stream-ordered pool;
# PINNED=1 then proves each witness again from z in pinned memory (rows "porep_pinned", "dense_pinned");
# TRIM_POOL=1 gives CuPy's pool's free blocks back to the device after the setup and after each proof; WTNS=DIR then
# writes each witness as DIR/WITNESS.wtns, reads it back into the backend's host_array and proves from it;
# APART=f puts arrays of f of the device's memory or more outside CuPy's pool (default 1/64: large_blocks);
# POOL_LOG=1 logs each request that made CuPy's pool grow during a witness's proofs ($OUT/large/WITNESS.jsonl).
# Logs and JSON in $OUT/large/, the summary table last; PACK=1 then packs them into $OUT/large-logs.tgz and the
# traces into $OUT/large-traces.tgz (the device tool brings back few files).
#     LOGS=20,22 bash benchmarks/large/h200.sh
#     LOGS=26 CURVES=bls12_381 PROOFS=3 RUN_TIMEOUT=560 TESTS=0 bash benchmarks/large/h200.sh
set -uo pipefail
OUT=${OUT:-out}; LOGS_DIR="$OUT/large"; mkdir -p "$LOGS_DIR"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
if [[ ${TESTS:-1} == 1 ]]; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider tests/engine/test_setup_arrays.py -k "cuda" -rs \
    > "$LOGS_DIR/tests.txt" 2>&1
  tail -2 "$LOGS_DIR/tests.txt"
fi
if [[ -n ${DENSITY:-} ]]; then  # DENSITY=24: msm_density.py at 2^24 first, every kernel line kept
  timeout 200 python3 benchmarks/large/msm_density.py --log "$DENSITY" --groups g1,g2 \
    --kinds "${DENSITY_KINDS:-dense,porep,ones,sparse}" --repeat 2 > "$LOGS_DIR/msm_density.txt" 2>&1
  cat "$LOGS_DIR/msm_density.txt"
fi
for curve in ${CURVES:-bls12_381}; do
  for log in $(echo "${LOGS:-20,22}" | tr , ' '); do
    name="$curve-$log${G2_BACKEND:+-g2$G2_BACKEND}${G2_AFTER:+-g2after}${G2_BESIDE:+-g2beside}"
    /usr/bin/time -f "$name: %e s wall, %M KB max resident" timeout "${RUN_TIMEOUT:-300}" python3 \
      benchmarks/large/prove.py --curve "$curve" --log "$log" --backend cuda --proofs "${PROOFS:-2}" \
      ${G2_BACKEND:+--g2-backend "$G2_BACKEND"} ${G2_AFTER:+--g2-after} ${G2_BESIDE:+--g2-beside} --witness "${WITNESS:-porep,dense}" --json "$LOGS_DIR/$name.json" \
      ${TRACE:+--trace "$LOGS_DIR/$name-trace"} ${COMPARE_WINDOW:+--compare-window "$COMPARE_WINDOW"} \
      ${ASYNC_POOL:+--async-pool} ${APART:+--apart-fraction "$APART"} ${PINNED:+--pinned-witness} ${TRIM_POOL:+--trim-pool} ${WTNS:+--wtns "$WTNS"} ${POOL_LOG:+--pool-log "$LOGS_DIR"} \
      > "$LOGS_DIR/$name.txt" 2>&1 || echo "$name: FAILED (rc $?)"
    grep -E "^  [a-z(]|setup: |wall, |Error|error" "$LOGS_DIR/$name.txt" | tail -40
  done
done
python3 - "$LOGS_DIR" <<'PY'
import json, pathlib, sys
# ovh %: the PoRep-like proof's wall − kernels within its prove span, wall %: within its whole wall (z's upload and A·z,
# B·z included); dev GB: held by the process at its peak; live GB: in live arrays at the peak (setup included), then during the
# PoRep-like and the dense proofs alone
print(f"{'input':<18}{'setup s':>9}{'porep ms':>10}{'dense ms':>10}{'ovh %':>7}{'wall %':>7}{'dev GB':>8}{'live GB':>8}"
      f"{'porep':>7}{'dense':>7}{'host GB':>8}  ok")
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    r = json.loads(path.read_text())
    for key in (k for k in r if k.startswith(("porep_", "dense_")) and k != "porep_counts"):
        print(f"{path.stem + ' ' + key:<28}{r[key]['median_ms']:>10.1f} ms, overhead {r[key]['overhead_pct']} % of "
              f"prove, {r[key].get('wall_overhead_pct')} % of the wall, verified {r[key]['verified']}")
    p, d = r.get("porep", {}), r.get("dense", {})
    ok = all(r[k]["verified"] for k in ("porep", "dense") if k in r)
    print(f"{path.stem:<18}{r['made_s'].get('setup (key kept on device)', 0):>9.1f}{p.get('median_ms', 0):>10.1f}"
          f"{d.get('median_ms', 0):>10.1f}{p.get('overhead_pct') or 0:>7.1f}{p.get('wall_overhead_pct') or 0:>7.1f}"
          f"{r['device_peak_gb']:>8.1f}"
          f"{r.get('device_live_peak_gb', 0):>8.1f}{p.get('device_live_peak_gb', 0):>7.1f}"
          f"{d.get('device_live_peak_gb', 0):>7.1f}{r['host_peak_gb']:>8.1f}  {ok}")
PY
if [[ ${PACK:-0} == 1 ]]; then
  traces=$(cd "$OUT" && find large -name "*.trace.json")
  [[ -n $traces ]] && (cd "$OUT" && tar czf large-traces.tgz $traces)
  (cd "$OUT" && tar czf large-logs.tgz --exclude="*.trace.json" large && rm -rf large)
fi
