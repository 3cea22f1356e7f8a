//! The IVP compact surface: the collision geometry VPhysics stores for one solid.
//!
//! Layout (little-endian, every record 16-byte aligned in Valve's output):
//! a 48-byte surface header, the compact ledges (a 16-byte ledge header and 16 bytes per
//! triangle, each triangle holding its three edges), the points the ledges share (16 bytes
//! each: x, y, z and a spare float), and the ledge tree (28-byte nodes, the left child right after
//! its parent, the right child at a relative offset; a terminal node points at its ledge).
//! Every offset inside is relative to the record holding it, so the surface is read as a
//! set of records placed at offsets; writing places them back, and bytes no record claims are
//! kept as gaps so the round trip is exact.

use serde::Serialize;

use crate::error::{PhysError, Result};

/// Size of [`SurfaceHeader`] on disk.
pub const SURFACE_HEADER_SIZE: usize = 48;
/// Size of [`LedgeTreeNode`] on disk.
pub const NODE_SIZE: usize = 28;
/// Size of a ledge header, of a triangle and of a point on disk.
pub const RECORD_SIZE: usize = 16;
/// The `IVPS` tag in the surface header's last word.
pub const IVPS: i32 = i32::from_le_bytes(*b"IVPS");

/// The `MOPP` tag that ends a MOPP surface's header instead.
pub const MOPP: i32 = i32::from_le_bytes(*b"MOPP");

/// `IVP_Compact_Surface`: mass properties and the root of the ledge tree.
///
/// A MOPP surface (older vbsps' power-4 terrain, model type 1) has the same header with other
/// meanings after `byte_size`: `offset_ledgetree_root` is the offset of its Havok MOPP code
/// (kept as bytes, a [`Gap`]), `dummy` holds the offset of its first ledge, a zero and `MOPP`.
/// Its ledges (one per triangle, two faces each way) lie back to back and share one point
/// array.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SurfaceHeader {
    pub mass_center: [f32; 3],
    pub rotation_inertia: [f32; 3],
    pub upper_limit_radius: f32,
    /// 8 bits.
    pub max_factor_surface_deviation: u8,
    /// 24 bits: the surface's size in bytes.
    pub byte_size: u32,
    /// Relative to the surface start.
    pub offset_ledgetree_root: i32,
    /// Unused words; the last is `IVPS` in Valve's data.
    pub dummy: [i32; 3],
}

/// `IVP_Compact_Edge`: one directed edge of a triangle; its twin runs the other way in the
/// neighbouring triangle, `opposite_index` edge slots away (4-byte slots counted from the
/// ledge's triangle array, the triangle's own header word being slot 0 of each triangle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Edge {
    /// Index into the ledge's points (relative to its `c_point_offset`).
    pub start_point_index: u16,
    /// 15-bit signed.
    pub opposite_index: i16,
    pub is_virtual: bool,
}

/// `IVP_Compact_Triangle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Triangle {
    /// 12 bits.
    pub tri_index: u16,
    /// 12 bits.
    pub pierce_index: u16,
    /// 7 bits: the surface-property index (into the key data's material table, 0 = default).
    pub material_index: u8,
    pub is_virtual: bool,
    pub edges: [Edge; 3],
}

/// `IVP_Compact_Ledge`: one convex piece.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ledge {
    /// Where the ledge header lies, relative to the surface start.
    pub offset: u32,
    /// The ledge's point 0, relative to the ledge.
    pub c_point_offset: i32,
    /// `client_data` (Valve: the convex's index) or, for an inner hull, the tree node's offset.
    pub client_data: i32,
    /// 2 bits.
    pub has_children_flag: u8,
    /// 2 bits.
    pub is_compact_flag: u8,
    /// 4 bits.
    pub dummy: u8,
    /// 24 bits: the ledge's size with its points, in 16-byte units.
    pub size_div_16: u32,
    pub for_future_use: i16,
    pub triangles: Vec<Triangle>,
}

