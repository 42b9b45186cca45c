//! Beams (NWN Lightning emitters): one card per subdivision from the emitter to its target,
//! as rollnw's particle renderer draws its beam path.
//!
//! The beam is one particle, born again when it dies, whose colour, opacity and size over
//! its life are the beam's. Its `segments` cards run straight from the emitter's origin to the
//! target, each as wide as 0.44 × the particle's size, facing the camera as well as their line
//! allows; their joints are pushed sideways by a fixed amount per joint, at most 0.14 × the
//! half width, tapering to nothing at both ends (× sin πt), so the bolt has a kink but no
//! flicker. The texture's first cell is laid across the cards, its rows running the length of
//! the beam.

use super::sprites::{curve_progress, drawn, lerp1, lerp2};
use super::{EmitterDef, Rng, Snapshot};
use crate::math::{add3, cross, dot3, lerp3, normalize3, scale3, sub3};
use crate::scene::Sprite;

/// Half the card's width for a particle of size `size` (rollnw: 0.22 × size).
const HALF_WIDTH: f32 = 0.22;
/// Largest sideways push of a joint, in half widths (rollnw: 0.14).
const JITTER: f32 = 0.14;

/// The beam's cards from `snap`'s origin to its target (none without a target or a live
/// particle), for a camera looking along `forward`.
pub(super) fn beam(
    def: &EmitterDef,
    snap: &Snapshot,
    segments: u32,
    forward: [f32; 3],
) -> Vec<Sprite> {
    let (Some(target), Some(p)) = (snap.target, snap.particles.first()) else {
        return Vec::new();
    };
    let f = curve_progress(def, p);
    let Some((blend, color)) = drawn(def.blend, p.color.at(f, lerp3), p.alpha.at(f, lerp1)) else {
        return Vec::new();
    };
    let half = HALF_WIDTH * p.size.at(f, lerp2)[0].max(0.001);
    let source = snap.state.origin;
    let side = normalize3(cross(sub3(target, source), forward));
    if dot3(side, side) < 0.5 {
        return Vec::new();
    }
    let n = segments.max(1);
    // The same push for a joint at every frame: drawn from a sequence seeded by the emitter.
    let mut rng = Rng::for_emitter(n as usize, &def.name);
    let joints: Vec<[f32; 3]> = (0..=n)
        .map(|i| {
            let t = i as f32 / n as f32;
            let push =
                JITTER * half * rng.signed() * crate::math::sin_cos(std::f32::consts::PI * t).0;
            add3(lerp3(source, target, t), scale3(side, push))
        })
        .collect();
    let [u0, v0] = def.atlas.cell_uv(0)[0];
    let [u1, v1] = def.atlas.cell_uv(0)[1];
    (joints.windows(2).enumerate())
        .map(|(i, w)| {
            let (a, b) = (w[0], w[1]);
            let r = scale3(normalize3(cross(sub3(b, a), forward)), half);
            let va = v0 + (v1 - v0) * i as f32 / n as f32;
            let vb = v0 + (v1 - v0) * (i + 1) as f32 / n as f32;
            Sprite {
                corners: [sub3(a, r), add3(a, r), sub3(b, r), add3(b, r)],
                uv: [[u0, va], [u1, va], [u0, vb], [u1, vb]],
                color,
                texture: def.texture,
                blend,
            }
        })
        .collect()
}
