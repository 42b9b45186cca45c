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
//!
//! The [`Tim`] itself (depth, CLUT and image rectangles, decoding to RGBA) is the texture
//! layer's ([`crate::texture::tim`]): it is how the renderer's textures sit in VRAM too. This
//! module reads and writes its bytes.

use super::reader::Reader;
use super::{ErrorKind, LoadError, Result};
use crate::scene::VramImage;
pub use crate::texture::tim::{rgba15, Tim, TimDepth};
use serde::Serialize;

const FORMAT: &str = "TIM";

/// VRAM is 1024x512 halfwords; no block may be larger.
pub const VRAM_WIDTH: u16 = 1024;
/// VRAM height in lines.
pub const VRAM_HEIGHT: u16 = 512;

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
}

/// Loads a TIM file, naming the file in errors.
pub fn load(path: &std::path::Path) -> Result<Tim> {
    let data = super::read_file(path, FORMAT)?;
    Tim::parse(&data).map_err(|e: LoadError| e.in_file(path))
}

/// A VRAM rectangle in halfwords and lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VramRect {
    /// Left, in halfwords.
    pub x: u16,
    /// Top line.
    pub y: u16,
    /// Width in halfwords.
    pub w: u16,
    /// Height in lines.
    pub h: u16,
}

/// A TIM block's header against the data it holds.
#[derive(Clone, Debug, Serialize)]
pub struct TimBlock {
    /// "CLUT" or "image".
    pub what: &'static str,
    /// File offset of the block.
    pub offset: u64,
    /// Where it goes in VRAM.
    pub vram: VramRect,
    /// The block's length field.
    pub length_field: u32,
    /// The length its width × height gives (what psxrender reads).
    pub length: u64,
}

/// TIM facts.
#[derive(Clone, Debug, Serialize)]
pub struct TimFacts {
    /// Bits per pixel (4, 8, 16 = 15-bit direct, 24).
    pub bpp: u32,
    /// The flags word as stored (bits above 3 are ignored).
    pub flags: u32,
    /// Texture page of the image: (X / 64, Y / 256).
    pub texture_page: [u16; 2],
    /// CLUTs in the CLUT block (rows × palettes per row).
    pub cluts: u32,
    /// Colours per CLUT (16 or 256; 0 without a CLUT).
    pub clut_colours: u32,
    /// The blocks.
    pub blocks: Vec<TimBlock>,
}

/// What `info` reports of the TIM in `data`: depth, page, CLUTs, and each block's header
/// against the data it holds.
pub fn facts(data: &[u8]) -> Result<TimFacts> {
    let tim = Tim::parse(data)?;
    let r = Reader::new(data, FORMAT);
    let flags = r.u32_at(4, "TIM flags")?;
    let mut blocks = Vec::new();
    let mut off = 8u64;
    for (what, img) in tim
        .clut
        .iter()
        .map(|c| ("CLUT", c))
        .chain(std::iter::once(("image", &tim.image)))
    {
        let length = 12 + u64::from(img.width) * u64::from(img.height) * 2;
        blocks.push(TimBlock {
            what,
            offset: off,
            vram: VramRect {
                x: img.x,
                y: img.y,
                w: img.width,
                h: img.height,
            },
            length_field: r.u32_at(off, "block length")?,
            length,
        });
        off += length;
    }
    let clut_colours = match tim.depth {
        TimDepth::Bpp4 => 16,
        TimDepth::Bpp8 => 256,
        _ => 0,
    };
    let cluts = match (&tim.clut, clut_colours) {
        (Some(c), n) if n > 0 => u32::from(c.width) / n * u32::from(c.height),
        _ => 0,
    };
    Ok(TimFacts {
        bpp: tim.depth.bpp(),
        flags,
        texture_page: [tim.image.x / 64, tim.image.y / 256],
        cluts,
        clut_colours: if tim.clut.is_some() { clut_colours } else { 0 },
        blocks,
    })
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
