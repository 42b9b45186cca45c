//! The text form of `psxrender info` for a glTF model: [`Facts`] laid out as lines (the JSON
//! form is its serde serialisation, in `info.rs`).

use std::fmt;

use super::info::Facts;

/// Most node lines the text lists (a scene of thousands of nodes is summarised after these;
/// the JSON lists them all).
const MAX_NODE_LINES: usize = 200;

fn or_unnamed(name: &Option<String>) -> &str {
    name.as_deref().unwrap_or("(unnamed)")
}

impl fmt::Display for Facts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_asset(f)?;
        self.fmt_nodes(f)?;
        self.fmt_meshes(f)?;
        writeln!(f, "skins: {}", self.skins.len())?;
        for (i, sk) in self.skins.iter().enumerate() {
            write!(f, "  [{i}] {}: {} joints", or_unnamed(&sk.name), sk.joints)?;
            if let Some(r) = sk.skeleton {
                write!(f, ", skeleton root node {r}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "animations: {}", self.animations.len())?;
        for (i, a) in self.animations.iter().enumerate() {
            writeln!(
                f,
                "  [{i}] {:<16} {:>8.3} s  {:>5} frames  {} channels ({})",
                a.name,
                a.seconds,
                a.frames,
                a.channels,
                a.interpolations.join(", ")
            )?;
        }
        self.fmt_materials(f)?;
        self.fmt_textures(f)?;
        writeln!(
            f,
            "drawn: {} mesh nodes; load budget {} of {} bytes",
            self.drawn_mesh_nodes, self.budget_used, self.budget_limit
        )
    }
}

impl Facts {
    /// The asset's version, generator and copyright, its buffers and the scene drawn.
    fn fmt_asset(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "format: glTF {} ({})", self.version, self.container)?;
        if let Some(g) = &self.generator {
            writeln!(f, "generator: {g}")?;
        }
        if let Some(c) = &self.copyright {
            writeln!(f, "copyright: {c}")?;
        }
        writeln!(f, "buffers: {}", self.buffers.len())?;
        for (i, b) in self.buffers.iter().enumerate() {
            writeln!(f, "  [{i}] {}, {} bytes", b.origin, b.bytes)?;
        }
        match self.scene {
            Some(i) => writeln!(
                f,
                "scene: {i} of {} ({} root nodes)",
                self.scenes, self.roots
            ),
            None => writeln!(
                f,
                "scene: none given; drawing the {} root nodes",
                self.roots
            ),
        }
    }

    /// The node tree, one indented line a node, at most [`MAX_NODE_LINES`].
    fn fmt_nodes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "nodes: {}", self.node_count)?;
        for n in self.nodes.iter().take(MAX_NODE_LINES) {
            write!(
                f,
                "{:indent$}[{}] {}",
                "",
                n.index,
                or_unnamed(&n.name),
                indent = n.depth * 2
            )?;
            // Said once, at the root of each tree outside the scene.
            if !n.in_scene && n.depth == 1 {
                f.write_str(" (not in the scene)")?;
            }
            if let Some(me) = n.mesh {
                write!(f, " mesh {me}")?;
            }
            if let Some(sk) = n.skin {
                write!(f, " skin {sk}")?;
            }
            if n.matrix {
                f.write_str(" matrix")?;
            }
            if n.animated {
                f.write_str(" animated")?;
            }
            writeln!(f)?;
        }
        if self.nodes.len() > MAX_NODE_LINES {
            writeln!(f, "  ... {} more nodes", self.nodes.len() - MAX_NODE_LINES)?;
        }
        Ok(())
    }

    fn fmt_meshes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "meshes: {}", self.meshes.len())?;
        for (i, mesh) in self.meshes.iter().enumerate() {
            write!(
                f,
                "  [{i}] {}: {} primitives",
                or_unnamed(&mesh.name),
                mesh.primitives.len()
            )?;
            if mesh.skipped > 0 {
                write!(f, " ({} points/lines primitives skipped)", mesh.skipped)?;
            }
            if mesh.morph_weights > 0 {
                write!(f, ", {} morph weights", mesh.morph_weights)?;
            }
            writeln!(f)?;
            for (p, prim) in mesh.primitives.iter().enumerate() {
                write!(
                    f,
                    "    primitive {p}: {}{}{}, {} vertices, {} triangles, attributes {}; normals {}; material {}",
                    prim.topology,
                    if prim.indexed { " indexed" } else { " not indexed" },
                    if prim.draco { " (Draco)" } else { "" },
                    prim.vertices,
                    prim.triangles,
                    prim.attributes.join(" "),
                    prim.normals,
                    prim.material.map_or("default".into(), |i| i.to_string()),
                )?;
                if prim.morph_targets > 0 {
                    write!(
                        f,
                        ", {} morph targets (applied on the CPU)",
                        prim.morph_targets
                    )?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }

    fn fmt_materials(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "materials: {}", self.materials.len())?;
        for (i, mt) in self.materials.iter().enumerate() {
            let c = mt.base_color;
            write!(
                f,
                "  [{i}] {}: baseColorFactor [{:.3}, {:.3}, {:.3}, {:.3}]",
                or_unnamed(&mt.name),
                c[0],
                c[1],
                c[2],
                c[3]
            )?;
            if let (Some(t), Some(set)) = (mt.texture, mt.texcoord) {
                write!(f, " x texture {t} (TEXCOORD_{set})")?;
            }
            writeln!(
                f,
                ", {}, {}",
                if mt.double_sided {
                    "double-sided (no NCLIP cull)"
                } else {
                    "single-sided (back faces culled by NCLIP)"
                },
                mt.ps1_alpha
            )?;
        }
        Ok(())
    }

    /// Each texture's image and, per material that shows it, its PS1 form.
    fn fmt_textures(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "textures: {}", self.textures.len())?;
        for (i, t) in self.textures.iter().enumerate() {
            let Some(img) = &t.decoded else {
                continue;
            };
            let named = img
                .image_name
                .as_ref()
                .map_or(String::new(), |n| format!(" '{n}'"));
            writeln!(
                f,
                "  [{i}] image {}{named} from {} ({}x{} {}), wrap {}/{}",
                t.image, img.origin, img.width, img.height, img.encoding, t.wrap[0], t.wrap[1]
            )?;
            for p in &t.ps1 {
                let how = match p.bits {
                    4 => format!("4bpp, 16-colour CLUT ({} distinct texels)", p.colours),
                    8 if p.colours > 256 => format!(
                        "8bpp, 256-colour CLUT (median cut of {} distinct texels)",
                        p.colours
                    ),
                    8 => format!("8bpp, 256-colour CLUT ({} distinct texels)", p.colours),
                    _ => "15bpp direct".into(),
                };
                writeln!(
                    f,
                    "      material {}: -> {}x{} {how}",
                    p.material, p.size[0], p.size[1]
                )?;
            }
        }
        Ok(())
    }
}
