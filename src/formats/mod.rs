//! File formats: every loader reads through [`reader::Reader`] and fails with
//! [`error::LoadError`] (both from the base layer, [`crate::read`], re-exported here for the
//! loaders). Which loader a file goes to is decided above this layer, by content
//! ([`crate::detect`]), never by file extension.

pub mod blp;
pub mod blp1;
pub mod dds;
pub mod dxt;
pub mod ff9;
pub mod files;
pub mod gltf;
pub mod images;
pub mod m2;
pub mod nwn;
pub mod plt;
pub mod tim;

use std::path::PathBuf;

pub use crate::read::error::{ErrorKind, LoadError, Result};
pub use crate::read::{error, reader};
pub use crate::read::{note_read, read_file, record_reads, MAX_FILE_SIZE};
pub use files::{distinct, model_dir, Folders};

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
    /// M2: which creature display of the asset tree's tables to draw (`--display ID`); default
    /// the first that uses the model.
    pub display: Option<u32>,
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
    /// The texture cache the renderer will use: a texture file whose facts it holds is left
    /// undecoded until its pixels are asked for (see [`crate::scene::TextureImage`]).
    pub texture_cache: Option<std::sync::Arc<crate::texture::TextureCache>>,
}
