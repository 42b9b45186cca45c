//! FF9 file type 0x12: per-model TPage/CLUT materials — one object of a cluster's 0x12 chunk
//! (see [`super::cluster`]), reader and writer.
//!
//! Layout (the public importer, as summarised in `format-notes.md` §2.3; the wiki page only
//! knows the first bytes and the `{TPage, CLUT}` pairs; Hades Workshop reads the same sizes):
//! `u8 0xDC, u8 model count, u16 pad`, then per model 12 B `{u16 model id, u16 default
//! animation id (0xFFFF = none), u32 (count << 24 | 24-bit offset from the record start), u16
//! 0x19 id, u8, u8}`; at that offset `count × {u16 TPage, u16 CLUT}`, `count × {i16 x, i16 y}`
//! texture-window offsets, `count × 2 × {i16, i16}` face/eye positions. (Hades Workshop walks
//! the same 16 bytes per material as one record of four unnamed words; for more than one
//! material that grouping would differ from ours, and no game data here tells which holds.)

use super::WriteError;
use crate::formats::reader::Reader;
use crate::formats::Result;

/// GP0 texpage attribute word (as carried in a textured polygon's second word, high half).
/// Bits 0-3 X base /64, bit 4 Y base /256, bits 5-6 semi-transparency mode, bits 7-8 colour
/// depth (0 4bpp, 1 8bpp, 2 15bpp). Source: psx-spx "GPU Render Polygon Commands".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexPage(pub u16);

impl TexPage {
    /// Page left edge in VRAM halfwords.
    pub fn x(self) -> u16 {
        (self.0 & 0xF) * 64
    }
    /// Page top edge in VRAM lines.
    pub fn y(self) -> u16 {
        ((self.0 >> 4) & 1) * 256
    }
    /// Semi-transparency mode (0 B/2+F/2, 1 B+F, 2 B−F, 3 B+F/4).
    pub fn semi_mode(self) -> u16 {
        (self.0 >> 5) & 3
    }
    /// Colour depth field: 0 4bpp, 1 8bpp, 2/3 15bpp.
    pub fn depth(self) -> u16 {
        (self.0 >> 7) & 3
    }
    /// Texels per VRAM halfword at this depth.
    pub fn texels_per_halfword(self) -> u16 {
        match self.depth() {
            0 => 4,
            1 => 2,
            _ => 1,
        }
    }
}

/// GP0 CLUT attribute word: bits 0-5 X /16, bits 6-14 Y. Source: psx-spx.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clut(pub u16);

impl Clut {
    /// CLUT left edge in VRAM halfwords.
    pub fn x(self) -> u16 {
        (self.0 & 0x3F) * 16
    }
    /// CLUT line.
    pub fn y(self) -> u16 {
        (self.0 >> 6) & 0x1FF
    }
}

/// One material: where its texels and palette live in VRAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Material {
    /// Texture page (the wiki: AND it with 0xFFDF before use).
    pub tpage: TexPage,
    /// Palette.
    pub clut: Clut,
    /// Texture-window offset: field and world models add it to every UV (the public
    /// importer's behaviour on game data).
    pub window: [i16; 2],
    /// The two face/eye positions (shown; not applied).
    pub faces: [[i16; 2]; 2],
}

/// The materials of one model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelMaterials {
    /// The type-0x02 object id these belong to.
    pub model_id: u16,
    /// The type-0x03 object id of the model's default animation.
    pub default_animation: Option<u16>,
    /// The 0x19 object id.
    pub id_0x19: u16,
    /// The record's last two bytes (meaning unknown).
    pub extra: [u8; 2],
    /// Materials, indexed by the polygons' material byte.
    pub materials: Vec<Material>,
}

/// A whole 0x12 object.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MaterialSet {
    /// One record per model.
    pub models: Vec<ModelMaterials>,
}

