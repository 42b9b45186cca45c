//! Writes synthetic M2 files (≤263 layout) for what the public samples lack: TBC (260+) models
//! with packed int16 quaternions, 112-byte bones and 48-byte submeshes; also vanilla files for
//! round-trip tests. Values are given in WoW's own space (Z up, facing +X), as the file stores
//! them. One view is written; each batch becomes one submesh and one texture unit.

use super::effects::{OFS_RIBBONS, OFS_TEXTURE_ANIMS, OFS_TEXTURE_ANIM_LOOKUP, RIBBON_SIZE};
use super::parse::{
    bone_size, pack_quat_component, submesh_size, COLOR_SIZE, HEADER_SIZE, OFS_BONES, OFS_COLORS,
    OFS_GLOBAL_FLAGS, OFS_GLOBAL_SEQUENCES, OFS_NAME, OFS_RENDER_FLAGS, OFS_SEQUENCES,
    OFS_TEXTURES, OFS_TEXTURE_LOOKUP, OFS_TRANSPARENCY, OFS_TRANSPARENCY_LOOKUP, OFS_VERTICES,
    OFS_VIEWS, SEQUENCE_SIZE, TBC_VERSION,
};

/// An animation track as stored: interpolation type, global sequence, per-sequence key ranges,
/// key times (ms) and values.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthTrack<T> {
    /// 0 none, 1 linear, 2 hermite, 3 bezier.
    pub interpolation: u16,
    /// Global sequence index or -1.
    pub global_sequence: i16,
    /// `(first, last)` key per sequence.
    pub ranges: Vec<(u32, u32)>,
    /// Key times.
    pub times: Vec<u32>,
    /// Key values (three per key for hermite/bezier: value, in, out).
    pub values: Vec<T>,
}

impl<T> Default for SynthTrack<T> {
    fn default() -> Self {
        SynthTrack {
            interpolation: 0,
            global_sequence: -1,
            ranges: Vec::new(),
            times: Vec::new(),
            values: Vec::new(),
        }
    }
}

/// A bone: parent (-1 root), flags (0x8 billboard), pivot and tracks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SynthBone {
    /// Parent index or -1.
    pub parent: i16,
    /// Flags.
    pub flags: u32,
    /// Pivot point.
    pub pivot: [f32; 3],
    /// Translation keys.
    pub translation: SynthTrack<[f32; 3]>,
    /// Rotation keys `[x, y, z, w]` (written packed int16 from version 260).
    pub rotation: SynthTrack<[f32; 4]>,
    /// Scale keys.
    pub scale: SynthTrack<[f32; 3]>,
}

/// A vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SynthVertex {
    /// Position.
    pub position: [f32; 3],
    /// Weights out of 255.
    pub weights: [u8; 4],
    /// Bone indices.
    pub bones: [u8; 4],
    /// Normal.
    pub normal: [f32; 3],
    /// Texture coordinates.
    pub uv: [f32; 2],
}

/// A batch: its triangles (global vertex indices), texture, render flags and opacity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SynthBatch {
    /// Triangles.
    pub triangles: Vec<[u16; 3]>,
    /// Index into [`SynthModel::textures`], `None` for untextured.
    pub texture: Option<u16>,
    /// `(flags, blend mode)`.
    pub render_flags: (u16, u16),
    /// Opacity keys (32767 = opaque); the default (no keys) is always opaque.
    pub transparency: SynthTrack<i16>,
    /// A colour record for the batch: RGB keys (0–1) and opacity keys (32767 = opaque).
    pub color: Option<(SynthTrack<[f32; 3]>, SynthTrack<i16>)>,
    /// Index into [`SynthModel::texture_anims`] the batch's UVs play.
    pub texture_anim: Option<u16>,
}

/// A texture animation: UV translation, rotation (quaternion about Z) and scaling keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SynthTextureAnim {
    /// Translation keys.
    pub translation: SynthTrack<[f32; 3]>,
    /// Rotation keys `[x, y, z, w]`.
    pub rotation: SynthTrack<[f32; 4]>,
    /// Scaling keys.
    pub scaling: SynthTrack<[f32; 3]>,
}

