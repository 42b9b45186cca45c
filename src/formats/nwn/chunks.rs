//! Chunk models: the models NWN chunk emitters (`chunkName`) draw at each particle, found as
//! supermodels are — `NAME.mdl` in the model's folder, then each `--search-path` — and loaded
//! like any NWN model, then posed at rest (rollnw draws a chunk's primitives in their bind
//! pose). Their textures join the model's own, so they are placed in VRAM with the others.
//!
//! A chunk model that is missing or fails to load is a warning, and its emitters draw
//! nothing (rollnw drops a packet whose mesh does not load); the frame is drawn all the same.
//! A chunk model's own chunk emitters are not followed.

use std::path::{Path, PathBuf};

use super::mdl::{self, Mdl, NodeDetail};
use super::textures::{self, Resolved};
use crate::effects::chunk::MESH_FACE_BUDGET;
use crate::formats::{Folders, LoadOptions, MAX_FILE_SIZE};
use crate::scene::{EffectMesh, FaceTexture, Model, PoseRequest};

/// A loaded chunk model.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The name the emitters give (`chunkName`).
    pub name: String,
    /// The file it came from.
    pub path: PathBuf,
    /// Its rest pose in scene space, textures indexing the emitting model's.
    pub mesh: EffectMesh,
}

/// The chunk name of emitter node `node`, when it has one.
pub fn chunk_name(node: &mdl::Node) -> Option<&str> {
    match &node.detail {
        NodeDetail::Emitter { chunk, .. } if !mdl::is_null_name(chunk) => Some(chunk),
        _ => None,
    }
}

/// Loads every chunk model `mdl`'s emitters name (each name once), adding their textures to
/// `texs`; what is missing or broken becomes a line in `warnings`.
pub(super) fn resolve(
    mdl: &Mdl,
    dir: &Path,
    opts: &LoadOptions,
    texs: &mut Vec<Resolved>,
    warnings: &mut Vec<String>,
) -> Vec<Chunk> {
    let dirs = super::model_dirs(dir, opts);
    let folders = Folders::new(dir, opts);
    let mut names: Vec<&str> = Vec::new();
    for name in mdl.nodes.iter().filter_map(chunk_name) {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            names.push(name);
        }
    }
    let mut out = Vec::new();
    for name in names {
        let users: Vec<&str> = (mdl.nodes.iter())
            .filter(|n| chunk_name(n).is_some_and(|c| c.eq_ignore_ascii_case(name)))
            .map(|n| n.name.as_str())
            .collect();
        let not_drawn = format!("emitter '{}' draws nothing", users.join("', '"));
        let Some(path) = textures::find_file(&dirs, name, "mdl") else {
            let what = format!("chunk model '{name}'");
            warnings.push(super::missing(&what, &dirs, &not_drawn));
            continue;
        };
        let loaded = folders
            .read(&path, "NWN MDL", MAX_FILE_SIZE)
            .and_then(|data| super::load_without_chunks(&path, &data, opts));
        let model = match loaded {
            Ok(m) => m,
            Err(e) => {
                warnings.push(format!(
                    "chunk model '{name}' failed to load: {e}: {not_drawn}"
                ));
                continue;
            }
        };
        warnings
            .extend((model.warnings().into_iter()).map(|w| format!("chunk model '{name}': {w}")));
        let mesh = rest_mesh(&model, texs);
        if mesh.faces.len() > MESH_FACE_BUDGET {
            warnings.push(format!(
                "chunk model '{name}' has {} faces, more than the {MESH_FACE_BUDGET} a frame's \
                 particles may add: {not_drawn}",
                mesh.faces.len()
            ));
            continue;
        }
        out.push(Chunk {
            name: name.to_string(),
            path,
            mesh,
        });
    }
    out
}

/// `model` posed at rest, its face textures moved into `texs` (a texture of the same name
/// already there is shared).
fn rest_mesh(model: &super::NWNModel, texs: &mut Vec<Resolved>) -> EffectMesh {
    let posed = model.pose(&PoseRequest::default());
    let mut faces = posed.faces;
    for f in &mut faces {
        if let FaceTexture::Image { texture, .. } = &mut f.texture {
            let Some(own) = model.textures.get(*texture) else {
                f.texture = FaceTexture::None;
                continue;
            };
            *texture = match (texs.iter()).position(|t| t.name.eq_ignore_ascii_case(&own.name)) {
                Some(i) => i,
                None => {
                    texs.push(own.clone());
                    texs.len() - 1
                }
            };
        }
    }
    EffectMesh {
        vertices: posed.vertices,
        faces,
    }
}
