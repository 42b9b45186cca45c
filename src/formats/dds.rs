//! DDS textures: standard `DDS ` files (DXT1/DXT3/DXT5 and uncompressed 24/32-bit) and
//! BioWare's magic-less variant that Neverwinter Nights ships.
//!
//! BioWare DDS (source: format-notes §2.1, verified on `ttd01_cliff01.dds` and
//! `c_aribeth.dds`): `u32 width, u32 height, u32 bpp (3 → DXT1, 4 → DXT5), u32 base level
//! size, f32 alpha mean`, then the DXT data of the whole mip chain. The base level is decoded, or
//! for drawing a texture far larger than its PS1 form, a smaller level ([`decode_for_drawing`]).
//! BioWare stores the rows bottom-up (the first row is texture v = 0, as OpenGL uploads it);
//! [`decode`] flips them so every image leaves here top row first. Verified by comparing
//! `c_aribeth.dds` with `c_aribeth.tga` (see the unit tests in `tests/nwn.rs`).
//!
//! Blocks are decoded by [`super::dxt`]; every size is checked before.

use super::dxt::{self, Dxt};
use super::error::{ErrorKind, LoadError, Result};
use super::reader::Reader;
use crate::scene::RgbaImage;
use crate::texture::early_halvings;
use serde::Serialize;

/// Largest accepted width or height, in pixels.
pub const MAX_DIMENSION: u32 = 8192;

/// A block-compressed pixel format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxtFormat {
    /// DXT1 / BC1: 8 bytes per 4×4 block, optional 1-bit alpha.
    Dxt1,
    /// DXT3 / BC2: 16 bytes per block, explicit 4-bit alpha.
    Dxt3,
    /// DXT5 / BC3: 16 bytes per block, interpolated alpha.
    Dxt5,
}

impl DxtFormat {
    fn dxt(self) -> Dxt {
        match self {
            DxtFormat::Dxt1 => Dxt::Dxt1,
            DxtFormat::Dxt3 => Dxt::Dxt3,
            DxtFormat::Dxt5 => Dxt::Dxt5,
        }
    }

    /// Bytes of one 4×4 block.
    pub fn block_bytes(self) -> u64 {
        match self {
            DxtFormat::Dxt1 => 8,
            DxtFormat::Dxt3 | DxtFormat::Dxt5 => 16,
        }
    }

    /// Bytes of a `w`×`h` level (whole blocks).
    pub fn level_bytes(self, w: u32, h: u32) -> u64 {
        u64::from(w.div_ceil(4)) * u64::from(h.div_ceil(4)) * self.block_bytes()
    }
}

/// Decodes one `w`×`h` DXT level from the start of `data` (top row first, as stored).
/// Fails with `UnexpectedEof` (offset = `data.len()`) when `data` is too short and with
/// `CountTooLarge` when a side exceeds [`MAX_DIMENSION`].
pub fn decode_dxt(format: DxtFormat, w: u32, h: u32, data: &[u8]) -> Result<RgbaImage> {
    decode_level(format, w, h, data, false)
}

/// [`decode_dxt`], the rows in reverse order when `flip`.
fn decode_level(format: DxtFormat, w: u32, h: u32, data: &[u8], flip: bool) -> Result<RgbaImage> {
    check_size("DXT", 0, w, h)?;
    let pixels =
        dxt::decode(format.dxt(), w as usize, h as usize, data, flip).ok_or_else(|| {
            LoadError::new(
                "DXT",
                data.len() as u64,
                ErrorKind::UnexpectedEof {
                    what: "DXT block data",
                    len: format.level_bytes(w, h),
                },
            )
        })?;
    Ok(RgbaImage {
        width: w,
        height: h,
        pixels,
    })
}

fn check_size(format: &'static str, off: u64, w: u32, h: u32) -> Result<()> {
    for (what, v) in [("image width", w), ("image height", h)] {
        if v == 0 || v > MAX_DIMENSION {
            return Err(LoadError::new(
                format,
                off,
                ErrorKind::image_side(what, v, MAX_DIMENSION),
            ));
        }
    }
    Ok(())
}

