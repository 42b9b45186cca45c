//! Live particles → quads: size, colour, opacity and atlas cell over life, oriented per
//! [`Facing`].

use super::{CellAnimation, EmitterDef, Facing, Particle, Snapshot};
use crate::math::{add3, cross, dot3, lerp3, normalize3, scale3, sub3};
use crate::scene::{Blend, Sprite};

/// Opacity at or below which a particle is not drawn.
const INVISIBLE: f32 = 1.0 / 255.0;

/// The camera used when a request has none: looking down −Z with +Y up.
const DEFAULT_CAMERA: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];

pub(super) fn lerp2(a: [f32; 2], b: [f32; 2], t: f32) -> [f32; 2] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

pub(super) fn lerp1(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// PS1 modulation colour (128 = 1.0) of a 0..1 colour scaled by `k`.
fn modulation(c: [f32; 3], k: f32) -> [u8; 3] {
    c.map(|v| {
        let v = v * k * 128.0;
        if v.is_finite() {
            v.round().clamp(0.0, 255.0) as u8
        } else {
            0
        }
    })
}

/// The atlas cell `p` shows now.
pub(super) fn cell(def: &EmitterDef, p: &Particle) -> u32 {
    match def.cells {
        CellAnimation::Rate {
            fps, first, last, ..
        } => {
            let span = last.saturating_sub(first) + 1;
            let steps = if fps.is_finite() && fps > 0.0 {
                (p.age * fps).floor() as u32
            } else {
                // No rate: the range once over the life (rollnw's eval_sprite_frame).
                ((p.progress() * span as f32) as u32).min(span - 1)
            };
            first + (p.cell_offset.wrapping_add(steps)) % span
        }
        CellAnimation::Intervals {
            life,
            decay,
            offset,
            ..
        } => super::intervals::at(life, decay, p.color.mid, p.progress())
            .wrapping_add(offset)
            .wrapping_add(p.cell_offset),
    }
}

/// Opacity from which an alpha-blended quad is drawn B/2 + F/2 rather than B + F/4.
///
/// The PS1 has no per-primitive alpha: of its modes, B/2 + F/2 (mode 0) and B + F/4 (mode 3)
/// are the two whose background weight can stand for alpha blending's 1 − a. Each quad takes
/// the one nearer 1 − a (mode 0 is nearer from a = 1/4: |½ − (1 − a)| < a), and its colour is
/// scaled so that the foreground term comes out exactly a·F (2a in mode 0, 4a in mode 3). A
/// puff is then a translucent veil that darkens what lies behind while it is dense, and fades
/// to nothing by adding less and less, instead of leaving a dark stain (mode 0 all the way) or
/// never darkening anything (mode 3 all the way).
pub const VEIL_FROM: f32 = 0.25;

/// The PS1 modes a quad of source blend `b` may be drawn with (the textures it samples must be
/// encoded for each): an alpha-blended one takes mode 0 or mode 3 by its opacity
/// ([`VEIL_FROM`]).
pub fn drawn_blends(b: Blend) -> &'static [Blend] {
    match b {
        Blend::Opaque => &[Blend::Opaque],
        Blend::Cutout => &[Blend::Cutout],
        Blend::Alpha => &[Blend::Alpha, Blend::AddQuarter],
        Blend::Additive => &[Blend::Additive],
        Blend::Subtractive => &[Blend::Subtractive],
        Blend::AddQuarter => &[Blend::AddQuarter],
    }
}

/// How a quad of source blend `blend`, colour `c` (0..1) and opacity `a` is drawn on the PS1:
/// its mode and modulation colour, `None` when it would not change the picture. Opaque and
/// punch-through quads only vanish when fully transparent; additive and subtractive ones fold
/// their opacity into the colour (exact: B ± a·F); alpha-blended ones as [`VEIL_FROM`] says.
pub(super) fn drawn(blend: Blend, c: [f32; 3], a: f32) -> Option<(Blend, [u8; 3])> {
    if a.is_nan() || a <= INVISIBLE {
        return None;
    }
    let a = a.min(1.0);
    let (mode, k) = match blend {
        Blend::Opaque | Blend::Cutout => return Some((blend, modulation(c, 1.0))),
        Blend::Alpha if a >= VEIL_FROM => (Blend::Alpha, 2.0 * a),
        Blend::Alpha => (Blend::AddQuarter, 4.0 * a),
        other => (other, a),
    };
    let rgb = modulation(c, k);
    // Black adds or takes away nothing, but halves the background in mode 0.
    (rgb != [0; 3] || mode == Blend::Alpha).then_some((mode, rgb))
}

