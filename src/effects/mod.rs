//! Particle effects, format-neutral: the emitters of a model stepped at a fixed rate from the
//! animation's start, and their live particles turned into [`Sprite`](crate::scene::Sprite)s for one frame.
//!
//! Design rule: a frame is a pure function of (model, animation, frame). Each emitter has its
//! own random sequence ([`Rng`], seeded from the emitter's index and name), and the simulation
//! is defined from the animation's start in whole [`STEP_HZ`] steps up to the frame's time
//! (and may go on from a point that same run saved: [`SimCache`]), so frame 10 is the same
//! whether it is rendered alone, in a `--frames` range, on any thread count or on another run.
//! Frame N at 30 fps is exactly `2N` steps.
//!
//! A format supplies, per emitter, an [`EmitterDef`] (what never changes) and an
//! [`EmitterSource`] (what its controller keys or tracks animate, sampled at each step's time);
//! the NWN and M2 readers live beside their formats (`formats::nwn::effects`,
//! `formats::m2::effects`). Everything here is in scene space (+Y up).
//!
//! Budget, as a PS1 game has one: every emitter draws from a fixed pool of
//! [`POOL_PER_EMITTER`] particles (a spawn finding the pool full is dropped, as a game's
//! `GetFreeParticle` returning none), and the renderer draws at most
//! [`crate::render::SPRITE_BUDGET`] sprites a frame.

pub mod chunk;
mod frame;
pub mod intervals;
mod lightning;
mod motion;
mod ribbon;
mod shapes;
mod sim;
mod sprites;
mod tails;
mod twinkle;

pub use motion::{Floor, Pull};
pub use ribbon::{
    edges, edges_all, ribbon_sprites, strip, Edge, RibbonDef, RibbonSource, RibbonState,
};
pub use shapes::{Generator, Shape, Spline, MAX_SPLINE_POINTS};
pub use sim::{simulate, SimCache, MAX_SAVED, SAVE_EVERY};
pub use sprites::{drawn_blends, sprites, VEIL_FROM};
pub use tails::Tail;
pub use twinkle::Twinkle;

use std::borrow::Cow;

use crate::math::{add3, cross, dot3, normalize3, scale3};
use crate::scene::{Blend, Effects};

/// Simulation steps per second (one NTSC field).
pub const STEP_HZ: u32 = 60;
/// Particles one emitter may have alive at once.
pub const POOL_PER_EMITTER: usize = 128;
/// Longest simulated time, seconds (10 minutes of animation): frames past it show the state
/// at this time.
pub const MAX_SIM_SECONDS: f32 = 600.0;
/// Longest particle life accepted, seconds (NWN's negative "no expiry" lives become this).
pub const MAX_LIFE: f32 = 60.0;

/// The deterministic random sequence of one emitter: SplitMix64, chosen for being tiny, fast
/// and well distributed; any seeded generator would do as long as it never reads a clock.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A sequence seeded from an emitter's index and name.
    pub fn for_emitter(index: usize, name: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ index as u64;
        for b in name.bytes() {
            h = (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [-1, 1).
    pub fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

/// When an emitter spawns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Emission {
    /// `birthrate` particles a second (NWN Fountain, M2 emitters).
    Continuous,
    /// One particle at the start; with `looping`, a new one whenever the last has died (NWN
    /// Single).
    Single {
        /// Emit again after each death.
        looping: bool,
    },
    /// `birthrate` particles at once at each burst the source reports (NWN Explosion on
    /// `detonate`).
    Burst,
}

/// How a particle's quad is oriented.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Facing {
    /// Faces the camera, turned by the particle's rotation (NWN normal, M2 billboards).
    Camera,
    /// Lies in the world's horizontal plane (NWN billboard_to_world_z).
    WorldPlane,
    /// Lies in the emitter's own spawn plane (NWN billboard_to_local_z).
    LocalPlane,
    /// Upright: its vertical edge is the world's up, turned about it toward the camera (NWN
    /// aligned_to_world_z).
    Upright,
    /// Its vertical edge along the particle's velocity, facing the camera as well as it can
    /// (NWN aligned_to_particle_dir).
    Velocity,
    /// Along its velocity like [`Facing::Velocity`], `stretch` times as long (NWN
    /// motion_blur with its `blurlength`).
    Streak {
        /// Length factor (≥ 1).
        stretch: f32,
    },
    /// Consecutive particles joined into one strip (NWN linked).
    Linked,
}

/// A sprite-sheet: `columns × rows` cells, row-major from the top left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Atlas {
    /// Cells across.
    pub columns: u32,
    /// Cells down.
    pub rows: u32,
}

