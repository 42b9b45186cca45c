//! The parsed MDL, the same for binary and ASCII files: a flat node list per geometry (parents
//! before children), controllers, meshes, animations. Coordinates are NWN's own (Z up).

/// Node flag bits (Torlack "Model Routines and Node Types"): which structures a node has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeFlags(pub u32);

impl NodeFlags {
    /// Node header (every node).
    pub const HEADER: u32 = 0x001;
    /// Light.
    pub const LIGHT: u32 = 0x002;
    /// Emitter.
    pub const EMITTER: u32 = 0x004;
    /// Reference.
    pub const REFERENCE: u32 = 0x010;
    /// Mesh header.
    pub const MESH: u32 = 0x020;
    /// Skin.
    pub const SKIN: u32 = 0x040;
    /// Animated mesh.
    pub const ANIM: u32 = 0x080;
    /// Dangly mesh.
    pub const DANGLY: u32 = 0x100;
    /// AABB walkmesh.
    pub const AABB: u32 = 0x200;
    /// Every known bit.
    pub const KNOWN: u32 = 0x3F7;

    /// The node type these flags describe, `None` for a combination the spec does not list.
    pub fn kind(self) -> Option<NodeKind> {
        Some(match self.0 {
            0x001 => NodeKind::Dummy,
            0x003 => NodeKind::Light,
            0x005 => NodeKind::Emitter,
            0x011 => NodeKind::Reference,
            0x021 => NodeKind::TriMesh,
            0x061 => NodeKind::Skin,
            0x0A1 => NodeKind::AnimMesh,
            0x121 => NodeKind::Dangly,
            0x221 => NodeKind::Aabb,
            _ => return None,
        })
    }
}

/// The nine node types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Transform only.
    Dummy,
    /// Light source (not drawn).
    Light,
    /// Particle emitter (not drawn).
    Emitter,
    /// Reference to another model (not drawn).
    Reference,
    /// Plain mesh.
    TriMesh,
    /// Mesh deformed by bone weights.
    Skin,
    /// GUI vertex-animated mesh (drawn in rest shape).
    AnimMesh,
    /// Swaying mesh (moves with its node's motion, see `formats::nwn::dangly`).
    Dangly,
    /// Walkmesh (never drawn).
    Aabb,
}

impl NodeKind {
    /// The ASCII keyword (`node trimesh …`).
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Dummy => "dummy",
            NodeKind::Light => "light",
            NodeKind::Emitter => "emitter",
            NodeKind::Reference => "reference",
            NodeKind::TriMesh => "trimesh",
            NodeKind::Skin => "skin",
            NodeKind::AnimMesh => "animmesh",
            NodeKind::Dangly => "danglymesh",
            NodeKind::Aabb => "aabb",
        }
    }

    /// Parses an ASCII keyword.
    pub fn from_name(s: &str) -> Option<NodeKind> {
        let s = s.to_ascii_lowercase();
        [
            NodeKind::Dummy,
            NodeKind::Light,
            NodeKind::Emitter,
            NodeKind::Reference,
            NodeKind::TriMesh,
            NodeKind::Skin,
            NodeKind::AnimMesh,
            NodeKind::Dangly,
            NodeKind::Aabb,
        ]
        .into_iter()
        .find(|k| k.name() == s || (s == "patch" && *k == NodeKind::TriMesh))
    }

    /// The flags word of this type.
    pub fn flags(self) -> u32 {
        match self {
            NodeKind::Dummy => 0x001,
            NodeKind::Light => 0x003,
            NodeKind::Emitter => 0x005,
            NodeKind::Reference => 0x011,
            NodeKind::TriMesh => 0x021,
            NodeKind::Skin => 0x061,
            NodeKind::AnimMesh => 0x0A1,
            NodeKind::Dangly => 0x121,
            NodeKind::Aabb => 0x221,
        }
    }

    /// True for the mesh types.
    pub fn is_mesh(self) -> bool {
        self.flags() & NodeFlags::MESH != 0
    }
}

/// Controller type numbers (Torlack's table). The same number means different things on
/// lights, emitters and meshes; only the node-independent ones are named here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControllerType(pub u32);

