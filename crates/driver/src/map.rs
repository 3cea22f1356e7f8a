//! The map source: the VMF (read leniently when damaged) and its `func_instance` files.

use std::path::{Path, PathBuf};

use srcmap_vbsp::MapInput;
use srcmap_vmf::Vmf;

use crate::error::DriverError;
use crate::messages::Messages;

/// Damaged parts told one by one; a damaged map can have hundreds.
const SHOWN_PROBLEMS: usize = 20;

/// Reads a map; one whose sides or displacements are damaged is read leniently, the
/// damaged parts left out with a message each (the rest still compiles).
pub fn read_map(path: &Path, messages: &dyn Messages) -> Result<Vmf, DriverError> {
    let bytes = crate::files::read(path)?;
    match Vmf::parse_bytes(&bytes) {
        Ok(vmf) => Ok(vmf),
        Err(strict) => {
            let vmf = Vmf::parse_lenient(&bytes).map_err(|_| DriverError::Vmf {
                path: path.to_path_buf(),
                error: Box::new(strict),
            })?;
            tell_problems(path, &vmf, messages);
            Ok(vmf)
        }
    }
}

/// The parts a lenient read left out: the first few in full, then how many more.
fn tell_problems(path: &Path, vmf: &Vmf, messages: &dyn Messages) {
    for problem in vmf.problems.iter().take(SHOWN_PROBLEMS) {
        messages.line(&format!("{}:{problem} (left out)", path.display()));
    }
    if vmf.problems.len() > SHOWN_PROBLEMS {
        messages.line(&format!(
            "{}: warning: {} more damaged parts left out",
            path.display(),
            vmf.problems.len() - SHOWN_PROBLEMS
        ));
    }
}

/// The map as the compiler's input, its instances collapsed into it (found beside the map or
/// under `-game`); the VMF is returned too, for its version and its damaged parts.
pub fn read_input(
    map: &Path,
    game: Option<&Path>,
    messages: &dyn Messages,
) -> Result<(Vmf, MapInput), DriverError> {
    let vmf = read_map(map, messages)?;
    let mut input = srcmap_vbsp::input_from_vmf(&vmf);
    let loader = |name: &str| -> Option<MapInput> {
        let path = find_instance(map, game, name)?;
        read_map(&path, messages)
            .ok()
            .map(|v| srcmap_vbsp::input_from_vmf(&v))
    };
    let problems =
        srcmap_vbsp::instances::collapse(&mut input, &loader).map_err(|error| DriverError::Instances {
            map: map.to_path_buf(),
            error: Box::new(error),
        })?;
    for problem in problems {
        messages.line(&format!("{}: warning: {problem}", map.display()));
    }
    Ok((vmf, input))
}

/// An instance file: relative to the map's folder, then under `-game`'s `maps/` and
/// `mapsrc/` (as Hammer and VBSP look for them).
pub(crate) fn find_instance(map: &Path, game: Option<&Path>, name: &str) -> Option<PathBuf> {
    let name = name.replace('\\', "/");
    let mut roots = vec![map.parent().unwrap_or(Path::new(".")).to_path_buf()];
    if let Some(g) = game {
        roots.push(g.join("maps"));
        roots.push(g.join("mapsrc"));
        roots.push(g.join("../sdk_content/maps"));
        roots.push(g.to_path_buf());
    }
    let base = Path::new(&name).file_name()?.to_owned();
    let found = roots.iter().map(|r| r.join(&name)).find(|p| p.is_file());
    // Instances copied flat beside the map (their folder dropped) are found too.
    found.or_else(|| roots.iter().map(|r| r.join(&base)).find(|p| p.is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_are_found_beside_the_map_even_when_copied_flat() {
        let dir = std::env::temp_dir().join(format!("srcmap-driver-map-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("door.vmf"), b"").unwrap();
        let map = dir.join("a.vmf");
        assert_eq!(
            find_instance(&map, None, "instances\\door.vmf"),
            Some(dir.join("door.vmf"))
        );
        assert_eq!(find_instance(&map, None, "missing.vmf"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
