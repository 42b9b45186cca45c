//! BLP1: the older BLP container (Warcraft III's), which a few files of WoW asset trees still
//! use (`NEX_ENVMAP01T.BLP` beside the Iron Horde barrels). [`super::blp::decode`] hands a file
//! starting with `"BLP1"` here.
//!
//! Layout (all `u32` little-endian): `"BLP1"`, `content` (0 JPEG, 1 palette), `alphaBits`
//! (0 = opaque, else the alpha channel is used), `width`, `height`, `extra` (team-colour hint,
//! unused), `hasMips`, `mipOffsets[16]` at 0x1C, `mipSizes[16]` at 0x5C: 156 bytes. Then
//! - JPEG: `u32 headerSize` at 0x9C and that many bytes of JPEG header (SOI, tables, frame),
//!   shared by every mip; mip N's JPEG stream is that header followed by the mip's own bytes
//!   (the scan). The frame has 4 components stored without colour transform, in the order
//!   B, G, R, A: decoded raw (no YCbCr or CMYK conversion) and swizzled to RGBA.
//! - palette: 256 BGRA entries at 0x9C, then the mip's `w·h` indices and its alpha plane
//!   packed as BLP2's ([`super::blp`]).
//!
//! Only mip 0 is decoded. The JPEG decoder is `zune-jpeg`, the one `image` uses, called
//! directly because `image` converts 4-component JPEG as CMYK and cannot hand out the raw
//! channels.

use super::blp::{decode_palette, mip_table, mips, BlpFacts, MAX_DIMENSION, PALETTE_SIZE};
use super::error::{ErrorKind, LoadError, Result};
use super::reader::Reader;
use crate::scene::RgbaImage;
use zune_jpeg::zune_core::bytestream::ZCursor;
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;

/// Format name errors carry.
pub const FORMAT: &str = "BLP1";
/// Size of the fixed header; the JPEG header size or the palette follows it.
pub const HEADER_SIZE: u64 = 0x9C;

/// How a BLP1 stores its pixels (the `content` word at 0x04).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// 0: JPEG scans after a shared JPEG header.
    Jpeg,
    /// 1: 8-bit palette indices and an alpha plane.
    Palette,
}

/// The fixed-size BLP1 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blp1Header {
    /// Pixel storage.
    pub content: Content,
    /// Alpha bits (0 = opaque).
    pub alpha_bits: u32,
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0.
    pub height: u32,
    /// File offsets of the mips.
    pub mip_offsets: [u32; 16],
    /// Byte sizes of the mips.
    pub mip_sizes: [u32; 16],
}

/// Reads and checks the header.
pub fn read_header(r: &Reader) -> Result<Blp1Header> {
    if r.bytes(0, 4, "magic")? != b"BLP1" {
        return Err(r.error(
            0,
            ErrorKind::BadMagic {
                expected: "\"BLP1\"",
            },
        ));
    }
    let content = match r.u32_at(4, "content type")? {
        0 => Content::Jpeg,
        1 => Content::Palette,
        c => {
            return Err(r.invalid(
                4,
                format!("unknown content type {c} (expected 0 JPEG or 1 palette)"),
            ))
        }
    };
    let alpha_bits = r.u32_at(8, "alpha bits")?;
    let width = r.u32_at(12, "width")?;
    let height = r.u32_at(16, "height")?;
    for (off, v, what) in [(12, width, "width"), (16, height, "height")] {
        if v == 0 || v > MAX_DIMENSION {
            return Err(r.error(off, ErrorKind::image_side(what, v, MAX_DIMENSION)));
        }
    }
    let (mip_offsets, mip_sizes) = mip_table(r, 0x1C)?;
    Ok(Blp1Header {
        content,
        alpha_bits,
        width,
        height,
        mip_offsets,
        mip_sizes,
    })
}

/// Decodes mip 0 of a BLP1 file. Errors carry the byte offset but no file name; callers add it
/// with [`LoadError::in_file`].
pub fn decode(data: &[u8]) -> Result<RgbaImage> {
    let r = Reader::new(data, FORMAT);
    let h = read_header(&r)?;
    let pixels = h.width as usize * h.height as usize;
    let (off, size) = (u64::from(h.mip_offsets[0]), u64::from(h.mip_sizes[0]));
    let pixels_out = match h.content {
        Content::Jpeg => {
            let header_len = r.u32_at(HEADER_SIZE, "JPEG header size")?;
            let header = r.array(
                HEADER_SIZE,
                HEADER_SIZE + 4,
                header_len.into(),
                1,
                "JPEG header",
            )?;
            let scan = r.array(0x1C, off, size, 1, "mip 0")?;
            decode_jpeg(&h, header, scan, off)?
        }
        Content::Palette => {
            let pal = r.array(HEADER_SIZE, HEADER_SIZE, PALETTE_SIZE as u64, 1, "palette")?;
            // BLP1 palette files carry an 8-bit alpha plane when alpha is used.
            let depth = if h.alpha_bits == 0 { 0 } else { 8 };
            let needed = (pixels + pixels * depth as usize / 8) as u64;
            let src = r.array(0x1C, off, needed, 1, "mip 0")?;
            decode_palette(pal, src, pixels, depth)
        }
    };
    Ok(RgbaImage {
        width: h.width,
        height: h.height,
        pixels: pixels_out,
    })
}

