//! M2 effect records (≤263 layouts): particle emitters (0x1F8 bytes), ribbon emitters (0xDC),
//! texture animations (three tracks) and cameras (0x7C), and their emitters as
//! [`crate::effects`] sources.
//!
//! Particle emitter layout (wowdev "M2#Particle emitters" ≤BC, pywowlib `M2ParticleOld`; the
//! offsets add up to the 0x1F8 record and give sane values on `Imp2.m2`): id @0, flags @4,
//! position @8, bone @0x14, texture @0x16; before version 263 blend and emitter type are u16s
//! @0x28/0x2A, from 263 on bytes @0x28/0x29 (a particle-colour index takes 0x2A: wowdev's
//! `#if ≥ 263` block, WebWowViewerCpp's `M2ParticleOld`); head or tail @0x2D; tile rows/columns
//! @0x30/0x32, tracks (28 bytes each) from @0x34: speed, speed variation, vertical range,
//! horizontal range, gravity, lifespan, emission rate, area length, area width, z source; then
//! midpoint @0x14C, three BGRA colours @0x150, three scales @0x15C, lifespan cells (start, end,
//! repeat) @0x168, decay cells @0x16E, drag @0x194, spin @0x198, spline points @0x1D4 (an
//! array of 12-byte points: the 2008 wiki's six floats @0x1C4 are the four follow values and
//! this array's count and offset; WebWowViewerCpp's `M2ParticleOld` puts `splinePoints` there), the
//! "enabled in" track @0x1DC.
//!
//! Ribbon layout (wowdev ≤BC): id @0, bone @4, position @8, texture indices @0x14, material
//! indices @0x1C, colour @0x24, alpha @0x40, height above @0x5C, below @0x78 (tracks), edges a
//! second @0x94, edge lifetime @0x98, gravity @0x9C, rows/columns @0xA0/0xA2, cell track @0xA4,
//! visibility @0xC0.

use super::parse::{read_all, to_scene};
use super::pose::BoneMemo;
use super::track::{Key, Rot, Time, Track, TRACK_SIZE};
use super::{blend_of, M2Array, M2Model, ReadBudget};
use crate::effects::{
    Atlas, CellAnimation, Emission, EmitterDef, EmitterSource, EmitterState, Facing, Generator,
    OverLife, Shape, Spline, Tail, MAX_SPLINE_POINTS,
};
use crate::formats::error::Result;
use crate::formats::reader::Reader;
use crate::math::{normalize3, scale3, Affine};

/// Header offsets of the effect arrays.
pub(super) const OFS_TEXTURE_ANIMS: u64 = 0x74;
pub(super) const OFS_TEXTURE_ANIM_LOOKUP: u64 = 0xAC;
pub(super) const OFS_CAMERAS: u64 = 0x124;
pub(super) const OFS_RIBBONS: u64 = 0x134;
pub(super) const OFS_PARTICLES: u64 = 0x13C;

/// Record sizes (≤263).
pub const PARTICLE_SIZE: u64 = 0x1F8;
/// Ribbon emitter record size.
pub const RIBBON_SIZE: u64 = 0xDC;
/// Texture animation record size: translation, rotation, scaling tracks.
pub const TEXTURE_ANIM_SIZE: u64 = 3 * TRACK_SIZE;
/// Camera record size.
pub const CAMERA_SIZE: u64 = 0x7C;

/// Most effect records of one kind read.
const MAX_EFFECTS: u64 = 256;

