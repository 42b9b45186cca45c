//! File formats: every loader reads through [`reader::Reader`] and fails with
//! [`error::LoadError`]. [`load`] picks the loader by content, never by file extension.

pub mod blp;
pub mod dds;
pub mod error;
pub mod ff9;
pub mod m2;
pub mod nwn;
pub mod plt;
pub mod reader;
pub mod tim;

use std::path::{Path, PathBuf};

pub use error::{ErrorKind, LoadError, Result};

use crate::scene::Model;

/// Largest model file read (bytes); anything bigger is refused before reading.
pub const MAX_FILE_SIZE: u64 = 256 << 20;

/// Options that reach the loaders from the command line.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Extra directories searched for NWN supermodels (after the model's own directory).
    pub search_paths: Vec<PathBuf>,
    /// Extra directories searched for textures (after the model's own directory for NWN,
    /// before it for M2).
    pub texture_dirs: Vec<PathBuf>,
    /// NWN PLT: the ten palette row indices (skin, hair, metal1, metal2, cloth1, cloth2,
    /// leather1, leather2, tattoo1, tattoo2).
    pub plt_colors: Option<[u8; 10]>,
    /// NWN PLT: directory with the `pal_*.tga` palettes.
    pub palette_dir: Option<PathBuf>,
    /// M2 view (level of detail), 0 = the most detailed.
    pub lod: usize,
    /// M2 replaceable textures: (texture type, file).
    pub replaceable_textures: Vec<(u32, PathBuf)>,
    /// FF9: animation file for a bare model.
    pub ff9_anim: Option<PathBuf>,
    /// FF9: TIM files for a bare model.
    pub ff9_tims: Vec<PathBuf>,
    /// FF9: 0x12 materials file for a bare model.
    pub ff9_materials: Option<PathBuf>,
    /// FF9: which model of a data cluster.
    pub ff9_model: Option<usize>,
    /// FF9: the model's kind (field, world, battle, weapon); `None` = guess from the data.
    pub ff9_kind: Option<ff9::ModelKind>,
}

/// Reads a whole file, refusing files larger than [`MAX_FILE_SIZE`].
pub fn read_file(path: &Path, format: &'static str) -> Result<Vec<u8>, LoadError> {
    let meta = std::fs::metadata(path).map_err(|e| LoadError::io(format, path, &e))?;
    if meta.len() > MAX_FILE_SIZE {
        return Err(LoadError::new(
            format,
            0,
            ErrorKind::CountTooLarge {
                what: "file size",
                count: meta.len(),
                max: MAX_FILE_SIZE,
            },
        )
        .in_file(path));
    }
    std::fs::read(path).map_err(|e| LoadError::io(format, path, &e))
}

/// The formats [`load`] recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// WoW M2 (`MD20`).
    M2,
    /// NWN binary MDL (first u32 is 0).
    NwnBinary,
    /// NWN ASCII MDL (text).
    NwnAscii,
    /// FF9: data cluster or bare type-0x02 model.
    Ff9,
}

/// Which loader a file's content calls for.
pub fn detect(data: &[u8]) -> Kind {
    if data.starts_with(b"MD20") {
        Kind::M2
    } else if data.len() >= 12 && data[..4] == [0, 0, 0, 0] {
        Kind::NwnBinary
    } else if nwn::looks_ascii(data) {
        Kind::NwnAscii
    } else {
        Kind::Ff9
    }
}

/// Loads a model of any supported format from `path`.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Box<dyn Model>, LoadError> {
    let data = read_file(path, "model")?;
    let model: Box<dyn Model> = match detect(&data) {
        Kind::M2 => Box::new(m2::load(path, &data, opts)?),
        Kind::NwnBinary | Kind::NwnAscii => Box::new(nwn::load(path, &data, opts)?),
        Kind::Ff9 => Box::new(ff9::load(path, &data, opts)?),
    };
    Ok(model)
}