impl Atlas {
    /// A single-cell texture.
    pub const WHOLE: Atlas = Atlas {
        columns: 1,
        rows: 1,
    };

    /// Cells in the sheet (at least 1).
    pub fn cells(&self) -> u32 {
        self.columns.max(1).saturating_mul(self.rows.max(1))
    }

    /// UV rectangle of `cell` (wrapped into the sheet): top-left and bottom-right.
    pub fn cell_uv(&self, cell: u32) -> [[f32; 2]; 2] {
        let (c, r) = (self.columns.max(1), self.rows.max(1));
        let cell = cell % self.cells();
        let (x, y) = ((cell % c) as f32, (cell / c) as f32);
        let (w, h) = (1.0 / c as f32, 1.0 / r as f32);
        [[x * w, y * h], [(x + 1.0) * w, (y + 1.0) * h]]
    }
}

/// Which atlas cell a particle shows over its life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CellAnimation {
    /// `fps` cells a second through `first..=last`, looping (NWN); `random` starts each particle
    /// at a random cell of the range.
    Rate {
        /// Cells a second; 0 spreads the range over the particle's life (rollnw).
        fps: f32,
        /// First cell.
        first: u32,
        /// Last cell.
        last: u32,
        /// Random start cell per particle.
        random: bool,
    },
    /// Two runs of cells, one up to the colour midpoint and one after it (M2 ≤ BC
    /// `lifespanUVAnim`, `decayUVAnim`): each `[start, end, repeat]` steps from `start` to
    /// `end` `repeat` times over its part of the life ([`intervals::cell`]).
    Intervals {
        /// The run up to the midpoint.
        life: [u32; 3],
        /// The run after it.
        decay: [u32; 3],
        /// Added to every cell (wrapping in the sheet).
        offset: u32,
        /// Each particle adds a random cell of the sheet as well.
        random: bool,
    },
}

/// What never changes about an emitter.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitterDef {
    /// Name (for `info` and the seed).
    pub name: String,
    /// When it spawns.
    pub emission: Emission,
    /// How its quads face.
    pub facing: Facing,
    /// How its quads blend.
    pub blend: Blend,
    /// Texture index in the pose's textures, `None` = untextured.
    pub texture: Option<usize>,
    /// The texture's sprite-sheet layout.
    pub atlas: Atlas,
    /// Which cell a particle shows.
    pub cells: CellAnimation,
    /// Particles follow the emitter's whole motion after birth (NWN inherit / M2 model-space
    /// flag): positions are kept in its frame (origin, turn and scale,
    /// [`EmitterState::turn`]).
    pub attached: bool,
    /// Rules only some formats have, each off by default.
    pub extras: Extras,
    /// Particles draw a tail along their path (M2 tail particles).
    pub tail: Option<Tail>,
}

/// An emitter's less common rules (NWN's, as rollnw reads them), each off by default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extras {
    /// Where in a particle's life (0..1) its colour, opacity and size curves start and end
    /// (NWN `percentStart`, `percentEnd`): the start values hold before, the end values after.
    pub curve_window: [f32; 2],
    /// A new particle takes the emitter's velocity on top of its own (NWN `inheritvel`).
    pub inherit_velocity: bool,
    /// `birthrate` counts particles per unit the emitter moves, not per second (NWN
    /// `spawntype` 1).
    pub per_distance: bool,
    /// What particles do at the floor; `None`: they pass through it.
    pub floor: Option<Floor>,
    /// How particles go to the source's [`target`](EmitterSource::target) (NWN `p2p`);
    /// `None`, or no target: they fly free.
    pub pull: Option<Pull>,
    /// Drawn as a beam of this many cards from the emitter to the source's
    /// [`target`](EmitterSource::target), not as particles (NWN Lightning).
    pub beam: Option<u32>,
    /// An attached emitter's particles move and fall in the scene, only their positions
    /// riding its frame (rollnw's `emitter_attached`); otherwise their velocity and gravity
    /// are in the frame too, so they turn with it (M2 model space). The floor and
    /// point-to-point pulls act in the scene, so on an attached emitter only with this.
    pub world_motion: bool,
    /// Added to every particle's velocity each second, in the space the velocity is in (M2
    /// wind).
    pub wind: [f32; 3],
}