/// One particle emitter, positions in scene space.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleEmitter {
    /// Flags word.
    pub flags: u32,
    /// Position relative to its bone.
    pub position: [f32; 3],
    /// Bone it rides on.
    pub bone: usize,
    /// Texture index (into the model's textures).
    pub texture: usize,
    /// Blend mode (the render-flag numbering).
    pub blend: u8,
    /// Emitter type (1 plane, 2 sphere, 3 spline).
    pub kind: u16,
    /// Sprite-sheet rows and columns.
    pub tiles: [u16; 2],
    /// Speed, speed variation (fraction), vertical range, horizontal range, gravity, lifespan,
    /// emission rate, area length, area width, z source.
    pub tracks: [Track<f32>; 10],
    /// Where the middle colour/scale sits in the life.
    pub midpoint: f32,
    /// Colours at birth, middle and death: RGBA 0–255.
    pub colors: [[u8; 4]; 3],
    /// Half-widths at birth, middle and death.
    pub scales: [f32; 3],
    /// Twinkle steps a second (wowdev's `TwinkleSpeed` @0x180).
    pub twinkle_speed: f32,
    /// Twinkle table values up to which a particle shows (`TwinklePercent` @0x184).
    pub twinkle_percent: f32,
    /// The range a particle's half-widths are scaled over by its twinkle (wowdev's "twinkle
    /// scale" @0x188).
    pub twinkle_scale: [f32; 2],
    /// Sprite-sheet cells up to the midpoint (wowdev ≤ BC `lifespanUVAnim`): start, end and
    /// how many times the run repeats.
    pub cells: [u16; 3],
    /// Velocity damping.
    pub drag: f32,
    /// Spin, turns over a particle's life (wowdev ≤ BC: 1.0 rotates it 360° in its lifetime).
    pub spin: f32,
    /// The last track of the record (wowdev: "enabled in"): the emitter spawns only while it
    /// is non-zero.
    pub enabled: Track<f32>,
    /// Sprite-sheet cells after the midpoint (wowdev ≤ BC `decayUVAnim`): start, end, repeat.
    pub decay_cells: [u16; 3],
    /// What each particle draws (wowdev ≤ BC `headOrTail`): 0 its quad, 1 a tail, 2 both.
    pub head_or_tail: u8,
    /// Seconds of motion a tail spans.
    pub tail_length: f32,
    /// Wind, WoW units a second added to each particle's velocity every second (wowdev's
    /// `WindVector` at 0x1B4).
    pub wind: [f32; 3],
    /// Tail cells up to the midpoint (`tailUVAnim`) and after it (`tailDecayUVAnim`): start
    /// and end of each run.
    pub tail_cells: [[i16; 2]; 2],
    /// A spline emitter's path, in the emitter's own X, Y, Z (WoW axes, as the file has them).
    pub spline: Spline,
}

impl Default for ParticleEmitter {
    /// A plane emitter (type 1) on bone 0 drawing texture 0 with blend 0, every track empty
    /// (so no particle is born: its emission rate is 0), white, a unit half-width, one cell:
    /// what a record with nothing set reads as, for callers to fill in what they need.
    fn default() -> Self {
        ParticleEmitter {
            flags: 0,
            position: [0.0; 3],
            bone: 0,
            texture: 0,
            blend: 0,
            kind: 1,
            tiles: [1, 1],
            tracks: std::array::from_fn(|_| Track::empty()),
            midpoint: 0.5,
            colors: [[255; 4]; 3],
            scales: [1.0; 3],
            twinkle_speed: 0.0,
            twinkle_percent: 1.0,
            twinkle_scale: [0.0; 2],
            cells: [0; 3],
            drag: 0.0,
            spin: 0.0,
            enabled: Track::empty(),
            decay_cells: [0; 3],
            head_or_tail: 0,
            tail_length: 0.0,
            wind: [0.0; 3],
            tail_cells: [[0; 2]; 2],
            spline: Spline::default(),
        }
    }
}

/// Bits of [`ParticleEmitter::flags`] (wowdev "M2#Particle emitters", as WebWowViewerCpp's
/// `particleEmitter.cpp` reads them).
pub mod flag {
    /// Quads point along the particle's velocity.
    pub const VELOCITY_ALIGNED: u32 = 0x4;
    /// Particles live in the model's space: they move with the emitter after birth.
    pub const MODEL_SPACE: u32 = 0x10;
    /// A sphere emitter's particles leave along its Z rather than outward.
    pub const SPHERE_UP: u32 = 0x100;
    /// Quads lie flat in the emitter's X–Y plane instead of facing the camera.
    pub const FLAT: u32 = 0x1000;
    /// One random cell offset for the whole emitter.
    pub const RANDOM_OFFSET: u32 = 0x8000;
    /// A random cell offset for each particle.
    pub const RANDOM_CELL: u32 = 0x10000;
}

/// Indices of [`ParticleEmitter::tracks`].
pub mod track_index {
    /// Emission speed.
    pub const SPEED: usize = 0;
    /// Speed variation, a fraction of the speed.
    pub const SPEED_VARIATION: usize = 1;
    /// Cone half-angle, radians.
    pub const VERTICAL_RANGE: usize = 2;
    /// Azimuth range, radians.
    pub const HORIZONTAL_RANGE: usize = 3;
    /// Downward acceleration.
    pub const GRAVITY: usize = 4;
    /// Life, seconds.
    pub const LIFESPAN: usize = 5;
    /// Particles a second.
    pub const RATE: usize = 6;
    /// Spawn area length.
    pub const AREA_LENGTH: usize = 7;
    /// Spawn area width.
    pub const AREA_WIDTH: usize = 8;
    /// Z source: above 0, particles leave away from the point this far along the emitter's Z.
    pub const Z_SOURCE: usize = 9;
}

