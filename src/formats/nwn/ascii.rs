//! ASCII MDL parser (`#MAXMODEL ASCII`): the text form NWN's model compiler reads.
//!
//! Recognised: `newmodel`, `setsupermodel`, `classification`, `setanimationscale`,
//! `beginmodelgeom … endmodelgeom` with `node TYPE NAME … endnode` blocks (`parent`, `position`,
//! `orientation` (axis + angle in radians), `scale`, `bitmap`/`texture0..3`, `diffuse`, `render`,
//! `transparencyhint`, `verts`, `tverts`, `faces` (`v0 v1 v2 group t0 t1 t2 material`),
//! `weights` (bone name / weight pairs), `POSITIONkey`/`orientationkey`/`scalekey` with a row
//! count or ended by `endlist`, `…bezierkey`), and `newanim NAME MODEL … doneanim` blocks
//! (`length`, `transtime`, `animroot`, `event`, nodes). Unknown keywords and the data rows of
//! unknown list keywords are skipped. Errors name the byte offset of the offending line.

use super::anim::quat_from_axis_angle;
use super::mdl;
use super::mdl::{
    is_null_name, Animation, Controller, ControllerType, Mdl, Mesh, MeshFace, Node, NodeDetail,
    NodeKind,
};
use crate::formats::error::{LoadError, Result};

/// Format name in errors.
pub const FORMAT: &str = "NWN ASCII MDL";
/// Most nodes per geometry.
pub const MAX_NODES: usize = 4096;

struct Line<'a> {
    off: u64,
    words: Vec<&'a str>,
}

struct Lines<'s, 'a> {
    lines: &'s [Line<'a>],
    pos: usize,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    {
        let mut lines = Vec::new();
        let mut off = 0u64;
        for raw in text.split_inclusive('\n') {
            let trimmed = raw.trim_start();
            // `#part-number N` is the one comment that carries data.
            let content = if trimmed.starts_with("#part-number") {
                &trimmed[1..]
            } else {
                raw.split('#').next().unwrap_or("")
            };
            let words: Vec<&str> = content.split_whitespace().collect();
            if !words.is_empty() {
                lines.push(Line { off, words });
            }
            off += raw.len() as u64;
        }
        lines
    }
}

impl<'s, 'a> Lines<'s, 'a> {
    fn next(&mut self) -> Option<&'s Line<'a>> {
        let l = self.lines.get(self.pos);
        self.pos += 1;
        l
    }

    fn peek(&self) -> Option<&'s Line<'a>> {
        self.lines.get(self.pos)
    }

    fn remaining(&self) -> usize {
        self.lines.len().saturating_sub(self.pos)
    }

    /// `count` data rows (or up to `endlist` when `count` is `None`).
    fn rows(&mut self, count: Option<usize>, at: u64) -> Result<Vec<&'s Line<'a>>> {
        let mut out = Vec::new();
        match count {
            Some(n) => {
                if n > self.remaining() {
                    return Err(LoadError::invalid(
                        FORMAT,
                        at,
                        format!(
                            "list of {n} rows but only {} lines remain",
                            self.remaining()
                        ),
                    ));
                }
                for _ in 0..n {
                    let i = self.pos;
                    self.pos += 1;
                    out.push(i);
                }
            }
            None => loop {
                let Some(l) = self.lines.get(self.pos) else {
                    return Err(LoadError::invalid(FORMAT, at, "list without endlist"));
                };
                self.pos += 1;
                if l.words[0].eq_ignore_ascii_case("endlist") {
                    break;
                }
                out.push(self.pos - 1);
            },
        }
        Ok(out.into_iter().map(|i| &self.lines[i]).collect())
    }
}

fn num(l: &Line, i: usize) -> Result<f32> {
    let w = l.words.get(i).ok_or_else(|| {
        LoadError::invalid(
            FORMAT,
            l.off,
            format!("'{}': value {i} missing", l.words[0]),
        )
    })?;
    w.parse::<f32>()
        .map_err(|_| LoadError::invalid(FORMAT, l.off, format!("'{w}' is not a number")))
}

fn nums(l: &Line, from: usize, n: usize) -> Result<Vec<f32>> {
    (from..from + n).map(|i| num(l, i)).collect()
}

fn count(l: &Line) -> Result<Option<usize>> {
    match l.words.get(1) {
        None => Ok(None),
        Some(w) => w
            .parse::<usize>()
            .map(Some)
            .map_err(|_| LoadError::invalid(FORMAT, l.off, format!("'{w}' is not a row count"))),
    }
}

fn is_numeric(w: &str) -> bool {
    w.parse::<f32>().is_ok()
}