/// True when `data` starts with the standard `DDS ` magic.
pub fn is_standard(data: &[u8]) -> bool {
    data.starts_with(b"DDS ")
}

/// Decodes a DDS file of either kind (standard when it starts with `DDS `, else BioWare).
/// The result is top row first.
pub fn decode(data: &[u8]) -> Result<RgbaImage> {
    if is_standard(data) {
        decode_standard(data)
    } else {
        decode_bioware(data)
    }
}

/// [`decode`] for drawing: a texture far larger than its PS1 form decoded from the smallest
/// mip level the file holds that is still at least that size ([`early_halvings`]); any other
/// texture, or one whose level is not all in the file, from its base level as [`decode`] does.
pub fn decode_for_drawing(data: &[u8]) -> Result<RgbaImage> {
    if is_standard(data) {
        standard(data, true)
    } else {
        bioware(data, true)
    }
}

/// Where the level [`early_halvings`] picks for a `w`×`h` image with `levels` mip levels
/// starts (the base level at `base`, each level `bytes(w, h)` long), and its size: the base
/// level unless that level is wholly inside a file of `len` bytes.
fn reduced_level(
    (w, h): (u32, u32),
    levels: u32,
    base: u64,
    len: u64,
    bytes: impl Fn(u32, u32) -> u64,
) -> (u64, u32, u32) {
    let k = early_halvings(w, h, levels.saturating_sub(1));
    let side = |n: u32, i: u32| (n >> i).max(1);
    let off = (0..k).fold(base, |o, i| o.saturating_add(bytes(side(w, i), side(h, i))));
    let (lw, lh) = (side(w, k), side(h, k));
    if k > 0 && off.saturating_add(bytes(lw, lh)) <= len {
        (off, lw, lh)
    } else {
        (base, w, h)
    }
}

/// BioWare's header-only variant (20-byte header, DXT1 or DXT5), flipped to top row first.
pub fn decode_bioware(data: &[u8]) -> Result<RgbaImage> {
    bioware(data, false)
}

/// [`decode_bioware`], from the level [`reduced_level`] picks when `reduce`.
fn bioware(data: &[u8], reduce: bool) -> Result<RgbaImage> {
    let r = Reader::new(data, "BioWare DDS");
    let w = r.u32_at(0, "width")?;
    let h = r.u32_at(4, "height")?;
    let bpp = r.u32_at(8, "bytes per pixel")?;
    check_size("BioWare DDS", 0, w, h)?;
    let format = match bpp {
        3 => DxtFormat::Dxt1,
        4 => DxtFormat::Dxt5,
        other => {
            return Err(r.invalid(
                8,
                format!("bytes-per-pixel {other} (expected 3 = DXT1 or 4 = DXT5)"),
            ))
        }
    };
    // The file holds as many levels as fit; the last one need not be 1x1.
    let levels = if reduce { 32 } else { 1 };
    let (off, w, h) = reduced_level((w, h), levels, 20, r.len(), |w, h| format.level_bytes(w, h));
    let body = r.bytes(off, format.level_bytes(w, h), "DXT base level")?;
    decode_level(format, w, h, body, true)
}

/// DDS pixel-format flag: the FourCC field is valid.
const DDPF_FOURCC: u32 = 0x4;
/// DDS pixel-format flag: uncompressed RGB data.
const DDPF_RGB: u32 = 0x40;
/// DDS pixel-format flag: the alpha mask is valid.
const DDPF_ALPHAPIXELS: u32 = 0x1;

/// A standard DirectDraw Surface (`DDS `, 124-byte header; pixel format at 0x4C).
pub fn decode_standard(data: &[u8]) -> Result<RgbaImage> {
    standard(data, false)
}

