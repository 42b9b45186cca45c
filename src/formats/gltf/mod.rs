//! glTF 2.0 models (`.gltf` JSON with external or embedded buffers, `.glb` binary): the default
//! scene's node tree, triangle primitives, materials' base colour, skins, animations and morph
//! targets, drawn through the same GTE/GPU path as every other format.
//!
//! Data flow: [`source`] opens the container (GLB header checks, then the `gltf` crate parses and
//! validates the JSON, once `json_cost.rs` has charged what that parse allocates), resolves
//! buffers (GLB BIN chunk, base64 data URIs, external files) and decodes images through the
//! `image` crate; [`parse`] turns the document into plain arrays — every accessor read through
//! [`accessor`]'s bounds-checked reader, KHR_draco_mesh_compression geometry through `draco.rs`;
//! `pose.rs` samples animations, walks the node tree, skins and morphs on the CPU (as a PS1
//! game's CPU would) and hands the renderer triangles.
//!
//! Conventions: glTF is already the scene's space (right-handed, +Y up, front facing +Z,
//! counter-clockwise front faces, UV origin at the image's top-left), so nothing is converted.
//! Colours: `baseColorFactor` and `COLOR_0` are linear; they are multiplied, encoded to sRGB
//! (what a glTF viewer shows) and become the polygon colour: ×128 (the GPU's neutral modulation)
//! on textured faces, ×255 on untextured ones.
//!
//! Safety: every count read from the file is charged to a [`Budget`] derived from the input's
//! size before anything is allocated (the JSON's arrays and maps before the crate parses them),
//! so a hostile file fails with a typed error instead of exhausting memory; the `gltf` crate's
//! own accessor iterators are not used because they assume well-formed data (they subtract one
//! from a count that may be zero and index with unchecked sums).

pub mod accessor;
mod draco;
mod images;
mod info;
mod info_text;
mod json_cost;
mod mesh;
pub mod parse;
mod pose;
pub mod source;
pub mod writer;

use std::cell::Cell;
use std::path::{Path, PathBuf};

use super::error::{ErrorKind, LoadError, Result};
use super::LoadOptions;
use crate::math::{Affine, Quat};
use crate::read::budget::{Rate, ReadBudget};
use crate::scene::{AnimationInfo, Model, PoseRequest, PosedMesh, Texture};

/// Format name errors carry.
pub const FORMAT: &str = "glTF";

/// Fixed part of the memory budget, bytes.
pub const BUDGET_BASE: u64 = 64 << 20;
/// Most bytes all decoded images of one model may hold (RGBA): the allowance every model's
/// textures have, [`images::MAX_DECODED_IMAGE_BYTES`].
///
/// [`images::MAX_DECODED_IMAGE_BYTES`]: super::images::MAX_DECODED_IMAGE_BYTES
pub const MAX_IMAGE_BYTES: u64 = super::images::MAX_DECODED_IMAGE_BYTES;
/// Budget per byte of input (model file plus the external files it names).
pub const BUDGET_PER_INPUT_BYTE: u64 = 32;

/// Most elements one accessor may hold.
pub const MAX_ACCESSOR_COUNT: u64 = 1 << 24;
/// Most vertices (and, separately, triangles) all drawn primitives may add up to, counting a mesh
/// once per node that draws it.
pub const MAX_POSED_VERTICES: u64 = 1 << 22;
/// Most joints one skin may have.
pub const MAX_JOINTS: u64 = 1 << 16;
/// Most morph targets one primitive may have.
pub const MAX_MORPH_TARGETS: u64 = 256;

/// True when `data` is glTF: the GLB magic `glTF`, or text starting with `{` (after an optional
/// UTF-8 BOM and white space) that has an `"asset"` key or is broken JSON. Whether its version is
/// 2.x is checked on loading, so a glTF 1.0 file gets a clear refusal rather than another
/// format's loader; a `.gltf` broken before its `"asset"` (or cut off) is glTF whose JSON error
/// the loader reports at its line and column, since no other format psxrender reads starts with
/// `{`. Valid JSON without `"asset"` is some other JSON, not glTF.
pub fn looks_like(data: &[u8]) -> bool {
    if data.starts_with(b"glTF") {
        return true;
    }
    let text = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let start = text.iter().position(|c| !c.is_ascii_whitespace());
    match start {
        Some(i) if text[i] == b'{' => {
            text.windows(7).any(|w| w == b"\"asset\"")
                || serde_json::from_slice::<serde::de::IgnoredAny>(text).is_err()
        }
        _ => false,
    }
}