/// One ribbon emitter, positions in scene space.
#[derive(Clone, Debug, PartialEq)]
pub struct RibbonEmitter {
    /// Bone it rides on.
    pub bone: usize,
    /// Position relative to its bone.
    pub position: [f32; 3],
    /// Texture (the first of its list), if any.
    pub texture: Option<usize>,
    /// Blend mode of its first material (render-flag numbering), opaque when it has none.
    pub blend: u16,
    /// Colour (0–1).
    pub color: Track<[f32; 3]>,
    /// Opacity (0–1).
    pub alpha: Track<f32>,
    /// Extent above the emitter (along its bone's up).
    pub above: Track<f32>,
    /// Extent below.
    pub below: Track<f32>,
    /// Edges a second.
    pub edges_per_second: f32,
    /// Seconds an edge lives.
    pub edge_lifetime: f32,
    /// Downward acceleration of edges.
    pub gravity: f32,
    /// Sprite-sheet rows and columns.
    pub tiles: [u16; 2],
    /// Drawn while non-zero (missing: always).
    pub visibility: Track<f32>,
}

/// A texture transform: translation, rotation and scaling of the UVs.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureAnim {
    /// UV translation (x = u, y = v).
    pub translation: Track<[f32; 3]>,
    /// Rotation about the texture's centre (about its Z axis).
    pub rotation: Track<Rot>,
    /// UV scaling about the centre.
    pub scaling: Track<[f32; 3]>,
}

/// A camera the model carries (its portrait views), in scene space.
#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    /// Camera type (0 portrait, 1 character info, -1 flyby).
    pub kind: i32,
    /// Field of view, radians.
    pub fov: f32,
    /// Far clip.
    pub far: f32,
    /// Near clip.
    pub near: f32,
    /// Position track (added to `position_base`).
    pub position: Track<[f32; 3]>,
    /// Base position.
    pub position_base: [f32; 3],
    /// Target track (added to `target_base`).
    pub target: Track<[f32; 3]>,
    /// Base target.
    pub target_base: [f32; 3],
}

/// Everything effect-related an M2 carries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extras {
    /// Particle emitters.
    pub particles: Vec<ParticleEmitter>,
    /// Ribbon emitters.
    pub ribbons: Vec<RibbonEmitter>,
    /// Texture animations.
    pub texture_anims: Vec<TextureAnim>,
    /// Texture animation lookup (a texture unit's index → `texture_anims`, -1 none).
    pub texture_anim_lookup: Vec<i16>,
    /// Cameras.
    pub cameras: Vec<Camera>,
}

/// What every effect track is read with: the model's global sequences, and the load's read
/// budget, which each track's arrays are charged to (many tracks may point at one region).
#[derive(Clone, Copy)]
struct Keys<'b> {
    global_sequences: usize,
    budget: &'b ReadBudget,
}

impl Keys<'_> {
    /// The track whose header is at `at`, keys of `size` bytes read by `read`.
    fn track<T: Key>(
        self,
        r: &Reader,
        at: u64,
        size: u64,
        read: impl Fn(&Reader, u64) -> Result<T>,
    ) -> Result<Track<T>> {
        Track::read_charged(r, self.budget, at, self.global_sequences, size, read)
    }
}

fn vec3(r: &Reader, at: u64, what: &'static str) -> Result<[f32; 3]> {
    Ok([
        r.f32_at(at, what)?,
        r.f32_at(at + 4, what)?,
        r.f32_at(at + 8, what)?,
    ])
}

fn f32_track(r: &Reader, at: u64, keys: Keys) -> Result<Track<f32>> {
    keys.track(r, at, 4, |r, v| r.f32_at(v, "float key"))
}

fn u8_track(r: &Reader, at: u64, keys: Keys) -> Result<Track<f32>> {
    keys.track(r, at, 1, |r, v| {
        Ok(f32::from(r.bytes(v, 1, "byte key")?[0]))
    })
}

fn fixed16_track(r: &Reader, at: u64, keys: Keys) -> Result<Track<f32>> {
    keys.track(r, at, 2, |r, v| {
        Ok(f32::from(r.i16_at(v, "fixed16 key")?) / 32767.0)
    })
}