impl Default for Extras {
    fn default() -> Self {
        Extras {
            curve_window: [0.0, 1.0],
            inherit_velocity: false,
            per_distance: false,
            floor: None,
            pull: None,
            beam: None,
            world_motion: false,
            wind: [0.0; 3],
        }
    }
}

/// One colour/alpha/size curve over a particle's life: start, middle (at `mid`), end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverLife<T> {
    /// Value at birth.
    pub start: T,
    /// Value at `mid`.
    pub middle: T,
    /// Value at death.
    pub end: T,
    /// Where in the life (0..1) the middle value sits.
    pub mid: f32,
}

impl<T: Copy> OverLife<T> {
    /// Start → end with the middle halfway between (the NWN two-key case).
    pub fn two(start: T, end: T, lerp: impl Fn(T, T, f32) -> T) -> OverLife<T> {
        OverLife {
            start,
            middle: lerp(start, end, 0.5),
            end,
            mid: 0.5,
        }
    }

    /// The value at `f` (0 = birth, 1 = death), piecewise linear through the three keys.
    pub fn at(&self, f: f32, lerp: impl Fn(T, T, f32) -> T) -> T {
        let f = f.clamp(0.0, 1.0);
        let mid = self.mid.clamp(0.001, 0.999);
        if f <= mid {
            lerp(self.start, self.middle, f / mid)
        } else {
            lerp(self.middle, self.end, (f - mid) / (1.0 - mid))
        }
    }
}

/// An emitter's animated values at one moment, in scene space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmitterState {
    /// Where particles are born: the emitter's origin.
    pub origin: [f32; 3],
    /// The emitter's turn and scale: where its frame's X, Y and Z (scene axes, with the
    /// emitter unturned) point in the scene. An attached emitter's particles are kept in
    /// this frame.
    pub turn: [[f32; 3]; 3],
    /// The spawn area's half-extent vectors (its local X and Y axes times half the width and
    /// length); zero for a point emitter.
    pub area: [[f32; 3]; 2],
    /// The emission axis (unit): particles leave along it, within `spread`.
    pub axis: [f32; 3],
    /// Whether it emits at all now (M2 "enabled in" track, NWN detonated/visible).
    pub enabled: bool,
    /// Particles a second (or per burst).
    pub birthrate: f32,
    /// Life of a new particle, seconds.
    pub life: f32,
    /// Speed of a new particle, model units a second.
    pub speed: f32,
    /// Extra random speed, uniform in [0, `speed_random`].
    pub speed_random: f32,
    /// Largest angle of a direction from the axis, radians, up to 2π: each particle's angle
    /// is uniform in [0, `spread`] (rollnw's `initial_emission_direction`; M2's vertical range
    /// is read by the same rule), not uniform over the cap's area.
    pub spread: f32,
    /// Acceleration along scene −Y, model units/s² (negative rises).
    pub gravity: f32,
    /// Velocity damping, fraction lost per second.
    pub drag: f32,
    /// Spin, radians a second.
    pub spin: f32,
    /// Colour (0..1 RGB) over life.
    pub color: OverLife<[f32; 3]>,
    /// Opacity over life.
    pub alpha: OverLife<f32>,
    /// Width and height over life, model units.
    pub size: OverLife<[f32; 2]>,
    /// How particles blink and change size as they age (M2); none by default.
    pub twinkle: Twinkle,
    /// Where particles start and which way they leave: the cone of `area`, `axis` and
    /// `spread`, or an M2 generator ([`Shape`]).
    pub shape: Shape,
}

impl Default for EmitterState {
    fn default() -> Self {
        EmitterState {
            origin: [0.0; 3],
            turn: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            area: [[0.0; 3]; 2],
            axis: [0.0, 1.0, 0.0],
            enabled: true,
            birthrate: 0.0,
            life: 1.0,
            speed: 0.0,
            speed_random: 0.0,
            spread: 0.0,
            gravity: 0.0,
            drag: 0.0,
            spin: 0.0,
            color: OverLife {
                start: [1.0; 3],
                middle: [1.0; 3],
                end: [1.0; 3],
                mid: 0.5,
            },
            alpha: OverLife {
                start: 1.0,
                middle: 1.0,
                end: 1.0,
                mid: 0.5,
            },
            size: OverLife {
                start: [1.0; 2],
                middle: [1.0; 2],
                end: [1.0; 2],
                mid: 0.5,
            },
            twinkle: Twinkle::default(),
            shape: Shape::Cone,
        }
    }
}

