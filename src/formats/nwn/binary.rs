//! Binary MDL parser (source: Torlack's binmdl spec, the CC0 NWN1MDL.bt template,
//! format-notes §2.1; every offset below was checked against the samples).
//!
//! File = 12-byte header `{u32 0, u32 model size, u32 raw size}`, model data from byte 12,
//! raw data right after it. Model-data pointers are offsets from byte 12 (0 = null); raw-data
//! pointers are offsets from the raw section (0xFFFFFFFF = null). Arrays are
//! `{u32 ptr, u32 used, u32 allocated}`. The first words of headers and nodes are stale
//! function pointers and are ignored; the node type comes from the flags word at node+0x6C.
//! A structure or array a pointer leads past the end of the file is reported at the pointer's
//! own byte (`Ptr`), the word a repair must change.

use super::mdl::{
    is_null_name, Animation, Body, Controller, ControllerType, Mdl, Mesh, MeshFace, Node,
    NodeDetail, NodeFlags, NodeKind, Outline, SkinLanes,
};
use crate::formats::error::{ErrorKind, LoadError, Result};
use crate::formats::reader::Reader;
use crate::read::budget::{self, ReadBudget};

/// Format name in errors.
pub const FORMAT: &str = "NWN MDL";

/// Most nodes accepted in one geometry (a visited-node budget: also stops pointer cycles).
pub const MAX_NODES: usize = 4096;
/// Most animations per model.
pub const MAX_ANIMATIONS: u64 = 1024;
/// Most children of one node.
pub const MAX_CHILDREN: u64 = 1024;
/// Most controllers on one node.
pub const MAX_CONTROLLERS: u64 = 1024;
/// Most controller floats on one node.
pub const MAX_CONTROLLER_FLOATS: u64 = 1 << 20;
/// Most faces in one mesh.
pub const MAX_FACES: u64 = 1 << 20;
/// Most dangly-mesh constraints on one node (one per vertex; vertex counts are 16-bit).
pub const MAX_CONSTRAINTS: u64 = 1 << 16;
/// Most events per animation.
pub const MAX_EVENTS: u64 = 4096;
/// Deepest node tree.
pub const MAX_DEPTH: usize = 256;

/// Start of model data in the file.
const MODEL_BASE: u64 = 12;
/// Null raw-data pointer.
const RAW_NULL: u32 = 0xFFFF_FFFF;
/// Skin bone slots (`bone_parts[17]`).
const SKIN_SLOTS: usize = 17;

struct Bin<'a> {
    r: Reader<'a>,
    raw_base: u64,
    warnings: Vec<String>,
    /// Bytes of arrays the model may read: shared subtrees (several pointers to one node or
    /// mesh) must not multiply the memory a small file costs.
    budget: ReadBudget,
}

/// A node's skin lanes as (bone part number, weight) before the part numbers are resolved.
type PendingSkin = (usize, Vec<Vec<(i32, f32)>>);

/// A pointer read from the file, kept so that whatever it leads to past the end of the file is
/// reported where the pointer itself lies: the pointer is what a repair must change, and the
/// place it leads to may be gigabytes past a file of a few kilobytes.
#[derive(Clone, Copy)]
struct Ptr {
    /// What the pointer is ("root node pointer").
    name: &'static str,
    /// Where it was read.
    at: u64,
    /// Its value as stored.
    raw: u32,
    /// Where in the file the section it counts from starts.
    base: u64,
}

impl Ptr {
    /// A model-data pointer (counted from byte 12).
    fn model(name: &'static str, at: u64, raw: u32) -> Self {
        Ptr {
            name,
            at,
            raw,
            base: MODEL_BASE,
        }
    }

    /// Where it leads in the file.
    fn target(&self) -> u64 {
        self.base + u64::from(self.raw)
    }
}

impl<'a> Bin<'a> {
    /// The model-data pointer named `what` at `at`; `None` for null.
    fn model_ptr(&self, at: u64, what: &'static str) -> Result<Option<Ptr>> {
        let p = self.r.u32_at(at, what)?;
        Ok((p != 0).then_some(Ptr::model(what, at, p)))
    }

