//! Final Fantasy IX (PS1) models: type 0x02 models, 0x03 animations, 0x12 materials and TIM
//! textures, bare or inside a 0xDB data cluster — readers, writers, and posing into the scene.
//!
//! FF9 is the native case for psxrender: vertices are int16 GTE input, polygons carry TPage and
//! CLUT words, textures are TIMs with their own VRAM coordinates. [`FF9Model::pose`] therefore
//! emits [`crate::scene::FaceTexture::Vram`] faces and puts every TIM's rectangles in
//! [`PosedMesh::vram_images`] untouched, so the GPU samples exactly what the console would.
//!
//! How sure we are, field by field, is in `docs/formats.md` ("FF9"): the model header, bones,
//! groups, vertices, UVs, A-type polygons, the animation tables, the cluster and TIMs follow
//! public documentation and a public importer run on game data; B/C polygon layouts beyond the
//! vertex indices, the flags word of quads and the Euler signs are **reconstructions**. No FF9
//! data is public, so the tests use files made by our own writer ([`demo_character`]).
//!
//! Files, as in every loader: `mod.rs` the model and [`load`], `parse.rs` the cluster or bare
//! model, `pose.rs` the frame, `info.rs` the facts `psxrender info` prints, `writer.rs` whole
//! clusters ([`write_cluster`]); each chunk's reader and writer sit together in [`mesh`],
//! [`anim`], [`material`], [`cluster`] and [`texture`] (TIM placement and texture words).

pub mod anim;
pub mod cluster;
mod demo;
mod info;
pub mod material;
pub mod mesh;
mod parse;
mod pose;
pub mod texture;
mod writer;

use std::path::Path;

pub use anim::{Animation, Xform};
pub use demo::{demo_character, demo_parts};
pub use material::{Clut, Material, MaterialSet, ModelMaterials, TexPage};
pub use mesh::{Bone, Group, GroupVertex, Mesh, PolyKind, Polygon};
pub use texture::ModelKind;
pub use writer::{write_cluster, WriteError};

use cluster::ChunkHeader;
use texture::Uploads;

use super::tim::Tim;
use super::{LoadError, LoadOptions};
use crate::scene::{AnimationInfo, Face, Model, PoseRequest, PosedMesh, VramImage};

/// The format's name in messages.
pub const FORMAT: &str = "FF9";

/// A loaded FF9 model, ready to pose.
pub struct FF9Model {
    source: String,
    mesh: Mesh,
    model_id: Option<u16>,
    animations: Vec<(Option<u16>, Animation)>,
    default_animation: Option<usize>,
    tims: Vec<(Option<u16>, Tim)>,
    materials: Option<ModelMaterials>,
    /// The model's kind, and whether it was guessed (no `--ff9-kind`).
    kind: (ModelKind, bool),
    /// The cluster's chunk headers (empty for a bare model).
    chunks: Vec<ChunkHeader>,
    /// What the TIMs put in VRAM.
    uploads: Uploads,
    /// Per posed vertex: (bone, bone-local position).
    vertex_bones: Vec<(usize, [f32; 3])>,
    faces: Vec<Face>,
    vram: Vec<VramImage>,
    warnings: Vec<String>,
}

impl FF9Model {
    /// The model's object id in its cluster (None for a bare file).
    pub fn model_id(&self) -> Option<u16> {
        self.model_id
    }
    /// The type-0x02 model.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }
    /// Animations that fit the skeleton, with their object ids.
    pub fn animation_data(&self) -> &[(Option<u16>, Animation)] {
        &self.animations
    }
    /// TIMs uploaded for this model, with their object ids.
    pub fn tims(&self) -> &[(Option<u16>, Tim)] {
        &self.tims
    }
    /// The 0x12 record used for this model, if any.
    pub fn materials(&self) -> Option<&ModelMaterials> {
        self.materials.as_ref()
    }
    /// The model's kind (from `--ff9-kind`, else guessed: field with a 0x12 record, battle
    /// without).
    pub fn kind(&self) -> ModelKind {
        self.kind.0
    }
    /// The headers of the cluster's chunks, nested ones included (empty for a bare model).
    pub fn chunks(&self) -> &[ChunkHeader] {
        &self.chunks
    }
}

/// Loads an FF9 model from `data` (the contents of `path`): a 0xDB data cluster (model
/// `opts.ff9_model`, default 0) or a bare type-0x02 model, plus the extra animation, TIM and
/// materials files in `opts`.
pub fn load(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<FF9Model, LoadError> {
    parse::parse(data, opts).map_err(|e| e.in_file(path))
}

impl Model for FF9Model {
    fn format(&self) -> &'static str {
        FORMAT
    }

    fn animations(&self) -> Vec<AnimationInfo> {
        self.animations
            .iter()
            .enumerate()
            .map(|(i, (id, a))| AnimationInfo {
                name: match id {
                    Some(id) => format!("anim {id}"),
                    None => format!("anim file {i}"),
                },
                frames: a.frames() as u32,
                duration_ms: (a.frames() as u64 * 1000 / 30) as u32,
            })
            .collect()
    }

    fn pose(&self, request: &PoseRequest) -> PosedMesh {
        pose::pose(self, request)
    }

    fn info(&self) -> String {
        info::Facts::of(self).to_string()
    }

    fn facts(&self) -> serde_json::Value {
        serde_json::to_value(info::Facts::of(self)).unwrap_or_default()
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}
