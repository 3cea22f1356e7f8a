# Sourced by the feature reports: the corpus, the judge folder, a material table harvested
# from the corpus's Source BSPs (as the corpus tests compile), and the VMF/BSP pairs.
# Before sourcing, set `root` (the project) and `out` (a folder for the outputs). After it:
#   $corpus $judge    the corpus and judge folders (SRCMAP_CORPUS, SRCMAP_JUDGE)
#   $out/materials.json
#   corpus_pairs      prints "VMF<TAB>VALVE_BSP" per pair (paths under $corpus), from MANIFEST.tsv
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
judge=${SRCMAP_JUDGE:-$(realpath "$root/../shared/judge")}
mkdir -p "$out"
if [ ! -f "$out/materials.json" ]; then
  bsps=(); for f in "$corpus"/bsp/*/*.bsp; do [ "$(head -c4 "$f" | tr -d '\0')" = VBSP ] && bsps+=("$f"); done
  "$bin" materials extract -o "$out/materials.json" "${bsps[@]}" >/dev/null 2>&1
fi
corpus_pairs() {
  awk -F'\t' '$2=="vmf" && $10 ~ /pair: bsp\// {match($10, /pair: bsp\/[^ ;|]*\.bsp/); print $1 "\t" substr($10, RSTART+6, RLENGTH-6)}' \
    "$corpus/MANIFEST.tsv"
}
