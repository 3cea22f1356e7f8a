//! Valve's PRT1 portal file: the clusters and the portals vis may see through.

use std::fmt::Write;

use crate::portals::{Portals, portal_vis_flood};
use crate::tree::Tree;
use crate::types::Clusters;

/// Numbers close to an integer are written as one, as Valve's `WriteFloat` does.
fn num(out: &mut String, v: f64) {
    let r = v.round();
    if (v - r).abs() < 0.001 {
        let _ = write!(out, "{} ", r as i64);
    } else {
        let _ = write!(out, "{v:.6} ");
    }
}

pub fn write_prt(tree: &Tree, portals: &Portals, clusters: &Clusters) -> String {
    let mut body = String::new();
    let mut count = 0;
    for (_, p) in portals.iter() {
        let c0 = clusters.of_node.get(p.nodes[0].idx()).copied().unwrap_or(-1);
        let c1 = clusters.of_node.get(p.nodes[1].idx()).copied().unwrap_or(-1);
        if c0 < 0 || c1 < 0 || c0 == c1 || !portal_vis_flood(tree, p) {
            continue;
        }
        let w = &p.winding;
        // Vis reads the plane from the winding; if it came out turned around, swap the
        // clusters so front and back still agree.
        let flipped = w.plane().is_some_and(|wp| wp.normal.dot(p.plane.normal) < 0.99);
        let (a, b) = if flipped { (c1, c0) } else { (c0, c1) };
        let _ = write!(body, "{} {} {} ", w.points.len(), a, b);
        for pt in &w.points {
            body.push('(');
            num(&mut body, pt.x);
            num(&mut body, pt.y);
            num(&mut body, pt.z);
            body.push_str(") ");
        }
        body.push('\n');
        count += 1;
    }
    format!("PRT1\n{}\n{}\n{}", clusters.count, count, body)
}
