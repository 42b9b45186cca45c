//! What `psxrender info` says about a glTF model: one [`Facts`] structure, printed as text
//! ([`std::fmt::Display`], in `info_text.rs`) and as JSON (serde) so both always carry the same
//! facts.

use std::collections::HashMap;

use serde::Serialize;

use super::{AlphaMode, Container, GltfModel, Interpolation, Topology};
use crate::scene::Blend;
use crate::texture::{ps1_form, BlendClass, TextureDepth, LONE_TEXTURE_FRAMEBUFFER};

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

/// One buffer.
#[derive(Serialize)]
pub struct Buffer {
    /// Where its bytes came from (`GLB BIN chunk`, a file name, `data URI`).
    pub origin: String,
    /// Its length.
    pub bytes: u64,
}

/// One node, in the order `info` lists them: depth-first from the scene's roots, then any
/// tree outside the scene.
#[derive(Serialize)]
pub struct Node {
    /// Index in the file.
    pub index: usize,
    /// Depth in the tree (1 = a root).
    pub depth: usize,
    /// Name, when the file gives one.
    pub name: Option<String>,
    /// False for the nodes of a tree outside the drawn scene.
    pub in_scene: bool,
    /// Mesh drawn at the node.
    pub mesh: Option<usize>,
    /// Skin that mesh is bound to.
    pub skin: Option<usize>,
    /// Whether the file gives a matrix (rather than TRS).
    pub matrix: bool,
    /// Whether some animation channel targets it.
    pub animated: bool,
}

/// One drawable primitive.
#[derive(Serialize)]
pub struct Primitive {
    /// glTF mode: `TRIANGLES`, `TRIANGLE_STRIP` or `TRIANGLE_FAN`.
    pub topology: &'static str,
    /// Whether it has an index accessor.
    pub indexed: bool,
    /// Whether its geometry came from KHR_draco_mesh_compression.
    pub draco: bool,
    /// Vertices.
    pub vertices: usize,
    /// Triangles (degenerate ones dropped).
    pub triangles: usize,
    /// Attribute names present.
    pub attributes: Vec<String>,
    /// `from the file`, `computed smooth` or `computed flat (per face)`.
    pub normals: &'static str,
    /// Material, `None` = the glTF default material.
    pub material: Option<usize>,
    /// Morph targets (applied on the CPU).
    pub morph_targets: usize,
}

/// One mesh.
#[derive(Serialize)]
pub struct Mesh {
    /// Name.
    pub name: Option<String>,
    /// Drawable primitives.
    pub primitives: Vec<Primitive>,
    /// Points/lines primitives skipped.
    pub skipped: usize,
    /// Default morph weights.
    pub morph_weights: usize,
}

/// One skin.
#[derive(Serialize)]
pub struct Skin {
    /// Name.
    pub name: Option<String>,
    /// Joints.
    pub joints: usize,
    /// Skeleton root node, if named.
    pub skeleton: Option<usize>,
}

/// One animation.
#[derive(Serialize)]
pub struct Animation {
    /// Name (`animation N` when the file gives none).
    pub name: String,
    /// Last key time, seconds.
    pub seconds: f32,
    /// Length in frames at 30 fps.
    pub frames: u32,
    /// Channels.
    pub channels: usize,
    /// Interpolations its samplers use, sorted (`CUBICSPLINE`, `LINEAR`, `STEP`).
    pub interpolations: Vec<&'static str>,
}

/// One material.
#[derive(Serialize)]
pub struct Material {
    /// Name.
    pub name: Option<String>,
    /// `baseColorFactor`, linear RGBA.
    pub base_color: [f32; 4],
    /// `baseColorTexture`: texture index.
    pub texture: Option<usize>,
    /// The TEXCOORD set it samples.
    pub texcoord: Option<u32>,
    /// `doubleSided` (no NCLIP cull).
    pub double_sided: bool,
    /// `OPAQUE`, `MASK` or `BLEND`.
    pub alpha_mode: &'static str,
    /// `alphaCutoff`, for `MASK`.
    pub alpha_cutoff: Option<f32>,
    /// What the alpha mode becomes on the PS1.
    pub ps1_alpha: String,
}

/// The decoded image a texture shows.
#[derive(Serialize)]
pub struct Image {
    /// The image's name, when it differs from where it came from.
    pub image_name: Option<String>,
    /// Where its bytes came from (file name, `bufferViews[N]`, `data URI`).
    pub origin: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `PNG` / `JPEG`.
    pub encoding: &'static str,
}

/// How one material's use of a texture is converted (auto depth; `--depth` overrides), as
/// [`ps1_form`] converts it (what `psxrender texture` shows).
#[derive(Serialize)]
pub struct Ps1Texture {
    /// The material.
    pub material: usize,
    /// Size in texels after resampling (before any halving to fit a model's textures in VRAM).
    pub size: [u32; 2],
    /// Bits per texel: 4 or 8 (CLUT) or 15 (direct).
    pub bits: u32,
    /// Distinct 15-bit texel values before the CLUT is made.
    pub colours: usize,
}

