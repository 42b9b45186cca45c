//! Rules of particle motion only some formats have (NWN's, as rollnw applies them): the floor
//! particles bounce off or splat on, and the way of a point-to-point particle to its target.

use super::frame::{point, Inverse};
use super::{EmitterState, Particle};
use crate::math::{add3, dot3, lerp3, scale3, sub3};

/// What a particle does where it meets the floor (NWN `bounce` with `bounce_co`, `splat`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Floor {
    /// Its velocity mirrored in the floor and scaled by the coefficient.
    Bounce(f32),
    /// It dies where it lands.
    Splat,
}

/// The floor is the model's ground plane, scene y = 0 (NWN z = 0): the plane rollnw's
/// particle collision is tested against (`tests/render_particles.cpp`, its flat ground). A
/// particle whose step from `before` to its position now (scene space, or an attached
/// emitter's `frame` and the way back into it) ends on the other side of the plane is put
/// back on it where the step met it, then bounced or killed (its velocity is in the scene).
/// A step from the plane itself away from it does not meet it (rollnw's test floor would hit
/// it again, holding a bounced particle on the floor).
pub(super) fn meet_floor(
    floor: Floor,
    frame: Option<(&EmitterState, Inverse)>,
    before: [f32; 3],
    p: &mut Particle,
) {
    let height = |l: [f32; 3]| frame.map_or(l[1], |(s, _)| point(s, l)[1]);
    let (y0, y1) = (height(before), height(p.position));
    if !((y0 >= 0.0 && y1 < 0.0) || (y0 < 0.0 && y1 > 0.0)) {
        return;
    }
    p.position = lerp3(before, p.position, y0 / (y0 - y1));
    p.position = match frame {
        Some((s, inv)) => {
            let at = point(s, p.position);
            inv.point([at[0], 0.0, at[2]])
        }
        None => [p.position[0], 0.0, p.position[2]],
    };
    match floor {
        Floor::Splat => {
            p.velocity = [0.0; 3];
            p.age = p.life;
        }
        Floor::Bounce(k) => {
            p.velocity[1] = -p.velocity[1];
            p.velocity = scale3(p.velocity, k);
        }
    }
}

/// A point-to-point emitter's way to its target (NWN `p2p`, the target its reference node).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pull {
    /// Accelerated toward the target (`p2p_sel` 0): `gravity` units/s² along the line to it,
    /// velocity damped by `drag` a second, dead within `threshold` of it.
    Gravity {
        /// Acceleration toward the target (`grav`).
        gravity: f32,
        /// Fraction of the velocity lost a second (`drag`).
        drag: f32,
        /// Distance at which a particle dies (`threshold`; 0: never).
        threshold: f32,
    },
    /// Along a cubic Bézier from the birth point to the target (`p2p_sel` 1), its inner
    /// control points `out` along the line from the start and `back` from the end
    /// (`p2p_bezier2`, `p2p_bezier3`), travelled in `time` seconds (`combinetime`; 0: over
    /// the particle's life).
    Bezier {
        /// Start tangent length.
        out: f32,
        /// End tangent length.
        back: f32,
        /// Seconds to the target.
        time: f32,
    },
}

/// One step of `p`, which is `at` in scene space, toward `target` under a [`Pull::Gravity`],
/// as rollnw's `sprite_target_gravity` kernel: dead within the threshold, else pulled and
/// damped. Other pulls do nothing here.
pub(super) fn pull(pull: Pull, target: [f32; 3], at: [f32; 3], dt: f32, p: &mut Particle) {
    let Pull::Gravity {
        gravity,
        drag,
        threshold,
    } = pull
    else {
        return;
    };
    let delta = sub3(target, at);
    let distance = dot3(delta, delta).sqrt();
    if threshold > 0.0 && distance <= threshold {
        p.age = p.life;
        return;
    }
    if distance > 1e-6 {
        p.velocity = add3(p.velocity, scale3(delta, gravity * dt / distance));
        p.velocity = scale3(p.velocity, (1.0 - drag * dt).max(0.0));
    }
}

/// The control points of a [`Pull::Bezier`] particle born at `start` for `target` (both in
/// the particle's own space).
pub(super) fn bezier_path(pull: Pull, start: [f32; 3], target: [f32; 3]) -> Option<[[f32; 3]; 4]> {
    let Pull::Bezier { out, back, .. } = pull else {
        return None;
    };
    let d = sub3(target, start);
    let len = dot3(d, d).sqrt();
    let dir = if len > 1e-6 {
        scale3(d, 1.0 / len)
    } else {
        [0.0, 1.0, 0.0]
    };
    Some([
        start,
        add3(start, scale3(dir, out)),
        sub3(target, scale3(dir, back)),
        target,
    ])
}

/// Where a [`Pull::Bezier`] particle is on its `path` now: `age / time` along it (its life
/// fraction when `time` is 0), as rollnw's `eval_path_progress` and `cubic_bezier`.
pub(super) fn on_path(pull: Pull, path: &[[f32; 3]; 4], p: &Particle) -> [f32; 3] {
    let t = match pull {
        Pull::Bezier { time, .. } if time > 0.0 => (p.age / time).clamp(0.0, 1.0),
        _ => p.progress(),
    };
    let u = 1.0 - t;
    let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
    (0..4).fold([0.0; 3], |acc, i| add3(acc, scale3(path[i], w[i])))
}
