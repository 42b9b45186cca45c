//! BLP2: the texture container of World of Warcraft 1.x–2.x (what M2 models name).
//!
//! Layout (format-notes §2.2, verified on the six sample files): `"BLP2"`, `u32 type` (1),
//! `u8 encoding` (1 palette, 2 DXT, 3 raw BGRA), `u8 alphaDepth` (0/1/4/8), `u8 alphaType`
//! (7 = DXT5 for encoding 2), `u8 hasMips`, `u32 width, height`, `u32 mipOffsets[16]`,
//! `u32 mipSizes[16]` (148 bytes), then a 256-entry BGRA palette (1024 bytes). Only mip 0 is
//! decoded. DXT blocks are decoded by [`super::dxt`].
//!
//! Palettized mip 0 = `w·h` palette indices, then the alpha plane packed LSB first: 1 bit per
//! pixel, 4 bits (low nibble first, scaled ×17) or 8 bits. Depth 0 means opaque. The palette's
//! own alpha byte is not used. (Sure for 8-bit, reasonably sure for 1/4-bit from the wiki
//! description; no public palettized sample exists, see SOURCES.md.)
//!
//! A file starting with `"BLP1"`, the older container, is decoded by [`super::blp1`].

use super::dxt::{self, Dxt};
use super::error::{ErrorKind, LoadError, Result};
use super::reader::Reader;
use crate::scene::RgbaImage;
use serde::Serialize;

/// Format name errors carry.
pub const FORMAT: &str = "BLP2";
/// Size of the fixed header.
pub const HEADER_SIZE: usize = 148;
/// Size of the palette that follows the header.
pub const PALETTE_SIZE: usize = 1024;
/// Largest width or height accepted (WoW itself tops out at 2048).
pub const MAX_DIMENSION: u32 = 8192;

/// How mip levels are stored (`encoding` byte at 0x08).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// 1: 8-bit palette indices plus a separate alpha plane.
    Palette,
    /// 2: S3TC blocks (DXT1/3/5 chosen by alpha depth and type).
    Dxt,
    /// 3: raw BGRA, 4 bytes per pixel.
    RawBgra,
}

/// The BCn flavour of a DXT-encoded file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxtKind {
    /// DXT1 / BC1 (alpha depth 0 or 1).
    Dxt1,
    /// DXT3 / BC2 (explicit 4-bit alpha).
    Dxt3,
    /// DXT5 / BC3 (alpha type 7).
    Dxt5,
}

/// The fixed-size BLP2 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlpHeader {
    /// Pixel storage.
    pub encoding: Encoding,
    /// Alpha bits per pixel: 0, 1, 4 or 8.
    pub alpha_depth: u8,
    /// Alpha type byte (DXT: 7 = DXT5).
    pub alpha_type: u8,
    /// Whether mips follow mip 0.
    pub has_mips: bool,
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0.
    pub height: u32,
    /// File offsets of the mips.
    pub mip_offsets: [u32; 16],
    /// Byte sizes of the mips.
    pub mip_sizes: [u32; 16],
}

impl BlpHeader {
    /// The DXT flavour (meaningful for [`Encoding::Dxt`] only).
    pub fn dxt_kind(&self) -> DxtKind {
        match (self.alpha_type, self.alpha_depth) {
            (7, _) => DxtKind::Dxt5,
            (_, 0 | 1) => DxtKind::Dxt1,
            _ => DxtKind::Dxt3,
        }
    }
}

