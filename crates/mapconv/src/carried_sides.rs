//! A brush mesh's source sides, carried as a string attribute of the mesh node
//! ([`CarriedSide::ATTRIBUTE`]; Hammer ignores it) so that VMF → VMAP → VMF writes each face's
//! side with the source's plane points and lightmap scale. Points derived from the (f32) mesh
//! lie on the same plane only to about 1e-5, and vbsp's plane snapping and its tree then
//! differ (subway01's round trip had 9 leafs and 4 clusters more). A face whose plane moved
//! (an edited mesh) is written from the mesh as before.

use srcmap_geom::{DVec3, Plane};
use srcmap_vmf::Solid;

use crate::brush::BrushMesh;

/// One face's source side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarriedSide {
    /// Hammer's three plane points, as the VMF wrote them.
    pub points: [[f64; 3]; 3],
    pub lightmap_scale: f64,
}

impl CarriedSide {
    pub const ATTRIBUTE: &'static str = "srcmapSides";

    /// The mesh's faces' sides, one `lightmapscale x y z x y z x y z` field per face, in face
    /// order, separated by `;` (numbers in Rust's shortest exact form).
    pub fn to_text(solid: &Solid, mesh: &BrushMesh) -> String {
        let field = |side: &srcmap_vmf::Side| {
            let numbers = std::iter::once(side.lightmap_scale).chain(side.plane.iter().flatten().copied());
            numbers.map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
        };
        (mesh.faces.iter())
            .map(|f| field(&solid.sides[f.side]))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// The attribute's text back, per face; a field that is not ten finite numbers is `None`.
    pub fn parse(text: &str) -> Vec<Option<CarriedSide>> {
        text.split(';').map(CarriedSide::parse_field).collect()
    }

    fn parse_field(field: &str) -> Option<CarriedSide> {
        let v: Vec<f64> = field
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        if v.len() != 10 || !v.iter().all(|x| x.is_finite()) {
            return None;
        }
        Some(CarriedSide {
            points: [1, 4, 7].map(|k| [v[k], v[k + 1], v[k + 2]]),
            lightmap_scale: v[0],
        })
    }

    /// Whether the carried points span `plane` (within 1e-4 in the normal, 0.01 unit in
    /// distance: the mesh's f32 vertices are that close).
    pub fn spans(&self, plane: &Plane) -> bool {
        let [a, b, c] = self.points.map(DVec3::from_array);
        Plane::from_points(a, b, c).is_some_and(|p| p.approx_eq(plane, 1e-4, 0.01))
    }
}
