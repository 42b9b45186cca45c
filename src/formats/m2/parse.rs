//! Reading the ≤263 M2 layout into [`super`]'s types, converting to scene space.
//!
//! Header offsets (format-notes §2.2 ✔ on v256; the header ends at 0x144): each M2Array is a
//! `{count, offset}` pair. Record sizes: sequence 68, bone 108 (256–259) / 112 (260+),
//! vertex 48, view 44, submesh 32 (256–259) / 48 (260+), texture unit 24, texture 16,
//! colour 56, transparency 28.

use super::track::{Rot, Track, TRACK_SIZE};
use super::{
    Bone, ColorTrack, M2Array, M2Vertex, ReadBudget, Sequence, Submesh, TextureUnit, View,
};
use crate::formats::error::{ErrorKind, Result};
use crate::formats::reader::Reader;

/// Oldest version read (vanilla 1.x).
pub const MIN_VERSION: u32 = 256;
/// Newest version read (TBC 2.4.3); 264 (WotLK) moved views into .skin files.
pub const MAX_VERSION: u32 = 263;
/// First version with the TBC layout (112-byte bones, int16 quaternions, 48-byte submeshes).
pub const TBC_VERSION: u32 = 260;

/// Header size for ≤263.
pub const HEADER_SIZE: u64 = 0x144;

// Header field offsets (M2Array pairs unless noted).
pub(super) const OFS_NAME: u64 = 0x08;
pub(super) const OFS_GLOBAL_FLAGS: u64 = 0x10; // u32
pub(super) const OFS_GLOBAL_SEQUENCES: u64 = 0x14;
pub(super) const OFS_SEQUENCES: u64 = 0x1C;
pub(super) const OFS_BONES: u64 = 0x34;
pub(super) const OFS_VERTICES: u64 = 0x44;
pub(super) const OFS_VIEWS: u64 = 0x4C;
pub(super) const OFS_COLORS: u64 = 0x54;
pub(super) const OFS_TEXTURES: u64 = 0x5C;
pub(super) const OFS_TRANSPARENCY: u64 = 0x64;
pub(super) const OFS_RENDER_FLAGS: u64 = 0x84;
pub(super) const OFS_TEXTURE_LOOKUP: u64 = 0x94;
pub(super) const OFS_TRANSPARENCY_LOOKUP: u64 = 0xA4;

/// Record sizes.
pub(super) const SEQUENCE_SIZE: u64 = 68;
pub(super) const VERTEX_SIZE: u64 = 48;
pub(super) const VIEW_SIZE: u64 = 44;
pub(super) const UNIT_SIZE: u64 = 24;
pub(super) const TEXTURE_SIZE: u64 = 16;
pub(super) const COLOR_SIZE: u64 = 56;

/// Bone record size for a version.
pub fn bone_size(version: u32) -> u64 {
    if version >= TBC_VERSION {
        112
    } else {
        108
    }
}

/// Submesh record size for a version.
pub fn submesh_size(version: u32) -> u64 {
    if version >= TBC_VERSION {
        48
    } else {
        32
    }
}

// Caps on counts read from the file (far above anything WoW 1.x/2.x ships).
const MAX_GLOBAL_SEQUENCES: u64 = 4096;
const MAX_SEQUENCES: u64 = 4096;
const MAX_BONES: u64 = 4096;
const MAX_VERTICES: u64 = 1 << 20;
const MAX_VIEWS: u64 = 16;
const MAX_INDICES: u64 = 1 << 22;
const MAX_SUBMESHES: u64 = 1 << 14;
const MAX_TABLE: u64 = 1 << 16;
const MAX_NAME: u64 = 4096;
/// Cap on the element count of a header array the loader only bounds-checks.
const MAX_UNREAD: u64 = 1 << 24;

/// WoW (Z up, facing +X) → scene (+Y up, facing +Z).
pub fn to_scene([x, y, z]: [f32; 3]) -> [f32; 3] {
    [y, z, x]
}

/// Scene → WoW, the inverse of [`to_scene`] (used by the writer).
pub fn from_scene([x, y, z]: [f32; 3]) -> [f32; 3] {
    [z, x, y]
}

