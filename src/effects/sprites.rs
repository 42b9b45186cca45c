//! Live particles → quads: size, colour, opacity and atlas cell over life, oriented per
//! [`Facing`].

use super::{CellAnimation, EmitterDef, Facing, Particle, Snapshot};
use crate::math::{add3, cross, dot3, lerp3, normalize3, scale3, sub3};
use crate::scene::{Blend, Sprite};

/// Opacity at or below which a particle is not drawn.
const INVISIBLE: f32 = 1.0 / 255.0;

/// The camera used when a request has none: looking down −Z with +Y up.
const DEFAULT_CAMERA: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];

fn lerp2(a: [f32; 2], b: [f32; 2], t: f32) -> [f32; 2] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

fn lerp1(a: f32, b: f32, t: f32) -> f32 {
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
fn cell(def: &EmitterDef, p: &Particle) -> u32 {
    match def.cells {
        CellAnimation::Rate {
            fps, first, last, ..
        } => {
            let span = last.saturating_sub(first) + 1;
            let steps = if fps.is_finite() && fps > 0.0 {
                (p.age * fps).floor() as u32
            } else {
                0
            };
            first + (p.cell_offset.wrapping_add(steps)) % span
        }
        CellAnimation::OverLife { keys } => {
            let f = p.progress();
            let mid = p.color.mid.clamp(0.001, 0.999);
            let (a, b, t) = if f <= mid {
                (keys[0], keys[1], f / mid)
            } else {
                (keys[1], keys[2], (f - mid) / (1.0 - mid))
            };
            (a as f32 + (b as f32 - a as f32) * t).round().max(0.0) as u32
        }
    }
}

/// The PS1 blend a particle of blend `b` is drawn with. The PS1 has no per-primitive alpha:
/// an alpha-blended particle (B·(1−a) + F·a) is drawn B + F/4 with F = 4·a·colour, which keeps
/// its F·a part exactly and drops the −a·B darkening; B/2 + F/2 would halve the background
/// under every particle whatever its alpha, turning a fading smoke puff into a black plume.
pub fn drawn_blend(b: Blend) -> Blend {
    match b {
        Blend::Alpha => Blend::AddQuarter,
        other => other,
    }
}

/// The colour a particle is drawn in, `None` when it adds nothing. Blended particles fold
/// their opacity into the colour (see [`drawn_blend`]); opaque and punch-through ones only
/// vanish when fully transparent.
fn shade(def: &EmitterDef, p: &Particle) -> Option<[u8; 3]> {
    let f = p.progress();
    blended_color(def.blend, p.color.at(f, lerp3), p.alpha.at(f, lerp1))
}

/// The PS1 colour of a quad of colour `c` (0..1) and opacity `a` under blend `blend`, `None`
/// when it would not change the picture.
pub(super) fn blended_color(blend: Blend, c: [f32; 3], a: f32) -> Option<[u8; 3]> {
    if a.is_nan() || a <= INVISIBLE {
        return None;
    }
    let k = match blend {
        Blend::Opaque | Blend::Cutout => return Some(modulation(c, 1.0)),
        Blend::Alpha => 4.0 * a.min(1.0),
        _ => a.min(1.0),
    };
    let rgb = modulation(c, k);
    (rgb != [0; 3] || blend == Blend::Subtractive).then_some(rgb)
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
            [r, [0.0, 1.0, 0.0]]
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
    color: [u8; 3],
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
        blend: drawn_blend(def.blend),
    }
}

/// The sprites of one emitter's snapshot, for a camera whose rows are right, up and forward.
pub fn sprites(def: &EmitterDef, snap: &Snapshot, camera: Option<[[f32; 3]; 3]>) -> Vec<Sprite> {
    let cam = camera.unwrap_or(DEFAULT_CAMERA).map(normalize3);
    if def.facing == Facing::Linked {
        return linked(def, snap, &cam);
    }
    let mut out = Vec::with_capacity(snap.particles.len());
    for p in &snap.particles {
        let Some(color) = shade(def, p) else { continue };
        let mut size = p.size.at(p.progress(), lerp2);
        if let Facing::Streak { stretch } = def.facing {
            size[1] *= stretch;
        }
        if !(size[0].abs() > 1e-6 && size[1].abs() > 1e-6) {
            continue;
        }
        let uv = def.atlas.cell_uv(cell(def, p));
        let centre = snap.world_position(def, p);
        out.push(quad(centre, axes(def, snap, p, &cam), size, uv, color, def));
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
        let Some(color) = shade(def, a) else { continue };
        let wa = a.size.at(a.progress(), lerp2)[0] * 0.5;
        let wb = b.size.at(b.progress(), lerp2)[0] * 0.5;
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
            blend: drawn_blend(def.blend),
        });
    }
    out
}
