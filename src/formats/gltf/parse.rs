//! The validated document → plain arrays: the node tree (one parent per node, no cycles),
//! meshes (read by `mesh.rs`), skins, animation channels with their keys, and the materials,
//! images and textures faces will sample (read by `images.rs`).

use std::collections::HashSet;
use std::path::Path;

use ::gltf::animation::Property as GProperty;

use super::accessor::Reader;
use super::images::{images, materials, variants};
use super::mesh::{read_mesh, MeshContext};
use super::source::{self, with_offset, Source};
use super::{
    json_error, Animation, Budget, Channel, GltfModel, Instance, Interpolation, Mesh, Node,
    Property, Skin, TextureRef, Trs, MAX_JOINTS, MAX_POSED_VERTICES,
};
use crate::formats::error::Result;
use crate::formats::LoadOptions;
use crate::math::Affine;

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
    let cache = opts.texture_cache.as_deref();
    let images = images(doc, &materials, (src, cache), &reader, budget, warnings)?;
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