/// Decodes a TBC packed quaternion component: `(s < 0 ? s + 32768 : s − 32767) / 32767`
/// (format-notes §2.2, from WMVx `Quat16ToQuat32`).
pub fn unpack_quat_component(s: i16) -> f32 {
    let v = if s < 0 {
        i32::from(s) + 32768
    } else {
        i32::from(s) - 32767
    };
    v as f32 / 32767.0
}

/// The inverse of [`unpack_quat_component`] (used by the writer).
pub fn pack_quat_component(f: f32) -> i16 {
    let f = f.clamp(-1.0, 1.0);
    if f <= 0.0 {
        (f * 32767.0 + 32767.0).round() as i16
    } else {
        (f * 32767.0 - 32768.0).round().max(-32768.0) as i16
    }
}

/// Everything [`parse`] reads.
pub struct Parsed {
    pub version: u32,
    pub name: String,
    pub global_sequences: Vec<u32>,
    pub sequences: Vec<Sequence>,
    pub bones: Vec<Bone>,
    pub bone_order: Vec<usize>,
    pub vertices: Vec<M2Vertex>,
    pub views: Vec<View>,
    pub colors: Vec<ColorTrack>,
    pub transparency: Vec<Track<f32>>,
    /// `(type, flags, file name)` per texture.
    pub textures: Vec<(u32, u32, String)>,
}

fn vec3(r: &Reader, off: u64, what: &'static str) -> Result<[f32; 3]> {
    Ok([
        r.f32_at(off, what)?,
        r.f32_at(off + 4, what)?,
        r.f32_at(off + 8, what)?,
    ])
}

/// Reads each of `a`'s `size`-byte records with `f` (given its offset).
pub(super) fn read_all<T>(a: M2Array, size: u64, f: impl Fn(u64) -> Result<T>) -> Result<Vec<T>> {
    (0..a.count).map(|i| f(a.at(i, size))).collect()
}

/// A u16 lookup table (texture, transparency) as indices.
fn lookup(r: &Reader, b: &ReadBudget, at: u64, what: &'static str) -> Result<Vec<i16>> {
    let a = M2Array::read_charged(r, b, at, MAX_TABLE, 2, what)?;
    read_all(a, 2, |o| r.i16_at(o, what))
}

/// Parses the file, charging every array read to `b`; `lod` selects the view that must exist.
/// Tables are read in the order the header lists them, so a file broken in two places reports
/// the same first error.
pub fn parse(r: &Reader, b: &ReadBudget, lod: usize) -> Result<Parsed> {
    let version = read_header(r)?;
    let name = read_string(r, b, OFS_NAME, "model name")?;
    let gs_a = M2Array::read_charged(
        r,
        b,
        OFS_GLOBAL_SEQUENCES,
        MAX_GLOBAL_SEQUENCES,
        4,
        "global sequences",
    )?;
    let global_sequences = read_all(gs_a, 4, |o| r.u32_at(o, "global sequence"))?;
    let ngs = global_sequences.len();
    let sequences = read_sequences(r, b)?;
    let (bones, bone_order) = read_bones(r, b, version, ngs)?;
    let vertices = read_vertices(r, b, bones.len())?;
    let colors = read_colors(r, b, ngs)?;
    let tr_a = M2Array::read_charged(
        r,
        b,
        OFS_TRANSPARENCY,
        MAX_TABLE,
        TRACK_SIZE,
        "transparency",
    )?;
    let transparency = read_all(tr_a, TRACK_SIZE, |o| {
        Track::read_charged(r, b, o, ngs, 2, read_fixed16)
    })?;
    let textures = read_textures(r, b)?;
    let tables = Tables {
        render_flags: read_render_flags(r, b)?,
        texture_lookup: lookup(r, b, OFS_TEXTURE_LOOKUP, "texture lookup")?,
        transparency_lookup: lookup(r, b, OFS_TRANSPARENCY_LOOKUP, "transparency lookup")?,
        textures: textures.len(),
        colors: colors.len(),
        transparency: transparency.len(),
        vertices: vertices.len(),
    };
    let views = read_views(r, b, lod, version, &tables)?;
    Ok(Parsed {
        version,
        name,
        global_sequences,
        sequences,
        bones,
        bone_order,
        vertices,
        views,
        colors,
        transparency,
        textures,
    })
}

