//! M2 tail particles: a quad trailing a particle along its path, from where it is back to
//! where it was `length` seconds ago at its present velocity, as wide as the particle
//! (WebWowViewerCpp's `particleEmitter.cpp`, `buildVertex2`, read for facts). Its cells run
//! through the tail ranges, start to end, up to the colour midpoint and after it.

use super::Particle;
use crate::math::{add3, cross, dot3, normalize3, scale3};

/// How an emitter's particles trail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tail {
    /// Seconds of motion the tail spans.
    pub length: f32,
    /// The particle's own quad is drawn as well (M2 "both"); otherwise only the tail.
    pub head: bool,
    /// Tail cells up to the midpoint and after it: start and end of each run.
    pub cells: [[u32; 2]; 2],
}

/// A tail quad: its centre, its two half-axes (along the tail, across it), its length and
/// width, and its atlas cell.
pub(super) struct TailQuad {
    pub centre: [f32; 3],
    pub axes: [[f32; 3]; 2],
    pub size: [f32; 2],
    pub cell: u32,
}

/// The tail of `p`, which sits at `at` and is `size` wide, for a camera looking along
/// `forward`; `None` for a particle that does not move across the view.
pub(super) fn quad(
    tail: &Tail,
    p: &Particle,
    at: [f32; 3],
    size: [f32; 2],
    forward: [f32; 3],
) -> Option<TailQuad> {
    let back = scale3(p.velocity, -super::sane(tail.length, 0.0, super::MAX_LIFE));
    let len = dot3(back, back).sqrt();
    let along = normalize3(back);
    let side = normalize3(cross(along, forward));
    if len.is_nan() || len <= 1e-6 || dot3(side, side) < 0.5 {
        return None;
    }
    let [a, b] = tail.cells;
    let cell = super::intervals::at([a[0], a[1], 1], [b[0], b[1], 1], p.color.mid, p.progress());
    // The texture's u runs along the tail, 0 at the particle; v across it.
    Some(TailQuad {
        centre: add3(at, scale3(back, 0.5)),
        axes: [along, side],
        size: [len, size[0]],
        cell,
    })
}