/// A running count of the bytes a load may allocate for what the file describes: the input's
/// size times [`BUDGET_PER_INPUT_BYTE`] plus [`BUDGET_BASE`]. Every allocation whose size comes
/// from the file is charged before it is made.
#[derive(Debug)]
pub struct Budget {
    bytes: ReadBudget,
    images: Cell<u64>,
}

impl Budget {
    /// A budget for `input_bytes` of input.
    pub fn new(input_bytes: u64) -> Budget {
        let rate = Rate {
            base: BUDGET_BASE,
            per_input_byte: BUDGET_PER_INPUT_BYTE,
        };
        Budget {
            bytes: ReadBudget::new(FORMAT, rate, input_bytes),
            images: Cell::new(0),
        }
    }

    /// More input was read (an external buffer or image): the budget grows with it.
    pub fn add_input(&self, bytes: u64) {
        self.bytes.add_input(bytes);
    }

    /// Charges `bytes` for `what`; fails with `CountTooLarge` when the total would pass the limit.
    pub fn charge(&self, bytes: u64, what: &'static str) -> Result<()> {
        self.bytes.charge(0, bytes, what)
    }

    /// [`Budget::charge`] for what the value at the JSON path `path` makes: a refusal is a
    /// [`ErrorKind::Json`] error naming that path (a JSON value has no byte offset).
    pub fn charge_for(&self, path: &str, bytes: u64, what: &'static str) -> Result<()> {
        self.charge(bytes, what).map_err(|e| match e.kind {
            ErrorKind::CountTooLarge { what, count, max } => json_error(
                path,
                format!("{what} count {count} is larger than the limit {max}"),
            ),
            _ => e,
        })
    }

    /// Charges `bytes` of decoded image to the image allowance, [`MAX_IMAGE_BYTES`].
    pub fn charge_image(&self, bytes: u64) -> Result<()> {
        let total = self.images.get().saturating_add(bytes);
        if total > MAX_IMAGE_BYTES {
            return Err(LoadError::new(
                FORMAT,
                0,
                ErrorKind::CountTooLarge {
                    what: "decoded image bytes (all images)",
                    count: total,
                    max: MAX_IMAGE_BYTES,
                },
            ));
        }
        self.images.set(total);
        Ok(())
    }

    /// Bytes still free.
    pub fn remaining(&self) -> u64 {
        self.bytes.remaining()
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.bytes.used()
    }

    /// The limit in force.
    pub fn limit(&self) -> u64 {
        self.bytes.limit()
    }
}

/// An error about the value at a JSON path.
pub fn json_error(path: impl Into<String>, msg: impl Into<String>) -> LoadError {
    LoadError::new(
        FORMAT,
        0,
        ErrorKind::Json {
            path: path.into(),
            msg: msg.into(),
        },
    )
}

/// A node's own transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation quaternion `[x, y, z, w]`.
    pub rotation: Quat,
    /// Scale.
    pub scale: [f32; 3],
}

impl Trs {
    /// No transform.
    pub const IDENTITY: Trs = Trs {
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };

    /// `T · R · S`.
    pub fn matrix(&self) -> Affine {
        Affine::translation(self.translation)
            .mul(&Affine::rotation(self.rotation))
            .mul(&Affine::scale(self.scale))
    }
}

/// One node of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Name, when the file gives one.
    pub name: Option<String>,
    /// Parent node.
    pub parent: Option<usize>,
    /// Child nodes.
    pub children: Vec<usize>,
    /// Its TRS (decomposed from `matrix` when the file gives a matrix).
    pub trs: Trs,
    /// The file's matrix, used as it is unless an animation channel targets the node.
    pub matrix: Option<Affine>,
    /// True when some animation channel targets the node (it is then posed from TRS).
    pub animated: bool,
    /// Mesh drawn at the node.
    pub mesh: Option<usize>,
    /// Skin that mesh is bound to.
    pub skin: Option<usize>,
    /// Morph weights given on the node (override the mesh's).
    pub weights: Option<Vec<f32>>,
}

