//! Final Fantasy IX (PS1) models: type 0x02 models, 0x03 animations, 0x12 materials and TIM
//! textures, bare or inside a 0xDB data cluster — readers, writers, and posing into the scene.
//!
//! FF9 is the native case for psxrender: vertices are int16 GTE input, polygons carry TPage and
//! CLUT words, textures are TIMs with their own VRAM coordinates. [`FF9Model::pose`] therefore
//! emits [`FaceTexture::Vram`] faces and puts every TIM's rectangles in
//! [`PosedMesh::vram_images`] untouched, so the GPU samples exactly what the console would.
//!
//! How sure we are, field by field, is in `docs/formats.md` ("FF9"): the model header, bones,
//! groups, vertices, UVs, A-type polygons, the animation tables, the cluster and TIMs follow
//! public documentation and a public importer run on game data; B/C polygon layouts beyond the
//! vertex indices, the flags word of quads and the Euler signs are **reconstructions**. No FF9
//! data is public, so the tests use files made by our own writer ([`demo_character`]).

pub mod anim;
pub mod cluster;
mod demo;
mod info;
pub mod material;
pub mod mesh;
pub mod texture;

use std::fmt;
use std::path::Path;

pub use anim::{Animation, Xform};
pub use demo::{demo_character, demo_parts};
pub use material::{Clut, Material, MaterialSet, ModelMaterials, TexPage};
pub use mesh::{Bone, Group, GroupVertex, Mesh, PolyKind, Polygon};
pub use texture::ModelKind;

use cluster::ChunkHeader;
use texture::{Resolved, Uploads};

use super::tim::Tim;
use super::{ErrorKind, LoadError, LoadOptions};
use crate::scene::{
    AnimationInfo, Blend, Face, FaceTexture, Model, PoseRequest, PosedMesh, Shading, Vertex,
    VramImage,
};

const FORMAT: &str = "FF9";

/// A writer refused its input (a count or offset that the format cannot hold).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError(String);

impl WriteError {
    pub(crate) fn new(msg: &str) -> Self {
        WriteError(msg.to_string())
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write FF9 data: {}", self.0)
    }
}

impl std::error::Error for WriteError {}

/// Writes a data cluster in the game's layout, one typed chunk per type: models, animations,
/// TIMs and (optionally) a 0x12 materials object, each with its object id (the 0x12 object's
/// id is 0).
pub fn write_cluster(
    models: &[(u16, Mesh)],
    animations: &[(u16, Animation)],
    tims: &[(u16, Tim)],
    materials: Option<&MaterialSet>,
) -> Result<Vec<u8>, WriteError> {
    let mut objects = Vec::new();
    for (id, m) in models {
        objects.push((cluster::TYPE_MODEL, *id, m.write()?));
    }
    for (id, a) in animations {
        objects.push((cluster::TYPE_ANIMATION, *id, a.write()?));
    }
    for (id, t) in tims {
        objects.push((cluster::TYPE_TIM, *id, t.write()));
    }
    if let Some(m) = materials {
        objects.push((cluster::TYPE_MATERIALS, 0, m.write()?));
    }
    cluster::write(&objects)
}

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
    load_inner(data, opts).map_err(|e| e.in_file(path))
}