impl ControllerType {
    /// Position (3 columns), relative to the parent.
    pub const POSITION: ControllerType = ControllerType(8);
    /// Orientation: quaternion x, y, z, w (4 columns) in binary files.
    pub const ORIENTATION: ControllerType = ControllerType(20);
    /// Uniform scale (1 column).
    pub const SCALE: ControllerType = ControllerType(36);
    /// Mesh self-illumination colour (3 columns).
    pub const SELF_ILLUM_COLOR: ControllerType = ControllerType(100);
    /// Mesh alpha (1 column).
    pub const ALPHA: ControllerType = ControllerType(128);
    /// Emitter detonate (keyed with no data).
    pub const DETONATE: ControllerType = ControllerType(228);

    /// The controller's name for `info`, given the node type it sits on.
    pub fn name(self, kind: NodeKind) -> String {
        let n = match (self.0, kind) {
            (8, _) => "position",
            (20, _) => "orientation",
            (36, _) => "scale",
            (76, NodeKind::Light) => "color",
            (88, NodeKind::Light) => "radius",
            (96, NodeKind::Light) => "shadowradius",
            (100, NodeKind::Light) => "verticaldisplacement",
            (140, NodeKind::Light) => "multiplier",
            (n, NodeKind::Emitter) => match EMITTER_CONTROLLERS.iter().find(|e| e.0 == n) {
                Some(e) => e.1,
                None => return format!("controller{n}"),
            },
            (100, k) if k.is_mesh() => "selfillumcolor",
            (128, k) if k.is_mesh() => "alpha",
            _ => return format!("controller{}", self.0),
        };
        n.to_string()
    }
}

/// Emitter controller numbers (Torlack's table).
const EMITTER_CONTROLLERS: [(u32, &str); 45] = [
    (80, "alphaend"),
    (84, "alphastart"),
    (88, "birthrate"),
    (92, "bounce_co"),
    (96, "colorend"),
    (108, "colorstart"),
    (120, "combinetime"),
    (124, "drag"),
    (128, "fps"),
    (132, "frameend"),
    (136, "framestart"),
    (140, "grav"),
    (144, "lifeexp"),
    (148, "mass"),
    (152, "p2p_bezier2"),
    (156, "p2p_bezier3"),
    (160, "particlerot"),
    (164, "randvel"),
    (168, "sizestart"),
    (172, "sizeend"),
    (176, "sizestart_y"),
    (180, "sizeend_y"),
    (184, "spread"),
    (188, "threshold"),
    (192, "velocity"),
    (196, "xsize"),
    (200, "ysize"),
    (204, "blurlength"),
    (208, "lightningdelay"),
    (212, "lightningradius"),
    (216, "lightningscale"),
    (220, "subdivision"),
    (228, "detonate"),
    (464, "alphamid"),
    (468, "colormid"),
    (480, "percentstart"),
    (481, "percentmid"),
    (482, "percentend"),
    (484, "sizemid"),
    (488, "sizemid_y"),
    (8, "position"),
    (20, "orientation"),
    (36, "scale"),
    (100, "selfillumcolor"),
    (128, "alpha"),
];

/// Emitter flag bits (Torlack "Emitter Node" @0x144; ASCII files spell each as a keyword).
pub struct EmitterFlags;

impl EmitterFlags {
    /// Point-to-point.
    pub const P2P: u32 = 0x0001;
    /// Point-to-point type: bezier (set) or gravity.
    pub const P2P_SEL: u32 = 0x0002;
    /// Wind moves its particles.
    pub const AFFECTED_BY_WIND: u32 = 0x0004;
    /// Tinted by the scene's light.
    pub const TINTED: u32 = 0x0008;
    /// Bounces off the walkmesh.
    pub const BOUNCE: u32 = 0x0010;
    /// Random start cell of the sprite sheet.
    pub const RANDOM: u32 = 0x0020;
    /// Particles follow the emitter.
    pub const INHERIT: u32 = 0x0040;
    /// Particles inherit the emitter's velocity.
    pub const INHERIT_VEL: u32 = 0x0080;
    /// Particles stay at their spawn point's world position.
    pub const INHERIT_LOCAL: u32 = 0x0100;
    /// Splats on impact.
    pub const SPLAT: u32 = 0x0200;
    /// Inherit part (behaviour unknown).
    pub const INHERIT_PART: u32 = 0x0400;

