//! Rectangles (sprites): axis-aligned, never dithered, texture coordinates stepping by one
//! texel per pixel (backwards under the E1 flip bits). Each row is a span through the shared
//! span kernel, with U stepping by ±1 and V constant.
// Verified: hwtests phases 5, 13; gpu-images/rectangles and texture-flip.

use super::pixel::{PixelMode, PixelOut};
use super::span::{dispatch, Kernel, PrimSteps, Shade, Simd, SpanDraw, FRAC, NO_DITHER};
use super::texture::{ClutRef, Sampler, Texture};
use super::{Band, Clip, TexSource};

/// A set-up rectangle.
#[derive(Clone, Debug)]
pub struct Rect {
    /// Left column (after the drawing offset).
    pub x: i32,
    /// Top row.
    pub y: i32,
    /// Width.
    pub w: i32,
    /// Height.
    pub h: i32,
    /// Colour (8-bit RGB).
    pub rgb: (i32, i32, i32),
    /// Texture and its origin (U, V), if textured.
    pub texture: Option<(Texture, u8, u8)>,
    /// Raw texture.
    pub raw: bool,
    /// E1 X-flip.
    pub flip_x: bool,
    /// E1 Y-flip.
    pub flip_y: bool,
    /// Drawing area.
    pub clip: Clip,
    /// Pixel write mode.
    pub mode: PixelMode,
}

impl Rect {
    /// Where its texture's CLUT entries are, once the CLUT cache has said.
    pub fn set_clut(&mut self, clut: ClutRef) {
        if let Some((t, _, _)) = &mut self.texture {
            t.clut = clut;
        }
    }

    /// Rows drawn, `[top, bottom)`.
    pub fn rows(&self) -> (i32, i32) {
        (
            self.y.max(self.clip.y0),
            (self.y + self.h).min(self.clip.y1 + 1),
        )
    }

    /// Columns drawn, `[left, right)`.
    pub fn cols(&self) -> (i32, i32) {
        (
            self.x.max(self.clip.x0),
            (self.x + self.w).min(self.clip.x1 + 1),
        )
    }

    /// Draws the rows of the rectangle inside `bands`.
    pub fn draw(&self, bands: &mut [Band], src: TexSource, simd: Simd) {
        let shade = Shade {
            texture: self.texture.as_ref().map(|(t, _, _)| t),
            gouraud: false,
            raw: self.raw,
            blend: self.mode.blend,
        };
        dispatch(self, shade, bands, src, simd);
    }

    /// What the span loop gives pixel (x, y), or `None` when the rectangle does not cover it.
    pub fn sample(&self, x: i32, y: i32) -> Option<super::Interp> {
        let ((top, bottom), (left, right)) = (self.rows(), self.cols());
        if y < top || y >= bottom || x < left || x >= right {
            return None;
        }
        Some(super::Interp {
            rgb: [self.rgb.0, self.rgb.1, self.rgb.2],
            uv: self.texture.as_ref().map(|_| self.uv_at(x, y)),
            dither: 0,
        })
    }

    /// The texture coordinates at pixel (x, y): one texel a pixel from (U0, V0), backwards
    /// under a flip. X-flip samples U0+1, U0, U0−1, …: the hardware's flipped U counter starts
    /// one texel to the right. Verified: gpu-images/texture-flip.
    fn uv_at(&self, x: i32, y: i32) -> (u8, u8) {
        let (u0, v0) = self.texture.as_ref().map_or((0, 0), |&(_, u, v)| (u, v));
        let step = |start: u8, d: i32, back: bool| match back {
            true => start.wrapping_sub(d as u8),
            false => start.wrapping_add(d as u8),
        };
        let u = step(u0.wrapping_add(self.flip_x as u8), x - self.x, self.flip_x);
        (u, step(v0, y - self.y, self.flip_y))
    }
}

impl SpanDraw for Rect {
    #[inline(always)]
    fn spans<K: Kernel, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        &self,
        k: K,
        bands: &mut [Band],
        smp: Option<&Sampler<DEPTH>>,
    ) {
        let (top, bottom) = self.rows();
        let (left, right) = self.cols();
        if left >= right || top >= bottom {
            return;
        }
        let du = match self.flip_x {
            true => (1u32 << FRAC).wrapping_neg(),
            false => 1 << FRAC,
        };
        let (r, g, b) = self.rgb;
        let steps = PrimSteps {
            gdx: [0, 0, 0, du as i32, 0],
            flat: [r, g, b],
            px: PixelOut::new(&self.mode),
        };
        let prim = k.prim::<DEPTH>(&steps, smp);
        let (x0, x1) = (left as usize, right as usize);
        let u = (self.uv_at(left, top).0 as i32) << FRAC;
        for band in bands.iter_mut() {
            for y in top.max(band.y0)..bottom.min(band.y1) {
                let v = self.uv_at(left, y).1;
                let at = k.attrs([0, 0, 0, u, (v as i32) << FRAC]);
                let row = band.row(y).try_into().expect("a VRAM row");
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(&prim, row, x0, x1, at, &NO_DITHER, smp);
            }
        }
    }
}