fn load_inner(data: &[u8], opts: &LoadOptions) -> Result<FF9Model, LoadError> {
    let mut warnings = Vec::new();
    let mut raw_anims: Vec<(Option<u16>, u64, &[u8])> = Vec::new();
    let mut tims = Vec::new();
    let mut material_sets: Vec<MaterialSet> = Vec::new();
    let mut chunks = Vec::new();
    let mut vram_halfwords = 0u64;
    let (mesh, model_id, source) = if cluster::is_cluster(data) {
        let c = cluster::parse(data)?;
        warnings.extend(c.notes.iter().cloned());
        chunks.clone_from(&c.chunks);
        for (off, kind) in &c.skipped {
            warnings.push(format!(
                "skipped cluster chunk type 0x{kind:02x} at 0x{off:x}"
            ));
        }
        let models: Vec<_> = c
            .objects
            .iter()
            .filter(|o| o.kind == cluster::TYPE_MODEL)
            .collect();
        let index = opts.ff9_model.unwrap_or(0);
        let Some(obj) = models.get(index) else {
            return Err(LoadError::invalid(
                FORMAT,
                0,
                format!(
                    "model {index} asked for, but the cluster holds {} model(s)",
                    models.len()
                ),
            ));
        };
        let mesh = Mesh::parse(obj.data).map_err(|e| obj.rebase(e))?;
        for o in &c.objects {
            match o.kind {
                cluster::TYPE_ANIMATION => raw_anims.push((Some(o.id), o.offset, o.data)),
                cluster::TYPE_TIM => {
                    let tim = Tim::parse(o.data).map_err(|e| o.rebase(e))?;
                    vram_halfwords += tim_halfwords(&tim);
                    if vram_halfwords > MAX_VRAM_HALFWORDS {
                        return Err(LoadError::new(
                            FORMAT,
                            o.offset,
                            ErrorKind::CountTooLarge {
                                what: "TIM halfwords (all TIMs together)",
                                count: vram_halfwords,
                                max: MAX_VRAM_HALFWORDS,
                            },
                        ));
                    }
                    tims.push((Some(o.id), tim))
                }
                cluster::TYPE_MATERIALS => {
                    material_sets.push(MaterialSet::parse(o.data).map_err(|e| o.rebase(e))?)
                }
                _ => {}
            }
        }
        let source = format!(
            "data cluster, model {index} of {} (object id {})",
            models.len(),
            obj.id
        );
        (mesh, Some(obj.id), source)
    } else if data.len() >= 2 && data[..2] == [0, 0] {
        if let Some(n) = opts.ff9_model {
            warnings.push(format!(
                "--model {n} ignored: the file is a single bare model"
            ));
        }
        (Mesh::parse(data)?, None, "bare type-0x02 model".to_string())
    } else {
        return Err(LoadError::new(
            FORMAT,
            0,
            ErrorKind::BadMagic {
                expected: "an FF9 data cluster (0xDB) or a type-0x02 model (00 00)",
            },
        ));
    };
    let bone_count = mesh.bones.len();
    let mut animations = Vec::new();
    let mut anim_entries = 0u64;
    for (id, off, bytes) in raw_anims {
        let frames = bytes
            .get(2..4)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
        anim_entries += u64::from(frames) * bone_count as u64;
        if anim_entries > MAX_ANIMATION_ENTRIES {
            warnings.push(format!(
                "animation {} at 0x{off:x} skipped: all animations together exceed {} \
                 frame×bone entries",
                id.unwrap_or(0),
                MAX_ANIMATION_ENTRIES
            ));
            continue;
        }
        match Animation::parse(bytes, bone_count) {
            Ok(a) => animations.push((id, a)),
            Err(mut e) => {
                e.offset += off;
                warnings.push(format!(
                    "animation {} skipped (does not fit this {bone_count}-bone model): {e}",
                    id.unwrap_or(0)
                ));
            }
        }
    }
    if let Some(p) = &opts.ff9_anim {
        let bytes = super::read_file(p, "FF9 animation")?;
        animations.push((
            None,
            Animation::parse(&bytes, bone_count).map_err(|e| e.in_file(p))?,
        ));
    }
    for p in &opts.ff9_tims {
        tims.push((None, super::tim::load(p)?));
    }
    if let Some(p) = &opts.ff9_materials {
        // A side file replaces whatever the cluster held.
        let bytes = super::read_file(p, "FF9 materials")?;
        material_sets = vec![MaterialSet::parse(&bytes).map_err(|e| e.in_file(p))?];
    }
    // The record naming this model in any 0x12 object, else the first record there is.
    let materials = model_id
        .and_then(|id| {
            material_sets
                .iter()
                .flat_map(|s| &s.models)
                .find(|m| m.model_id == id)
        })
        .or_else(|| material_sets.iter().flat_map(|s| &s.models).next())
        .cloned();
    let kind = match opts.ff9_kind {
        Some(k) => (k, false),
        None if materials.is_some() => (ModelKind::Field, true),
        None => (ModelKind::Battle, true),
    };
    if materials.is_some() && !kind.0.uses_material_records() {
        warnings.push(format!(
            "the 0x12 record is not used for materials: a {} model takes material index = \
             TIM index",
            kind.0
        ));
    }
    let default_animation = materials
        .as_ref()
        .and_then(|m| m.default_animation)
        .and_then(|id| animations.iter().position(|(a, _)| *a == Some(id)))
        .or((!animations.is_empty()).then_some(0));
    if animations.is_empty() {
        warnings.push(
            "no animation fits this model: drawn in the fallback pose (no rotations, each bone \
             its length along the parent's +Z) — pass --anim-file FILE for a real pose"
                .to_string(),
        );
    }
    let mut model = FF9Model {
        source,
        mesh,
        model_id,
        animations,
        default_animation,
        uploads: Uploads::of(tims.iter().map(|(_, t)| t)),
        tims,
        materials,
        kind,
        chunks,
        vertex_bones: Vec::new(),
        faces: Vec::new(),
        vram: Vec::new(),
        warnings,
    };
    model.build_faces();
    Ok(model)
}

/// Most TIM data kept from one cluster: four times VRAM.
const MAX_VRAM_HALFWORDS: u64 = 4 * 1024 * 512;
/// Most decoded (frame, bone) angle entries kept from one cluster (6 bytes each).
const MAX_ANIMATION_ENTRIES: u64 = 4 << 20;

fn tim_halfwords(t: &Tim) -> u64 {
    t.image.data.len() as u64 + t.clut.as_ref().map_or(0, |c| c.data.len() as u64)
}

