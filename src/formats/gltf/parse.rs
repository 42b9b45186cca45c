//! The validated document → plain arrays: the node tree (one parent per node, no cycles),
//! meshes (read by `mesh.rs`), skins, animation channels with their keys, materials, images and
//! the textures faces will sample.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use ::gltf::animation::Property as GProperty;

use super::accessor::Reader;
use super::mesh::{read_mesh, MeshContext};
use super::source::{self, with_offset, FileId, Source};
use super::{
    json_error, AlphaMode, Animation, Budget, Channel, GltfModel, Image, Instance, Interpolation,
    Material, Mesh, Node, Property, Skin, TextureRef, Trs, Variant, MAX_JOINTS, MAX_POSED_VERTICES,
};
use crate::formats::error::{ErrorKind, LoadError, Result};
use crate::formats::LoadOptions;
use crate::math::Affine;
use crate::scene::{RgbaImage, Texture};

pub use super::mesh::{smooth_normals, triangles};

/// A column-major 4×4 matrix (glTF's layout) as an affine transform (its last row is taken to
/// be 0 0 0 1, as glTF requires of node and joint matrices).
pub fn affine_from_columns(m: &[f32]) -> Affine {
    let mut a = Affine::IDENTITY;
    for (row, r) in a.0.iter_mut().enumerate() {
        for (col, c) in r.iter_mut().enumerate() {
            *c = m[col * 4 + row];
        }
    }
    a
}

/// Builds the model from an opened document.
pub fn build(path: &Path, src: Source, opts: &LoadOptions, budget: &Budget) -> Result<GltfModel> {
    let json_offset = src.json_offset;
    let mut warnings = Vec::new();
    let model = build_inner(path, &src, opts, budget, &mut warnings).map_err(|e| {
        if e.offset == 0 {
            with_offset(e, json_offset)
        } else {
            e
        }
    })?;
    Ok(GltfModel {
        warnings,
        budget: (budget.limit(), budget.used()),
        ..model
    })
}