/// `IVP_Compact_Ledgetree_Node`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgeTreeNode {
    /// Where the node lies, relative to the surface start.
    pub offset: u32,
    /// Relative to this node; 0 for a terminal node. The left child follows the node.
    pub offset_right_node: i32,
    /// Relative to this node; 0 when the node has no ledge.
    pub offset_compact_ledge: i32,
    pub center: [f32; 3],
    pub radius: f32,
    pub box_sizes: [u8; 3],
    pub free_0: u8,
}

/// Points lying back to back from `offset`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointRun {
    pub offset: u32,
    /// x, y, z (IVP space: metres, y down) and the spare fourth float.
    pub points: Vec<[f32; 4]>,
}

/// Bytes no record claims (padding, or data of a kind not read here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub offset: u32,
    pub bytes: Vec<u8>,
}

/// A whole compact surface: the records at their offsets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactSurface {
    pub header: SurfaceHeader,
    /// Sorted by offset.
    pub ledges: Vec<Ledge>,
    /// Sorted by offset.
    pub nodes: Vec<LedgeTreeNode>,
    /// Sorted by offset.
    pub points: Vec<PointRun>,
    /// Sorted by offset.
    pub gaps: Vec<Gap>,
    /// Total length in bytes (the solid's bytes from the surface start).
    pub len: u32,
}

/// Bounds-checked little-endian reads at positions of one surface.
struct At<'a> {
    data: &'a [u8],
    base: u64,
}

impl At<'_> {
    fn array<const N: usize>(&self, pos: usize, structure: &'static str) -> Result<[u8; N]> {
        pos.checked_add(N)
            .and_then(|end| self.data.get(pos..end))
            .map(|b| b.try_into().expect("slice of N bytes"))
            .ok_or_else(|| {
                PhysError::new(
                    self.base + pos as u64,
                    structure,
                    format!(
                        "{N} bytes needed, the surface ends at byte {}",
                        self.base + self.data.len() as u64
                    ),
                )
            })
    }
    fn u32(&self, pos: usize, structure: &'static str) -> Result<u32> {
        self.array::<4>(pos, structure).map(u32::from_le_bytes)
    }
    fn i32(&self, pos: usize, structure: &'static str) -> Result<i32> {
        self.array::<4>(pos, structure).map(i32::from_le_bytes)
    }
    fn f32s<const N: usize>(&self, pos: usize, structure: &'static str) -> Result<[f32; N]> {
        let mut out = [0.0; N];
        for (i, v) in out.iter_mut().enumerate() {
            *v = f32::from_le_bytes(self.array::<4>(pos + 4 * i, structure)?);
        }
        Ok(out)
    }
    fn err(&self, pos: usize, structure: &'static str, message: impl Into<String>) -> PhysError {
        PhysError::new(self.base + pos as u64, structure, message)
    }
    /// `from + rel`, which must leave room for `size` bytes.
    fn target(&self, from: usize, rel: i32, size: usize, structure: &'static str) -> Result<usize> {
        let to = from as i64 + rel as i64;
        if to < 0 || to as u64 + size as u64 > self.data.len() as u64 {
            return Err(self.err(
                from,
                structure,
                format!(
                    "offset {rel} leads to byte {to}, outside the surface of {} bytes",
                    self.data.len()
                ),
            ));
        }
        Ok(to as usize)
    }
}

impl Edge {
    pub fn from_bits(w: u32) -> Edge {
        Edge {
            start_point_index: (w & 0xffff) as u16,
            // sign-extend the 15-bit field
            opposite_index: ((((w >> 16) & 0x7fff) << 17) as i32 >> 17) as i16,
            is_virtual: w >> 31 != 0,
        }
    }
    pub fn to_bits(self) -> u32 {
        self.start_point_index as u32
            | ((self.opposite_index as u32 & 0x7fff) << 16)
            | (self.is_virtual as u32) << 31
    }
}

impl Triangle {
    pub fn from_words(w: [u32; 4]) -> Triangle {
        Triangle {
            tri_index: (w[0] & 0xfff) as u16,
            pierce_index: ((w[0] >> 12) & 0xfff) as u16,
            material_index: ((w[0] >> 24) & 0x7f) as u8,
            is_virtual: w[0] >> 31 != 0,
            edges: [
                Edge::from_bits(w[1]),
                Edge::from_bits(w[2]),
                Edge::from_bits(w[3]),
            ],
        }
    }
    pub fn to_words(&self) -> [u32; 4] {
        [
            (self.tri_index as u32 & 0xfff)
                | (self.pierce_index as u32 & 0xfff) << 12
                | (self.material_index as u32 & 0x7f) << 24
                | (self.is_virtual as u32) << 31,
            self.edges[0].to_bits(),
            self.edges[1].to_bits(),
            self.edges[2].to_bits(),
        ]
    }
}

