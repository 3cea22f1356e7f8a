//! Learning material facts from a compiled map: texdata gives size and reflectivity, texinfo the
//! surface flags, and the brushes whose sides use a material its contents.

use std::collections::{BTreeMap, HashMap};

use crate::TableEntry;
use crate::flags::CONTENTS_DETAIL;

/// The entries one BSP teaches. Contents and surface flags are the values most of the evidence
/// agrees on; a brush whose every side has the same material is decisive evidence (it counts ten
/// times), since a brush's contents can only come from its own material then.
pub fn harvest_bsp(map: &str, bsp: &srcmap_bsp::Bsp) -> BTreeMap<String, TableEntry> {
    // Per texdata: votes for surface flags and for contents.
    let mut surface_votes: HashMap<usize, HashMap<u32, u32>> = HashMap::new();
    let mut contents_votes: HashMap<usize, HashMap<u32, u32>> = HashMap::new();
    for ti in &bsp.texinfo {
        if ti.texdata >= 0 && (ti.texdata as usize) < bsp.texdata.len() {
            *surface_votes
                .entry(ti.texdata as usize)
                .or_default()
                .entry(ti.flags as u32)
                .or_default() += 1;
        }
    }
    let texdata_of_side = |side: &srcmap_bsp::BrushSide| -> Option<usize> {
        let ti = bsp.texinfo.get(usize::try_from(side.texinfo).ok()?)?;
        let td = usize::try_from(ti.texdata).ok()?;
        (td < bsp.texdata.len()).then_some(td)
    };
    for brush in &bsp.brushes {
        let (Ok(first), Ok(n)) = (
            usize::try_from(brush.first_side),
            usize::try_from(brush.num_sides),
        ) else {
            continue;
        };
        let Some(sides) = bsp.brush_sides.get(first..first.saturating_add(n)) else {
            continue;
        };
        let used: Vec<usize> = sides
            .iter()
            .filter(|s| !s.is_bevel())
            .filter_map(texdata_of_side)
            .collect();
        let Some(&first_td) = used.first() else { continue };
        // Detail comes from func_detail, not from the material.
        let contents = brush.contents as u32 & !CONTENTS_DETAIL;
        let weight = if used.iter().all(|&t| t == first_td) {
            10
        } else {
            1
        };
        let mut seen = Vec::new();
        for td in used {
            if !seen.contains(&td) {
                seen.push(td);
                *contents_votes.entry(td).or_default().entry(contents).or_default() += weight;
            }
        }
    }
    let winner = |votes: Option<&HashMap<u32, u32>>| -> (Option<u32>, u32) {
        let Some(v) = votes else { return (None, 0) };
        let total = v.values().sum();
        // Most votes; ties to the smaller value so the result is deterministic.
        let best = v
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(k, _)| *k);
        (best, total)
    };
    let mut out = BTreeMap::new();
    for (i, td) in bsp.texdata.iter().enumerate() {
        let Some(name) = bsp.texdata_name(i) else { continue };
        let (surface_flags, e1) = winner(surface_votes.get(&i));
        let (contents, e2) = winner(contents_votes.get(&i));
        let entry = TableEntry {
            contents,
            surface_flags,
            width: td.width.max(0) as u32,
            height: td.height.max(0) as u32,
            reflectivity: td.reflectivity,
            emit: None,
            maps: vec![map.to_owned()],
            evidence: e1 + e2,
        };
        let key = crate::normalise_name(name);
        // The same material can have several texdata (one per size it was seen at); keep the
        // best-supported one.
        match out.get(&key) {
            Some(TableEntry { evidence, .. }) if *evidence >= entry.evidence => {}
            _ => {
                out.insert(key, entry);
            }
        }
    }
    out
}