/// The magic and version, then the whole header and the extents of the arrays the loader
/// does not read; returns the version.
fn read_header(r: &Reader) -> Result<u32> {
    if r.bytes(0, 4, "magic")? != b"MD20" {
        return Err(r.error(
            0,
            ErrorKind::BadMagic {
                expected: "\"MD20\"",
            },
        ));
    }
    let version = r.u32_at(4, "version")?;
    if !(MIN_VERSION..=MAX_VERSION).contains(&version) {
        return Err(r.error(
            4,
            ErrorKind::UnsupportedVersion {
                version: u64::from(version),
                supported: "256-263 (WoW 1.x vanilla and 2.x The Burning Crusade)",
            },
        ));
    }
    r.bytes(0, HEADER_SIZE, "header")?;
    check_unread_arrays(r)?;
    Ok(version)
}

/// The string an M2Array of bytes at `at` holds, without its trailing NULs.
fn read_string(r: &Reader, b: &ReadBudget, at: u64, what: &'static str) -> Result<String> {
    let a = M2Array::read_charged(r, b, at, MAX_NAME, 1, what)?;
    if a.count == 0 {
        return Ok(String::new());
    }
    let raw = r.bytes(a.offset, a.count, what)?;
    Ok(String::from_utf8_lossy(raw).trim_matches('\0').to_string())
}

fn read_sequences(r: &Reader, b: &ReadBudget) -> Result<Vec<Sequence>> {
    let seq_a = M2Array::read_charged(
        r,
        b,
        OFS_SEQUENCES,
        MAX_SEQUENCES,
        SEQUENCE_SIZE,
        "sequences",
    )?;
    read_all(seq_a, SEQUENCE_SIZE, |o| {
        Ok(Sequence {
            id: r.u16_at(o, "sequence id")?,
            variation: r.u16_at(o + 2, "sequence variation")?,
            start_ms: r.u32_at(o + 4, "sequence start")?,
            end_ms: r.u32_at(o + 8, "sequence end")?,
            flags: r.u32_at(o + 20, "sequence flags")?,
            next_variation: r.i16_at(o + 64, "sequence next variation")?,
        })
    })
}

/// The bones (`ngs` global sequences) and their order, parents first.
fn read_bones(
    r: &Reader,
    b: &ReadBudget,
    version: u32,
    ngs: usize,
) -> Result<(Vec<Bone>, Vec<usize>)> {
    let bsize = bone_size(version);
    let bone_a = M2Array::read_charged(r, b, OFS_BONES, MAX_BONES, bsize, "bones")?;
    let nbones = bone_a.count as usize;
    let tracks_at = if version >= TBC_VERSION { 16 } else { 12 };
    let bones = read_all(bone_a, bsize, |o| {
        let parent = r.i16_at(o + 8, "bone parent")?;
        let parent = match usize::try_from(parent) {
            Err(_) => None,
            Ok(p) if p < nbones => Some(p),
            Ok(p) => {
                return Err(r.invalid(o + 8, format!("bone parent {p} but {nbones} bones")));
            }
        };
        let t = o + tracks_at;
        let rotation = read_rotation(r, b, t + TRACK_SIZE, ngs, version)?;
        Ok(Bone {
            key_bone: r.i32_at(o, "key bone")?,
            flags: r.u32_at(o + 4, "bone flags")?,
            parent,
            translation: Track::read_charged(r, b, t, ngs, 12, |r, v| {
                Ok(to_scene(vec3(r, v, "translation key")?))
            })?,
            rotation,
            scale: Track::read_charged(r, b, t + 2 * TRACK_SIZE, ngs, 12, |r, v| {
                Ok(to_scene(vec3(r, v, "scale key")?))
            })?,
            pivot: to_scene(vec3(r, t + 3 * TRACK_SIZE, "bone pivot")?),
        })
    })?;
    let bone_order = order_bones(r, &bones, bone_a, bsize)?;
    Ok((bones, bone_order))
}

/// A bone's rotation track: packed int16 quaternions from TBC on, f32 before.
fn read_rotation(
    r: &Reader,
    b: &ReadBudget,
    at: u64,
    ngs: usize,
    version: u32,
) -> Result<Track<Rot>> {
    if version >= TBC_VERSION {
        Track::read_charged(r, b, at, ngs, 8, |r, v| {
            let c = |i: u64| -> Result<f32> {
                Ok(unpack_quat_component(r.i16_at(v + 2 * i, "rotation key")?))
            };
            Ok(quat_to_scene([c(0)?, c(1)?, c(2)?, c(3)?]))
        })
    } else {
        Track::read_charged(r, b, at, ngs, 16, |r, v| {
            let c = |i: u64| r.f32_at(v + 4 * i, "rotation key");
            Ok(quat_to_scene([c(0)?, c(1)?, c(2)?, c(3)?]))
        })
    }
}