    /// The raw-data pointer named `what` at `at`; `None` for null.
    fn raw_ptr(&self, at: u64, what: &'static str) -> Result<Option<Ptr>> {
        let p = self.r.u32_at(at, what)?;
        Ok((p != RAW_NULL).then_some(Ptr {
            name: what,
            at,
            raw: p,
            base: self.raw_base,
        }))
    }

    /// The error for `what` (`size`, in words) at `rel` bytes past where `p` leads, running past
    /// the end of the file: reported at the pointer's own byte, with the sum that led there;
    /// `note` adds what else the reader should look at.
    fn past_end(&self, p: Ptr, rel: u64, what: &str, size: &str, note: &str) -> LoadError {
        let section = if p.base == MODEL_BASE {
            "model data"
        } else {
            "raw data"
        };
        let field = if rel == 0 {
            String::new()
        } else {
            format!(" + 0x{rel:x}")
        };
        let via = if p.name == what {
            "its pointer".to_string()
        } else {
            format!("the {}", p.name)
        };
        self.r.invalid(
            p.at,
            format!(
                "past the end of the {}-byte file: {what} ({size} at byte 0x{:x} = {section} \
                 0x{:x} + pointer 0x{:x}{field}{note}), reached through {via}",
                self.r.len(),
                p.target() + rel,
                p.base,
                p.raw,
            ),
        )
    }

    /// Reads the structure `p` leads to with `read`. Every pointer to a structure is followed
    /// through here, so that a field of the structure running past the end of the file is
    /// reported at the pointer (see [`Ptr`]). Errors of nested structures arrive already
    /// reported at their own pointers and pass through unchanged.
    fn follow<T>(&mut self, p: Ptr, read: impl FnOnce(&mut Self, u64) -> Result<T>) -> Result<T> {
        let target = p.target();
        read(self, target).map_err(|e| match e.kind {
            ErrorKind::UnexpectedEof { what, len } if e.offset >= target => {
                self.past_end(p, e.offset - target, what, &format!("{len} bytes"), "")
            }
            _ => e,
        })
    }

    /// `count × size` bytes where `p` leads (`count` read at `count_at`), checked against the
    /// file and charged to the budget. Every array is taken through here, so that one running
    /// past the end is reported at its pointer (see [`Ptr`]), naming where the count lies too:
    /// either may be the word that is wrong.
    fn slice(
        &self,
        p: Ptr,
        count: u64,
        count_at: u64,
        size: u64,
        what: &'static str,
    ) -> Result<&'a [u8]> {
        let bytes = self
            .r
            .array(p.at, p.target(), count, size, what)
            .map_err(|_| {
                let size = format!("{count} × {size} bytes");
                let note = format!("; the count is at byte 0x{count_at:x}");
                self.past_end(p, 0, what, &size, &note)
            })?;
        self.budget.charge(p.at, bytes.len() as u64, what)?;
        Ok(bytes)
    }

    /// An array header at `at`: the bytes of `count × size` elements, checked before use.
    fn array(&self, at: u64, size: u64, max: u64, what: &'static str) -> Result<(&'a [u8], u64)> {
        let count = u64::from(self.r.u32_at(at + 4, what)?);
        if count == 0 {
            return Ok((&[], 0));
        }
        self.r.check_count(at + 4, count, max, what)?;
        let Some(p) = self.model_ptr(at, what)? else {
            return Err(self
                .r
                .invalid(at, format!("{what}: {count} entries at a null pointer")));
        };
        Ok((self.slice(p, count, at + 4, size, what)?, p.target()))
    }

    fn name(&self, at: u64, len: u64, what: &'static str) -> Result<String> {
        let b = self.r.bytes(at, len, what)?;
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Ok(String::from_utf8_lossy(&b[..end]).trim().to_string())
    }
}

fn f32s(b: &[u8]) -> impl Iterator<Item = f32> + '_ {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