/// What a format's emitter reports over time.
pub trait EmitterSource {
    /// The emitter at `time` seconds since the animation's start (the source wraps it into
    /// the animation's length itself where it loops).
    fn state(&self, time: f32) -> EmitterState;
    /// How many bursts fire in `[from, to)` (NWN `detonate` keys and events); 0 by default.
    fn bursts(&self, _from: f32, _to: f32) -> u32 {
        0
    }
    /// Where point-to-point particles go at `time`, in scene space (NWN: the emitter's
    /// reference node); `None` by default.
    fn target(&self, _time: f32) -> Option<[f32; 3]> {
        None
    }
    /// The model drawn at each particle instead of a quad (NWN chunk emitters, see
    /// [`chunk`]), in scene space about its own origin; `None` by default.
    fn mesh(&self) -> Option<&crate::scene::EffectMesh> {
        None
    }
    /// The path a [`Shape::Spline`] state places particles along; `None` by default.
    fn spline(&self) -> Option<&Spline> {
        None
    }
}

/// One live particle.
#[derive(Clone, Debug, PartialEq)]
pub struct Particle {
    /// Position (in the emitter's frame when the emitter is attached).
    pub position: [f32; 3],
    /// Velocity, units a second (in the emitter's frame when the emitter is attached without
    /// [`Extras::world_motion`]).
    pub velocity: [f32; 3],
    /// Seconds since birth (whole steps, counted in `steps`).
    pub age: f32,
    /// Steps since birth.
    pub steps: u32,
    /// Seconds it lives.
    pub life: f32,
    /// Rotation at birth, radians.
    pub angle: f32,
    /// Spin, radians a second.
    pub spin: f32,
    /// Downward acceleration, as the emitter had it at the particle's birth.
    pub gravity: f32,
    /// Velocity damping, fraction lost per second.
    pub drag: f32,
    /// First atlas cell offset (random start).
    pub cell_offset: u32,
    /// Its curves, as the emitter had them at its birth.
    pub color: OverLife<[f32; 3]>,
    /// Opacity curve.
    pub alpha: OverLife<f32>,
    /// Size curve.
    pub size: OverLife<[f32; 2]>,
    /// Its emitter's twinkle, as at its birth.
    pub twinkle: Twinkle,
    /// Where its twinkle starts in the table.
    pub seed: u16,
    /// Birth order (for linked strips).
    pub serial: u64,
    /// The control points of its path to a point-to-point target, in the space of its
    /// position ([`Pull::Bezier`] emitters only).
    pub path: Option<[[f32; 3]; 4]>,
}

impl Particle {
    /// Fraction of its life gone, 0..1.
    pub fn progress(&self) -> f32 {
        if self.life > 0.0 {
            (self.age / self.life).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// The particles of one emitter at one moment, and where its origin was then.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Live particles, oldest first.
    pub particles: Vec<Particle>,
    /// The emitter at that moment.
    pub state: EmitterState,
    /// Spawns dropped because the pool was full, over the whole run.
    pub dropped: u64,
    /// The source's [`target`](EmitterSource::target) then, for emitters that have one.
    pub target: Option<[f32; 3]>,
}

impl Snapshot {
    /// A particle's position in scene space.
    pub fn world_position(&self, def: &EmitterDef, p: &Particle) -> [f32; 3] {
        if def.attached {
            frame::point(&self.state, p.position)
        } else {
            p.position
        }
    }

    /// A particle's velocity in scene space.
    pub fn world_velocity(&self, def: &EmitterDef, p: &Particle) -> [f32; 3] {
        if def.in_frame_motion() {
            frame::vector(&self.state, p.velocity)
        } else {
            p.velocity
        }
    }

    /// `p` with its position and velocity in scene space.
    pub fn in_scene<'p>(&self, def: &EmitterDef, p: &'p Particle) -> Cow<'p, Particle> {
        if !def.attached {
            return Cow::Borrowed(p);
        }
        Cow::Owned(Particle {
            position: self.world_position(def, p),
            velocity: self.world_velocity(def, p),
            ..p.clone()
        })
    }
}

impl EmitterDef {
    /// Its particles' velocities and gravity are in the emitter's frame.
    fn in_frame_motion(&self) -> bool {
        self.attached && !self.extras.world_motion
    }
}

