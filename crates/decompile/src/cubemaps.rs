//! Cubemaps back as `env_cubemap` entities, each with the sides whose material it patched.

use crate::context::Ctx;
use crate::types::OutEntity;

impl Ctx<'_> {
    /// One `env_cubemap` per CUBEMAPS record (call after the brushes: it reads their sides).
    pub fn cubemaps(&mut self) -> Vec<OutEntity> {
        let mut out = Vec::new();
        for c in &self.bsp.cubemaps {
            let mut e = OutEntity::new(self.ids.next(), "env_cubemap");
            let [x, y, z] = c.origin;
            e.set("origin", format!("{x} {y} {z}"));
            e.set("cubemapsize", c.size.to_string());
            let sides = self
                .cubemap_sides
                .get(&c.origin)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            e.set(
                "sides",
                sides.iter().map(i64::to_string).collect::<Vec<_>>().join(" "),
            );
            out.push(e);
        }
        out
    }
}