fn vec3s(b: &[u8]) -> Vec<[f32; 3]> {
    let v: Vec<f32> = f32s(b).collect();
    v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// Parses a binary MDL. Problems that leave the model usable (skin lanes naming unknown bones)
/// are pushed to `warnings`.
pub fn parse(data: &[u8], warnings: &mut Vec<String>) -> Result<Mdl> {
    Ok(read(data, warnings, true)?.mdl)
}

/// [`parse`] without the animations' node trees: their headers (name, length, events) are
/// read, their trees left where [`Body::Binary`] says for [`animation_nodes`] to read when the
/// animation is drawn.
pub fn outline(data: &[u8], warnings: &mut Vec<String>) -> Result<Outline> {
    read(data, warnings, false)
}

/// The checks of the file header and the read state for the model data and raw data.
fn open(data: &[u8]) -> Result<Bin<'_>> {
    let r = Reader::new(data, FORMAT);
    if r.u32_at(0, "binary marker")? != 0 {
        return Err(r.error(
            0,
            ErrorKind::BadMagic {
                expected: "u32 0 (binary MDL)",
            },
        ));
    }
    let model_size = u64::from(r.u32_at(4, "model data size")?);
    let raw_size = u64::from(r.u32_at(8, "raw data size")?);
    // A section past the end is reported at the size word that carries it there.
    let raw_base = MODEL_BASE + model_size;
    if raw_base > r.len() {
        return Err(r.invalid(
            4,
            format!(
                "past the end of the {}-byte file: model data of {model_size} bytes from byte \
                 0xc ends at byte 0x{raw_base:x}; its size is",
                r.len()
            ),
        ));
    }
    if raw_base + raw_size > r.len() {
        return Err(r.invalid(
            8,
            format!(
                "past the end of the {}-byte file: raw data of {raw_size} bytes from byte \
                 0x{raw_base:x} ends at byte 0x{:x}; its size is",
                r.len(),
                raw_base + raw_size
            ),
        ));
    }
    Ok(Bin {
        r,
        raw_base,
        warnings: Vec::new(),
        budget: ReadBudget::new(r.format(), budget::MODELS, r.len()),
    })
}

/// Reads the model; the animations' node trees too when `trees`.
fn read(data: &[u8], warnings: &mut Vec<String>, trees: bool) -> Result<Outline> {
    let mut b = open(data)?;
    let h = MODEL_BASE;
    let name = b.name(h + 0x08, 64, "model name")?;
    let classification = b.r.u8_at(h + 0x72, "classification")?;
    let animation_scale = b.r.f32_at(h + 0xA4, "animation scale")?;
    let animation_scale = if animation_scale.is_finite() && animation_scale > 0.0 {
        animation_scale
    } else {
        1.0
    };
    let supermodel = b.name(h + 0xA8, 64, "supermodel name")?;
    let header_node_count = b.r.u32_at(h + 0x4C, "node count")?;
    let nodes = parse_geometry(&mut b, h)?;

    let (anim_ptrs, anim_off) = b.array(h + 0x78, 4, MAX_ANIMATIONS, "animation pointer array")?;
    let mut animations = Vec::new();
    let mut bodies = Vec::new();
    for (i, p) in anim_ptrs.chunks_exact(4).enumerate() {
        let raw = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        let at = anim_off + 4 * i as u64;
        if raw == 0 {
            return Err(b.r.invalid(at, "null animation pointer"));
        }
        let p = Ptr::model("animation pointer", at, raw);
        let mut a = b.follow(p, parse_animation_header)?;
        if trees {
            a.nodes = b.follow(p, parse_geometry)?;
            bodies.push(Body::Parsed);
        } else {
            bodies.push(Body::Binary { at, raw });
        }
        animations.push(a);
    }
    warnings.append(&mut b.warnings);
    let mdl = Mdl {
        name,
        supermodel: (!is_null_name(&supermodel)).then_some(supermodel),
        classification,
        animation_scale,
        header_node_count,
        nodes,
        animations,
        ascii: false,
    };
    Ok(Outline {
        mdl,
        bodies,
        budget_used: b.budget.used(),
    })
}