impl Ledge {
    /// Bytes of the header and triangles (its points lie elsewhere).
    pub fn record_len(&self) -> usize {
        RECORD_SIZE * (1 + self.triangles.len())
    }

    /// Offset of point `index` relative to the surface start.
    pub fn point_offset(&self, index: u16) -> i64 {
        self.offset as i64 + self.c_point_offset as i64 + RECORD_SIZE as i64 * index as i64
    }

    /// The number of points its edges name (highest index + 1).
    pub fn point_count(&self) -> usize {
        self.triangles
            .iter()
            .flat_map(|t| t.edges.iter().map(|e| e.start_point_index as usize + 1))
            .max()
            .unwrap_or(0)
    }

    /// The edge `opposite_index` slots away from edge `e` of triangle `t`, as (triangle, edge).
    pub fn twin(&self, t: usize, e: usize) -> Option<(usize, usize)> {
        let slot = (4 * t + 1 + e) as i64 + self.triangles[t].edges[e].opposite_index as i64;
        if slot < 0 || slot % 4 == 0 {
            return None;
        }
        let (tt, ee) = ((slot / 4) as usize, (slot % 4 - 1) as usize);
        (tt < self.triangles.len()).then_some((tt, ee))
    }
}

/// Offsets of a MOPP surface's ledges: back to back from `first` up to the point array (where
/// the first ledge's points start).
fn mopp_ledges(at: &At<'_>, first: i32) -> Result<Vec<usize>> {
    let mut l = at.target(0, first, RECORD_SIZE, "MOPP surface header")?;
    let points = at.target(l, at.i32(l, LEDGE)?, RECORD_SIZE, LEDGE)?;
    let mut out = Vec::new();
    while l < points {
        let n_triangles = i16::from_le_bytes(at.array::<2>(l + 12, LEDGE)?);
        if n_triangles <= 0 {
            return Err(at.err(l, LEDGE, format!("triangle count {n_triangles} in a MOPP ledge")));
        }
        out.push(l);
        l += RECORD_SIZE * (1 + n_triangles as usize);
    }
    Ok(out)
}

/// The records' names in errors.
const HDR: &str = "compact surface header";
const NODE: &str = "ledge tree node";
const LEDGE: &str = "compact ledge";
const TRI: &str = "compact triangle";
const POINT: &str = "compact point";

impl SurfaceHeader {
    fn read(at: &At<'_>) -> Result<SurfaceHeader> {
        let mass_center = at.f32s::<3>(0, HDR)?;
        let rotation_inertia = at.f32s::<3>(12, HDR)?;
        let [upper_limit_radius] = at.f32s::<1>(24, HDR)?;
        let packed = at.u32(28, HDR)?;
        let offset_ledgetree_root = at.i32(32, HDR)?;
        let dummy = [at.i32(36, HDR)?, at.i32(40, HDR)?, at.i32(44, HDR)?];
        Ok(SurfaceHeader {
            mass_center,
            rotation_inertia,
            upper_limit_radius,
            max_factor_surface_deviation: (packed & 0xff) as u8,
            byte_size: packed >> 8,
            offset_ledgetree_root,
            dummy,
        })
    }
}

impl LedgeTreeNode {
    /// The node at `n`, which must lie whole within the surface.
    fn read(at: &At<'_>, n: usize) -> Result<LedgeTreeNode> {
        if n + NODE_SIZE > at.data.len() {
            return Err(at.err(n, NODE, "node runs past the end of the surface"));
        }
        let offset_right_node = at.i32(n, NODE)?;
        let offset_compact_ledge = at.i32(n + 4, NODE)?;
        let [cx, cy, cz, radius] = at.f32s::<4>(n + 8, NODE)?;
        let [b0, b1, b2, free_0] = at.array::<4>(n + 24, NODE)?;
        Ok(LedgeTreeNode {
            offset: n as u32,
            offset_right_node,
            offset_compact_ledge,
            center: [cx, cy, cz],
            radius,
            box_sizes: [b0, b1, b2],
            free_0,
        })
    }
}