/// An index read from the file, checked against `n`.
fn index(r: &Reader, at: u64, v: usize, n: usize, what: &str) -> Result<usize> {
    if v < n {
        Ok(v)
    } else {
        Err(r.invalid(at, format!("{what} {v} but the model has {n}")))
    }
}

/// The emitter type of spline emitters.
const SPLINE: u16 = 3;

/// First version whose particle records hold blend and emitter type as bytes (late TBC).
const BYTE_BLEND_VERSION: u32 = 263;

/// Reads the effect arrays of a file of `version`, charging them to `budget`; `ngs` global
/// sequences, `nbones` bones, `ntextures` textures.
pub fn parse(
    r: &Reader,
    budget: &ReadBudget,
    version: u32,
    ngs: usize,
    nbones: usize,
    ntextures: usize,
) -> Result<Extras> {
    let keys = Keys {
        global_sequences: ngs,
        budget,
    };
    let rf = M2Array::read_charged(
        r,
        budget,
        super::parse::OFS_RENDER_FLAGS,
        1 << 16,
        4,
        "render flags",
    )?;
    let blends = (0..rf.count)
        .map(|i| r.u16_at(rf.at(i, 4) + 2, "blend mode"))
        .collect::<Result<Vec<_>>>()?;
    let records = |at: u64, size: u64, what: &'static str| {
        M2Array::read_charged(r, budget, at, MAX_EFFECTS, size, what)
    };
    let particles = read_all(
        records(OFS_PARTICLES, PARTICLE_SIZE, "particle emitters")?,
        PARTICLE_SIZE,
        |o| read_particle(r, o, version, keys, [nbones, ntextures]),
    )?;
    let ribbons = read_all(
        records(OFS_RIBBONS, RIBBON_SIZE, "ribbon emitters")?,
        RIBBON_SIZE,
        |o| read_ribbon(r, o, keys, nbones, ntextures, &blends),
    )?;
    let anims = records(OFS_TEXTURE_ANIMS, TEXTURE_ANIM_SIZE, "texture animations")?;
    let texture_anims = read_all(anims, TEXTURE_ANIM_SIZE, |o| {
        Ok(TextureAnim {
            translation: keys.track(r, o, 12, |r, v| vec3(r, v, "uv translation"))?,
            rotation: keys.track(r, o + TRACK_SIZE, 16, |r, v| {
                let c = |k: u64| r.f32_at(v + 4 * k, "uv rotation");
                Ok(Rot([c(0)?, c(1)?, c(2)?, c(3)?]))
            })?,
            scaling: keys.track(r, o + 2 * TRACK_SIZE, 12, |r, v| vec3(r, v, "uv scaling"))?,
        })
    })?;
    let lookup = M2Array::read_charged(
        r,
        budget,
        OFS_TEXTURE_ANIM_LOOKUP,
        1 << 16,
        2,
        "texture animation lookup",
    )?;
    let texture_anim_lookup = read_all(lookup, 2, |o| r.i16_at(o, "texture animation lookup"))?;
    let cameras = read_all(
        records(OFS_CAMERAS, CAMERA_SIZE, "cameras")?,
        CAMERA_SIZE,
        |o| read_camera(r, o, keys),
    )?;
    Ok(Extras {
        particles,
        ribbons,
        texture_anims,
        texture_anim_lookup,
        cameras,
    })
}

