//! The vis input: clusters and the portals between them, as Valve's PRT1 portal file holds
//! them. Read from `MAP.prt` ([`Portals::parse_prt`]) or rebuilt from a compiled BSP's tree
//! ([`crate::tree::portals_from_bsp`]).

use std::fmt::Write as _;

use crate::error::VvisError;

/// Index of a portal in [`Portals::portals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortalId(pub u32);

/// One portal of the file: a convex polygon between two clusters. Its points are wound so
/// that their plane (from points 0, 1, 2, as vvis computes it) faces `clusters[0]`... exactly
/// as the file stores them; vvis derives both directions from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Portal {
    pub clusters: [u32; 2],
    pub points: Vec<[f64; 3]>,
}

/// Clusters and portals: the whole input of the visibility stage.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Portals {
    pub num_clusters: u32,
    pub portals: Vec<Portal>,
}

/// Valve's cap on points in one portal winding (vvis `MAX_POINTS_ON_WINDING`).
pub const MAX_POINTS_ON_WINDING: usize = 64;
/// Valve's cap on clusters: each holds at least one leaf, and a v20 map has at most
/// `MAX_MAP_LEAFS` (65536) of them. The PVS grows as its square (512 MiB at the cap).
pub const MAX_CLUSTERS: u32 = 65536;
/// Valve's cap on portals (vvis `MAX_PORTALS`, counting both directions).
pub const MAX_PORTALS: usize = 65536;

impl Portals {
    /// Parses a PRT1 portal file: `PRT1`, cluster count, portal count, then one line per portal:
    /// `npoints cluster0 cluster1 (x y z ) (x y z ) ...`.
    pub fn parse_prt(text: &str) -> Result<Portals, VvisError> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let (num_clusters, num_portals) = read_prt_header(&mut lines)?;
        let mut portals = Vec::with_capacity(num_portals);
        for i in 0..num_portals {
            let (n, line) = lines
                .next()
                .ok_or_else(|| prt_error(0, format!("file ends before portal {i}")))?;
            portals.push(parse_portal_line(line, n, i, num_clusters)?);
        }
        Ok(Portals {
            num_clusters,
            portals,
        })
    }

    /// Writes the PRT1 text the way vbsp does (integers when within 0.001, else `%f`).
    pub fn to_prt(&self) -> String {
        let mut out = format!("PRT1\n{}\n{}\n", self.num_clusters, self.portals.len());
        for p in &self.portals {
            let _ = write!(out, "{} {} {} ", p.points.len(), p.clusters[0], p.clusters[1]);
            for pt in &p.points {
                out.push('(');
                for &v in pt {
                    if (v - v.round()).abs() < 0.001 {
                        let _ = write!(out, "{} ", v.round() as i64);
                    } else {
                        let _ = write!(out, "{v:.6} ");
                    }
                }
                out.push_str(") ");
            }
            out.push('\n');
        }
        out
    }

    /// Structural checks: clusters in range, portals between two different clusters, at least
    /// three finite points, within Valve's limits.
    pub fn verify(&self) -> Result<(), VvisError> {
        if self.portals.len() * 2 >= MAX_PORTALS {
            return Err(VvisError::Invalid(format!(
                "{} portals exceed Valve's limit",
                self.portals.len()
            )));
        }
        for (i, p) in self.portals.iter().enumerate() {
            verify_portal(i, p, self.num_clusters)?;
        }
        Ok(())
    }

    /// A short human-readable dump (one line per portal) for snapshot tests and debugging.
    pub fn dump(&self) -> String {
        let mut out = format!("clusters {} portals {}\n", self.num_clusters, self.portals.len());
        for (i, p) in self.portals.iter().enumerate() {
            let _ = write!(out, "portal {i}: {} -> {} [", p.clusters[0], p.clusters[1]);
            for pt in &p.points {
                let _ = write!(out, " ({:.2} {:.2} {:.2})", pt[0], pt[1], pt[2]);
            }
            out.push_str(" ]\n");
        }
        out
    }
}

/// A PRT error on (0-based) line `line`.
fn prt_error(line: usize, msg: String) -> VvisError {
    VvisError::Prt { line: line + 1, msg }
}