/// The vertices; a weighted bone index must name one of the `nbones` bones.
fn read_vertices(r: &Reader, b: &ReadBudget, nbones: usize) -> Result<Vec<M2Vertex>> {
    let vert_a = M2Array::read_charged(r, b, OFS_VERTICES, MAX_VERTICES, VERTEX_SIZE, "vertices")?;
    read_all(vert_a, VERTEX_SIZE, |o| {
        let w = r.bytes(o + 12, 4, "vertex weights")?;
        let ix = r.bytes(o + 16, 4, "vertex bones")?;
        let (weights, bones): ([u8; 4], [u8; 4]) = (
            w.try_into().unwrap_or_default(),
            ix.try_into().unwrap_or_default(),
        );
        for k in 0..4 {
            if weights[k] > 0 && bones[k] as usize >= nbones {
                return Err(r.invalid(
                    o + 16 + k as u64,
                    format!("vertex bone index {} but {nbones} bones", bones[k]),
                ));
            }
        }
        Ok(M2Vertex {
            position: to_scene(vec3(r, o, "vertex position")?),
            weights,
            bones,
            normal: to_scene(vec3(r, o + 20, "vertex normal")?),
            uv: [
                r.f32_at(o + 32, "vertex uv")?,
                r.f32_at(o + 36, "vertex uv")?,
            ],
        })
    })
}

fn read_colors(r: &Reader, b: &ReadBudget, ngs: usize) -> Result<Vec<ColorTrack>> {
    let color_a = M2Array::read_charged(r, b, OFS_COLORS, MAX_TABLE, COLOR_SIZE, "colors")?;
    read_all(color_a, COLOR_SIZE, |o| {
        Ok(ColorTrack {
            rgb: Track::read_charged(r, b, o, ngs, 12, |r, v| vec3(r, v, "colour key"))?,
            alpha: Track::read_charged(r, b, o + TRACK_SIZE, ngs, 2, read_fixed16)?,
        })
    })
}

/// `(type, flags, file name)` per texture.
fn read_textures(r: &Reader, b: &ReadBudget) -> Result<Vec<(u32, u32, String)>> {
    let tex_a = M2Array::read_charged(r, b, OFS_TEXTURES, MAX_TABLE, TEXTURE_SIZE, "textures")?;
    read_all(tex_a, TEXTURE_SIZE, |o| {
        let kind = r.u32_at(o, "texture type")?;
        let flags = r.u32_at(o + 4, "texture flags")?;
        let name = read_string(r, b, o + 8, "texture file name")?;
        Ok((kind, flags, name))
    })
}

/// `(render flags, blend mode)` per record.
fn read_render_flags(r: &Reader, b: &ReadBudget) -> Result<Vec<(u16, u16)>> {
    let rf_a = M2Array::read_charged(r, b, OFS_RENDER_FLAGS, MAX_TABLE, 4, "render flags")?;
    read_all(rf_a, 4, |o| {
        Ok((r.u16_at(o, "render flags")?, r.u16_at(o + 2, "blend mode")?))
    })
}

/// Every view; view `lod` must exist.
fn read_views(
    r: &Reader,
    b: &ReadBudget,
    lod: usize,
    version: u32,
    tables: &Tables,
) -> Result<Vec<View>> {
    let view_a = M2Array::read_charged(r, b, OFS_VIEWS, MAX_VIEWS, VIEW_SIZE, "views")?;
    if lod >= view_a.count as usize {
        return Err(r.invalid(
            OFS_VIEWS,
            format!(
                "level of detail {lod} asked for but the model has {} views",
                view_a.count
            ),
        ));
    }
    read_all(view_a, VIEW_SIZE, |o| read_view(r, b, o, version, tables))
}

/// An int16 "fixed16" value, 32767 = 1.0.
fn read_fixed16(r: &Reader, off: u64) -> Result<f32> {
    Ok(f32::from(r.i16_at(off, "opacity key")?) / 32767.0)
}