/// Parses an ASCII MDL; recoverable problems go to `warnings`.
pub fn parse(data: &[u8], warnings: &mut Vec<String>) -> Result<Mdl> {
    let text = String::from_utf8_lossy(data);
    let all = split_lines(&text);
    let mut lines = Lines {
        lines: &all,
        pos: 0,
    };
    let mut mdl = Mdl {
        name: String::new(),
        supermodel: None,
        classification: 0,
        animation_scale: 1.0,
        header_node_count: 0,
        nodes: Vec::new(),
        animations: Vec::new(),
        ascii: true,
    };
    let mut saw_geometry = false;
    while let Some(l) = lines.next() {
        let key = l.words[0].to_ascii_lowercase();
        let off = l.off;
        let arg = |i: usize| l.words.get(i).copied().unwrap_or("").to_string();
        match key.as_str() {
            "newmodel" => mdl.name = arg(1),
            "setsupermodel" => {
                let s = arg(2);
                mdl.supermodel = (!is_null_name(&s)).then_some(s);
            }
            "classification" => {
                mdl.classification = match arg(1).to_ascii_lowercase().as_str() {
                    "effect" => 1,
                    "tile" => 2,
                    "character" => 4,
                    "door" => 8,
                    _ => 0,
                }
            }
            "setanimationscale" => {
                let s = num(l, 1)?;
                if s.is_finite() && s > 0.0 {
                    mdl.animation_scale = s;
                }
            }
            "beginmodelgeom" => {
                mdl.nodes = parse_nodes(&mut lines, "endmodelgeom", off, warnings)?;
                saw_geometry = true;
            }
            "newanim" => {
                let name = arg(1);
                let mut anim = Animation {
                    name,
                    length: 0.0,
                    transtime: 0.25,
                    root: String::new(),
                    events: Vec::new(),
                    nodes: Vec::new(),
                };
                parse_anim(&mut lines, &mut anim, off)?;
                mdl.animations.push(anim);
            }
            _ => {}
        }
    }
    if !saw_geometry {
        return Err(LoadError::invalid(FORMAT, 0, "no beginmodelgeom block"));
    }
    if mdl.nodes.is_empty() {
        return Err(LoadError::invalid(FORMAT, 0, "model geometry has no nodes"));
    }
    mdl.header_node_count = mdl.nodes.len() as u32;
    Ok(mdl)
}

fn parse_anim(lines: &mut Lines<'_, '_>, anim: &mut Animation, at: u64) -> Result<()> {
    // Header lines up to the first node, then nodes until doneanim.
    loop {
        let Some(l) = lines.peek() else {
            return Err(LoadError::invalid(FORMAT, at, "newanim without doneanim"));
        };
        let key = l.words[0].to_ascii_lowercase();
        match key.as_str() {
            "length" => anim.length = num(l, 1)?.max(0.0),
            "transtime" => anim.transtime = num(l, 1)?,
            "animroot" => anim.root = l.words.get(1).copied().unwrap_or("").to_string(),
            "event" => anim.events.push((
                num(l, 1)?,
                l.words.get(2).copied().unwrap_or("").to_string(),
            )),
            "node" | "doneanim" => break,
            _ => {}
        }
        lines.next();
    }
    // Animation nodes are matched to the model by name; their parent links do not matter, so
    // problems with them are not reported.
    anim.nodes = parse_nodes(lines, "doneanim", at, &mut Vec::new())?;
    if !anim.length.is_finite() {
        anim.length = 0.0;
    }
    Ok(())
}

/// Raw node as read, before parents are linked.
struct RawNode {
    node: Node,
    parent_name: String,
    weights: Vec<Vec<(String, f32)>>,
    tverts: Vec<[f32; 2]>,
    off: u64,
}

fn parse_nodes(
    lines: &mut Lines<'_, '_>,
    end: &str,
    at: u64,
    warnings: &mut Vec<String>,
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
        let key = l.words[0].to_ascii_lowercase();
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
        let type_word = l.words.get(1).copied().unwrap_or("");
        let kind = NodeKind::from_name(type_word).ok_or_else(|| {
            LoadError::invalid(FORMAT, off, format!("unknown node type '{type_word}'"))
        })?;
        let name = l.words.get(2).copied().unwrap_or("").to_string();
        raw.push(parse_node(lines, kind, name, off)?);
    }
    link(raw, warnings)
}