/// Reads and checks the header.
pub fn read_header(r: &Reader) -> Result<BlpHeader> {
    let magic = r.bytes(0, 4, "magic")?;
    if magic != b"BLP2" {
        return Err(r.error(
            0,
            ErrorKind::BadMagic {
                expected: "\"BLP2\"",
            },
        ));
    }
    let ty = r.u32_at(4, "type")?;
    if ty != 1 {
        return Err(r.error(
            4,
            ErrorKind::UnsupportedVersion {
                version: u64::from(ty),
                supported: "type 1 (BLP2 without JPEG)",
            },
        ));
    }
    let encoding = match r.u8_at(8, "encoding")? {
        1 => Encoding::Palette,
        2 => Encoding::Dxt,
        3 => Encoding::RawBgra,
        e => return Err(r.invalid(8, format!("unknown encoding {e} (expected 1, 2 or 3)"))),
    };
    let alpha_depth = r.u8_at(9, "alpha depth")?;
    if !matches!(alpha_depth, 0 | 1 | 4 | 8) {
        return Err(r.invalid(
            9,
            format!("alpha depth {alpha_depth} (expected 0, 1, 4 or 8)"),
        ));
    }
    let alpha_type = r.u8_at(10, "alpha type")?;
    let has_mips = r.u8_at(11, "mip flag")? != 0;
    let width = r.u32_at(12, "width")?;
    let height = r.u32_at(16, "height")?;
    for (off, v, what) in [(12, width, "width"), (16, height, "height")] {
        if v == 0 {
            return Err(r.invalid(off, format!("{what} is 0")));
        }
        r.check_count(off, u64::from(v), u64::from(MAX_DIMENSION), what)?;
    }
    let (mip_offsets, mip_sizes) = mip_table(r, 20)?;
    Ok(BlpHeader {
        encoding,
        alpha_depth,
        alpha_type,
        has_mips,
        width,
        height,
        mip_offsets,
        mip_sizes,
    })
}

/// The 16 mip offsets at `at` and the 16 mip sizes that follow them (BLP1 and BLP2 alike).
pub(crate) fn mip_table(r: &Reader, at: u64) -> Result<([u32; 16], [u32; 16])> {
    let mut offsets = [0u32; 16];
    let mut sizes = [0u32; 16];
    for i in 0..16 {
        offsets[i] = r.u32_at(at + 4 * i as u64, "mip offset")?;
        sizes[i] = r.u32_at(at + 64 + 4 * i as u64, "mip size")?;
    }
    Ok((offsets, sizes))
}

/// Decodes mip 0 of a BLP2 file. Errors carry the byte offset but no file name; callers add it
/// with [`LoadError::in_file`]. A file starting with `"BLP1"` is the older container, decoded by
/// [`super::blp1`].
pub fn decode(data: &[u8]) -> Result<RgbaImage> {
    decode_level(data, false)
}

/// [`decode`] for drawing: a BLP2 texture far larger than its PS1 form decoded from the
/// smallest mip level the file holds that is still at least that size
/// ([`crate::texture::early_halvings`]); any other texture (and every BLP1), or one whose level
/// is not all in the file, from mip 0 as [`decode`] does.
pub fn decode_for_drawing(data: &[u8]) -> Result<RgbaImage> {
    decode_level(data, true)
}

/// Decodes mip 0, or when `reduce` the level [`decode_for_drawing`] names.
fn decode_level(data: &[u8], reduce: bool) -> Result<RgbaImage> {
    if data.starts_with(b"BLP1") {
        return super::blp1::decode(data);
    }
    let r = Reader::new(data, FORMAT);
    let h = read_header(&r)?;
    let needed = |w: usize, ht: usize| {
        let pixels = w * ht;
        (match h.encoding {
            Encoding::Palette => pixels + (pixels * h.alpha_depth as usize).div_ceil(8),
            Encoding::Dxt => dxt_format(h.dxt_kind()).level_bytes(w, ht),
            Encoding::RawBgra => pixels * 4,
        }) as u64
    };
    let level = if reduce && h.has_mips {
        let held = mips((h.width, h.height), &h.mip_offsets, &h.mip_sizes);
        let levels = (held.len() as u32).saturating_sub(1);
        let k = crate::texture::early_halvings(h.width, h.height, levels);
        held.into_iter().nth(k as usize).filter(|m| {
            let bytes = needed(m.width as usize, m.height as usize);
            k > 0 && u64::from(m.offset).saturating_add(bytes) <= r.len()
        })
    } else {
        None
    };
    let (width, height, off) = level
        .map_or((h.width, h.height, u64::from(h.mip_offsets[0])), |m| {
            (m.width, m.height, u64::from(m.offset))
        });
    let (w, ht) = (width as usize, height as usize);
    let pixels = w * ht;
    let mip_at = 20u64;
    let src = r.array(mip_at, off, needed(w, ht), 1, "mip 0")?;
    let out = match h.encoding {
        Encoding::Palette => {
            let pal = r.array(HEADER_SIZE as u64, HEADER_SIZE as u64, 256, 4, "palette")?;
            decode_palette(pal, src, pixels, h.alpha_depth)
        }
        Encoding::Dxt => {
            // `src` holds the level's bytes (read above), so the decoder always has them.
            let mut rgba = dxt::decode(dxt_format(h.dxt_kind()), w, ht, src, false)
                .ok_or_else(|| r.invalid(off, "DXT mip 0 shorter than its blocks"))?;
            if h.dxt_kind() == DxtKind::Dxt1 && h.alpha_depth == 0 {
                for p in &mut rgba {
                    p[3] = 255;
                }
            }
            rgba
        }
        Encoding::RawBgra => src
            .chunks_exact(4)
            .map(|p| [p[2], p[1], p[0], p[3]])
            .collect(),
    };
    Ok(RgbaImage {
        width,
        height,
        pixels: out,
    })
}