impl LedgeTreeNode {
    /// Pushes the node's children onto `stack` (the right one first, to pop the left first)
    /// and its ledge onto `ledges`; each must lie after the node, inside the surface.
    fn follow(&self, at: &At<'_>, stack: &mut Vec<usize>, ledges: &mut Vec<usize>) -> Result<()> {
        let n = self.offset as usize;
        let (right, ledge) = (self.offset_right_node, self.offset_compact_ledge);
        if right != 0 {
            if right <= NODE_SIZE as i32 {
                let message = format!("right child offset {right} does not lie after the left child");
                return Err(at.err(n, NODE, message));
            }
            stack.push(at.target(n, right, NODE_SIZE, NODE)?);
            stack.push(n + NODE_SIZE);
        }
        if ledge != 0 {
            ledges.push(at.target(n, ledge, RECORD_SIZE, NODE)?);
        } else if right == 0 {
            return Err(at.err(n, NODE, "terminal node without a ledge"));
        }
        Ok(())
    }
}

/// The ledge tree's nodes and the offsets of the ledges they name (a MOPP surface's ledges,
/// which have no tree), both sorted by offset.
fn read_tree(at: &At<'_>, header: &SurfaceHeader) -> Result<(Vec<LedgeTreeNode>, Vec<usize>)> {
    let mut nodes = Vec::new();
    let mut ledge_offsets = Vec::new();
    // The tree: offsets only grow (left child right after its parent, right child further
    // on), so a walk always ends, hostile data included. A MOPP surface has none: its
    // ledges lie back to back.
    let mut stack = if header.dummy[2] == MOPP {
        ledge_offsets = mopp_ledges(at, header.dummy[0])?;
        Vec::new()
    } else {
        vec![at.target(0, header.offset_ledgetree_root, NODE_SIZE, HDR)?]
    };
    while let Some(n) = stack.pop() {
        let node = LedgeTreeNode::read(at, n)?;
        node.follow(at, &mut stack, &mut ledge_offsets)?;
        nodes.push(node);
    }
    nodes.sort_by_key(|n| n.offset);
    ledge_offsets.sort_unstable();
    ledge_offsets.dedup();
    Ok((nodes, ledge_offsets))
}

impl Ledge {
    /// The ledge header and triangles at `l`.
    fn read(at: &At<'_>, l: usize) -> Result<Ledge> {
        let c_point_offset = at.i32(l, LEDGE)?;
        let client_data = at.i32(l + 4, LEDGE)?;
        let flags = at.u32(l + 8, LEDGE)?;
        let [n0, n1, f0, f1] = at.array::<4>(l + 12, LEDGE)?;
        let n_triangles = i16::from_le_bytes([n0, n1]);
        if n_triangles < 0 {
            return Err(at.err(l, LEDGE, format!("negative triangle count {n_triangles}")));
        }
        let n = n_triangles as usize;
        if l + RECORD_SIZE * (1 + n) > at.data.len() {
            return Err(at.err(l, LEDGE, format!("{n} triangles run past the end of the surface")));
        }
        let triangles = read_triangles(at, l, n)?;
        Ok(Ledge {
            offset: l as u32,
            c_point_offset,
            client_data,
            has_children_flag: (flags & 3) as u8,
            is_compact_flag: ((flags >> 2) & 3) as u8,
            dummy: ((flags >> 4) & 15) as u8,
            size_div_16: flags >> 8,
            for_future_use: i16::from_le_bytes([f0, f1]),
            triangles,
        })
    }

    /// Appends the offset of every point the ledge's edges name, each of which must lie
    /// within the surface.
    fn collect_point_offsets(&self, at: &At<'_>, out: &mut Vec<usize>) -> Result<()> {
        for t in &self.triangles {
            for e in &t.edges {
                let p = self.point_offset(e.start_point_index);
                if p < 0 || p as u64 + RECORD_SIZE as u64 > at.data.len() as u64 {
                    let message = format!(
                        "point {} at byte {p} lies outside the surface",
                        e.start_point_index
                    );
                    return Err(at.err(self.offset as usize, POINT, message));
                }
                out.push(p as usize);
            }
        }
        Ok(())
    }
}

