//! Triangles: the hardware's edge walker and attribute gradients.
//!
//! Edges are walked in signed 32.32 fixed point from the top vertex of each edge; an edge's
//! start is biased by (1 − 2⁻²¹) so that a span covers the integer columns `x` with
//! `left ≤ x < right` (left/top edges in, right/bottom edges out), and the per-row step is the
//! exact quotient rounded away from zero. Colour and texture coordinates use gradients with 12
//! fraction bits, truncated toward zero, evaluated from a core vertex with a +½ bias.
//!
//! A triangle is queued as a [`TriangleCmd`] (culled, not set up) and set up when its batch
//! draws, so the gradient divisions run on the rasteriser threads ([`setup`]). A set-up
//! [`Triangle`] is drawn row by row through the span kernels ([`rows`]) or looked at pixel by
//! pixel ([`sample`]: the in-order drawing of texture feedback and the pixel history).
// Verified: hwtests phases 1, 3, 6 (edges), 7, 17–22 (attributes).

use super::pixel::PixelMode;
use super::span::{dispatch, Shade, Simd};
use super::texture::Texture;
use super::{Band, Clip, TexSource};
use setup::{Grad, PackedVtx};

pub mod rows;
pub mod sample;
pub mod setup;

pub use setup::TriangleCmd;

/// A vertex after the drawing offset, with 8-bit colour and texture coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vtx {
    /// X in VRAM columns.
    pub x: i32,
    /// Y in VRAM rows.
    pub y: i32,
    /// Red.
    pub r: i32,
    /// Green.
    pub g: i32,
    /// Blue.
    pub b: i32,
    /// U.
    pub u: i32,
    /// V.
    pub v: i32,
}

/// What a triangle samples and how it shades.
#[derive(Clone, Copy, Debug)]
pub struct Shading {
    /// Colours differ per vertex.
    pub gouraud: bool,
    /// Texture, if textured.
    pub texture: Option<Texture>,
    /// Raw texture (no modulation).
    pub raw: bool,
    /// Dithering applies.
    pub dither: bool,
    /// Pixel write mode.
    pub mode: PixelMode,
}

/// A set-up triangle.
#[derive(Clone, Debug)]
pub struct Triangle {
    /// Vertices sorted by y (packed: the set-up triangle is written once per draw).
    v: [PackedVtx; 3],
    /// What may be drawn: the drawing area met with the bounding box (see [`TriangleCmd`]).
    clip: Clip,
    shading: Shading,
    /// Gradients of r, g, b, u, v; those drawing does not read are 0 (see
    /// [`TriangleCmd::setup`]).
    grads: [Grad; 5],
    /// Per-row X steps of the edges v0→v2, v0→v1, v1→v2 (32.32).
    steps: [i64; 3],
    /// The long edge v0→v2 is the left one.
    long_left: bool,
    /// The vertex attributes are evaluated from.
    core: PackedVtx,
    /// Every colour the triangle can draw lies in 0..=255 (see [`TriangleCmd::setup`]).
    rgb_fast: bool,
}

/// The x of an edge start in 32.32 fixed point, biased to make spans half-open.
#[inline]
fn x_fp(x: i32) -> i64 {
    ((x as i64) << 32) + (1i64 << 32) - (1i64 << 11)
}

/// 32.32 step of `dx` over `dy` steps, rounded away from zero: an edge's per-row x step,
/// and a line's per-step x and y.
#[inline]
pub(crate) fn x_step(dx: i32, dy: i32) -> i64 {
    if dy == 0 {
        return 0;
    }
    let n = (dx as i64) << 32;
    let d = dy as i64;
    // Away from zero by the sign, not a branch on it: edges slope either way at random.
    (n + (d - 1) * n.signum()) / d
}

impl Triangle {
    /// Rows drawn, `[top, bottom)`, clipped to the drawing area.
    pub fn rows(&self) -> (i32, i32) {
        (
            i32::from(self.v[0].y).max(self.clip.y0),
            i32::from(self.v[2].y).min(self.clip.y1 + 1),
        )
    }

    /// Draws the rows of the triangle inside `bands`, through a loop specialised for its
    /// shading, texture depth and blend mode (chosen once per primitive).
    pub fn draw(&self, bands: &mut [Band], src: TexSource, simd: Simd) {
        let s = &self.shading;
        let shade = Shade {
            texture: s.texture.as_ref(),
            gouraud: s.gouraud,
            raw: s.raw,
            blend: s.mode.blend,
        };
        dispatch(self, shade, bands, src, simd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_step_rounds_away_from_zero() {
        assert_eq!(x_step(1, 3), ((1i64 << 32) + 2) / 3);
        assert_eq!(x_step(-1, 3), -(((1i64 << 32) + 2) / 3));
        assert_eq!(x_step(0, 5), 0);
        assert_eq!(x_step(4, 2), 2i64 << 32);
    }

    #[test]
    fn integer_edge_is_left_inclusive() {
        assert_eq!(x_fp(3) >> 32, 3);
        assert_eq!((x_fp(3) + (1i64 << 31)) >> 32, 4);
    }
}