/// Number of whole steps from the animation start to `time` seconds (capped at
/// [`MAX_SIM_SECONDS`]).
pub fn steps_to(time: f32) -> u32 {
    let t = if time.is_finite() { time.max(0.0) } else { 0.0 };
    (t.min(MAX_SIM_SECONDS) * STEP_HZ as f32).round() as u32
}

/// The time of step `k`, seconds.
pub fn step_time(k: u32) -> f32 {
    k as f32 / STEP_HZ as f32
}

pub(crate) fn sane(v: f32, lo: f32, hi: f32) -> f32 {
    if v.is_finite() {
        v.clamp(lo, hi)
    } else {
        0.0
    }
}

/// A new particle from `state` (and `spline`, for a [`Shape::Spline`]); `inverse` is the
/// inverse of the state's frame when `def` is attached (the caller derives it once a step).
fn spawn(
    def: &EmitterDef,
    s: &EmitterState,
    spline: Option<&Spline>,
    inverse: Option<frame::Inverse>,
    rng: &mut Rng,
    serial: u64,
) -> Particle {
    let (offset, dir) = shapes::place(&s.shape, spline, rng).unwrap_or_else(|| {
        let (a, b) = (rng.signed(), rng.signed());
        let offset = add3(scale3(s.area[0], a), scale3(s.area[1], b));
        let spread = sane(s.spread, 0.0, std::f32::consts::TAU);
        (offset, cone(normalize3(s.axis), spread, rng))
    });
    let speed = sane(s.speed, -1e4, 1e4) + sane(s.speed_random, -1e4, 1e4) * rng.unit();
    // Every particle starts at angle 0, as rollnw starts NWN's and wowdev's ≤ BC M2 record
    // (no start angle) starts its own. One draw stays reserved for a start angle so that the
    // draws after it (a random first cell, …) keep their places in the emitter's sequence.
    let _ = rng.unit();
    let angle = 0.0;
    let cell_offset = match def.cells {
        CellAnimation::Rate {
            random: true,
            first,
            last,
            ..
        } => (rng.unit() * (last.saturating_sub(first) + 1) as f32) as u32,
        CellAnimation::Intervals { random: true, .. } => {
            (rng.unit() * def.atlas.cells() as f32) as u32
        }
        _ => 0,
    };
    let seed = (rng.unit() * 65536.0) as u16;
    let life = if s.life < 0.0 {
        MAX_LIFE
    } else {
        sane(s.life, 0.0, MAX_LIFE)
    };
    let velocity = scale3(dir, speed);
    Particle {
        position: match inverse {
            Some(inv) => inv.vector(offset),
            None => add3(s.origin, offset),
        },
        velocity: match inverse {
            Some(inv) if def.in_frame_motion() => inv.vector(velocity),
            _ => velocity,
        },
        age: 0.0,
        steps: 0,
        life,
        angle,
        spin: sane(s.spin, -1e3, 1e3),
        gravity: sane(s.gravity, -1e4, 1e4),
        drag: sane(s.drag, 0.0, 1e3),
        cell_offset,
        color: s.color,
        alpha: s.alpha,
        size: s.size,
        twinkle: Twinkle {
            speed: sane(s.twinkle.speed, -1e4, 1e4),
            // A percent that is not a number shows the particle, as the reference's compare does.
            percent: if s.twinkle.percent.is_nan() {
                1.0
            } else {
                s.twinkle.percent.clamp(0.0, 1.0)
            },
            scale: s.twinkle.scale.map(|v| sane(v, 0.0, 1e3)),
        },
        seed,
        serial,
        path: None,
    }
}

/// A random unit direction at most `spread` from `axis`, its angle from the axis uniform in
/// [0, `spread`] and its turn about the axis uniform.
fn cone(axis: [f32; 3], spread: f32, rng: &mut Rng) -> [f32; 3] {
    let axis = if dot3(axis, axis) > 0.0 {
        axis
    } else {
        [0.0, 1.0, 0.0]
    };
    let (sin_t, cos_t) = crate::math::sin_cos(rng.unit() * spread);
    let phi = rng.unit() * std::f32::consts::TAU;
    let helper = if axis[1].abs() < 0.9 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let u = normalize3(cross(axis, helper));
    let v = cross(axis, u);
    let (sin_p, cos_p) = crate::math::sin_cos(phi);
    let side = add3(scale3(u, cos_p * sin_t), scale3(v, sin_p * sin_t));
    add3(scale3(axis, cos_t), side)
}

