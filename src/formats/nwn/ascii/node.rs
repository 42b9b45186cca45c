//! `node TYPE NAME … endnode` blocks: each node's header fields, controllers (one-row values
//! and key lists), type-specific fields and mesh data lists, then the nodes linked into one
//! tree by their parent names.

use std::collections::HashMap;

use super::text::{count, each_num, is_numeric, lower, num, nums, Line, Lines};
use super::vocabulary::{flag, unread, Unknowns, Unread};
use super::{FORMAT, MAX_NODES};
use crate::formats::error::{LoadError, Result};
use crate::formats::nwn::anim::quat_from_axis_angle;
use crate::formats::nwn::mdl;
use crate::formats::nwn::mdl::{
    is_null_name, Controller, ControllerType, Mesh, MeshFace, Node, NodeDetail, NodeKind,
};

/// Raw node as read, before parents are linked.
struct RawNode {
    node: Node,
    parent_name: String,
    weights: Vec<Vec<(String, f32)>>,
    tverts: Vec<[f32; 2]>,
    off: u64,
}

pub(super) fn parse_nodes(
    lines: &mut Lines<'_>,
    end: &str,
    at: u64,
    warnings: &mut Vec<String>,
    unknowns: &mut Unknowns,
) -> Result<Vec<Node>> {
    let mut raw: Vec<RawNode> = Vec::new();
    loop {
        let Some(l) = lines.next() else {
            return Err(LoadError::invalid(
                FORMAT,
                at,
                format!("block without {end}"),
            ));
        };
        let key = lower(l.key());
        if key == end {
            break;
        }
        if key != "node" {
            continue;
        }
        if raw.len() >= MAX_NODES {
            return Err(LoadError::invalid(
                FORMAT,
                l.off,
                format!("more than {MAX_NODES} nodes"),
            ));
        }
        let off = l.off;
        let type_word = l.word(1).unwrap_or("");
        let kind = NodeKind::from_name(type_word).ok_or_else(|| {
            LoadError::invalid(FORMAT, off, format!("unknown node type '{type_word}'"))
        })?;
        let name = l.word(2).unwrap_or("").to_string();
        raw.push(parse_node(lines, kind, name, off, unknowns)?);
    }
    link(raw, warnings)
}

fn parse_node(
    lines: &mut Lines<'_>,
    kind: NodeKind,
    name: String,
    off: u64,
    unknowns: &mut Unknowns,
) -> Result<RawNode> {
    let mut raw = RawNode {
        node: new_node(kind, name),
        parent_name: String::new(),
        weights: Vec::new(),
        tverts: Vec::new(),
        off,
    };
    loop {
        let Some(l) = lines.next() else {
            return Err(LoadError::invalid(FORMAT, off, "node without endnode"));
        };
        let key = lower(l.key());
        if is_numeric(&key) {
            continue; // data row of a list keyword we do not read
        }
        if key == "endnode" {
            break;
        }
        if !raw.read_line(lines, &l, &key)? {
            skip_unread(lines, &l, &key, unknowns)?;
        }
    }
    Ok(raw)
}

/// Skips a node line that was not read: a known list with its rows, a known property alone,
/// and an unknown property alone, noted for a warning.
fn skip_unread(lines: &mut Lines<'_>, l: &Line, key: &str, unknowns: &mut Unknowns) -> Result<()> {
    match unread(key) {
        Unread::Known => {}
        Unread::KnownList => {
            // A list keyword without a count (`aabb`-like data on its own line) has no rows
            // of its own to take.
            if let Some(Ok(n)) = l.word(1).map(str::parse::<usize>) {
                lines.each_row(Some(n), l.off, |_| Ok(()))?;
            }
        }
        Unread::Unknown => unknowns.note(l.key(), l.off),
    }
    Ok(())
}

