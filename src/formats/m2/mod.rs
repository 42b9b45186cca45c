//! World of Warcraft M2 models, versions 256–263 (vanilla 1.x and The Burning Crusade 2.x):
//! geometry with embedded views, bones with animation tracks, sequences, colour/transparency
//! tracks and BLP2 textures.
//!
//! Facts come from format-notes §2.2 and the wowdev seed page; the ✔ items there were verified
//! on the v256 samples, the TBC (260+) differences — 112-byte bones with packed int16
//! quaternions, 48-byte submeshes — are from the notes only (no public TBC file exists) and are
//! exercised through [`writer`].
//!
//! Everything is converted at load time from WoW's space (Z up, model facing +X) to the scene's
//! (+Y up, front +Z): `(x, y, z) → (y, z, x)`, a rotation, so triangle winding and quaternion
//! handedness are kept (quaternions map the same way on their vector part).

pub mod dbc;
pub mod effects;
mod info;
pub mod parse;
mod pose;
pub mod skins;
pub mod textures;
pub mod track;
pub mod tree;
pub mod writer;

use std::path::{Path, PathBuf};

pub use parse::{MAX_VERSION, MIN_VERSION};

use super::error::Result;
use super::images::ImageAllowance;
use super::reader::Reader;
use super::{LoadError, LoadOptions};
pub use crate::read::budget::{ReadBudget, MODELS as BUDGET_RATE};
use crate::scene::{AnimationInfo, Blend, Model, PoseRequest, PosedMesh, Texture};
use track::Track;

/// Format name errors carry.
pub const FORMAT: &str = "M2";
/// What a refused charge of the read budget names: every array counts against one total, since
/// nothing stops many of them pointing at one region of the file.
const BUDGET_WHAT: &str = "bytes of arrays read (all arrays together)";

/// A `{u32 count, u32 offset}` pair from the file, already checked to lie inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct M2Array {
    /// Number of elements.
    pub count: u64,
    /// Absolute file offset of the first element.
    pub offset: u64,
}

impl M2Array {
    /// Reads the pair at `at` and checks `count ≤ max` and that `count × size` bytes from
    /// `offset` are inside the file.
    pub fn read(r: &Reader, at: u64, max: u64, size: u64, what: &'static str) -> Result<M2Array> {
        let count = u64::from(r.u32_at(at, what)?);
        let offset = u64::from(r.u32_at(at + 4, what)?);
        r.check_count(at, count, max, what)?;
        if count > 0 {
            r.array(at, offset, count, size, what)?;
        }
        Ok(M2Array { count, offset })
    }

    /// [`M2Array::read`], then charges the array's `count × size` bytes to `budget`; going
    /// over is refused at `at`, where the pair was read.
    pub fn read_charged(
        r: &Reader,
        budget: &ReadBudget,
        at: u64,
        max: u64,
        size: u64,
        what: &'static str,
    ) -> Result<M2Array> {
        let a = M2Array::read(r, at, max, size, what)?;
        budget.charge(at, a.count * size, BUDGET_WHAT)?;
        Ok(a)
    }

    /// Offset of element `i` of `size` bytes.
    pub fn at(&self, i: u64, size: u64) -> u64 {
        self.offset + i * size
    }
}

/// One animation sequence (68 bytes in ≤263 files).
#[derive(Clone, Debug, PartialEq)]
pub struct Sequence {
    /// AnimationData.dbc id.
    pub id: u16,
    /// Variation of that id.
    pub variation: u16,
    /// Start on the shared timeline, ms.
    pub start_ms: u32,
    /// End on the shared timeline, ms.
    pub end_ms: u32,
    /// Flags word.
    pub flags: u32,
    /// Index of the next variation of the same id, -1 for none.
    pub next_variation: i16,
}

