#!/usr/bin/env bash
# Installs the pinned npm tools of the interoperability tests (tests/interop) into .ci/node/, a folder git ignores
# (the script writes a .gitignore of "*" into it). Idempotent: does nothing when the pinned versions are there.
# The tests find the tools at .ci/node/node_modules/.bin/{snarkjs,circom2} (or CUZK_NODE_TOOLS=<folder>).
set -euo pipefail
cd "$(dirname "$0")"

PINNED=(snarkjs@0.7.6 circom2@0.2.23 circomlib@2.0.5)
PREFIX=node

installed_version() {  # the version of an installed package, or nothing
  local manifest="$PREFIX/node_modules/$1/package.json"
  [[ -f "$manifest" ]] && node -p "require('./$manifest').version" 2>/dev/null || true
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node-tools: node and npm (node >= 18) are needed for the interop tests; they will be skipped" >&2
  [[ -n "${CI:-}" ]] && exit 1  # CI must run them
  exit 0
fi

missing=()
for spec in "${PINNED[@]}"; do
  name=${spec%@*} version=${spec##*@}
  [[ "$(installed_version "$name")" == "$version" ]] || missing+=("$spec")
done

if ((${#missing[@]})); then
  mkdir -p "$PREFIX"
  echo '*' >"$PREFIX/.gitignore"
  [[ -f "$PREFIX/package.json" ]] || echo '{"name": "cuzk-node-tools", "private": true}' >"$PREFIX/package.json"
  echo "node-tools: installing ${PINNED[*]} into .ci/$PREFIX"
  npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact --loglevel=error "${PINNED[@]}"
fi
for spec in "${PINNED[@]}"; do
  echo "node-tools: ${spec%@*} $(installed_version "${spec%@*}")"
done
