//! NWN emitter nodes → [`crate::effects`] emitters.
//!
//! Fields (rollnw's emitter map, `../shared/spec/nwn/rollnw-nwn_emitter_map.md`, read for
//! facts): `update` Fountain → continuous, Single → one particle (again after it dies with
//! `loop`), Explosion → `birthrate` particles at each `detonate` (an animation event of that
//! name, or a detonate key, which fires as many bursts as its value, as rollnw reads it);
//! Lightning → a beam of `subdivision` cards to the emitter's reference node. A `chunkName`
//! makes each particle that model instead of a quad, whatever `texture` says (rollnw's
//! `mesh_basic` kernel; [`super::chunks`] loads it, [`crate::effects::chunk`] places it). `render` picks
//! the quad orientation, `blend` Lighten → additive, punch-through → cutout, Normal → alpha.
//! The numbers are controllers: the node's own (static) values, overridden by the playing
//! animation's keys for the same node, sampled at each step. Emitters sit in NWN space (Z
//! up), their emission axis the node's local +Z, their spawn area its local X/Y
//! (`xsize`/`ysize` in centimetres); everything is turned into scene space here ([`super::to_scene`]). `mass` is the downward acceleration itself, m/s² (negative
//! rises), as rollnw's particle system applies it (`velocity.z -= mass · dt`, not scaled by
//! standard gravity); `spread` is the largest angle from the axis in radians, each particle's
//! angle uniform up to it; `particleRot` is turns a second from a start angle of 0.

use super::anim::sample;
use super::mdl::{self, emitter as ec, ControllerType, EmitterFlags, Node, NodeDetail, NodeKind};
use super::pose::PoseMemo;
use super::{to_scene, NWNModel};
use crate::effects::{
    Atlas, CellAnimation, Emission, EmitterDef, EmitterSource, EmitterState, Extras, Facing, Floor,
    OverLife, Pull,
};
use crate::math::{lerp3, normalize3, scale3};
use crate::scene::Blend;

/// The detonate controller.
const DETONATE: ControllerType = ControllerType::DETONATE;
/// percentStart, percentEnd (Torlack's table).
const PERCENT_START: ControllerType = ControllerType(480);
const PERCENT_END: ControllerType = ControllerType(482);
/// bounce_co.
const BOUNCE_CO: ControllerType = ControllerType(92);
/// Point-to-point controllers (Torlack's table): combinetime, p2p_bezier2, p2p_bezier3,
/// threshold.
const COMBINE_TIME: ControllerType = ControllerType(120);
const P2P_BEZIER2: ControllerType = ControllerType(152);
const P2P_BEZIER3: ControllerType = ControllerType(156);
const THRESHOLD: ControllerType = ControllerType(188);
/// subdivision (a Lightning beam's cards).
const SUBDIVISION: ControllerType = ControllerType(220);

