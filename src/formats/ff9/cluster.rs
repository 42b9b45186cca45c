//! FF9 data cluster (`0xDB`): typed chunks of models, animations, TIMs and materials.
//!
//! Layout (the FF Inside wiki's "Data" page; the public importer and Hades Workshop read it the
//! same way): `u8 0xDB, u8 count, u16 0`, then `count` entries `{u24 LE offset relative to the
//! entry, u8 type}`. Each entry points at a typed chunk `{u8 type, u8 object count n, u16 0,
//! u16 ids[n] (padded to 4 bytes), i32 ptr[n] each relative to its own field, u32 end relative
//! to its own field}`. Types read: 0x02 model, 0x03 animation, 0x04 TIM, 0x12 materials (each
//! object starts `0xDC`), 0x1B nested clusters (each object a cluster); other types are listed
//! and skipped.
//!
//! The 0x12 entry is a typed chunk like every other. psxrender's writer once put the `0xDC`
//! object straight at the entry; such a file is still read (the entry's first byte tells the
//! two apart: a chunk starts with its type, 0x12), with a warning in [`Cluster::notes`].

use super::WriteError;
use crate::formats::reader::Reader;
use crate::formats::{LoadError, Result};

/// First byte of a data cluster.
pub const CLUSTER_MAGIC: u8 = 0xDB;
/// Chunk type: 3D model.
pub const TYPE_MODEL: u8 = 0x02;
/// Chunk type: animation.
pub const TYPE_ANIMATION: u8 = 0x03;
/// Chunk type: TIM image.
pub const TYPE_TIM: u8 = 0x04;
/// Chunk type: CLUT/TPage materials.
pub const TYPE_MATERIALS: u8 = 0x12;
/// Chunk type: nested clusters.
pub const TYPE_SUBCLUSTER: u8 = 0x1B;

/// Deepest nesting of 0x1B sub-clusters followed.
const MAX_DEPTH: u32 = 4;
/// Most entries and objects visited in one file, nested clusters included (a crafted file
/// could otherwise fan out 255 × 255 per level).
pub const MAX_OBJECTS: u64 = 4096;

/// First byte of a materials (0x12) object.
pub const MATERIALS_MAGIC: u8 = 0xDC;

/// One object found in a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object<'a> {
    /// Chunk type.
    pub kind: u8,
    /// Object id (0 for a 0x12 object written in the old bare layout, which has none).
    pub id: u16,
    /// Absolute offset of the object in the cluster file.
    pub offset: u64,
    /// From the object start to the end of its chunk.
    pub data: &'a [u8],
}

impl Object<'_> {
    /// Maps an error from parsing `data` (offsets relative to the object) to file offsets.
    pub fn rebase(&self, mut e: LoadError) -> LoadError {
        e.offset += self.offset;
        e
    }
}

/// How a cluster entry's target is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkLayout {
    /// A typed chunk header (type, count, ids, pointers, end) and its objects: the game's
    /// layout for every type.
    Typed,
    /// A 0x12 entry pointing straight at one `0xDC` object, as psxrender's old writer did.
    BareMaterials,
}

/// The header of one chunk that was read (the types of [`Cluster::objects`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Chunk type.
    pub kind: u8,
    /// Absolute offset of the chunk (where its cluster entry points).
    pub offset: u64,
    /// Typed chunk or the old bare 0x12 object.
    pub layout: ChunkLayout,
    /// Object ids, in order (empty for [`ChunkLayout::BareMaterials`]).
    pub ids: Vec<u16>,
    /// Absolute offset of each object.
    pub objects: Vec<u64>,
    /// Absolute offset of the chunk's end (for a bare object, its cluster's end).
    pub end: u64,
    /// Nesting depth (0 = the file's own cluster).
    pub depth: u32,
}

/// Everything a cluster holds, flattened in file order, plus skipped chunk types.
#[derive(Clone, Debug, Default)]
pub struct Cluster<'a> {
    /// Objects of the types read.
    pub objects: Vec<Object<'a>>,
    /// The header of every chunk read, nested clusters' included, in file order.
    pub chunks: Vec<ChunkHeader>,
    /// Chunk types skipped, as (absolute offset, type).
    pub skipped: Vec<(u64, u8)>,
    /// What was read but is not the game's layout (the old bare 0x12 entry), one line each.
    pub notes: Vec<String>,
}

/// True when `data` starts like a data cluster.
pub fn is_cluster(data: &[u8]) -> bool {
    data.first() == Some(&CLUSTER_MAGIC)
}

