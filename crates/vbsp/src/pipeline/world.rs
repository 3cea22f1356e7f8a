//! The world: its tree (two passes), portals, the flood, areas and clusters.

use srcmap_geom::{Bounds, DVec3};

use super::Compile;
use crate::areas;
use crate::contents::*;
use crate::diag::{Diagnostic, Severity, VbspError, Where};
use crate::dump;
use crate::emit;
use crate::input::MapInput;
use crate::portals::{self, FloodSource, Portals};
use crate::prt;
use crate::tree::{self, Pass};
use crate::types::Clusters;
use crate::verify;

impl<'a> Compile<'a> {
    /// The world tree is whole (while a world pass runs).
    fn verify_world_tree(&self, pass: &'static str) -> Result<(), VbspError> {
        if !self.verify {
            return Ok(());
        }
        verify::tree(&self.tree, &self.planes, self.brushes.len())
            .map_err(|message| VbspError::Verify { pass, message })
    }

    /// The world's portals are two-sided and on their leaves' lists (while a world pass
    /// runs).
    fn verify_world_portals(&self, pass: &'static str) -> Result<(), VbspError> {
        if !self.verify {
            return Ok(());
        }
        verify::portals(&self.tree, &self.portals).map_err(|message| VbspError::Verify { pass, message })
    }

    /// After a world pass: the tree is whole, its portals two-sided and on their leaves'
    /// lists.
    fn verify_world_pass(&mut self, pass: &'static str) -> Result<(), VbspError> {
        self.checkpoint(
            pass,
            |c| {
                verify::tree(&c.tree, &c.planes, c.brushes.len())?;
                verify::portals(&c.tree, &c.portals)
            },
            |c| {
                let visible: Vec<String> = c
                    .brushes
                    .iter()
                    .enumerate()
                    .flat_map(|(bi, b)| {
                        b.sides
                            .iter()
                            .enumerate()
                            .filter(|(_, s)| s.visible)
                            .map(move |(si, _)| format!("{bi}:{si}"))
                    })
                    .collect();
                format!(
                    "{}{}visible sides {}\n",
                    dump::tree(&c.tree, &c.planes),
                    dump::portals(&c.portals),
                    visible.join(" ")
                )
            },
        )
    }