/// The node tree of the animation `body` names in `data` (a file [`outline`] read), charged to
/// a read budget that has `budget_used` bytes spent already; returns the tree and the budget
/// spent after it. Errors and warnings are those [`parse`] gives for the same tree.
pub fn animation_nodes(
    data: &[u8],
    body: &Body,
    budget_used: u64,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Node>, u64)> {
    let &Body::Binary { at, raw } = body else {
        return Ok((Vec::new(), budget_used));
    };
    let mut b = open(data)?;
    b.budget.charge(at, budget_used, "animation pointer")?;
    let nodes = b.follow(Ptr::model("animation pointer", at, raw), parse_geometry)?;
    warnings.append(&mut b.warnings);
    Ok((nodes, b.budget.used()))
}

/// The header of the animation at `a`: everything but its node tree.
fn parse_animation_header(b: &mut Bin, a: u64) -> Result<Animation> {
    let name = b.name(a + 0x08, 64, "animation name")?;
    let length = b.r.f32_at(a + 0x70, "animation length")?;
    let transtime = b.r.f32_at(a + 0x74, "animation transtime")?;
    let root = b.name(a + 0x78, 64, "animation root")?;
    let (ev, _) = b.array(a + 0xB8, 36, MAX_EVENTS, "animation event array")?;
    let mut events = Vec::new();
    for e in ev.chunks_exact(36) {
        let t = f32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let end = e[4..].iter().position(|&c| c == 0).unwrap_or(32);
        events.push((t, String::from_utf8_lossy(&e[4..4 + end]).into_owned()));
    }
    Ok(Animation {
        name,
        length: if length.is_finite() && length > 0.0 {
            length
        } else {
            0.0
        },
        transtime,
        root,
        events,
        nodes: Vec::new(),
    })
}

/// Walks the node tree of the geometry header at `g` (parents first, children in file order).
fn parse_geometry(b: &mut Bin, g: u64) -> Result<Vec<Node>> {
    let root = b
        .model_ptr(g + 0x48, "root node pointer")?
        .ok_or_else(|| b.r.invalid(g + 0x48, "geometry has no root node"))?;
    let mut nodes: Vec<Node> = Vec::new();
    let mut pending: Vec<PendingSkin> = Vec::new();
    // (pointer to the node, parent index, depth)
    let mut stack = vec![(root, None::<usize>, 0usize)];
    while let Some((ptr, parent, depth)) = stack.pop() {
        let at = ptr.at;
        if nodes.len() >= MAX_NODES {
            return Err(b.r.error(
                at,
                ErrorKind::CountTooLarge {
                    what: "nodes in one geometry",
                    count: nodes.len() as u64 + 1,
                    max: MAX_NODES as u64,
                },
            ));
        }
        if depth > MAX_DEPTH {
            return Err(b
                .r
                .invalid(at, format!("node tree deeper than {MAX_DEPTH}")));
        }
        let idx = nodes.len();
        let (node, children, skin) = b.follow(ptr, |b, off| parse_node(b, off, parent))?;
        if let Some(s) = skin {
            pending.push((idx, s));
        }
        nodes.push(node);
        if let Some(p) = parent {
            nodes[p].children.push(idx);
        }
        for &c in children.iter().rev() {
            stack.push((c, Some(idx), depth + 1));
        }
    }
    for (idx, lanes) in pending {
        resolve_skin(b, &mut nodes, idx, lanes);
    }
    Ok(nodes)
}

/// Turns (bone node number, weight) lanes into (node index, weight) lanes.
///
/// `bone_parts` holds the bones' node numbers in the geometry's depth-first order (children in
/// file order) — the order [`parse_geometry`] builds — not the nodes' part-number fields, which
/// the compiler renumbers to the supermodel's. Verified on c_satyrarcher: its 16 used slots
/// name exactly the 16 bones the ASCII c_satyr weights list, while its part fields do not.
fn resolve_skin(b: &mut Bin, nodes: &mut [Node], idx: usize, lanes: Vec<Vec<(i32, f32)>>) {
    let count = nodes.len();
    let mut missing: Vec<i32> = Vec::new();
    let resolved: Vec<SkinLanes> = lanes
        .into_iter()
        .map(|v| {
            v.into_iter()
                .filter_map(|(bone, w)| {
                    let found = usize::try_from(bone).ok().filter(|&n| n < count);
                    if found.is_none() && !missing.contains(&bone) {
                        missing.push(bone);
                    }
                    found.map(|n| (n, w))
                })
                .collect()
        })
        .collect();
    if !missing.is_empty() {
        b.warnings.push(format!(
            "skin node '{}': bone node numbers {:?} are past the {count} nodes; those weights are dropped",
            nodes[idx].name, missing
        ));
    }
    if let Some(m) = nodes[idx].mesh.as_mut() {
        m.skin = resolved;
    }
}

