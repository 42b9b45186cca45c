//! Images through the `image` crate (PNG; JPEG inside glTF), capped before decoding, and the
//! allowance all decoded textures of one model share. Which decoder any image file goes to is
//! [`crate::detect::decode_image`]'s choice, by content.

use std::cell::Cell;
use std::path::Path;

use super::error::{ErrorKind, LoadError, Result};
use crate::scene::{RgbaImage, TextureImage};
use crate::texture::{source_id, SourceFacts, TextureCache};
use serde::Serialize;

/// Largest side, in pixels, of an image the `image` crate decodes (PNG; JPEG inside glTF). The
/// other decoders have their own caps of the same size.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// Most bytes the decoded textures of one model may hold together (RGBA, 4 bytes a pixel): four
/// of the largest size, [`MAX_IMAGE_SIDE`]², or sixteen of 4096². Decoded images need an
/// allowance of their own because a compressed file is no bound on its decoded size: a
/// run-length TGA or a DXT1 BLP of one colour is a hundredth of it or less, and a PNG a
/// thousandth.
pub const MAX_DECODED_IMAGE_BYTES: u64 = 1 << 30;

/// The decoded image bytes one model's textures hold against a limit. A loader charges each
/// texture as it decodes it; the first that would take the total past the limit is refused with
/// its file named, and is not counted, since the loader does not keep it.
#[derive(Debug)]
pub struct ImageAllowance {
    limit: u64,
    used: Cell<u64>,
}

impl Default for ImageAllowance {
    /// An allowance of [`MAX_DECODED_IMAGE_BYTES`].
    fn default() -> Self {
        ImageAllowance::new(MAX_DECODED_IMAGE_BYTES)
    }
}

/// A texture file's bytes `data` as a texture image, with its facts when there is a `cache`.
///
/// Without a cache the file is decoded now by `decode`, as always. With one, the file is named
/// by its [`source_id`] under `decoder` (the name of how this loader turns such bytes into
/// pixels): if the cache holds that source's facts, the file was decoded before and is left
/// undecoded until its pixels are asked for (never, when every encoding the renderer wants is
/// cached too); if not, it is decoded now and its facts stored. A file that does not decode is
/// an error either way, and stores nothing.
pub fn cached_or_decoded<E: 'static>(
    cache: Option<&TextureCache>,
    decoder: &'static str,
    data: Vec<u8>,
    decode: fn(&[u8]) -> std::result::Result<RgbaImage, E>,
) -> std::result::Result<(TextureImage, Option<SourceFacts>), E> {
    let Some(cache) = cache else {
        return Ok((TextureImage::from(decode(&data)?), None));
    };
    let id = source_id(decoder, &data);
    if let Some(facts) = cache.facts(id) {
        // The bytes decoded once; should they ever not, the image stands in as magenta.
        let lazy = move || {
            decode(&data).unwrap_or(RgbaImage {
                width: 0,
                height: 0,
                pixels: Vec::new(),
            })
        };
        let image = TextureImage::lazy(id, [facts.width, facts.height], lazy);
        return Ok((image, Some(facts)));
    }
    let image = decode(&data)?;
    let facts = SourceFacts::of(&image);
    cache.put_facts(id, facts);
    Ok((
        TextureImage::decoded(std::sync::Arc::new(image), Some(id)),
        Some(facts),
    ))
}

impl ImageAllowance {
    /// An allowance of `limit` bytes, nothing used.
    pub fn new(limit: u64) -> Self {
        ImageAllowance {
            limit,
            used: Cell::new(0),
        }
    }

    /// Charges a decoded `width`×`height` RGBA image read from `file` (a `format` file); fails
    /// with `CountTooLarge`, naming `file`, when the model's textures would then hold more
    /// than the limit.
    pub fn charge(&self, format: &'static str, file: &Path, width: u32, height: u32) -> Result<()> {
        let bytes = u64::from(width)
            .saturating_mul(u64::from(height))
            .saturating_mul(4);
        let total = self.used.get().saturating_add(bytes);
        if total > self.limit {
            return Err(LoadError::new(
                format,
                0,
                ErrorKind::CountTooLarge {
                    what: "decoded image bytes (all textures of the model)",
                    count: total,
                    max: self.limit,
                },
            )
            .in_file(file));
        }
        self.used.set(total);
        Ok(())
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used.get()
    }