/// How a NWN emitter is drawn, or why it is not.
pub fn emitter_def(node: &Node, texture: Option<usize>) -> Result<EmitterDef, String> {
    let NodeDetail::Emitter {
        update,
        render,
        blend,
        flags,
        xgrid,
        ygrid,
        looping,
        chunk,
        spawntype,
        ..
    } = &node.detail
    else {
        return Err("not an emitter".into());
    };
    let emission = match update.to_ascii_lowercase().as_str() {
        "fountain" | "" => Emission::Continuous,
        "single" => Emission::Single { looping: *looping },
        "explosion" => Emission::Burst,
        // One beam particle, born again when it dies (rollnw's ensure_beam_particle).
        "lightning" => Emission::Single { looping: true },
        other => return Err(format!("update type '{other}' is not drawn")),
    };
    let blur = static_value(node, ec::BLUR_LENGTH).unwrap_or(0.0);
    let facing = match render.to_ascii_lowercase().as_str() {
        "linked" => Facing::Linked,
        "billboard_to_local_z" => Facing::LocalPlane,
        "billboard_to_world_z" => Facing::WorldPlane,
        "aligned_to_world_z" => Facing::Upright,
        "aligned_to_particle_dir" => Facing::Velocity,
        "motion_blur" => Facing::Streak {
            stretch: blur.clamp(1.0, 100.0),
        },
        _ => Facing::Camera,
    };
    let blend = match blend.to_ascii_lowercase().as_str() {
        "lighten" => Blend::Additive,
        "punch-through" | "punchthrough" | "punch_through" => Blend::Cutout,
        "normal" => Blend::Alpha,
        // rollnw: a textured emitter without a blend is a black-backed additive atlas.
        _ if texture.is_some() => Blend::Additive,
        _ => Blend::Alpha,
    };
    let flag = |f: u32| flags & f != 0;
    let lightning = update.eq_ignore_ascii_case("lightning");
    let frame = |ty| static_value(node, ty).unwrap_or(0.0).clamp(0.0, 4095.0) as u32;
    let atlas = Atlas {
        columns: (*xgrid).clamp(1, 64),
        rows: (*ygrid).clamp(1, 64),
    };
    let (first, last) = (frame(ec::FRAME_START), frame(ec::FRAME_END));
    // rollnw widens an unset range (0..0) to the whole sheet.
    let last = if first == 0 && last == 0 {
        atlas.cells() - 1
    } else {
        last.max(first)
    };
    Ok(EmitterDef {
        name: node.name.clone(),
        emission,
        facing,
        blend,
        // A chunk emitter's particles are its chunk model ([`super::chunks`]), not quads.
        texture: texture.filter(|_| mdl::is_null_name(chunk)),
        atlas,
        cells: CellAnimation::Rate {
            fps: static_value(node, ec::FPS).unwrap_or(0.0),
            first,
            last,
            random: flags & EmitterFlags::RANDOM != 0,
        },
        // inherit_local keeps particles where they were born, whatever `inherit` says
        // (rollnw's map_simulation_space: spawn-attached before emitter-attached).
        attached: flag(EmitterFlags::INHERIT) && !flag(EmitterFlags::INHERIT_LOCAL),
        extras: Extras {
            curve_window: curve_window(node),
            inherit_velocity: flag(EmitterFlags::INHERIT_VEL),
            // rollnw moves attached particles in the world, mapping only their positions.
            world_motion: true,
            per_distance: *spawntype == 1,
            floor: floor(node, *flags),
            pull: (flag(EmitterFlags::P2P) && !lightning).then(|| pull(node, *flags)),
            beam: lightning.then(|| {
                static_value(node, SUBDIVISION)
                    .unwrap_or(1.0)
                    .clamp(1.0, 64.0) as u32
            }),
            // A model has no wind: rollnw's is 0 unless its host sets one.
            wind: [0.0; 3],
        },
        tail: None,
    })
}

/// How a point-to-point emitter's particles go to its reference node: along a Bézier with
/// `p2p_sel` (tangents `p2p_bezier2` / `p2p_bezier3`, `combinetime` seconds), else pulled by
/// `grav` with `drag`, dying within `threshold` (rollnw's map_targeting_mode and targeting
/// fields).
fn pull(node: &Node, flags: u32) -> Pull {
    let value = |ty| {
        let v = static_value(node, ty).unwrap_or(0.0);
        if v.is_finite() {
            v.clamp(-1e4, 1e4)
        } else {
            0.0
        }
    };
    if flags & EmitterFlags::P2P_SEL != 0 {
        Pull::Bezier {
            out: value(P2P_BEZIER2),
            back: value(P2P_BEZIER3),
            time: value(COMBINE_TIME),
        }
    } else {
        Pull::Gravity {
            gravity: value(ec::GRAV),
            drag: value(ec::DRAG),
            threshold: value(THRESHOLD),
        }
    }
}

