//! What `psxrender info` says about a NWN model: one [`Facts`] structure, printed as text
//! ([`std::fmt::Display`]) and as JSON (serde) so both always carry the same facts.

use std::fmt;

use serde::Serialize;

use super::mdl::{classification_name, NodeKind};
use super::NWNModel;

/// A model of the supermodel chain.
#[derive(Serialize)]
pub struct Link {
    /// Model name.
    pub name: String,
    /// File loaded; `None` = MISSING.
    pub file: Option<String>,
}

/// A node's mesh.
#[derive(Serialize)]
pub struct Mesh {
    /// Vertices.
    pub vertices: usize,
    /// Faces.
    pub faces: usize,
    /// Texture 0's resref, if any.
    pub texture: Option<String>,
    /// Drawn (render flag set, not a walkmesh).
    pub drawn: bool,
    /// Bones a skin is bound to (0 = not a skin).
    pub skin_bones: usize,
}

/// One node, in tree order (pre-order, children in file order).
#[derive(Serialize)]
pub struct Node {
    /// Depth in the tree (1 = a root).
    pub depth: usize,
    /// Node kind (trimesh, skin, light, …).
    pub kind: String,
    /// Name.
    pub name: String,
    /// Part number.
    pub part: i32,
    /// Mesh facts, for mesh nodes.
    pub mesh: Option<Mesh>,
    /// Kind-specific detail (lights, emitters), as text.
    pub detail: String,
    /// Controllers keyed on the node.
    pub controllers: Vec<String>,
}

/// One texture.
#[derive(Serialize)]
pub struct Texture {
    /// Resref.
    pub name: String,
    /// File used; `None` = MISSING.
    pub file: Option<String>,
    /// Decoded width.
    pub width: u32,
    /// Decoded height.
    pub height: u32,
}

/// One playable animation.
#[derive(Serialize)]
pub struct Animation {
    /// Name.
    pub name: String,
    /// Length in seconds.
    pub seconds: f32,
    /// Length in frames at 30 fps.
    pub frames: u32,
    /// Nodes it keys.
    pub nodes: usize,
    /// Model it comes from.
    pub from: String,
}

/// Everything `info` says about a NWN model.
#[derive(Serialize)]
pub struct Facts {
    /// "NWN MDL".
    pub format: &'static str,
    /// "ASCII" or "binary".
    pub encoding: &'static str,
    /// Model name.
    pub name: String,
    /// Classification.
    pub classification: &'static str,
    /// Animation scale.
    pub animation_scale: f32,
    /// Supermodel chain, nearest first.
    pub supermodels: Vec<Link>,
    /// Nodes in the tree.
    pub node_count: usize,
    /// The header's node count.
    pub header_node_count: u32,
    /// Drawn meshes.
    pub drawn_meshes: usize,
    /// Their vertices.
    pub drawn_vertices: usize,
    /// Their faces.
    pub drawn_faces: usize,
    /// The node tree.
    pub nodes: Vec<Node>,
    /// Textures, in first-use order.
    pub textures: Vec<Texture>,
    /// Animations: the model's own, then each supermodel's.
    pub animations: Vec<Animation>,
    /// Emitters drawn, with their rest values.
    pub emitters: Vec<crate::effects::Summary>,
    /// Light nodes with their rest colour, multiplier and radius.
    pub lights: Vec<String>,
}

