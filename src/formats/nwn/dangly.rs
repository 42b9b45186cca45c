//! Dangly meshes: vertices that sway with the node's motion, each as free as its constraint
//! (0 fixed … 255 free).
//!
//! The format gives three numbers and no formula: `displacement` (how far a free vertex may
//! move), `tightness` and `period`. Our rule: the mesh node's origin is followed through the
//! animation at [`crate::effects::STEP_HZ`] steps from its start (so a frame is a pure function
//! of the animation and frame, as particles are); one damped spring per node — natural period
//! `period` seconds, damping ratio `tightness / 10` clamped to 0.05–1 — is driven by the
//! origin's acceleration (inertia: the mesh lags behind its node), and its offset, clamped to
//! `displacement`, moves each vertex scaled by its constraint / 255. Node rotation does not
//! drive it. With no animation (or a still node) the mesh keeps its rest shape.

use super::mdl::{NodeDetail, NodeKind};
use super::NWNModel;
use crate::effects::{steps_to, STEP_HZ};
use crate::math::{add3, dot3, scale3, sub3};

/// The sway offset (NWN space) of every dangly node, `time` seconds into `animation`:
/// `(node index, offset)`; empty without an animation.
pub fn sways(model: &NWNModel, animation: Option<usize>, time: f32) -> Vec<(usize, [f32; 3])> {
    let nodes: Vec<(usize, f32, f32, f32)> = model
        .mdl
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| match (&n.kind, &n.detail) {
            (
                NodeKind::Dangly,
                NodeDetail::Dangly {
                    displacement,
                    tightness,
                    period,
                    ..
                },
            ) => Some((i, *displacement, *tightness, *period)),
            _ => None,
        })
        .collect();
    if nodes.is_empty() || animation.is_none() {
        return Vec::new();
    }
    let dt = 1.0 / STEP_HZ as f32;
    let steps = steps_to(time);
    let mut state = vec![([0.0f32; 3], [0.0f32; 3]); nodes.len()];
    let origin = |k: u32| {
        let w = model.node_world_at(animation, crate::effects::step_time(k));
        nodes.iter().map(|n| w[n.0].t).collect::<Vec<_>>()
    };
    let mut prev2 = origin(0);
    let mut prev = prev2.clone();
    for k in 1..=steps {
        let now = origin(k);
        for (j, &(_, displacement, tightness, period)) in nodes.iter().enumerate() {
            let accel = if k >= 2 {
                scale3(
                    add3(sub3(now[j], scale3(prev[j], 2.0)), prev2[j]),
                    1.0 / (dt * dt),
                )
            } else {
                [0.0; 3]
            };
            let omega = std::f32::consts::TAU / finite_or(period, 1.0).clamp(0.05, 60.0);
            let zeta = (finite_or(tightness, 0.0) / 10.0).clamp(0.05, 1.0);
            let limit = finite_or(displacement, 0.0).clamp(0.0, 100.0);
            let (o, v) = &mut state[j];
            for a in 0..3 {
                let force = -omega * omega * o[a] - 2.0 * zeta * omega * v[a] - accel[a];
                v[a] += finite_or(force, 0.0).clamp(-1e6, 1e6) * dt;
                o[a] += v[a] * dt;
            }
            let len = dot3(*o, *o).sqrt();
            if len > limit {
                // Held at the limit: the offset is clamped and the outward speed dropped.
                let n = if len > 0.0 {
                    scale3(*o, 1.0 / len)
                } else {
                    [0.0; 3]
                };
                *o = scale3(n, limit);
                let out = dot3(*v, n);
                if out > 0.0 {
                    *v = sub3(*v, scale3(n, out));
                }
            }
        }
        prev2 = std::mem::replace(&mut prev, now);
    }
    nodes
        .iter()
        .zip(state)
        .map(|(n, (o, _))| (n.0, o))
        .collect()
}

fn finite_or(v: f32, d: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        d
    }
}