/// A model's effects for one frame: each emitter (its index among the model's emitters, its
/// definition and source) simulated to `time` seconds of `animation` (going on from where the
/// model's `cache` has been) and drawn for `camera` (right, up, forward rows in scene space):
/// as quads, or as the source's [`mesh`](EmitterSource::mesh) at each particle.
pub fn collect<'a>(
    emitters: impl IntoIterator<Item = (&'a EmitterDef, Box<dyn EmitterSource + 'a>)>,
    time: f32,
    camera: Option<[[f32; 3]; 3]>,
    (cache, animation): (&SimCache, Option<usize>),
) -> Effects {
    let mut out = Effects::default();
    let emitters: Vec<_> = emitters.into_iter().collect();
    let each: Vec<(&EmitterDef, &dyn EmitterSource)> =
        emitters.iter().map(|(d, s)| (*d, s.as_ref())).collect();
    let snaps = cache.simulate_all(animation, &each, time);
    for ((def, src), snap) in emitters.iter().zip(snaps) {
        match src.mesh() {
            Some(model) => {
                chunk::place(def, &snap, model, &mut out.mesh);
                chunk::uses(model, &mut out.uses);
            }
            None => out.sprites.extend(sprites(def, &snap, camera)),
        }
        out.reach.push(snap.state.origin);
        // A beam is drawn all the way to its target, so the target frames the model too.
        if def.extras.beam.is_some() {
            out.reach.extend(snap.target);
        }
        if let Some(t) = def.texture {
            for &b in drawn_blends(def.blend) {
                if !out.uses.contains(&(t, b)) {
                    out.uses.push((t, b));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;

/// An emitter's key fields as `info` lists them (its values in the rest pose at time 0).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Name.
    pub name: String,
    /// Emission: "continuous", "single", "single, looping" or "burst".
    pub emission: String,
    /// Quad orientation.
    pub facing: String,
    /// Blend.
    pub blend: String,
    /// Texture name, if any.
    pub texture: Option<String>,
    /// Sprite-sheet columns × rows.
    pub cells: [u32; 2],
    /// Particles a second (per burst for bursts).
    pub birthrate: f32,
    /// Life, seconds.
    pub life: f32,
    /// Speed and its random extra.
    pub speed: [f32; 2],
    /// Largest angle from the emission axis, degrees.
    pub spread_degrees: f32,
    /// Downward acceleration.
    pub gravity: f32,
    /// Size (width) at birth and death.
    pub size: [f32; 2],
    /// Opacity at birth and death.
    pub alpha: [f32; 2],
    /// The model each particle is, for a mesh-particle emitter (NWN `chunkName`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<String>,
}

impl Summary {
    /// The summary of `def` with `src`'s values at time 0; `textures` names texture indices.
    pub fn of(def: &EmitterDef, src: &dyn EmitterSource, textures: &[String]) -> Summary {
        let s = src.state(0.0);
        Summary {
            name: def.name.clone(),
            emission: match def.emission {
                Emission::Continuous => "continuous".into(),
                Emission::Single { looping: false } => "single".into(),
                Emission::Single { looping: true } => "single, looping".into(),
                Emission::Burst => "burst".into(),
            },
            facing: format!("{:?}", def.facing).to_ascii_lowercase(),
            blend: format!("{:?}", def.blend).to_ascii_lowercase(),
            texture: def.texture.and_then(|t| textures.get(t).cloned()),
            cells: [def.atlas.columns, def.atlas.rows],
            birthrate: s.birthrate,
            life: s.life,
            speed: [s.speed, s.speed_random],
            spread_degrees: s.spread.to_degrees(),
            gravity: s.gravity,
            size: [s.size.start[0], s.size.end[0]],
            alpha: [s.alpha.start, s.alpha.end],
            chunk: None,
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let look = match &self.chunk {
            Some(model) => format!("chunk model {model}"),
            None => format!(
                "{} quads, blend {}, texture {} ({}x{} cells)",
                self.facing,
                self.blend,
                self.texture.as_deref().unwrap_or("none"),
                self.cells[0],
                self.cells[1],
            ),
        };
        write!(
            f,
            "{}: {}, {look}; birthrate {}/s, life {} s, speed {}+{}, spread {}°, gravity {}, size {}->{}, alpha {}->{}",
            self.name,
            self.emission,
            self.birthrate,
            self.life,
            self.speed[0],
            self.speed[1],
            self.spread_degrees.round(),
            self.gravity,
            self.size[0],
            self.size[1],
            self.alpha[0],
            self.alpha[1],
        )
    }
}
