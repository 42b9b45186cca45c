//! Rasterisation: each primitive is culled when queued, set up once when its batch draws
//! (sorting, gradients, edge steps), then drawn into any horizontal band of VRAM rows; a
//! primitive drawn band by band writes exactly what it writes in one pass, which is what makes
//! [`bands`] output equal to serial output. Triangles and rectangles draw their rows through the
//! [`span`] kernel.

pub mod bands;
pub mod line;
pub mod pixel;
pub mod rect;
pub mod snapshot;
pub mod span;
pub mod texture;
pub mod triangle;

use crate::{VramImage, VRAM_WIDTH};
use texture::ClutTable;

/// The drawing area (GP0(E3h)/GP0(E4h)), inclusive on all sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clip {
    /// Left column.
    pub x0: i32,
    /// Top row.
    pub y0: i32,
    /// Right column (inclusive).
    pub x1: i32,
    /// Bottom row (inclusive).
    pub y1: i32,
}

/// A band of VRAM rows being drawn: `rows[(y - y0) * 1024 + x]` for `y` in `y0..y1`. A
/// rasteriser task owns a set of bands (sorted by row) and draws every primitive into them.
pub struct Band<'a> {
    /// The rows.
    pub rows: &'a mut [u16],
    /// First VRAM row in `rows`.
    pub y0: i32,
    /// One past the last VRAM row.
    pub y1: i32,
}

impl Band<'_> {
    /// The halfword at VRAM (x, y); the caller keeps `y` inside the band and `x` in 0..1024.
    #[inline]
    pub fn at(&mut self, x: i32, y: i32) -> &mut u16 {
        &mut self.rows[(y - self.y0) as usize * VRAM_WIDTH + x as usize]
    }

    /// One row of the band, `y` inside the band.
    #[inline]
    pub fn row(&mut self, y: i32) -> &mut [u16] {
        let start = (y - self.y0) as usize * VRAM_WIDTH;
        &mut self.rows[start..start + VRAM_WIDTH]
    }
}

/// What textured primitives sample: VRAM as the batch began, and the batch's CLUT table.
#[derive(Clone, Copy)]
pub struct TexSource<'a> {
    /// The VRAM snapshot.
    pub vram: &'a VramImage,
    /// CLUTs, indexed by [`texture::Texture::clut`].
    pub cluts: &'a [ClutTable],
}

/// A primitive to queue in a batch (triangles not yet set up).
#[derive(Clone, Debug)]
pub enum Prim {
    /// A triangle (quads arrive as two), culled but not yet set up.
    Triangle(triangle::TriangleCmd),
    /// A line segment.
    Line(line::Line),
    /// A rectangle.
    Rect(rect::Rect),
}

impl Prim {
    /// VRAM rows the primitive may touch, `[top, bottom)`.
    pub fn rows(&self) -> (i32, i32) {
        match self {
            Prim::Triangle(t) => t.rows(),
            Prim::Line(l) => l.rows(),
            Prim::Rect(r) => r.rows(),
        }
    }

    /// VRAM columns the primitive may touch, `[left, right)`.
    pub fn cols(&self) -> (i32, i32) {
        match self {
            Prim::Triangle(t) => t.cols(),
            Prim::Line(l) => l.cols(),
            Prim::Rect(r) => r.cols(),
        }
    }
}
