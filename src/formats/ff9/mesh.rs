//! FF9 file type 0x02: the 3D model (skeleton + polygon groups), reader and writer.
//!
//! Layout (Final Fantasy Inside wiki "FF9/File/0x02", with the corrections in
//! `format-notes.md` §2.3; every pointer is relative to the model start):
//! - header 20 B: `u16 0, u8 bones, u8 groups, u16 data size, i16 x, y, z, u32 bone ptr (0x14),
//!   u32 group ptr`;
//! - bones 4 B: `u24 length (LE), u8 parent`;
//! - groups 40 B: `u16 data size, u16 counts[6] (A quads, A tris, B quads, B tris, C quads,
//!   C tris), i16 x, y, z, u32 bone-data ptr, vertex ptr, polygon ptr, UV ptr, end ptr`;
//! - vertex 8 B: `i16 x, y, z, u8 bone, u8 pad`; UV 2 B: `u8 u, v`. Neither count is stored:
//!   it is the largest index the polygons use, plus one.
//!
//! Polygon records, in the order A quads, A tris, B quads, B tris, C quads, C tris:
//! - A quad (24 B, documented): `u16 v[4], u16 uv[4], u8 rgb[3], u8 material, u32 flags`;
//! - A tri (20 B, documented): `u16 v[3], u8 material, u8 pad, u8 rgb[3], u8 pad, u16 uv[3],
//!   u16 flags` (the wiki says DWORD for the last field, which does not fit 20 bytes);
//! - **B and C beyond the vertex indices are a reconstruction** (no public data or code
//!   decodes them): B is read as the Gouraud variant whose sizes match exactly — B quad (32 B)
//!   `u16 v[4], u16 uv[4], u8 rgb[4][3], u8 material, u8 pad, u16 flags`, B tri (24 B) `u16
//!   v[3], u16 uv[3], u8 rgb[3][3], u8 material, u16 flags`; C has the same sizes as A and is
//!   read with A's layout. Both keep the wiki's rule that every polygon consumes UV entries.
//!
//! Flags: bit 0 = semi-transparent (the wiki: "packet type changing from 0x24 to 0x26"), bits
//! 5-6 = the semi-transparency mode ORed into the TPage. For A/C quads we read the trailing
//! DWORD the same way (reconstruction).

use super::WriteError;
use crate::formats::reader::Reader;
use crate::formats::Result;
use crate::read::ReadBudget;

/// Size of the model header.
pub const HEADER_SIZE: usize = 0x14;
/// Size of one group header.
pub const GROUP_HEADER_SIZE: usize = 40;

/// Most polygons one model holds, all groups together. The header's u16 data size keeps a real
/// model's group data under 64 KiB, about 3300 polygons; the cap leaves a wide margin and bounds
/// the faces every pose hands the renderer whatever the file's size.
pub const MAX_POLYGONS: u64 = 1 << 16;
/// The read budget's rate: polygon, vertex and UV arrays, a well-formed model reading each once.
pub use crate::read::budget::MODELS as BUDGET_RATE;

/// What a model may still read. Each group's counts are capped only by their 16-bit fields and
/// nothing stops 255 groups pointing at one region of the file, so only totals over all groups
/// bound what a model costs: its bytes of arrays by the read budget, its polygons by
/// [`MAX_POLYGONS`]. Every array is charged before anything is allocated for it.
struct Allowance {
    /// Bytes of arrays.
    bytes: ReadBudget,
    /// Polygons read so far.
    polygons: u64,
}

impl Allowance {
    /// The allowance of the model `r` reads.
    fn for_model(r: &Reader) -> Allowance {
        Allowance {
            bytes: ReadBudget::new(r.format(), BUDGET_RATE, r.len()),
            polygons: 0,
        }
    }

    /// Charges `n` polygons of the group whose counts are at `at`.
    fn polygons(&mut self, r: &Reader, at: u64, n: u64) -> Result<()> {
        self.polygons += n;
        r.check_count(
            at,
            self.polygons,
            MAX_POLYGONS,
            "polygons (all groups together)",
        )?;
        Ok(())
    }