/// Reads and decodes a BLP2 file from disk.
pub fn load(path: &std::path::Path) -> Result<RgbaImage> {
    let data = super::read_file(path, FORMAT)?;
    decode(&data).map_err(|e: LoadError| e.in_file(path))
}

fn dxt_format(kind: DxtKind) -> Dxt {
    match kind {
        DxtKind::Dxt1 => Dxt::Dxt1,
        DxtKind::Dxt3 => Dxt::Dxt3,
        DxtKind::Dxt5 => Dxt::Dxt5,
    }
}

/// Palette indices + packed alpha plane → RGBA. `src` holds at least the bytes this needs.
pub(crate) fn decode_palette(pal: &[u8], src: &[u8], pixels: usize, depth: u8) -> Vec<[u8; 4]> {
    let (idx, alpha) = src.split_at(pixels);
    idx.iter()
        .enumerate()
        .map(|(i, &c)| {
            let p = &pal[c as usize * 4..c as usize * 4 + 4];
            let a = match depth {
                1 => ((alpha[i / 8] >> (i % 8)) & 1) * 255,
                4 => ((alpha[i / 2] >> ((i % 2) * 4)) & 0xf) * 17,
                8 => alpha[i],
                _ => 255,
            };
            [p[2], p[1], p[0], a]
        })
        .collect()
}

/// Writes a palettized (encoding 1) BLP2 with one mip: the synthetic fixture the public samples
/// lack. `palette` is RGB, `indices` one byte per pixel, `alpha` 0–255 per pixel quantised to
/// `alpha_depth` bits (0, 1, 4 or 8).
pub fn write_palettized(
    width: u32,
    height: u32,
    palette: &[[u8; 3]],
    indices: &[u8],
    alpha: &[u8],
    alpha_depth: u8,
) -> Vec<u8> {
    let pixels = (width * height) as usize;
    assert_eq!(indices.len(), pixels, "one index per pixel");
    assert_eq!(alpha.len(), pixels, "one alpha per pixel");
    assert!(
        matches!(alpha_depth, 0 | 1 | 4 | 8),
        "alpha depth 0, 1, 4 or 8"
    );
    let mut plane = vec![0u8; (pixels * alpha_depth as usize).div_ceil(8)];
    for (i, &a) in alpha.iter().enumerate() {
        match alpha_depth {
            1 => plane[i / 8] |= u8::from(a >= 128) << (i % 8),
            4 => plane[i / 2] |= (a / 17) << ((i % 2) * 4),
            8 => plane[i] = a,
            _ => {}
        }
    }
    let mip0 = (HEADER_SIZE + PALETTE_SIZE) as u32;
    let mut out = Vec::with_capacity(mip0 as usize + pixels + plane.len());
    out.extend_from_slice(b"BLP2");
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&[1, alpha_depth, 0, 0]);
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    for i in 0..16 {
        out.extend_from_slice(&(if i == 0 { mip0 } else { 0 }).to_le_bytes());
    }
    for i in 0..16 {
        let size = if i == 0 { pixels + plane.len() } else { 0 } as u32;
        out.extend_from_slice(&size.to_le_bytes());
    }
    for i in 0..256 {
        let [r, g, b] = palette.get(i).copied().unwrap_or([0, 0, 0]);
        out.extend_from_slice(&[b, g, r, 255]);
    }
    out.extend_from_slice(indices);
    out.extend_from_slice(&plane);
    out
}