/// The particle record at `o` of a file of `version`, its bone and texture checked against
/// `[bones, textures]`.
fn read_particle(
    r: &Reader,
    o: u64,
    version: u32,
    keys: Keys,
    [nbones, ntextures]: [usize; 2],
) -> Result<ParticleEmitter> {
    let bone = usize::from(r.u16_at(o + 0x14, "particle bone")?);
    let texture = usize::from(r.u16_at(o + 0x16, "particle texture")?);
    let (blend, kind) = if version >= BYTE_BLEND_VERSION {
        let b = r.bytes(o + 0x28, 2, "particle blend")?;
        (u16::from(b[0]), u16::from(b[1]))
    } else {
        (
            r.u16_at(o + 0x28, "particle blend")?,
            r.u16_at(o + 0x2A, "particle emitter type")?,
        )
    };
    let mut tracks = Vec::with_capacity(10);
    for k in 0..10 {
        tracks.push(f32_track(r, o + 0x34 + TRACK_SIZE * k, keys)?);
    }
    let colors = [0u64, 1, 2].map(|k| r.bytes(o + 0x150 + 4 * k, 4, "particle colour"));
    let mut rgba = [[0u8; 4]; 3];
    for (out, c) in rgba.iter_mut().zip(colors) {
        let c = c?;
        // CImVector: B, G, R, A.
        *out = [c[2], c[1], c[0], c[3]];
    }
    let f = |at: u64, what| r.f32_at(o + at, what);
    // Only a spline emitter's points are read: WebWowViewerCpp builds its spline for type 3
    // alone, so whatever another emitter keeps there is no reason to refuse the file.
    let spline = if kind == SPLINE {
        let points = M2Array::read_charged(
            r,
            keys.budget,
            o + 0x1D4,
            MAX_SPLINE_POINTS,
            12,
            "particle spline points",
        )?;
        Spline::new(read_all(points, 12, |v| vec3(r, v, "spline point"))?)
    } else {
        Spline::default()
    };
    Ok(ParticleEmitter {
        flags: r.u32_at(o + 4, "particle flags")?,
        position: to_scene(vec3(r, o + 8, "particle position")?),
        bone: index(r, o + 0x14, bone, nbones, "particle emitter bone")?,
        texture: index(r, o + 0x16, texture, ntextures, "particle emitter texture")?,
        blend: u8::try_from(blend).unwrap_or(u8::MAX),
        kind,
        tiles: [
            r.u16_at(o + 0x30, "particle rows")?,
            r.u16_at(o + 0x32, "particle columns")?,
        ],
        tracks: tracks
            .try_into()
            .unwrap_or_else(|_| unreachable!("ten tracks")),
        midpoint: f(0x14C, "particle midpoint")?,
        colors: rgba,
        scales: [
            f(0x15C, "particle scale")?,
            f(0x160, "particle scale")?,
            f(0x164, "particle scale")?,
        ],
        twinkle_speed: f(0x180, "particle twinkle speed")?,
        twinkle_percent: f(0x184, "particle twinkle percent")?,
        twinkle_scale: [
            f(0x188, "particle twinkle scale")?,
            f(0x18C, "particle twinkle scale")?,
        ],
        cells: [
            r.u16_at(o + 0x168, "particle cell")?,
            r.u16_at(o + 0x16A, "particle cell")?,
            r.u16_at(o + 0x16C, "particle cell")?,
        ],
        drag: f(0x194, "particle drag")?,
        spin: f(0x198, "particle spin")?,
        enabled: u8_track(r, o + 0x1DC, keys)?,
        decay_cells: [
            r.u16_at(o + 0x16E, "particle decay cell")?,
            r.u16_at(o + 0x170, "particle decay cell")?,
            r.u16_at(o + 0x172, "particle decay cell")?,
        ],
        head_or_tail: r.bytes(o + 0x2D, 1, "particle head or tail")?[0],
        tail_length: f(0x17C, "particle tail length")?,
        wind: [
            f(0x1B4, "particle wind")?,
            f(0x1B8, "particle wind")?,
            f(0x1BC, "particle wind")?,
        ],
        tail_cells: [
            [
                r.i16_at(o + 0x174, "tail cell")?,
                r.i16_at(o + 0x176, "tail cell")?,
            ],
            [
                r.i16_at(o + 0x178, "tail cell")?,
                r.i16_at(o + 0x17A, "tail cell")?,
            ],
        ],
        spline,
    })
}

fn read_ribbon(
    r: &Reader,
    o: u64,
    keys: Keys,
    nbones: usize,
    ntextures: usize,
    blends: &[u16],
) -> Result<RibbonEmitter> {
    let bone = r.u32_at(o + 4, "ribbon bone")? as usize;
    let mat = M2Array::read_charged(r, keys.budget, o + 0x1C, 1 << 10, 2, "ribbon materials")?;
    let blend = if mat.count == 0 {
        0
    } else {
        let m = usize::from(r.u16_at(mat.offset, "ribbon material")?);
        blends[index(r, mat.offset, m, blends.len(), "ribbon material")?]
    };
    let tex = M2Array::read_charged(r, keys.budget, o + 0x14, 1 << 10, 2, "ribbon textures")?;
    let texture = if tex.count == 0 {
        None
    } else {
        let t = usize::from(r.u16_at(tex.offset, "ribbon texture")?);
        Some(index(r, tex.offset, t, ntextures, "ribbon texture")?)
    };
    Ok(RibbonEmitter {
        bone: index(r, o + 4, bone, nbones, "ribbon bone")?,
        position: to_scene(vec3(r, o + 8, "ribbon position")?),
        texture,
        blend,
        color: keys.track(r, o + 0x24, 12, |r, v| vec3(r, v, "ribbon colour"))?,
        alpha: fixed16_track(r, o + 0x40, keys)?,
        above: f32_track(r, o + 0x5C, keys)?,
        below: f32_track(r, o + 0x78, keys)?,
        edges_per_second: r.f32_at(o + 0x94, "ribbon edges per second")?,
        edge_lifetime: r.f32_at(o + 0x98, "ribbon edge lifetime")?,
        gravity: r.f32_at(o + 0x9C, "ribbon gravity")?,
        tiles: [
            r.u16_at(o + 0xA0, "ribbon rows")?,
            r.u16_at(o + 0xA2, "ribbon columns")?,
        ],
        visibility: u8_track(r, o + 0xC0, keys)?,
    })
}