/// How a primitive's vertices form triangles (glTF `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// 4: every three vertices.
    Triangles,
    /// 5: each vertex after the second with the two before it, alternating winding.
    Strip,
    /// 6: each vertex after the second with the one before it and the first.
    Fan,
}

/// A morph target: displacements added with the target's weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// Position displacements, one per vertex.
    pub positions: Option<Vec<[f32; 3]>>,
    /// Normal displacements, one per vertex.
    pub normals: Option<Vec<[f32; 3]>>,
}

/// One drawable mesh primitive, vertex arrays read and triangles listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Primitive {
    /// glTF mode it was given in.
    pub topology: Option<Topology>,
    /// Whether it had an index accessor.
    pub indexed: bool,
    /// Whether its geometry came from KHR_draco_mesh_compression.
    pub draco: bool,
    /// Attribute names present (for `info`).
    pub attributes: Vec<String>,
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Normals: from the file, computed smooth on request, or `None` (flat from the faces).
    pub normals: Option<Vec<[f32; 3]>>,
    /// Whether `normals` were computed rather than read.
    pub normals_computed: bool,
    /// Texture coordinates of the set the material samples.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// `COLOR_0`, linear RGBA.
    pub colors: Option<Vec<[f32; 4]>>,
    /// `JOINTS_0`.
    pub joints: Option<Vec<[u16; 4]>>,
    /// `WEIGHTS_0`.
    pub weights: Option<Vec<[f32; 4]>>,
    /// Morph targets.
    pub targets: Vec<MorphTarget>,
    /// Triangles (counter-clockwise), degenerate ones dropped.
    pub triangles: Vec<[u32; 3]>,
    /// Material, `None` = the glTF default material (white, opaque, single-sided).
    pub material: Option<usize>,
}

/// A mesh: primitives and default morph weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Name.
    pub name: Option<String>,
    /// Drawable primitives (points and lines are dropped with a warning).
    pub primitives: Vec<Primitive>,
    /// Primitives skipped (points/lines).
    pub skipped: usize,
    /// Default morph weights.
    pub weights: Vec<f32>,
}

/// A skin: joints and their inverse bind matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// Name.
    pub name: Option<String>,
    /// Joint nodes.
    pub joints: Vec<usize>,
    /// One per joint (identity when the file gives none).
    pub inverse_bind: Vec<Affine>,
    /// Skeleton root, if named.
    pub skeleton: Option<usize>,
}

/// What an animation channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// `translation`.
    Translation,
    /// `rotation`.
    Rotation,
    /// `scale`.
    Scale,
    /// `weights` (morph targets).
    Weights,
}

/// How a sampler interpolates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold each key until the next.
    Step,
    /// Linear (slerp for rotations).
    Linear,
    /// Cubic Hermite with stored in/out tangents.
    CubicSpline,
}

/// One animation channel with its sampler's data.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Target node.
    pub node: usize,
    /// Target property.
    pub property: Property,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times, seconds.
    pub times: Vec<f32>,
    /// Values, `width` floats per element; three elements per key for cubic splines (in-tangent,
    /// value, out-tangent), one otherwise.
    pub values: Vec<f32>,
    /// Floats per element: 3 (T, S), 4 (R), the morph target count (weights).
    pub width: usize,
}

/// An animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// Name (`animation N` when the file gives none).
    pub name: String,
    /// Channels.
    pub channels: Vec<Channel>,
    /// Last key time over all channels, seconds.
    pub duration: f32,
}

impl Animation {
    /// Length in frames at 30 fps (at least 1): frame N samples time `(N mod frames) / 30`.
    pub fn frames(&self) -> u32 {
        (f64::from(self.duration) * 30.0)
            .round()
            .clamp(1.0, f64::from(u32::MAX)) as u32
    }
}

/// glTF `alphaMode`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    Opaque,
    /// Alpha below the cutoff is not drawn.
    Mask(f32),
    /// Alpha blending.
    Blend,
}

/// A material, reduced to what the PS1 can show.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name.
    pub name: Option<String>,
    /// `baseColorFactor`, linear RGBA.
    pub base_color: [f32; 4],
    /// `baseColorTexture`: (texture index, TEXCOORD set).
    pub texture: Option<(usize, u32)>,
    /// `alphaMode` (with `alphaCutoff`).
    pub alpha: AlphaMode,
    /// `doubleSided`.
    pub double_sided: bool,
}