/// A ribbon emitter (the ≤263 record, 0xDC bytes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SynthRibbon {
    /// Bone it rides on.
    pub bone: u32,
    /// Position relative to the bone (WoW space).
    pub position: [f32; 3],
    /// Texture index, if any.
    pub texture: Option<u16>,
    /// Render-flags index (a batch's), if any.
    pub material: Option<u16>,
    /// Colour keys.
    pub color: SynthTrack<[f32; 3]>,
    /// Opacity keys (32767 = opaque).
    pub alpha: SynthTrack<i16>,
    /// Height above keys.
    pub above: SynthTrack<f32>,
    /// Height below keys.
    pub below: SynthTrack<f32>,
    /// Edges a second.
    pub edges_per_second: f32,
    /// Edge lifetime, seconds.
    pub edge_lifetime: f32,
    /// Gravity.
    pub gravity: f32,
}

/// A sequence: animation id, variation, start and end on the shared timeline (ms).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SynthSequence {
    /// AnimationData id.
    pub id: u16,
    /// Variation.
    pub variation: u16,
    /// Start, ms.
    pub start_ms: u32,
    /// End, ms.
    pub end_ms: u32,
}

/// A whole model to write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SynthModel {
    /// Version (256–263 for a loadable file).
    pub version: u32,
    /// Model name.
    pub name: String,
    /// Global sequence lengths.
    pub global_sequences: Vec<u32>,
    /// Sequences.
    pub sequences: Vec<SynthSequence>,
    /// Bones.
    pub bones: Vec<SynthBone>,
    /// Vertices.
    pub vertices: Vec<SynthVertex>,
    /// Batches.
    pub batches: Vec<SynthBatch>,
    /// Textures: `(type, file name)`.
    pub textures: Vec<(u32, String)>,
    /// Texture animations.
    pub texture_anims: Vec<SynthTextureAnim>,
    /// Ribbon emitters.
    pub ribbons: Vec<SynthRibbon>,
}

struct Out {
    buf: Vec<u8>,
}

impl Out {
    /// Appends `bytes` (4-aligned) and returns their offset; empty data gets offset 0.
    fn put(&mut self, bytes: &[u8]) -> u32 {
        if bytes.is_empty() {
            return 0;
        }
        while !self.buf.len().is_multiple_of(4) {
            self.buf.push(0);
        }
        let at = self.buf.len() as u32;
        self.buf.extend_from_slice(bytes);
        at
    }

