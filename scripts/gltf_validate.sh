#!/usr/bin/env bash
# Exports every Source BSP of the corpus (or the BSPs given) to GLB and runs the Khronos glTF
# validator (npm package gltf-validator, installed into a local folder) on each; fails unless
# every export has 0 errors.
#   SRCMAP_CORPUS=/work/shared/corpus scripts/gltf_validate.sh [MAP.bsp...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${GLTF_VALIDATOR_DIR:-$root/target/gltf-validator}"
out="${GLTF_OUT:-$root/target/gltf-exports}"
mkdir -p "$tools" "$out"
if [ ! -d "$tools/node_modules/gltf-validator" ]; then
    (cd "$tools" && npm install --no-audit --no-fund gltf-validator@2.0.0-dev.3.10)
fi
srcmap="$root/target/release/srcmap"
[ -x "$srcmap" ] || (cd "$root" && cargo build --release -p srcmap-cli)
if [ $# -eq 0 ]; then
    : "${SRCMAP_CORPUS:?set SRCMAP_CORPUS or name the BSPs}"
    # Source BSPs only (VBSP, console PSBV): the other engines' maps are refused by design.
    mapfile -t maps < <(awk -F'\t' -v root="$SRCMAP_CORPUS" \
        '$2 == "bsp" && ($5 ~ /^VBSP/ || $5 ~ /^PSBV/) { print root "/" $1 }' "$SRCMAP_CORPUS/MANIFEST.tsv" | sort)
else
    maps=("$@")
fi
cat > "$out/validate.cjs" <<'JS'
const fs = require('fs');
const validator = require(process.argv[2]);
(async () => {
  let failed = 0;
  for (const file of process.argv.slice(3)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {maxIssues: 50});
    const n = report.issues;
    console.log(`${file}\terrors=${n.numErrors}\twarnings=${n.numWarnings}\tinfos=${n.numInfos}`);
    for (const m of n.messages.filter(m => m.severity === 0).slice(0, 5)) {
      console.log(`  ${m.code} ${m.pointer || ''} ${m.message}`);
    }
    if (n.numErrors > 0) failed++;
  }
  process.exit(failed ? 1 : 0);
})();
JS
rm -f "$out/notes.txt"
glbs=()
export_failed=0
for m in "${maps[@]}"; do
    repo="$(basename "$(dirname "$m")")"
    name="${repo}__$(basename "${m%.*}").glb"
    # The corpus's models of the map's repository (static props) stand in for the game.
    game=()
    if [ -n "${SRCMAP_CORPUS:-}" ] && [ -d "$SRCMAP_CORPUS/model/$repo" ]; then
        game=(--game "$SRCMAP_CORPUS/model/$repo")
    fi
    if "$srcmap" export "$m" -o "$out/$name" "${game[@]}" --quiet 2>>"$out/notes.txt"; then
        glbs+=("$out/$name")
    else
        echo "$m: export failed" >&2
        export_failed=1
    fi
done
node "$out/validate.cjs" "$tools/node_modules/gltf-validator" "${glbs[@]}"
exit $export_failed
