//! The text `psxrender info` prints for a glTF model.

use std::fmt::Write;

use super::{AlphaMode, Container, GltfModel, Topology};
use crate::render::texture::{plan, BlendClass, TextureDepth};
use crate::scene::Blend;

/// Most node lines listed (a scene of thousands of nodes is summarised after these).
const MAX_NODE_LINES: usize = 200;

/// What an alpha mode becomes on the PS1.
pub fn alpha_words(a: AlphaMode) -> String {
    match a {
        AlphaMode::Opaque => "OPAQUE -> solid".into(),
        AlphaMode::Mask(c) => format!(
            "MASK (cutoff {c}) -> transparent texels (CLUT/texel 0x0000) where alpha < cutoff; untextured faces dropped below it"
        ),
        AlphaMode::Blend => "BLEND -> PS1 semi-transparency mode 0 (B/2+F/2) on texels with partial alpha (STP bit), solid from alpha 240/255, clear below 16/255".into(),
    }
}

fn blend_of(a: AlphaMode) -> Blend {
    match a {
        AlphaMode::Opaque => Blend::Opaque,
        AlphaMode::Mask(_) => Blend::Cutout,
        AlphaMode::Blend => Blend::Alpha,
    }
}

/// Container, scene, node tree, meshes, skins, animations, materials and textures.
pub fn info(m: &GltfModel) -> String {
    let mut s = String::new();
    let container = match &m.container {
        Container::Binary { .. } => "binary .glb",
        Container::Json => "JSON .gltf",
    };
    let _ = writeln!(s, "format: glTF {} ({container})", m.version);
    if let Some(g) = &m.generator {
        let _ = writeln!(s, "generator: {g}");
    }
    if let Some(c) = &m.copyright {
        let _ = writeln!(s, "copyright: {c}");
    }
    let _ = writeln!(s, "buffers: {}", m.buffers.len());
    for (i, (origin, len)) in m.buffers.iter().enumerate() {
        let _ = writeln!(s, "  [{i}] {origin}, {len} bytes");
    }
    match m.scene.0 {
        Some(i) => {
            let _ = writeln!(
                s,
                "scene: {i} of {} ({} root nodes)",
                m.scene.1,
                m.roots.len()
            );
        }
        None => {
            let _ = writeln!(
                s,
                "scene: none given; drawing the {} root nodes",
                m.roots.len()
            );
        }
    }
    let _ = writeln!(s, "nodes: {}", m.nodes.len());
    // Depth-first from the roots, then any nodes outside the scene.
    let mut listed = vec![false; m.nodes.len()];
    let mut stack: Vec<(usize, usize)> = m.roots.iter().rev().map(|&r| (r, 1)).collect();
    let mut lines = 0;
    let mut extra = Vec::new();
    loop {
        let Some((n, depth)) = stack.pop() else {
            match (0..m.nodes.len()).find(|&i| !listed[i] && m.nodes[i].parent.is_none()) {
                Some(r) => {
                    extra.push(r);
                    stack.push((r, 1));
                    continue;
                }
                None => break,
            }
        };
        if std::mem::replace(&mut listed[n], true) {
            continue;
        }
        let node = &m.nodes[n];
        stack.extend(node.children.iter().rev().map(|&c| (c, depth + 1)));
        lines += 1;
        if lines > MAX_NODE_LINES {
            continue;
        }
        let mut line = format!(
            "{:indent$}[{n}] {}",
            "",
            node.name.as_deref().unwrap_or("(unnamed)"),
            indent = depth * 2
        );
        if extra.contains(&n) {
            line.push_str(" (not in the scene)");
        }
        if let Some(me) = node.mesh {
            let _ = write!(line, " mesh {me}");
        }
        if let Some(sk) = node.skin {
            let _ = write!(line, " skin {sk}");
        }
        if node.matrix.is_some() {
            line.push_str(" matrix");
        }
        if node.animated {
            line.push_str(" animated");
        }
        let _ = writeln!(s, "{line}");
    }
    if lines > MAX_NODE_LINES {
        let _ = writeln!(s, "  ... {} more nodes", lines - MAX_NODE_LINES);
    }
    let _ = writeln!(s, "meshes: {}", m.meshes.len());
    for (i, mesh) in m.meshes.iter().enumerate() {
        let _ = writeln!(
            s,
            "  [{i}] {}: {} primitives{}{}",
            mesh.name.as_deref().unwrap_or("(unnamed)"),
            mesh.primitives.len(),
            match mesh.skipped {
                0 => String::new(),
                n => format!(" ({n} points/lines primitives skipped)"),
            },
            match mesh.weights.len() {
                0 => String::new(),
                n => format!(", {n} morph weights"),
            }
        );
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let topo = match prim.topology {
                Some(Topology::Triangles) | None => "TRIANGLES",
                Some(Topology::Strip) => "TRIANGLE_STRIP",
                Some(Topology::Fan) => "TRIANGLE_FAN",
            };
            let normals = match (&prim.normals, prim.normals_computed) {
                (Some(_), false) => "from the file",
                (Some(_), true) => "computed smooth",
                (None, _) => "computed flat (per face)",
            };
            let _ = writeln!(
                s,
                "    primitive {p}: {topo}{}{}, {} vertices, {} triangles, attributes {}; normals {normals}; material {}{}",
                if prim.indexed { " indexed" } else { " not indexed" },
                if prim.draco { " (Draco)" } else { "" },
                prim.positions.len(),
                prim.triangles.len(),
                prim.attributes.join(" "),
                prim.material.map_or("default".into(), |i| i.to_string()),
                match prim.targets.len() {
                    0 => String::new(),
                    n => format!(", {n} morph targets (applied on the CPU)"),
                }
            );
        }
    }
    let _ = writeln!(s, "skins: {}", m.skins.len());
    for (i, sk) in m.skins.iter().enumerate() {
        let _ = writeln!(
            s,
            "  [{i}] {}: {} joints{}",
            sk.name.as_deref().unwrap_or("(unnamed)"),
            sk.joints.len(),
            sk.skeleton
                .map_or(String::new(), |r| format!(", skeleton root node {r}"))
        );
    }
    let _ = writeln!(s, "animations: {}", m.animations.len());
    for (i, a) in m.animations.iter().enumerate() {
        let mut kinds: Vec<&str> = a
            .channels
            .iter()
            .map(|c| match c.interpolation {
                super::Interpolation::Step => "STEP",
                super::Interpolation::Linear => "LINEAR",
                super::Interpolation::CubicSpline => "CUBICSPLINE",
            })
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        let _ = writeln!(
            s,
            "  [{i}] {:<16} {:>8.3} s  {:>5} frames  {} channels ({})",
            a.name,
            a.duration,
            a.frames(),
            a.channels.len(),
            kinds.join(", ")
        );
    }
    let _ = writeln!(s, "materials: {}", m.materials.len());
    for (i, mt) in m.materials.iter().enumerate() {
        let f = mt.base_color;
        let _ = writeln!(
            s,
            "  [{i}] {}: baseColorFactor [{:.3}, {:.3}, {:.3}, {:.3}]{}, {}, {}",
            mt.name.as_deref().unwrap_or("(unnamed)"),
            f[0],
            f[1],
            f[2],
            f[3],
            mt.texture.map_or(String::new(), |(t, set)| format!(
                " x texture {t} (TEXCOORD_{set})"
            )),
            if mt.double_sided {
                "double-sided (no NCLIP cull)"
            } else {
                "single-sided (back faces culled by NCLIP)"
            },
            alpha_words(mt.alpha)
        );
    }
    let _ = writeln!(s, "textures: {}", m.textures.len());
    for (i, t) in m.textures.iter().enumerate() {
        let Some(img) = m.images.get(t.image) else {
            continue;
        };
        let im = &img.texture.image;
        let named = if img.name == img.origin {
            String::new()
        } else {
            format!(" '{}'", img.name)
        };
        let _ = writeln!(
            s,
            "  [{i}] image {}{named} from {} ({}x{} {}), wrap {}/{}",
            t.image, img.origin, im.width, im.height, img.encoding, t.wrap[0], t.wrap[1]
        );
        // How each material's use of it is quantised (auto depth; --depth 4|8|15 overrides).
        for (mi, mt) in m.materials.iter().enumerate() {
            if mt.texture.map(|x| x.0) != Some(i) {
                continue;
            }
            let Some(v) = m.material_variant[mi].and_then(|v| m.variants.get(v)) else {
                continue;
            };
            let p = plan(
                &v.texture.image,
                BlendClass::from(blend_of(mt.alpha)),
                TextureDepth::Auto,
            );
            let how = match p.bits {
                4 => format!("4bpp, 16-colour CLUT ({} distinct texels)", p.colours),
                8 if p.colours > 256 => format!(
                    "8bpp, 256-colour CLUT (median cut of {} distinct texels)",
                    p.colours
                ),
                8 => format!("8bpp, 256-colour CLUT ({} distinct texels)", p.colours),
                _ => "15bpp direct".into(),
            };
            let _ = writeln!(
                s,
                "      material {mi}: -> {}x{} {how}",
                p.size[0], p.size[1]
            );
        }
    }
    let _ = writeln!(
        s,
        "drawn: {} mesh nodes; load budget {} of {} bytes",
        m.instances.len(),
        m.budget.1,
        m.budget.0
    );
    s
}
