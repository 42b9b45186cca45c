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
}

impl Rect {
    /// What the span loop gives pixel (x, y), or `None` when the rectangle does not cover it.
    pub fn sample(&self, x: i32, y: i32) -> Option<super::Interp> {
        let ((top, bottom), (left, right)) = (self.rows(), self.cols());
        if y < top || y >= bottom || x < left || x >= right {
            return None;
        }
        let uv = self.texture.as_ref().map(|&(_, u0, v0)| {
            let (dx, dy) = ((x - self.x) as u8, (y - self.y) as u8);
            let u = if self.flip_x {
                u0.wrapping_add(1).wrapping_sub(dx)
            } else {
                u0.wrapping_add(dx)
            };
            let v = if self.flip_y {
                v0.wrapping_sub(dy)
            } else {
                v0.wrapping_add(dy)
            };
            (u, v)
        });
        Some(super::Interp {
            rgb: [self.rgb.0, self.rgb.1, self.rgb.2],
            uv,
            dither: 0,
        })
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
        let (u0, v0) = self.texture.as_ref().map_or((0, 0), |&(_, u, v)| (u, v));
        let dx = (left - self.x) as u8;
        // X-flip samples U0+1, U0, U0−1, …: the hardware's flipped U counter starts one texel
        // to the right. Verified: gpu-images/texture-flip.
        let (u, du) = if self.flip_x {
            (
                u0.wrapping_add(1).wrapping_sub(dx),
                (1u32 << FRAC).wrapping_neg(),
            )
        } else {
            (u0.wrapping_add(dx), 1 << FRAC)
        };
        let (r, g, b) = self.rgb;
        let steps = PrimSteps {
            gdx: [0, 0, 0, du as i32, 0],
            flat: [r, g, b],
            px: PixelOut::new(&self.mode),
        };
        let prim = k.prim::<DEPTH>(&steps, smp);
        let (x0, x1) = (left as usize, right as usize);
        let u = (u as i32) << FRAC;
        for band in bands.iter_mut() {
            for y in top.max(band.y0)..bottom.min(band.y1) {
                let dy = (y - self.y) as u8;
                let v = if self.flip_y {
                    v0.wrapping_sub(dy)
                } else {
                    v0.wrapping_add(dy)
                };
                let at = k.attrs([0, 0, 0, u, (v as i32) << FRAC]);
                let row = band.row(y).try_into().expect("a VRAM row");
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(&prim, row, x0, x1, at, &NO_DITHER, smp);
            }
        }
    }
}