    /// Charges `bytes` of an array whose pointer is at `at`.
    fn bytes(&mut self, at: u64, bytes: u64) -> Result<()> {
        let what = "bytes of polygon, vertex and UV arrays read (all groups together)";
        self.bytes.charge(at, bytes, what)
    }
}

/// The three polygon layouts of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PolyKind {
    /// Documented: one colour per polygon.
    A,
    /// Reconstructed: per-corner colours (Gouraud).
    B,
    /// Reconstructed: A's layout.
    C,
}

impl PolyKind {
    /// Record size in bytes for a quad (`true`) or a triangle.
    pub fn record_size(self, quad: bool) -> u64 {
        match (self, quad) {
            (PolyKind::A, true) | (PolyKind::C, true) => 24,
            (PolyKind::A, false) | (PolyKind::C, false) => 20,
            (PolyKind::B, true) => 32,
            (PolyKind::B, false) => 24,
        }
    }

    /// The six (kind, quad) classes in file order.
    pub const ORDER: [(PolyKind, bool); 6] = [
        (PolyKind::A, true),
        (PolyKind::A, false),
        (PolyKind::B, true),
        (PolyKind::B, false),
        (PolyKind::C, true),
        (PolyKind::C, false),
    ];

    /// Short name, e.g. "A quad".
    pub fn label(self, quad: bool) -> &'static str {
        match (self, quad) {
            (PolyKind::A, true) => "A quad",
            (PolyKind::A, false) => "A tri",
            (PolyKind::B, true) => "B quad",
            (PolyKind::B, false) => "B tri",
            (PolyKind::C, true) => "C quad",
            (PolyKind::C, false) => "C tri",
        }
    }
}

/// One polygon record, normalised: unused corners (a triangle's 4th) are zero; A and C
/// polygons carry their single colour in every used corner; triangles' and B quads' flags fit
/// 16 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Polygon {
    /// Layout.
    pub kind: PolyKind,
    /// 3 or 4.
    pub corners: u8,
    /// Vertex indices into the group's vertices, in the file's order (quads in PS1 "Z" order).
    pub vertices: [u16; 4],
    /// UV indices into the group's UV table.
    pub uvs: [u16; 4],
    /// Corner colours (128 = neutral texture modulation).
    pub colors: [[u8; 3]; 4],
    /// Material index (0x12 material, or TIM index for battle models).
    pub material: u8,
    /// Draw flags (bit 0 semi-transparent, bits 5-6 semi-transparency mode).
    pub flags: u32,
}

impl Polygon {
    /// Builds a normalised polygon from slices of 3 or 4 corners (`colors` may hold one
    /// colour for A/C).
    pub fn new(
        kind: PolyKind,
        vertices: &[u16],
        uvs: &[u16],
        colors: &[[u8; 3]],
        material: u8,
        flags: u32,
    ) -> Polygon {
        let corners = vertices.len().clamp(3, 4) as u8;
        let mut p = Polygon {
            kind,
            corners,
            vertices: [0; 4],
            uvs: [0; 4],
            colors: [[0; 3]; 4],
            material,
            flags,
        };
        for i in 0..corners as usize {
            p.vertices[i] = vertices.get(i).copied().unwrap_or(0);
            p.uvs[i] = uvs.get(i).copied().unwrap_or(0);
            p.colors[i] = match kind {
                PolyKind::B => colors
                    .get(i)
                    .or(colors.first())
                    .copied()
                    .unwrap_or([128; 3]),
                _ => colors.first().copied().unwrap_or([128; 3]),
            };
        }
        if corners == 3 || kind == PolyKind::B {
            p.flags &= 0xFFFF;
        }
        p
    }

    /// True for a four-corner polygon.
    pub fn is_quad(&self) -> bool {
        self.corners == 4
    }

    /// Semi-transparent (flags bit 0).
    pub fn semi_transparent(&self) -> bool {
        self.flags & 1 != 0
    }
}

