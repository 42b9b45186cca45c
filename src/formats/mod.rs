//! File formats: every loader reads through [`reader::Reader`] and fails with
//! [`error::LoadError`]. [`load`] picks the loader by content ([`identify`]), never by file
//! extension.

pub mod blp;
pub mod dds;
pub mod detect;
pub mod error;
pub mod ff9;
pub mod files;
pub mod gltf;
pub mod images;
pub mod m2;
pub mod nwn;
pub mod plt;
pub mod reader;
pub mod tim;

use std::path::{Path, PathBuf};

pub use detect::{identify, Kind, Role};
pub use error::{ErrorKind, LoadError, Result};
pub use files::{model_dir, Folders};

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
    /// M2: which creature skin found beside the model to use (`--skin NAME|N`); default the
    /// first in name order.
    pub skin: Option<String>,
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
    /// glTF: primitives without NORMAL get smooth normals (averaged over the faces meeting at a
    /// position) instead of flat ones.
    pub smooth_normals: bool,
}

thread_local! {
    /// The files read on this thread while [`record_reads`] runs.
    static READS: std::cell::RefCell<Option<Vec<PathBuf>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` and lists every file the loaders read on this thread meanwhile (in first-read
/// order, each once): the inputs a batch job's output depends on. Loading is single-threaded,
/// and every loader read goes through [`read_file`] or [`note_read`].
pub fn record_reads<T>(f: impl FnOnce() -> T) -> (T, Vec<PathBuf>) {
    let outer = READS.with(|r| r.replace(Some(Vec::new())));
    let value = f();
    let reads = READS.with(|r| r.replace(outer)).unwrap_or_default();
    (value, reads)
}

/// Notes that `path` was read (for [`record_reads`]); loaders reading a file other than
/// through [`read_file`] call it.
pub fn note_read(path: &Path) {
    READS.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut() {
            if !list.iter().any(|p| p == path) {
                list.push(path.to_path_buf());
            }
        }
    });
}

/// Reads a whole file, refusing anything but a regular file and files larger than
/// [`MAX_FILE_SIZE`] (see [`files::read_capped`]).
pub fn read_file(path: &Path, format: &'static str) -> Result<Vec<u8>, LoadError> {
    files::read_capped(path, format, MAX_FILE_SIZE)
}

/// Loads a model of any supported format from `path`.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Box<dyn Model>, LoadError> {
    let data = read_file(path, "model")?;
    let kind = identify(&data)
        .map_err(|u| LoadError::new("model", 0, ErrorKind::Unrecognised(u)).in_file(path))?;
    load_data(path, &data, kind, opts)
}

/// Loads the model in `data` (the contents of `path`, identified as `kind`); any other kind of
/// file is refused with what it is and which commands take it.
pub fn load_data(
    path: &Path,
    data: &[u8],
    kind: Kind,
    opts: &LoadOptions,
) -> Result<Box<dyn Model>, LoadError> {
    let model: Box<dyn Model> = match kind {
        Kind::M2 => Box::new(m2::load(path, data, opts)?),
        Kind::NwnBinary | Kind::NwnAscii => Box::new(nwn::load(path, data, opts)?),
        Kind::Ff9 => Box::new(ff9::load(path, data, opts)?),
        Kind::Gltf => Box::new(gltf::load(path, data, opts)?),
        other => {
            return Err(
                LoadError::new(other.name(), 0, ErrorKind::NotAModel(other.role())).in_file(path),
            )
        }
    };
    Ok(model)
}
