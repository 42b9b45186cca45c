//! Writer of synthetic binary MDLs for tests: dummy, trimesh and skin nodes with controllers
//! (static, keyed, bezier, detonate) and animations, laid out as [`super::binary`] reads them
//! (model data from byte 12, raw vertex data after it, null raw pointers 0xFFFFFFFF).

/// A controller as stored: `columns` is the raw byte (bit 0x10 = bezier, 0xFF = detonate).
#[derive(Clone, Debug, Default)]
pub struct BuildController {
    /// Controller type number.
    pub ty: u32,
    /// Key times.
    pub times: Vec<f32>,
    /// Values, `rows × stride`.
    pub values: Vec<f32>,
    /// Raw column byte.
    pub columns: u8,
}

impl BuildController {
    /// A static position.
    pub fn position(p: [f32; 3]) -> Self {
        Self::keyed(8, &[0.0], &p, 3)
    }
    /// A static orientation quaternion (x, y, z, w).
    pub fn orientation(q: [f32; 4]) -> Self {
        Self::keyed(20, &[0.0], &q, 4)
    }
    /// A linear keyed controller.
    pub fn keyed(ty: u32, times: &[f32], values: &[f32], columns: u8) -> Self {
        BuildController {
            ty,
            times: times.to_vec(),
            values: values.to_vec(),
            columns,
        }
    }
}

/// Skin weights: `bone_parts[slot]` = part number of a bone node; lanes index slots.
#[derive(Clone, Debug, Default)]
pub struct BuildSkin {
    /// Part numbers per slot (up to 17).
    pub bone_parts: Vec<i16>,
    /// Slot per lane per vertex (0xFFFF = unused).
    pub lanes: Vec<[u16; 4]>,
    /// Weight per lane per vertex.
    pub weights: Vec<[f32; 4]>,
}

/// Mesh data of a trimesh or skin node.
#[derive(Clone, Debug, Default)]
pub struct BuildMesh {
    /// Positions.
    pub vertices: Vec<[f32; 3]>,
    /// Normals (empty = none).
    pub normals: Vec<[f32; 3]>,
    /// UVs (empty = none).
    pub uvs: Vec<[f32; 2]>,
    /// Triangles.
    pub faces: Vec<[u16; 3]>,
    /// Texture 0 name.
    pub texture: String,
    /// Render flag.
    pub render: bool,
    /// Skin weights (makes the node a skin).
    pub skin: Option<BuildSkin>,
}

/// A node and its subtree.
#[derive(Clone, Debug, Default)]
pub struct BuildNode {
    /// Name (≤ 31 bytes).
    pub name: String,
    /// Part number.
    pub part: i32,
    /// Controllers.
    pub controllers: Vec<BuildController>,
    /// Mesh (trimesh or skin) or `None` (dummy).
    pub mesh: Option<BuildMesh>,
    /// Children.
    pub children: Vec<BuildNode>,
}

impl BuildNode {
    /// A dummy named `name` with part number `part`.
    pub fn dummy(name: &str, part: i32) -> Self {
        BuildNode {
            name: name.into(),
            part,
            ..Default::default()
        }
    }
}

/// An animation.
#[derive(Clone, Debug, Default)]
pub struct BuildAnimation {
    /// Name.
    pub name: String,
    /// Length in seconds.
    pub length: f32,
    /// Root of its node tree.
    pub root: BuildNode,
}

/// A whole model.
#[derive(Clone, Debug, Default)]
pub struct BuildModel {
    /// Model name.
    pub name: String,
    /// Supermodel name ("" = none).
    pub supermodel: String,
    /// Animation scale.
    pub animation_scale: f32,
    /// Geometry root.
    pub root: BuildNode,
    /// Animations.
    pub animations: Vec<BuildAnimation>,
}

struct Writer {
    md: Vec<u8>,
    raw: Vec<u8>,
}

