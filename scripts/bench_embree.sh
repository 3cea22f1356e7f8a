#!/usr/bin/env bash
# Our ray rate against Embree 3's on the same triangles and rays (issue 38, item 2): per map,
# VRAD's occluder scene and three ray sets (sun occlusion, short hemisphere occlusion,
# closest-hit bounce rays) written by `crates/vrad/examples/bench_rays.rs`, traced by our
# tracer (the default backend, and the old obvhs CWBVH one beside it) and by
# `scripts/bench_embree/embree_rays.c` (one thread each, CPU time, least of 3).
#
#   scripts/bench_embree.sh [RAYS]        (default 200000 rays per set)
#
# Needs a C compiler and Embree 3 (Debian: libembree-dev); skips with a message without
# them. A benchmark, not a test. Maps given only as a VMF are compiled first with
# `target/release/srcmap vbsp` (SRCMAP= to name another binary).
# Env: SRCMAP_CORPUS (default ../shared/corpus), WORK (default a fresh temporary folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${SRCMAP_CORPUS:-$root/../shared/corpus}
rays=${1:-200000}
srcmap=${SRCMAP:-$root/target/release/srcmap}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

cc=${CC:-cc}
if ! command -v "$cc" >/dev/null; then echo "bench_embree: no C compiler ($cc); skipped" >&2; exit 0; fi
if ! echo '#include <embree3/rtcore.h>' | "$cc" -E - >/dev/null 2>&1; then
  echo "bench_embree: Embree 3 headers not found (apt-get install libembree-dev); skipped" >&2
  exit 0
fi
"$cc" -O3 -march=native -std=c11 -Wall -o "$work/embree_rays" "$root/scripts/bench_embree/embree_rays.c" -lembree3 -lm
(cd "$root" && cargo build -q --release -p srcmap-vrad --example bench_rays)
ours_bin=$root/target/release/examples/bench_rays

# name, then the corpus BSP (relative to $corpus/bsp) or, failing that, the VMF to compile.
maps=(
  "a3c8p1_forest_day vmf/hdtf-owf+hdtfmapsrc/a3c8p1_forest_day.vmf"
  "subway01 bsp/tbjmaps+dishonourable-discharge-ez2/subway01.bsp"
  "pcollab_26_iambread_test bsp/SmolPuppyCat+portalcollab/pcollab_26_iambread_test.bsp"
  "background01 bsp/iassis+tf2-fastdl/background01.bsp"
)

# The BSP of a map entry: the corpus file, or the VMF compiled by our vbsp.
bsp_of() {
  local name=$1 src=$corpus/$2
  if [[ $src == *.bsp ]]; then echo "$src"; return; fi
  if [[ ! -x $srcmap ]]; then echo "bench_embree: $name: no $srcmap to compile $src" >&2; return 1; fi
  "$srcmap" vbsp -q --threads 1 "$src" -o "$work/$name.bsp" >&2 && echo "$work/$name.bsp"
}

printf '| map | triangles | set | rays | ours 1 thread | obvhs CWBVH 1 thread (the old backend) | ours all threads (per CPU s) | ours sweep (ParallelOrigins, as VRAD traces the sun) | Embree single | Embree best packet | ours / Embree single | ours / Embree best | hit agreement |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for entry in "${maps[@]}"; do
  read -r name src <<<"$entry"
  bsp=$(bsp_of "$name" "$src") || continue
  "$ours_bin" "$bsp" "$work/$name.rays" "$rays" >"$work/$name.ours.txt"
  "$work/embree_rays" "$work/$name.rays" "$work/$name.rays.ours" >"$work/$name.embree.txt"
  cat "$work/$name.ours.txt" "$work/$name.embree.txt" | awk -v map="$name" '
    function kv(line, key,   m) { return match(line, " " key "=[^ ]*") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : "" }
    function mrs(x) { return sprintf("%.2f M", x / 1e6) }
    /^map / { tris = $4 }
    /^ours / { set = kv($0, "set"); mode = kv($0, "mode"); rate[set, "ours", mode] = kv($0, "rays_per_s"); n[set] = kv($0, "rays")
               if (!(set in seen)) { seen[set] = 1; order[++sets] = set } }
    /^embree set=/ { set = kv($0, "set"); mode = kv($0, "mode"); r = kv($0, "rays_per_s")
                     if (mode == "single") { single[set] = r; agree[set] = kv($0, "agree"); tagree[set] = kv($0, "t_agree") }
                     else if (r + 0 > best[set] + 0) { best[set] = r; bestmode[set] = mode } }
    END {
      for (i = 1; i <= sets; i++) {
        s = order[i]; o = rate[s, "ours", "single"]
        sweep = rate[s, "ours", "parallel-origins"]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %.2f | %.2f | %s / %s |\n", map, tris, s, n[s],
          mrs(o), mrs(rate[s, "ours", "single-obvhs"]), mrs(rate[s, "ours", "all-threads"]), sweep == "" ? "-" : mrs(sweep), mrs(single[s]),
          mrs(best[s]), bestmode[s], o / single[s], o / best[s], agree[s], n[s] (tagree[s] == "" ? "" : " (same t: " tagree[s] ")")
      }
    }'
done
echo "raw outputs: $work" >&2