    /// The limit in force.
    pub fn limit(&self) -> u64 {
        self.limit
    }
}

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
    let undecodable = |e| LoadError::new("PNG", 0, ErrorKind::Undecodable(e));
    png_data_fits(data, w, h).map_err(undecodable)?;
    let img = decode_limited(data, image::ImageFormat::Png).map_err(undecodable)?;
    Ok(to_rgba(img))
}

/// Most bytes the `image` crate may allocate to decode one image: a 16-bit RGBA picture of
/// [`MAX_IMAGE_SIDE`]² (its default cap, 512 MiB, is just below that and refuses such images
/// with a bare "Memory limit exceeded").
pub const MAX_DECODE_BYTES: u64 =
    (MAX_IMAGE_SIDE as u64) * (MAX_IMAGE_SIDE as u64) * 8 + (16 << 20);

/// The visible stand-in every loader draws for a missing or undecodable texture: `side`×`side`
/// pixels of 4-pixel magenta/black checks.
pub fn checkerboard(side: u32) -> RgbaImage {
    let pixels = (0..side * side)
        .map(|i| {
            let (x, y) = (i % side, i / side);
            if (x / 4 + y / 4) % 2 == 0 {
                [255, 0, 255, 255]
            } else {
                [0, 0, 0, 255]
            }
        })
        .collect();
    RgbaImage {
        width: side,
        height: side,
        pixels,
    }
}

/// Width and height as the PNG or JPEG header gives them, unchecked; `Err` when there is no
/// header the decoder can read.
pub fn dimensions(
    bytes: &[u8],
    format: image::ImageFormat,
) -> std::result::Result<(u32, u32), String> {
    let reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    reader.into_dimensions().map_err(|e| e.to_string())
}

/// Width and height of PNG or JPEG bytes, read from the header alone; sides of 0 or above
/// [`MAX_IMAGE_SIDE`] are refused, naming the cap.
pub fn header_size(
    bytes: &[u8],
    format: image::ImageFormat,
) -> std::result::Result<(u32, u32), String> {
    let (w, h) = dimensions(bytes, format)?;
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

/// PNG or JPEG bytes decoded for drawing: a JPEG far larger than its PS1 form decoded at the
/// smallest of the codec's scales (1/2, 1/4, 1/8, by scaling its inverse DCT) that leaves each
/// side at least that size ([`crate::texture::early_halvings`]); every other image, or a JPEG
/// the scaling decoder does not read as 8-bit grey or RGB, as [`decode_limited`] and
/// [`to_rgba`] give it.
pub fn decode_for_drawing(
    bytes: &[u8],
    format: image::ImageFormat,
) -> std::result::Result<RgbaImage, String> {
    if format == image::ImageFormat::Jpeg {
        if let Some(img) = jpeg_scaled(bytes) {
            return Ok(img);
        }
    }
    decode_limited(bytes, format).map(to_rgba)
}

/// A JPEG decoded at a reduced scale by `jpeg-decoder` (the `image` crate's decoder has no
/// scaled decode), or `None` when it is not to be reduced or that decoder does not give it as
/// 8-bit grey or RGB of the size asked for.
fn jpeg_scaled(bytes: &[u8]) -> Option<RgbaImage> {
    use image::ImageDecoder;
    let reader =
        image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Jpeg);
    let header = reader.into_decoder().ok()?;
    let (w, h) = header.dimensions();
    let grey = match header.color_type() {
        image::ColorType::L8 => true,
        image::ColorType::Rgb8 => false,
        _ => return None,
    };
    if w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
        return None;
    }
    let k = crate::texture::early_halvings(w, h, 3);
    if k == 0 {
        return None;
    }
    let (sw, sh) = (w.div_ceil(1 << k), h.div_ceil(1 << k));
    let mut decoder = jpeg_decoder::Decoder::new(bytes);
    decoder.set_max_decoding_buffer_size(MAX_DECODE_BYTES as usize);
    let size = decoder.scale(sw as u16, sh as u16).ok()?;
    if size != (sw as u16, sh as u16) {
        return None;
    }
    let raw = decoder.decode().ok()?;
    let n = sw as usize * sh as usize;
    let pixels: Vec<[u8; 4]> = match (grey, raw.len()) {
        (true, len) if len == n => raw.iter().map(|&l| [l, l, l, 255]).collect(),
        (false, len) if len == 3 * n => raw
            .as_chunks::<3>()
            .0
            .iter()
            .map(|&[r, g, b]| [r, g, b, 255])
            .collect(),
        _ => return None,
    };
    Some(RgbaImage {
        width: sw,
        height: sh,
        pixels,
    })
}