/// What the particles do at the floor: `splat` kills them there, else `bounce` bounces them
/// by `bounce_co` (rollnw's apply_particle_collision, which tests splat first).
fn floor(node: &Node, flags: u32) -> Option<Floor> {
    if flags & EmitterFlags::SPLAT != 0 {
        Some(Floor::Splat)
    } else if flags & EmitterFlags::BOUNCE != 0 {
        let k = static_value(node, BOUNCE_CO).unwrap_or(0.0);
        Some(Floor::Bounce(if k.is_finite() {
            k.clamp(0.0, 10.0)
        } else {
            0.0
        }))
    } else {
        None
    }
}

/// Where the colour, opacity and size curves start and end in the life: `percentStart` and
/// `percentEnd` (0 and 1 when missing or not finite), each within 0..1, the end not before the
/// start (rollnw's `over_life_percentages`).
fn curve_window(node: &Node) -> [f32; 2] {
    let percent = |ty, default: f32| {
        let v = static_value(node, ty).unwrap_or(default);
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            default
        }
    };
    let start = percent(PERCENT_START, 0.0);
    [start, percent(PERCENT_END, 1.0).max(start)]
}

/// Most bursts one detonate key fires.
const MAX_BURSTS_PER_KEY: u32 = 64;

/// The bursts detonate key `i` fires: its value rounded, at least 1 (rollnw's
/// `collect_animation_effect_events`); 1 for a key without a value (binary files' keys,
/// which list times only).
fn burst_count(c: &mdl::Controller, i: usize) -> u32 {
    match c.values.get(i * c.stride()) {
        Some(&v) if c.columns > 0 => (v.max(0.0).round() as u32).clamp(1, MAX_BURSTS_PER_KEY),
        _ => 1,
    }
}

fn static_value(node: &Node, ty: ControllerType) -> Option<f32> {
    node.controller(ty)
        .and_then(|c| sample(c, 0.0).first().copied())
}

/// One NWN node's controllers playing `animation` (an emitter's parameters, a light's colour).
pub struct AnimatedNode<'m> {
    model: &'m NWNModel,
    node: usize,
    animation: Option<usize>,
    /// The times of its node's detonate keys in the animation, in order.
    detonate_keys: Vec<f32>,
    /// Bursts the keys before each fire: `detonate_sums[i]` for the first `i` keys.
    detonate_sums: Vec<u32>,
    /// Node transforms shared with the model's other emitters, stepping together.
    memo: Option<&'m PoseMemo>,
    /// Its first reference child: where point-to-point particles go.
    reference: Option<usize>,
}

impl<'m> AnimatedNode<'m> {
    /// Node `node` of `model` during `animation`.
    pub fn new(model: &'m NWNModel, node: usize, animation: Option<usize>) -> Self {
        let mut a = AnimatedNode {
            model,
            node,
            animation,
            detonate_keys: Vec::new(),
            detonate_sums: vec![0],
            memo: None,
            reference: (model.mdl.nodes.iter())
                .position(|n| n.parent == Some(node) && n.kind == NodeKind::Reference),
        };
        if let Some((n, _)) = a.keyed() {
            let mut keys: Vec<(f32, u32)> = (n.controllers.iter())
                .filter(|c| c.ty == DETONATE)
                .flat_map(|c| (0..c.times.len()).map(move |i| (c.times[i], burst_count(c, i))))
                .filter(|(t, _)| !t.is_nan())
                .collect();
            keys.sort_by(|x, y| x.0.total_cmp(&y.0));
            for (t, n) in keys {
                a.detonate_keys.push(t);
                a.detonate_sums
                    .push(a.detonate_sums.last().copied().unwrap_or(0) + n);
            }
        }
        a
    }

    /// The same, its node's transform worked out through `memo`, which the emitters stepping
    /// together share (each step then poses a chain of parents once for all of them).
    pub fn sharing(self, memo: &'m PoseMemo) -> Self {
        AnimatedNode {
            memo: Some(memo),
            ..self
        }
    }