/// WoW quaternion → scene: the vector part maps like positions.
fn quat_to_scene([x, y, z, w]: [f32; 4]) -> Rot {
    let [a, b, c] = to_scene([x, y, z]);
    Rot([a, b, c, w])
}

/// Orders bones parents first; a parent cycle is an error at the bone's parent field.
fn order_bones(r: &Reader, bones: &[Bone], a: M2Array, size: u64) -> Result<Vec<usize>> {
    let n = bones.len();
    let mut state = vec![0u8; n]; // 0 new, 2 placed
    let mut order = Vec::with_capacity(n);
    let mut chain = Vec::new();
    for start in 0..n {
        let mut b = start;
        chain.clear();
        while state[b] == 0 {
            if chain.len() > n {
                return Err(r.invalid(a.at(start as u64, size) + 8, "bone parents form a cycle"));
            }
            chain.push(b);
            match bones[b].parent {
                Some(p) if state[p] == 0 => b = p,
                _ => break,
            }
        }
        for &c in chain.iter().rev() {
            if state[c] == 0 {
                state[c] = 2;
                order.push(c);
            }
        }
    }
    Ok(order)
}

struct Tables {
    render_flags: Vec<(u16, u16)>,
    texture_lookup: Vec<i16>,
    transparency_lookup: Vec<i16>,
    textures: usize,
    colors: usize,
    transparency: usize,
    vertices: usize,
}

fn read_view(r: &Reader, b: &ReadBudget, o: u64, version: u32, t: &Tables) -> Result<View> {
    let idx_a = M2Array::read_charged(r, b, o, MAX_INDICES, 2, "view indices")?;
    let tri_a = M2Array::read_charged(r, b, o + 8, MAX_INDICES, 2, "view triangles")?;
    let ssize = submesh_size(version);
    let sub_a = M2Array::read_charged(r, b, o + 24, MAX_SUBMESHES, ssize, "submeshes")?;
    let unit_a = M2Array::read_charged(r, b, o + 32, MAX_SUBMESHES, UNIT_SIZE, "texture units")?;
    let indices = read_all(idx_a, 2, |p| {
        let v = r.u16_at(p, "view index")?;
        if v as usize >= t.vertices {
            return Err(r.invalid(p, format!("vertex index {v} but {} vertices", t.vertices)));
        }
        Ok(u32::from(v))
    })?;
    if tri_a.count % 3 != 0 {
        return Err(r.invalid(
            o + 8,
            format!(
                "triangle index count {} is not a multiple of 3",
                tri_a.count
            ),
        ));
    }
    let triangles = (0..tri_a.count / 3)
        .map(|i| {
            let mut tri = [0u32; 3];
            for (k, c) in tri.iter_mut().enumerate() {
                let p = tri_a.at(3 * i + k as u64, 2);
                let v = r.u16_at(p, "triangle index")? as usize;
                *c = *indices.get(v).ok_or_else(|| {
                    r.invalid(
                        p,
                        format!(
                            "triangle index {v} but the view has {} indices",
                            indices.len()
                        ),
                    )
                })?;
            }
            Ok(tri)
        })
        .collect::<Result<Vec<_>>>()?;
    let submeshes = read_all(sub_a, ssize, |p| {
        let level = u32::from(r.u16_at(p + 2, "submesh level")?);
        let s = Submesh {
            id: r.u16_at(p, "submesh id")?,
            vertex_start: u32::from(r.u16_at(p + 4, "submesh vertex start")?),
            vertex_count: u32::from(r.u16_at(p + 6, "submesh vertex count")?),
            index_start: u32::from(r.u16_at(p + 8, "submesh index start")?) + (level << 16),
            index_count: u32::from(r.u16_at(p + 10, "submesh index count")?),
        };
        if !s.index_start.is_multiple_of(3)
            || !s.index_count.is_multiple_of(3)
            || u64::from(s.index_start) + u64::from(s.index_count) > tri_a.count
        {
            return Err(r.invalid(
                p + 8,
                format!(
                    "submesh triangles {}+{} outside the view's {} triangle indices",
                    s.index_start, s.index_count, tri_a.count
                ),
            ));
        }
        Ok(s)
    })?;
    let units = read_all(unit_a, UNIT_SIZE, |p| read_unit(r, p, submeshes.len(), t))?;
    Ok(View {
        index_count: idx_a.count,
        triangles,
        submeshes,
        units,
    })
}