/// One skeleton bone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bone {
    /// Distance from the parent along the parent's +Z (24-bit).
    pub length: u32,
    /// Parent bone (ignored for bone 0, the root).
    pub parent: u8,
}

/// A vertex in its bone's local space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupVertex {
    /// Position, bone-local, PS1 axes (-Y up).
    pub position: [i16; 3],
    /// The bone it follows.
    pub bone: u8,
}

/// A polygon group.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Group {
    /// The header's X/Y/Z offset (kept and shown; its use is unknown, not applied).
    pub offset: [i16; 3],
    /// Vertices.
    pub vertices: Vec<GroupVertex>,
    /// UV pairs.
    pub uvs: Vec<[u8; 2]>,
    /// Polygons, in file order (A quads, A tris, B quads, B tris, C quads, C tris).
    pub polygons: Vec<Polygon>,
}

impl Group {
    /// Polygons of one class.
    pub fn count(&self, kind: PolyKind, quad: bool) -> usize {
        self.polygons
            .iter()
            .filter(|p| p.kind == kind && p.is_quad() == quad)
            .count()
    }
}

/// A type-0x02 model.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Mesh {
    /// The header's X/Y/Z words (the wiki's "unknown IDs").
    pub position: [i16; 3],
    /// Bones; bone 0 is the root.
    pub bones: Vec<Bone>,
    /// Polygon groups.
    pub groups: Vec<Group>,
}

impl Mesh {
    /// Parses a type-0x02 model from `data` (the model's bytes; offsets in errors are
    /// relative to its start).
    pub fn parse(data: &[u8]) -> Result<Mesh> {
        let r = Reader::new(data, "FF9 model");
        let zero = r.u16_at(0, "model header")?;
        if zero != 0 {
            return Err(r.invalid(0, format!("model header starts 0x{zero:04x}, not 0")));
        }
        let bone_count = u64::from(r.u8_at(2, "bone count")?);
        let group_count = u64::from(r.u8_at(3, "group count")?);
        if bone_count == 0 {
            return Err(r.invalid(2, "model has no bones"));
        }
        let position = [
            r.i16_at(6, "model x")?,
            r.i16_at(8, "model y")?,
            r.i16_at(10, "model z")?,
        ];
        let bone_ptr = u64::from(r.u32_at(0x0C, "bone pointer")?);
        let group_ptr = u64::from(r.u32_at(0x10, "group pointer")?);
        let bone_bytes = r.array(0x0C, bone_ptr, bone_count, 4, "bone headers")?;
        let mut bones = Vec::with_capacity(bone_count as usize);
        for (i, b) in bone_bytes.chunks_exact(4).enumerate() {
            let parent = b[3];
            if i > 0 && u64::from(parent) >= i as u64 {
                return Err(r.invalid(
                    bone_ptr + i as u64 * 4 + 3,
                    format!("bone {i} has parent {parent}, which does not precede it"),
                ));
            }
            bones.push(Bone {
                length: u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16,
                parent,
            });
        }
        r.array(
            0x10,
            group_ptr,
            group_count,
            GROUP_HEADER_SIZE as u64,
            "group headers",
        )?;
        let mut allowance = Allowance::for_model(&r);
        let mut groups = Vec::with_capacity(group_count as usize);
        for g in 0..group_count {
            groups.push(parse_group(
                &r,
                group_ptr + g * GROUP_HEADER_SIZE as u64,
                bones.len(),
                &mut allowance,
            )?);
        }
        Ok(Mesh {
            position,
            bones,
            groups,
        })
    }

