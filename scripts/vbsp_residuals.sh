#!/usr/bin/env bash
# Issue 44's residual table: every corpus VMF/BSP pair compiled once with `srcmap vbsp`, then
# judged by the independent vbsp, features, props (detail props too where the corpus holds the
# pair's detail.vbsp) and physics judges (../shared/judge). One line per pair per judge:
#   PAIR<TAB>JUDGE<TAB>JSON
# Compiles with the material table harvested from the corpus BSPs, with the pair's repository
# folder under corpus/model as the game directory when it holds models, and with the pair's
# repository's detail.vbsp under corpus/detailvbsp when there is one (then with a table
# harvested with that detail file, which learns materials' %detailtype from the detail props of
# the corpus BSPs). A pair made for a game whose vbsp differs from the default target's in what
# is judged is compiled with --target for that game (game_of).
# Usage: scripts/vbsp_residuals.sh [SRCMAP_BIN] [OUTDIR] [POINTS]
# Env: SRCMAP_CORPUS, SRCMAP_JUDGE, PYTHON (with srctools and numpy), ONLY (a pair-name substring).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/vbsp_residuals}; points=${3:-20000}
python=${PYTHON:-python3}
source "$root/scripts/corpus_pairs.sh"

# The game a corpus repository's maps were made for, where the default target's vbsp would
# judge differently: Ricochet: Source is a Source 2006 (Episode One engine) mod; srctools'
# rot_main was compiled by Desolation's vbsp (BSP 42: its grates and surface properties).
game_of() { # REPO
  case "$1" in
    ricochet-game+ricochet-sourcemod) echo ricochet ;;
    TeamSpen210+srctools) echo desolation ;;
  esac
}

# A material table that knows %detailtype: harvested with the repository's detail file.
detail_table() { # REPO DETAIL
  local table="$out/materials-$1.json"
  local maps=()
  for f in "$corpus"/bsp/*/*.bsp; do [ "$(head -c4 "$f" | tr -d '\0')" = VBSP ] && maps+=("$f"); done
  [ -f "$table" ] || "$bin" materials extract -o "$table" --detail-file "$2" "${maps[@]}" >/dev/null 2>&1
  echo "$table"
}

# The judge's model list (empty when the corpus has no models for the pair) and the game flags.
compile_pair() { # VMF OURS REPO LIST
  local game=() detail=() table="$out/materials.json" target
  target=$(game_of "$3")
  [ -n "$target" ] && game+=(--target "$target")
  : > "$4"
  if [ -d "$corpus/model/$3" ]; then
    game+=(--game "$corpus/model/$3")
    (cd "$corpus/model/$3" && find . -iname '*.mdl' | sed 's|^\./||') > "$4"
  fi
  if [ -f "$corpus/detailvbsp/$3/detail.vbsp" ]; then
    detail=(--detail-file "$corpus/detailvbsp/$3/detail.vbsp")
    table=$(detail_table "$3" "${detail[1]}")
  fi
  "$bin" vbsp "$corpus/$1" -o "$2" --allowleak "${game[@]}" "${detail[@]}" --materials "$table" > "$2.log" 2>&1
}

judge_line() { # PAIR JUDGE ARGS...
  local name=$1 which=$2; shift 2
  printf '%s\t%s\t%s\n' "$name" "$which" "$("$python" "$judge/compare_$which.py" "$@" 2>&1 | tail -1)"
}

corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  repo=$(basename "$(dirname "$vmf")"); name=$repo/$(basename "$vmf" .vmf)
  case "$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
  # One folder per pair: the file's stem names the map (`maps/<map>/…`).
  dir="$out/$(basename "$(dirname "$valve")")"; mkdir -p "$dir"
  ours="$dir/$(basename "$valve")"; list="$dir/models.txt"
  if ! compile_pair "$vmf" "$ours" "$repo" "$list"; then
    printf '%s\tcompile\tfailed: %s\n' "$name" "$(tail -1 "$ours.log")"; continue
  fi
  judge_line "$name" vbsp "$ours" "$corpus/$valve" "$points"
  judge_line "$name" features "$ours" "$corpus/$valve"
  if grep -qi '"prop_static"\|detailmaterial\|%detailtype' "$corpus/$vmf"; then
    judge_line "$name" props "$ours" "$corpus/$valve" "$list" "$([ -f "$corpus/detailvbsp/$repo/detail.vbsp" ] && echo 1 || echo 0)"
  fi
  judge_line "$name" phys "$ours" "$corpus/$valve" "$points"
done