/// What `info` reports of the BLP1 in `data`.
pub fn facts(data: &[u8]) -> Result<BlpFacts> {
    let h = read_header(&Reader::new(data, FORMAT))?;
    let (version, compression) = match h.content {
        Content::Jpeg => ("BLP1, content type 0 (JPEG)", "JPEG"),
        Content::Palette => ("BLP1, content type 1 (palette)", "palette"),
    };
    Ok(BlpFacts {
        version: version.into(),
        compression,
        alpha_depth: h.alpha_bits.min(255) as u8,
        alpha_type: 0,
        mips: mips((h.width, h.height), &h.mip_offsets, &h.mip_sizes),
    })
}

/// Mip 0's JPEG stream (the shared `header`, then the mip's `scan` found at `scan_at`) decoded
/// raw and swizzled from BGRA; the frame must be the header's size with 4 components.
fn decode_jpeg(h: &Blp1Header, header: &[u8], scan: &[u8], scan_at: u64) -> Result<Vec<[u8; 4]>> {
    let stream = [header, scan].concat();
    // The frame may not be larger than the header says, so nothing larger is allocated.
    let options = DecoderOptions::default()
        .set_max_width(h.width as usize)
        .set_max_height(h.height as usize)
        .jpeg_set_out_colorspace(ColorSpace::CMYK);
    let mut dec = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(&stream), options);
    let undecodable = |e: &dyn std::fmt::Display| {
        LoadError::new(
            FORMAT,
            scan_at,
            ErrorKind::Undecodable(format!("mip 0 JPEG: {e}")),
        )
    };
    dec.decode_headers().map_err(|e| undecodable(&e))?;
    let info = dec.info().ok_or_else(|| undecodable(&"no frame header"))?;
    let frame = (u32::from(info.width), u32::from(info.height));
    if frame != (h.width, h.height) || info.components != 4 {
        return Err(LoadError::invalid(
            FORMAT,
            HEADER_SIZE + 4,
            format!(
                "JPEG frame is {}x{} with {} components; the header says {}x{} with 4 (BGRA)",
                frame.0, frame.1, info.components, h.width, h.height
            ),
        ));
    }
    let raw = dec.decode().map_err(|e| undecodable(&e))?;
    let opaque = h.alpha_bits == 0;
    Ok(raw
        .chunks_exact(4)
        .map(|p| [p[2], p[1], p[0], if opaque { 255 } else { p[3] }])
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BLP1 header of `content`, `w`×`h`, mip 0 at `off` of `size` bytes.
    fn header(content: u32, alpha: u32, (w, h): (u32, u32), (off, size): (u32, u32)) -> Vec<u8> {
        let mut v = b"BLP1".to_vec();
        for x in [content, alpha, w, h, 4, 1] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        for i in 0..32 {
            let x = match i {
                0 => off,
                16 => size,
                _ => 0,
            };
            v.extend_from_slice(&x.to_le_bytes());
        }
        assert_eq!(v.len() as u64, HEADER_SIZE);
        v
    }

    #[test]
    fn palette_with_alpha_plane() {
        let mut f = header(1, 8, (2, 1), (0x9C + 1024, 4));
        let mut pal = vec![0u8; 1024];
        pal[4..8].copy_from_slice(&[10, 20, 30, 0]);
        f.extend_from_slice(&pal);
        f.extend_from_slice(&[1, 0, 200, 100]);
        let img = decode(&f).unwrap();
        assert_eq!(img.pixels, [[30, 20, 10, 200], [0, 0, 0, 100]]);
    }

    #[test]
    fn bad_input_is_a_typed_error_at_its_offset() {
        // A JPEG header size larger than the file.
        let mut f = header(0, 8, (4, 4), (0x200, 16));
        f.extend_from_slice(&1_000_000u32.to_le_bytes());
        let e = decode(&f).unwrap_err();
        assert_eq!(e.offset, HEADER_SIZE);
        assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");
        // A mip past the end (truncated).
        let mut f = header(0, 8, (4, 4), (0xA0, 16));
        f.extend_from_slice(&0u32.to_le_bytes());
        f.extend_from_slice(&[0; 8]);
        let e = decode(&f).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");
        // Huge dimensions.
        let f = header(0, 8, (100_000, 4), (0xA0, 0));
        let e = decode(&f).unwrap_err();
        assert_eq!(e.offset, 12);
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
        // Garbage where the JPEG should be.
        let mut f = header(0, 8, (4, 4), (0xA4, 4));
        f.extend_from_slice(&4u32.to_le_bytes());
        f.extend_from_slice(&[0xFF, 0xD8, 0xFF, 0xC0, 1, 2, 3, 4]);
        let e = decode(&f).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Undecodable(_)), "{e}");
        // Unknown content type, and every truncation.
        let mut f = header(0, 8, (4, 4), (0xA0, 0));
        f[4] = 7;
        assert_eq!(decode(&f).unwrap_err().offset, 4);
        for len in 0..f.len() {
            assert!(decode(&f[..len]).is_err(), "truncated at {len}");
        }
    }
}