    /// The areas: the tree still whole without the areaportal brushes.
    pub fn verify_areas(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "areas",
            |c| verify::tree(&c.tree, &c.planes, c.brushes.len()),
            |c| {
                format!(
                    "{} areas, {} area portals\n{}",
                    c.areas.areas.len(),
                    c.areas.portals.len(),
                    dump::open_leaves(&c.tree, &c.areas.of_node, None)
                )
            },
        )
    }

    /// Every open leaf has a cluster in range; the portal file.
    pub fn verify_clusters(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "clusters",
            |c| verify::clusters(&c.tree, &c.clusters),
            |c| {
                format!(
                    "{} clusters\n{}{}",
                    c.clusters.count,
                    dump::open_leaves(&c.tree, &c.areas.of_node, Some(&c.clusters)),
                    c.prt
                )
            },
        )
    }

    /// The world's structural and detail brushes, its bounds (and block planes), and the
    /// entities the flood starts from.
    pub fn gather_world(&mut self) -> Result<(), VbspError> {
        let world_ids = &self.ents[0].brushes;
        let brushes = &self.brushes;
        self.structural = world_ids
            .iter()
            .copied()
            .filter(|&b| brushes[b.idx()].contents & CONTENTS_DETAIL == 0)
            .collect();
        self.detail = world_ids
            .iter()
            .copied()
            .filter(|&b| brushes[b.idx()].contents & CONTENTS_DETAIL != 0)
            .collect();
        if self.structural.is_empty() {
            return Err(VbspError::NoBrushes);
        }
        let mut world_bounds = Bounds::EMPTY;
        for &b in world_ids {
            world_bounds = world_bounds.union(&brushes[b.idx()].bounds);
        }
        self.world_bounds = world_bounds;
        tree::add_block_planes(&mut self.planes, &world_bounds);

        self.origins = flood_sources(self.input);
        Ok(())
    }

    /// One pass over the world: its tree, portals, the flood from the entities, the outside
    /// filled, the sides the portals show marked visible. The first pass finds the inside
    /// and the visible sides; the second builds the tree the BSP keeps, preferring those
    /// sides. (The second pass's steps have no log lines of their own.)
    pub fn world_pass(&mut self, pass: Pass) -> Result<(), VbspError> {
        let name = match pass {
            Pass::First => "world tree (pass 1)",
            Pass::Second => "world tree (pass 2)",
        };
        self.phase(name);
        self.build_world_tree(pass);
        self.verify_world_tree(name)?;
        self.first_pass_phase(pass, "portals");
        self.make_world_portals();
        self.verify_world_portals(name)?;
        self.first_pass_phase(pass, "flood");
        self.flood(pass)?;
        self.fill_outside();
        self.find_portal_sides();
        self.verify_world_pass(name)
    }

    /// A step of the world pass that has a log line in the first pass only.
    fn first_pass_phase(&mut self, pass: Pass, name: &'static str) {
        if pass == Pass::First {
            self.phase(name);
        }
    }

    fn build_world_tree(&mut self, pass: Pass) {
        // The first pass's portals and tree go before the second's are built, not after:
        // the new ones then reuse their memory instead of touching new pages.
        self.portals = Portals::default();
        self.tree.nodes = Vec::new();
        self.tree = tree::build_tree(
            &self.planes,
            &self.brushes,
            &self.structural,
            pass,
            self.world_bounds,
            true,
        );
    }

    fn make_world_portals(&mut self) {
        self.portals = portals::make_portals(&mut self.tree, &self.planes);
    }

    /// The flood from the entities. The first pass decides whether the outside is sealed
    /// (a leak is an error unless allowed); the second only marks the leaves again.
    fn flood(&mut self, pass: Pass) -> Result<(), VbspError> {
        let flood = portals::flood_entities(&mut self.tree, &self.planes, &self.portals, &self.origins);
        if pass == Pass::Second {
            return Ok(());
        }
        self.outside_sealed = match flood {
            portals::Flood::Leak { entity, path } => {
                let err = self.leak_error(entity, &path);
                if !self.opts.allow_leak {
                    return Err(err);
                }
                self.diags
                    .push(Diagnostic::error(Where::default(), err.to_string()).with_code("vbsp.leak"));
                self.leak = Some(err);
                false
            }
            portals::Flood::NoEntities => {
                // Valve's vbsp calls this a leak too ("**** leaked ****"): nothing tells the
                // inside from the outside, so the outside is not filled.
                self.diags.push(
                    Diagnostic::warning(
                        Where::default(),
                        "leaked: no entity in open space, so the outside is not filled (as Valve's \
                         vbsp, this counts as a leak: put a point entity such as info_player_start \
                         inside the map)",
                    )
                    .with_code("vbsp.no_entities"),
                );
                false
            }
            portals::Flood::Sealed => true,
        };
        Ok(())
    }

    /// The leak from input entity `entity` along `path`: its pointfile, and the brushes
    /// skipped as bad (one may be why the map leaks).
    fn leak_error(&self, entity: u32, path: &[DVec3]) -> VbspError {
        let e = &self.input.entities[entity as usize];
        let mut pointfile = String::new();
        for p in path {
            pointfile += &format!("{:.6} {:.6} {:.6}\n", p.x, p.y, p.z);
        }
        VbspError::Leak {
            entity_id: e.id,
            classname: e.classname.clone(),
            origin: e.origin().unwrap_or_default(),
            pointfile,
            skipped_brushes: self
                .diags
                .iter()
                .filter(|d| d.severity == Severity::Error && d.at.brush.is_some())
                .cloned()
                .collect(),
        }
    }

    fn fill_outside(&mut self) {
        if self.outside_sealed {
            self.outside_filled = portals::fill_outside(&mut self.tree);
        }
    }

    fn find_portal_sides(&mut self) {
        portals::find_portal_sides(&self.tree, &self.planes, &mut self.portals, &mut self.brushes);
    }

    /// Areas split at the areaportals; areaportal brushes then leave the leaves' brush
    /// lists (their contents flag stays).
    pub fn flood_areas(&mut self) {
        let planes = &self.planes;
        self.areas = areas::flood_areas(
            &self.tree,
            &self.portals,
            &self.brushes,
            &self.portal_number,
            &|p| planes.find(p).map(|id| id.0),
            &mut self.diags,
        );
        for n in &mut self.tree.nodes {
            n.brushes.retain(|b| !self.portal_number.contains_key(b));
        }
    }

    /// Clusters of the world's leaves (the 3D skybox and func_visclusters merged) and the
    /// portal file between them; a leaked map (a leak let through, or no entity in open
    /// space) has neither, as Valve's.
    pub fn number_clusters(&mut self) {
        self.sky_areas = self.skybox_areas();
        if !self.outside_sealed {
            self.clusters = Clusters::leaked(self.tree.nodes.len());
            self.prt.clear();
            return;
        }
        // The 3D skybox's areas become one cluster where the target's vbsp does that.
        let merged_sky: &[u32] = match self.opts.target.one_skybox_cluster {
            true => &self.sky_areas,
            false => &[],
        };
        let viscluster_bounds = &self.viscluster_bounds;
        self.clusters = emit::assign_clusters(
            &self.tree,
            &self.areas.of_node,
            &|a| merged_sky.contains(&a),
            &|leaf| viscluster_of(viscluster_bounds, leaf),
        );
        self.prt = prt::write_prt(&self.tree, &self.portals, &self.clusters);
    }

    /// The 3D skybox: the areas holding a sky_camera.
    fn skybox_areas(&self) -> Vec<u32> {
        (self.input.entities.iter())
            .filter(|e| e.classname.eq_ignore_ascii_case("sky_camera"))
            .filter_map(|e| e.origin())
            .map(|o| self.areas.of_node[self.tree.leaf_at(&self.planes, o).idx()])
            .filter(|&a| a != 0)
            .collect()
    }
}

