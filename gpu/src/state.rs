//! The GP0 drawing state (GP0(E1h)–GP0(E6h)) and what it makes of a primitive's vertices:
//! positions placed by the drawing offset, the drawing area as a clip rectangle, and how
//! pixels are written.

use crate::gp0::decode::RawVertex;
use crate::gp0::fields::{AreaCorner, DrawOffset, MaskSetting, TexPage, TexWindow, VertexWord};

/// How far a primitive is moved along an axis so that its pixels land where the hardware
/// draws them, given its lowest coordinate `lo` there: pixel coordinates are 11-bit signed, so
/// a primitive lying below -1024 (it spans less than 1024, so wholly below 0) wraps 2048 up;
/// one above 1023 wraps into negative coordinates, which no drawing area reaches, as it is.
/// Whether a primitive is too large to draw is decided before wrapping.
// Source: the emulator reference (hwtests/emulator-reference/wide: a triangle whose offset
// vertices lie below -1024 is drawn 2048 to the right; one spanning 1024 columns only before
// wrapping its vertices one by one is not drawn; a rectangle past 1023 is not drawn at the
// left). No capture decides it: the hardware probes never wrap.
pub fn wrap_shift(lo: i32) -> i32 {
    (lo < -1024) as i32 * 2048
}
use crate::raster::pixel::PixelMode;
use crate::raster::triangle::Vtx;
use crate::raster::Clip;

/// GP0(E1h)–GP0(E6h) as last written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawState {
    /// GP0(E1h) bits 0–13 (a textured polygon's texpage replaces bits 0–8 and 11).
    pub draw_mode: TexPage,
    /// GP0(E2h) bits 0–19.
    pub tex_window: TexWindow,
    /// GP0(E3h) bits 0–19: drawing area top-left.
    pub area_tl: u32,
    /// GP0(E4h) bits 0–19: drawing area bottom-right.
    pub area_br: u32,
    /// GP0(E5h) bits 0–21: drawing offset, two signed 11-bit fields.
    pub offset: u32,
    /// GP0(E6h) bits 0 (set the mask bit) and 1 (keep pixels whose mask bit is set).
    pub mask: u32,
}

impl DrawState {
    /// The drawing area, inclusive.
    pub fn clip(&self) -> Clip {
        let (tl, br) = (AreaCorner(self.area_tl), AreaCorner(self.area_br));
        Clip {
            x0: tl.x(),
            y0: tl.y(),
            x1: br.x(),
            y1: br.y(),
        }
    }

    /// The drawing offset (x, y), sign-extended.
    pub fn offset(&self) -> (i32, i32) {
        let o = DrawOffset(self.offset);
        (o.x(), o.y())
    }

    /// How a primitive writes pixels: blending when `semi`, and the mask bits.
    pub fn pixel_mode(&self, semi: bool) -> PixelMode {
        let mask = MaskSetting(self.mask);
        PixelMode {
            blend: semi.then(|| self.draw_mode.blend_mode()),
            set_mask: u16::from(mask.set()) << 15,
            check_mask: mask.check(),
        }
    }

    /// A vertex word plus the drawing offset (-2048..=2046, not wrapped).
    // Source: psx-spx "GP0(E5h)"; verified: hwtests phase 1 (drawing offset).
    #[inline]
    pub fn place(&self, p: VertexWord) -> (i32, i32) {
        let (ox, oy) = self.offset();
        (p.x() + ox, p.y() + oy)
    }

    /// A decoded vertex placed, with its colour and texture coordinates.
    #[inline]
    pub fn vtx(&self, r: &RawVertex) -> Vtx {
        let (x, y) = self.place(r.pos);
        Vtx {
            x,
            y,
            r: r.color.r() as i32,
            g: r.color.g() as i32,
            b: r.color.b() as i32,
            u: r.tex.u() as i32,
            v: r.tex.v() as i32,
        }
    }
}
