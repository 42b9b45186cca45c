//! Neverwinter Nights models: binary and ASCII MDL, animations (own and through the
//! supermodel chain), skins, textures (DDS/TGA/PLT by resref).
//!
//! Data flow: [`binary::parse`] / [`ascii::parse`] → [`mdl::Mdl`] (NWN's Z-up space) →
//! [`NWNModel`] (supermodels loaded, animations gathered and matched to nodes by name,
//! textures resolved) → [`NWNModel::pose`] samples the controllers at frame/30 s, walks the
//! tree, deforms skins, and converts to the scene convention (+Y up, front +Z).

pub mod anim;
pub mod ascii;
pub mod binary;
pub mod builder;
mod info;
pub mod mdl;
#[cfg(test)]
mod tests;
pub mod textures;

use std::path::{Path, PathBuf};

use super::{read_file, LoadError, LoadOptions};
use crate::scene::{
    AnimationInfo, Blend, Face, FaceTexture, Model, PoseRequest, PosedMesh, Shading, Texture,
    Vertex,
};
use anim::{Affine, Trs};
use mdl::{Animation, ControllerType, Mdl, NodeKind};

/// Deepest supermodel chain followed.
pub const MAX_SUPERMODEL_DEPTH: usize = 16;

/// NWN model space → scene space. NWN is Z-up and its creatures face +Y — checked on
/// c_aribeth: her `rhand_g`/`rbicep_g` lie on +X (a figure facing +Y with Z up has its right
/// side on +X), her toes reach further from the ankles toward +Y than her heels, and her long
/// hair hangs lowest on −Y. The scene wants +Y up and the front toward +Z, so
/// `(x, y, z) → (−x, z, y)`: a 180° turn about the (0, 1, 1) axis, i.e. a proper
/// rotation (determinant +1), so counter-clockwise fronts stay counter-clockwise (1240 of
/// c_aribeth's 1242 faces wind counter-clockwise around their vertex normals).
pub fn to_scene(p: [f32; 3]) -> [f32; 3] {
    [-p[0], p[2], p[1]]
}

/// One model of the supermodel chain.
#[derive(Clone, Debug)]
pub struct ChainLink {
    /// Model name as referenced.
    pub name: String,
    /// The file loaded, `None` when not found.
    pub path: Option<PathBuf>,
    /// How many animations it added.
    pub animations: usize,
}

/// An animation playable on the model.
#[derive(Clone, Debug)]
pub struct PlayableAnimation {
    /// The animation.
    pub animation: Animation,
    /// The model file it comes from.
    pub source: String,
    /// For each model node, the animation node keyed for it (matched by name).
    pub node_map: Vec<Option<usize>>,
}

/// A loaded NWN model.
pub struct NWNModel {
    /// The file.
    pub path: PathBuf,
    /// The parsed model.
    pub mdl: Mdl,
    /// Supermodels, nearest first.
    pub chain: Vec<ChainLink>,
    /// Animations: the model's own, then each supermodel's not already present.
    pub animations: Vec<PlayableAnimation>,
    /// Textures used, in first-use order.
    pub textures: Vec<textures::Resolved>,
    /// Per node: index into `textures` of its texture 0.
    pub node_texture: Vec<Option<usize>>,
    warnings: Vec<String>,
    rest: Vec<Trs>,
    bind_world: Vec<Affine>,
}