/// A decoded image as the scene's RGBA, top row first. The 8-bit layouts decoders give are
/// copied channel by channel (grey to all three, opaque where there is no alpha); only
/// 16-bit and float images go through the `image` crate's generic conversion, which costs
/// several times more a pixel.
pub fn to_rgba(img: image::DynamicImage) -> RgbaImage {
    use image::DynamicImage as D;
    let (width, height) = (img.width(), img.height());
    let pixels = match img {
        D::ImageRgba8(b) => b.as_chunks::<4>().0.to_vec(),
        D::ImageRgb8(b) => b
            .as_chunks::<3>()
            .0
            .iter()
            .map(|&[r, g, b]| [r, g, b, 255])
            .collect(),
        D::ImageLumaA8(b) => b
            .as_chunks::<2>()
            .0
            .iter()
            .map(|&[l, a]| [l, l, l, a])
            .collect(),
        D::ImageLuma8(b) => b.iter().map(|&l| [l, l, l, 255]).collect(),
        other => other.into_rgba8().pixels().map(|p| p.0).collect(),
    };
    RgbaImage {
        width,
        height,
        pixels,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowance_refuses_the_texture_that_passes_it_and_names_its_file() {
        // Sixteen 4096² textures fill the real allowance exactly; a seventeenth is refused.
        let full = ImageAllowance::default();
        for i in 0..16 {
            let file = format!("t{i}.tga");
            full.charge("TGA", Path::new(&file), 4096, 4096).unwrap();
        }
        assert_eq!(full.used(), MAX_DECODED_IMAGE_BYTES);
        let e = full.charge("TGA", Path::new("t16.tga"), 1, 1).unwrap_err();
        assert_eq!(e.file.as_deref(), Some(Path::new("t16.tga")));

        // The same rule at a small scale: textures of 40, 40 and 40 bytes against 100.
        let a = ImageAllowance::new(100);
        a.charge("BLP2", Path::new("a.blp"), 5, 2).unwrap();
        a.charge("BLP2", Path::new("b.blp"), 2, 5).unwrap();
        let e = a.charge("BLP2", Path::new("c.blp"), 10, 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.blp: BLP2 decoded image bytes (all textures of the model) count 120 is larger \
             than the limit 100 at byte 0x0"
        );
        // The refused texture is not kept, so it is not counted: a smaller one still fits.
        assert_eq!(a.used(), 80);
        a.charge("BLP2", Path::new("d.blp"), 5, 1).unwrap();
        assert_eq!(a.used(), 100);
    }

    #[test]
    fn allowance_saturates_instead_of_overflowing() {
        let a = ImageAllowance::new(u64::MAX - 1);
        a.charge("DDS", Path::new("x.dds"), u32::MAX, u32::MAX)
            .unwrap_err();
        assert_eq!(a.used(), 0);
    }

    #[test]
    fn eight_bit_layouts_convert_as_the_image_crate_does() {
        let grey = image::GrayImage::from_fn(7, 3, |x, y| image::Luma([(x * 37 + y * 11) as u8]));
        let grey_alpha = image::GrayAlphaImage::from_fn(5, 4, |x, y| {
            image::LumaA([(x * 50) as u8, (y * 60) as u8])
        });
        let rgb = image::RgbImage::from_fn(6, 2, |x, y| image::Rgb([x as u8 * 40, y as u8, 200]));
        let rgba = image::RgbaImage::from_fn(3, 3, |x, y| image::Rgba([1, x as u8, y as u8, 77]));
        let wide = image::ImageBuffer::<image::Rgb<u16>, _>::from_fn(2, 2, |x, y| {
            image::Rgb([x as u16 * 30000, y as u16 * 257, 65535])
        });
        for img in [
            image::DynamicImage::ImageLuma8(grey),
            image::DynamicImage::ImageLumaA8(grey_alpha),
            image::DynamicImage::ImageRgb8(rgb),
            image::DynamicImage::ImageRgba8(rgba),
            image::DynamicImage::ImageRgb16(wide),
        ] {
            let generic = img.to_rgba8();
            let ours = to_rgba(img);
            assert_eq!((ours.width, ours.height), generic.dimensions());
            let theirs: Vec<[u8; 4]> = generic.pixels().map(|p| p.0).collect();
            assert_eq!(ours.pixels, theirs);
        }
    }
}