    /// The bit an ASCII keyword sets (`inherit 1`), lower-case keyword.
    pub fn from_keyword(key: &str) -> Option<u32> {
        Some(match key {
            "p2p" => Self::P2P,
            "p2p_sel" => Self::P2P_SEL,
            "affectedbywind" => Self::AFFECTED_BY_WIND,
            "m_istinted" => Self::TINTED,
            "bounce" => Self::BOUNCE,
            "random" => Self::RANDOM,
            "inherit" => Self::INHERIT,
            "inheritvel" => Self::INHERIT_VEL,
            "inherit_local" => Self::INHERIT_LOCAL,
            "splat" => Self::SPLAT,
            "inherit_part" => Self::INHERIT_PART,
            _ => return None,
        })
    }
}

/// The emitter controller an ASCII keyword names (`birthrate`, `colorstart`, case-insensitive),
/// with its column count; position, orientation and scale are not included.
pub fn emitter_controller(key: &str) -> Option<(ControllerType, usize)> {
    let key = key.to_ascii_lowercase();
    let key = if key == "lightningsubdiv" {
        "subdivision".to_string()
    } else {
        key
    };
    EMITTER_CONTROLLERS
        .iter()
        .take_while(|e| e.0 != 8)
        .find(|e| e.1 == key && e.0 != 228)
        .map(|e| {
            let columns = if e.1.starts_with("color") { 3 } else { 1 };
            (ControllerType(e.0), columns)
        })
}

/// Emitter controller numbers by name (for readers of emitter parameters).
pub mod emitter {
    use super::ControllerType;
    /// alphaEnd.
    pub const ALPHA_END: ControllerType = ControllerType(80);
    /// alphaStart.
    pub const ALPHA_START: ControllerType = ControllerType(84);
    /// birthrate (particles a second).
    pub const BIRTHRATE: ControllerType = ControllerType(88);
    /// colorEnd.
    pub const COLOR_END: ControllerType = ControllerType(96);
    /// colorStart.
    pub const COLOR_START: ControllerType = ControllerType(108);
    /// drag.
    pub const DRAG: ControllerType = ControllerType(124);
    /// fps (sprite-sheet cells a second).
    pub const FPS: ControllerType = ControllerType(128);
    /// frameEnd.
    pub const FRAME_END: ControllerType = ControllerType(132);
    /// frameStart.
    pub const FRAME_START: ControllerType = ControllerType(136);
    /// grav (point-to-point pull).
    pub const GRAV: ControllerType = ControllerType(140);
    /// lifeExp (seconds).
    pub const LIFE_EXP: ControllerType = ControllerType(144);
    /// mass (gravity scale; negative rises).
    pub const MASS: ControllerType = ControllerType(148);
    /// particleRot (turns a second).
    pub const PARTICLE_ROT: ControllerType = ControllerType(160);
    /// randvel.
    pub const RAND_VEL: ControllerType = ControllerType(164);
    /// sizeStart.
    pub const SIZE_START: ControllerType = ControllerType(168);
    /// sizeEnd.
    pub const SIZE_END: ControllerType = ControllerType(172);
    /// sizeStart_y.
    pub const SIZE_START_Y: ControllerType = ControllerType(176);
    /// sizeEnd_y.
    pub const SIZE_END_Y: ControllerType = ControllerType(180);
    /// spread (radians, full cone angle).
    pub const SPREAD: ControllerType = ControllerType(184);
    /// velocity.
    pub const VELOCITY: ControllerType = ControllerType(192);
    /// xsize (spawn area, cm).
    pub const XSIZE: ControllerType = ControllerType(196);
    /// ysize (spawn area, cm).
    pub const YSIZE: ControllerType = ControllerType(200);
    /// blurlength.
    pub const BLUR_LENGTH: ControllerType = ControllerType(204);
    /// alphaMid.
    pub const ALPHA_MID: ControllerType = ControllerType(464);
    /// colorMid.
    pub const COLOR_MID: ControllerType = ControllerType(468);
    /// percentMid (where the middle values sit in the life).
    pub const PERCENT_MID: ControllerType = ControllerType(481);
    /// sizeMid.
    pub const SIZE_MID: ControllerType = ControllerType(484);
    /// sizeMid_y.
    pub const SIZE_MID_Y: ControllerType = ControllerType(488);
}

/// One controller: `rows` keys of `columns` values (static controllers are one key at 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Controller {
    /// What it controls.
    pub ty: ControllerType,
    /// Key times in seconds, one per row.
    pub times: Vec<f32>,
    /// Values, `rows × stride` where stride is `columns` (linear) or `3 × columns` (bezier:
    /// value, in-handle, out-handle).
    pub values: Vec<f32>,
    /// Columns per value (0 for detonate).
    pub columns: usize,
    /// Bezier keys.
    pub bezier: bool,
}