/// [`decode_standard`], from the level [`reduced_level`] picks when `reduce`.
fn standard(data: &[u8], reduce: bool) -> Result<RgbaImage> {
    let r = Reader::new(data, "DDS");
    if !is_standard(data) {
        return Err(r.error(
            0,
            ErrorKind::BadMagic {
                expected: "\"DDS \"",
            },
        ));
    }
    let size = r.u32_at(4, "header size")?;
    if size != 124 {
        return Err(r.invalid(4, format!("header size {size} (expected 124)")));
    }
    let h = r.u32_at(12, "height")?;
    let w = r.u32_at(16, "width")?;
    check_size("DDS", 12, w, h)?;
    let pf = 0x4C;
    let flags = r.u32_at(pf + 4, "pixel format flags")?;
    let fourcc = r.bytes(pf + 8, 4, "FourCC")?;
    let body_off = 128u64;
    let levels = if reduce {
        r.u32_at(0x1C, "mip count")?.max(1)
    } else {
        1
    };
    let pick =
        |bytes: &dyn Fn(u32, u32) -> u64| reduced_level((w, h), levels, body_off, r.len(), bytes);
    if flags & DDPF_FOURCC != 0 {
        let format = match fourcc {
            b"DXT1" => DxtFormat::Dxt1,
            b"DXT3" => DxtFormat::Dxt3,
            b"DXT5" => DxtFormat::Dxt5,
            other => {
                return Err(r.invalid(
                    pf + 8,
                    format!(
                        "FourCC {:?} is not supported (DXT1, DXT3, DXT5 are)",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        let (off, w, h) = pick(&|w, h| format.level_bytes(w, h));
        let body = r.bytes(off, format.level_bytes(w, h), "DXT base level")?;
        return decode_dxt(format, w, h, body).map_err(|e| LoadError { format: "DDS", ..e });
    }
    if flags & DDPF_RGB == 0 {
        return Err(r.invalid(
            pf + 4,
            format!("pixel format flags 0x{flags:x} not supported"),
        ));
    }
    let bits = r.u32_at(pf + 12, "RGB bit count")?;
    if bits != 24 && bits != 32 {
        return Err(r.invalid(
            pf + 12,
            format!("{bits}-bit RGB not supported (24, 32 are)"),
        ));
    }
    let masks = [
        r.u32_at(pf + 16, "red mask")?,
        r.u32_at(pf + 20, "green mask")?,
        r.u32_at(pf + 24, "blue mask")?,
        if flags & DDPF_ALPHAPIXELS != 0 {
            r.u32_at(pf + 28, "alpha mask")?
        } else {
            0
        },
    ];
    let bpp = u64::from(bits / 8);
    let (off, w, h) = pick(&|w, h| u64::from(w) * u64::from(h) * bpp);
    let body = r.array(12, off, u64::from(w) * u64::from(h), bpp, "pixel data")?;
    let pixels = body
        .chunks_exact(bpp as usize)
        .map(|p| {
            let mut v = 0u32;
            for (i, b) in p.iter().enumerate() {
                v |= u32::from(*b) << (8 * i);
            }
            let mut out = [255u8; 4];
            for (o, m) in out.iter_mut().zip(masks) {
                if m != 0 {
                    let shifted = (v & m) >> m.trailing_zeros();
                    let max = m >> m.trailing_zeros();
                    *o = ((u64::from(shifted) * 255 + u64::from(max) / 2) / u64::from(max)) as u8;
                }
            }
            out
        })
        .collect();
    Ok(RgbaImage {
        width: w,
        height: h,
        pixels,
    })
}

/// DDS facts.
#[derive(Clone, Debug, Serialize)]
pub struct DdsFacts {
    /// "standard" (`DDS ` header) or "BioWare" (NWN's magic-less header).
    pub variant: &'static str,
    /// Pixel format: DXT1, DXT3, DXT5, or RGB/RGBA with the bit count.
    pub pixel_format: String,
    /// Mip levels (standard: the header's count; BioWare: how many whole levels the file
    /// holds).
    pub mip_levels: u32,
    /// BioWare: the alpha-mean field.
    pub alpha_mean: Option<f32>,
}

/// What `info` reports of the standard DDS in `data`.
pub fn facts_standard(data: &[u8]) -> Result<DdsFacts> {
    let r = Reader::new(data, "DDS");
    let mips = r.u32_at(0x1C, "mip count")?.max(1);
    let pf = 0x4C;
    let flags = r.u32_at(pf + 4, "pixel format flags")?;
    let pixel_format = if flags & 0x4 != 0 {
        String::from_utf8_lossy(r.bytes(pf + 8, 4, "FourCC")?).into_owned()
    } else {
        let bits = r.u32_at(pf + 12, "RGB bit count")?;
        let alpha = flags & 0x1 != 0;
        format!("{} {bits}-bit", if alpha { "RGBA" } else { "RGB" })
    };
    Ok(DdsFacts {
        variant: "standard",
        pixel_format,
        mip_levels: mips,
        alpha_mean: None,
    })
}

/// What `info` reports of the BioWare DDS in `data`: how many whole mip levels it holds.
pub fn facts_bioware(data: &[u8]) -> Result<DdsFacts> {
    let r = Reader::new(data, "BioWare DDS");
    let (mut w, mut h) = (r.u32_at(0, "width")?, r.u32_at(4, "height")?);
    let format = if r.u32_at(8, "bytes per pixel")? == 3 {
        DxtFormat::Dxt1
    } else {
        DxtFormat::Dxt5
    };
    let alpha_mean = r.f32_at(16, "alpha mean")?;
    let mut left = r.len().saturating_sub(20);
    let mut levels = 0;
    loop {
        let need = format.level_bytes(w, h);
        if need > left {
            break;
        }
        left -= need;
        levels += 1;
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
    Ok(DdsFacts {
        variant: "BioWare",
        pixel_format: format!("{format:?}").to_uppercase(),
        mip_levels: levels,
        alpha_mean: Some(alpha_mean),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DXT1 block with both endpoint colours pure red (0xF800) decodes to opaque red.
    #[test]
    fn dxt1_solid_block() {
        let block = [0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0];
        let img = decode_dxt(DxtFormat::Dxt1, 4, 4, &block).unwrap();
        assert!(
            img.pixels.iter().all(|p| *p == [255, 0, 0, 255]),
            "{:?}",
            img.pixels[0]
        );
    }

    #[test]
    fn short_data_is_an_error_not_a_panic() {
        let e = decode_dxt(DxtFormat::Dxt5, 8, 8, &[0; 63]).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::UnexpectedEof { .. }), "{e}");
        assert!(decode_bioware(&[0; 19]).is_err());
        let mut hdr = vec![0u8; 20];
        hdr[0..4].copy_from_slice(&100_000u32.to_le_bytes());
        hdr[4..8].copy_from_slice(&4u32.to_le_bytes());
        hdr[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(matches!(
            decode_bioware(&hdr).unwrap_err().kind,
            ErrorKind::CountTooLarge { .. }
        ));
    }

    #[test]
    fn bioware_rows_are_flipped() {
        // 4×8 DXT1: top block red, bottom block blue, stored bottom-up.
        let mut data = Vec::new();
        for v in [4u32, 8, 3, 16, 0] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        data.extend_from_slice(&[0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0]); // red, stored first
        data.extend_from_slice(&[0x1F, 0x00, 0x1F, 0x00, 0, 0, 0, 0]); // blue
        let img = decode_bioware(&data).unwrap();
        assert_eq!(
            img.pixels[0],
            [0, 0, 255, 255],
            "top row comes from the last block"
        );
        assert_eq!(img.pixels[31], [255, 0, 0, 255]);
    }

    #[test]
    fn standard_uncompressed_bgra() {
        let mut d = vec![0u8; 128];
        d[..4].copy_from_slice(b"DDS ");
        d[4..8].copy_from_slice(&124u32.to_le_bytes());
        d[12..16].copy_from_slice(&1u32.to_le_bytes());
        d[16..20].copy_from_slice(&2u32.to_le_bytes());
        let pf = 0x4C;
        d[pf + 4..pf + 8].copy_from_slice(&(DDPF_RGB | DDPF_ALPHAPIXELS).to_le_bytes());
        d[pf + 12..pf + 16].copy_from_slice(&32u32.to_le_bytes());
        for (i, m) in [0x00FF_0000u32, 0xFF00, 0xFF, 0xFF00_0000]
            .iter()
            .enumerate()
        {
            d[pf + 16 + 4 * i..pf + 20 + 4 * i].copy_from_slice(&m.to_le_bytes());
        }
        d.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let img = decode(&d).unwrap();
        assert_eq!(img.pixels, vec![[3, 2, 1, 4], [7, 6, 5, 8]]);
    }

    /// The DXT1 mip chain of a `side`² texture, `levels` levels, level `i` all of colour
    /// `colours[i]` (RGB565).
    fn dxt1_chain(side: u32, levels: u32, colours: &[u16]) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..levels {
            let s = (side >> i).max(1);
            let c = colours[i as usize].to_le_bytes();
            for _ in 0..DxtFormat::Dxt1.level_bytes(s, s) / 8 {
                out.extend_from_slice(&[c[0], c[1], c[0], c[1], 0, 0, 0, 0]);
            }
        }
        out
    }

    /// A standard DXT1 DDS of `side`², its header naming `levels` mip levels, holding `data`.
    fn standard_dxt1(side: u32, levels: u32, data: &[u8]) -> Vec<u8> {
        let mut d = vec![0u8; 128];
        d[..4].copy_from_slice(b"DDS ");
        d[4..8].copy_from_slice(&124u32.to_le_bytes());
        d[12..16].copy_from_slice(&side.to_le_bytes());
        d[16..20].copy_from_slice(&side.to_le_bytes());
        d[0x1C..0x20].copy_from_slice(&levels.to_le_bytes());
        d[0x4C + 4..0x4C + 8].copy_from_slice(&DDPF_FOURCC.to_le_bytes());
        d[0x4C + 8..0x4C + 12].copy_from_slice(b"DXT1");
        d.extend_from_slice(data);
        d
    }

    #[test]
    fn a_texture_far_larger_than_its_ps1_form_is_drawn_from_a_mip_level() {
        // Red, green, blue, then white levels.
        let colours = [0xF800, 0x07E0, 0x001F, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF];
        let chain = dxt1_chain(1024, 7, &colours);
        let file = standard_dxt1(1024, 7, &chain);
        let full = decode(&file).unwrap();
        assert_eq!(
            (full.width, full.height, full.pixels[0]),
            (1024, 1024, [255, 0, 0, 255])
        );
        // 1024 → 256 is two halvings: the blue level, at the PS1 size itself.
        let drawn = decode_for_drawing(&file).unwrap();
        assert_eq!((drawn.width, drawn.height), (256, 256));
        assert!(drawn.pixels.iter().all(|&p| p == [0, 0, 255, 255]));
        // Without the level in the file (the header promising it), the base level.
        let bytes = |s: u32| DxtFormat::Dxt1.level_bytes(s, s) as usize;
        let to_blue = 128 + bytes(1024) + bytes(512) + bytes(256);
        let short = decode_for_drawing(&file[..to_blue - 1]).unwrap();
        assert_eq!((short.width, short.pixels[0]), (1024, [255, 0, 0, 255]));
        assert_eq!(decode_for_drawing(&file[..to_blue]).unwrap().width, 256);
        // A header naming one level: the base level.
        let one = decode_for_drawing(&standard_dxt1(1024, 1, &chain)).unwrap();
        assert_eq!(one.width, 1024);
        // Within the bound (512²), the base level whatever mips there are.
        let small = standard_dxt1(512, 6, &dxt1_chain(512, 6, &colours));
        assert_eq!(decode_for_drawing(&small).unwrap(), decode(&small).unwrap());
        // BioWare's: the levels the file holds, each flipped as the base level is.
        let mut bw = Vec::new();
        for v in [1024u32, 1024, 3, 512 * 512, 0] {
            bw.extend_from_slice(&v.to_le_bytes());
        }
        bw.extend_from_slice(&chain);
        let drawn = decode_for_drawing(&bw).unwrap();
        assert_eq!((drawn.width, drawn.pixels[0]), (256, [0, 0, 255, 255]));
        assert_eq!(decode(&bw).unwrap().width, 1024);
    }
}
