//! The types the compile's layers share: the passes (`pipeline`), the BSP records (`emit`),
//! their checks (`verify`), dumps (`dump`) and the portal file (`prt`) all import them from
//! here, and none of those imports another's.

use crate::ids::BrushId;

/// Cluster numbers of the world's leaves: every non-solid leaf is its own cluster
/// (detail never splits the tree, so no two leaves share one).
#[derive(Default)]
pub struct Clusters {
    pub of_node: Vec<i32>,
    pub count: usize,
    /// The outside was not filled: no portal file, no visibility.
    pub leaked: bool,
    /// Leaves of the 3D skybox sharing its one cluster.
    pub skybox_leaves: usize,
}

impl Clusters {
    /// A leaked map's clusters as Valve's vbsp leaves them: it writes no portal file, so no
    /// leaf is ever numbered and every leaf, solid ones too, keeps the cluster 0 its node was
    /// allocated with; the visibility lump stays empty.
    pub fn leaked(nodes: usize) -> Clusters {
        Clusters {
            of_node: vec![0; nodes],
            count: 1,
            leaked: true,
            skybox_leaves: 0,
        }
    }
}

/// An entity after preprocessing: what goes in the entity lump and which brushes it owns.
pub(crate) struct Ent {
    /// The VMF id of the entity it came from (-1 for one the compile adds), for messages.
    pub vmf_id: i64,
    pub keyvalues: Vec<(String, String)>,
    pub brushes: Vec<BrushId>,
    pub model: Option<u32>,
}

/// Sets `key` (matched without case) to `value`, or adds it at the end.
pub(crate) fn set_kv(kv: &mut Vec<(String, String)>, key: &str, value: String) {
    match kv.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
        Some(e) => e.1 = value,
        None => kv.push((key.to_string(), value)),
    }
}
