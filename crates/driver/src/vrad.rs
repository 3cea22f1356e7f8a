//! Stage 3 on files: texture lights from `.rad` files and the material table, static props'
//! models and materials from `-game`, a BSP lit in place or into another file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use srcmap_stage::{Progress, Report, Threads, timed_stage};
use srcmap_vrad::{AmbientOcclusion, MaterialSource, ModelSource, Options, Quality, TexLights};

use crate::error::DriverError;
use crate::files::{read, refuse_overwriting, write_output};
use crate::messages::Messages;

/// How lighting runs, whether on its own or inside `compile`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RadSettings {
    /// Quick preview: fewer sky and bounce rays.
    pub fast: bool,
    /// Release quality.
    pub final_: bool,
    /// Maximum light bounces (default 100).
    pub bounce: Option<u32>,
    pub hdr: bool,
    pub both: bool,
    /// `-ldr` given: do not relight HDR even if the map has it.
    pub ldr_only: bool,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    pub verify: bool,
    /// Skip the per-leaf ambient cubes.
    pub no_ambient: bool,
    /// Do not recover texture lights from the map's emit_surface world lights.
    pub no_texlight_harvest: bool,
    /// Static props cast the shadow of their render triangles (VRAD's -StaticPropPolys).
    pub static_prop_polys: bool,
    /// Clear texels of `$casttextureshadows` props let light through (VRAD's -textureshadows).
    pub texture_shadows: bool,
    /// Per-vertex static-prop lighting (VRAD's -StaticPropLighting).
    pub static_prop_lighting: bool,
    /// No prop shadows its own vertices (VRAD's -disablepropselfshadowing, -nossprops).
    pub disable_prop_self_shadowing: bool,
    pub ambient_occlusion: Option<AmbientOcclusion>,
    /// No supersampling (VRAD's -noextra).
    pub no_extra: bool,
    /// Sky-ambient rays × N (VRAD's -extrasky N).
    pub extra_sky: Option<u32>,
    /// Bounce patch size in luxels (VRAD's -chop).
    pub chop: Option<u32>,
}

impl RadSettings {
    /// The library options these stand for, with the texture lights and models read.
    pub fn options(&self, texlights: TexLights, models: Option<ModelSource>) -> Options {
        Options {
            quality: if self.fast {
                Quality::Fast
            } else if self.final_ {
                Quality::Final
            } else {
                Quality::Normal
            },
            bounces: self.bounce.unwrap_or(100),
            ldr: !self.hdr || self.both,
            hdr: self.hdr || self.both,
            threads: Threads(self.threads),
            ambient_cubes: !self.no_ambient,
            hdr_if_present: !self.ldr_only,
            texlights,
            harvest_texlights: !self.no_texlight_harvest,
            materials: None,
            models,
            static_prop_polys: self.static_prop_polys,
            texture_shadows: self.texture_shadows,
            static_prop_lighting: self.static_prop_lighting,
            disable_prop_self_shadowing: self.disable_prop_self_shadowing,
            ambient_occlusion: self.ambient_occlusion,
            no_extra: self.no_extra,
            extra_sky: self.extra_sky,
            chop: self.chop,
            verify: self.verify,
        }
    }
}

/// The files lighting reads besides the BSP.
#[derive(Debug, Clone, Default)]
pub struct RadSources {
    /// Game directory: materials, lights.rad, the static props' models.
    pub game: Option<PathBuf>,
    /// A material table: its `emit` facts are texture lights.
    pub materials: Option<PathBuf>,
    /// Texture-light files in Valve's lights.rad syntax (each must exist).
    pub lights: Vec<PathBuf>,
}

impl RadSources {
    /// Texture lights as VRAD reads them, later sources overriding earlier ones: the `emit`
    /// facts of the material table, `GAME/lights.rad` (when present), each of `lights` (which
    /// must exist), then `MAP.rad` beside `map` (when present). Bad lines are told (unless
    /// `quiet`) naming the file and line.
    pub fn texlights(
        &self,
        map: &Path,
        quiet: bool,
        messages: &dyn Messages,
    ) -> Result<TexLights, DriverError> {
        let mut out = match &self.materials {
            Some(path) => crate::materials::table_texlights(&crate::materials::load_table(path)?.1),
            None => TexLights::new(),
        };
        for (path, required) in self.rad_files(map) {
            let text = match std::fs::read(&path) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(source) if required => return Err(DriverError::Read { path, source }),
                Err(_) => continue,
            };
            for w in out.parse_into(&text) {
                if !quiet {
                    messages.line(&format!("warning: {}: {w}", path.display()));
                }
            }
        }
        Ok(out)
    }

    /// The `.rad` files in the order they are read, each with whether it must exist.
    fn rad_files(&self, map: &Path) -> Vec<(PathBuf, bool)> {
        let mut files: Vec<(PathBuf, bool)> = Vec::new();
        if let Some(g) = &self.game {
            files.push((g.join("lights.rad"), false));
        }
        files.extend(self.lights.iter().map(|l| (l.clone(), true)));
        files.push((map.with_extension("rad"), false));
        files
    }

    /// The static props' model files, read through the game's search paths.
    pub fn models(&self) -> Result<Option<ModelSource>, DriverError> {
        self.game.as_deref().map(model_source).transpose()
    }

    /// The material resolver, when the game or a table says more than the built-in rules.
    pub fn material_source(&self) -> Result<Option<MaterialSource>, DriverError> {
        if self.game.is_none() && self.materials.is_none() {
            return Ok(None);
        }
        let resolver = crate::materials::resolver(self.game.as_deref(), self.materials.as_deref())?;
        Ok(Some(MaterialSource(Arc::new(resolver))))
    }
}