impl Controller {
    /// Values per row.
    pub fn stride(&self) -> usize {
        if self.bezier {
            self.columns * 3
        } else {
            self.columns
        }
    }

    /// The value part of row `i` (without bezier handles).
    pub fn row(&self, i: usize) -> &[f32] {
        let s = self.stride();
        &self.values[i * s..i * s + self.columns]
    }

    /// True when it has at least one full row.
    pub fn has_data(&self) -> bool {
        self.columns > 0 && !self.times.is_empty() && self.values.len() >= self.stride()
    }
}

/// Skin weights of one vertex: up to four (bone node index, weight) lanes; only positive
/// weights are kept.
pub type SkinLanes = Vec<(usize, f32)>;

/// A mesh node's geometry and material.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions in the node's space.
    pub vertices: Vec<[f32; 3]>,
    /// Vertex normals (may be empty).
    pub normals: Vec<[f32; 3]>,
    /// Texture-0 coordinates per vertex (may be empty), OpenGL orientation (v = 0 at bottom).
    pub uvs: Vec<[f32; 2]>,
    /// Triangles: vertex indices and per-corner UV indices (equal to the vertex indices in
    /// binary files; ASCII files index `tverts` separately).
    pub faces: Vec<MeshFace>,
    /// Texture names 0..3 (empty = none).
    pub textures: [String; 4],
    /// Diffuse colour.
    pub diffuse: [f32; 3],
    /// Drawn at all (AABB walkmeshes are 0).
    pub render: bool,
    /// Transparency hint.
    pub transparency_hint: u32,
    /// Skin weights per vertex (skin nodes only; same length as `vertices`).
    pub skin: Vec<SkinLanes>,
}

/// One triangle of a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshFace {
    /// Vertex indices.
    pub v: [u32; 3],
    /// UV indices.
    pub t: [u32; 3],
    /// Smoothing group / surface id.
    pub surface: u32,
}

/// What the non-mesh sub-structures of a node hold (binary files; Torlack's layouts). None of
/// it is drawn: lights, emitters and references carry no geometry, dangly meshes and
/// animmeshes are drawn in their rest shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum NodeDetail {
    /// Nothing beyond the header (or mesh).
    #[default]
    None,
    /// Light (node+0x70).
    Light {
        /// Flare radius.
        flare_radius: f32,
        /// Light priority.
        priority: u32,
        /// Ambient-only flag.
        ambient_only: bool,
        /// Casts shadows.
        shadow: bool,
    },
    /// Emitter (node+0x70). Its numeric parameters (birthrate, life, sizes, colours…) are
    /// controllers, static or keyed (see [`emitter_controller`]).
    Emitter {
        /// Update style ("Fountain", …).
        update: String,
        /// Render style ("Normal", "Billboard_to_World_Z", …).
        render: String,
        /// Blend style ("Normal", "Lighten", …).
        blend: String,
        /// Particle texture.
        texture: String,
        /// Emitter flag bits ([`EmitterFlags`]).
        flags: u32,
        /// Sprite-sheet cells across.
        xgrid: u32,
        /// Sprite-sheet cells down.
        ygrid: u32,
        /// Spawn type: 0 per second, 1 per distance travelled.
        spawntype: u32,
        /// Single-mode emitters emit again after each particle dies.
        looping: bool,
        /// Drawing order among the model's emitters (higher on top).
        renderorder: u16,
        /// Mesh particles: the chunk model's name (empty = sprites).
        chunk: String,
    },
    /// Reference to another model (node+0x70).
    Reference {
        /// The referenced model.
        model: String,
        /// Reattachable flag.
        reattachable: bool,
    },
    /// Dangly mesh (node+0x270).
    Dangly {
        /// Vertex constraints stored.
        constraints: u32,
        /// Per vertex, how free it is to sway: 0 fixed … 255 free.
        weights: Vec<f32>,
        /// Displacement.
        displacement: f32,
        /// Tightness.
        tightness: f32,
        /// Period.
        period: f32,
    },
    /// Animated mesh (node+0x270).
    AnimMesh {
        /// Seconds per vertex set.
        sample_period: f32,
        /// Vertex sets stored.
        vertex_sets: u32,
        /// Texture-vertex sets stored.
        tvert_sets: u32,
    },
}