fn read_camera(r: &Reader, o: u64, keys: Keys) -> Result<Camera> {
    // Spline keys: value, in-tangent, out-tangent; only the value is used.
    let spline3 = |at| keys.track(r, at, 36, |r, v| Ok(to_scene(vec3(r, v, "camera key")?)));
    Ok(Camera {
        kind: r.i32_at(o, "camera type")?,
        fov: r.f32_at(o + 4, "camera field of view")?,
        far: r.f32_at(o + 8, "camera far clip")?,
        near: r.f32_at(o + 12, "camera near clip")?,
        position: spline3(o + 16)?,
        position_base: to_scene(vec3(r, o + 16 + TRACK_SIZE, "camera position")?),
        target: spline3(o + 28 + TRACK_SIZE)?,
        target_base: to_scene(vec3(r, o + 28 + 2 * TRACK_SIZE, "camera target")?),
    })
}

/// How an M2 particle emitter is drawn: its flags as WebWowViewerCpp's `particleEmitter.cpp`
/// reads them (flat quads before velocity-aligned ones, which otherwise face the camera).
pub fn emitter_def(index: usize, e: &ParticleEmitter) -> EmitterDef {
    let atlas = Atlas {
        columns: u32::from(e.tiles[1]).clamp(1, 64),
        rows: u32::from(e.tiles[0]).clamp(1, 64),
    };
    let name = format!("particle emitter {index}");
    // The emitter's one random offset, drawn once from a sequence of its own (the reference
    // draws it when the emitter is made).
    let offset = if e.flags & flag::RANDOM_OFFSET != 0 {
        let k = crate::effects::Rng::for_emitter(index, "random cell offset").unit();
        (k * atlas.cells() as f32) as u32
    } else {
        0
    };
    EmitterDef {
        facing: if e.flags & flag::FLAT != 0 {
            Facing::LocalPlane
        } else if e.flags & flag::VELOCITY_ALIGNED != 0 {
            Facing::Velocity
        } else {
            Facing::Camera
        },
        name,
        emission: Emission::Continuous,
        blend: blend_of(u16::from(e.blend)),
        texture: Some(e.texture),
        // Rows down, columns across.
        atlas,
        cells: CellAnimation::Intervals {
            life: e.cells.map(u32::from),
            decay: e.decay_cells.map(u32::from),
            offset,
            random: e.flags & flag::RANDOM_CELL != 0,
        },
        attached: e.flags & flag::MODEL_SPACE != 0,
        extras: crate::effects::Extras {
            // WebWowViewerCpp's `CalculateForces` drift: the vector in the particles' own
            // space, the model's (the scene here), or the emitter's for model-space particles,
            // whose frame here is the bone's, the generators' quarter turn not in it.
            wind: to_scene(if e.flags & flag::MODEL_SPACE != 0 {
                [-e.wind[1], e.wind[0], e.wind[2]]
            } else {
                e.wind
            }),
            ..Default::default()
        },
        // Tails as wowdev's ≤ BC head-or-tail byte asks (0 head, 1 tail, 2 both).
        tail: matches!(e.head_or_tail, 1 | 2).then(|| Tail {
            length: e.tail_length,
            head: e.head_or_tail == 2,
            cells: e.tail_cells.map(|r| r.map(|c| c.max(0) as u32)),
        }),
    }
}

/// One simulation step, seconds: a spline emitter's width is compared with its value a step
/// before.
const STEP: f32 = 1.0 / crate::effects::STEP_HZ as f32;

/// One M2 particle emitter playing `sequence`.
pub struct M2Emitter<'m> {
    model: &'m M2Model,
    emitter: &'m ParticleEmitter,
    sequence: Option<usize>,
    /// Bone transforms shared with the model's other effects, stepping together.
    memo: Option<&'m BoneMemo>,
}