impl FF9Model {
    fn build_faces(&mut self) {
        let mut vertex_bones = Vec::new();
        let mut faces = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut need_fallback = false;
        let tims: Vec<&Tim> = self.tims.iter().map(|(_, t)| t).collect();
        let cx = texture::Context {
            kind: self.kind.0,
            materials: self.materials.as_ref(),
            tims: &tims,
            uploads: &self.uploads,
        };
        for g in &self.mesh.groups {
            let base = vertex_bones.len() as u32;
            vertex_bones.extend(
                g.vertices
                    .iter()
                    .map(|v| (usize::from(v.bone), v.position.map(f32::from))),
            );
            for p in &g.polygons {
                // FF9 front faces wind the other way from the scene's counter-clockwise
                // convention (the public importer reverses them too): swap corners 1 and 2,
                // which keeps a quad in "Z" order.
                let order: [usize; 4] = [0, 2, 1, 3];
                let uvs =
                    order.map(|i| g.uvs.get(usize::from(p.uvs[i])).copied().unwrap_or([0; 2]));
                let texture = match texture::resolve(&cx, p, uvs) {
                    Resolved::Vram { tpage, clut, uv } => {
                        let tpage = if p.semi_transparent() {
                            tpage | (p.flags as u16 & 0x60)
                        } else {
                            tpage
                        };
                        FaceTexture::Vram { tpage, clut, uv }
                    }
                    Resolved::Missing(note) => {
                        need_fallback = true;
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                        FaceTexture::Vram {
                            tpage: texture::FALLBACK_TPAGE,
                            clut: 0,
                            uv: uvs.map(|[u, v]| [48 + u / 16, 240 + v / 16]),
                        }
                    }
                    Resolved::Flat(note) => {
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                        FaceTexture::None
                    }
                };
                let blend = match (p.semi_transparent(), (p.flags >> 5) & 3) {
                    (false, _) => Blend::Opaque,
                    (true, 0) => Blend::Alpha,
                    (true, 1) => Blend::Additive,
                    (true, 2) => Blend::Subtractive,
                    (true, _) => Blend::AddQuarter,
                };
                faces.push(Face {
                    vertices: order.map(|i| base + u32::from(p.vertices[i])),
                    corners: p.corners,
                    colors: order.map(|i| p.colors[i]),
                    texture,
                    blend,
                    two_sided: false,
                });
            }
        }
        let mut vram: Vec<VramImage> = Vec::new();
        for (_, t) in &self.tims {
            vram.extend(t.clut.iter().cloned());
            vram.push(t.image.clone());
        }
        if need_fallback {
            vram.push(texture::checkerboard());
        }
        self.warnings.extend(notes);
        self.vertex_bones = vertex_bones;
        self.faces = faces;
        self.vram = vram;
    }

    /// Bone world transforms for a request (PS1 axes).
    fn worlds(&self, request: &PoseRequest) -> Vec<Xform> {
        // An index past the list falls back to the default animation, like no choice at all.
        let anim = request
            .animation
            .and_then(|i| self.animations.get(i))
            .or_else(|| self.default_animation.and_then(|i| self.animations.get(i)));
        match anim {
            Some((_, a)) => {
                let f = request.frame as usize % a.frames();
                anim::bone_worlds(&self.mesh.bones, Some(a.root[f]), &a.angles[f])
            }
            None => anim::bone_worlds(&self.mesh.bones, None, &[]),
        }
    }
}

/// PS1 model space (-Y up, front toward -Z) to the scene's (+Y up, front +Z): a half turn about
/// X, which keeps handedness.
fn to_scene(p: [f32; 3]) -> [f32; 3] {
    [p[0], -p[1], -p[2]]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
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
        let worlds = self.worlds(request);
        let mut vertices: Vec<Vertex> = self
            .vertex_bones
            .iter()
            .map(|&(b, local)| Vertex {
                position: to_scene(worlds[b.min(worlds.len() - 1)].apply(local)),
                normal: [0.0; 3],
            })
            .collect();
        for f in &self.faces {
            let tris: &[[usize; 3]] = if f.corners == 4 {
                &[[0, 1, 2], [1, 3, 2]]
            } else {
                &[[0, 1, 2]]
            };
            for t in tris {
                let [a, b, c] = t.map(|i| f.vertices[i] as usize);
                let n = cross(
                    sub(vertices[b].position, vertices[a].position),
                    sub(vertices[c].position, vertices[a].position),
                );
                for i in [a, b, c] {
                    for (acc, nk) in vertices[i].normal.iter_mut().zip(n) {
                        *acc += nk;
                    }
                }
            }
        }
        for v in &mut vertices {
            let len = v.normal.iter().map(|c| c * c).sum::<f32>().sqrt();
            if len > 0.0 {
                v.normal = v.normal.map(|c| c / len);
            }
        }
        PosedMesh {
            vertices,
            faces: self.faces.clone(),
            textures: Vec::new(),
            vram_images: self.vram.clone(),
            shading: Shading::VertexColors,
        }
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