impl NodeDetail {
    /// A one-line description for `info` (empty for `None`).
    pub fn describe(&self) -> String {
        match self {
            NodeDetail::None => String::new(),
            NodeDetail::Light {
                flare_radius,
                priority,
                ambient_only,
                shadow,
            } => format!(
                "priority {priority}, flare radius {flare_radius}, ambient only {ambient_only}, shadow {shadow}"
            ),
            NodeDetail::Emitter {
                update,
                render,
                blend,
                texture,
                flags,
                xgrid,
                ygrid,
                ..
            } => format!(
                "update {update}, render {render}, blend {blend}, texture {texture} ({xgrid}x{ygrid} cells), flags 0x{flags:x}"
            ),
            NodeDetail::Reference {
                model,
                reattachable,
            } => format!("refers to {model}, reattachable {reattachable}"),
            NodeDetail::Dangly {
                constraints,
                displacement,
                tightness,
                period,
                ..
            } => format!(
                "{constraints} constraints, displacement {displacement}, tightness {tightness}, period {period}"
            ),
            NodeDetail::AnimMesh {
                sample_period,
                vertex_sets,
                tvert_sets,
            } => format!(
                "{vertex_sets} vertex sets, {tvert_sets} uv sets, sample period {sample_period} (drawn at rest)"
            ),
        }
    }
}

/// One node of a geometry.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Name (≤ 32 bytes in binary files).
    pub name: String,
    /// Node type.
    pub kind: NodeKind,
    /// Part number.
    pub part: i32,
    /// Parent index in the same list.
    pub parent: Option<usize>,
    /// Children indices.
    pub children: Vec<usize>,
    /// Controllers.
    pub controllers: Vec<Controller>,
    /// Geometry for mesh nodes.
    pub mesh: Option<Mesh>,
    /// Light / emitter / reference / dangly / animmesh data.
    pub detail: NodeDetail,
}

impl Node {
    /// The controller of type `ty`, if it has data.
    pub fn controller(&self, ty: ControllerType) -> Option<&Controller> {
        self.controllers.iter().find(|c| c.ty == ty && c.has_data())
    }
}

/// An animation: its own node tree of keyed controllers.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// Name.
    pub name: String,
    /// Length in seconds.
    pub length: f32,
    /// Blend-in time in seconds.
    pub transtime: f32,
    /// Node the animation is rooted at.
    pub root: String,
    /// Events `(time, name)`.
    pub events: Vec<(f32, String)>,
    /// Nodes, parents first.
    pub nodes: Vec<Node>,
}

/// A whole model file.
#[derive(Clone, Debug, PartialEq)]
pub struct Mdl {
    /// Model name.
    pub name: String,
    /// Supermodel name (`None` for "NULL"/empty).
    pub supermodel: Option<String>,
    /// Classification byte (1 effect, 2 tile, 4 character, 8 door).
    pub classification: u8,
    /// Animation scale.
    pub animation_scale: f32,
    /// The geometry header's node count (binary: includes the supermodel's nodes + 1 when
    /// there is one; ASCII: the nodes read).
    pub header_node_count: u32,
    /// Geometry nodes, parents first; index 0 is the root.
    pub nodes: Vec<Node>,
    /// Animations stored in this file.
    pub animations: Vec<Animation>,
    /// True for an ASCII source.
    pub ascii: bool,
}

/// A model read with its animations' node trees left in the file.
pub struct Outline {
    /// The model; its animations' `nodes` are empty unless their [`Body`] is `Parsed`.
    pub mdl: Mdl,
    /// Per animation of `mdl`, where its node tree is.
    pub bodies: Vec<Body>,
    /// Bytes of the read budget the outline used (a later read of a tree goes on from it).
    pub budget_used: u64,
}

/// Where an animation's node tree is.
#[derive(Clone, Debug)]
pub enum Body {
    /// Already read (into the animation's `nodes`).
    Parsed,
    /// In a binary file: the animation pointer (where it lies and what it holds).
    Binary {
        /// Where the pointer lies.
        at: u64,
        /// Its value.
        raw: u32,
    },
}

/// Classification byte in words.
pub fn classification_name(c: u8) -> &'static str {
    match c {
        0 => "other",
        1 => "effect",
        2 => "tile",
        4 => "character",
        8 => "door",
        _ => "unknown",
    }
}

/// A name field that means "none".
pub fn is_null_name(s: &str) -> bool {
    s.is_empty() || s.eq_ignore_ascii_case("null")
}