/// Flood sources: every entity with an origin but the world (overlays and instances
/// aside).
fn flood_sources(input: &MapInput) -> Vec<FloodSource> {
    let mut origins = Vec::new();
    for (ei, e) in input.entities.iter().enumerate().skip(1) {
        let class = e.classname.to_ascii_lowercase();
        if class.starts_with("info_overlay") || class.starts_with("func_instance") {
            continue;
        }
        if let Some(o) = e.origin()
            && o != DVec3::ZERO
        {
            origins.push(FloodSource {
                entity: ei as u32,
                origin: o,
                player_start: class == "info_player_start",
            });
        }
    }
    origins
}

/// func_viscluster: a leaf mostly inside one (10% of its volume, as Valve) joins its
/// cluster. Volumes are measured on bounding boxes. `visclusters` holds each brush's
/// (input entity, bounds).
fn viscluster_of(visclusters: &[(usize, Bounds)], leaf: &Bounds) -> Option<usize> {
    let need = box_volume(leaf) * 0.1;
    let mut ids: Vec<usize> = visclusters.iter().map(|v| v.0).collect();
    ids.dedup();
    ids.into_iter().find(|&id| {
        let inside: f64 = visclusters
            .iter()
            .filter(|v| v.0 == id)
            .map(|v| {
                let i = Bounds::new(v.1.mins.max(leaf.mins), v.1.maxs.min(leaf.maxs));
                if i.mins.cmplt(i.maxs).all() {
                    box_volume(&i)
                } else {
                    0.0
                }
            })
            .sum();
        inside > need
    })
}

/// A box's volume (0 when empty).
fn box_volume(b: &Bounds) -> f64 {
    let s = b.size();
    if b.is_empty() {
        0.0
    } else {
        s.x.max(0.0) * s.y.max(0.0) * s.z.max(0.0)
    }
}