    fn set(&mut self, at: u64, v: u32) {
        self.buf[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Appends an array and points the header pair at `at` to it.
    fn array(&mut self, at: u64, count: usize, bytes: &[u8]) {
        let off = self.put(bytes);
        self.set(at, count as u32);
        self.set(at + 4, off);
    }

    /// Appends a track's arrays and returns its 28-byte header.
    fn track<T>(&mut self, t: &SynthTrack<T>, enc: impl Fn(&T, &mut Vec<u8>)) -> Vec<u8> {
        let ranges: Vec<u8> = t
            .ranges
            .iter()
            .flat_map(|(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat())
            .collect();
        let times: Vec<u8> = t.times.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut values = Vec::new();
        for v in &t.values {
            enc(v, &mut values);
        }
        let mut h = Vec::with_capacity(28);
        h.extend_from_slice(&t.interpolation.to_le_bytes());
        h.extend_from_slice(&t.global_sequence.to_le_bytes());
        for (n, data) in [
            (t.ranges.len(), ranges),
            (t.times.len(), times),
            (t.values.len(), values),
        ] {
            let off = self.put(&data);
            h.extend_from_slice(&(n as u32).to_le_bytes());
            h.extend_from_slice(&off.to_le_bytes());
        }
        h
    }
}

fn f32s(v: &[f32], out: &mut Vec<u8>) {
    for c in v {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl SynthModel {
    /// The file bytes: the header, then each table in header order, then the one view and the
    /// effects.
    pub fn write(&self) -> Vec<u8> {
        let mut o = Out {
            buf: vec![0; HEADER_SIZE as usize],
        };
        o.buf[..4].copy_from_slice(b"MD20");
        o.set(4, self.version);
        let mut name = self.name.as_bytes().to_vec();
        name.push(0);
        o.array(OFS_NAME, name.len(), &name);
        o.set(OFS_GLOBAL_FLAGS, 0);
        let gs: Vec<u8> = self
            .global_sequences
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        o.array(OFS_GLOBAL_SEQUENCES, self.global_sequences.len(), &gs);
        self.write_sequences(&mut o);
        self.write_bones(&mut o);
        self.write_vertices(&mut o);
        self.write_textures(&mut o);
        let color_index = self.write_colors(&mut o);
        self.write_batch_tables(&mut o);
        self.write_view(&mut o, &color_index);
        self.write_effects(&mut o);
        o.buf
    }

    fn write_sequences(&self, o: &mut Out) {
        let mut seqs = Vec::new();
        for s in &self.sequences {
            let mut rec = vec![0u8; SEQUENCE_SIZE as usize];
            rec[0..2].copy_from_slice(&s.id.to_le_bytes());
            rec[2..4].copy_from_slice(&s.variation.to_le_bytes());
            rec[4..8].copy_from_slice(&s.start_ms.to_le_bytes());
            rec[8..12].copy_from_slice(&s.end_ms.to_le_bytes());
            rec[64..66].copy_from_slice(&(-1i16).to_le_bytes());
            seqs.extend_from_slice(&rec);
        }
        o.array(OFS_SEQUENCES, self.sequences.len(), &seqs);
    }

    /// Bones: rotations as packed int16 quaternions from version 260, f32 before.
    fn write_bones(&self, o: &mut Out) {
        let tbc = self.version >= TBC_VERSION;
        let mut bones = Vec::new();
        for b in &self.bones {
            let mut rec = Vec::with_capacity(bone_size(self.version) as usize);
            rec.extend_from_slice(&(-1i32).to_le_bytes());
            rec.extend_from_slice(&b.flags.to_le_bytes());
            rec.extend_from_slice(&b.parent.to_le_bytes());
            rec.extend_from_slice(&0u16.to_le_bytes());
            if tbc {
                rec.extend_from_slice(&0u32.to_le_bytes());
            }
            rec.extend(o.track(&b.translation, |v, out| f32s(v, out)));
            rec.extend(o.track(&b.rotation, |q, out| {
                if tbc {
                    for c in q {
                        out.extend_from_slice(&pack_quat_component(*c).to_le_bytes());
                    }
                } else {
                    f32s(q, out);
                }
            }));
            rec.extend(o.track(&b.scale, |v, out| f32s(v, out)));
            f32s(&b.pivot, &mut rec);
            bones.extend(rec);
        }
        o.array(OFS_BONES, self.bones.len(), &bones);
    }

    fn write_vertices(&self, o: &mut Out) {
        let mut verts = Vec::new();
        for v in &self.vertices {
            f32s(&v.position, &mut verts);
            verts.extend_from_slice(&v.weights);
            verts.extend_from_slice(&v.bones);
            f32s(&v.normal, &mut verts);
            f32s(&v.uv, &mut verts);
            f32s(&[0.0, 0.0], &mut verts);
        }
        o.array(OFS_VERTICES, self.vertices.len(), &verts);
    }

    /// Textures (only type 0 stores a file name) and their lookup.
    fn write_textures(&self, o: &mut Out) {
        let mut tex = Vec::new();
        for (kind, file) in &self.textures {
            let mut fname = file.as_bytes().to_vec();
            fname.push(0);
            let (n, off) = if *kind == 0 {
                (fname.len() as u32, o.put(&fname))
            } else {
                (0, 0)
            };
            for v in [*kind, 0, n, off] {
                tex.extend_from_slice(&v.to_le_bytes());
            }
        }
        o.array(OFS_TEXTURES, self.textures.len(), &tex);
        // Texture lookup: identity, plus a final -1 for untextured batches.
        let mut lookup: Vec<u16> = (0..self.textures.len() as u16).collect();
        lookup.push(0xffff);
        o.array(OFS_TEXTURE_LOOKUP, lookup.len(), &u16s(&lookup));
    }

    /// The colour records of the batches that have one; returns each batch's colour index
    /// (0xffff for none).
    fn write_colors(&self, o: &mut Out) -> Vec<u16> {
        let mut colors = Vec::new();
        let mut color_index = Vec::new();
        for b in &self.batches {
            match &b.color {
                Some((rgb, alpha)) => {
                    color_index.push((colors.len() / COLOR_SIZE as usize) as u16);
                    colors.extend(o.track(rgb, |v, out| f32s(v, out)));
                    colors.extend(o.track(alpha, |v, out| out.extend_from_slice(&v.to_le_bytes())));
                }
                None => color_index.push(0xffff),
            }
        }
        o.array(OFS_COLORS, colors.len() / COLOR_SIZE as usize, &colors);
        color_index
    }

    /// One transparency track and one render-flags record per batch, and the identity
    /// transparency lookup.
    fn write_batch_tables(&self, o: &mut Out) {
        let mut transparency = Vec::new();
        let mut render_flags = Vec::new();
        for b in &self.batches {
            transparency.extend(o.track(&b.transparency, |v, out| {
                out.extend_from_slice(&v.to_le_bytes())
            }));
            render_flags.extend(u16s(&[b.render_flags.0, b.render_flags.1]));
        }
        o.array(OFS_TRANSPARENCY, self.batches.len(), &transparency);
        let tl: Vec<u16> = (0..self.batches.len() as u16).collect();
        o.array(OFS_TRANSPARENCY_LOOKUP, tl.len(), &u16s(&tl));
        o.array(OFS_RENDER_FLAGS, self.batches.len(), &render_flags);
    }

    /// One view: identity index list, triangles batch after batch, one submesh and one texture
    /// unit per batch.
    fn write_view(&self, o: &mut Out, color_index: &[u16]) {
        let indices: Vec<u16> = (0..self.vertices.len() as u16).collect();
        let mut tris = Vec::new();
        let mut subs = Vec::new();
        let mut units = Vec::new();
        for (i, b) in self.batches.iter().enumerate() {
            let start = tris.len() as u16;
            tris.extend(b.triangles.iter().flatten().copied());
            let mut sub = u16s(&[
                0,
                0,
                0,
                self.vertices.len() as u16,
                start,
                tris.len() as u16 - start,
                0,
                0,
                0,
                0,
            ]);
            sub.resize(submesh_size(self.version) as usize, 0);
            subs.extend(sub);
            let texture = b.texture.unwrap_or(self.textures.len() as u16);
            let anim = b.texture_anim.unwrap_or(self.texture_anims.len() as u16);
            units.extend(u16s(&[
                0x10,
                0,
                i as u16,
                i as u16,
                color_index[i],
                i as u16,
                0,
                1,
                texture,
                0,
                i as u16,
                anim,
            ]));
        }
        let mut view = Vec::new();
        for (count, data) in [
            (indices.len(), u16s(&indices)),
            (tris.len(), u16s(&tris)),
            (indices.len(), vec![0u8; indices.len() * 4]),
            (self.batches.len(), subs),
            (self.batches.len(), units),
        ] {
            let off = o.put(&data);
            view.extend_from_slice(&(count as u32).to_le_bytes());
            view.extend_from_slice(&off.to_le_bytes());
        }
        view.extend_from_slice(&0u32.to_le_bytes());
        o.array(OFS_VIEWS, 1, &view);
    }

    fn write_effects(&self, o: &mut Out) {
        let mut anims = Vec::new();
        for a in &self.texture_anims {
            anims.extend(o.track(&a.translation, |v, out| f32s(v, out)));
            anims.extend(o.track(&a.rotation, |v, out| f32s(v, out)));
            anims.extend(o.track(&a.scaling, |v, out| f32s(v, out)));
        }
        o.array(OFS_TEXTURE_ANIMS, self.texture_anims.len(), &anims);
        // Lookup: identity, plus a final -1 for batches without one.
        let mut lookup: Vec<u16> = (0..self.texture_anims.len() as u16).collect();
        lookup.push(0xffff);
        o.array(OFS_TEXTURE_ANIM_LOOKUP, lookup.len(), &u16s(&lookup));
        let mut ribbons = Vec::new();
        for r in &self.ribbons {
            let mut rec = Vec::with_capacity(RIBBON_SIZE as usize);
            rec.extend_from_slice(&(-1i32).to_le_bytes());
            rec.extend_from_slice(&r.bone.to_le_bytes());
            f32s(&r.position, &mut rec);
            for list in [r.texture, r.material] {
                let data: Vec<u16> = list.into_iter().collect();
                let off = o.put(&u16s(&data));
                rec.extend_from_slice(&(data.len() as u32).to_le_bytes());
                rec.extend_from_slice(&off.to_le_bytes());
            }
            rec.extend(o.track(&r.color, |v, out| f32s(v, out)));
            rec.extend(o.track(&r.alpha, |v, out| out.extend_from_slice(&v.to_le_bytes())));
            rec.extend(o.track(&r.above, |v, out| out.extend_from_slice(&v.to_le_bytes())));
            rec.extend(o.track(&r.below, |v, out| out.extend_from_slice(&v.to_le_bytes())));
            f32s(&[r.edges_per_second, r.edge_lifetime, r.gravity], &mut rec);
            rec.extend(u16s(&[1, 1]));
            rec.extend(o.track(&SynthTrack::<u16>::default(), |v, out| {
                out.extend_from_slice(&v.to_le_bytes())
            }));
            rec.extend(o.track(&SynthTrack::<u8>::default(), |v, out| out.push(*v)));
            debug_assert_eq!(rec.len() as u64, RIBBON_SIZE);
            ribbons.extend(rec);
        }
        o.array(OFS_RIBBONS, self.ribbons.len(), &ribbons);
    }
}
