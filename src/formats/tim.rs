//! Sony TIM images (PS1 devkit format): a VRAM rectangle of pixels plus an optional CLUT
//! rectangle, each uploaded to VRAM at its own coordinates.
//!
//! Layout (psx-spx "CDROM File Video Texture Image TIM"): `u32 0x10`, `u32 flags` (bits 0-1 =
//! depth 4/8/16/24 bpp, bit 3 = CLUT present), then the CLUT block if present and the image
//! block, each `{u32 len, u16 x, u16 y, u16 w (halfwords), u16 h, w*h halfwords}`.
//!
//! What we do not trust (verified on the samples, see `shared/samples/SOURCES.md`): the block
//! `len` field (texture.tim has 268 for a 16396-byte block) — extents are computed from `w*h`;
//! flag bits above bit 3 (tiles_256.tim has junk there) — masked off.

use super::reader::Reader;
use super::{ErrorKind, LoadError, Result};
use crate::scene::{RgbaImage, VramImage};

const FORMAT: &str = "TIM";

/// VRAM is 1024x512 halfwords; no block may be larger.
pub const VRAM_WIDTH: u16 = 1024;
/// VRAM height in lines.
pub const VRAM_HEIGHT: u16 = 512;

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

    fn from_bits(b: u32) -> Self {
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

/// Reads one rectangle block at `off`; returns it and the offset after its data (computed from
/// `w*h`, never from the untrusted length field).
fn read_block(r: &Reader, off: u64, what: &'static str) -> Result<(VramImage, u64)> {
    let x = r.u16_at(off + 4, "block x")?;
    let y = r.u16_at(off + 6, "block y")?;
    let w = r.u16_at(off + 8, "block width")?;
    let h = r.u16_at(off + 10, "block height")?;
    if u32::from(x) + u32::from(w) > u32::from(VRAM_WIDTH)
        || u32::from(y) + u32::from(h) > u32::from(VRAM_HEIGHT)
    {
        return Err(r.invalid(
            off + 4,
            format!("{what} rectangle {x},{y} {w}x{h} lies outside the 1024x512 VRAM"),
        ));
    }
    let count = u64::from(w) * u64::from(h);
    let bytes = r.array(off + 8, off + 12, count, 2, what)?;
    let data = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok((
        VramImage {
            x,
            y,
            width: w,
            height: h,
            data,
        },
        off + 12 + count * 2,
    ))
}

impl Tim {
    /// Parses a TIM from the start of `data`; returns it and the number of bytes it spans.
    pub fn parse_with_len(data: &[u8]) -> Result<(Tim, usize)> {
        let r = Reader::new(data, FORMAT);
        let id = r.u32_at(0, "TIM id")?;
        if id & 0xFFFF != 0x10 {
            return Err(r.error(
                0,
                ErrorKind::BadMagic {
                    expected: "TIM id 0x10",
                },
            ));
        }
        let flags = r.u32_at(4, "TIM flags")?;
        let depth = TimDepth::from_bits(flags);
        let mut off = 8;
        let clut = if flags & 8 != 0 {
            let (c, next) = read_block(&r, off, "TIM CLUT block")?;
            off = next;
            Some(c)
        } else {
            None
        };
        let (image, end) = read_block(&r, off, "TIM image block")?;
        Ok((Tim { depth, clut, image }, end as usize))
    }

    /// Parses a TIM from `data`.
    pub fn parse(data: &[u8]) -> Result<Tim> {
        Self::parse_with_len(data).map(|(t, _)| t)
    }

    /// Writes this TIM with correct block lengths.
    pub fn write(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&0x10u32.to_le_bytes());
        let flags = self.depth.bits() | if self.clut.is_some() { 8 } else { 0 };
        out.extend_from_slice(&flags.to_le_bytes());
        for block in self.clut.iter().chain(std::iter::once(&self.image)) {
            let len = 12 + block.data.len() as u32 * 2;
            out.extend_from_slice(&len.to_le_bytes());
            for v in [block.x, block.y, block.width, block.height] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            for v in &block.data {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

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

/// Loads a TIM file, naming the file in errors.
pub fn load(path: &std::path::Path) -> Result<Tim> {
    let data = super::read_file(path, FORMAT)?;
    Tim::parse(&data).map_err(|e: LoadError| e.in_file(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tim(depth: TimDepth, w: u16, h: u16, clut: bool) -> Tim {
        Tim {
            depth,
            clut: clut.then(|| VramImage {
                x: 16,
                y: 480,
                width: 16,
                height: 1,
                data: (0..16).map(|i| i * 0x421).collect(),
            }),
            image: VramImage {
                x: 640,
                y: 0,
                width: w,
                height: h,
                data: (0..u32::from(w) * u32::from(h))
                    .map(|i| (i * 0x1357) as u16)
                    .collect(),
            },
        }
    }

    #[test]
    fn every_depth_round_trips() {
        for (d, clut) in [
            (TimDepth::Bpp4, true),
            (TimDepth::Bpp8, true),
            (TimDepth::Bpp15, false),
            (TimDepth::Bpp24, false),
        ] {
            let t = tim(d, 6, 3, clut);
            let bytes = t.write();
            let (back, len) = Tim::parse_with_len(&bytes).unwrap();
            assert_eq!(back, t, "{d:?}");
            assert_eq!(len, bytes.len());
            let img = back.to_rgba(0);
            assert_eq!(img.pixels.len() as u32, img.width * img.height);
        }
    }

    #[test]
    fn pixel_order_is_low_bits_left() {
        let mut t = tim(TimDepth::Bpp4, 1, 1, true);
        t.image.data = vec![0x4321];
        assert_eq!(
            (0..4).map(|x| t.raw_pixel(x, 0)).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        t.depth = TimDepth::Bpp8;
        assert_eq!(t.raw_pixel(0, 0), 0x21);
        assert_eq!(t.raw_pixel(1, 0), 0x43);
    }

    #[test]
    fn colour_expansion() {
        assert_eq!(rgba15(0), [0, 0, 0, 0]);
        assert_eq!(rgba15(0x8000), [0, 0, 0, 255]);
        assert_eq!(rgba15(0x7FFF), [255, 255, 255, 255]);
        assert_eq!(rgba15(0x001F), [255, 0, 0, 255]);
    }

    #[test]
    fn rectangles_outside_vram_are_refused() {
        let mut t = tim(TimDepth::Bpp15, 2, 2, false);
        t.image.x = 1023;
        let e = Tim::parse(&t.write()).unwrap_err();
        assert_eq!(e.offset, 12);
    }
}