fn parse_node(
    lines: &mut Lines<'_, '_>,
    kind: NodeKind,
    name: String,
    off: u64,
) -> Result<RawNode> {
    let mut node = Node {
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
    };
    let mut parent_name = String::new();
    let mut weights = Vec::new();
    let mut tverts = Vec::new();
    loop {
        let Some(l) = lines.next() else {
            return Err(LoadError::invalid(FORMAT, off, "node without endnode"));
        };
        let key = l.words[0].to_ascii_lowercase();
        if is_numeric(&key) {
            continue; // data row of a list keyword we do not read
        }
        let lo = l.off;
        let static_ctl = |ty, v: Vec<f32>| Controller {
            ty,
            times: vec![0.0],
            columns: v.len(),
            values: v,
            bezier: false,
        };
        match key.as_str() {
            "endnode" => break,
            "part-number" => node.part = num(l, 1)? as i32,
            "parent" => parent_name = l.words.get(1).copied().unwrap_or("").to_string(),
            "position" => node
                .controllers
                .push(static_ctl(ControllerType::POSITION, nums(l, 1, 3)?)),
            "orientation" => {
                let v = nums(l, 1, 4)?;
                let q = quat_from_axis_angle([v[0], v[1], v[2]], v[3]);
                node.controllers
                    .push(static_ctl(ControllerType::ORIENTATION, q.to_vec()));
            }
            "scale" => node
                .controllers
                .push(static_ctl(ControllerType::SCALE, nums(l, 1, 1)?)),
            "alpha" if node.mesh.is_some() => node
                .controllers
                .push(static_ctl(ControllerType::ALPHA, nums(l, 1, 1)?)),
            _ if key.ends_with("key") => {
                let bezier = key.ends_with("bezierkey");
                let base = key.trim_end_matches("bezierkey").trim_end_matches("key");
                let (ty, cols) = match base {
                    "position" => (Some(ControllerType::POSITION), 3),
                    "orientation" => (Some(ControllerType::ORIENTATION), 4),
                    "scale" => (Some(ControllerType::SCALE), 1),
                    "alpha" if node.kind != NodeKind::Emitter => (Some(ControllerType::ALPHA), 1),
                    _ if node.kind == NodeKind::Emitter => match mdl::emitter_controller(base) {
                        Some((ty, cols)) => (Some(ty), cols),
                        None => (None, 0),
                    },
                    _ => (None, 0),
                };
                let n = count(l)?;
                let rows = lines.rows(n, lo)?;
                let Some(ty) = ty else { continue };
                let stride = if bezier { cols * 3 } else { cols };
                let mut c = Controller {
                    ty,
                    times: Vec::with_capacity(rows.len()),
                    values: Vec::with_capacity(rows.len() * stride),
                    columns: cols,
                    bezier,
                };
                for r in rows {
                    c.times.push(num(r, 0)?);
                    let v = nums(r, 1, stride)?;
                    if ty == ControllerType::ORIENTATION {
                        c.values
                            .extend(quat_from_axis_angle([v[0], v[1], v[2]], v[3]));
                        // Bezier handles of axis-angle rows are not meaningful as quaternions.
                        c.values.extend(std::iter::repeat_n(0.0, stride - 4));
                    } else {
                        c.values.extend(v);
                    }
                }
                node.controllers.push(c);
            }
            "constraints" if node.kind == NodeKind::Dangly => {
                let rows = lines.rows(count(l)?, lo)?;
                if let NodeDetail::Dangly {
                    constraints,
                    weights,
                    ..
                } = &mut node.detail
                {
                    for r in rows {
                        weights.push(num(r, 0)?);
                    }
                    *constraints = weights.len() as u32;
                }
            }
            _ if set_detail(&mut node.detail, &key, l)? => {}
            _ if node.kind == NodeKind::Emitter => {
                if let Some((ty, cols)) = mdl::emitter_controller(&key) {
                    node.controllers.push(static_ctl(ty, nums(l, 1, cols)?));
                }
            }
            _ => {
                let Some(m) = node.mesh.as_mut() else {
                    continue;
                };
                match key.as_str() {
                    "bitmap" | "texture0" => m.textures[0] = word_or_empty(l),
                    "texture1" => m.textures[1] = word_or_empty(l),
                    "texture2" => m.textures[2] = word_or_empty(l),
                    "texture3" => m.textures[3] = word_or_empty(l),
                    "diffuse" => {
                        let v = nums(l, 1, 3)?;
                        m.diffuse = [v[0], v[1], v[2]];
                    }
                    "render" => m.render = num(l, 1)? != 0.0 && node.kind != NodeKind::Aabb,
                    "transparencyhint" => m.transparency_hint = num(l, 1)?.max(0.0) as u32,
                    "verts" => {
                        for r in lines.rows(count(l)?, lo)? {
                            let v = nums(r, 0, 3)?;
                            m.vertices.push([v[0], v[1], v[2]]);
                        }
                    }
                    "tverts" => {
                        for r in lines.rows(count(l)?, lo)? {
                            let v = nums(r, 0, 2)?;
                            tverts.push([v[0], v[1]]);
                        }
                    }
                    "faces" => {
                        for r in lines.rows(count(l)?, lo)? {
                            let v = nums(r, 0, 7)?;
                            let idx = |x: f32| {
                                if x >= 0.0 && x < u32::MAX as f32 {
                                    x as u32
                                } else {
                                    u32::MAX
                                }
                            };
                            m.faces.push(MeshFace {
                                v: [idx(v[0]), idx(v[1]), idx(v[2])],
                                surface: idx(v[3]),
                                t: [idx(v[4]), idx(v[5]), idx(v[6])],
                            });
                        }
                    }
                    "weights" => {
                        for r in lines.rows(count(l)?, lo)? {
                            let mut lanes = Vec::new();
                            for pair in r.words.chunks(2) {
                                if let [bone, w] = pair {
                                    let w: f32 = w.parse().map_err(|_| {
                                        LoadError::invalid(
                                            FORMAT,
                                            r.off,
                                            format!("'{w}' is not a weight"),
                                        )
                                    })?;
                                    lanes.push((bone.to_string(), w));
                                }
                            }
                            weights.push(lanes);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(RawNode {
        node,
        parent_name,
        weights,
        tverts,
        off,
    })
}

/// Reads a line belonging to a node's sub-structure into `detail`; false when `key` is not
/// one of its fields.
fn set_detail(detail: &mut NodeDetail, key: &str, l: &Line) -> Result<bool> {
    let word = || l.words.get(1).copied().unwrap_or("").to_string();
    match (detail, key) {
        (NodeDetail::Light { flare_radius, .. }, "flareradius") => *flare_radius = num(l, 1)?,
        (NodeDetail::Light { priority, .. }, "lightpriority") => {
            *priority = num(l, 1)?.max(0.0) as u32
        }
        (NodeDetail::Light { ambient_only, .. }, "ambientonly") => {
            *ambient_only = num(l, 1)? != 0.0
        }
        (NodeDetail::Light { shadow, .. }, "shadow") => *shadow = num(l, 1)? != 0.0,
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
        (NodeDetail::Emitter { looping, .. }, "loop") => *looping = num(l, 1)? != 0.0,
        (NodeDetail::Emitter { renderorder, .. }, "renderorder") => {
            *renderorder = num(l, 1)?.clamp(0.0, 65535.0) as u16
        }
        (NodeDetail::Emitter { flags, .. }, k) if mdl::EmitterFlags::from_keyword(k).is_some() => {
            let bit = mdl::EmitterFlags::from_keyword(k).unwrap_or(0);
            if num(l, 1)? != 0.0 {
                *flags |= bit;
            } else {
                *flags &= !bit;
            }
        }
        (NodeDetail::Reference { model, .. }, "refmodel") => *model = word(),
        (NodeDetail::Reference { reattachable, .. }, "reattachable") => {
            *reattachable = num(l, 1)? != 0.0
        }
        (NodeDetail::Dangly { displacement, .. }, "displacement") => *displacement = num(l, 1)?,
        (NodeDetail::Dangly { tightness, .. }, "tightness") => *tightness = num(l, 1)?,
        (NodeDetail::Dangly { period, .. }, "period") => *period = num(l, 1)?,
        (NodeDetail::AnimMesh { sample_period, .. }, "sampleperiod") => *sample_period = num(l, 1)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn word_or_empty(l: &Line) -> String {
    let w = l.words.get(1).copied().unwrap_or("");
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
                    _ => {
                        warnings.push(format!(
                            "node '{}': parent '{}' not found; treated as a root",
                            r.node.name, r.parent_name
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
        warnings.push(format!(
            "{} nodes sit on a parent cycle and are dropped",
            raw.len() - order.len()
        ));
    }
    let names: Vec<String> = order.iter().map(|&i| raw[i].node.name.clone()).collect();
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

fn finish_mesh(m: &mut Mesh, r: &RawNode, names: &[String], warnings: &mut Vec<String>) {
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
        let mut missing: Vec<&str> = Vec::new();
        m.skin = r
            .weights
            .iter()
            .map(|lanes| {
                lanes
                    .iter()
                    .filter(|(_, w)| *w > 0.0)
                    .filter_map(|(bone, w)| {
                        let n = names.iter().position(|n| n.eq_ignore_ascii_case(bone));
                        if n.is_none() && !missing.contains(&bone.as_str()) {
                            missing.push(bone);
                        }
                        n.map(|n| (n, w.min(1.0)))
                    })
                    .collect()
            })
            .collect();
        m.skin.resize(m.vertices.len(), Vec::new());
        if !missing.is_empty() {
            warnings.push(format!(
                "skin node '{}': bones {missing:?} not found; their weights are dropped",
                r.node.name
            ));
        }
    }
}
