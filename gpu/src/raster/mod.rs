//! Rasterisation: each primitive is culled when queued ([`batch`]), set up where it is drawn
//! (sorting, gradients, edge steps), and drawn into any horizontal band of VRAM rows; a
//! primitive drawn band by band writes exactly what it writes in one pass, which is what makes
//! [`bands`] output equal to serial output. Triangles and rectangles draw their rows through the
//! [`span`] kernel; textures are sampled from the [`texcache`] snapshot.

pub mod bands;
pub mod batch;
pub mod feedback;
pub mod lanes;
pub mod line;
pub mod pixel;
pub mod rect;
pub mod sample;
pub mod span;
pub mod spare;
pub mod texcache;
pub mod texture;
pub mod tiles;
pub mod triangle;

use crate::{VramImage, VRAM_WIDTH};
use lanes::Scalar;
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
/// drawing task owns one band and draws every primitive of the batch into it.
pub struct Band<'a> {
    /// The rows.
    pub rows: &'a mut [u16],
    /// First VRAM row in `rows`.
    pub y0: i32,
    /// One past the last VRAM row.
    pub y1: i32,
}

impl<'a> Band<'a> {
    /// Rows `y0..y1` of VRAM, `rows` holding just those.
    pub fn new(rows: &'a mut [u16], y0: usize, y1: usize) -> Self {
        debug_assert_eq!(rows.len(), (y1 - y0) * VRAM_WIDTH);
        Band {
            rows,
            y0: y0 as i32,
            y1: y1 as i32,
        }
    }

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

/// What textured primitives sample: the texture cache's snapshot (VRAM as the batch began,
/// where sampled) and the batch's CLUT table.
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

/// What a primitive's loop gives one pixel before shading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interp {
    /// Red, green, blue, 8-bit (a gouraud triangle's may step just outside 0..=255, which
    /// shading saturates).
    pub rgb: [i32; 3],
    /// Texture coordinates before the texture window, when textured.
    pub uv: Option<(u8, u8)>,
    /// Dither offset added to each 8-bit component (0 when not dithered).
    pub dither: i32,
}

/// What a primitive did to one pixel it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The pixel was written.
    Written,
    /// Not written: the texel is 0000h (transparent).
    Transparent,
    /// Not written: the destination's mask bit is set and GP0(E6h) checks it.
    Masked,
}

/// One pixel of a primitive, computed on its own: what its loop gave it, the texel fetched,
/// the outcome and the halfword it leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Interpolated attributes.
    pub interp: Interp,
    /// The texel after the texture window and CLUT, when textured.
    pub texel: Option<u16>,
    /// Written or why not.
    pub outcome: Outcome,
    /// The halfword left in VRAM.
    pub value: u16,
}

/// A pixel's outcome from what its primitive's loop gave it, the texel it fetched (when
/// textured), whether the texture is raw, the write mode and the destination's value `dst`:
/// the pixel rule ([`pixel::pixel`]) for one pixel, in 32 bits as [`span::span_exact`] runs it.
pub fn shade(
    interp: Interp,
    texel: Option<u16>,
    raw: bool,
    mode: pixel::PixelMode,
    dst: u16,
) -> Hit {
    let l = Scalar;
    let flags = pixel::Flags::new(texel.is_some(), raw, pixel::blend_selector(mode.blend));
    let out = pixel::PixelOut::new(&mode).lanes(l);
    let p = pixel::Inputs {
        dst: dst.into(),
        texel: texel.unwrap_or(0).into(),
        rgb: interp.rgb,
        dither: interp.dither,
        covered: -1,
    };
    let outcome = if pixel::transparent(l, flags, p.texel) != 0 {
        Outcome::Transparent
    } else if pixel::writable(l, p.dst, out) == 0 {
        Outcome::Masked
    } else {
        Outcome::Written
    };
    Hit {
        interp,
        texel,
        outcome,
        value: pixel::pixel(l, flags, p, out) as u16,
    }
}