type ParsedNode = (Node, Vec<Ptr>, Option<Vec<Vec<(i32, f32)>>>);

fn parse_node(b: &mut Bin, o: u64, parent: Option<usize>) -> Result<ParsedNode> {
    let part = b.r.i32_at(o + 0x1C, "node part number")?;
    let name = b.name(o + 0x20, 32, "node name")?;
    let flags = b.r.u32_at(o + 0x6C, "node flags")?;
    let kind = NodeFlags(flags).kind().ok_or_else(|| {
        b.r.invalid(
            o + 0x6C,
            format!("node '{name}' has unknown flags 0x{flags:x}"),
        )
    })?;
    let (child_bytes, child_off) = b.array(o + 0x48, 4, MAX_CHILDREN, "node children array")?;
    let mut children = Vec::new();
    for (i, c) in child_bytes.chunks_exact(4).enumerate() {
        let p = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let at = child_off + 4 * i as u64;
        if p == 0 {
            return Err(b.r.invalid(at, "null child node pointer"));
        }
        children.push(Ptr::model("child node pointer", at, p));
    }
    let controllers = parse_controllers(b, o)?;
    let mut mesh = None;
    let mut skin = None;
    if kind.is_mesh() {
        let mut m = parse_mesh(b, o, &name)?;
        if kind == NodeKind::Skin {
            skin = Some(parse_skin(b, o, m.vertices.len())?);
        }
        if kind == NodeKind::Aabb {
            m.render = false;
        }
        mesh = Some(m);
    }
    let detail = parse_detail(b, o, kind)?;
    Ok((
        Node {
            name,
            kind,
            part,
            parent,
            children: Vec::new(),
            controllers,
            mesh,
            detail,
        },
        children,
        skin,
    ))
}

/// The sub-structure of lights, emitters, references, dangly meshes and animmeshes.
fn parse_detail(b: &Bin, o: u64, kind: NodeKind) -> Result<NodeDetail> {
    let r = &b.r;
    Ok(match kind {
        NodeKind::Light => NodeDetail::Light {
            flare_radius: r.f32_at(o + 0x70, "light flare radius")?,
            priority: r.u32_at(o + 0xB0, "light priority")?,
            ambient_only: r.u32_at(o + 0xB4, "light ambient-only flag")? != 0,
            shadow: r.u32_at(o + 0xC0, "light shadow flag")? != 0,
        },
        NodeKind::Emitter => NodeDetail::Emitter {
            update: b.name(o + 0x88, 32, "emitter update")?,
            render: b.name(o + 0xA8, 32, "emitter render")?,
            blend: b.name(o + 0xC8, 32, "emitter blend")?,
            texture: b.name(o + 0xE8, 64, "emitter texture")?,
            flags: r.u32_at(o + 0x144, "emitter flags")?,
            xgrid: r.u32_at(o + 0x7C, "emitter x grid")?.clamp(1, 64),
            ygrid: r.u32_at(o + 0x80, "emitter y grid")?.clamp(1, 64),
            spawntype: r.u32_at(o + 0x84, "emitter spawn type")?,
            chunk: b.name(o + 0x128, 16, "emitter chunk name")?,
            looping: r.u32_at(o + 0x13C, "emitter loop flag")? != 0,
            renderorder: r.u16_at(o + 0x140, "emitter render order")?,
        },
        NodeKind::Reference => NodeDetail::Reference {
            model: b.name(o + 0x70, 64, "reference model")?,
            reattachable: r.u32_at(o + 0xB0, "reattachable flag")? != 0,
        },
        NodeKind::Dangly => NodeDetail::Dangly {
            constraints: r.u32_at(o + 0x274, "dangly constraint count")?,
            weights: f32s(
                b.array(o + 0x270, 4, MAX_CONSTRAINTS, "dangly constraints")?
                    .0,
            )
            .collect(),
            displacement: r.f32_at(o + 0x27C, "dangly displacement")?,
            tightness: r.f32_at(o + 0x280, "dangly tightness")?,
            period: r.f32_at(o + 0x284, "dangly period")?,
        },
        NodeKind::AnimMesh => NodeDetail::AnimMesh {
            sample_period: r.f32_at(o + 0x270, "animmesh sample period")?,
            vertex_sets: r.u32_at(o + 0x2A0, "animmesh vertex sets")?,
            tvert_sets: r.u32_at(o + 0x2A4, "animmesh uv sets")?,
        },
        _ => NodeDetail::None,
    })
}