    /// The animation node keyed for this emitter and the animation's length.
    fn keyed(&self) -> Option<(&'m Node, f32)> {
        let pa = self.model.animations.get(self.animation?)?;
        let an = pa.node_map.get(self.node).copied().flatten()?;
        Some((pa.animation.nodes.get(an)?, pa.animation.length))
    }

    /// A controller's value at animation time `t` (already wrapped): the animation's key if
    /// it has one, else the node's own.
    fn value(&self, ty: ControllerType, t: f32, columns: usize) -> Option<Vec<f32>> {
        let own = &self.model.mdl.nodes[self.node];
        let c = self
            .keyed()
            .and_then(|(n, _)| n.controller(ty))
            .or_else(|| own.controller(ty))?;
        let v = sample(c, t);
        (v.len() >= columns && v.iter().all(|x| x.is_finite())).then_some(v)
    }

    fn scalar(&self, ty: ControllerType, t: f32, default: f32) -> f32 {
        self.value(ty, t, 1).map_or(default, |v| v[0])
    }

    fn color(&self, ty: ControllerType, t: f32, default: [f32; 3]) -> [f32; 3] {
        self.value(ty, t, 3).map_or(default, |v| [v[0], v[1], v[2]])
    }

    /// Node `node`'s transform at `time`, through the shared memo when there is one.
    fn world(&self, node: usize, time: f32) -> super::anim::Affine {
        let own = PoseMemo::default();
        let memo = self.memo.unwrap_or(&own);
        self.model.node_world_one(memo, self.animation, time, node)
    }

    fn wrapped(&self, time: f32) -> f32 {
        let length = self.keyed().map_or(0.0, |(_, l)| l);
        super::pose::wrap_time(time, length)
    }
}

