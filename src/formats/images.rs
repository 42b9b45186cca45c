//! Any image file psxrender reads, decoded to RGBA by its content: TIM (CLUT row 0), BLP2,
//! DDS (standard and BioWare), TGA, PNG, and PLT composited with its palettes (as the NWN
//! loader would: `--palette-dir`, `--plt-colors`).

use std::path::Path;

use super::detect::{identify, Kind, Role};
use super::error::{ErrorKind, LoadError, Result};
use super::{blp, dds, nwn, plt, read_file, tim, LoadOptions};
use crate::scene::RgbaImage;

/// Largest PNG side accepted, in pixels (the other decoders have their own caps of the same
/// size).
pub const MAX_PNG_DIMENSION: u32 = 8192;

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

/// A PNG through the `image` crate, refusing sides above [`MAX_PNG_DIMENSION`] before
/// decoding.
pub fn decode_png(data: &[u8]) -> Result<RgbaImage> {
    let (w, h) = png_size(data)?;
    for (what, v) in [("PNG width", w), ("PNG height", h)] {
        if v == 0 || v > MAX_PNG_DIMENSION {
            return Err(LoadError::new(
                "PNG",
                16,
                ErrorKind::CountTooLarge {
                    what,
                    count: u64::from(v),
                    max: u64::from(MAX_PNG_DIMENSION),
                },
            ));
        }
    }
    let img = image::load_from_memory_with_format(data, image::ImageFormat::Png)
        .map_err(|e| LoadError::invalid("PNG", 0, e.to_string()))?
        .to_rgba8();
    let (width, height) = img.dimensions();
    Ok(RgbaImage {
        width,
        height,
        pixels: img.pixels().map(|p| p.0).collect(),
    })
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