impl Sequence {
    /// Length in ms.
    pub fn duration_ms(&self) -> u32 {
        self.end_ms.saturating_sub(self.start_ms)
    }
    /// Length in frames at 30 fps (at least 1).
    pub fn frames(&self) -> u32 {
        ((u64::from(self.duration_ms()) * 30 + 500) / 1000).max(1) as u32
    }
}

/// Bone flag: spherical billboard (faces the camera).
pub const BONE_BILLBOARD: u32 = 0x8;

/// One bone: parent, tracks and pivot, in scene space.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Key-bone id, -1 for none.
    pub key_bone: i32,
    /// Flags (0x8 billboard, 0x200 transformed).
    pub flags: u32,
    /// Parent bone, `None` for a root.
    pub parent: Option<usize>,
    /// Translation track.
    pub translation: Track<[f32; 3]>,
    /// Rotation track.
    pub rotation: Track<track::Rot>,
    /// Scale track.
    pub scale: Track<[f32; 3]>,
    /// Pivot point.
    pub pivot: [f32; 3],
}

/// One vertex (48 bytes), position and normal in scene space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct M2Vertex {
    /// Bind-pose position.
    pub position: [f32; 3],
    /// Bone weights out of 255.
    pub weights: [u8; 4],
    /// Bone indices (into the bone array).
    pub bones: [u8; 4],
    /// Bind-pose normal.
    pub normal: [f32; 3],
    /// Texture coordinates (top-left origin).
    pub uv: [f32; 2],
}

/// A submesh of a view.
#[derive(Clone, Debug, PartialEq)]
pub struct Submesh {
    /// Mesh part id (character geosets).
    pub id: u16,
    /// First vertex (into the view's index list).
    pub vertex_start: u32,
    /// Vertex count.
    pub vertex_count: u32,
    /// First triangle index (into the view's triangle list, a multiple of 3).
    pub index_start: u32,
    /// Number of triangle indices.
    pub index_count: u32,
}

/// A texture unit ("batch"): which submesh is drawn with which texture and state.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureUnit {
    /// Flags word.
    pub flags: u16,
    /// Submesh index in the view.
    pub submesh: usize,
    /// Colour index, `None` for -1.
    pub color: Option<usize>,
    /// Render flags entry: `(flags, blend)`.
    pub render_flags: (u16, u16),
    /// Texture (after the texture lookup), `None` for untextured.
    pub texture: Option<usize>,
    /// Transparency track (after the transparency lookup).
    pub transparency: Option<usize>,
    /// Index into the texture animation lookup (see [`effects::Extras`]).
    pub texture_anim_combo: u16,
}

/// One view (level of detail).
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// Length of the view's vertex index list.
    pub index_count: u64,
    /// Triangles (as global vertex indices).
    pub triangles: Vec<[u32; 3]>,
    /// Submeshes.
    pub submeshes: Vec<Submesh>,
    /// Texture units.
    pub units: Vec<TextureUnit>,
}

/// A colour record: RGB and alpha tracks.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTrack {
    /// RGB, 0–1.
    pub rgb: Track<[f32; 3]>,
    /// Opacity, 0–1 (stored as int16 / 32767).
    pub alpha: Track<f32>,
}

/// A texture the model names and what was found for it.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureSlot {
    /// Texture type: 0 = file named in the model, others replaceable (11–13 creature skins).
    pub kind: u32,
    /// Flags (1 wrap X, 2 wrap Y).
    pub flags: u32,
    /// File name stored in the model (empty for replaceable textures).
    pub name: String,
    /// Where the image came from, `None` when missing (the image is then a fallback).
    pub resolved: Option<PathBuf>,
    /// Which place the file was found in.
    pub place: Place,
    /// How the file was found.
    pub source: TextureSource,
    /// The decoded image (or the fallback checkerboard).
    pub texture: Texture,
}