impl MaterialSet {
    /// Parses a 0x12 object.
    pub fn parse(data: &[u8]) -> Result<MaterialSet> {
        let r = Reader::new(data, "FF9 materials");
        let count = u64::from(r.u8_at(1, "model count")?);
        r.array(1, 4, count, 12, "material records")?;
        let mut models = Vec::with_capacity(count as usize);
        for i in 0..count {
            let rec = 4 + 12 * i;
            let model_id = r.u16_at(rec, "model id")?;
            let anim = r.u16_at(rec + 2, "default animation")?;
            let packed = r.u32_at(rec + 4, "material count/offset")?;
            let n = u64::from(packed >> 24);
            let at = rec + u64::from(packed & 0xFF_FFFF);
            let block = r.array(rec + 4, at, n, 4 + 4 + 8, "material block")?;
            let (pairs, rest) = block.split_at(4 * n as usize);
            let (windows, faces) = rest.split_at(4 * n as usize);
            let word = |b: &[u8], i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
            let materials = (0..n as usize)
                .map(|m| Material {
                    tpage: TexPage(word(pairs, 2 * m)),
                    clut: Clut(word(pairs, 2 * m + 1)),
                    window: [word(windows, 2 * m) as i16, word(windows, 2 * m + 1) as i16],
                    faces: [
                        [word(faces, 4 * m) as i16, word(faces, 4 * m + 1) as i16],
                        [word(faces, 4 * m + 2) as i16, word(faces, 4 * m + 3) as i16],
                    ],
                })
                .collect();
            models.push(ModelMaterials {
                model_id,
                default_animation: (anim != 0xFFFF).then_some(anim),
                id_0x19: r.u16_at(rec + 8, "0x19 id")?,
                extra: [
                    r.u8_at(rec + 10, "record byte")?,
                    r.u8_at(rec + 11, "record byte")?,
                ],
                materials,
            });
        }
        Ok(MaterialSet { models })
    }

    /// Writes the 0x12 object.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        let n = u8::try_from(self.models.len())
            .map_err(|_| WriteError::new("more than 255 material records"))?;
        let mut out = vec![0xDC, n, 0, 0];
        out.resize(4 + 12 * self.models.len(), 0);
        for (i, m) in self.models.iter().enumerate() {
            let rec = 4 + 12 * i;
            let count = u8::try_from(m.materials.len())
                .map_err(|_| WriteError::new("more than 255 materials"))?;
            let packed = u32::from(count) << 24 | (out.len() - rec) as u32;
            let mut r = Vec::with_capacity(12);
            r.extend_from_slice(&m.model_id.to_le_bytes());
            r.extend_from_slice(&m.default_animation.unwrap_or(0xFFFF).to_le_bytes());
            r.extend_from_slice(&packed.to_le_bytes());
            r.extend_from_slice(&m.id_0x19.to_le_bytes());
            r.extend_from_slice(&m.extra);
            out[rec..rec + 12].copy_from_slice(&r);
            let mut push = |v: u16| out.extend_from_slice(&v.to_le_bytes());
            for mat in &m.materials {
                push(mat.tpage.0);
                push(mat.clut.0);
            }
            for mat in &m.materials {
                mat.window.iter().for_each(|&v| push(v as u16));
            }
            for mat in &m.materials {
                mat.faces.iter().flatten().for_each(|&v| push(v as u16));
            }
        }
        if out.len() > 0xFF_FFFF {
            return Err(WriteError::new("material object exceeds 16 MiB"));
        }
        Ok(out)
    }

    /// The record for `model_id`, or the first one.
    pub fn for_model(&self, model_id: Option<u16>) -> Option<&ModelMaterials> {
        model_id
            .and_then(|id| self.models.iter().find(|m| m.model_id == id))
            .or(self.models.first())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texpage_and_clut_fields() {
        let tp = TexPage(0x01FA); // x 10, y 1, mode 3, depth 3
        assert_eq!(
            (tp.x(), tp.y(), tp.semi_mode(), tp.depth()),
            (640, 256, 3, 3)
        );
        let c = Clut(0x4028);
        assert_eq!((c.x(), c.y()), (640, 256));
    }

    #[test]
    fn records_round_trip_and_pick_by_model() {
        let mat = |t| Material {
            tpage: TexPage(t),
            clut: Clut(t + 1),
            window: [-1, 2],
            faces: [[3, -4], [5, 6]],
        };
        let set = MaterialSet {
            models: vec![
                ModelMaterials {
                    model_id: 7,
                    default_animation: None,
                    id_0x19: 9,
                    extra: [1, 2],
                    materials: vec![mat(10), mat(20)],
                },
                ModelMaterials {
                    model_id: 8,
                    default_animation: Some(3),
                    id_0x19: 0,
                    extra: [0, 0],
                    materials: vec![mat(30)],
                },
            ],
        };
        let bytes = set.write().unwrap();
        assert_eq!(&bytes[..2], &[0xDC, 2]);
        let back = MaterialSet::parse(&bytes).unwrap();
        assert_eq!(back, set);
        assert_eq!(back.for_model(Some(8)).unwrap().model_id, 8);
        assert_eq!(back.for_model(Some(99)).unwrap().model_id, 7);
        for len in 0..bytes.len() {
            assert!(MaterialSet::parse(&bytes[..len]).is_err(), "len {len}");
        }
    }
}