/// The PRT1 header: the magic, then the cluster and portal counts, each within Valve's limits
/// (checked as soon as read: a count from text sizes what is allocated).
fn read_prt_header<'t>(
    lines: &mut impl Iterator<Item = (usize, &'t str)>,
) -> Result<(u32, usize), VvisError> {
    read_prt_magic(lines)?;
    let num_clusters = read_header_number(lines, "cluster count")?;
    // A count from text sizes the PVS (its square, in bits): bound it before anything
    // allocates by it.
    if num_clusters > MAX_CLUSTERS {
        return Err(prt_error(
            1,
            format!("{num_clusters} clusters, more than Valve's limit of {MAX_CLUSTERS}"),
        ));
    }
    let num_portals = read_header_number(lines, "portal count")? as usize;
    if num_portals * 2 >= MAX_PORTALS {
        return Err(prt_error(
            1,
            format!(
                "{num_portals} portals, more than Valve's limit of {}",
                MAX_PORTALS / 2
            ),
        ));
    }
    Ok((num_clusters, num_portals))
}

/// The first line, `PRT1`.
fn read_prt_magic<'t>(lines: &mut impl Iterator<Item = (usize, &'t str)>) -> Result<(), VvisError> {
    let (n, magic) = lines
        .next()
        .ok_or_else(|| prt_error(0, "empty portal file".into()))?;
    if !magic.trim().eq_ignore_ascii_case("PRT1") {
        return Err(prt_error(
            n,
            format!("not a PRT1 portal file (starts with {:?})", magic.trim()),
        ));
    }
    Ok(())
}

/// A header line's count.
fn read_header_number<'t>(
    lines: &mut impl Iterator<Item = (usize, &'t str)>,
    what: &str,
) -> Result<u32, VvisError> {
    let (n, l) = lines
        .next()
        .ok_or_else(|| prt_error(0, format!("missing {what}")))?;
    l.trim()
        .parse::<u32>()
        .map_err(|_| prt_error(n, format!("bad {what} {:?}", l.trim())))
}

/// Portal `i`'s line (line `n`): its point count, clusters (below `num_clusters`) and points.
fn parse_portal_line(line: &str, n: usize, i: usize, num_clusters: u32) -> Result<Portal, VvisError> {
    // Parentheses are separators; Valve writes `(x y z ) `.
    let cleaned: String = line
        .chars()
        .map(|c| if c == '(' || c == ')' { ' ' } else { c })
        .collect();
    let mut fields = PortalFields {
        fields: cleaned.split_ascii_whitespace(),
        line: n,
        portal: i,
    };
    let count = fields.point_count()?;
    let mut clusters = [0u32; 2];
    for c in &mut clusters {
        *c = fields.cluster(num_clusters)?;
    }
    let mut points = Vec::with_capacity(count);
    for _ in 0..count {
        points.push(fields.point()?);
    }
    Ok(Portal { clusters, points })
}

/// The fields of one portal's line, read in turn; errors name the line and the portal.
struct PortalFields<'l> {
    fields: std::str::SplitAsciiWhitespace<'l>,
    line: usize,
    portal: usize,
}

impl<'l> PortalFields<'l> {
    fn error(&self, msg: String) -> VvisError {
        prt_error(self.line, format!("portal {}: {msg}", self.portal))
    }

    fn next(&mut self, what: &str) -> Result<&'l str, VvisError> {
        self.fields
            .next()
            .ok_or_else(|| self.error(format!("missing {what}")))
    }

    /// The point count, 3 to [`MAX_POINTS_ON_WINDING`].
    fn point_count(&mut self) -> Result<usize, VvisError> {
        let count: usize = self
            .next("point count")?
            .parse()
            .map_err(|_| self.error("bad point count".into()))?;
        if !(3..=MAX_POINTS_ON_WINDING).contains(&count) {
            return Err(self.error(format!("{count} points (3 to {MAX_POINTS_ON_WINDING} allowed)")));
        }
        Ok(count)
    }

    /// A cluster number below `num_clusters`.
    fn cluster(&mut self, num_clusters: u32) -> Result<u32, VvisError> {
        let c: u32 = self
            .next("cluster")?
            .parse()
            .map_err(|_| self.error("bad cluster number".into()))?;
        if c >= num_clusters {
            return Err(self.error(format!("cluster {c} out of range (0..{num_clusters})")));
        }
        Ok(c)
    }

    /// A point of finite coordinates.
    fn point(&mut self) -> Result<[f64; 3], VvisError> {
        let mut p = [0.0f64; 3];
        for v in &mut p {
            *v = self
                .next("coordinate")?
                .parse()
                .map_err(|_| self.error("bad coordinate".into()))?;
            if !v.is_finite() {
                return Err(self.error("coordinate is not finite".into()));
            }
        }
        Ok(p)
    }
}