/// Where a texture's file was found, as `info` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the model's own folder.
    Beside,
    /// At its path from the root of the asset tree the model lies in.
    TreeRoot,
    /// In a `--texture-dir`.
    TextureDir,
    /// Given with `--texture TYPE=PATH`.
    Given,
    /// Nowhere (or not decodable): drawn as a checkerboard.
    Missing,
}

impl Place {
    /// The place in words: "beside", "tree root", "--texture-dir", "--texture", "missing".
    pub fn label(self) -> &'static str {
        match self {
            Place::Beside => "beside",
            Place::TreeRoot => "tree root",
            Place::TextureDir => "--texture-dir",
            Place::Given => "--texture",
            Place::Missing => "missing",
        }
    }
}

/// How a texture's file was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureSource {
    /// Named in the model (type 0), or nothing found.
    Model,
    /// Given with `--texture TYPE=PATH`.
    Given,
    /// The skin search's candidate number N (see [`textures::find_skins`]).
    Skin(usize),
    /// The creature display of this id in the tree's tables ([`skins`]).
    Display(u32),
}

/// A loaded M2 model.
#[derive(Debug)]
pub struct M2Model {
    /// Model file.
    pub path: PathBuf,
    /// Version number (256–263).
    pub version: u32,
    /// Name stored in the model.
    pub name: String,
    /// Global sequence lengths, ms.
    pub global_sequences: Vec<u32>,
    /// Animation sequences.
    pub sequences: Vec<Sequence>,
    /// Bones.
    pub bones: Vec<Bone>,
    /// Bone indices ordered parents first.
    pub bone_order: Vec<usize>,
    /// Vertices.
    pub vertices: Vec<M2Vertex>,
    /// All views (only `lod` is drawn).
    pub views: Vec<View>,
    /// The view drawn.
    pub lod: usize,
    /// Colour records.
    pub colors: Vec<ColorTrack>,
    /// Transparency tracks.
    pub transparency: Vec<Track<f32>>,
    /// Textures.
    pub textures: Vec<TextureSlot>,
    /// Creature skins found beside the model, and the one in use.
    pub skins: textures::Skins,
    /// Particle and ribbon emitters, texture animations, cameras.
    pub extras: effects::Extras,
    /// How each particle emitter is drawn.
    pub emitter_defs: Vec<crate::effects::EmitterDef>,
    /// Where the emitters' runs have been, for later frames to go on from.
    sim: crate::effects::SimCache,
    warnings: Vec<String>,
    notes: Vec<String>,
}

