//! Rectangles (sprites): axis-aligned, never dithered, texture coordinates stepping by one
//! texel per pixel (backwards under the E1 flip bits).
// Verified: hwtests phases 5, 13; gpu-images/rectangles and texture-flip.

use super::pixel::{modulate, PixelMode};
use super::texture::Texture;
use super::{Band, Clip};
use crate::VramImage;

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

    /// Draws the rows of the rectangle inside `band`.
    pub fn draw(&self, band: &mut Band, tex: &VramImage) {
        let (top, bottom) = self.rows();
        let (top, bottom) = (top.max(band.y0), bottom.min(band.y1));
        let (left, right) = self.cols();
        if left >= right {
            return;
        }
        let semi = self.mode.blend.is_some();
        let (r, g, b) = self.rgb;
        let flat = super::pixel::rgb_to_555(r, g, b, 0);
        let sampler = self.texture.as_ref().map(|(t, _, _)| t.any_sampler(tex));
        for y in top..bottom {
            let row = band.row(y);
            let dy = y - self.y;
            match (&self.texture, &sampler) {
                (Some((_, u0, v0)), Some(smp)) => {
                    let v = if self.flip_y {
                        v0.wrapping_sub(dy as u8)
                    } else {
                        v0.wrapping_add(dy as u8)
                    };
                    for x in left..right {
                        let dx = (x - self.x) as u8;
                        // X-flip samples U0+1, U0, U0−1, …: the hardware's flipped U counter
                        // starts one texel to the right. Verified: gpu-images/texture-flip.
                        let u = if self.flip_x {
                            u0.wrapping_add(1).wrapping_sub(dx)
                        } else {
                            u0.wrapping_add(dx)
                        };
                        let texel = smp.texel(u, v);
                        if texel == 0 {
                            continue;
                        }
                        let c = if self.raw {
                            texel
                        } else {
                            modulate(texel, r, g, b, 0)
                        };
                        self.mode.put(&mut row[x as usize], c, texel & 0x8000 != 0);
                    }
                }
                _ => {
                    for px in &mut row[left as usize..right as usize] {
                        self.mode.put(px, flat, semi);
                    }
                }
            }
        }
    }
}