fn read_unit(r: &Reader, p: u64, nsub: usize, t: &Tables) -> Result<TextureUnit> {
    let bad = |off: u64, what: &str, v: i64, n: usize| {
        Err(r.invalid(off, format!("texture unit {what} {v} but only {n}")))
    };
    let submesh = r.u16_at(p + 4, "unit submesh")? as usize;
    if submesh >= nsub {
        return bad(p + 4, "submesh", submesh as i64, nsub);
    }
    let color = r.i16_at(p + 8, "unit colour")?;
    let color = match usize::try_from(color) {
        Err(_) => None,
        Ok(c) if c < t.colors => Some(c),
        Ok(c) => return bad(p + 8, "colour", c as i64, t.colors),
    };
    let rf = r.u16_at(p + 10, "unit render flags")? as usize;
    let render_flags = match t.render_flags.get(rf) {
        Some(&f) => f,
        None => return bad(p + 10, "render flags", rf as i64, t.render_flags.len()),
    };
    let combo = r.u16_at(p + 16, "unit texture")? as usize;
    let texture = match t.texture_lookup.get(combo) {
        Some(&v) if v < 0 => None,
        Some(&v) if (v as usize) < t.textures => Some(v as usize),
        Some(&v) => return bad(p + 16, "texture", i64::from(v), t.textures),
        None => {
            return bad(
                p + 16,
                "texture lookup",
                combo as i64,
                t.texture_lookup.len(),
            )
        }
    };
    let tr = r.u16_at(p + 20, "unit transparency")? as usize;
    let transparency = match t.transparency_lookup.get(tr) {
        Some(&v) if v < 0 => None,
        Some(&v) if (v as usize) < t.transparency => Some(v as usize),
        Some(&v) => return bad(p + 20, "transparency", i64::from(v), t.transparency),
        // An empty lookup table means "always opaque".
        None if t.transparency_lookup.is_empty() => None,
        None => {
            return bad(
                p + 20,
                "transparency lookup",
                tr as i64,
                t.transparency_lookup.len(),
            )
        }
    };
    Ok(TextureUnit {
        texture_anim_combo: r.u16_at(p + 22, "unit texture animation")?,
        flags: r.u16_at(p, "unit flags")?,
        submesh,
        color,
        render_flags,
        texture,
        transparency,
    })
}

/// Header arrays the renderer has no use for (lookups, flipbooks, collision, attachments,
/// events, lights, cameras, emitters), as `(offset in header, element size or 1 where the record
/// size varies by version, what)`. Their extents are still checked, so a file cut short anywhere
/// inside the data its header declares is refused rather than half-read.
const UNREAD_ARRAYS: [(u64, u64, &str); 20] = [
    (0x24, 2, "animation lookup"),
    (0x2C, 4, "playable animation lookup"),
    (0x3C, 2, "key bone lookup"),
    (0x6C, 1, "texture flipbooks"),
    (0x74, 1, "texture animations"),
    (0x7C, 2, "replaceable texture lookup"),
    (0x8C, 2, "bone lookup"),
    (0x9C, 2, "texture unit lookup"),
    (0xAC, 2, "texture animation lookup"),
    (0xEC, 2, "collision triangles"),
    (0xF4, 12, "collision vertices"),
    (0xFC, 12, "collision normals"),
    (0x104, 1, "attachments"),
    (0x10C, 2, "attachment lookup"),
    (0x114, 1, "events"),
    (0x11C, 1, "lights"),
    (0x124, 1, "cameras"),
    (0x12C, 2, "camera lookup"),
    (0x134, 1, "ribbon emitters"),
    (0x13C, 1, "particle emitters"),
];

