//! Where an attached emitter's particles live: in the emitter's own frame (its origin, turn and
//! scale at each step), so that they follow its whole motion — M2 model-space particles
//! (WebWowViewerCpp draws them through the emitter's full bone matrix, `particleEmitter.cpp`)
//! and NWN `inherit` particles (rollnw's `emitter_attached`, which maps them through the
//! emitter's world transform).

use super::EmitterState;
use crate::math::{add3, cross, dot3, scale3, sub3};

/// The way back from the scene into an emitter's frame at one moment.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inverse {
    origin: [f32; 3],
    /// Rows of the inverse of the frame's turn.
    rows: [[f32; 3]; 3],
}

impl Inverse {
    /// The inverse of `s`'s frame; a frame squashed flat (no inverse) is read as unturned.
    pub(super) fn of(s: &EmitterState) -> Inverse {
        let [a, b, c] = s.turn;
        let rows = [cross(b, c), cross(c, a), cross(a, b)];
        let det = dot3(a, rows[0]);
        let rows = if det.is_finite() && det.abs() > 1e-12 {
            rows.map(|r| scale3(r, 1.0 / det))
        } else {
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        };
        Inverse {
            origin: s.origin,
            rows,
        }
    }

    /// A scene direction in the frame.
    pub(super) fn vector(&self, v: [f32; 3]) -> [f32; 3] {
        self.rows.map(|r| dot3(r, v))
    }

    /// A scene point in the frame.
    pub(super) fn point(&self, p: [f32; 3]) -> [f32; 3] {
        self.vector(sub3(p, self.origin))
    }
}

/// A direction in `s`'s frame, in the scene.
pub(super) fn vector(s: &EmitterState, v: [f32; 3]) -> [f32; 3] {
    let [a, b, c] = s.turn;
    add3(add3(scale3(a, v[0]), scale3(b, v[1])), scale3(c, v[2]))
}

/// A point in `s`'s frame, in the scene.
pub(super) fn point(s: &EmitterState, p: [f32; 3]) -> [f32; 3] {
    add3(s.origin, vector(s, p))
}
