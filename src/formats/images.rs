//! Any image file psxrender reads, decoded to RGBA by its content: TIM (CLUT row 0), BLP2,
//! DDS (standard and BioWare), TGA, PNG, and PLT composited with its palettes (as the NWN
//! loader would: `--palette-dir`, `--plt-colors`).

use std::path::Path;

use super::detect::{identify, Kind, Role};
use super::error::{ErrorKind, LoadError, Result};
use super::{blp, dds, nwn, plt, read_file, tim, LoadOptions};
use crate::scene::RgbaImage;

/// Largest side, in pixels, of an image the `image` crate decodes (PNG; JPEG inside glTF). The
/// other decoders have their own caps of the same size.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// Decodes `data` (the contents of `path`, of kind `kind`) to RGBA, top row first. PLT
/// palettes are looked up beside `path` and in `opts`; problems finding them go to
/// `warnings`.
pub fn decode(
    path: &Path,
    kind: Kind,
    data: &[u8],
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<RgbaImage> {
    let img = match kind {
        Kind::Tim => tim::Tim::parse(data)?.to_rgba(0),
        Kind::Blp => blp::decode(data)?,
        Kind::Dds => dds::decode_standard(data)?,
        Kind::BiowareDds => dds::decode_bioware(data)?,
        Kind::Tga => {
            nwn::textures::decode_tga(data).map_err(|e| LoadError::invalid("TGA", 0, e))?
        }
        Kind::Png => decode_png(data)?,
        Kind::Plt => {
            let dir = path.parent().unwrap_or(Path::new("."));
            plt::parse(data)?.composite(
                &nwn::textures::palettes(dir, opts, warnings),
                opts.plt_colors.unwrap_or([0; 10]),
            )
        }
        other => {
            return Err(LoadError::new(
                other.name(),
                0,
                ErrorKind::Invalid(format!("a {} file is not an image", other.name())),
            ))
        }
    };
    Ok(img)
}

/// Reads `path`, checks that it is an image and decodes it; returns its kind too.
pub fn load(
    path: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<(Kind, RgbaImage)> {
    let data = read_file(path, "image")?;
    let kind = identify(&data)
        .map_err(|u| LoadError::new("image", 0, ErrorKind::Unrecognised(u)).in_file(path))?;
    if kind.role() != Role::Texture {
        return Err(LoadError::invalid(
            kind.name(),
            0,
            format!("this is a {} file, not an image", kind.name()),
        )
        .in_file(path));
    }
    let img = decode(path, kind, &data, opts, warnings).map_err(|e| e.in_file(path))?;
    Ok((kind, img))
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
                ErrorKind::CountTooLarge {
                    what,
                    count: u64::from(v),
                    max: u64::from(MAX_IMAGE_SIDE),
                },
            ));
        }
    }
    let img = decode_limited(data, image::ImageFormat::Png, None)
        .map_err(|e| LoadError::invalid("PNG", 0, e))?;
    Ok(to_rgba(img))
}

/// PNG or JPEG bytes decoded by the `image` crate, which refuses sides above [`MAX_IMAGE_SIDE`]
/// and, with `max_alloc`, any decode that would allocate more bytes than that (else the crate's
/// default cap) before allocating.
pub fn decode_limited(
    bytes: &[u8],
    format: image::ImageFormat,
    max_alloc: Option<u64>,
) -> std::result::Result<image::DynamicImage, String> {
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    if max_alloc.is_some() {
        limits.max_alloc = max_alloc;
    }
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