/// A node of `kind` before any of its lines: NWN's defaults for its mesh and type fields.
fn new_node(kind: NodeKind, name: String) -> Node {
    Node {
        name,
        kind,
        part: -1,
        parent: None,
        children: Vec::new(),
        controllers: Vec::new(),
        mesh: kind.is_mesh().then(|| Mesh {
            diffuse: [0.8; 3],
            render: kind != NodeKind::Aabb,
            ..Mesh::default()
        }),
        detail: match kind {
            NodeKind::Light => NodeDetail::Light {
                flare_radius: 0.0,
                priority: 5,
                ambient_only: false,
                shadow: true,
            },
            NodeKind::Emitter => NodeDetail::Emitter {
                update: String::new(),
                render: String::new(),
                blend: String::new(),
                texture: String::new(),
                flags: 0,
                xgrid: 1,
                ygrid: 1,
                spawntype: 0,
                looping: false,
                renderorder: 0,
                chunk: String::new(),
            },
            NodeKind::Reference => NodeDetail::Reference {
                model: String::new(),
                reattachable: false,
            },
            NodeKind::Dangly => NodeDetail::Dangly {
                constraints: 0,
                weights: Vec::new(),
                displacement: 0.0,
                tightness: 0.0,
                period: 0.0,
            },
            NodeKind::AnimMesh => NodeDetail::AnimMesh {
                sample_period: 0.0,
                vertex_sets: 0,
                tvert_sets: 0,
            },
            _ => NodeDetail::None,
        },
    }
}

/// A controller holding one value, at time 0.
fn static_controller(ty: ControllerType, v: Vec<f32>) -> Controller {
    Controller {
        ty,
        times: vec![0.0],
        columns: v.len(),
        values: v,
        bezier: false,
    }
}

impl RawNode {
    /// One keyword line of the node (`key` in lower case), with the list rows it heads; false
    /// when the node does not read `key` (nothing is taken then).
    fn read_line(&mut self, lines: &mut Lines<'_>, l: &Line, key: &str) -> Result<bool> {
        let node = &mut self.node;
        match key {
            "part-number" => node.part = num(l, 1)? as i32,
            "parent" => self.parent_name = l.word(1).unwrap_or("").to_string(),
            "position" => node.controllers.push(static_controller(
                ControllerType::POSITION,
                nums::<3>(l, 1)?.to_vec(),
            )),
            "orientation" => {
                let [x, y, z, angle] = nums(l, 1)?;
                let q = quat_from_axis_angle([x, y, z], angle);
                node.controllers
                    .push(static_controller(ControllerType::ORIENTATION, q.to_vec()));
            }
            "scale" => node
                .controllers
                .push(static_controller(ControllerType::SCALE, vec![num(l, 1)?])),
            "alpha" if node.mesh.is_some() => node
                .controllers
                .push(static_controller(ControllerType::ALPHA, vec![num(l, 1)?])),
            _ if key.ends_with("key") => {
                if let Some(c) = read_key_list(lines, l, key, node.kind)? {
                    node.controllers.push(c);
                }
            }
            "constraints" if node.kind == NodeKind::Dangly => {
                let mut read = Vec::new();
                lines.each_row(count(l)?, l.off, |r| {
                    read.push(num(&r, 0)?);
                    Ok(())
                })?;
                if let NodeDetail::Dangly {
                    constraints,
                    weights,
                    ..
                } = &mut node.detail
                {
                    weights.extend(read);
                    *constraints = weights.len() as u32;
                }
            }
            _ if set_detail(&mut node.detail, key, l)? => {}
            _ if node.kind == NodeKind::Emitter => match mdl::emitter_controller(key) {
                Some((ty, cols)) => node
                    .controllers
                    .push(static_controller(ty, nums_vec(l, 1, cols)?)),
                None => return Ok(false),
            },
            _ => return self.read_mesh_line(lines, l, key),
        }
        Ok(true)
    }