/// Where particle `p` is on its colour, opacity and size curves: its life fraction, moved so
/// that the curves' first and last keys sit at the emitter's
/// [`curve_window`](super::Extras::curve_window), the start values holding before it and the
/// end values after it. The middle key stays at `mid`, moved up to the window's start if it
/// lies before (and the window's end up to it), as rollnw orders its keys.
pub(super) fn curve_progress(def: &EmitterDef, p: &Particle) -> f32 {
    let f = p.progress();
    let [s, e] = def.extras.curve_window;
    if s <= 0.0 && e >= 1.0 {
        return f;
    }
    // Where [`super::OverLife::at`] puts the middle key, and where it is in the life.
    let mid = p.color.mid.clamp(0.001, 0.999);
    let m = mid.max(s);
    let e = e.max(m);
    if f <= m {
        if m > s {
            mid * ((f - s) / (m - s)).max(0.0)
        } else if f < m {
            0.0
        } else {
            mid
        }
    } else if e > m {
        mid + (1.0 - mid) * ((f - m) / (e - m)).min(1.0)
    } else {
        1.0
    }
}

/// Particle `p`'s width and height now: its size curve times its twinkle, or `None` while its
/// twinkle hides it.
pub(super) fn size_now(def: &EmitterDef, p: &Particle) -> Option<[f32; 2]> {
    let k = p.twinkle.factor(p.age, p.seed)?;
    let [w, h] = p.size.at(curve_progress(def, p), lerp2);
    Some([w * k, h * k])
}

/// How particle `p` is drawn now (see [`drawn`]).
fn shade(def: &EmitterDef, p: &Particle) -> Option<(Blend, [u8; 3])> {
    let f = curve_progress(def, p);
    drawn(def.blend, p.color.at(f, lerp3), p.alpha.at(f, lerp1))
}