/// The `n` triangles after the ledge header at `l`.
fn read_triangles(at: &At<'_>, l: usize, n: usize) -> Result<Vec<Triangle>> {
    let mut triangles = Vec::with_capacity(n);
    for t in 0..n {
        let p = l + RECORD_SIZE * (1 + t);
        let w = [
            at.u32(p, TRI)?,
            at.u32(p + 4, TRI)?,
            at.u32(p + 8, TRI)?,
            at.u32(p + 12, TRI)?,
        ];
        triangles.push(Triangle::from_words(w));
    }
    Ok(triangles)
}

/// The ledges at `offsets` and the offsets of their points (sorted, each once).
fn read_ledges(at: &At<'_>, offsets: &[usize]) -> Result<(Vec<Ledge>, Vec<usize>)> {
    let mut ledges = Vec::with_capacity(offsets.len());
    let mut point_offsets = Vec::new();
    for &l in offsets {
        let ledge = Ledge::read(at, l)?;
        ledge.collect_point_offsets(at, &mut point_offsets)?;
        ledges.push(ledge);
    }
    point_offsets.sort_unstable();
    point_offsets.dedup();
    Ok((ledges, point_offsets))
}

/// The points at the sorted `offsets`, gathered into runs of points lying back to back.
fn read_point_runs(at: &At<'_>, offsets: Vec<usize>) -> Result<Vec<PointRun>> {
    let mut points: Vec<PointRun> = Vec::new();
    for p in offsets {
        let v = at.f32s::<4>(p, POINT)?;
        match points.last_mut() {
            Some(run) if run.offset as usize + RECORD_SIZE * run.points.len() == p => run.points.push(v),
            _ => points.push(PointRun {
                offset: p as u32,
                points: vec![v],
            }),
        }
    }
    Ok(points)
}