fn build_inner(
    path: &Path,
    src: &Source,
    opts: &LoadOptions,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<GltfModel> {
    let doc = &src.doc;
    let reader = Reader {
        buffers: &src.buffers,
        budget,
    };
    for ext in doc.extensions_used() {
        if !source::HANDLED_EXTENSIONS.contains(&ext) {
            warnings.push(format!(
                "glTF extension {ext} is not supported and is ignored"
            ));
        }
    }
    if doc.cameras().next().is_some() {
        warnings.push(
            "glTF cameras are ignored: psxrender places its own camera (--yaw/--pitch/--distance)"
                .into(),
        );
    }
    let (nodes, order) = nodes(doc)?;
    let scene_count = doc.scenes().len();
    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let roots: Vec<usize> = match &scene {
        Some(s) => s.nodes().map(|n| n.index()).collect(),
        None => (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect(),
    };
    let materials = materials(doc);
    let images = images(doc, src, &reader, budget, warnings)?;
    let textures: Vec<TextureRef> = doc
        .textures()
        .map(|t| {
            let s = t.sampler();
            TextureRef {
                image: t.source().index(),
                wrap: [wrap_name(s.wrap_s()), wrap_name(s.wrap_t())],
            }
        })
        .collect();
    for (i, t) in textures.iter().enumerate() {
        if t.wrap != ["REPEAT", "REPEAT"] {
            warnings.push(format!(
                "glTF textures[{i}] wraps {}/{}: the PS1 texture window only repeats, so it is drawn repeating",
                t.wrap[0], t.wrap[1]
            ));
        }
    }
    let cx = MeshContext {
        doc,
        reader: &reader,
        materials: &materials,
        smooth_normals: opts.smooth_normals,
    };
    let mut meshes = Vec::new();
    for mesh in doc.meshes() {
        meshes.push(read_mesh(&cx, &mesh, warnings)?);
    }
    let skins = skins(doc, &reader)?;
    let mut nodes = nodes;
    let animations = animations(doc, &reader, &mut nodes, &meshes)?;
    let (variants, material_variant) = variants(&materials, &textures, &images, budget)?;
    let instances = instances(&nodes, &roots, &meshes, &skins, budget, warnings)?;
    let asset = &doc.as_json().asset;
    Ok(GltfModel {
        path: path.to_path_buf(),
        container: src.container.clone(),
        version: asset.version.clone(),
        generator: asset.generator.clone(),
        copyright: asset.copyright.clone(),
        buffers: src
            .buffers
            .iter()
            .map(|b| (b.origin.clone(), b.bytes().len() as u64))
            .collect(),
        scene: (scene.map(|s| s.index()), scene_count),
        roots,
        nodes,
        order,
        meshes,
        skins,
        animations,
        materials,
        textures,
        images,
        variants,
        material_variant,
        instances,
        budget: (0, 0),
        warnings: Vec::new(),
    })
}

fn wrap_name(w: ::gltf::texture::WrappingMode) -> &'static str {
    match w {
        ::gltf::texture::WrappingMode::ClampToEdge => "CLAMP_TO_EDGE",
        ::gltf::texture::WrappingMode::MirroredRepeat => "MIRRORED_REPEAT",
        ::gltf::texture::WrappingMode::Repeat => "REPEAT",
    }
}

/// Nodes with parents assigned, and an order with parents first. A node listed as the child of
/// two nodes, or a cycle, is an error.
fn nodes(doc: &::gltf::Document) -> Result<(Vec<Node>, Vec<usize>)> {
    let mut out: Vec<Node> = Vec::with_capacity(doc.nodes().len());
    for n in doc.nodes() {
        let transform = n.transform();
        let matrix = match transform.clone() {
            ::gltf::scene::Transform::Matrix { matrix } => {
                Some(affine_from_columns(matrix.as_flattened()))
            }
            ::gltf::scene::Transform::Decomposed { .. } => None,
        };
        let (t, r, s) = transform.decomposed();
        let finite = |v: &[f32]| v.iter().all(|c| c.is_finite());
        let trs = if finite(&t) && finite(&r) && finite(&s) {
            Trs {
                translation: t,
                rotation: r,
                scale: s,
            }
        } else {
            Trs::IDENTITY
        };
        out.push(Node {
            name: n.name().map(str::to_string),
            parent: None,
            children: n.children().map(|c| c.index()).collect(),
            trs,
            matrix,
            animated: false,
            mesh: n.mesh().map(|m| m.index()),
            skin: n.skin().map(|s| s.index()),
            weights: n.weights().map(<[f32]>::to_vec),
        });
    }
    for p in 0..out.len() {
        for k in 0..out[p].children.len() {
            let c = out[p].children[k];
            if c == p {
                return Err(json_error(
                    format!("nodes[{p}].children"),
                    format!("node {p} is its own child"),
                ));
            }
            if let Some(q) = out[c].parent {
                return Err(json_error(
                    format!("nodes[{p}].children"),
                    format!("node {c} is already a child of node {q} (nodes must form trees)"),
                ));
            }
            out[c].parent = Some(p);
        }
    }
    // Parents first: breadth-first from the parentless nodes. A node never reached sits on a
    // cycle (every node of a cycle has a parent).
    let mut order: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].parent.is_none())
        .collect();
    let mut k = 0;
    while k < order.len() {
        let n = order[k];
        order.extend(out[n].children.iter().copied());
        k += 1;
    }
    if order.len() < out.len() {
        let mut seen = vec![false; out.len()];
        for &i in &order {
            seen[i] = true;
        }
        let on_cycle = (0..out.len()).find(|&i| !seen[i]).unwrap_or(0);
        return Err(json_error(
            format!("nodes[{on_cycle}].children"),
            format!("node {on_cycle} is its own ancestor (the node hierarchy has a cycle)"),
        ));
    }
    Ok((out, order))
}

