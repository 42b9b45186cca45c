//! Materials, images and the texture variants faces sample: material factors and texture
//! slots, image sources (buffer views, data URIs, files beside the model) decoded or replaced by
//! the checkerboard with a warning, and each used (image, alpha treatment) baked once.
//!
//! Only images some material shows as its base colour are decoded: the PS1 path draws no
//! other map (docs/rendering.md), so the rest are read as far as their header's size.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::accessor::Reader;
use super::source::{self, FileId, Source};
use super::{json_error, AlphaMode, Budget, Image, Material, TextureRef, Variant};
use crate::formats::error::{ErrorKind, LoadError, Result};
use crate::formats::images as codecs;
use crate::scene::{RgbaImage, Texture, TextureImage};
use crate::texture::{source_id, SourceFacts, TextureCache};

pub(super) fn materials(doc: &::gltf::Document) -> Vec<Material> {
    doc.materials()
        .map(|m| {
            let pbr = m.pbr_metallic_roughness();
            let alpha = match m.alpha_mode() {
                ::gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                ::gltf::material::AlphaMode::Mask => {
                    AlphaMode::Mask(m.alpha_cutoff().unwrap_or(0.5).clamp(0.0, 1.0))
                }
                ::gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            };
            let f = pbr.base_color_factor();
            Material {
                name: m.name().map(str::to_string),
                base_color: f.map(|c| {
                    if c.is_finite() {
                        c.clamp(0.0, 1.0)
                    } else {
                        1.0
                    }
                }),
                texture: pbr
                    .base_color_texture()
                    .map(|t| (t.texture().index(), t.tex_coord())),
                alpha,
                double_sided: m.double_sided(),
            }
        })
        .collect()
}

/// The MIME type of a `data:` URI, if it names one.
fn data_uri_mime(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    Some(&rest[..end]).filter(|m| !m.is_empty())
}

/// Where an image's bytes come from, with the format its `mimeType` asks for (`None`: guessed
/// from the bytes): images with equal keys decode to the same pixels, so each key is decoded
/// once and its pixels shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ImageKey<'a> {
    /// A file beside the model.
    File(FileId, Option<image::ImageFormat>),
    /// Bytes of a buffer: its index, the start and the length.
    Buffer(usize, usize, usize, Option<image::ImageFormat>),
    /// A data URI, by its text (with the `mimeType` given beside it).
    DataUri(&'a str, Option<&'a str>),
}