/// Every record's (offset, length, name), sorted.
fn record_spans(
    ledges: &[Ledge],
    nodes: &[LedgeTreeNode],
    points: &[PointRun],
) -> Vec<(usize, usize, &'static str)> {
    let mut spans: Vec<(usize, usize, &'static str)> = vec![(0, SURFACE_HEADER_SIZE, HDR)];
    spans.extend(ledges.iter().map(|l| (l.offset as usize, l.record_len(), LEDGE)));
    spans.extend(nodes.iter().map(|n| (n.offset as usize, NODE_SIZE, NODE)));
    spans.extend(
        points
            .iter()
            .map(|r| (r.offset as usize, RECORD_SIZE * r.points.len(), POINT)),
    );
    spans.sort_unstable();
    spans
}

/// The bytes no record claims, as gaps; an error when two records overlap (every byte
/// belongs to at most one record).
fn find_gaps(
    at: &At<'_>,
    ledges: &[Ledge],
    nodes: &[LedgeTreeNode],
    points: &[PointRun],
) -> Result<Vec<Gap>> {
    let data = at.data;
    let spans = record_spans(ledges, nodes, points);
    let mut gaps = Vec::new();
    let mut end = 0;
    for &(start, len, what) in &spans {
        if start < end {
            let message = format!("overlaps the record before it (which ends at byte {end})");
            return Err(at.err(start, what, message));
        }
        if start > end {
            gaps.push(Gap::of(data, end..start));
        }
        end = start + len;
    }
    if end < data.len() {
        gaps.push(Gap::of(data, end..data.len()));
    }
    Ok(gaps)
}

impl Gap {
    /// The bytes of `data` in `range`.
    fn of(data: &[u8], range: std::ops::Range<usize>) -> Gap {
        Gap {
            offset: range.start as u32,
            bytes: data[range].to_vec(),
        }
    }
}

/// Copies `bytes` into `out` at `pos`.
fn put(out: &mut [u8], pos: usize, bytes: &[u8]) {
    out[pos..pos + bytes.len()].copy_from_slice(bytes);
}

impl SurfaceHeader {
    fn write_into(&self, out: &mut [u8]) {
        let h = self;
        for (i, v) in h
            .mass_center
            .iter()
            .chain(&h.rotation_inertia)
            .chain([&h.upper_limit_radius])
            .enumerate()
        {
            put(out, 4 * i, &v.to_le_bytes());
        }
        put(
            out,
            28,
            &(h.max_factor_surface_deviation as u32 | h.byte_size << 8).to_le_bytes(),
        );
        put(out, 32, &h.offset_ledgetree_root.to_le_bytes());
        for (i, d) in h.dummy.iter().enumerate() {
            put(out, 36 + 4 * i, &d.to_le_bytes());
        }
    }
}

impl Ledge {
    /// The ledge header and triangles at the ledge's offset.
    fn write_into(&self, out: &mut [u8]) {
        let (l, p) = (self, self.offset as usize);
        let flags = (l.has_children_flag as u32 & 3)
            | (l.is_compact_flag as u32 & 3) << 2
            | (l.dummy as u32 & 15) << 4
            | l.size_div_16 << 8;
        put(out, p, &l.c_point_offset.to_le_bytes());
        put(out, p + 4, &l.client_data.to_le_bytes());
        put(out, p + 8, &flags.to_le_bytes());
        put(out, p + 12, &(l.triangles.len() as i16).to_le_bytes());
        put(out, p + 14, &l.for_future_use.to_le_bytes());
        for (t, tri) in l.triangles.iter().enumerate() {
            for (i, w) in tri.to_words().iter().enumerate() {
                put(out, p + RECORD_SIZE * (1 + t) + 4 * i, &w.to_le_bytes());
            }
        }
    }
}

impl LedgeTreeNode {
    fn write_into(&self, out: &mut [u8]) {
        let (n, p) = (self, self.offset as usize);
        put(out, p, &n.offset_right_node.to_le_bytes());
        put(out, p + 4, &n.offset_compact_ledge.to_le_bytes());
        for (i, v) in n.center.iter().chain([&n.radius]).enumerate() {
            put(out, p + 8 + 4 * i, &v.to_le_bytes());
        }
        put(
            out,
            p + 24,
            &[n.box_sizes[0], n.box_sizes[1], n.box_sizes[2], n.free_0],
        );
    }
}

impl PointRun {
    fn write_into(&self, out: &mut [u8]) {
        for (i, pt) in self.points.iter().enumerate() {
            for (j, v) in pt.iter().enumerate() {
                put(
                    out,
                    self.offset as usize + RECORD_SIZE * i + 4 * j,
                    &v.to_le_bytes(),
                );
            }
        }
    }
}

impl CompactSurface {
    /// Reads the surface in `data` (which starts at the surface header); `base` is the absolute
    /// offset of `data[0]` for errors.
    pub fn parse(data: &[u8], base: u64) -> Result<CompactSurface> {
        let at = At { data, base };
        let header = SurfaceHeader::read(&at)?;
        if data.len() > u32::MAX as usize {
            return Err(at.err(0, HDR, "surface larger than 4 GiB"));
        }
        let (nodes, ledge_offsets) = read_tree(&at, &header)?;
        let (ledges, point_offsets) = read_ledges(&at, &ledge_offsets)?;
        let points = read_point_runs(&at, point_offsets)?;
        let gaps = find_gaps(&at, &ledges, &nodes, &points)?;
        Ok(CompactSurface {
            header,
            ledges,
            nodes,
            points,
            gaps,
            len: data.len() as u32,
        })
    }

    /// The surface's bytes: every record at its offset.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len as usize];
        self.write_into(&mut out);
        out
    }

    /// Appends the surface's bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + self.len as usize, 0);
        self.write_into(&mut out[start..]);
    }

    fn write_into(&self, out: &mut [u8]) {
        self.header.write_into(out);
        for l in &self.ledges {
            l.write_into(out);
        }
        for n in &self.nodes {
            n.write_into(out);
        }
        for run in &self.points {
            run.write_into(out);
        }
        for g in &self.gaps {
            put(out, g.offset as usize, &g.bytes);
        }
    }

    /// The point at `offset` (relative to the surface start), if a run holds it.
    pub fn point_at(&self, offset: i64) -> Option<[f32; 3]> {
        let i = self
            .points
            .partition_point(|r| (r.offset as i64) <= offset)
            .checked_sub(1)?;
        let run = &self.points[i];
        let rel = offset - run.offset as i64;
        if rel % RECORD_SIZE as i64 != 0 {
            return None;
        }
        let p = run.points.get((rel / RECORD_SIZE as i64) as usize)?;
        Some([p[0], p[1], p[2]])
    }

    /// Point `index` of `ledge`.
    pub fn ledge_point(&self, ledge: &Ledge, index: u16) -> Option<[f32; 3]> {
        self.point_at(ledge.point_offset(index))
    }

    /// Index into `ledges` of the ledge at `offset`.
    pub fn ledge_at(&self, offset: i64) -> Option<usize> {
        self.ledges
            .binary_search_by_key(&offset, |l| l.offset as i64)
            .ok()
    }

    /// Ledges named by terminal tree nodes (the convex pieces; inner nodes may name hulls).
    pub fn terminal_ledges(&self) -> impl Iterator<Item = &Ledge> + '_ {
        self.nodes
            .iter()
            .filter(|n| n.offset_right_node == 0)
            .filter_map(|n| self.ledge_at(n.offset as i64 + n.offset_compact_ledge as i64))
            .map(|i| &self.ledges[i])
    }

    /// Whether this is a MOPP surface (ledges without a tree, Havok MOPP code as a gap).
    pub fn is_mopp(&self) -> bool {
        self.header.dummy[2] == MOPP
    }

    /// Number of triangles in every ledge.
    pub fn triangle_count(&self) -> usize {
        self.ledges.iter().map(|l| l.triangles.len()).sum()
    }

    /// Structural invariants beyond what reading checks. `tolerance` is in IVP units (metres).
    /// Returns one message per violation.
    pub fn verify(&self, tolerance: f32) -> Vec<String> {
        let mut bad = Vec::new();
        if self.header.dummy[2] != IVPS && !self.is_mopp() {
            bad.push("surface header lacks the IVPS (or MOPP) tag".to_string());
        }
        for (li, l) in self.ledges.iter().enumerate() {
            let used = verify_twins(li, l, &mut bad);
            // A closed triangulated sphere: V = T/2 + 2.
            if !l.triangles.is_empty() && used != l.triangles.len() / 2 + 2 {
                bad.push(format!(
                    "ledge {li}: {} points for {} triangles, not a closed surface",
                    used,
                    l.triangles.len()
                ));
            }
            // A MOPP surface's ledges do not set the compact flag.
            let compact = l.is_compact_flag == 1 || self.is_mopp();
            if !compact || l.has_children_flag == 0 && !self.is_convex(l, tolerance) {
                bad.push(format!("ledge {li}: not a convex compact ledge"));
            }
        }
        self.verify_node_spheres(tolerance, &mut bad);
        bad.truncate(50);
        bad
    }

    /// Every ledge point lies in the sphere of each node above it.
    fn verify_node_spheres(&self, tolerance: f32, bad: &mut Vec<String>) {
        let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
        if let Some(root) = self.node_index(self.header.offset_ledgetree_root as i64) {
            stack.push((root, vec![]));
        }
        while let Some((n, mut above)) = stack.pop() {
            above.push(n);
            let node = &self.nodes[n];
            if node.offset_compact_ledge != 0
                && let Some(li) = self.ledge_at(node.offset as i64 + node.offset_compact_ledge as i64)
            {
                self.verify_ledge_in_spheres(li, &above, tolerance, bad);
            }
            if node.offset_right_node != 0 {
                for child in [
                    node.offset as i64 + NODE_SIZE as i64,
                    node.offset as i64 + node.offset_right_node as i64,
                ] {
                    if let Some(c) = self.node_index(child) {
                        stack.push((c, above.clone()));
                    }
                }
            }
        }
    }

    /// Every point of ledge `li` lies in the sphere of each node of `above`.
    fn verify_ledge_in_spheres(&self, li: usize, above: &[usize], tolerance: f32, bad: &mut Vec<String>) {
        let l = &self.ledges[li];
        for tri in &l.triangles {
            for e in &tri.edges {
                let Some(p) = self.ledge_point(l, e.start_point_index) else {
                    continue;
                };
                for &a in above {
                    let s = &self.nodes[a];
                    let d = ((p[0] - s.center[0]).powi(2)
                        + (p[1] - s.center[1]).powi(2)
                        + (p[2] - s.center[2]).powi(2))
                    .sqrt();
                    if d > s.radius + tolerance {
                        bad.push(format!(
                            "ledge {li}: point {} lies {d} from the centre of node at byte {}, radius {}",
                            e.start_point_index, s.offset, s.radius
                        ));
                    }
                }
            }
        }
    }

    fn node_index(&self, offset: i64) -> Option<usize> {
        self.nodes.binary_search_by_key(&offset, |n| n.offset as i64).ok()
    }

    /// Whether every point of `l` lies behind the plane of each of its triangles.
    fn is_convex(&self, l: &Ledge, tolerance: f32) -> bool {
        let pts: Vec<[f64; 3]> = l
            .triangles
            .iter()
            .flat_map(|t| t.edges.iter())
            .filter_map(|e| self.ledge_point(l, e.start_point_index))
            .map(|p| p.map(f64::from))
            .collect();
        l.triangles.iter().all(|t| {
            let corners = t.edges.map(|e| {
                self.ledge_point(l, e.start_point_index)
                    .unwrap_or_default()
                    .map(f64::from)
            });
            let Some((a, n, len)) = reliable_plane(corners, tolerance) else {
                return true;
            };
            let side =
                |p: &[f64; 3]| ((p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] + (p[2] - a[2]) * n[2]) / len;
            // IVP winds triangles either way round; all points must lie on one side.
            let tol = tolerance as f64;
            pts.iter().all(|p| side(p) <= tol) || pts.iter().all(|p| side(p) >= -tol)
        })
    }
}

