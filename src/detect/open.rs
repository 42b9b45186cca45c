//! Opening a file by what it is: [`identify`] its content, then hand it to the one loader or
//! decoder of that kind. Any other kind is refused naming what the file is.

use std::path::Path;

use super::{identify, Kind, Role};
use crate::formats::{blp, dds, ff9, gltf, images, m2, model_dir, nwn, plt, tim, LoadOptions};
use crate::read::{read_file, ErrorKind, LoadError, Result};
use crate::scene::{Model, RgbaImage};

/// Loads a model of any supported format from `path`.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Box<dyn Model>, LoadError> {
    let data = read_file(path, "model")?;
    let kind = identify(&data)
        .map_err(|u| LoadError::new("model", 0, ErrorKind::Unrecognised(u)).in_file(path))?;
    load_data(path, &data, kind, opts)
}

/// Loads the model in `data` (the contents of `path`, identified as `kind`); any other kind of
/// file is refused with what it is and which commands take it.
pub fn load_data(
    path: &Path,
    data: &[u8],
    kind: Kind,
    opts: &LoadOptions,
) -> Result<Box<dyn Model>, LoadError> {
    let model: Box<dyn Model> = match kind {
        Kind::M2 => Box::new(m2::load(path, data, opts)?),
        Kind::NwnBinary | Kind::NwnAscii => Box::new(nwn::load(path, data, opts)?),
        Kind::Ff9 => Box::new(ff9::load(path, data, opts)?),
        Kind::Gltf => Box::new(gltf::load(path, data, opts)?),
        other => {
            return Err(
                LoadError::new(other.name(), 0, ErrorKind::NotAModel(other.role())).in_file(path),
            )
        }
    };
    Ok(model)
}

/// Decodes `data` (the contents of `path`, of kind `kind`) to RGBA, top row first. PLT
/// palettes are looked up beside `path` and in `opts`; problems finding them go to
/// `warnings`.
pub fn decode_image(
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
        Kind::Tga => nwn::textures::decode_tga(data)
            .map_err(|e| LoadError::new("TGA", 0, ErrorKind::Undecodable(e)))?,
        Kind::Png => images::decode_png(data)?,
        Kind::Plt => {
            let dir = model_dir(path);
            plt::parse(data)?.composite(
                &nwn::textures::palettes(dir, opts, warnings),
                opts.plt_colors.unwrap_or([0; 10]),
            )
        }
        other => {
            return Err(LoadError::new(
                other.name(),
                0,
                ErrorKind::NotAnImage(other.role()),
            ))
        }
    };
    Ok(img)
}

/// Reads `path`, checks that it is an image and decodes it; returns its kind too.
pub fn load_image(
    path: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<(Kind, RgbaImage)> {
    let data = read_file(path, "image")?;
    let kind = identify(&data)
        .map_err(|u| LoadError::new("image", 0, ErrorKind::Unrecognised(u)).in_file(path))?;
    if kind.role() != Role::Texture {
        return Err(
            LoadError::new(kind.name(), 0, ErrorKind::NotAnImage(kind.role())).in_file(path),
        );
    }
    let img = decode_image(path, kind, &data, opts, warnings).map_err(|e| e.in_file(path))?;
    Ok((kind, img))
}