/// One BLP mip level.
#[derive(Clone, Debug, Serialize)]
pub struct Mip {
    /// Level (0 = full size).
    pub level: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// File offset.
    pub offset: u32,
    /// Bytes.
    pub bytes: u32,
}

/// BLP facts.
#[derive(Clone, Debug, Serialize)]
pub struct BlpFacts {
    /// Container version ("BLP2" or "BLP1") and content type.
    pub version: String,
    /// Compression: palette, DXT1/3/5, raw BGRA, JPEG.
    pub compression: &'static str,
    /// Alpha bits per pixel (0, 1, 4, 8; BLP1: as its header says).
    pub alpha_depth: u8,
    /// The alpha type byte (7 = DXT5 for DXT files).
    pub alpha_type: u8,
    /// Mip levels stored (non-empty entries of the table).
    pub mips: Vec<Mip>,
}

/// What `info` reports of the BLP2 (or BLP1) in `data`: compression, alpha and the stored mips.
pub fn facts(data: &[u8]) -> Result<BlpFacts> {
    if data.starts_with(b"BLP1") {
        return super::blp1::facts(data);
    }
    let h = read_header(&Reader::new(data, "BLP2"))?;
    let compression = match h.encoding {
        Encoding::Palette => "palette",
        Encoding::RawBgra => "raw BGRA",
        Encoding::Dxt => match h.dxt_kind() {
            DxtKind::Dxt1 => "DXT1",
            DxtKind::Dxt3 => "DXT3",
            DxtKind::Dxt5 => "DXT5",
        },
    };
    Ok(BlpFacts {
        version: "BLP2, content type 1 (not JPEG)".into(),
        compression,
        alpha_depth: h.alpha_depth,
        alpha_type: h.alpha_type,
        mips: mips((h.width, h.height), &h.mip_offsets, &h.mip_sizes),
    })
}