/// Reads a cluster.
pub fn parse(data: &[u8]) -> Result<Cluster<'_>> {
    let mut c = Cluster::default();
    let mut budget = 0;
    let r = Reader::new(data, "FF9 cluster");
    parse_into(&r, 0, data.len() as u64, 0, &mut budget, &mut c)?;
    Ok(c)
}

fn parse_into<'a>(
    r: &Reader<'a>,
    base: u64,
    end: u64,
    depth: u32,
    budget: &mut u64,
    out: &mut Cluster<'a>,
) -> Result<()> {
    if r.u8_at(base, "cluster magic")? != CLUSTER_MAGIC {
        return Err(r.invalid(base, "not a data cluster (first byte is not 0xDB)"));
    }
    let count = u64::from(r.u8_at(base + 1, "cluster entry count")?);
    r.array(base + 1, base + 4, count, 4, "cluster entries")?;
    *budget += count;
    r.check_count(
        base + 1,
        *budget,
        MAX_OBJECTS,
        "cluster entries and objects",
    )?;
    for i in 0..count {
        let entry = base + 4 + 4 * i;
        let chunk = entry + u64::from(r.u24_at(entry, "chunk offset")?);
        let kind = r.u8_at(entry + 3, "chunk type")?;
        if chunk >= end {
            return Err(r.error(
                entry,
                crate::formats::ErrorKind::OutOfBounds {
                    what: "chunk",
                    target: chunk,
                    len: 1,
                },
            ));
        }
        match kind {
            // A typed chunk starts with its own type; the old bare layout with the object's.
            TYPE_MATERIALS => match r.u8_at(chunk, "0x12 chunk's first byte")? {
                TYPE_MATERIALS => typed_chunk(r, chunk, kind, end, depth, budget, out)?,
                MATERIALS_MAGIC => {
                    out.notes.push(format!(
                        "the 0x12 entry at 0x{entry:x} points straight at a 0xDC materials \
                         object (psxrender's old layout): read, but the game puts a typed chunk \
                         header (type, count, ids, pointers) there"
                    ));
                    out.chunks.push(ChunkHeader {
                        kind,
                        offset: chunk,
                        layout: ChunkLayout::BareMaterials,
                        ids: Vec::new(),
                        objects: vec![chunk],
                        end,
                        depth,
                    });
                    out.objects.push(Object {
                        kind,
                        id: 0,
                        offset: chunk,
                        data: &r.data()[chunk as usize..end as usize],
                    });
                }
                other => {
                    return Err(r.invalid(
                        chunk,
                        format!(
                            "the 0x12 entry at 0x{entry:x} points at neither a 0x12 chunk \
                             header nor a 0xDC materials object (first byte 0x{other:02x})"
                        ),
                    ))
                }
            },
            TYPE_MODEL | TYPE_ANIMATION | TYPE_TIM | TYPE_SUBCLUSTER => {
                typed_chunk(r, chunk, kind, end, depth, budget, out)?
            }
            _ => out.skipped.push((chunk, kind)),
        }
    }
    Ok(())
}

/// Reads the typed chunk of type `kind` at `chunk` inside a cluster ending at `end`.
fn typed_chunk<'a>(
    r: &Reader<'a>,
    chunk: u64,
    kind: u8,
    end: u64,
    depth: u32,
    budget: &mut u64,
    out: &mut Cluster<'a>,
) -> Result<()> {
    let n = u64::from(r.u8_at(chunk + 1, "object count")?);
    let ids_len = (2 * n).div_ceil(4) * 4;
    let ids = r.array(chunk + 1, chunk + 4, n, 2, "object ids")?;
    let ptrs = chunk + 4 + ids_len;
    r.array(chunk + 1, ptrs, n + 1, 4, "object pointers")?;
    *budget += n;
    r.check_count(
        chunk + 1,
        *budget,
        MAX_OBJECTS,
        "cluster entries and objects",
    )?;
    let end_field = ptrs + 4 * n;
    let chunk_end = end_field + u64::from(r.u32_at(end_field, "chunk end")?);
    if chunk_end > end {
        return Err(r.error(
            end_field,
            crate::formats::ErrorKind::OutOfBounds {
                what: "chunk end",
                target: chunk_end,
                len: 0,
            },
        ));
    }
    let mut header = ChunkHeader {
        kind,
        offset: chunk,
        layout: ChunkLayout::Typed,
        ids: ids
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect(),
        objects: Vec::with_capacity(n as usize),
        end: chunk_end,
        depth,
    };
    let mut found = Vec::with_capacity(n as usize);
    for j in 0..n {
        let field = ptrs + 4 * j;
        let rel = r.i32_at(field, "object pointer")?;
        let at = field.checked_add_signed(i64::from(rel));
        let at = match at {
            Some(a) if a >= chunk && a < chunk_end => a,
            _ => {
                return Err(r.error(
                    field,
                    crate::formats::ErrorKind::OutOfBounds {
                        what: "object",
                        target: at.unwrap_or(0),
                        len: 1,
                    },
                ))
            }
        };
        header.objects.push(at);
        found.push((header.ids[j as usize], at));
    }
    out.chunks.push(header);
    for (id, at) in found {
        if kind == TYPE_SUBCLUSTER {
            if depth >= MAX_DEPTH {
                return Err(r.invalid(at, "sub-clusters nested too deeply"));
            }
            parse_into(r, at, chunk_end, depth + 1, budget, out)?;
        } else {
            out.objects.push(Object {
                kind,
                id,
                offset: at,
                data: &r.data()[at as usize..chunk_end as usize],
            });
        }
    }
    Ok(())
}