impl Facts {
    /// The facts of `model`.
    pub fn of(model: &NWNModel) -> Facts {
        let m = &model.mdl;
        let (drawn_meshes, drawn_vertices, drawn_faces) = model.drawn_counts();
        let mut nodes = Vec::new();
        let mut stack: Vec<(usize, usize)> = (0..m.nodes.len())
            .rev()
            .filter(|&i| m.nodes[i].parent.is_none())
            .map(|i| (i, 1))
            .collect();
        while let Some((i, depth)) = stack.pop() {
            let n = &m.nodes[i];
            nodes.push(Node {
                depth,
                kind: n.kind.name().to_string(),
                name: n.name.clone(),
                part: n.part,
                mesh: n.mesh.as_ref().map(|mesh| Mesh {
                    vertices: mesh.vertices.len(),
                    faces: mesh.faces.len(),
                    texture: (!mesh.textures[0].is_empty()).then(|| mesh.textures[0].clone()),
                    drawn: mesh.render && n.kind != NodeKind::Aabb,
                    skin_bones: {
                        let mut bones: Vec<usize> =
                            mesh.skin.iter().flatten().map(|l| l.0).collect();
                        bones.sort_unstable();
                        bones.dedup();
                        bones.len()
                    },
                }),
                detail: n.detail.describe(),
                controllers: n.controllers.iter().map(|c| c.ty.name(n.kind)).collect(),
            });
            for &c in n.children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        Facts {
            format: "NWN MDL",
            encoding: if m.ascii { "ASCII" } else { "binary" },
            name: m.name.clone(),
            classification: classification_name(m.classification),
            animation_scale: m.animation_scale,
            supermodels: model
                .chain
                .iter()
                .map(|c| Link {
                    name: c.name.clone(),
                    file: c.path.as_ref().map(|p| p.display().to_string()),
                })
                .collect(),
            node_count: m.nodes.len(),
            header_node_count: m.header_node_count,
            drawn_meshes,
            drawn_vertices,
            drawn_faces,
            nodes,
            textures: model
                .textures
                .iter()
                .map(|t| Texture {
                    name: t.name.clone(),
                    file: t.path.as_ref().map(|p| p.display().to_string()),
                    width: t.image.width,
                    height: t.image.height,
                })
                .collect(),
            animations: model
                .animations
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let an = &a.animation;
                    Animation {
                        name: an.name.clone(),
                        seconds: an.length,
                        frames: (an.length * 30.0).round().max(1.0) as u32,
                        nodes: model.keyed(i).map_or(0, |k| k.nodes.len()),
                        from: a.source.clone(),
                    }
                })
                .collect(),
            emitters: {
                let names: Vec<String> = model.textures.iter().map(|t| t.name.clone()).collect();
                model
                    .emitters
                    .iter()
                    .map(|(node, def)| {
                        let src = super::effects::AnimatedNode::new(model, *node, None);
                        crate::effects::Summary {
                            chunk: model.chunk(*node).map(|c| c.name.clone()),
                            ..crate::effects::Summary::of(def, &src, &names)
                        }
                    })
                    .collect()
            },
            lights: super::effects::light_lines(model),
        }
    }
}

impl fmt::Display for Facts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "NWN MDL ({}) model '{}', classification {}, animation scale {}",
            self.encoding, self.name, self.classification, self.animation_scale
        )?;
        let mut chain = vec![self.name.clone()];
        for c in &self.supermodels {
            chain.push(match &c.file {
                Some(p) => format!("{} ({p})", c.name),
                None => format!("{} (MISSING)", c.name),
            });
        }
        writeln!(f, "supermodel chain: {}", chain.join(" -> "))?;
        writeln!(
            f,
            "nodes: {} in the tree, header count {} ({} drawn meshes, {} vertices, {} faces)",
            self.node_count,
            self.header_node_count,
            self.drawn_meshes,
            self.drawn_vertices,
            self.drawn_faces
        )?;
        for n in &self.nodes {
            write!(
                f,
                "{:indent$}{} '{}' part {}",
                "",
                n.kind,
                n.name,
                n.part,
                indent = n.depth * 2
            )?;
            if let Some(mesh) = &n.mesh {
                write!(f, ": {} verts, {} faces", mesh.vertices, mesh.faces)?;
                if let Some(t) = &mesh.texture {
                    write!(f, ", texture {t}")?;
                }
                if !mesh.drawn {
                    write!(f, " (not drawn)")?;
                }
                if mesh.skin_bones > 0 {
                    write!(f, ", skinned to {} bones", mesh.skin_bones)?;
                }
            }
            if !n.detail.is_empty() {
                write!(f, " ({})", n.detail)?;
            }
            if !n.controllers.is_empty() {
                write!(f, " [{}]", n.controllers.join(", "))?;
            }
            writeln!(f)?;
        }
        writeln!(f, "textures: {}", self.textures.len())?;
        for t in &self.textures {
            match &t.file {
                Some(p) => writeln!(f, "  {} -> {p} ({}x{})", t.name, t.width, t.height)?,
                None => writeln!(f, "  {} -> MISSING", t.name)?,
            }
        }
        writeln!(f, "animations: {}", self.animations.len())?;
        for a in &self.animations {
            writeln!(
                f,
                "  {}: {:.3} s ({} frames), {} nodes, from {}",
                a.name, a.seconds, a.frames, a.nodes, a.from
            )?;
        }
        writeln!(f, "lights: {}", self.lights.len())?;
        for l in &self.lights {
            writeln!(f, "  {l}")?;
        }
        writeln!(f, "emitters drawn: {}", self.emitters.len())?;
        for e in &self.emitters {
            writeln!(f, "  {e}")?;
        }
        Ok(())
    }
}