    /// Writes the model in the layout [`Mesh::parse`] reads.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        if self.bones.is_empty() || self.bones.len() > 255 || self.groups.len() > 255 {
            return Err(WriteError::new(
                "a model needs 1..=255 bones and <= 255 groups",
            ));
        }
        let mut out = vec![0u8; HEADER_SIZE];
        out[2] = self.bones.len() as u8;
        out[3] = self.groups.len() as u8;
        for (i, v) in self.position.iter().enumerate() {
            out[6 + 2 * i..8 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        out[0x0C..0x10].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        for b in &self.bones {
            if b.length > 0xFF_FFFF {
                return Err(WriteError::new("bone length exceeds 24 bits"));
            }
            out.extend_from_slice(&b.length.to_le_bytes()[..3]);
            out.push(b.parent);
        }
        let group_ptr = out.len();
        out[0x10..0x14].copy_from_slice(&(group_ptr as u32).to_le_bytes());
        out.resize(group_ptr + GROUP_HEADER_SIZE * self.groups.len(), 0);
        let headers_end = out.len();
        for (gi, g) in self.groups.iter().enumerate() {
            let h = group_ptr + gi * GROUP_HEADER_SIZE;
            let start = out.len();
            let mut header = [0u8; GROUP_HEADER_SIZE];
            for (i, (kind, quad)) in PolyKind::ORDER.iter().enumerate() {
                let n = g.count(*kind, *quad);
                let n = u16::try_from(n).map_err(|_| WriteError::new("too many polygons"))?;
                header[2 + 2 * i..4 + 2 * i].copy_from_slice(&n.to_le_bytes());
            }
            for (i, v) in g.offset.iter().enumerate() {
                header[0x0E + 2 * i..0x10 + 2 * i].copy_from_slice(&v.to_le_bytes());
            }
            // Bone data chunk: vertices per bone.
            let bone_data = out.len();
            for b in 0..self.bones.len() {
                let n = g
                    .vertices
                    .iter()
                    .filter(|v| usize::from(v.bone) == b)
                    .count() as u32;
                out.extend_from_slice(&n.to_le_bytes());
            }
            let vertex_ptr = out.len();
            for v in &g.vertices {
                for c in v.position {
                    out.extend_from_slice(&c.to_le_bytes());
                }
                out.push(v.bone);
                out.push(0);
            }
            let poly_ptr = out.len();
            for (kind, quad) in PolyKind::ORDER {
                for p in g
                    .polygons
                    .iter()
                    .filter(|p| p.kind == kind && p.is_quad() == quad)
                {
                    write_polygon(&mut out, p);
                }
            }
            let uv_ptr = out.len();
            for uv in &g.uvs {
                out.extend_from_slice(uv);
            }
            while !out.len().is_multiple_of(4) {
                out.push(0);
            }
            let end = out.len();
            let size = u16::try_from(end - start)
                .map_err(|_| WriteError::new("group data exceeds 64 KiB"))?;
            header[0..2].copy_from_slice(&size.to_le_bytes());
            for (i, p) in [bone_data, vertex_ptr, poly_ptr, uv_ptr, end]
                .iter()
                .enumerate()
            {
                header[0x14 + 4 * i..0x18 + 4 * i].copy_from_slice(&(*p as u32).to_le_bytes());
            }
            out[h..h + GROUP_HEADER_SIZE].copy_from_slice(&header);
        }
        let data_size = u16::try_from(out.len() - headers_end)
            .map_err(|_| WriteError::new("model data exceeds 64 KiB"))?;
        out[4..6].copy_from_slice(&data_size.to_le_bytes());
        Ok(out)
    }
}