/// Checks that each edge of ledge `li` has a twin that points back and joins the same points
/// the other way; returns how many distinct points the edges name.
fn verify_twins(li: usize, l: &Ledge, bad: &mut Vec<String>) -> usize {
    let mut used = Vec::new();
    for (t, tri) in l.triangles.iter().enumerate() {
        for e in 0..3 {
            used.push(tri.edges[e].start_point_index);
            if let Err(problem) = check_twin(l, t, e) {
                bad.push(format!("ledge {li} triangle {t} edge {e}: {problem}"));
            }
        }
    }
    used.sort_unstable();
    used.dedup();
    used.len()
}

/// Edge `e` of triangle `t` has a twin that points back and joins the same points the other
/// way; otherwise what is wrong.
fn check_twin(l: &Ledge, t: usize, e: usize) -> std::result::Result<(), &'static str> {
    let tri = &l.triangles[t];
    let (tt, ee) = l.twin(t, e).ok_or("twin outside the ledge")?;
    if l.twin(tt, ee) != Some((t, e)) {
        return Err("its twin does not point back");
    }
    // The twin runs the other way: it starts where this edge ends and vice versa.
    let end = tri.edges[(e + 1) % 3].start_point_index;
    let twin = &l.triangles[tt].edges;
    if twin[ee].start_point_index != end
        || twin[(ee + 1) % 3].start_point_index != tri.edges[e].start_point_index
    {
        return Err("its twin joins other points");
    }
    Ok(())
}

/// The plane of triangle `[a, b, c]` as (a, unnormalised normal, its length); `None` for a
/// sliver (thinner than the tolerance, or than 1% of its length), which has no reliable plane
/// of its own: its corners' rounding tilts it far more than the tolerance.
fn reliable_plane([a, b, c]: [[f64; 3]; 3], tolerance: f32) -> Option<([f64; 3], [f64; 3], f64)> {
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    let edge = |p: [f64; 3], q: [f64; 3]| {
        ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
    };
    let longest = edge(a, b).max(edge(b, c)).max(edge(c, a));
    let height = len / longest.max(1e-12);
    if len < 1e-12 || height < tolerance as f64 || height < 0.01 * longest {
        return None;
    }
    Some((a, n, len))
}