impl Writer {
    fn alloc(&mut self, len: usize) -> usize {
        while !self.md.len().is_multiple_of(4) {
            self.md.push(0);
        }
        let off = self.md.len();
        self.md.resize(off + len, 0);
        off
    }
    fn put_u32(&mut self, at: usize, v: u32) {
        self.md[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, at: usize, v: f32) {
        self.put_u32(at, v.to_bits());
    }
    fn put_str(&mut self, at: usize, s: &str, max: usize) {
        let b = s.as_bytes();
        let n = b.len().min(max - 1);
        self.md[at..at + n].copy_from_slice(&b[..n]);
    }
    /// Appends `bytes` to model data and writes the array header `{ptr, n, n}` at `at`.
    fn array(&mut self, at: usize, bytes: &[u8], count: usize) {
        if count == 0 {
            return;
        }
        let off = self.alloc(bytes.len());
        self.md[off..off + bytes.len()].copy_from_slice(bytes);
        self.put_u32(at, off as u32);
        self.put_u32(at + 4, count as u32);
        self.put_u32(at + 8, count as u32);
    }
    /// Appends to raw data and writes the raw pointer at `at`.
    fn raw(&mut self, at: usize, bytes: &[u8]) {
        let off = self.raw.len();
        self.raw.extend_from_slice(bytes);
        self.put_u32(at, off as u32);
    }

    fn node(&mut self, n: &BuildNode) -> usize {
        let (flags, size) = match &n.mesh {
            None => (0x001, 0x70),
            Some(m) if m.skin.is_some() => (0x061, 0x2D4),
            Some(_) => (0x021, 0x270),
        };
        let o = self.alloc(size);
        self.put_u32(o + 0x1C, n.part as u32);
        self.put_str(o + 0x20, &n.name, 32);
        self.put_u32(o + 0x6C, flags);
        // Controllers.
        let mut keys = Vec::new();
        let mut floats: Vec<u8> = Vec::new();
        for c in &n.controllers {
            let time_index = floats.len() / 4;
            floats.extend(c.times.iter().flat_map(|t| t.to_le_bytes()));
            let data_index = floats.len() / 4;
            floats.extend(c.values.iter().flat_map(|t| t.to_le_bytes()));
            keys.extend_from_slice(&c.ty.to_le_bytes());
            keys.extend_from_slice(&(c.times.len() as u16).to_le_bytes());
            keys.extend_from_slice(&(time_index as u16).to_le_bytes());
            keys.extend_from_slice(&(data_index as u16).to_le_bytes());
            keys.extend_from_slice(&[c.columns, 0]);
        }
        self.array(o + 0x54, &keys, n.controllers.len());
        self.array(o + 0x60, &floats.clone(), floats.len() / 4);
        if let Some(m) = &n.mesh {
            self.mesh(o, m);
        }
        let kids: Vec<u8> = n
            .children
            .iter()
            .flat_map(|c| (self.node(c) as u32).to_le_bytes())
            .collect();
        self.array(o + 0x48, &kids, n.children.len());
        o
    }

    fn mesh(&mut self, o: usize, m: &BuildMesh) {
        for at in (0x21C..=0x260).step_by(4) {
            if at != 0x220 && at != 0x224 && at != 0x228 && at != 0x230 {
                self.put_u32(o + at, 0xFFFF_FFFF);
            }
        }
        for k in 0..3 {
            self.put_f32(o + 0xAC + 4 * k, 1.0);
        }
        self.put_u32(o + 0xDC, u32::from(m.render));
        self.put_str(o + 0xE8, &m.texture, 64);
        self.md[o + 0x224] = 3;
        let faces: Vec<u8> = m
            .faces
            .iter()
            .flat_map(|f| {
                let mut b = vec![0u8; 32];
                for k in 0..3 {
                    b[0x14 + 2 * k..0x16 + 2 * k].copy_from_slice(&(-1i16).to_le_bytes());
                    b[0x1A + 2 * k..0x1C + 2 * k].copy_from_slice(&f[k].to_le_bytes());
                }
                b
            })
            .collect();
        self.array(o + 0x78, &faces, m.faces.len());
        let f3 = |v: &[[f32; 3]]| -> Vec<u8> {
            v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect()
        };
        self.raw(o + 0x22C, &f3(&m.vertices));
        self.md[o + 0x230..o + 0x232].copy_from_slice(&(m.vertices.len() as u16).to_le_bytes());
        self.md[o + 0x232..o + 0x234].copy_from_slice(&u16::from(!m.uvs.is_empty()).to_le_bytes());
        if !m.uvs.is_empty() {
            let b: Vec<u8> = m
                .uvs
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            self.raw(o + 0x234, &b);
        }
        if !m.normals.is_empty() {
            self.raw(o + 0x244, &f3(&m.normals));
        }
        if let Some(s) = &m.skin {
            let s0 = o + 0x270;
            let w: Vec<u8> = s
                .weights
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            self.raw(s0 + 0x0C, &w);
            let l: Vec<u8> = s
                .lanes
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            self.raw(s0 + 0x10, &l);
            for (i, p) in s.bone_parts.iter().take(17).enumerate() {
                self.md[s0 + 0x40 + 2 * i..s0 + 0x42 + 2 * i].copy_from_slice(&p.to_le_bytes());
            }
        }
    }
}

fn count_nodes(n: &BuildNode) -> u32 {
    1 + n.children.iter().map(count_nodes).sum::<u32>()
}

/// Serialises `model` as a binary MDL file.
pub fn build(model: &BuildModel) -> Vec<u8> {
    let mut w = Writer {
        md: Vec::new(),
        raw: Vec::new(),
    };
    let h = w.alloc(0xE8);
    w.put_str(h + 8, &model.name, 64);
    w.md[h + 0x6C] = 2;
    w.md[h + 0x71] = 1;
    w.md[h + 0x72] = 4;
    w.put_f32(h + 0xA0, 7.0);
    w.put_f32(h + 0xA4, model.animation_scale);
    w.put_str(
        h + 0xA8,
        if model.supermodel.is_empty() {
            "NULL"
        } else {
            &model.supermodel
        },
        64,
    );
    let root = w.node(&model.root);
    w.put_u32(h + 0x48, root as u32);
    w.put_u32(h + 0x4C, count_nodes(&model.root));
    let mut anim_ptrs = Vec::new();
    for a in &model.animations {
        let ah = w.alloc(0xC4);
        w.put_str(ah + 8, &a.name, 64);
        w.md[ah + 0x6C] = 5;
        w.put_f32(ah + 0x70, a.length);
        w.put_f32(ah + 0x74, 0.25);
        w.put_str(ah + 0x78, &model.root.name, 64);
        let r = w.node(&a.root);
        w.put_u32(ah + 0x48, r as u32);
        w.put_u32(ah + 0x4C, count_nodes(&a.root));
        anim_ptrs.extend_from_slice(&(ah as u32).to_le_bytes());
    }
    w.array(h + 0x78, &anim_ptrs, model.animations.len());
    let mut out = Vec::with_capacity(12 + w.md.len() + w.raw.len());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(w.md.len() as u32).to_le_bytes());
    out.extend_from_slice(&(w.raw.len() as u32).to_le_bytes());
    out.extend_from_slice(&w.md);
    out.extend_from_slice(&w.raw);
    out
}