/// [`Portals::verify`] for portal `i`: clusters in range and different, 3 to
/// [`MAX_POINTS_ON_WINDING`] finite points.
fn verify_portal(i: usize, p: &Portal, num_clusters: u32) -> Result<(), VvisError> {
    if p.clusters.iter().any(|&c| c >= num_clusters) {
        return Err(VvisError::Invalid(format!(
            "portal {i}: cluster out of range {:?}",
            p.clusters
        )));
    }
    if p.clusters[0] == p.clusters[1] {
        return Err(VvisError::Invalid(format!(
            "portal {i}: both sides in cluster {}",
            p.clusters[0]
        )));
    }
    if p.points.len() < 3 || p.points.len() > MAX_POINTS_ON_WINDING {
        return Err(VvisError::Invalid(format!(
            "portal {i}: {} points",
            p.points.len()
        )));
    }
    if p.points.iter().flatten().any(|v| !v.is_finite()) {
        return Err(VvisError::Invalid(format!("portal {i}: non-finite point")));
    }
    Ok(())
}

/// What vbsp's `%f`/integer printing and vvis's reading do to a coordinate: round it to what
/// the text holds, then to `f32`. Portals rebuilt from a tree go through this so they match a
/// PRT file bit for bit where the geometry agrees.
pub fn prt_round(v: f64) -> f32 {
    if (v - v.round()).abs() < 0.001 {
        v.round() as f32
    } else {
        ((v * 1e6).round() / 1e6) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prt_round_trip() {
        let text = "PRT1\n3\n2\n4 0 1 (0 0 0 ) (0 64 0 ) (0 64 64 ) (0 0 64 ) \n3 1 2 (8.500000 0 0 ) (8.5 1 0 ) (8.5 1 1 ) \n";
        let p = Portals::parse_prt(text).unwrap();
        assert_eq!(p.num_clusters, 3);
        assert_eq!(p.portals.len(), 2);
        assert_eq!(p.portals[1].points[0], [8.5, 0.0, 0.0]);
        p.verify().unwrap();
        assert_eq!(Portals::parse_prt(&p.to_prt()).unwrap(), p);
    }

    #[test]
    fn prt_errors() {
        assert!(Portals::parse_prt("").is_err());
        assert!(Portals::parse_prt("PRT2\n1\n0\n").is_err());
        assert!(Portals::parse_prt("PRT1\n2\n1\n3 0 5 (0 0 0 ) (1 0 0 ) (1 1 0 )\n").is_err());
        assert!(Portals::parse_prt("PRT1\n2\n1\n3 0 1 (0 0 0 ) (1 0 0 )\n").is_err());
        assert!(Portals::parse_prt("PRT1\n2\n2\n3 0 1 (0 0 0 ) (1 0 0 ) (1 1 0 )\n").is_err());
        assert!(Portals::parse_prt("PRT1\n2\n1\n3 0 1 (0 0 0 ) (1 0 0 ) (1 nan 0 )\n").is_err());
        // Regression: 4294967295 clusters allocated a 103 GB PVS before anything refused it.
        for clusters in [u32::MAX, 200_000, MAX_CLUSTERS + 1] {
            let e = Portals::parse_prt(&format!("PRT1\n{clusters}\n0\n")).unwrap_err();
            assert!(e.to_string().contains("more than Valve's limit"), "{e}");
        }
        assert!(Portals::parse_prt(&format!("PRT1\n{MAX_CLUSTERS}\n0\n")).is_ok());
    }
}