    /// A mesh field or data list (`verts`, `tverts`, `faces`, `weights`); false for other
    /// keywords, and for any of these on a node without a mesh.
    fn read_mesh_line(&mut self, lines: &mut Lines<'_>, l: &Line, key: &str) -> Result<bool> {
        let kind = self.node.kind;
        let Some(m) = self.node.mesh.as_mut() else {
            return Ok(false);
        };
        match key {
            "bitmap" | "texture0" => m.textures[0] = word_or_empty(l),
            "texture1" => m.textures[1] = word_or_empty(l),
            "texture2" => m.textures[2] = word_or_empty(l),
            "texture3" => m.textures[3] = word_or_empty(l),
            "diffuse" => {
                m.diffuse = nums(l, 1)?;
            }
            "render" => m.render = flag(l, 1)? && kind != NodeKind::Aabb,
            "transparencyhint" => m.transparency_hint = num(l, 1)?.max(0.0) as u32,
            "verts" => lines.each_row(count(l)?, l.off, |r| {
                m.vertices.push(nums(&r, 0)?);
                Ok(())
            })?,
            "tverts" => lines.each_row(count(l)?, l.off, |r| {
                self.tverts.push(nums(&r, 0)?);
                Ok(())
            })?,
            "faces" => lines.each_row(count(l)?, l.off, |r| {
                m.faces.push(face(&r)?);
                Ok(())
            })?,
            "weights" => lines.each_row(count(l)?, l.off, |r| {
                self.weights.push(weight_lanes(&r)?);
                Ok(())
            })?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A `…key` / `…bezierkey` list: its rows are always consumed; a controller only for the
/// position, orientation, scale and alpha keys (emitters: their own controller names).
/// Orientation rows (axis + angle) become quaternions.
fn read_key_list(
    lines: &mut Lines<'_>,
    l: &Line,
    key: &str,
    kind: NodeKind,
) -> Result<Option<Controller>> {
    let bezier = key.ends_with("bezierkey");
    let base = key.trim_end_matches("bezierkey").trim_end_matches("key");
    if key == "detonatekey" && kind == NodeKind::Emitter {
        return detonate_keys(lines, l).map(Some);
    }
    let (ty, cols) = match base {
        "position" => (Some(ControllerType::POSITION), 3),
        "orientation" => (Some(ControllerType::ORIENTATION), 4),
        "scale" => (Some(ControllerType::SCALE), 1),
        "alpha" if kind != NodeKind::Emitter => (Some(ControllerType::ALPHA), 1),
        _ if kind == NodeKind::Emitter => match mdl::emitter_controller(base) {
            Some((ty, cols)) => (Some(ty), cols),
            None => (None, 0),
        },
        _ => (None, 0),
    };
    let n = count(l)?;
    let Some(ty) = ty else {
        lines.each_key_row(n, l.off, |_| Ok(()))?;
        return Ok(None);
    };
    let stride = if bezier { cols * 3 } else { cols };
    // Grown as rows parse, not reserved from the count: a count of many rows that fail at the
    // first would otherwise reserve for all of them.
    let mut c = Controller {
        ty,
        times: Vec::new(),
        values: Vec::new(),
        columns: cols,
        bezier,
    };
    // One row's time and values, reused from row to row.
    let mut row = Vec::with_capacity(1 + stride);
    lines.each_key_row(n, l.off, |r| {
        row.clear();
        each_num(&r, 0, 1 + stride, |v| row.push(v))?;
        c.times.push(row[0]);
        let v = &row[1..];
        if ty == ControllerType::ORIENTATION {
            c.values
                .extend(quat_from_axis_angle([v[0], v[1], v[2]], v[3]));
            // Bezier handles of axis-angle rows are not meaningful as quaternions.
            c.values.extend(std::iter::repeat_n(0.0, stride - 4));
        } else {
            c.values.extend_from_slice(v);
        }
        Ok(())
    })?;
    Ok(Some(c))
}

/// An emitter's `detonatekey` list: rows of `time value`, the value a burst count (1 when a
/// row has none). Exporters write `detonatekey 1` with no rows; rollnw reads that number as the
/// value of one key, which, as the key lists no time, fires here at the animation's start.
fn detonate_keys(lines: &mut Lines<'_>, l: &Line) -> Result<Controller> {
    let head = l.word(1).and_then(|w| w.parse::<f32>().ok());
    let rows = head.map(|v| {
        if v.fract() == 0.0 && v >= 0.0 {
            v as usize
        } else {
            0
        }
    });
    let mut c = Controller {
        ty: ControllerType::DETONATE,
        times: Vec::new(),
        values: Vec::new(),
        columns: 1,
        bezier: false,
    };
    lines.each_key_row(rows, l.off, |r| {
        c.times.push(num(&r, 0)?);
        c.values.push(if r.word(1).is_some() {
            num(&r, 1)?
        } else {
            1.0
        });
        Ok(())
    })?;
    if let (true, Some(v)) = (c.times.is_empty(), head) {
        c.times.push(0.0);
        c.values.push(v);
    }
    Ok(c)
}

/// A `faces` row: `v0 v1 v2 group t0 t1 t2 material`; an index that is negative or too large
/// becomes `u32::MAX` (dropped or replaced when the mesh is finished).
fn face(r: &Line) -> Result<MeshFace> {
    let v: [f32; 7] = nums(r, 0)?;
    let idx = |x: f32| {
        if x >= 0.0 && x < u32::MAX as f32 {
            x as u32
        } else {
            u32::MAX
        }
    };
    Ok(MeshFace {
        v: [idx(v[0]), idx(v[1]), idx(v[2])],
        surface: idx(v[3]),
        t: [idx(v[4]), idx(v[5]), idx(v[6])],
    })
}

/// A `weights` row: bone name / weight pairs (a trailing lone word is ignored).
fn weight_lanes(r: &Line) -> Result<Vec<(String, f32)>> {
    let mut lanes = Vec::new();
    let mut words = r.words();
    while let (Some(bone), Some(w)) = (words.next(), words.next()) {
        let w: f32 = w
            .parse()
            .map_err(|_| LoadError::invalid(FORMAT, r.off, format!("'{w}' is not a weight")))?;
        lanes.push((bone.to_string(), w));
    }
    Ok(lanes)
}

/// Reads a line belonging to a node's sub-structure into `detail`; false when `key` is not
/// one of its fields.
fn set_detail(detail: &mut NodeDetail, key: &str, l: &Line) -> Result<bool> {
    let word = || l.word(1).unwrap_or("").to_string();
    match (detail, key) {
        (NodeDetail::Light { flare_radius, .. }, "flareradius") => *flare_radius = num(l, 1)?,
        (NodeDetail::Light { priority, .. }, "lightpriority") => {
            *priority = num(l, 1)?.max(0.0) as u32
        }
        (NodeDetail::Light { ambient_only, .. }, "ambientonly") => *ambient_only = flag(l, 1)?,
        (NodeDetail::Light { shadow, .. }, "shadow") => *shadow = flag(l, 1)?,
        (NodeDetail::Emitter { update, .. }, "update") => *update = word(),
        (NodeDetail::Emitter { render, .. }, "render") => *render = word(),
        (NodeDetail::Emitter { blend, .. }, "blend") => *blend = word(),
        (NodeDetail::Emitter { texture, .. }, "texture") => *texture = word(),
        (NodeDetail::Emitter { chunk, .. }, "chunkname") => *chunk = word(),
        (NodeDetail::Emitter { xgrid, .. }, "xgrid") => *xgrid = num(l, 1)?.clamp(1.0, 64.0) as u32,
        (NodeDetail::Emitter { ygrid, .. }, "ygrid") => *ygrid = num(l, 1)?.clamp(1.0, 64.0) as u32,
        (NodeDetail::Emitter { spawntype, .. }, "spawntype") => {
            *spawntype = num(l, 1)?.max(0.0) as u32
        }
        (NodeDetail::Emitter { looping, .. }, "loop") => *looping = flag(l, 1)?,
        (NodeDetail::Emitter { renderorder, .. }, "renderorder") => {
            *renderorder = num(l, 1)?.clamp(0.0, 65535.0) as u16
        }
        (NodeDetail::Emitter { flags, .. }, k) if mdl::EmitterFlags::from_keyword(k).is_some() => {
            let bit = mdl::EmitterFlags::from_keyword(k).unwrap_or(0);
            if flag(l, 1)? {
                *flags |= bit;
            } else {
                *flags &= !bit;
            }
        }
        (NodeDetail::Reference { model, .. }, "refmodel") => *model = word(),
        (NodeDetail::Reference { reattachable, .. }, "reattachable") => *reattachable = flag(l, 1)?,
        (NodeDetail::Dangly { displacement, .. }, "displacement") => *displacement = num(l, 1)?,
        (NodeDetail::Dangly { tightness, .. }, "tightness") => *tightness = num(l, 1)?,
        (NodeDetail::Dangly { period, .. }, "period") => *period = num(l, 1)?,
        (NodeDetail::AnimMesh { sample_period, .. }, "sampleperiod") => *sample_period = num(l, 1)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Values `from..from + n` of a line as numbers (a controller's columns).
fn nums_vec(l: &Line, from: usize, n: usize) -> Result<Vec<f32>> {
    let mut v = Vec::with_capacity(n);
    each_num(l, from, n, |x| v.push(x))?;
    Ok(v)
}

fn word_or_empty(l: &Line) -> String {
    let w = l.word(1).unwrap_or("");
    if is_null_name(w) {
        String::new()
    } else {
        w.to_string()
    }
}

/// Links parents by name, orders nodes parents-first, checks indices, resolves skin bones.
fn link(raw: Vec<RawNode>, warnings: &mut Vec<String>) -> Result<Vec<Node>> {
    let find = |name: &str| {
        raw.iter()
            .position(|r| r.node.name.eq_ignore_ascii_case(name))
    };
    let parents: Vec<Option<usize>> = raw
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if is_null_name(&r.parent_name) {
                None
            } else {
                match find(&r.parent_name) {
                    Some(p) if p != i => Some(p),
                    // The first node of the name is the node itself: a node cannot hang under
                    // itself, and no other node of the name comes before it.
                    Some(_) => {
                        warnings.push(format!(
                            "node '{}' (line at byte 0x{:x}) names itself as its parent; treated \
                             as a root",
                            r.node.name, r.off
                        ));
                        None
                    }
                    None => {
                        warnings.push(format!(
                            "node '{}' (line at byte 0x{:x}): parent '{}' not found; treated as \
                             a root",
                            r.node.name, r.off, r.parent_name
                        ));
                        None
                    }
                }
            }
        })
        .collect();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); raw.len()];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            kids[*p].push(i);
        }
    }
    // Depth-first from the roots: parents first; nodes on a parent cycle are unreachable.
    let mut order = Vec::with_capacity(raw.len());
    let mut new_index = vec![usize::MAX; raw.len()];
    let mut stack: Vec<usize> = (0..raw.len())
        .rev()
        .filter(|&i| parents[i].is_none())
        .collect();
    while let Some(i) = stack.pop() {
        if new_index[i] != usize::MAX {
            continue;
        }
        new_index[i] = order.len();
        order.push(i);
        stack.extend(kids[i].iter().rev());
    }
    if order.len() < raw.len() {
        cycle_warnings(&raw, &parents, &new_index, warnings);
    }
    // Node names (lower case) to their new index, the first of equal names winning.
    let mut names: HashMap<String, usize> = HashMap::with_capacity(order.len());
    for (k, &i) in order.iter().enumerate() {
        names
            .entry(raw[i].node.name.to_ascii_lowercase())
            .or_insert(k);
    }
    let mut raw: Vec<Option<RawNode>> = raw.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(order.len());
    for &i in &order {
        let Some(mut r) = raw[i].take() else { continue };
        r.node.parent = parents[i].map(|p| new_index[p]);
        r.node.children = kids[i]
            .iter()
            .map(|&c| new_index[c])
            .filter(|&c| c != usize::MAX)
            .collect();
        let mut mesh = r.node.mesh.take();
        if let Some(m) = mesh.as_mut() {
            finish_mesh(m, &r, &names, warnings);
        }
        r.node.mesh = mesh;
        out.push(r.node);
    }
    Ok(out)
}

