//! Rasterisation: each primitive is set up once (culling, sorting, gradients), then drawn into
//! any horizontal band of VRAM rows; a primitive drawn band by band writes exactly what it
//! writes in one pass, which is what makes [`bands`] output equal to serial output.

pub mod bands;
pub mod line;
pub mod pixel;
pub mod rect;
pub mod texture;
pub mod triangle;

use crate::{VramImage, VRAM_WIDTH};

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

/// A band of VRAM rows being drawn: `rows[(y - y0) * 1024 + x]` for `y` in `y0..y1`.
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

/// A primitive ready to draw.
#[derive(Clone, Debug)]
pub enum Prim {
    /// A triangle (quads arrive as two).
    Triangle(Box<triangle::Triangle>),
    /// A line segment.
    Line(Box<line::Line>),
    /// A rectangle.
    Rect(Box<rect::Rect>),
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

    /// Draws the part of the primitive inside `band`, sampling textures from `tex`.
    pub fn draw(&self, band: &mut Band, tex: &VramImage) {
        match self {
            Prim::Triangle(t) => t.draw(band, tex),
            Prim::Line(l) => l.draw(band),
            Prim::Rect(r) => r.draw(band, tex),
        }
    }
}