/// Loads a M2 model from `data` (the contents of `path`).
pub fn load(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<M2Model, LoadError> {
    load_inner(path, data, opts).map_err(|e| e.in_file(path))
}

fn load_inner(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<M2Model> {
    let r = Reader::new(data, FORMAT);
    let budget = ReadBudget::new(FORMAT, BUDGET_RATE, r.len());
    let p = parse::parse(&r, &budget, opts.lod)?;
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let named: Vec<&str> = (p.textures.iter())
        .filter(|t| t.0 == 0)
        .map(|t| t.2.as_str())
        .collect();
    let tree = tree::Tree::find(path, &named);
    // Creature-skin slots the user did not fill with `--texture`.
    let wants = (p.textures.iter()).any(|t| {
        textures::CREATURE_SKINS.contains(&t.0)
            && !opts.replaceable_textures.iter().any(|(k, _)| *k == t.0)
    });
    let skins = textures::find_skins(path, opts, tree.as_ref(), (&named, wants), &mut warnings)?;
    let allowance = ImageAllowance::default();
    let textures = textures::resolve(
        path,
        &p.textures,
        opts,
        (tree.as_ref(), &skins),
        &allowance,
        &mut warnings,
        &mut notes,
    )?;
    if let Some(t) = &tree {
        warnings.extend(t.warnings());
    }
    let extras = effects::parse(
        &r,
        &budget,
        p.version,
        p.global_sequences.len(),
        p.bones.len(),
        p.textures.len(),
    )?;
    let emitter_defs = extras
        .particles
        .iter()
        .enumerate()
        .map(|(i, e)| effects::emitter_def(i, e))
        .collect();
    Ok(M2Model {
        extras,
        emitter_defs,
        sim: crate::effects::SimCache::default(),
        path: path.to_path_buf(),
        version: p.version,
        name: p.name,
        global_sequences: p.global_sequences,
        sequences: p.sequences,
        bones: p.bones,
        bone_order: p.bone_order,
        vertices: p.vertices,
        views: p.views,
        lod: opts.lod,
        colors: p.colors,
        transparency: p.transparency,
        textures,
        skins,
        warnings,
        notes,
    })
}

/// Well-known AnimationData.dbc ids (WoW 1.x–2.x), used to name sequences. Ids past this table
/// are named `anim<id>`. Source: the public AnimationData listing; the rabbit sample's ids
/// (Stand ×3, Walk, Run, Death, jumps, swims) are consistent with it.
const ANIMATION_NAMES: [&str; 51] = [
    "Stand",
    "Death",
    "Spell",
    "Stop",
    "Walk",
    "Run",
    "Dead",
    "Rise",
    "StandWound",
    "CombatWound",
    "CombatCritical",
    "ShuffleLeft",
    "ShuffleRight",
    "Walkbackwards",
    "Stun",
    "HandsClosed",
    "AttackUnarmed",
    "Attack1H",
    "Attack2H",
    "Attack2HL",
    "ParryUnarmed",
    "Parry1H",
    "Parry2H",
    "Parry2HL",
    "ShieldBlock",
    "ReadyUnarmed",
    "Ready1H",
    "Ready2H",
    "Ready2HL",
    "ReadyBow",
    "Dodge",
    "SpellPrecast",
    "SpellCast",
    "SpellCastArea",
    "NPCWelcome",
    "NPCGoodbye",
    "Block",
    "JumpStart",
    "Jump",
    "JumpEnd",
    "Fall",
    "SwimIdle",
    "Swim",
    "SwimLeft",
    "SwimRight",
    "SwimBackwards",
    "AttackBow",
    "FireBow",
    "ReadyRifle",
    "AttackRifle",
    "Loot",
];

/// Name of an animation id and variation: `Stand`, `Stand.1`, or `anim71.0`-style for ids past
/// the table.
pub fn animation_name(id: u16, variation: u16) -> String {
    match ANIMATION_NAMES.get(id as usize) {
        Some(n) if variation == 0 => (*n).to_string(),
        Some(n) => format!("{n}.{variation}"),
        None => format!("anim{id}.{variation}"),
    }
}

/// Maps a render-flags blend mode (wowdev M2Blend) to the scene's blend, whose PS1 mode
/// docs/rendering.md tabulates: 0 opaque, 1 alpha key (punch-through), 2 alpha, 3 add without
/// alpha and 4 add (B + F), 5 modulate (B·F) and 6 modulate 2× (2·B·F), 7 premultiplied
/// blend-add (F + (1 − a)·B). The PS1 cannot multiply by the background: 5 and 6 take
/// B/2 + F/2, which darkens where the texture is darker than what lies behind as they do, and
/// 7 is alpha blending with its colour already weighted, so alpha. Unknown modes: alpha.
pub fn blend_of(mode: u16) -> Blend {
    match mode {
        0 => Blend::Opaque,
        1 => Blend::Cutout,
        3 | 4 => Blend::Additive,
        2 | 5 | 6 | 7 => Blend::Alpha,
        _ => Blend::Alpha,
    }
}

impl M2Model {
    /// The sequence a selector names: an animation name (`Walk`, `Stand.1`), an
    /// `id.variation` pair (`4.0`) or a decimal index.
    pub fn find_sequence(&self, selector: &str) -> Option<usize> {
        let s = selector.trim();
        if let Some(i) = self
            .sequences
            .iter()
            .position(|q| animation_name(q.id, q.variation).eq_ignore_ascii_case(s))
        {
            return Some(i);
        }
        if let Some((id, var)) = s.split_once('.') {
            if let (Ok(id), Ok(var)) = (id.parse::<u16>(), var.parse::<u16>()) {
                return self
                    .sequences
                    .iter()
                    .position(|q| q.id == id && q.variation == var);
            }
        }
        s.parse::<usize>()
            .ok()
            .filter(|&i| i < self.sequences.len())
    }
}

impl Model for M2Model {
    fn format(&self) -> &'static str {
        FORMAT
    }
    fn animations(&self) -> Vec<AnimationInfo> {
        self.sequences
            .iter()
            .map(|s| AnimationInfo {
                name: animation_name(s.id, s.variation),
                frames: s.frames(),
                duration_ms: s.duration_ms(),
            })
            .collect()
    }
    fn find_animation(&self, selector: &str) -> Option<usize> {
        self.find_sequence(selector)
    }
    fn pose(&self, request: &PoseRequest) -> PosedMesh {
        pose::pose(self, request)
    }
    fn effects(&self, request: &PoseRequest) -> crate::scene::Effects {
        // Emitters and ribbons each step together, sharing the bones' transforms of a step.
        let memo = pose::BoneMemo::default();
        let sources = self
            .emitter_defs
            .iter()
            .zip(&self.extras.particles)
            .map(|(def, e)| {
                let src = effects::M2Emitter::new(self, e, request.animation).sharing(&memo);
                let src: Box<dyn crate::effects::EmitterSource> = Box::new(src);
                (def, src)
            });
        let time = request.frame as f32 / 30.0;
        let cache = (&self.sim, request.animation);
        let mut fx = crate::effects::collect(sources, time, request.camera, cache);
        let ribbons: Vec<_> = (self.extras.ribbons.iter().enumerate())
            .map(|(i, r)| {
                let src = effects::M2Ribbon::new(self, r, request.animation).sharing(&memo);
                (effects::ribbon_def(i, r), src)
            })
            .collect();
        let each: Vec<(
            &crate::effects::RibbonDef,
            &dyn crate::effects::RibbonSource,
        )> = (ribbons.iter()).map(|(d, s)| (d, s as _)).collect();
        for ((def, _), edges) in ribbons.iter().zip(crate::effects::edges_all(&each, time)) {
            fx.sprites.extend(crate::effects::strip(def, &edges));
            if let Some(t) = def.texture {
                for &b in crate::effects::drawn_blends(def.blend) {
                    if !fx.uses.contains(&(t, b)) {
                        fx.uses.push((t, b));
                    }
                }
            }
        }
        fx
    }
    fn camera_count(&self) -> usize {
        self.extras.cameras.len()
    }
    fn camera(&self, index: usize, request: &PoseRequest) -> Option<crate::scene::ModelCamera> {
        let c = self.extras.cameras.get(index)?;
        let time = pose::time_of(self, request);
        let gs = &self.global_sequences;
        let at = |base: [f32; 3], t: &Track<[f32; 3]>| {
            let d = t.sample(&time, gs).unwrap_or([0.0; 3]);
            [base[0] + d[0], base[1] + d[1], base[2] + d[2]]
        };
        // The stored field of view is diagonal (wowdev); the renderer wants the horizontal
        // one of a 4:3 screen: tan(h/2) = tan(d/2)·4/5.
        let d = if c.fov.is_finite() && c.fov > 0.0 {
            c.fov
        } else {
            0.95
        };
        let h = 2.0 * crate::math::atan(crate::math::tan(d * 0.5) * 0.8);
        Some(crate::scene::ModelCamera {
            position: at(c.position_base, &c.position),
            target: at(c.target_base, &c.target),
            fov: h.to_degrees().clamp(1.0, 170.0),
        })
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
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}