/// Most parent cycles reported one by one, and most names listed for one cycle: a hostile file
/// may hold thousands.
const CYCLES_LISTED: usize = 8;

/// Warns of each parent cycle among the nodes no root leads to (`new_index` = `usize::MAX`),
/// naming its nodes in parent order and counting the nodes under it, which are dropped with it.
/// Every such node has a parent (else it would be a root), and following parents from it never
/// reaches a root, so every walk ends on a cycle.
fn cycle_warnings(
    raw: &[RawNode],
    parents: &[Option<usize>],
    new_index: &[usize],
    warnings: &mut Vec<String>,
) {
    const NONE: usize = usize::MAX;
    // For each dropped node, the cycle its parent chain ends on (index into `cycles`).
    let mut cycle_of = vec![NONE; raw.len()];
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    let mut under: Vec<usize> = Vec::new();
    let mut on_walk = vec![false; raw.len()];
    for start in (0..raw.len()).filter(|&i| new_index[i] == NONE) {
        let mut walk = Vec::new();
        let mut i = start;
        while cycle_of[i] == NONE && !on_walk[i] {
            on_walk[i] = true;
            walk.push(i);
            i = parents[i].expect("a node no root leads to has a parent");
        }
        let c = if cycle_of[i] != NONE {
            cycle_of[i]
        } else {
            // `i` is on this walk: the walk from `i` on is a new cycle.
            let from = walk.iter().position(|&w| w == i).expect("on the walk");
            let members = walk.split_off(from);
            for &m in &members {
                cycle_of[m] = cycles.len();
            }
            cycles.push(members);
            under.push(0);
            cycles.len() - 1
        };
        for &w in &walk {
            cycle_of[w] = c;
            under[c] += 1;
        }
    }
    for (members, &below) in cycles.iter().zip(&under).take(CYCLES_LISTED) {
        // Listed from the node that comes first in the file, in parent order.
        let first = (0..members.len())
            .min_by_key(|&k| members[k])
            .expect("a cycle has a node");
        let name = |k: usize| format!("'{}'", raw[members[(first + k) % members.len()]].node.name);
        let mut names: Vec<String> = (0..members.len().min(CYCLES_LISTED)).map(name).collect();
        if members.len() > CYCLES_LISTED {
            names.push("…".to_string());
        }
        names.push(name(0));
        let under = match below {
            0 => String::new(),
            1 => " and the 1 node under them".to_string(),
            n => format!(" and the {n} nodes under them"),
        };
        warnings.push(format!(
            "parent cycle {} (each node names the next as its parent; the line of {} is at \
             byte 0x{:x}): no root leads to these {} nodes, so they{under} are dropped",
            names.join(" → "),
            name(0),
            raw[members[first]].off,
            members.len()
        ));
    }
    if cycles.len() > CYCLES_LISTED {
        let rest = &cycles[CYCLES_LISTED..];
        let on: usize = rest.iter().map(Vec::len).sum();
        let below: usize = under[CYCLES_LISTED..].iter().sum();
        warnings.push(format!(
            "{} more parent cycles: their {on} nodes and the {below} nodes under them are dropped",
            rest.len()
        ));
    }
}

