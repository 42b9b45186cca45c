//! Images through the `image` crate (PNG; JPEG inside glTF), capped before decoding. Which
//! decoder any image file goes to is [`crate::detect::decode_image`]'s choice, by content.

use super::error::{ErrorKind, LoadError, Result};
use crate::scene::RgbaImage;
use serde::Serialize;

/// Largest side, in pixels, of an image the `image` crate decodes (PNG; JPEG inside glTF). The
/// other decoders have their own caps of the same size.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// A PNG through the `image` crate, refusing sides above [`MAX_IMAGE_SIDE`] (with the IHDR
/// offset) before decoding.
pub fn decode_png(data: &[u8]) -> Result<RgbaImage> {
    let (w, h) = png_size(data)?;
    for (what, v) in [("PNG width", w), ("PNG height", h)] {
        if v == 0 || v > MAX_IMAGE_SIDE {
            return Err(LoadError::new(
                "PNG",
                16,
                ErrorKind::image_side(what, v, MAX_IMAGE_SIDE),
            ));
        }
    }
    png_data_fits(data, w, h).map_err(|e| LoadError::invalid("PNG", 0, e))?;
    let img = decode_limited(data, image::ImageFormat::Png)
        .map_err(|e| LoadError::invalid("PNG", 0, e))?;
    Ok(to_rgba(img))
}

/// Most bytes the `image` crate may allocate to decode one image: a 16-bit RGBA picture of
/// [`MAX_IMAGE_SIDE`]² (its default cap, 512 MiB, is just below that and refuses such images
/// with a bare "Memory limit exceeded").
pub const MAX_DECODE_BYTES: u64 =
    (MAX_IMAGE_SIDE as u64) * (MAX_IMAGE_SIDE as u64) * 8 + (16 << 20);

/// Width and height of PNG or JPEG bytes, read from the header alone; sides of 0 or above
/// [`MAX_IMAGE_SIDE`] are refused, naming the cap.
pub fn header_size(
    bytes: &[u8],
    format: image::ImageFormat,
) -> std::result::Result<(u32, u32), String> {
    let reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let (w, h) = reader.into_dimensions().map_err(|e| e.to_string())?;
    if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
        return Err(format!(
            "image size {w}x{h}: each side must be 1 to {MAX_IMAGE_SIDE} pixels"
        ));
    }
    if format == image::ImageFormat::Png {
        png_data_fits(bytes, w, h)?;
    }
    Ok((w, h))
}

/// Most bytes zlib's deflate can expand one compressed byte to (its documented limit is
/// 1032:1).
const DEFLATE_MAX_RATIO: u64 = 1032;

/// Refuses a PNG whose compressed pixel data (its IDAT chunks) is too short to hold its
/// header's size at deflate's best ratio, before the decoder allocates the whole image for it: a
/// few hundred bytes claiming 8192² are refused at once.
fn png_data_fits(bytes: &[u8], w: u32, h: u32) -> std::result::Result<(), String> {
    let (depth, colour) = (bytes.get(24).copied(), bytes.get(25).copied());
    let channels: u64 = match colour {
        Some(0 | 3) => 1,
        Some(4) => 2,
        Some(2) => 3,
        _ => 4,
    };
    let bits = u64::from(depth.unwrap_or(8)) * channels;
    let raw = u64::from(h) * (1 + (u64::from(w) * bits).div_ceil(8));
    let mut idat = 0u64;
    let mut at = 8usize;
    while let Some(head) = bytes.get(at..at + 8) {
        let len = u64::from(u32::from_be_bytes([head[0], head[1], head[2], head[3]]));
        if &head[4..8] == b"IDAT" {
            idat += len;
        }
        at = at.saturating_add(12).saturating_add(len as usize);
    }
    if idat.saturating_mul(DEFLATE_MAX_RATIO) + 1024 < raw {
        return Err(format!(
            "{w}x{h} PNG holds {idat} bytes of pixel data, too few for its size (at least {} \
             needed): truncated or damaged",
            raw / DEFLATE_MAX_RATIO
        ));
    }
    Ok(())
}

/// PNG or JPEG bytes decoded by the `image` crate, which refuses sides above [`MAX_IMAGE_SIDE`]
/// and any decode that would allocate more than [`MAX_DECODE_BYTES`], before allocating.
pub fn decode_limited(
    bytes: &[u8],
    format: image::ImageFormat,
) -> std::result::Result<image::DynamicImage, String> {
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    reader.decode().map_err(|e| e.to_string())
}

/// A decoded image as the scene's RGBA, top row first.
pub fn to_rgba(img: image::DynamicImage) -> RgbaImage {
    let rgba = img.into_rgba8();
    let (width, height) = rgba.dimensions();
    RgbaImage {
        width,
        height,
        pixels: rgba.pixels().map(|p| p.0).collect(),
    }
}

/// Width and height from a PNG's IHDR chunk (big-endian, at bytes 16 and 20).
pub fn png_size(data: &[u8]) -> Result<(u32, u32)> {
    let be = |off: usize| -> Result<u32> {
        data.get(off..off + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| {
                LoadError::new(
                    "PNG",
                    off as u64,
                    ErrorKind::UnexpectedEof {
                        what: "IHDR size",
                        len: 4,
                    },
                )
            })
    };
    if data.get(12..16) != Some(b"IHDR") {
        return Err(LoadError::invalid("PNG", 12, "first chunk is not IHDR"));
    }
    Ok((be(16)?, be(20)?))
}

/// PNG facts.
#[derive(Clone, Debug, Serialize)]
pub struct PngFacts {
    /// Bits per channel.
    pub bit_depth: u8,
    /// Colour type (grey, RGB, palette, grey+alpha, RGBA).
    pub colour_type: &'static str,
}

/// What `info` reports of the PNG header in `d`.
pub fn png_facts(d: &[u8]) -> PngFacts {
    PngFacts {
        bit_depth: d.get(24).copied().unwrap_or(0),
        colour_type: match d.get(25) {
            Some(0) => "grey",
            Some(2) => "RGB",
            Some(3) => "palette",
            Some(4) => "grey + alpha",
            Some(6) => "RGBA",
            _ => "unknown",
        },
    }
}