/// Controllers of the node at `o`. A key whose rows run past the node's float array is dropped
/// with a warning (naming its offset) rather than failing the whole model.
fn parse_controllers(b: &mut Bin, o: u64) -> Result<Vec<Controller>> {
    let mut warns = Vec::new();
    let (keys, keys_off) = b.array(o + 0x54, 12, MAX_CONTROLLERS, "controller key array")?;
    let (floats, _) = b.array(o + 0x60, 4, MAX_CONTROLLER_FLOATS, "controller data array")?;
    // Each key's floats are read straight from the file's bytes, not through a copy of them all.
    let count = floats.len() / 4;
    let mut out = Vec::with_capacity(keys.len() / 12);
    for (i, k) in keys.chunks_exact(12).enumerate() {
        let at = keys_off + 12 * i as u64;
        let ty = ControllerType(u32::from_le_bytes([k[0], k[1], k[2], k[3]]));
        let rows = usize::from(u16::from_le_bytes([k[4], k[5]]));
        let time_index = usize::from(u16::from_le_bytes([k[6], k[7]]));
        let data_index = usize::from(u16::from_le_bytes([k[8], k[9]]));
        let cols_byte = k[10];
        let range = |start: usize, len: usize, what: &str| -> Result<Vec<f32>> {
            if start.saturating_add(len) > count {
                return Err(b.r.invalid(
                    at,
                    format!(
                        "controller {} {what} [{start}, +{len}) past the {count} data floats",
                        ty.0,
                    ),
                ));
            }
            Ok(f32s(&floats[start * 4..(start + len) * 4]).collect())
        };
        if cols_byte == 0xFF {
            // Detonate-style key: times only (when in range), no values.
            let times = range(time_index, rows, "times").unwrap_or_default();
            out.push(Controller {
                ty,
                times,
                values: Vec::new(),
                columns: 0,
                bezier: false,
            });
            continue;
        }
        let bezier = cols_byte & 0x10 != 0;
        let columns = usize::from(cols_byte & 0x0F);
        let stride = if bezier { columns * 3 } else { columns };
        match (
            range(time_index, rows, "times"),
            range(data_index, rows * stride, "values"),
        ) {
            (Ok(times), Ok(values)) => out.push(Controller {
                ty,
                times,
                values,
                columns,
                bezier,
            }),
            (Err(e), _) | (_, Err(e)) => warns.push(format!("{e}; controller dropped")),
        }
    }
    b.warnings.extend(warns);
    Ok(out)
}