/// The stored mips of a `width`×`height` image: the leading entries of the offset and size
/// tables that are both non-zero.
pub(crate) fn mips(
    (width, height): (u32, u32),
    offsets: &[u32; 16],
    sizes: &[u32; 16],
) -> Vec<Mip> {
    (0..16u32)
        .take_while(|&i| offsets[i as usize] != 0 && sizes[i as usize] != 0)
        .map(|i| Mip {
            level: i,
            width: (width >> i).max(1),
            height: (height >> i).max(1),
            offset: offsets[i as usize],
            bytes: sizes[i as usize],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker(depth: u8) -> (Vec<u8>, Vec<u8>) {
        let idx: Vec<u8> = (0..20).map(|i| (i % 3) as u8).collect();
        let alpha: Vec<u8> = (0..20).map(|i| (i * 13) as u8).collect();
        (
            write_palettized(
                5,
                4,
                &[[255, 0, 0], [0, 255, 0], [0, 0, 255]],
                &idx,
                &alpha,
                depth,
            ),
            alpha,
        )
    }

    #[test]
    fn palettized_round_trips_every_alpha_depth() {
        for depth in [0u8, 1, 4, 8] {
            let (file, alpha) = checker(depth);
            let img = decode(&file).unwrap();
            assert_eq!((img.width, img.height), (5, 4));
            for (i, p) in img.pixels.iter().enumerate() {
                let rgb = [[255, 0, 0], [0, 255, 0], [0, 0, 255]][i % 3];
                let want = match depth {
                    0 => 255,
                    1 => {
                        if alpha[i] >= 128 {
                            255
                        } else {
                            0
                        }
                    }
                    4 => alpha[i] / 17 * 17,
                    _ => alpha[i],
                };
                assert_eq!(
                    *p,
                    [rgb[0], rgb[1], rgb[2], want],
                    "depth {depth} pixel {i}"
                );
            }
        }
    }

    #[test]
    fn raw_bgra_is_swizzled() {
        let mut file = checker(8).0;
        file[8] = 3;
        file.truncate(HEADER_SIZE + PALETTE_SIZE);
        file.extend_from_slice(&[1, 2, 3, 4].repeat(20));
        let img = decode(&file).unwrap();
        assert!(img.pixels.iter().all(|p| *p == [3, 2, 1, 4]));
    }

    #[test]
    fn bad_headers_are_typed_errors() {
        let (file, _) = checker(1);
        assert!(matches!(
            decode(b"BLP3").unwrap_err().kind,
            ErrorKind::BadMagic { .. }
        ));
        let mut f = file.clone();
        f[8] = 9;
        assert_eq!(decode(&f).unwrap_err().offset, 8);
        let mut f = file.clone();
        f[12..16].copy_from_slice(&100_000u32.to_le_bytes());
        assert!(matches!(
            decode(&f).unwrap_err().kind,
            ErrorKind::CountTooLarge { .. }
        ));
        for len in 0..file.len() {
            assert!(decode(&file[..len]).is_err(), "truncated at {len}");
        }
    }

    /// A DXT1 BLP2 of `side`² with `levels` mip levels, level `i` all of colour `colours[i]`
    /// (RGB565).
    fn dxt1_mips(side: u32, levels: usize, colours: &[u16]) -> Vec<u8> {
        let mut file = vec![0u8; HEADER_SIZE + PALETTE_SIZE];
        file[..8].copy_from_slice(b"BLP2\x01\0\0\0");
        file[8..12].copy_from_slice(&[2, 0, 0, 1]);
        file[12..16].copy_from_slice(&side.to_le_bytes());
        file[16..20].copy_from_slice(&side.to_le_bytes());
        for (i, &c) in colours.iter().enumerate().take(levels) {
            let s = (side >> i).max(1) as usize;
            let bytes = dxt_format(DxtKind::Dxt1).level_bytes(s, s);
            let at = 20 + 4 * i;
            let offset = file.len() as u32;
            file[at..at + 4].copy_from_slice(&offset.to_le_bytes());
            file[at + 64..at + 68].copy_from_slice(&(bytes as u32).to_le_bytes());
            let c = c.to_le_bytes();
            for _ in 0..bytes / 8 {
                file.extend_from_slice(&[c[0], c[1], c[0], c[1], 0, 0, 0, 0]);
            }
        }
        file
    }

    #[test]
    fn a_texture_far_larger_than_its_ps1_form_is_drawn_from_a_mip_level() {
        let colours = [0xF800, 0x07E0, 0x001F, 0xFFFF, 0xFFFF];
        let file = dxt1_mips(1024, 5, &colours);
        let full = decode(&file).unwrap();
        assert_eq!((full.width, full.pixels[0]), (1024, [255, 0, 0, 255]));
        let drawn = decode_for_drawing(&file).unwrap();
        assert_eq!((drawn.width, drawn.height), (256, 256));
        assert!(drawn.pixels.iter().all(|&p| p == [0, 0, 255, 255]));
        // Only two levels in the table: the smallest still at least 256, 512².
        let two = decode_for_drawing(&dxt1_mips(1024, 2, &colours)).unwrap();
        assert_eq!((two.width, two.pixels[0]), (512, [0, 255, 0, 255]));
        // The 256² level cut short: mip 0.
        let cut = decode_for_drawing(&file[..file.len() - 2048 - 8192 - 1]).unwrap();
        assert_eq!(cut.width, 1024);
        // Within the bound (512²): mip 0, as `decode` gives it.
        let small = dxt1_mips(512, 5, &colours);
        assert_eq!(decode_for_drawing(&small).unwrap(), decode(&small).unwrap());
    }
}