/// A small model for tests: root dummy → `arm` dummy (keyed in animation `wave`) → `box`
/// trimesh (4 vertices, 2 faces, texture `tex`).
pub fn sample_model() -> BuildModel {
    let quad = BuildMesh {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 1.0],
        ],
        normals: vec![[0.0, -1.0, 0.0]; 4],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        faces: vec![[0, 1, 2], [2, 1, 3]],
        texture: "tex".into(),
        render: true,
        skin: None,
    };
    let mut mesh_node = BuildNode::dummy("box", 2);
    mesh_node.mesh = Some(quad);
    mesh_node.controllers = vec![BuildController::position([0.0, 0.0, 0.0])];
    let mut arm = BuildNode::dummy("arm", 1);
    arm.controllers = vec![
        BuildController::position([0.0, 0.0, 1.0]),
        BuildController::orientation([0.0, 0.0, 0.0, 1.0]),
    ];
    arm.children = vec![mesh_node];
    let mut root = BuildNode::dummy("synth", 0);
    root.children = vec![arm];

    let mut anim_arm = BuildNode::dummy("ARM", 1);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    anim_arm.controllers = vec![
        BuildController::keyed(8, &[0.0, 1.0], &[0.0, 0.0, 1.0, 0.0, 0.0, 3.0], 3),
        BuildController::keyed(20, &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, s], 4),
        BuildController::keyed(228, &[0.5], &[], 0xFF),
    ];
    let mut anim_root = BuildNode::dummy("synth", 0);
    anim_root.children = vec![anim_arm];
    BuildModel {
        name: "synth".into(),
        supermodel: String::new(),
        animation_scale: 1.0,
        root,
        animations: vec![BuildAnimation {
            name: "wave".into(),
            length: 1.0,
            root: anim_root,
        }],
    }
}