/// The static props' model files, read through `dir`'s search paths.
pub fn model_source(dir: &Path) -> Result<ModelSource, DriverError> {
    let game = srcmap_content::GameDir::open(dir)?;
    Ok(ModelSource(Arc::new(move |path: &str| {
        game.read(path).ok().flatten()
    })))
}

/// `srcmap vrad`: a BSP (ours or Valve's) lit in place or into `output`.
#[derive(Debug, Clone, Default)]
pub struct VradJob {
    pub bsp: PathBuf,
    pub output: Option<PathBuf>,
    pub settings: RadSettings,
    pub sources: RadSources,
    /// Texture-light warnings are not told.
    pub quiet: bool,
}

/// What a `srcmap vrad` run did.
pub struct VradRun {
    pub report: Report,
    /// The BSP written.
    pub output: PathBuf,
    /// Seconds from the start of the command to the BSP written.
    pub seconds: f64,
}

impl VradJob {
    /// The BSP written: `output`, else the input itself.
    pub fn out_path(&self) -> &Path {
        self.output.as_deref().unwrap_or(&self.bsp)
    }

    /// The relight options: the settings, with texture lights, models and materials read.
    pub(crate) fn options(&self, messages: &dyn Messages) -> Result<Options, DriverError> {
        let texlights = self.sources.texlights(&self.bsp, self.quiet, messages)?;
        let mut options = self.settings.options(texlights, self.sources.models()?);
        options.materials = self.sources.material_source()?;
        Ok(options)
    }
}

/// Runs `srcmap vrad`: the light and material files must not be the output; the BSP read,
/// lit and written. The stage (reading and lighting) is timed and told to `progress` as in
/// `srcmap compile`; the run's `seconds` go on to the BSP written.
pub fn vrad(job: &VradJob, progress: &dyn Progress, messages: &dyn Messages) -> Result<VradRun, DriverError> {
    let started = Instant::now();
    // The BSP is lit in place by default; the light and material files are only read.
    for read_only in job.sources.lights.iter().chain(&job.sources.materials) {
        refuse_overwriting(read_only, job.out_path())?;
    }
    let (bytes, report) = timed_stage("vrad", progress, || job.run(progress, messages))?;
    write_output(job.out_path(), &bytes)?;
    Ok(VradRun {
        report,
        output: job.out_path().to_path_buf(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl VradJob {
    /// The BSP read and lit: the new BSP's bytes.
    fn run(
        &self,
        progress: &dyn Progress,
        messages: &dyn Messages,
    ) -> Result<(Vec<u8>, Report), DriverError> {
        let input = read(&self.bsp)?;
        let options = self.options(messages)?;
        srcmap_vrad::relight(&input, &options, progress).map_err(|error| DriverError::Vrad {
            path: self.bsp.clone(),
            error: Box::new(error),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_choose_quality_bounces_and_ranges() {
        let normal = RadSettings::default().options(TexLights::new(), None);
        assert_eq!(normal.quality, Quality::Normal);
        assert_eq!(normal.bounces, 100);
        assert!(normal.ldr && !normal.hdr && normal.hdr_if_present);
        let both = RadSettings {
            fast: true,
            both: true,
            ldr_only: true,
            bounce: Some(3),
            ..Default::default()
        }
        .options(TexLights::new(), None);
        assert_eq!(both.quality, Quality::Fast);
        assert_eq!(both.bounces, 3);
        assert!(both.ldr && both.hdr && !both.hdr_if_present);
        let hdr = RadSettings {
            hdr: true,
            final_: true,
            ..Default::default()
        }
        .options(TexLights::new(), None);
        assert_eq!(hdr.quality, Quality::Final);
        assert!(!hdr.ldr && hdr.hdr);
    }

    #[test]
    fn rad_files_are_read_game_first_then_the_named_ones_then_the_maps() {
        let sources = RadSources {
            game: Some(PathBuf::from("game")),
            materials: None,
            lights: vec![PathBuf::from("a.rad"), PathBuf::from("b.rad")],
        };
        let files = sources.rad_files(Path::new("maps/x.bsp"));
        assert_eq!(
            files,
            [
                (PathBuf::from("game/lights.rad"), false),
                (PathBuf::from("a.rad"), true),
                (PathBuf::from("b.rad"), true),
                (PathBuf::from("maps/x.rad"), false),
            ]
        );
        // A named file must exist; the others may be absent.
        let missing = RadSources {
            lights: vec![PathBuf::from("/nonexistent/lights.rad")],
            ..Default::default()
        };
        let err = missing
            .texlights(
                Path::new("/nonexistent/x.bsp"),
                true,
                &crate::messages::NoMessages,
            )
            .unwrap_err();
        assert_eq!(err.to_string(), "/nonexistent/lights.rad: cannot read");
    }
}
