//! What a compile leaves out, said once per kind with its count (a warning each): one table,
//! so a row goes when its feature lands.

use srcmap_bsp::Bsp;

use crate::diag::{Diagnostic, Where};
use crate::input::MapInput;

/// A kind of thing the compile does not write: how to count it in a map, what to call it, why.
struct NotCompiled {
    count: fn(&MapInput, &Bsp) -> usize,
    what: &'static str,
    why: &'static str,
}

fn entities_of(map: &MapInput, classname: &str) -> usize {
    map.entities
        .iter()
        .filter(|e| e.classname.eq_ignore_ascii_case(classname))
        .count()
}

const NOT_COMPILED: &[NotCompiled] = &[
    NotCompiled {
        count: |map, _| entities_of(map, "info_no_dynamic_shadow"),
        what: "info_no_dynamic_shadow entities (their sides keep dynamic shadows)",
        why: "not supported yet",
    },
    NotCompiled {
        count: |map, _| entities_of(map, "info_overlay_transition"),
        what: "water overlays (info_overlay_transition)",
        why: "Valve's 2013 VBSP drops them too",
    },
];

/// One warning per kind the map has and the compile leaves out, e.g. "2 water overlays
/// (info_overlay_transition) not compiled (Valve's 2013 VBSP drops them too)".
pub(crate) fn diagnostics(map: &MapInput, bsp: &Bsp) -> Vec<Diagnostic> {
    NOT_COMPILED
        .iter()
        .filter_map(|k| {
            let n = (k.count)(map, bsp);
            (n > 0).then(|| {
                Diagnostic::warning(
                    Where::default(),
                    format!("{n} {} not compiled ({})", k.what, k.why),
                )
            })
        })
        .collect()
}