/// Loads a NWN model from `data` (the contents of `path`).
pub fn load(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<NWNModel, LoadError> {
    let mut warnings = Vec::new();
    let mdl = parse(data, &mut warnings).map_err(|e| e.in_file(path))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let (chain, super_anims) = load_supermodels(&mdl, &dir, opts, &mut warnings);

    let mut animations: Vec<PlayableAnimation> = Vec::new();
    let own = mdl
        .animations
        .iter()
        .cloned()
        .map(|a| (a, mdl.name.clone()));
    for (a, source) in own.chain(super_anims) {
        if animations
            .iter()
            .any(|p| p.animation.name.eq_ignore_ascii_case(&a.name))
        {
            continue;
        }
        let node_map = mdl
            .nodes
            .iter()
            .map(|n| {
                a.nodes
                    .iter()
                    .position(|an| an.name.eq_ignore_ascii_case(&n.name))
            })
            .collect();
        animations.push(PlayableAnimation {
            animation: a,
            source,
            node_map,
        });
    }

    let mut texs: Vec<textures::Resolved> = Vec::new();
    let mut node_texture = Vec::with_capacity(mdl.nodes.len());
    for n in &mdl.nodes {
        let t = n
            .mesh
            .as_ref()
            .filter(|m| m.render && !m.textures[0].is_empty())
            .map(|m| {
                let name = &m.textures[0];
                match texs.iter().position(|t| t.name.eq_ignore_ascii_case(name)) {
                    Some(i) => i,
                    None => {
                        texs.push(textures::resolve(name, &dir, opts, &mut warnings));
                        texs.len() - 1
                    }
                }
            });
        node_texture.push(t);
    }

    let rest: Vec<Trs> = mdl.nodes.iter().map(Trs::rest).collect();
    let local: Vec<Affine> = rest.iter().map(Trs::affine).collect();
    let bind_world = anim::world(&mdl.nodes, &local);
    Ok(NWNModel {
        path: path.to_path_buf(),
        mdl,
        chain,
        animations,
        textures: texs,
        node_texture,
        warnings,
        rest,
        bind_world,
    })
}

/// Parses binary or ASCII MDL bytes (picked by content) without loading anything else.
pub fn parse(data: &[u8], warnings: &mut Vec<String>) -> Result<Mdl, LoadError> {
    if data.len() >= 4 && data[..4] == [0, 0, 0, 0] {
        binary::parse(data, warnings)
    } else {
        ascii::parse(data, warnings)
    }
}

/// Follows the supermodel chain from `mdl`, returning the links and their animations.
fn load_supermodels(
    mdl: &Mdl,
    dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> (Vec<ChainLink>, Vec<(Animation, String)>) {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(opts.search_paths.iter().cloned());
    let mut chain: Vec<ChainLink> = Vec::new();
    let mut anims = Vec::new();
    let mut next = mdl.supermodel.clone();
    let mut seen = vec![mdl.name.to_ascii_lowercase()];
    while let Some(name) = next.take() {
        if seen.contains(&name.to_ascii_lowercase()) {
            warnings.push(format!(
                "supermodel chain loops back to '{name}'; stopped there"
            ));
            break;
        }
        if chain.len() >= MAX_SUPERMODEL_DEPTH {
            warnings.push(format!(
                "supermodel chain longer than {MAX_SUPERMODEL_DEPTH}; stopped at '{name}'"
            ));
            break;
        }
        seen.push(name.to_ascii_lowercase());
        let Some(path) = textures::find_file(&dirs, &name, "mdl") else {
            let effect = if chain.is_empty() {
                "no animations come from it; the model renders in its rest pose"
            } else {
                "animations further up the chain are unavailable"
            };
            warnings.push(format!(
                "supermodel '{name}' MISSING (searched {}; add --search-path): {effect}",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            chain.push(ChainLink {
                name,
                path: None,
                animations: 0,
            });
            break;
        };
        let parsed = read_file(&path, "NWN MDL")
            .and_then(|d| parse(&d, warnings).map_err(|e| e.in_file(&path)));
        match parsed {
            Ok(sm) => {
                chain.push(ChainLink {
                    name,
                    path: Some(path),
                    animations: sm.animations.len(),
                });
                anims.extend(sm.animations.into_iter().map(|a| (a, sm.name.clone())));
                next = sm.supermodel;
            }
            Err(e) => {
                warnings.push(format!("supermodel '{name}' failed to load: {e}"));
                chain.push(ChainLink {
                    name,
                    path: Some(path),
                    animations: 0,
                });
                break;
            }
        }
    }
    (chain, anims)
}

/// Seconds of animation time for `frame` at 30 fps, wrapped into `[0, length)`.
fn frame_time(frame: u32, length: f32) -> f32 {
    let t = frame as f32 / 30.0;
    if length > 0.0 {
        t % length
    } else {
        0.0
    }
}

impl NWNModel {
    /// World transforms of the model nodes for `request`.
    pub fn node_world(&self, request: &PoseRequest) -> Vec<Affine> {
        let mut local: Vec<Trs> = self.rest.clone();
        if let Some(pa) = request.animation.and_then(|i| self.animations.get(i)) {
            let t = frame_time(request.frame, pa.animation.length);
            for (trs, m) in local.iter_mut().zip(&pa.node_map) {
                if let Some(an) = m.and_then(|i| pa.animation.nodes.get(i)) {
                    trs.apply(an, t, self.mdl.animation_scale);
                }
            }
        }
        let local: Vec<Affine> = local.iter().map(Trs::affine).collect();
        anim::world(&self.mdl.nodes, &local)
    }

    /// Counts of drawn meshes, vertices, faces.
    pub fn drawn_counts(&self) -> (usize, usize, usize) {
        let mut out = (0, 0, 0);
        for m in self.mdl.nodes.iter().filter_map(drawn_mesh) {
            out.0 += 1;
            out.1 += m.vertices.len();
            out.2 += m.faces.len();
        }
        out
    }
}

/// The mesh of `n` if it is drawn (render flag set, not a walkmesh, has faces).
fn drawn_mesh(n: &mdl::Node) -> Option<&mdl::Mesh> {
    n.mesh
        .as_ref()
        .filter(|m| m.render && n.kind != NodeKind::Aabb && !m.faces.is_empty())
}

fn blend_for(node: &mdl::Node, mesh: &mdl::Mesh, tex: Option<&textures::Resolved>) -> Blend {
    let alpha = node
        .controller(ControllerType::ALPHA)
        .map(|c| c.row(0)[0])
        .unwrap_or(1.0);
    if alpha < 0.999 {
        return Blend::Alpha;
    }
    let Some(t) = tex else { return Blend::Opaque };
    if t.txi.contains("blending additive") {
        return Blend::Additive;
    }
    // An environment/bump map sidecar means the alpha channel is a mask, not transparency.
    if t.txi.contains("envmaptexture") || t.txi.contains("bumpmaptexture") || t.path.is_none() {
        return Blend::Opaque;
    }
    // Texture alpha is transparency only on meshes flagged with a transparency hint: creature
    // textures (c_aribeth's DDS: 70 % of texels) carry a reflection mask there.
    if mesh.transparency_hint != 0 && t.image.pixels.iter().any(|p| p[3] < 255) {
        Blend::Alpha
    } else {
        Blend::Opaque
    }
}

fn normalized(v: [f32; 3]) -> [f32; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if n > 1e-12 && n.is_finite() {
        v.map(|x| x / n)
    } else {
        [0.0; 3]
    }
}

/// Classification byte of a tile model.
const CLASSIFICATION_TILE: u8 = 2;

/// Tiles are seen by the game's camera from the south (scene −Z, as NWN's north is scene +Z),
/// looking down; a little off-axis so walls read as walls.
const TILE_VIEW: (f32, f32) = (200.0, 50.0);

impl Model for NWNModel {
    fn format(&self) -> &'static str {
        "NWN MDL"
    }

    fn preferred_view(&self) -> Option<(f32, f32)> {
        (self.mdl.classification == CLASSIFICATION_TILE).then_some(TILE_VIEW)
    }

    fn animations(&self) -> Vec<AnimationInfo> {
        self.animations
            .iter()
            .map(|a| {
                let len = a.animation.length;
                AnimationInfo {
                    name: a.animation.name.clone(),
                    frames: (len * 30.0).round().max(1.0) as u32,
                    duration_ms: (len * 1000.0).round() as u32,
                }
            })
            .collect()
    }

    fn pose(&self, request: &PoseRequest) -> PosedMesh {
        let world = self.node_world(request);
        let mut out = PosedMesh {
            shading: Shading::Lit,
            textures: self
                .textures
                .iter()
                .map(|t| Texture {
                    name: t.name.clone(),
                    image: t.image.clone(),
                })
                .collect(),
            ..PosedMesh::default()
        };
        for (i, node) in self.mdl.nodes.iter().enumerate() {
            let Some(mesh) = drawn_mesh(node) else {
                continue;
            };
            let base = out.vertices.len() as u32;
            let skinned = node.kind == NodeKind::Skin && mesh.skin.len() == mesh.vertices.len();
            let mesh_bind = self.bind_world[i];
            let bone_mats: Vec<(usize, Affine)> = if skinned {
                let mut bones: Vec<usize> = mesh.skin.iter().flatten().map(|l| l.0).collect();
                bones.sort_unstable();
                bones.dedup();
                bones
                    .into_iter()
                    .map(|b| {
                        (
                            b,
                            world[b].mul(&self.bind_world[b].inverse()).mul(&mesh_bind),
                        )
                    })
                    .collect()
            } else {
                Vec::new()
            };
            for (v, p) in mesh.vertices.iter().enumerate() {
                let m = if skinned {
                    // Weighted sum of bone matrices; weight missing up to 1 stays at mesh bind.
                    let mut acc = Affine::ZERO;
                    let mut total = 0.0;
                    for &(b, w) in &mesh.skin[v] {
                        if let Ok(k) = bone_mats.binary_search_by_key(&b, |x| x.0) {
                            acc.add_weighted(&bone_mats[k].1, w);
                            total += w;
                        }
                    }
                    if total < 1.0 {
                        acc.add_weighted(&mesh_bind, 1.0 - total);
                    }
                    acc
                } else {
                    world[i]
                };
                let n = mesh.normals.get(v).copied().unwrap_or([0.0; 3]);
                out.vertices.push(Vertex {
                    position: to_scene(m.apply(*p)),
                    normal: to_scene(normalized(m.apply_vector(n))),
                });
            }
            let tex = self.node_texture[i].filter(|_| !mesh.uvs.is_empty());
            let blend = blend_for(node, mesh, tex.map(|t| &self.textures[t]));
            let color = mesh
                .diffuse
                .map(|c| (c.clamp(0.0, 2.0) * 128.0).min(255.0) as u8);
            for f in &mesh.faces {
                let texture = match tex {
                    Some(t) => {
                        let mut uv = [[0.0; 2]; 4];
                        for (corner, &ti) in uv.iter_mut().zip(&f.t) {
                            let [u, v] = mesh.uvs.get(ti as usize).copied().unwrap_or([0.0; 2]);
                            *corner = [u, 1.0 - v];
                        }
                        FaceTexture::Image { texture: t, uv }
                    }
                    None => FaceTexture::None,
                };
                let colors = if tex.is_some() {
                    [[128; 3]; 4]
                } else {
                    [color; 4]
                };
                out.faces.push(Face {
                    vertices: [base + f.v[0], base + f.v[1], base + f.v[2], 0],
                    corners: 3,
                    colors,
                    texture,
                    blend,
                    two_sided: false,
                });
            }
        }
        out
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

/// True when `data` looks like an ASCII MDL: no NUL bytes in the first 4 KiB and one of the
/// keywords an ASCII model starts with (`#MAXMODEL`, `newmodel`, `beginmodelgeom`).
pub fn looks_ascii(data: &[u8]) -> bool {
    let head = &data[..data.len().min(4096)];
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    ["#maxmodel", "newmodel", "beginmodelgeom"]
        .iter()
        .any(|k| text.contains(k))
}