impl<'m> M2Emitter<'m> {
    /// Emitter `e` of `model` during `sequence`.
    pub fn new(model: &'m M2Model, e: &'m ParticleEmitter, sequence: Option<usize>) -> Self {
        M2Emitter {
            model,
            emitter: e,
            sequence,
            memo: None,
        }
    }

    /// The same, its bone's transform worked out through `memo`, which the effects stepping
    /// together share.
    pub fn sharing(self, memo: &'m BoneMemo) -> Self {
        M2Emitter {
            memo: Some(memo),
            ..self
        }
    }

    fn track(&self, k: usize, time: &Time, default: f32) -> f32 {
        self.emitter.tracks[k]
            .sample(time, &self.model.global_sequences)
            .filter(|v| v.is_finite())
            .unwrap_or(default)
    }
}

/// The sampling time for effects: the rest pose samples the first sequence, as the model's
/// colour tracks do.
fn effect_time(m: &M2Model, sequence: Option<usize>, seconds: f32) -> Time {
    let seq = sequence.or((!m.sequences.is_empty()).then_some(0));
    super::pose::time_at(m, seq, seconds)
}

impl EmitterSource for M2Emitter<'_> {
    fn spline(&self) -> Option<&Spline> {
        Some(&self.emitter.spline)
    }

    fn state(&self, seconds: f32) -> EmitterState {
        use track_index as k;
        let e = self.emitter;
        let time = effect_time(self.model, self.sequence, seconds);
        let bone = bone_at(self.model, e.bone, &time, self.memo);
        let speed = self.track(k::SPEED, &time, 0.0);
        let life = self.track(k::LIFESPAN, &time, 1.0);
        let variation = self.track(k::SPEED_VARIATION, &time, 0.0).clamp(0.0, 1.0);
        let (len, wid) = (
            self.track(k::AREA_LENGTH, &time, 0.0),
            self.track(k::AREA_WIDTH, &time, 0.0),
        );
        // The emitter's own X and Y span its area; its Z (WoW) is the emission axis. They are
        // the bone's axes a quarter turn about Z (X the bone's Y, Y its −X): WebWowViewerCpp's
        // m2Object.cpp draws every emitter through `particleCoordinatesFix`, that turn, "actually
        // there in the client".
        let x = normalize3(bone.vector(to_scene([0.0, 1.0, 0.0])));
        let y = normalize3(bone.vector(to_scene([-1.0, 0.0, 0.0])));
        let z = normalize3(bone.vector(to_scene([0.0, 0.0, 1.0])));
        let generator = Generator {
            frame: [x, y, z],
            area: [len, wid],
            polar: self.track(k::VERTICAL_RANGE, &time, 0.0),
            azimuth: self.track(k::HORIZONTAL_RANGE, &time, 0.0),
            z_source: self.track(k::Z_SOURCE, &time, 0.0),
            up: e.flags & flag::SPHERE_UP != 0,
        };
        // Emitter types as WebWowViewerCpp's particleEmitter.cpp builds generators: one it does
        // not know (not 1–3) emits nothing, nor does a spline without a whole segment (where
        // the reference would read past its points).
        let shape = match e.kind {
            1 => Some(Shape::Plane(generator)),
            2 => Some(Shape::Sphere(generator)),
            SPLINE if e.spline.segments() > 0 => Some(Shape::Spline {
                generator,
                moved: seconds > 0.0 && {
                    let before = effect_time(self.model, self.sequence, seconds - STEP);
                    self.track(k::AREA_WIDTH, &before, 0.0) != wid
                },
            }),
            _ => None,
        };
        let rgb = |c: [u8; 4]| [c[0], c[1], c[2]].map(|v| f32::from(v) / 255.0);
        let a = |c: [u8; 4]| f32::from(c[3]) / 255.0;
        let s = |v: f32| [2.0 * v, 2.0 * v];
        let mid = e.midpoint.clamp(0.01, 0.99);
        EmitterState {
            origin: bone.point(e.position),
            // The bone's whole turn and scale: model-space particles are drawn through it, as
            // WebWowViewerCpp draws them through the emitter's bone matrix.
            turn: [0, 1, 2].map(|j| bone.column(j)),
            area: [scale3(x, len * 0.5), scale3(y, wid * 0.5)],
            axis: z,
            // The last track (wowdev's "enabled in"): no births while it is 0, as
            // WebWowViewerCpp's particle emitter reads it; an emitter without keys emits.
            enabled: shape.is_some()
                && (e.enabled)
                    .sample(&time, &self.model.global_sequences)
                    .is_none_or(|v| v != 0.0),
            birthrate: self.track(k::RATE, &time, 0.0),
            life,
            speed: speed * (1.0 - variation),
            speed_random: speed * 2.0 * variation,
            spread: self.track(k::VERTICAL_RANGE, &time, 0.0).abs(),
            gravity: self.track(k::GRAVITY, &time, 0.0),
            drag: e.drag.max(0.0),
            // Turns a lifetime as radians a second of this moment's lifespan, which is the
            // life of the particles born now; ≤ BC records have no start angle (0).
            spin: if life > 0.0 {
                e.spin * std::f32::consts::TAU / life
            } else {
                0.0
            },
            color: OverLife {
                start: rgb(e.colors[0]),
                middle: rgb(e.colors[1]),
                end: rgb(e.colors[2]),
                mid,
            },
            alpha: OverLife {
                start: a(e.colors[0]),
                middle: a(e.colors[1]),
                end: a(e.colors[2]),
                mid,
            },
            size: OverLife {
                start: s(e.scales[0]),
                middle: s(e.scales[1]),
                end: s(e.scales[2]),
                mid,
            },
            // A zero scale range marks a record that does not use twinkle (read literally it
            // would draw every particle at size 0): its particles show at their own sizes.
            twinkle: if e.twinkle_scale.iter().all(|v| *v == 0.0) {
                crate::effects::Twinkle::default()
            } else {
                crate::effects::Twinkle {
                    speed: e.twinkle_speed,
                    percent: e.twinkle_percent,
                    scale: e.twinkle_scale,
                }
            },
            shape: shape.unwrap_or_default(),
        }
    }
}