impl EmitterSource for AnimatedNode<'_> {
    fn state(&self, time: f32) -> EmitterState {
        let t = self.wrapped(time);
        let world = self.world(self.node, time);
        let axis = |v: [f32; 3]| to_scene(world.apply_vector(v));
        let (xs, ys) = (
            self.scalar(ec::XSIZE, t, 0.0) * 0.01,
            self.scalar(ec::YSIZE, t, 0.0) * 0.01,
        );
        let sx = self.scalar(ec::SIZE_START, t, 1.0);
        let ex = self.scalar(ec::SIZE_END, t, sx);
        // `sizeStart_y` / `sizeEnd_y` of zero fall back to the X size (square particles).
        let or_x = |y: f32, x: f32| if y > 0.0 { y } else { x };
        let sy = or_x(self.scalar(ec::SIZE_START_Y, t, 0.0), sx);
        let ey = or_x(self.scalar(ec::SIZE_END_Y, t, 0.0), ex);
        let mid = self
            .value(ec::PERCENT_MID, t, 1)
            .map_or(0.5, |v| v[0])
            .clamp(0.01, 0.99);
        let mx = self.value(ec::SIZE_MID, t, 1).map(|v| v[0]);
        let my = self.value(ec::SIZE_MID_Y, t, 1).map(|v| v[0]);
        // A missing end value is the start value, a missing middle one halfway between them
        // (rollnw's mdl_particle_import), wherever percentMid puts it.
        let cs = self.color(ec::COLOR_START, t, [1.0; 3]);
        let ce = self.color(ec::COLOR_END, t, cs);
        let a_s = self.scalar(ec::ALPHA_START, t, 1.0);
        let a_e = self.scalar(ec::ALPHA_END, t, a_s);
        let lerp = |a: f32, b: f32| a + (b - a) * 0.5;
        let size_mid = [
            mx.unwrap_or(lerp(sx, ex)),
            my.filter(|y| *y > 0.0).or(mx).unwrap_or(lerp(sy, ey)),
        ];
        EmitterState {
            origin: to_scene(world.t),
            // The node's turn and scale in scene axes (`to_scene` is its own inverse):
            // `inherit` particles ride it (rollnw's emitter_attached world transform).
            turn: [[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]].map(axis),
            area: [
                scale3(normalize3(axis([1.0, 0.0, 0.0])), xs * 0.5),
                scale3(normalize3(axis([0.0, 1.0, 0.0])), ys * 0.5),
            ],
            axis: normalize3(axis([0.0, 0.0, 1.0])),
            enabled: true,
            birthrate: self.scalar(ec::BIRTHRATE, t, 0.0),
            life: self.scalar(ec::LIFE_EXP, t, 1.0),
            speed: self.scalar(ec::VELOCITY, t, 0.0),
            speed_random: self.scalar(ec::RAND_VEL, t, 0.0),
            spread: self.scalar(ec::SPREAD, t, 0.0),
            gravity: self.scalar(ec::MASS, t, 0.0),
            drag: 0.0,
            spin: self.scalar(ec::PARTICLE_ROT, t, 0.0) * std::f32::consts::TAU,
            color: OverLife {
                start: cs,
                middle: self.color(ec::COLOR_MID, t, lerp3(cs, ce, 0.5)),
                end: ce,
                mid,
            },
            alpha: OverLife {
                start: a_s,
                middle: self.scalar(ec::ALPHA_MID, t, lerp(a_s, a_e)),
                end: a_e,
                mid,
            },
            size: OverLife {
                start: [sx, sy],
                middle: size_mid,
                end: [ex, ey],
                mid,
            },
            twinkle: crate::effects::Twinkle::default(),
            ..EmitterState::default()
        }
    }

    fn target(&self, time: f32) -> Option<[f32; 3]> {
        Some(to_scene(self.world(self.reference?, time).t))
    }

    fn mesh(&self) -> Option<&crate::scene::EffectMesh> {
        self.model.chunk(self.node).map(|c| &c.mesh)
    }

    fn bursts(&self, from: f32, to: f32) -> u32 {
        let Some(pa) = self.animation.and_then(|i| self.model.animations.get(i)) else {
            return 0;
        };
        let len = pa.animation.length;
        // Event and key times in the animation's loop, counted in every loop [from, to) meets;
        // both lists are sorted, so a count is two binary searches each (a step asks for one).
        let count_in = |a: f32, b: f32| {
            let below = |times: &[f32], x: f32| times.partition_point(|&t| t < x);
            let events = below(&pa.detonations, b).saturating_sub(below(&pa.detonations, a));
            let keys = &self.detonate_keys;
            let sums = &self.detonate_sums;
            let keyed = sums[below(keys, b)].saturating_sub(sums[below(keys, a)]);
            events as u32 + keyed
        };
        if len.is_nan() || len <= 0.0 {
            return if from <= 0.0 {
                count_in(0.0, f32::EPSILON)
            } else {
                0
            };
        }
        let (la, lb) = ((from / len).floor(), (to / len).floor());
        if la == lb {
            count_in(from - la * len, to - la * len)
        } else {
            count_in(from - la * len, len) + count_in(0.0, to - lb * len)
        }
    }
}

/// Most emitters of one model drawn, as M2 reads at most 256 of each effect: each is
/// simulated at every step up to a frame's time, so they bound what a frame costs (and 256
/// emitters of 128 particles are far past the sprites a frame draws).
pub const MAX_EMITTERS: usize = 256;

/// The emitter nodes of `model` that are drawn, with their definitions (the first
/// [`MAX_EMITTERS`]); the others with the reason they are not.
pub fn emitters(model: &NWNModel) -> (Vec<(usize, EmitterDef)>, Vec<String>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut over = 0;
    for (i, n) in model.mdl.nodes.iter().enumerate() {
        if n.kind != NodeKind::Emitter {
            continue;
        }
        // A chunk emitter whose model did not load draws nothing; its warning is the load's.
        if super::chunks::chunk_name(n).is_some() && model.chunk(i).is_none() {
            continue;
        }
        match emitter_def(n, model.node_texture[i]) {
            Ok(_) if out.len() == MAX_EMITTERS => over += 1,
            Ok(d) => out.push((i, d)),
            Err(why) => skipped.push(format!("emitter '{}': {why}", n.name)),
        }
    }
    if over > 0 {
        skipped.push(format!(
            "{over} emitters past the first {MAX_EMITTERS} are not drawn"
        ));
    }
    (out, skipped)
}

