//! A texture as VRAM holds it: texels at 4, 8, 15 (or 24) bits, an optional CLUT, each a VRAM
//! rectangle — the content of a Sony TIM file, whose bytes [`crate::formats::tim`] reads and
//! writes.

use crate::scene::{RgbaImage, VramImage};

/// Pixel depth of a TIM (flags bits 0-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimDepth {
    /// 4 bits per pixel, 16-entry CLUT; 4 pixels per halfword, lowest nibble leftmost.
    Bpp4,
    /// 8 bits per pixel, 256-entry CLUT; 2 pixels per halfword, low byte leftmost.
    Bpp8,
    /// 15-bit direct colour `R5 G5 B5 STP` (the flags call it 16bpp).
    Bpp15,
    /// 24-bit direct colour, 3 bytes per pixel packed across halfwords.
    Bpp24,
}

impl TimDepth {
    /// The flags value (bits 0-1).
    pub fn bits(self) -> u32 {
        match self {
            TimDepth::Bpp4 => 0,
            TimDepth::Bpp8 => 1,
            TimDepth::Bpp15 => 2,
            TimDepth::Bpp24 => 3,
        }
    }

    /// The depth flags bits 0-1 give (the inverse of [`TimDepth::bits`]).
    pub fn from_bits(b: u32) -> Self {
        match b & 3 {
            0 => TimDepth::Bpp4,
            1 => TimDepth::Bpp8,
            2 => TimDepth::Bpp15,
            _ => TimDepth::Bpp24,
        }
    }

    /// Pixel width of `halfwords` halfwords at this depth.
    pub fn pixel_width(self, halfwords: u16) -> u32 {
        let w = u32::from(halfwords);
        match self {
            TimDepth::Bpp4 => w * 4,
            TimDepth::Bpp8 => w * 2,
            TimDepth::Bpp15 => w,
            TimDepth::Bpp24 => w * 2 / 3,
        }
    }

    /// Bits per pixel as a number (15-bit direct counts as 16, as the PS1 docs do).
    pub fn bpp(self) -> u32 {
        match self {
            TimDepth::Bpp4 => 4,
            TimDepth::Bpp8 => 8,
            TimDepth::Bpp15 => 16,
            TimDepth::Bpp24 => 24,
        }
    }

    /// GPU texpage colour depth field (bits 7-8): 0 = 4bpp, 1 = 8bpp, 2 = 15bpp (24bpp cannot
    /// be sampled as a texture; reported as 15bpp).
    pub fn texpage_depth(self) -> u16 {
        match self {
            TimDepth::Bpp4 => 0,
            TimDepth::Bpp8 => 1,
            TimDepth::Bpp15 | TimDepth::Bpp24 => 2,
        }
    }
}

/// A decoded TIM: the rectangles exactly as they go to VRAM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tim {
    /// Pixel depth.
    pub depth: TimDepth,
    /// The CLUT rectangle (flags bit 3), in VRAM halfwords.
    pub clut: Option<VramImage>,
    /// The pixel rectangle, in VRAM halfwords.
    pub image: VramImage,
}

impl Tim {
    /// The GP0 texpage attribute that samples this image from its own page: page X/64,
    /// Y/256 and the colour depth (psx-spx "Texpage Attribute").
    pub fn texpage(&self) -> u16 {
        (self.image.x / 64) | ((self.image.y / 256) << 4) | (self.depth.texpage_depth() << 7)
    }

    /// The GP0 CLUT attribute of its palette (X/16, Y), 0 without one.
    pub fn clut_attribute(&self) -> u16 {
        self.clut.as_ref().map_or(0, |c| (c.x / 16) | (c.y << 6))
    }

    /// Pixel width of the image.
    pub fn pixel_width(&self) -> u32 {
        self.depth.pixel_width(self.image.width)
    }

    /// The palette index or direct colour of pixel (`px`, `py`) as the halfword sampling
    /// returns it: a CLUT index for 4/8bpp, a 15-bit colour for 15bpp.
    pub fn raw_pixel(&self, px: u32, py: u32) -> u16 {
        let row = &self.image.data[py as usize * self.image.width as usize..];
        match self.depth {
            TimDepth::Bpp4 => (row[px as usize / 4] >> ((px % 4) * 4)) & 0xF,
            TimDepth::Bpp8 => (row[px as usize / 2] >> ((px % 2) * 8)) & 0xFF,
            TimDepth::Bpp15 | TimDepth::Bpp24 => row[px as usize],
        }
    }

    /// Decodes to RGBA using CLUT row `clut_row` (clamped). Texel 0x0000 is transparent
    /// (alpha 0) as on the GPU; 24bpp pixels are opaque.
    pub fn to_rgba(&self, clut_row: u16) -> RgbaImage {
        let width = self.pixel_width();
        let height = u32::from(self.image.height);
        let mut pixels = Vec::with_capacity((width * height) as usize);
        let palette: &[u16] = match &self.clut {
            Some(c) if c.height > 0 => {
                let row = clut_row.min(c.height - 1) as usize * c.width as usize;
                &c.data[row..row + c.width as usize]
            }
            _ => &[],
        };
        for py in 0..height {
            if self.depth == TimDepth::Bpp24 {
                // Two pixels per three halfwords; a trailing partial pixel is dropped.
                let start = py as usize * self.image.width as usize;
                let row = &self.image.data[start..start + self.image.width as usize];
                let bytes: Vec<u8> = row.iter().flat_map(|h| h.to_le_bytes()).collect();
                for px in 0..width as usize {
                    let b = &bytes[px * 3..px * 3 + 3];
                    pixels.push([b[0], b[1], b[2], 255]);
                }
                continue;
            }
            for px in 0..width {
                let raw = self.raw_pixel(px, py);
                let colour = match self.depth {
                    TimDepth::Bpp4 | TimDepth::Bpp8 => {
                        palette.get(raw as usize).copied().unwrap_or(0)
                    }
                    _ => raw,
                };
                pixels.push(rgba15(colour));
            }
        }
        RgbaImage {
            width,
            height,
            pixels,
        }
    }
}

/// A PS1 15-bit colour (`R5 G5 B5 STP`) as RGBA; 0x0000 is the GPU's transparent texel.
pub fn rgba15(c: u16) -> [u8; 4] {
    let ext = |v: u16| ((v & 31) << 3 | (v & 31) >> 2) as u8;
    let a = if c == 0 { 0 } else { 255 };
    [ext(c), ext(c >> 5), ext(c >> 10), a]
}