/// The two half-axes (right, up) a particle's quad spans, before its size.
fn axes(def: &EmitterDef, snap: &Snapshot, p: &Particle, cam: &[[f32; 3]; 3]) -> [[f32; 3]; 2] {
    let [right, up, forward] = *cam;
    let turn = |r: [f32; 3], u: [f32; 3]| {
        let a = p.angle + p.spin * p.age;
        if a == 0.0 {
            return [r, u];
        }
        let (s, c) = crate::math::sin_cos(a);
        [
            add3(scale3(r, c), scale3(u, s)),
            sub3(scale3(u, c), scale3(r, s)),
        ]
    };
    let along = |dir: [f32; 3]| {
        let d = normalize3(dir);
        let r = normalize3(cross(d, forward));
        if dot3(d, d) < 0.5 || dot3(r, r) < 0.5 {
            None
        } else {
            Some([r, d])
        }
    };
    match def.facing {
        Facing::Camera | Facing::Linked => turn(right, up),
        Facing::WorldPlane => turn([1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        Facing::LocalPlane => {
            let [a, b] = snap.state.area.map(normalize3);
            if dot3(a, a) < 0.5 || dot3(b, b) < 0.5 {
                let n = normalize3(snap.state.axis);
                let r = normalize3(cross(n, [0.0, 1.0, 0.0]));
                let r = if dot3(r, r) < 0.5 { [1.0, 0.0, 0.0] } else { r };
                turn(r, cross(n, r))
            } else {
                turn(a, b)
            }
        }
        Facing::Upright => {
            let r = normalize3([right[0], 0.0, right[2]]);
            let r = if dot3(r, r) < 0.5 { right } else { r };
            // Spin turns the card about the world's up, so it stays upright (rollnw's
            // particle_billboard_sprite_axes for aligned_to_world_z).
            let up = [0.0, 1.0, 0.0];
            let (s, c) = crate::math::sin_cos(p.angle + p.spin * p.age);
            [add3(scale3(r, c), scale3(cross(up, r), s)), up]
        }
        Facing::Velocity | Facing::Streak { .. } => {
            along(p.velocity).unwrap_or_else(|| turn(right, up))
        }
    }
}

fn quad(
    centre: [f32; 3],
    [r, u]: [[f32; 3]; 2],
    [w, h]: [f32; 2],
    uv: [[f32; 2]; 2],
    (blend, color): (Blend, [u8; 3]),
    def: &EmitterDef,
) -> Sprite {
    let (hr, hu) = (scale3(r, w * 0.5), scale3(u, h * 0.5));
    let top = add3(centre, hu);
    let bottom = sub3(centre, hu);
    Sprite {
        corners: [
            sub3(top, hr),
            add3(top, hr),
            sub3(bottom, hr),
            add3(bottom, hr),
        ],
        uv: [uv[0], [uv[1][0], uv[0][1]], [uv[0][0], uv[1][1]], uv[1]],
        color,
        texture: def.texture,
        blend,
    }
}

/// The sprites of one emitter's snapshot, for a camera whose rows are right, up and forward.
pub fn sprites(def: &EmitterDef, snap: &Snapshot, camera: Option<[[f32; 3]; 3]>) -> Vec<Sprite> {
    let cam = camera.unwrap_or(DEFAULT_CAMERA).map(normalize3);
    if let Some(segments) = def.extras.beam {
        return super::lightning::beam(def, snap, segments, cam[2]);
    }
    if def.facing == Facing::Linked {
        return linked(def, snap, &cam);
    }
    let mut out = Vec::with_capacity(snap.particles.len());
    for p in &snap.particles {
        // Position and velocity in the scene, whatever frame the particle is kept in.
        let p = &*snap.in_scene(def, p);
        let Some(look) = shade(def, p) else { continue };
        let Some(mut size) = size_now(def, p) else {
            continue;
        };
        if let Facing::Streak { stretch } = def.facing {
            size[1] *= stretch;
        }
        if !(size[0].abs() > 1e-6 && size[1].abs() > 1e-6) {
            continue;
        }
        let centre = p.position;
        if let Some(t) = &def.tail {
            if let Some(q) = super::tails::quad(t, p, centre, size, cam[2]) {
                let uv = def.atlas.cell_uv(q.cell);
                out.push(quad(q.centre, q.axes, q.size, uv, look, def));
            }
            if !t.head {
                continue;
            }
        }
        let uv = def.atlas.cell_uv(cell(def, p));
        out.push(quad(centre, axes(def, snap, p, &cam), size, uv, look, def));
    }
    out
}

/// NWN "linked": one strip through the particles in birth order, each segment a quad as wide
/// as the particle at either end, the texture cell stretched along it.
fn linked(def: &EmitterDef, snap: &Snapshot, cam: &[[f32; 3]; 3]) -> Vec<Sprite> {
    let forward = cam[2];
    let mut out = Vec::new();
    for pair in snap.particles.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (pa, pb) = (snap.world_position(def, a), snap.world_position(def, b));
        let dir = sub3(pb, pa);
        let side = normalize3(cross(dir, forward));
        if dot3(side, side) < 0.5 {
            continue;
        }
        let Some((blend, color)) = shade(def, a) else {
            continue;
        };
        let (Some(sa), Some(sb)) = (size_now(def, a), size_now(def, b)) else {
            continue;
        };
        let (wa, wb) = (sa[0] * 0.5, sb[0] * 0.5);
        let uv = def.atlas.cell_uv(cell(def, a));
        out.push(Sprite {
            corners: [
                sub3(pa, scale3(side, wa)),
                add3(pa, scale3(side, wa)),
                sub3(pb, scale3(side, wb)),
                add3(pb, scale3(side, wb)),
            ],
            uv: [uv[0], [uv[1][0], uv[0][1]], [uv[0][0], uv[1][1]], uv[1]],
            color,
            texture: def.texture,
            blend,
        });
    }
    out
}