/// Most bone names a missing-bones warning lists.
const MISSING_LISTED: usize = 8;

fn finish_mesh(
    m: &mut Mesh,
    r: &RawNode,
    names: &HashMap<String, usize>,
    warnings: &mut Vec<String>,
) {
    let nv = m.vertices.len() as u32;
    let nt = r.tverts.len() as u32;
    let before = m.faces.len();
    m.faces.retain(|f| f.v.iter().all(|&v| v < nv));
    if m.faces.len() < before {
        warnings.push(format!(
            "node '{}' (line at byte 0x{:x}): {} faces name vertices past its {nv} verts; dropped",
            r.node.name,
            r.off,
            before - m.faces.len()
        ));
    }
    for f in &mut m.faces {
        if f.t.iter().any(|&t| t >= nt) {
            f.t = f.v; // no usable tverts: fall back to per-vertex
        }
    }
    m.uvs = r.tverts.clone();
    if !r.weights.is_empty() {
        // Each bone name is looked up once however many lanes name it: a skin may have
        // millions of lanes, and names that match no node are reported once each.
        let mut bones: HashMap<&str, Option<usize>> = HashMap::new();
        let mut missing: Vec<&str> = Vec::new();
        m.skin = r
            .weights
            .iter()
            .map(|lanes| {
                lanes
                    .iter()
                    .filter(|(_, w)| *w > 0.0)
                    .filter_map(|(bone, w)| {
                        let n = *bones.entry(bone).or_insert_with(|| {
                            let n = names.get(&bone.to_ascii_lowercase()).copied();
                            if n.is_none() {
                                missing.push(bone);
                            }
                            n
                        });
                        n.map(|n| (n, w.min(1.0)))
                    })
                    .collect()
            })
            .collect();
        m.skin.resize(m.vertices.len(), Vec::new());
        if !missing.is_empty() {
            let more = missing.len().saturating_sub(MISSING_LISTED);
            missing.truncate(MISSING_LISTED);
            warnings.push(format!(
                "skin node '{}': bones {missing:?}{} not found; their weights are dropped",
                r.node.name,
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
}