/// Mesh header at node+0x70 (absolute node offsets). Faces naming a vertex past the vertex
/// count are dropped with a warning.
fn parse_mesh(b: &mut Bin, o: u64, name: &str) -> Result<Mesh> {
    let (face_bytes, faces_off) = b.array(o + 0x78, 32, MAX_FACES, "face array")?;
    let diffuse = [
        b.r.f32_at(o + 0xAC, "diffuse")?,
        b.r.f32_at(o + 0xB0, "diffuse")?,
        b.r.f32_at(o + 0xB4, "diffuse")?,
    ];
    let render = b.r.u32_at(o + 0xDC, "render flag")? != 0;
    let transparency_hint = b.r.u32_at(o + 0xE0, "transparency hint")?;
    let mut textures: [String; 4] = Default::default();
    for (i, t) in textures.iter_mut().enumerate() {
        let s = b.name(o + 0xE8 + 64 * i as u64, 64, "texture name")?;
        if !is_null_name(&s) {
            *t = s;
        }
    }
    let vcount = u64::from(b.r.u16_at(o + 0x230, "vertex count")?);
    let vertices = match b.raw_ptr(o + 0x22C, "vertex pointer")? {
        Some(p) => vec3s(b.slice(p, vcount, o + 0x230, 12, "vertex positions")?),
        None => Vec::new(),
    };
    let uvs = match b.raw_ptr(o + 0x234, "texture-0 vertex pointer")? {
        Some(p) if !vertices.is_empty() => {
            let v: Vec<f32> =
                f32s(b.slice(p, vcount, o + 0x230, 8, "texture-0 vertices")?).collect();
            v.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
        }
        _ => Vec::new(),
    };
    let normals = match b.raw_ptr(o + 0x244, "normal pointer")? {
        Some(p) if !vertices.is_empty() => {
            vec3s(b.slice(p, vcount, o + 0x230, 12, "vertex normals")?)
        }
        _ => Vec::new(),
    };
    let mut faces = Vec::with_capacity(face_bytes.len() / 32);
    let mut bad_faces = Vec::new();
    for (i, f) in face_bytes.chunks_exact(32).enumerate() {
        let surface = u32::from_le_bytes([f[16], f[17], f[18], f[19]]);
        let v = [0, 1, 2].map(|k| u32::from(u16::from_le_bytes([f[26 + 2 * k], f[27 + 2 * k]])));
        if v.iter().any(|&x| x as usize >= vertices.len()) {
            bad_faces.push(faces_off + 32 * i as u64 + 26);
            continue;
        }
        faces.push(MeshFace { v, t: v, surface });
    }
    if let Some(first) = bad_faces.first() {
        b.warnings.push(format!(
            "mesh '{name}': {} faces name vertices past its {} (first at byte 0x{first:x}); dropped",
            bad_faces.len(),
            vertices.len()
        ));
    }
    Ok(Mesh {
        vertices,
        normals,
        uvs,
        faces,
        textures,
        diffuse,
        render,
        transparency_hint,
        skin: Vec::new(),
    })
}

/// Skin sub-structure at node+0x270: raw weights (f32×4) @+0x0C, raw bone lanes (u16×4) @+0x10,
/// `i16 bone_parts[17]` @+0x40. A lane is a bone slot; 0xFFFF = unused lane (not end of row);
/// only positive weights count (rollnw findings).
fn parse_skin(b: &mut Bin, o: u64, vcount: usize) -> Result<Vec<Vec<(i32, f32)>>> {
    let s = o + 0x270;
    let n = vcount as u64;
    let (Some(wp), Some(lp)) = (
        b.raw_ptr(s + 0x0C, "skin weight pointer")?,
        b.raw_ptr(s + 0x10, "skin bone pointer")?,
    ) else {
        return Ok(vec![Vec::new(); vcount]);
    };
    let weights: Vec<f32> = f32s(b.slice(wp, n, o + 0x230, 16, "skin weights")?).collect();
    let lanes = b.slice(lp, n, o + 0x230, 8, "skin bone lanes")?;
    let mut parts = [0i32; SKIN_SLOTS];
    for (i, p) in parts.iter_mut().enumerate() {
        *p = i32::from(b.r.i16_at(s + 0x40 + 2 * i as u64, "skin bone part")?);
    }
    let mut bad_slots = 0usize;
    let out = (0..vcount)
        .map(|v| {
            (0..4)
                .filter_map(|k| {
                    let slot = u16::from_le_bytes([lanes[v * 8 + 2 * k], lanes[v * 8 + 2 * k + 1]]);
                    let w = weights[v * 4 + k];
                    if slot == 0xFFFF || w.is_nan() || w <= 0.0 {
                        return None;
                    }
                    match parts.get(usize::from(slot)) {
                        Some(&p) => Some((p, w.min(1.0))),
                        None => {
                            bad_slots += 1;
                            None
                        }
                    }
                })
                .collect()
        })
        .collect();
    if bad_slots > 0 {
        b.warnings.push(format!(
            "skin node at 0x{o:x}: {bad_slots} weighted lanes use bone slots past {SKIN_SLOTS}; dropped"
        ));
    }
    Ok(out)
}