fn materials(doc: &::gltf::Document) -> Vec<Material> {
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

/// Every image, decoded once per source. An image file that is not there, or bytes that are no
/// PNG or JPEG psxrender can decode, are a warning and the checkerboard, as NWN and M2 textures
/// are; a URI that leads outside the model's folder, a file that is no regular file, and sizes
/// past the caps stay refusals.
fn images(
    doc: &::gltf::Document,
    src: &Source,
    reader: &Reader,
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<Vec<Image>> {
    let mut out = Vec::new();
    // Each source decoded so far: its encoding and pixels (a map: a file may have many images).
    let mut decoded: HashMap<ImageKey, (&'static str, Arc<RgbaImage>)> = HashMap::new();
    let checkerboard = Arc::new(crate::formats::images::checkerboard(16));
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
        let (encoding, pixels) = match decoded.get(&key) {
            Some(d) => d.clone(),
            None => {
                let d = match decode(&jpath, &origin, fetch, mime, src, budget)? {
                    Ok(d) => d,
                    Err(why) => {
                        warnings.push(format!(
                            "{jpath} ({origin}) cannot be decoded: {why}; drawn as a magenta \
                             checkerboard"
                        ));
                        (MISSING, checkerboard.clone())
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
            texture: Texture {
                name,
                image: pixels,
            },
        });
    }
    Ok(out)
}

/// The encoding `info` gives an image drawn as the checkerboard.
const MISSING: &str = "none (missing or undecodable; checkerboard)";

/// An image whose file is not there: the checkerboard in its place.
fn missing_image(img: &::gltf::json::Image, uri: &str, checkerboard: &Arc<RgbaImage>) -> Image {
    let name = img.name.clone().unwrap_or_else(|| uri.to_string());
    Image {
        name: name.clone(),
        origin: uri.to_string(),
        encoding: MISSING,
        texture: Texture {
            name,
            image: checkerboard.clone(),
        },
    }
}

/// Gets and decodes the bytes of `images[N]` (at `jpath`, from `origin`, its `mimeType` `mime`):
/// its encoding and pixels, or (inner `Err`) why the bytes are no image psxrender decodes.
fn decode(
    jpath: &str,
    origin: &str,
    fetch: Fetch,
    mime: Option<&str>,
    src: &Source,
    budget: &Budget,
) -> Result<std::result::Result<(&'static str, Arc<RgbaImage>), String>> {
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
    let pixels = match source::decode_image(bytes, format, budget)
        .map_err(|e| in_file(json_error(jpath, format!("{origin}: {e}"))))?
    {
        Ok(p) => p,
        Err(why) => return Ok(Err(why)),
    };
    let encoding = if format == image::ImageFormat::Png {
        "PNG"
    } else {
        "JPEG"
    };
    Ok(Ok((encoding, Arc::new(pixels))))
}

fn skins(doc: &::gltf::Document, reader: &Reader) -> Result<Vec<Skin>> {
    let mut out = Vec::new();
    for skin in doc.skins() {
        let s = skin.index();
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        if joints.len() as u64 > MAX_JOINTS {
            return Err(json_error(
                format!("skins[{s}].joints"),
                format!("{} joints, at most {MAX_JOINTS}", joints.len()),
            ));
        }
        let inverse_bind = match skin.inverse_bind_matrices() {
            Some(acc) => {
                let m = reader.floats::<16>(&acc, "inverseBindMatrices")?;
                if m.len() < joints.len() {
                    return Err(json_error(
                        format!("skins[{s}].inverseBindMatrices"),
                        format!("{} matrices for {} joints", m.len(), joints.len()),
                    ));
                }
                m.iter()
                    .take(joints.len())
                    .map(|c| affine_from_columns(c))
                    .collect()
            }
            None => vec![Affine::IDENTITY; joints.len()],
        };
        out.push(Skin {
            name: skin.name().map(str::to_string),
            joints,
            inverse_bind,
            skeleton: skin.skeleton().map(|n| n.index()),
        });
    }
    Ok(out)
}

/// Morph target count of the mesh at `node`, 0 when none.
fn target_count(nodes: &[Node], meshes: &[Mesh], node: usize) -> usize {
    nodes[node].mesh.and_then(|m| meshes.get(m)).map_or(0, |m| {
        m.primitives
            .iter()
            .map(|p| p.targets.len())
            .max()
            .unwrap_or(0)
            .max(m.weights.len())
    })
}

fn animations(
    doc: &::gltf::Document,
    reader: &Reader,
    nodes: &mut [Node],
    meshes: &[Mesh],
) -> Result<Vec<Animation>> {
    let mut out = Vec::new();
    for anim in doc.animations() {
        let a = anim.index();
        let mut channels = Vec::new();
        let mut duration = 0.0f32;
        for ch in anim.channels() {
            let Some(channel) = read_channel(
                reader,
                &ch,
                a,
                target_count(nodes, meshes, ch.target().node().index()),
            )?
            else {
                continue;
            };
            if let Some(&last) = channel.times.last() {
                if last.is_finite() {
                    duration = duration.max(last);
                }
            }
            nodes[channel.node].animated = true;
            channels.push(channel);
        }
        out.push(Animation {
            name: anim
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("animation {a}")),
            channels,
            duration,
        });
    }
    Ok(out)
}

/// Channel `ch` of animation `a` with its sampler's keys; `targets` is the morph target count
/// of the target node's mesh. The output must hold one element per key (three for
/// CUBICSPLINE) of the property's width; `None` for weights of a node without targets.
fn read_channel(
    reader: &Reader,
    ch: &::gltf::animation::Channel,
    a: usize,
    targets: usize,
) -> Result<Option<Channel>> {
    let node = ch.target().node().index();
    let property = match ch.target().property() {
        GProperty::Translation => Property::Translation,
        GProperty::Rotation => Property::Rotation,
        GProperty::Scale => Property::Scale,
        GProperty::MorphTargetWeights => Property::Weights,
    };
    let sampler = ch.sampler();
    let spath = format!("animations[{a}].samplers[{}]", sampler.index());
    let interpolation = match sampler.interpolation() {
        ::gltf::animation::Interpolation::Step => Interpolation::Step,
        ::gltf::animation::Interpolation::Linear => Interpolation::Linear,
        ::gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
    };
    let times: Vec<f32> = reader
        .floats::<1>(&sampler.input(), "animation input")?
        .into_iter()
        .map(|t| t[0])
        .collect();
    let (values, n) = reader.read(&sampler.output())?;
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let width = match property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::Weights => targets,
    };
    let expected_comps = if property == Property::Weights {
        1
    } else {
        width
    };
    if n != expected_comps {
        return Err(json_error(
            format!("{spath}.output"),
            format!("{n} components per element, {property:?} needs {expected_comps}"),
        ));
    }
    let elements = values.len() / n;
    let per_time = per_key
        * if property == Property::Weights {
            width
        } else {
            1
        };
    if times.is_empty() || elements != times.len() * per_time {
        return Err(json_error(
            &spath,
            format!(
                "{} keys need {} output elements ({:?}), the output has {elements}",
                times.len(),
                times.len() * per_time,
                interpolation
            ),
        ));
    }
    if property == Property::Weights && width == 0 {
        return Ok(None);
    }
    Ok(Some(Channel {
        node,
        property,
        interpolation,
        times,
        values: values.into_iter().map(|v| v as f32).collect(),
        width,
    }))
}

/// What makes a texture variant: the decoded pixels (by address: images decoded from one source
/// share them, and every image lives until the variants are made), the alpha mode (a mask's
/// cutoff) and the alpha factor, floats as bits with −0 as 0, so that keys are equal exactly
/// when the values compare equal; `None` when a float is NaN, which equals nothing (each such
/// material gets a variant of its own).
type VariantKey = (*const RgbaImage, u8, u32, u32);

fn variant_key(image: &Arc<RgbaImage>, alpha: AlphaMode, factor: f32) -> Option<VariantKey> {
    let bits = |f: f32| (!f.is_nan()).then_some(if f == 0.0 { 0 } else { f.to_bits() });
    let (mode, cut) = match alpha {
        AlphaMode::Opaque => (0, 0),
        AlphaMode::Mask(cut) => (1, bits(cut)?),
        AlphaMode::Blend => (2, 0),
    };
    Some((Arc::as_ptr(image), mode, cut, bits(factor)?))
}

/// The textures faces sample: each used (decoded image, alpha treatment) once, with the
/// material's alpha factor and mode baked into the texels (MASK: alpha ≥ cutoff → opaque, else
/// clear). A copy the budget refuses names the material.
fn variants(
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
        let Some(img) = images.get(image) else {
            per_material.push(None);
            continue;
        };
        let fa = m.base_color[3];
        let key = variant_key(&img.texture.image, m.alpha, fa);
        if let Some(&i) = key.as_ref().and_then(|k| made.get(k)) {
            per_material.push(Some(i));
            continue;
        }
        if let Some(k) = key {
            made.insert(k, out.len());
        }
        let src = &img.texture.image;
        let bytes = src.pixels.len() as u64 * 4;
        budget
            .charge(bytes, "texture copy (bytes)")
            .map_err(|e| match e.kind {
                ErrorKind::CountTooLarge { count, max, .. } => json_error(
                    format!("materials[{mi}].pbrMetallicRoughness.baseColorTexture"),
                    format!(
                    "the copy of textures[{t}]'s images[{image}] ({}x{}, {bytes} bytes) brings \
                     the load's total to {count} bytes, more than the limit {max}",
                    src.width, src.height
                ),
                ),
                _ => e,
            })?;
        let pixels = src
            .pixels
            .iter()
            .map(|&[r, g, b, a]| {
                let a = match m.alpha {
                    AlphaMode::Opaque => 255,
                    AlphaMode::Mask(cut) => {
                        if f32::from(a) / 255.0 * fa >= cut {
                            255
                        } else {
                            0
                        }
                    }
                    AlphaMode::Blend => (f32::from(a) * fa).round() as u8,
                };
                [r, g, b, a]
            })
            .collect();
        out.push(Variant {
            image,
            alpha: m.alpha,
            factor_alpha: fa,
            texture: Texture {
                name: img.name.clone(),
                image: RgbaImage {
                    width: src.width,
                    height: src.height,
                    pixels,
                }
                .into(),
            },
        });
        per_material.push(Some(out.len() - 1));
    }
    Ok((out, per_material))
}

/// Every node under the scene's roots that draws a mesh, in depth-first order; checks skinned
/// primitives' joint indices against their skin and caps the posed size.
fn instances(
    nodes: &[Node],
    roots: &[usize],
    meshes: &[Mesh],
    skins: &[Skin],
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<Vec<Instance>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    let (mut vertices, mut triangles) = (0u64, 0u64);
    while let Some(n) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        let node = &nodes[n];
        stack.extend(node.children.iter().rev().copied());
        let Some(m) = node.mesh else { continue };
        let mesh = &meshes[m];
        let skin = node.skin;
        for (p, prim) in mesh.primitives.iter().enumerate() {
            vertices += prim.positions.len() as u64;
            triangles += prim.triangles.len() as u64;
            match (skin, &prim.joints) {
                (Some(s), Some(joints)) => {
                    let count = skins[s].joints.len();
                    if let Some(bad) = joints.iter().flatten().find(|&&j| usize::from(j) >= count)
                    {
                        return Err(json_error(
                            format!("meshes[{m}].primitives[{p}].attributes.JOINTS_0"),
                            format!("joint {bad} is past skins[{s}]'s {count} joints"),
                        ));
                    }
                }
                (None, Some(_)) => warnings.push(format!(
                    "glTF meshes[{m}].primitives[{p}] has joints but nodes[{n}] has no skin; drawn unskinned"
                )),
                (Some(s), None) => warnings.push(format!(
                    "glTF nodes[{n}] has skins[{s}] but meshes[{m}].primitives[{p}] has no JOINTS_0/WEIGHTS_0; drawn unskinned"
                )),
                (None, None) => {}
            }
        }
        out.push(Instance {
            node: n,
            mesh: m,
            skin: node.skin,
        });
    }
    if vertices > MAX_POSED_VERTICES || triangles > MAX_POSED_VERTICES {
        return Err(json_error(
            "scene",
            format!(
                "draws {vertices} vertices and {triangles} triangles, more than the limit {MAX_POSED_VERTICES}"
            ),
        ));
    }
    // What one pose allocates: vertices and faces.
    budget.charge_for(
        "scene",
        vertices * 64 + triangles * 128,
        "posed mesh (bytes)",
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variant keys are equal exactly when the values compare equal: −0 is 0, and a NaN
    /// (which equals nothing) has no key; images are the same when they share their pixels.
    #[test]
    fn variant_keys_are_equal_when_the_values_are() {
        let pixels = || {
            Arc::new(RgbaImage {
                width: 1,
                height: 1,
                pixels: vec![[1, 2, 3, 4]],
            })
        };
        let (a, b) = (pixels(), pixels());
        let shared = Arc::clone(&a);
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

    #[test]
    fn column_major_matrices_keep_translation_in_the_last_column() {
        let mut m = [0.0f32; 16];
        m[0] = 1.0;
        m[5] = 1.0;
        m[10] = 1.0;
        m[15] = 1.0;
        m[12] = 3.0;
        m[13] = 4.0;
        m[14] = 5.0;
        m[4] = 2.0; // column 1, row 0
        let a = affine_from_columns(&m);
        assert_eq!(a.point([0.0, 1.0, 0.0]), [5.0, 5.0, 5.0]);
    }
}