/// One texture.
#[derive(Serialize)]
pub struct Texture {
    /// Image index.
    pub image: usize,
    /// The image, when the index names one.
    #[serde(flatten)]
    pub decoded: Option<Image>,
    /// Wrap modes (S, T) as glTF names them.
    pub wrap: [&'static str; 2],
    /// Its PS1 form per material that uses it.
    pub ps1: Vec<Ps1Texture>,
}

/// Everything `info` says about a glTF model.
#[derive(Serialize)]
pub struct Facts {
    /// "glTF".
    pub format: &'static str,
    /// `asset.version`.
    pub version: String,
    /// `binary .glb` or `JSON .gltf`.
    pub container: &'static str,
    /// `asset.generator`.
    pub generator: Option<String>,
    /// `asset.copyright`.
    pub copyright: Option<String>,
    /// Buffers.
    pub buffers: Vec<Buffer>,
    /// The scene drawn (`None`: the file names none, every root node is drawn).
    pub scene: Option<usize>,
    /// Scenes in the file.
    pub scenes: usize,
    /// Root nodes drawn.
    pub roots: usize,
    /// Nodes in the file.
    pub node_count: usize,
    /// The node tree, in listing order.
    pub nodes: Vec<Node>,
    /// Meshes.
    pub meshes: Vec<Mesh>,
    /// Skins.
    pub skins: Vec<Skin>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Textures.
    pub textures: Vec<Texture>,
    /// Nodes that draw meshes.
    pub drawn_mesh_nodes: usize,
    /// The load's memory budget, bytes.
    pub budget_limit: u64,
    /// What the load charged to it, bytes.
    pub budget_used: u64,
}

/// The nodes depth-first from the roots, then any trees outside the scene.
fn node_tree(m: &GltfModel) -> Vec<Node> {
    let mut out = Vec::new();
    let mut listed = vec![false; m.nodes.len()];
    let mut stack: Vec<(usize, usize, bool)> =
        m.roots.iter().rev().map(|&r| (r, 1, true)).collect();
    loop {
        let Some((n, depth, in_scene)) = stack.pop() else {
            match (0..m.nodes.len()).find(|&i| !listed[i] && m.nodes[i].parent.is_none()) {
                Some(r) => {
                    stack.push((r, 1, false));
                    continue;
                }
                None => break,
            }
        };
        if std::mem::replace(&mut listed[n], true) {
            continue;
        }
        let node = &m.nodes[n];
        stack.extend(
            node.children
                .iter()
                .rev()
                .map(|&c| (c, depth + 1, in_scene)),
        );
        out.push(Node {
            index: n,
            depth,
            name: node.name.clone(),
            in_scene,
            mesh: node.mesh,
            skin: node.skin,
            matrix: node.matrix.is_some(),
            animated: node.animated,
        });
    }
    out
}

impl Facts {
    /// The facts of `m`.
    pub fn of(m: &GltfModel) -> Facts {
        Facts {
            format: super::FORMAT,
            version: m.version.clone(),
            container: match &m.container {
                Container::Binary { .. } => "binary .glb",
                Container::Json => "JSON .gltf",
            },
            generator: m.generator.clone(),
            copyright: m.copyright.clone(),
            buffers: m
                .buffers
                .iter()
                .map(|(origin, bytes)| Buffer {
                    origin: origin.clone(),
                    bytes: *bytes,
                })
                .collect(),
            scene: m.scene.0,
            scenes: m.scene.1,
            roots: m.roots.len(),
            node_count: m.nodes.len(),
            nodes: node_tree(m),
            meshes: m.meshes.iter().map(Mesh::of).collect(),
            skins: m
                .skins
                .iter()
                .map(|sk| Skin {
                    name: sk.name.clone(),
                    joints: sk.joints.len(),
                    skeleton: sk.skeleton,
                })
                .collect(),
            animations: m.animations.iter().map(Animation::of).collect(),
            materials: m.materials.iter().map(Material::of).collect(),
            textures: {
                let mut forms = Ps1Forms::of(m);
                (0..m.textures.len())
                    .map(|i| Texture::of(m, i, &mut forms))
                    .collect()
            },
            drawn_mesh_nodes: m.instances.len(),
            budget_limit: m.budget.0,
            budget_used: m.budget.1,
        }
    }
}

impl Mesh {
    fn of(mesh: &super::Mesh) -> Mesh {
        Mesh {
            name: mesh.name.clone(),
            primitives: mesh.primitives.iter().map(Primitive::of).collect(),
            skipped: mesh.skipped,
            morph_weights: mesh.weights.len(),
        }
    }
}

impl Primitive {
    fn of(p: &super::Primitive) -> Primitive {
        Primitive {
            topology: match p.topology {
                Some(Topology::Triangles) | None => "TRIANGLES",
                Some(Topology::Strip) => "TRIANGLE_STRIP",
                Some(Topology::Fan) => "TRIANGLE_FAN",
            },
            indexed: p.indexed,
            draco: p.draco,
            vertices: p.positions.len(),
            triangles: p.triangles.len(),
            attributes: p.attributes.clone(),
            normals: match (&p.normals, p.normals_computed) {
                (Some(_), false) => "from the file",
                (Some(_), true) => "computed smooth",
                (None, _) => "computed flat (per face)",
            },
            material: p.material,
            morph_targets: p.targets.len(),
        }
    }
}

impl Animation {
    fn of(a: &super::Animation) -> Animation {
        let mut kinds: Vec<&'static str> = a
            .channels
            .iter()
            .map(|c| match c.interpolation {
                Interpolation::Step => "STEP",
                Interpolation::Linear => "LINEAR",
                Interpolation::CubicSpline => "CUBICSPLINE",
            })
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        Animation {
            name: a.name.clone(),
            seconds: a.duration,
            frames: a.frames(),
            channels: a.channels.len(),
            interpolations: kinds,
        }
    }
}

impl Material {
    fn of(mt: &super::Material) -> Material {
        Material {
            name: mt.name.clone(),
            base_color: mt.base_color,
            texture: mt.texture.map(|t| t.0),
            texcoord: mt.texture.map(|t| t.1),
            double_sided: mt.double_sided,
            alpha_mode: match mt.alpha {
                AlphaMode::Opaque => "OPAQUE",
                AlphaMode::Mask(_) => "MASK",
                AlphaMode::Blend => "BLEND",
            },
            alpha_cutoff: match mt.alpha {
                AlphaMode::Mask(c) => Some(c),
                _ => None,
            },
            ps1_alpha: alpha_words(mt.alpha),
        }
    }
}

impl Texture {
    /// Texture `i` of `m`, with the image it shows and its PS1 form per material.
    fn of(m: &GltfModel, i: usize, forms: &mut Ps1Forms) -> Texture {
        let t = &m.textures[i];
        Texture {
            image: t.image,
            decoded: m.images.get(t.image).map(|img| Image {
                image_name: (img.name != img.origin).then(|| img.name.clone()),
                origin: img.origin.clone(),
                width: img.size[0],
                height: img.size[1],
                encoding: img.encoding,
            }),
            wrap: t.wrap,
            ps1: forms.of_texture(m, i),
        }
    }
}

/// What `info` tells of one PS1 form: size in texels, bits per texel, distinct colours.
type Form = ([u32; 2], u32, usize);

/// The PS1 forms of a model's textures, each (variant, encoding) quantised once: materials
/// sharing a variant (images decoded from one source share theirs) share its form, so a
/// document naming one image through thousands of materials costs one quantisation.
struct Ps1Forms {
    /// The materials showing each texture, in order.
    by_texture: Vec<Vec<usize>>,
    /// Forms made, by variant and encoding; `None` when none could be made.
    made: HashMap<(usize, BlendClass), Option<Form>>,
}

impl Ps1Forms {
    fn of(m: &GltfModel) -> Ps1Forms {
        let mut by_texture = vec![Vec::new(); m.textures.len()];
        for (mi, mt) in m.materials.iter().enumerate() {
            if let Some(list) = mt.texture.and_then(|(t, _)| by_texture.get_mut(t)) {
                list.push(mi);
            }
        }
        Ps1Forms {
            by_texture,
            made: HashMap::new(),
        }
    }

    /// How each material that shows texture `i` has it quantised (auto depth).
    fn of_texture(&mut self, m: &GltfModel, i: usize) -> Vec<Ps1Texture> {
        let mut out = Vec::new();
        for &mi in &self.by_texture[i] {
            let mt = &m.materials[mi];
            let Some((vi, v)) = m.material_variant[mi].and_then(|v| Some((v, m.variants.get(v)?)))
            else {
                continue;
            };
            let class = BlendClass::from(blend_of(mt.alpha));
            let form = self.made.entry((vi, class)).or_insert_with(|| {
                // Alone beside the framebuffer, a texture (at most 256x256) is never halved.
                ps1_form(
                    std::sync::Arc::clone(v.texture.image.image()),
                    class,
                    TextureDepth::Auto,
                    LONE_TEXTURE_FRAMEBUFFER,
                )
                .ok()
                .map(|f| {
                    (
                        [f.tim.pixel_width(), u32::from(f.tim.image.height)],
                        f.bits(),
                        f.colours,
                    )
                })
            });
            let Some((size, bits, colours)) = *form else {
                continue;
            };
            out.push(Ps1Texture {
                material: mi,
                size,
                bits,
                colours,
            });
        }
        out
    }
}