/// How [`write_with`] lays out a 0x12 entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaterialsEntry {
    /// A typed chunk like every other type: the game's layout.
    Chunk,
    /// The `0xDC` object straight at the entry (at most one object): psxrender's old layout,
    /// still read with a warning; written only to test that path.
    Bare,
}

/// Writes a cluster holding `objects` = (type, id, bytes): one typed chunk per type, in the
/// order the types first appear.
pub fn write(objects: &[(u8, u16, Vec<u8>)]) -> Result<Vec<u8>, WriteError> {
    write_with(objects, MaterialsEntry::Chunk)
}

/// [`write()`] with a choice of layout for the 0x12 entry.
pub fn write_with(
    objects: &[(u8, u16, Vec<u8>)],
    materials: MaterialsEntry,
) -> Result<Vec<u8>, WriteError> {
    let mut kinds: Vec<u8> = Vec::new();
    for (k, _, _) in objects {
        if !kinds.contains(k) {
            kinds.push(*k);
        }
    }
    let count =
        u8::try_from(kinds.len()).map_err(|_| WriteError::new("more than 255 chunk types"))?;
    let mut out = vec![CLUSTER_MAGIC, count, 0, 0];
    out.resize(4 + 4 * kinds.len(), 0);
    for (i, &kind) in kinds.iter().enumerate() {
        let entry = 4 + 4 * i;
        let rel = u32::try_from(out.len() - entry)
            .ok()
            .filter(|&v| v <= 0xFF_FFFF)
            .ok_or_else(|| WriteError::new("cluster exceeds 16 MiB"))?;
        out[entry..entry + 3].copy_from_slice(&rel.to_le_bytes()[..3]);
        out[entry + 3] = kind;
        let objs: Vec<_> = objects.iter().filter(|o| o.0 == kind).collect();
        if kind == TYPE_MATERIALS && materials == MaterialsEntry::Bare {
            if objs.len() != 1 {
                return Err(WriteError::new(
                    "the old bare 0x12 layout holds exactly one object",
                ));
            }
            out.extend_from_slice(&objs[0].2);
        } else {
            let n = u8::try_from(objs.len())
                .map_err(|_| WriteError::new("more than 255 objects of one type"))?;
            out.extend_from_slice(&[kind, n, 0, 0]);
            for o in &objs {
                out.extend_from_slice(&o.1.to_le_bytes());
            }
            while out.len() % 4 != 0 {
                out.push(0);
            }
            let ptrs = out.len();
            out.resize(ptrs + 4 * (objs.len() + 1), 0);
            for (j, o) in objs.iter().enumerate() {
                let field = ptrs + 4 * j;
                let rel = (out.len() - field) as i32;
                out[field..field + 4].copy_from_slice(&rel.to_le_bytes());
                out.extend_from_slice(&o.2);
                while out.len() % 4 != 0 {
                    out.push(0);
                }
            }
            let end_field = ptrs + 4 * objs.len();
            let rel = (out.len() - end_field) as u32;
            out[end_field..end_field + 4].copy_from_slice(&rel.to_le_bytes());
        }
        while out.len() % 4 != 0 {
            out.push(0);
        }
    }
    Ok(out)
}