/// How an M2 ribbon emitter is drawn.
pub fn ribbon_def(index: usize, r: &RibbonEmitter) -> crate::effects::RibbonDef {
    crate::effects::RibbonDef {
        name: format!("ribbon {index}"),
        edges_per_second: r.edges_per_second,
        edge_life: r.edge_lifetime,
        gravity: r.gravity,
        texture: r.texture,
        blend: blend_of(r.blend),
    }
}

/// One M2 ribbon emitter playing `sequence`.
pub struct M2Ribbon<'m> {
    model: &'m M2Model,
    ribbon: &'m RibbonEmitter,
    sequence: Option<usize>,
    /// Bone transforms shared with the model's other effects, stepping together.
    memo: Option<&'m BoneMemo>,
}

impl<'m> M2Ribbon<'m> {
    /// Ribbon `r` of `model` during `sequence`.
    pub fn new(model: &'m M2Model, r: &'m RibbonEmitter, sequence: Option<usize>) -> Self {
        M2Ribbon {
            model,
            ribbon: r,
            sequence,
            memo: None,
        }
    }

    /// The same, its bone's transform worked out through `memo`.
    pub fn sharing(self, memo: &'m BoneMemo) -> Self {
        M2Ribbon {
            memo: Some(memo),
            ..self
        }
    }
}

/// `bone`'s transform at `time`, through `memo` when there is one.
fn bone_at(m: &M2Model, bone: usize, time: &Time, memo: Option<&BoneMemo>) -> Affine {
    match memo {
        Some(memo) => super::pose::bone_world_shared(m, bone, time, memo),
        None => super::pose::bone_world(m, bone, time),
    }
}

impl crate::effects::RibbonSource for M2Ribbon<'_> {
    fn state(&self, seconds: f32) -> crate::effects::RibbonState {
        let r = self.ribbon;
        let time = effect_time(self.model, self.sequence, seconds);
        let gs = &self.model.global_sequences;
        let bone = bone_at(self.model, r.bone, &time, self.memo);
        crate::effects::RibbonState {
            origin: bone.point(r.position),
            // The bone's own up (WoW +Z).
            up: normalize3(bone.vector(to_scene([0.0, 0.0, 1.0]))),
            above: r.above.sample(&time, gs).unwrap_or(0.0),
            below: r.below.sample(&time, gs).unwrap_or(0.0),
            color: r.color.sample(&time, gs).unwrap_or([1.0; 3]),
            alpha: r.alpha.sample(&time, gs).unwrap_or(1.0),
            visible: r.visibility.sample(&time, gs).is_none_or(|v| v != 0.0),
        }
    }
}

#[cfg(test)]
#[path = "effects_tests.rs"]
mod tests;
