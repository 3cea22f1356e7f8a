# Sourced by compile_identity.sh and output_identity.sh: compare_outputs OUT compares every file
# of OUT/before with its namesake in OUT/after byte for byte; `*.log` files go through the caller's
# `mask` function first when it defines one (timings differ between runs). Names each file that
# differs or is on one side only, prints the counts, and returns 1 when anything differs.
compare_outputs() {
  local out=$1 files=0 differ=0 f name
  for f in "$out"/before/*; do
    name=$(basename "$f"); files=$((files + 1))
    if [[ $name == *.log ]] && declare -F mask >/dev/null; then
      cmp -s <(mask "$f") <(mask "$out/after/$name")
    else
      cmp -s "$f" "$out/after/$name"
    fi || { echo "differs: $name"; differ=$((differ + 1)); }
  done
  for f in "$out"/after/*; do
    [ -e "$out/before/$(basename "$f")" ] || { echo "only after: $(basename "$f")"; differ=$((differ + 1)); }
  done
  echo "$files files compared, $differ differ"
  [ "$differ" -eq 0 ]
}