/// An image of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Name, or where it came from.
    pub name: String,
    /// Where the bytes came from (file name, `bufferViews[N]`, `data URI`).
    pub origin: String,
    /// `PNG` / `JPEG`.
    pub encoding: &'static str,
    /// Width and height in pixels, as the file gives them.
    pub size: [u32; 2],
    /// The decoded pixels; `None` when no material shows the image as its base colour, the
    /// only map the PS1 path draws, so it was not decoded. A JPEG far larger than its PS1 form
    /// is decoded at a reduced scale ([`crate::formats::images::decode_for_drawing`]).
    pub texture: Option<Texture>,
}

/// A glTF texture: an image (the sampler's filters mean nothing to the PS1, its wrap modes are
/// reported by `info`).
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRef {
    /// Image index.
    pub image: usize,
    /// Wrap modes (S, T) as glTF names them.
    pub wrap: [&'static str; 2],
}

/// A texture as faces sample it: an image with a material's alpha treatment baked in.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// Image index.
    pub image: usize,
    /// The alpha treatment baked into `texture`.
    pub alpha: AlphaMode,
    /// Factor alpha multiplied in.
    pub factor_alpha: f32,
    /// The image as handed to the renderer.
    pub texture: Texture,
}

/// One node that draws a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The node.
    pub node: usize,
    /// Its mesh.
    pub mesh: usize,
    /// Its skin.
    pub skin: Option<usize>,
}

/// How the file was stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Container {
    /// `.glb`: JSON chunk at `json_offset`, BIN chunk (if any) at `bin_offset`.
    Binary {
        /// Start of the JSON chunk's data.
        json_offset: u64,
        /// Start of the BIN chunk's data.
        bin_offset: Option<u64>,
    },
    /// `.gltf` JSON text.
    Json,
}

/// A loaded glTF model.
#[derive(Debug)]
pub struct GltfModel {
    /// Model file.
    pub path: PathBuf,
    /// How it was stored.
    pub container: Container,
    /// `asset.version`.
    pub version: String,
    /// `asset.generator`.
    pub generator: Option<String>,
    /// `asset.copyright`.
    pub copyright: Option<String>,
    /// Buffers: (where from, bytes).
    pub buffers: Vec<(String, u64)>,
    /// The scene drawn and how many the file has.
    pub scene: (Option<usize>, usize),
    /// Root nodes drawn.
    pub roots: Vec<usize>,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Nodes ordered parents first.
    pub order: Vec<usize>,
    /// Meshes.
    pub meshes: Vec<Mesh>,
    /// Skins.
    pub skins: Vec<Skin>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Textures.
    pub textures: Vec<TextureRef>,
    /// Images.
    pub images: Vec<Image>,
    /// Textures as faces sample them.
    pub variants: Vec<Variant>,
    /// Which variant each material's faces use.
    pub material_variant: Vec<Option<usize>>,
    /// Nodes that draw meshes, in tree order.
    pub instances: Vec<Instance>,
    /// The budget's limit and what the load charged, bytes.
    pub budget: (u64, u64),
    warnings: Vec<String>,
}

/// Loads a glTF model from `data` (the contents of `path`; external files are looked up beside
/// it).
pub fn load(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<GltfModel, LoadError> {
    load_inner(path, data, opts).map_err(|e| e.in_file(path))
}

fn load_inner(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<GltfModel> {
    let budget = Budget::new(data.len() as u64);
    let src = source::open(
        path,
        data,
        &budget,
        super::Folders::new(super::model_dir(path), opts),
    )?;
    parse::build(path, src, opts, &budget)
}

impl Model for GltfModel {
    fn format(&self) -> &'static str {
        FORMAT
    }
    fn animations(&self) -> Vec<AnimationInfo> {
        self.animations
            .iter()
            .map(|a| AnimationInfo {
                name: a.name.clone(),
                frames: a.frames(),
                duration_ms: (f64::from(a.duration) * 1000.0)
                    .round()
                    .clamp(0.0, f64::from(u32::MAX)) as u32,
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