fn u16s<const N: usize>(b: &[u8]) -> [u16; N] {
    std::array::from_fn(|i| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
}

fn rgb(b: &[u8]) -> [u8; 3] {
    [b[0], b[1], b[2]]
}

fn parse_polygon(kind: PolyKind, quad: bool, b: &[u8]) -> Polygon {
    let le16 = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    match (kind, quad) {
        (PolyKind::A | PolyKind::C, true) => Polygon::new(
            kind,
            &u16s::<4>(&b[0..8]),
            &u16s::<4>(&b[8..16]),
            &[rgb(&b[16..19])],
            b[19],
            u32::from_le_bytes([b[20], b[21], b[22], b[23]]),
        ),
        (PolyKind::A | PolyKind::C, false) => Polygon::new(
            kind,
            &u16s::<3>(&b[0..6]),
            &u16s::<3>(&b[12..18]),
            &[rgb(&b[8..11])],
            b[6],
            u32::from(le16(18)),
        ),
        (PolyKind::B, true) => Polygon::new(
            kind,
            &u16s::<4>(&b[0..8]),
            &u16s::<4>(&b[8..16]),
            &[
                rgb(&b[16..19]),
                rgb(&b[19..22]),
                rgb(&b[22..25]),
                rgb(&b[25..28]),
            ],
            b[28],
            u32::from(le16(30)),
        ),
        (PolyKind::B, false) => Polygon::new(
            kind,
            &u16s::<3>(&b[0..6]),
            &u16s::<3>(&b[6..12]),
            &[rgb(&b[12..15]), rgb(&b[15..18]), rgb(&b[18..21])],
            b[21],
            u32::from(le16(22)),
        ),
    }
}

fn write_polygon(out: &mut Vec<u8>, p: &Polygon) {
    let n = p.corners as usize;
    let mut rec = vec![0u8; p.kind.record_size(p.is_quad()) as usize];
    let put16 = |rec: &mut [u8], o: usize, v: u16| rec[o..o + 2].copy_from_slice(&v.to_le_bytes());
    for i in 0..n {
        put16(&mut rec, 2 * i, p.vertices[i]);
    }
    match (p.kind, p.is_quad()) {
        (PolyKind::A | PolyKind::C, true) => {
            for i in 0..4 {
                put16(&mut rec, 8 + 2 * i, p.uvs[i]);
            }
            rec[16..19].copy_from_slice(&p.colors[0]);
            rec[19] = p.material;
            rec[20..24].copy_from_slice(&p.flags.to_le_bytes());
        }
        (PolyKind::A | PolyKind::C, false) => {
            rec[6] = p.material;
            rec[8..11].copy_from_slice(&p.colors[0]);
            for i in 0..3 {
                put16(&mut rec, 12 + 2 * i, p.uvs[i]);
            }
            put16(&mut rec, 18, p.flags as u16);
        }
        (PolyKind::B, true) => {
            for i in 0..4 {
                put16(&mut rec, 8 + 2 * i, p.uvs[i]);
                rec[16 + 3 * i..19 + 3 * i].copy_from_slice(&p.colors[i]);
            }
            rec[28] = p.material;
            put16(&mut rec, 30, p.flags as u16);
        }
        (PolyKind::B, false) => {
            for i in 0..3 {
                put16(&mut rec, 6 + 2 * i, p.uvs[i]);
                rec[12 + 3 * i..15 + 3 * i].copy_from_slice(&p.colors[i]);
            }
            rec[21] = p.material;
            put16(&mut rec, 22, p.flags as u16);
        }
    }
    out.extend_from_slice(&rec);
}

fn parse_group(r: &Reader, h: u64, bone_count: usize, allow: &mut Allowance) -> Result<Group> {
    let mut counts = [0u64; 6];
    for (i, c) in counts.iter_mut().enumerate() {
        *c = u64::from(r.u16_at(h + 2 + 2 * i as u64, "polygon count")?);
    }
    allow.polygons(r, h + 2, counts.iter().sum())?;
    let offset = [
        r.i16_at(h + 0x0E, "group x")?,
        r.i16_at(h + 0x10, "group y")?,
        r.i16_at(h + 0x12, "group z")?,
    ];
    let vertex_ptr = u64::from(r.u32_at(h + 0x18, "vertex pointer")?);
    let poly_ptr = u64::from(r.u32_at(h + 0x1C, "polygon pointer")?);
    let uv_ptr = u64::from(r.u32_at(h + 0x20, "UV pointer")?);
    let mut polygons = Vec::new();
    let mut off = poly_ptr;
    for ((kind, quad), &n) in PolyKind::ORDER.iter().zip(&counts) {
        let size = kind.record_size(*quad);
        let bytes = r.array(h + 0x1C, off, n, size, "polygon records")?;
        allow.bytes(h + 0x1C, bytes.len() as u64)?;
        polygons.reserve(n as usize);
        for rec in bytes.chunks_exact(size as usize) {
            polygons.push(parse_polygon(*kind, *quad, rec));
        }
        off += n * size;
    }
    let used = |f: fn(&Polygon) -> &[u16; 4]| {
        polygons
            .iter()
            .flat_map(|p| f(p)[..p.corners as usize].iter().copied())
            .map(|i| u64::from(i) + 1)
            .max()
            .unwrap_or(0)
    };
    let vertex_count = used(|p| &p.vertices);
    let uv_count = used(|p| &p.uvs);
    let vbytes = r.array(h + 0x18, vertex_ptr, vertex_count, 8, "vertex array")?;
    allow.bytes(h + 0x18, vbytes.len() as u64)?;
    let mut vertices = Vec::with_capacity(vertex_count as usize);
    for (i, v) in vbytes.chunks_exact(8).enumerate() {
        let bone = v[6];
        if usize::from(bone) >= bone_count {
            return Err(r.invalid(
                vertex_ptr + i as u64 * 8 + 6,
                format!("vertex {i} names bone {bone}, but the model has {bone_count}"),
            ));
        }
        let [x, y, z] = u16s::<3>(&v[0..6]);
        vertices.push(GroupVertex {
            position: [x as i16, y as i16, z as i16],
            bone,
        });
    }
    let uvbytes = r.array(h + 0x20, uv_ptr, uv_count, 2, "UV array")?;
    allow.bytes(h + 0x20, uvbytes.len() as u64)?;
    let uvs = uvbytes.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    Ok(Group {
        offset,
        vertices,
        uvs,
        polygons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ErrorKind;

    fn one_poly_mesh(p: Polygon) -> Mesh {
        let n = p.corners as usize;
        Mesh {
            position: [1, -2, 3],
            bones: vec![Bone {
                length: 0x12_3456,
                parent: 0,
            }],
            groups: vec![Group {
                offset: [4, 5, 6],
                vertices: (0..n as i16)
                    .map(|i| GroupVertex {
                        position: [i, -i, 100 * i],
                        bone: 0,
                    })
                    .collect(),
                uvs: (0..n as u8).map(|i| [i, 255 - i]).collect(),
                polygons: vec![p],
            }],
        }
    }

    /// The documented A-triangle field offsets (wiki): material at 6, colour at 8, UV indices
    /// at 12, flags at 18; the bone length is 24-bit little-endian.
    #[test]
    fn a_triangle_bytes_sit_where_the_wiki_says() {
        let p = Polygon::new(
            PolyKind::A,
            &[2, 0, 1],
            &[1, 2, 0],
            &[[9, 8, 7]],
            0x33,
            0x61,
        );
        let m = one_poly_mesh(p);
        let bytes = m.write().unwrap();
        assert_eq!(&bytes[0x14..0x18], &[0x56, 0x34, 0x12, 0]);
        let poly = u32::from_le_bytes(bytes[0x18 + 0x1C..0x18 + 0x20].try_into().unwrap());
        let rec = &bytes[poly as usize..poly as usize + 20];
        assert_eq!(&rec[0..6], &[2, 0, 0, 0, 1, 0]);
        assert_eq!(rec[6], 0x33);
        assert_eq!(&rec[8..11], &[9, 8, 7]);
        assert_eq!(&rec[12..18], &[1, 0, 2, 0, 0, 0]);
        assert_eq!(&rec[18..20], &[0x61, 0]);
        assert_eq!(Mesh::parse(&bytes).unwrap(), m);
    }

    #[test]
    fn every_layout_round_trips() {
        for (kind, quad) in PolyKind::ORDER {
            let v: &[u16] = if quad { &[0, 1, 3, 2] } else { &[0, 2, 1] };
            let colors = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]];
            let p = Polygon::new(kind, v, v, &colors, 7, 0x0001_0021);
            let m = one_poly_mesh(p);
            let bytes = m.write().unwrap();
            let back = Mesh::parse(&bytes).unwrap();
            assert_eq!(back, m, "{}", kind.label(quad));
            let g = &back.groups[0];
            assert_eq!(g.count(kind, quad), 1);
            // Only A/C quads keep a 32-bit flags word.
            let wide = quad && kind != PolyKind::B;
            assert_eq!(g.polygons[0].flags, if wide { 0x0001_0021 } else { 0x21 });
        }
    }

    /// A bare one-bone model with one group header per entry of `regions`: group `g` reads
    /// polygon region `regions[g]` (regions may repeat, so groups share one) and every group
    /// the same vertex and UV arrays. A region holds `per_kind` zeroed records of every kind
    /// and one more A triangle; its last record, a triangle either way, names vertex and UV
    /// `last_index` in its third corner. Returns the file and where the group headers start.
    fn model_with_groups(regions: &[usize], per_kind: u16, last_index: u16) -> (Vec<u8>, u64) {
        let group_ptr = HEADER_SIZE + 4;
        let mut d = vec![0u8; group_ptr + GROUP_HEADER_SIZE * regions.len()];
        d[2] = 1;
        d[3] = regions.len() as u8;
        d[0x0C..0x10].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        d[0x10..0x14].copy_from_slice(&(group_ptr as u32).to_le_bytes());
        d[HEADER_SIZE] = 100;
        let vertex_ptr = d.len();
        d.resize(vertex_ptr + 8 * (usize::from(last_index) + 1), 0);
        let uv_ptr = d.len();
        d.resize(uv_ptr + 2 * (usize::from(last_index) + 1), 0);
        let region_size: u64 = PolyKind::ORDER
            .iter()
            .map(|(k, q)| u64::from(per_kind) * k.record_size(*q))
            .sum::<u64>()
            + 20;
        let nregions = regions.iter().max().map_or(0, |m| m + 1);
        let first_region = d.len();
        for _ in 0..nregions {
            let at = d.len() + region_size as usize - 20;
            d.resize(d.len() + region_size as usize, 0);
            // A and C triangles keep the third vertex at 4 and the third UV at 16.
            d[at + 4..at + 6].copy_from_slice(&last_index.to_le_bytes());
            d[at + 16..at + 18].copy_from_slice(&last_index.to_le_bytes());
        }
        for (g, &region) in regions.iter().enumerate() {
            let h = group_ptr + g * GROUP_HEADER_SIZE;
            let poly = first_region + region * region_size as usize;
            for (i, (kind, quad)) in PolyKind::ORDER.iter().enumerate() {
                let n = per_kind + u16::from(*kind == PolyKind::A && !*quad);
                d[h + 2 + 2 * i..h + 4 + 2 * i].copy_from_slice(&n.to_le_bytes());
            }
            for (field, ptr) in [(0x18, vertex_ptr), (0x1C, poly), (0x20, uv_ptr)] {
                d[h + field..h + field + 4].copy_from_slice(&(ptr as u32).to_le_bytes());
            }
        }
        (d, group_ptr as u64)
    }

    fn assert_refused_at(data: &[u8], at: u64, what: &str) {
        let e = Mesh::parse(data).expect_err("a model that should be refused loaded");
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
        assert!(e.to_string().contains(what), "{e}");
        assert_eq!(e.offset, at, "{e}");
    }

    /// 64 groups reading one region of 1537 polygons would materialise over 98000 polygons
    /// from a 40 KB file: the read budget refuses it at the polygon pointer of the group that goes
    /// over, before its records are read.
    #[test]
    fn groups_sharing_one_polygon_region_are_refused() {
        let (data, groups) = model_with_groups(&[0; 64], 256, 0);
        let region_bytes = 256 * (24 + 20 + 32 + 24 + 24 + 20) + 20;
        // Each group also reads one vertex (8 bytes) and one UV (2 bytes).
        let per_group = region_bytes + 10;
        let limit = BUDGET_RATE.limit(data.len() as u64);
        let k = (0..64u64)
            .find(|k| k * per_group + region_bytes > limit)
            .expect("64 groups pass the budget");
        assert!(
            (k + 1) * (6 * 256 + 1) <= MAX_POLYGONS,
            "the polygon cap would trip first"
        );
        let at = groups + k * GROUP_HEADER_SIZE as u64 + 0x1C;
        assert_refused_at(&data, at, "bytes of polygon, vertex and UV arrays");
        // Two groups sharing it are fine.
        let (data, _) = model_with_groups(&[0; 2], 256, 0);
        let m = Mesh::parse(&data).expect("two groups sharing polygons load");
        assert_eq!(m.groups[1].polygons.len(), 6 * 256 + 1);
    }

    /// One triangle per group naming vertex and UV 65535 makes each group read a 512 KiB
    /// vertex array; 16 groups sharing one would hold a million vertices.
    #[test]
    fn groups_sharing_one_vertex_array_are_refused() {
        let (data, groups) = model_with_groups(&[0; 16], 0, u16::MAX);
        // One 20-byte triangle, 65536 vertices and 65536 UVs a group.
        let per_group = 20 + 8 * 65536 + 2 * 65536;
        let limit = BUDGET_RATE.limit(data.len() as u64);
        let k = (0..16u64)
            .find(|k| (k + 1) * per_group > limit)
            .expect("16 groups pass the budget");
        let at = groups + k * GROUP_HEADER_SIZE as u64;
        let e = Mesh::parse(&data).expect_err("shared vertex arrays loaded");
        assert!(
            e.offset == at + 0x18 || e.offset == at + 0x20,
            "at 0x{:x}, expected group {k}'s vertex or UV pointer: {e}",
            e.offset
        );
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    }

    /// Past [`MAX_POLYGONS`] a model is refused at the counts of the group that goes over, even
    /// when no two groups share anything.
    #[test]
    fn more_polygons_than_the_cap_are_refused_at_the_group() {
        let regions: Vec<usize> = (0..11).collect();
        let (data, groups) = model_with_groups(&regions, 1000, 0);
        // 6001 polygons a group: the 11th passes 65536.
        assert_refused_at(
            &data,
            groups + 10 * GROUP_HEADER_SIZE as u64 + 2,
            "polygons (all groups together)",
        );
        let (data, _) = model_with_groups(&regions[..10], 1000, 0);
        let m = Mesh::parse(&data).expect("60010 polygons load");
        assert_eq!(m.groups.len(), 10);
    }

    /// The demo character (built by our writer from the documented layout) reads each array
    /// once, far inside both limits.
    #[test]
    fn the_demo_model_is_far_inside_the_limits() {
        let (mesh, ..) = super::super::demo_parts();
        let data = mesh.write().unwrap();
        let read: u64 = mesh
            .groups
            .iter()
            .map(|g| {
                let polys: u64 = g
                    .polygons
                    .iter()
                    .map(|p| p.kind.record_size(p.is_quad()))
                    .sum();
                polys + 8 * g.vertices.len() as u64 + 2 * g.uvs.len() as u64
            })
            .sum();
        let polygons: usize = mesh.groups.iter().map(|g| g.polygons.len()).sum();
        let limit = BUDGET_RATE.limit(data.len() as u64);
        println!(
            "demo model: {} bytes, {polygons} polygons, {read} bytes of arrays of {limit}",
            data.len()
        );
        assert!(read <= data.len() as u64 && polygons as u64 <= MAX_POLYGONS / 16);
        assert_eq!(Mesh::parse(&data).unwrap(), mesh);
    }

    #[test]
    fn bad_vertex_bone_and_parent_order_are_errors() {
        let p = Polygon::new(PolyKind::A, &[0, 1, 2], &[0, 1, 2], &[[1; 3]], 0, 0);
        let mut m = one_poly_mesh(p);
        m.groups[0].vertices[1].bone = 5;
        let bytes = m.write().unwrap();
        let e = Mesh::parse(&bytes).unwrap_err();
        assert!(e.to_string().contains("names bone 5"), "{e}");
        let mut m = one_poly_mesh(p);
        m.bones.push(Bone {
            length: 1,
            parent: 1,
        });
        let e = Mesh::parse(&m.write().unwrap()).unwrap_err();
        assert_eq!(e.offset, 0x14 + 4 + 3);
    }
}
