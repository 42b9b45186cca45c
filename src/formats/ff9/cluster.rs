//! FF9 data cluster (`0xDB`): typed chunks of models, animations, TIMs and materials.
//!
//! Layout (`format-notes.md` "Containers"): `u8 0xDB, u8 count, u16 0`, then `count` entries
//! `{u24 LE offset relative to the entry, u8 type}`. Each entry points at a typed chunk `{u8
//! type, u8 object count n, u16 0, u16 ids[n] (padded to 4 bytes), i32 ptr[n] each relative to
//! its own field, u32 end relative to its own field}`. Types read: 0x02 model, 0x03 animation,
//! 0x04 TIM, 0x1B nested clusters (each object a cluster). A 0x12 entry points straight at the
//! material object (it starts `0xDC`, not with a typed chunk header) — our reading of the
//! wiki's "this chunk starts: DC"; other types are listed and skipped.

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

/// One object found in a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object<'a> {
    /// Chunk type.
    pub kind: u8,
    /// Object id (0 for a 0x12 object, which has none).
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

/// Everything a cluster holds, flattened in file order, plus skipped chunk types.
#[derive(Clone, Debug, Default)]
pub struct Cluster<'a> {
    /// Objects of the types read.
    pub objects: Vec<Object<'a>>,
    /// Chunk types skipped, as (absolute offset, type).
    pub skipped: Vec<(u64, u8)>,
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
            TYPE_MATERIALS => out.objects.push(Object {
                kind,
                id: 0,
                offset: chunk,
                data: &r.data()[chunk as usize..end as usize],
            }),
            TYPE_MODEL | TYPE_ANIMATION | TYPE_TIM | TYPE_SUBCLUSTER => {
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
                    let id = u16::from_le_bytes([ids[2 * j as usize], ids[2 * j as usize + 1]]);
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
            }
            _ => out.skipped.push((chunk, kind)),
        }
    }
    Ok(())
}

/// Writes a cluster holding `objects` = (type, id, bytes): one typed chunk per type, in the
/// order the types first appear; a 0x12 object is written bare (at most one).
pub fn write(objects: &[(u8, u16, Vec<u8>)]) -> Result<Vec<u8>, WriteError> {
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
        if kind == TYPE_MATERIALS {
            if objs.len() != 1 {
                return Err(WriteError::new("a cluster holds one 0x12 object"));
            }
            out.extend_from_slice(&objs[0].2);
        } else {
            let n = u8::try_from(objs.len())
                .map_err(|_| WriteError::new("more than 255 objects of one type"))?;
            let chunk = out.len();
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
            debug_assert!(out[chunk] == kind);
        }
        while out.len() % 4 != 0 {
            out.push(0);
        }
    }
    Ok(out)
}