fn check_unread_arrays(r: &Reader) -> Result<()> {
    for (at, size, what) in UNREAD_ARRAYS {
        M2Array::read(r, at, MAX_UNREAD, size, what)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::writer::{SynthBatch, SynthBone, SynthModel, SynthVertex};
    use super::*;
    use crate::formats::m2;

    /// A one-bone, one-triangle vanilla model from the writer.
    fn small_model() -> Vec<u8> {
        let v = |x: f32| SynthVertex {
            position: [x, 1.0 - x, 0.0],
            weights: [255, 0, 0, 0],
            ..Default::default()
        };
        SynthModel {
            version: MIN_VERSION,
            name: "Small".into(),
            bones: vec![SynthBone {
                parent: -1,
                ..Default::default()
            }],
            vertices: vec![v(0.0), v(0.5), v(1.0)],
            batches: vec![SynthBatch {
                triangles: vec![[0, 1, 2]],
                ..Default::default()
            }],
            ..Default::default()
        }
        .write()
    }

    /// `small_model` given a new table of `bones` bones whose three tracks all claim `keys`
    /// ranges, timestamps and values in one shared zeroed region; returns the file and where
    /// the new bone table starts.
    /// Writes at the start of `h` a linear track without a global sequence whose ranges,
    /// timestamps and values each claim `keys` elements at `region`.
    fn shared_track(h: &mut [u8], keys: u32, region: u32) {
        h[0..2].copy_from_slice(&1u16.to_le_bytes());
        h[2..4].copy_from_slice(&(-1i16).to_le_bytes());
        for k in 0..3 {
            let pair = 4 + 8 * k;
            h[pair..pair + 4].copy_from_slice(&keys.to_le_bytes());
            h[pair + 4..pair + 8].copy_from_slice(&region.to_le_bytes());
        }
    }

    /// The small model with a block of `keys` zeroed keys, then a table of `count` records of
    /// `size` bytes (each written by `fill`, given its index, the record and the block's
    /// offset) named by the header array pair at `ofs`. Returns the file and the table's offset.
    fn records_sharing_keys(
        ofs: u64,
        count: u32,
        size: usize,
        keys: u32,
        fill: impl Fn(u32, &mut [u8], u32),
    ) -> (Vec<u8>, u64) {
        let mut d = small_model();
        d.resize(d.len().next_multiple_of(16), 0);
        let region = d.len() as u32;
        // 16 bytes a key holds the largest value (an f32 quaternion).
        d.resize(d.len() + 16 * keys as usize, 0);
        let table = d.len() as u64;
        for i in 0..count {
            let mut rec = vec![0u8; size];
            fill(i, &mut rec, region);
            d.extend_from_slice(&rec);
        }
        let at = ofs as usize;
        d[at..at + 4].copy_from_slice(&count.to_le_bytes());
        d[at + 4..at + 8].copy_from_slice(&(table as u32).to_le_bytes());
        (d, table)
    }

    fn bones_sharing_keys(bones: u32, keys: u32) -> (Vec<u8>, u64) {
        let size = bone_size(MIN_VERSION) as usize;
        records_sharing_keys(OFS_BONES, bones, size, keys, |i, rec, region| {
            rec[0..4].copy_from_slice(&(-1i32).to_le_bytes());
            let parent: i16 = if i == 0 { -1 } else { 0 };
            rec[8..10].copy_from_slice(&parent.to_le_bytes());
            for t in 0..3 {
                shared_track(&mut rec[12 + 28 * t..], keys, region);
            }
        })
    }

    fn parse_all(data: &[u8]) -> (Result<Parsed>, ReadBudget) {
        let r = Reader::new(data, super::super::FORMAT);
        let b = ReadBudget::new(m2::FORMAT, m2::BUDGET_RATE, r.len());
        (parse(&r, &b, 0), b)
    }

    /// Bones whose tracks all point at one block of keys read that block once per track. Each
    /// track is under its own cap, so only the load's read budget stops 256 bones × 3 tracks ×
    /// 4096 keys (about 80 MB of keys from a 100 KB file), and it does so at the pair of the
    /// array that goes over, before reading it.
    #[test]
    fn tracks_sharing_one_region_cannot_multiply_memory() {
        let (data, table) = bones_sharing_keys(256, 4096);
        let (res, budget) = parse_all(&data);
        let Err(e) = res else {
            panic!("a file whose tracks share keys 768 times loaded");
        };
        assert!(
            matches!(e.kind, ErrorKind::CountTooLarge { max, .. } if max == budget.limit()),
            "{e}"
        );
        assert!(e.to_string().contains("bytes of arrays read"), "{e}");
        // The offset is a ranges, timestamps or values pair of a track in the new bone table.
        let size = bone_size(MIN_VERSION);
        assert!(e.offset > table && e.offset < table + 256 * size, "{e}");
        let in_bone = (e.offset - table) % size;
        let pairs: Vec<u64> = (0..3)
            .flat_map(|t| (0..3).map(move |k| 12 + 28 * t + 4 + 8 * k))
            .collect();
        assert!(
            pairs.contains(&in_bone),
            "0x{in_bone:x} is no track pair: {e}"
        );
        assert!(budget.used() <= budget.limit());
    }

    /// Effect tracks are charged to the same budget: 256 texture animations whose three tracks
    /// all point at one block of 4096 keys (about 80 MB of keys from a 170 KB file) are refused
    /// at a track pair of the animation table, before the keys are read.
    #[test]
    fn effect_tracks_sharing_one_region_cannot_multiply_memory() {
        use super::super::effects::{self, OFS_TEXTURE_ANIMS, TEXTURE_ANIM_SIZE};
        let (anims, keys) = (256u32, 4096u32);
        let size = TEXTURE_ANIM_SIZE as usize;
        let (d, table) =
            records_sharing_keys(OFS_TEXTURE_ANIMS, anims, size, keys, |_, rec, region| {
                for t in 0..3 {
                    shared_track(&mut rec[TRACK_SIZE as usize * t..], keys, region);
                }
            });
        let r = Reader::new(&d, super::super::FORMAT);
        let budget = ReadBudget::new(m2::FORMAT, m2::BUDGET_RATE, r.len());
        let Err(e) = effects::parse(&r, &budget, MIN_VERSION, 0, 1, 0) else {
            panic!("texture animations sharing keys 768 times loaded");
        };
        assert!(
            matches!(e.kind, ErrorKind::CountTooLarge { max, .. } if max == budget.limit()),
            "{e}"
        );
        let end = table + anims as u64 * TEXTURE_ANIM_SIZE;
        assert!(e.offset > table && e.offset < end, "{e}");
        assert!(budget.used() <= budget.limit());
    }

    /// Sharing within the budget is fine: two bones reading one block of keys load.
    #[test]
    fn a_few_tracks_sharing_keys_still_load() {
        let (data, _) = bones_sharing_keys(2, 256);
        let (res, budget) = parse_all(&data);
        let p = res.expect("two bones sharing keys load");
        assert_eq!(p.bones.len(), 2);
        assert_eq!(p.bones[1].rotation.values.len(), 256);
        // Each bone's three tracks read 256 × (8 + 4 + 12/16/12) bytes.
        assert!(budget.used() >= 2 * 256 * (3 * 12 + 12 + 16 + 12));
    }

    /// Every real model reads each byte of its arrays about once: well inside a quarter of the
    /// budget, which is what lets the budget stay proportional to the file.
    #[test]
    #[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
    fn real_models_stay_well_inside_the_read_budget() {
        let dir = std::path::Path::new(env!("PSXRENDER_SHARED_DIR")).join("samples/m2");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("samples/m2 is there") {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().to_lowercase().ends_with(".m2") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let (res, budget) = parse_all(&data);
            if let Err(e) = res {
                panic!("{}: {e}", path.display());
            }
            println!(
                "{}: {} bytes, read {} of a budget of {}",
                path.display(),
                data.len(),
                budget.used(),
                budget.limit()
            );
            assert!(
                budget.used() <= data.len() as u64,
                "{}: read {} bytes of arrays from a {}-byte file",
                path.display(),
                budget.used(),
                data.len()
            );
            seen += 1;
        }
        assert!(seen >= 4, "only {seen} models in {}", dir.display());
    }

    #[test]
    fn packed_quaternion_components_round_trip() {
        assert_eq!(unpack_quat_component(32767), 0.0);
        assert_eq!(unpack_quat_component(0), -1.0);
        assert_eq!(unpack_quat_component(-1), 1.0);
        for i in -100..=100 {
            let f = i as f32 / 100.0;
            let back = unpack_quat_component(pack_quat_component(f));
            assert!((back - f).abs() < 1.0 / 32767.0, "{f} -> {back}");
        }
    }

    #[test]
    fn axes_convert_as_a_rotation() {
        assert_eq!(
            to_scene([1.0, 0.0, 0.0]),
            [0.0, 0.0, 1.0],
            "WoW front +X -> scene +Z"
        );
        assert_eq!(
            to_scene([0.0, 0.0, 1.0]),
            [0.0, 1.0, 0.0],
            "WoW up +Z -> scene +Y"
        );
        assert_eq!(from_scene(to_scene([1.0, 2.0, 3.0])), [1.0, 2.0, 3.0]);
    }
}