/// Every drawn emitter of `model` simulated `time` seconds into `animation`: (name,
/// definition, particles). What [`crate::scene::Model::effects`] draws, for inspection.
pub fn snapshots(
    model: &NWNModel,
    animation: Option<usize>,
    time: f32,
) -> Vec<(EmitterDef, crate::effects::Snapshot)> {
    let memo = PoseMemo::default();
    model
        .emitters
        .iter()
        .enumerate()
        .map(|(i, (node, def))| {
            let src = AnimatedNode::new(model, *node, animation).sharing(&memo);
            (def.clone(), crate::effects::simulate(i, def, &src, time))
        })
        .collect()
}

/// Light controller numbers (Torlack's table).
const LIGHT_COLOR: ControllerType = ControllerType(76);
const LIGHT_MULTIPLIER: ControllerType = ControllerType(140);
const LIGHT_RADIUS: ControllerType = ControllerType(88);

/// The model's light nodes at `time` seconds into `animation`: each light's colour ×
/// multiplier, ambient-only lights summed into the ambient colour, the others in priority
/// order (NWN's 1 is the most important). `None` when the model has no light node.
pub fn lights(
    model: &NWNModel,
    animation: Option<usize>,
    time: f32,
) -> Option<crate::scene::ModelLights> {
    let nodes = &model.mdl.nodes;
    if !nodes.iter().any(|n| n.kind == NodeKind::Light) {
        return None;
    }
    let world = model.node_world_at(animation, time);
    let mut out = crate::scene::ModelLights::default();
    let mut ranked = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let NodeDetail::Light {
            priority,
            ambient_only,
            ..
        } = &n.detail
        else {
            continue;
        };
        let src = AnimatedNode::new(model, i, animation);
        let t = src.wrapped(time);
        let k = src.scalar(LIGHT_MULTIPLIER, t, 1.0);
        let color = src.color(LIGHT_COLOR, t, [1.0; 3]).map(|c| c * k);
        if *ambient_only {
            let sum = out.ambient.get_or_insert([0.0; 3]);
            for (a, c) in sum.iter_mut().zip(color) {
                *a += c;
            }
        } else {
            let light = crate::scene::ModelLight {
                position: to_scene(world[i].t),
                color,
            };
            ranked.push((*priority, i, light));
        }
    }
    ranked.sort_by_key(|(p, i, _)| (*p, *i));
    out.lights = ranked.into_iter().map(|(_, _, l)| l).collect();
    Some(out)
}

/// One line per light node for `info`: rest colour, multiplier, radius, priority, position.
pub fn light_lines(model: &NWNModel) -> Vec<String> {
    let world = model.node_world_at(None, 0.0);
    model
        .mdl
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let NodeDetail::Light {
                priority,
                ambient_only,
                ..
            } = &n.detail
            else {
                return None;
            };
            let src = AnimatedNode::new(model, i, None);
            let c = src.color(LIGHT_COLOR, 0.0, [1.0; 3]);
            Some(format!(
                "{}: colour {:?} × {}, radius {}, priority {priority}{}, at {:?}",
                n.name,
                c,
                src.scalar(LIGHT_MULTIPLIER, 0.0, 1.0),
                src.scalar(LIGHT_RADIUS, 0.0, 0.0),
                if *ambient_only { ", ambient only" } else { "" },
                to_scene(world[i].t),
            ))
        })
        .collect()
}

#[cfg(test)]
#[path = "effects_tests.rs"]
mod tests;