/// How to get an image's bytes, once its source is known not to be decoded yet.
enum Fetch<'a> {
    /// Bytes of a buffer view, already in memory.
    View(&'a [u8]),
    /// A data URI to decode.
    DataUri(&'a str),
    /// A file beside the model to read.
    File(&'a Path, FileId),
}

/// The format a `mimeType` names, `None` when it names neither PNG nor JPEG (the bytes decide).
fn mime_format(mime: Option<&str>) -> Option<image::ImageFormat> {
    source::image_format(&[], mime)
}

/// Which images some material shows as its base colour (through `materials`' texture slots):
/// the only ones the PS1 path draws.
fn drawn_images(doc: &::gltf::Document, materials: &[Material]) -> Vec<bool> {
    let mut drawn = vec![false; doc.images().len()];
    for (t, _) in materials.iter().filter_map(|m| m.texture) {
        if let Some(i) = doc.as_json().textures.get(t).map(|t| t.source.value()) {
            if let Some(d) = drawn.get_mut(i) {
                *d = true;
            }
        }
    }
    drawn
}

/// Every image, decoded once per source when a material shows it as its base colour (else
/// only its size read). An image file that is not there, or bytes that are no PNG or JPEG
/// psxrender can decode, are a warning and the checkerboard, as NWN and M2 textures are; a URI
/// that leads outside the model's folder, a file that is no regular file, and sizes past the
/// caps stay refusals.
///
/// With a texture `cache`, an image decoded before (its facts are there) is left undecoded
/// until its pixels are asked for.
pub(super) fn images(
    doc: &::gltf::Document,
    materials: &[Material],
    (src, cache): (&Source, Option<&TextureCache>),
    reader: &Reader,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<Vec<Image>> {
    let mut out = Vec::new();
    let drawn = drawn_images(doc, materials);
    // Each source read so far: its encoding, size and pixels if decoded (a map: a file may have
    // many images).
    let mut decoded: HashMap<ImageKey, Decoded> = HashMap::new();
    // One image for every stand-in, so materials that differ only in a missing image share
    // one variant.
    let checkerboard = TextureImage::from(codecs::checkerboard(16));
    // The JSON is read directly: the crate's `Image::source` unwraps a missing mimeType or uri.
    for (i, img) in doc.as_json().images.iter().enumerate() {
        let jpath = format!("images[{i}]");
        let mime = img.mime_type.as_ref().map(|m| m.0.as_str());
        let file;
        let (origin, key, fetch) = match (&img.buffer_view, &img.uri) {
            (Some(v), _) => {
                let view = doc.views().nth(v.value()).ok_or_else(|| {
                    json_error(format!("{jpath}.bufferView"), "no such buffer view")
                })?;
                let bytes = reader.view_bytes(&view)?;
                let key = ImageKey::Buffer(
                    view.buffer().index(),
                    view.offset(),
                    view.length(),
                    mime_format(mime),
                );
                let origin = format!("bufferViews[{}]", v.value());
                (origin, key, Fetch::View(bytes))
            }
            (None, Some(uri)) if uri.starts_with("data:") => (
                "data URI".to_string(),
                ImageKey::DataUri(uri, mime),
                Fetch::DataUri(uri),
            ),
            (None, Some(uri)) => {
                file = source::external_path(&src.base, uri)
                    .map_err(|m| json_error(format!("{jpath}.uri"), m))?;
                if std::fs::symlink_metadata(&file).is_err() {
                    warnings.push(format!(
                        "{jpath}: image file '{uri}' not found beside the model; drawn as a \
                         magenta checkerboard"
                    ));
                    out.push(missing_image(img, uri, &checkerboard));
                    continue;
                }
                let id = src
                    .files
                    .identify(&file)
                    .map_err(|e| source::named_in_uri(e, &format!("{jpath}.uri"), uri))?;
                let key = ImageKey::File(id, mime_format(mime));
                (uri.clone(), key, Fetch::File(&file, id))
            }
            (None, None) => return Err(json_error(&jpath, "has neither a uri nor a bufferView")),
        };
        let draw = drawn.get(i).copied().unwrap_or(false);
        let (encoding, size, pixels) = match decoded.get(&key) {
            Some(d) if d.2.is_some() || !draw => d.clone(),
            _ => {
                let d = match decode(&jpath, &origin, fetch, mime, draw, (src, cache), budget)? {
                    Ok(d) => d,
                    Err(why) => {
                        warnings.push(format!(
                            "{jpath} ({origin}) cannot be decoded: {why}; drawn as a magenta \
                             checkerboard"
                        ));
                        let c = &checkerboard;
                        (MISSING, [c.width, c.height], Some(c.clone()))
                    }
                };
                decoded.insert(key, d.clone());
                d
            }
        };
        let name = img.name.clone().unwrap_or_else(|| origin.clone());
        out.push(Image {
            name: name.clone(),
            origin,
            encoding,
            size,
            texture: pixels.map(|image| Texture { name, image }),
        });
    }
    Ok(out)
}

/// The encoding `info` gives an image drawn as the checkerboard.
const MISSING: &str = "none (missing or undecodable; checkerboard)";

/// An image whose file is not there: the checkerboard in its place.
fn missing_image(img: &::gltf::json::Image, uri: &str, checkerboard: &TextureImage) -> Image {
    let name = img.name.clone().unwrap_or_else(|| uri.to_string());
    Image {
        name: name.clone(),
        origin: uri.to_string(),
        encoding: MISSING,
        size: [checkerboard.width, checkerboard.height],
        texture: Some(Texture {
            name,
            image: checkerboard.clone(),
        }),
    }
}

/// An image source as read: its encoding, size, and pixels when decoded.
type Decoded = (&'static str, [u32; 2], Option<TextureImage>);

/// Gets the bytes of `images[N]` (at `jpath`, from `origin`, its `mimeType` `mime`) and decodes
/// them when the image is `drawn` (else reads its header's size): its encoding, size and pixels,
/// or (inner `Err`) why the bytes are no image psxrender decodes.
fn decode(
    jpath: &str,
    origin: &str,
    fetch: Fetch,
    mime: Option<&str>,
    drawn: bool,
    (src, cache): (&Source, Option<&TextureCache>),
    budget: &Budget,
) -> Result<std::result::Result<Decoded, String>> {
    let owned: Vec<u8>;
    let (bytes, mime, file) = match fetch {
        Fetch::View(bytes) => (bytes, mime, None),
        Fetch::DataUri(uri) => {
            let data =
                match ::gltf::buffer::Data::from_source(::gltf::buffer::Source::Uri(uri), None) {
                    Ok(d) => d,
                    Err(e) => return Ok(Err(format!("data URI: {e}"))),
                };
            budget.charge_for(
                &format!("{jpath}.uri"),
                data.0.len() as u64,
                "image data URI (bytes)",
            )?;
            owned = data.0;
            (owned.as_slice(), mime.or(data_uri_mime(uri)), None)
        }
        Fetch::File(file, id) => {
            owned = src
                .files
                .read(file, id, budget)
                .map_err(|e| source::named_in_uri(e, &format!("{jpath}.uri"), origin))?;
            (owned.as_slice(), mime, Some(file))
        }
    };
    let in_file = |e: LoadError| match file {
        Some(f) => e.in_file(f),
        None => e,
    };
    let Some(format) = source::image_format(bytes, mime) else {
        return Ok(Err(format!(
            "not a PNG or JPEG image (mimeType {})",
            mime.unwrap_or("not given")
        )));
    };
    let encoding = if format == image::ImageFormat::Png {
        "PNG"
    } else {
        "JPEG"
    };
    if !drawn {
        return Ok(codecs::dimensions(bytes, format).map(|(w, h)| (encoding, [w, h], None)));
    }
    let id = cache.map(|_| source_id(encoding, bytes));
    if let Some((cache, id)) = cache.zip(id) {
        if let Some(f) = cache.facts(id) {
            // Decoded before: charged as decoding charges it (from the header), the pixels
            // (of the facts' size, which a reduced decode makes smaller) decoded when first
            // used.
            let (w, h) = codecs::dimensions(bytes, format).unwrap_or((f.width, f.height));
            budget.charge_image(u64::from(w) * u64::from(h) * 4)?;
            let data = bytes.to_vec();
            let image = TextureImage::lazy(id, [f.width, f.height], move || {
                codecs::decode_for_drawing(&data, format).unwrap_or(RgbaImage {
                    width: 0,
                    height: 0,
                    pixels: Vec::new(),
                })
            });
            return Ok(Ok((encoding, [w, h], Some(image))));
        }
    }
    let pixels = match source::decode_image(bytes, format, budget)
        .map_err(|e| in_file(json_error(jpath, format!("{origin}: {e}"))))?
    {
        Ok(p) => p,
        Err(why) => return Ok(Err(why)),
    };
    if let Some((cache, id)) = cache.zip(id) {
        cache.put_facts(id, SourceFacts::of(&pixels));
    }
    // The file's size as its header gives it (which `decode_image` has read): the pixels may
    // be a reduced decode.
    let (w, h) = codecs::dimensions(bytes, format).unwrap_or((pixels.width, pixels.height));
    Ok(Ok((
        encoding,
        [w, h],
        Some(TextureImage::decoded(Arc::new(pixels), id)),
    )))
}

/// What makes a texture variant: the image (by address: images from one source share it, and
/// every image lives until the variants are made), the alpha mode (a mask's cutoff) and the
/// alpha factor, floats as bits with −0 as 0, so that keys are equal exactly when the values
/// compare equal; `None` when a float is NaN, which equals nothing (each such material gets a
/// variant of its own).
type VariantKey = (*const (), u8, u32, u32);

fn variant_key(image: &TextureImage, alpha: AlphaMode, factor: f32) -> Option<VariantKey> {
    let bits = |f: f32| (!f.is_nan()).then_some(if f == 0.0 { 0 } else { f.to_bits() });
    let (mode, cut) = match alpha {
        AlphaMode::Opaque => (0, 0),
        AlphaMode::Mask(cut) => (1, bits(cut)?),
        AlphaMode::Blend => (2, 0),
    };
    Some((image.as_ptr(), mode, cut, bits(factor)?))
}

/// The textures faces sample: each used (decoded image, alpha treatment) once, with the
/// material's alpha factor and mode baked into the texels (MASK: alpha ≥ cutoff → opaque, else
/// clear). A copy the budget refuses names the material.
pub(super) fn variants(
    materials: &[Material],
    textures: &[TextureRef],
    images: &[Image],
    budget: &Budget,
) -> Result<(Vec<Variant>, Vec<Option<usize>>)> {
    let mut out: Vec<Variant> = Vec::new();
    // The variants made, by what makes one (a map: a file may have many materials).
    let mut made: HashMap<VariantKey, usize> = HashMap::new();
    let mut per_material = Vec::new();
    for (mi, m) in materials.iter().enumerate() {
        let Some((t, image)) = m
            .texture
            .and_then(|(t, _)| Some((t, textures.get(t)?.image)))
        else {
            per_material.push(None);
            continue;
        };
        let Some((img, decoded)) = images
            .get(image)
            .and_then(|img| Some((img, img.texture.as_ref()?)))
        else {
            per_material.push(None);
            continue;
        };
        let fa = m.base_color[3];
        let key = variant_key(&decoded.image, m.alpha, fa);
        if let Some(&i) = key.as_ref().and_then(|k| made.get(k)) {
            per_material.push(Some(i));
            continue;
        }
        if let Some(k) = key {
            made.insert(k, out.len());
        }
        let src = &decoded.image;
        let [width, height] = src.size();
        let bytes = u64::from(width) * u64::from(height) * 4;
        budget
            .charge(bytes, "texture copy (bytes)")
            .map_err(|e| match e.kind {
                ErrorKind::CountTooLarge { count, max, .. } => json_error(
                    format!("materials[{mi}].pbrMetallicRoughness.baseColorTexture"),
                    format!(
                    "the copy of textures[{t}]'s images[{image}] ({width}x{height}, {bytes} bytes) \
                     brings the load's total to {count} bytes, more than the limit {max}"
                ),
                ),
                _ => e,
            })?;
        out.push(Variant {
            image,
            alpha: m.alpha,
            factor_alpha: fa,
            texture: Texture {
                name: img.name.clone(),
                image: baked(src, m.alpha, fa),
            },
        });
        per_material.push(Some(out.len() - 1));
    }
    Ok((out, per_material))
}

/// `src` with the alpha treatment `alpha` and factor `fa` baked into its texels (MASK: alpha ≥
/// cutoff → opaque, else clear). A source the cache knows gives a variant it knows too, left
/// undecoded while its source is.
fn baked(src: &TextureImage, alpha: AlphaMode, fa: f32) -> TextureImage {
    // Each alpha value's treatment worked out once, then looked up per pixel.
    let table: [u8; 256] = std::array::from_fn(|a| {
        let a = a as u8;
        match alpha {
            AlphaMode::Opaque => 255,
            AlphaMode::Mask(cut) => {
                if f32::from(a) / 255.0 * fa >= cut {
                    255
                } else {
                    0
                }
            }
            AlphaMode::Blend => (f32::from(a) * fa).round() as u8,
        }
    });
    let bake = move |src: &RgbaImage| RgbaImage {
        width: src.width,
        height: src.height,
        pixels: (src.pixels.iter())
            .map(|&[r, g, b, a]| [r, g, b, table[usize::from(a)]])
            .collect(),
    };
    let Some(id) = src.source() else {
        return TextureImage::from(bake(src));
    };
    let (mode, cut) = match alpha {
        AlphaMode::Opaque => (0u8, 0.0f32),
        AlphaMode::Mask(cut) => (1, cut),
        AlphaMode::Blend => (2, 0.0),
    };
    let mut what = id.0.to_le_bytes().to_vec();
    what.push(mode);
    what.extend(cut.to_bits().to_le_bytes());
    what.extend(fa.to_bits().to_le_bytes());
    let variant = source_id("gltf variant", &what);
    if src.is_decoded() {
        return TextureImage::decoded(Arc::new(bake(src)), Some(variant));
    }
    let src = src.clone();
    TextureImage::lazy(variant, src.size(), move || bake(&src))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variant keys are equal exactly when the values compare equal: −0 is 0, and a NaN
    /// (which equals nothing) has no key; images are the same when they share their pixels.
    #[test]
    fn variant_keys_are_equal_when_the_values_are() {
        let pixels = || {
            TextureImage::from(RgbaImage {
                width: 1,
                height: 1,
                pixels: vec![[1, 2, 3, 4]],
            })
        };
        let (a, b) = (pixels(), pixels());
        let shared = a.clone();
        let k = |x, f| variant_key(&a, x, f);
        assert_eq!(k(AlphaMode::Blend, 0.5), k(AlphaMode::Blend, 0.5));
        assert_eq!(k(AlphaMode::Blend, -0.0), k(AlphaMode::Blend, 0.0));
        assert_eq!(k(AlphaMode::Mask(-0.0), 1.0), k(AlphaMode::Mask(0.0), 1.0));
        assert_ne!(k(AlphaMode::Blend, 0.5), k(AlphaMode::Opaque, 0.5));
        assert_ne!(k(AlphaMode::Mask(0.5), 1.0), k(AlphaMode::Mask(0.25), 1.0));
        assert_eq!(
            k(AlphaMode::Blend, 1.0),
            variant_key(&shared, AlphaMode::Blend, 1.0)
        );
        assert_ne!(
            k(AlphaMode::Blend, 1.0),
            variant_key(&b, AlphaMode::Blend, 1.0)
        );
        assert_eq!(k(AlphaMode::Blend, f32::NAN), None);
        assert_eq!(k(AlphaMode::Mask(f32::NAN), 1.0), None);
    }
}
