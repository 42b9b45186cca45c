//! Where an FF9 polygon's texels and palette come from: the model's kind (which rule turns a
//! material byte into TPage, CLUT and UVs) and the VRAM the model's TIMs fill.
//!
//! VRAM is memory: the game uploads every TIM block (image or CLUT) to its own rectangle, and a
//! TPage/CLUT word samples whatever is there. Palettes often arrive as ordinary 16bpp image
//! TIMs that happen to hold CLUT entries, so a CLUT is resolved against every upload, never
//! against CLUT blocks only. Only a page or palette no upload touched is missing.

use std::fmt;
use std::str::FromStr;

use super::material::{Clut, TexPage};
use super::mesh::{PolyKind, Polygon};
use super::ModelMaterials;
use crate::formats::tim::Tim;
use crate::scene::VramImage;

/// Which of the game's model families a model belongs to. It decides where materials come from
/// and how UVs are adjusted; the FF9.IMG directory tells it (3 world map, 4 field, 7 enemies,
/// 8 weapons, 10 party), a bare cluster does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// Field model (FF9.IMG directory 4): 0x12 materials, UV + the material's texture-window
    /// offset.
    Field,
    /// World-map model (directory 3): the same rules as a field model.
    World,
    /// Battle model: party (directory 10) or enemy (7). Material index = TIM index.
    Battle,
    /// Weapon model (directory 8): as a battle model, and stored V is 16 rows above the TIM's.
    Weapon,
}

impl ModelKind {
    /// Field and world models take their materials from a 0x12 record.
    pub fn uses_material_records(self) -> bool {
        matches!(self, ModelKind::Field | ModelKind::World)
    }

    /// Rows added to a stored V before it is placed in the TIM (weapons only).
    ///
    /// Source: the public importer's behaviour on game data: for directory 8 it samples row
    /// `v - offset` of the TIM with `offset = -16`, i.e. V + 16.
    pub fn v_shift(self) -> u8 {
        match self {
            ModelKind::Weapon => 16,
            _ => 0,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Field => "field",
            ModelKind::World => "world",
            ModelKind::Battle => "battle",
            ModelKind::Weapon => "weapon",
        }
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ModelKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "field" => Ok(ModelKind::Field),
            "world" => Ok(ModelKind::World),
            "battle" => Ok(ModelKind::Battle),
            "weapon" => Ok(ModelKind::Weapon),
            _ => Err(format!(
                "'{s}' is not an FF9 model kind (field, world, battle, weapon)"
            )),
        }
    }
}

/// Which block of a TIM an upload came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// The pixel rectangle.
    Image,
    /// The CLUT rectangle.
    Clut,
}

/// One rectangle a TIM puts in VRAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Upload {
    /// Index of the TIM in the model's list.
    pub tim: usize,
    /// Which of its blocks.
    pub block: Block,
    /// Left edge, halfwords.
    pub x: u32,
    /// Top line.
    pub y: u32,
    /// Width, halfwords.
    pub w: u32,
    /// Height, lines.
    pub h: u32,
}

impl fmt::Display for Upload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let block = match self.block {
            Block::Image => "image",
            Block::Clut => "CLUT",
        };
        write!(f, "TIM {} {block} block", self.tim)
    }
}

/// Every rectangle the model's TIMs upload, in upload order (each TIM's CLUT, then its image).
#[derive(Clone, Debug, Default)]
pub struct Uploads(Vec<Upload>);

impl Uploads {
    /// The uploads of `tims`.
    pub fn of<'a>(tims: impl IntoIterator<Item = &'a Tim>) -> Uploads {
        let mut out = Vec::new();
        for (i, t) in tims.into_iter().enumerate() {
            let rect = |v: &VramImage, block| Upload {
                tim: i,
                block,
                x: u32::from(v.x),
                y: u32::from(v.y),
                w: u32::from(v.width),
                h: u32::from(v.height),
            };
            out.extend(t.clut.iter().map(|c| rect(c, Block::Clut)));
            out.push(rect(&t.image, Block::Image));
        }
        Uploads(out)
    }

    /// The last upload (the one whose contents are there) touching the rectangle `x, y, w × h`.
    pub fn touching(&self, x: u32, y: u32, w: u32, h: u32) -> Option<&Upload> {
        self.0
            .iter()
            .rev()
            .find(|u| u.x < x + w && x < u.x + u.w && u.y < y + h && y < u.y + u.h)
    }

    /// The upload under the palette `clut` of a page of depth `depth` (None for 15bpp pages,
    /// which have no palette, inside the outer `Option`).
    pub fn palette(&self, clut: Clut, depth: u16) -> Option<Option<&Upload>> {
        let entries = match depth {
            0 => 16,
            1 => 256,
            _ => return None,
        };
        let x = u32::from(clut.x());
        Some(self.touching(x, u32::from(clut.y()), entries.min(1024 - x), 1))
    }

    /// The upload under the texels of page `tp` that the UV box `u0..=u1`, `v0..=v1` samples.
    pub fn texels(&self, tp: TexPage, [u0, v0, u1, v1]: [u8; 4]) -> Option<&Upload> {
        let per = u32::from(tp.texels_per_halfword());
        let x0 = u32::from(tp.x()) + u32::from(u0) / per;
        let x1 = u32::from(tp.x()) + u32::from(u1) / per;
        let y0 = u32::from(tp.y()) + u32::from(v0);
        self.touching(x0, y0, x1 - x0 + 1, u32::from(v1 - v0) + 1)
    }
}

/// What a polygon's material resolves to.
pub enum Resolved {
    /// Sample VRAM: texpage and CLUT words and per-corner UVs (already in scene corner order).
    Vram {
        /// GP0 texpage attribute (semi-transparency mode not yet ORed in).
        tpage: u16,
        /// GP0 CLUT attribute.
        clut: u16,
        /// Texel coordinates inside the page.
        uv: [[u8; 2]; 4],
    },
    /// The material names VRAM no upload touched (or a palette no TIM gives): checkerboard.
    Missing(String),
    /// No material at all: flat colour.
    Flat(String),
}

/// Everything [`resolve`] needs to know about the model.
pub struct Context<'a> {
    /// The model's kind.
    pub kind: ModelKind,
    /// Its 0x12 record, if any.
    pub materials: Option<&'a ModelMaterials>,
    /// Its TIMs, in cluster/command-line order.
    pub tims: &'a [&'a Tim],
    /// What those TIMs put in VRAM.
    pub uploads: &'a Uploads,
}

/// Resolves polygon `p`'s material for UVs `uvs` (scene corner order).
pub fn resolve(cx: &Context, p: &Polygon, uvs: [[u8; 2]; 4]) -> Resolved {
    let idx = usize::from(p.material);
    let label = p.kind.label(p.is_quad());
    let reconstructed = if p.kind == PolyKind::A {
        ""
    } else {
        " (B/C layouts beyond the vertex indices are a reconstruction)"
    };
    let (tpage, clut, uv) = if cx.kind.uses_material_records() {
        let Some(m) = cx.materials else {
            return Resolved::Flat(format!(
                "a {} model takes its materials from a 0x12 record and none was found: every \
                 polygon drawn in flat colour (pass --materials FILE, or --ff9-kind battle for \
                 material index = TIM index)",
                cx.kind
            ));
        };
        let Some(mat) = m.materials.get(idx) else {
            return Resolved::Flat(format!(
                "{label} polygon material {idx} is beyond the {} materials: drawn in flat \
                 colour{reconstructed}",
                m.materials.len()
            ));
        };
        // The wiki: AND the TPage with 0xFFDF; the polygon's flags supply the mode bits.
        // Field and world models add the material's texture-window offset to every UV (the
        // public importer on game data); the result is a byte, as a byte store would make it.
        let [wu, wv] = mat.window;
        let uv = uvs.map(|[u, v]| [u.wrapping_add(wu as u8), v.wrapping_add(wv as u8)]);
        (mat.tpage.0 & 0xFFDF, Some(mat.clut.0), uv)
    } else {
        if cx.tims.is_empty() {
            return Resolved::Flat(format!(
                "a {} model takes material index = TIM index and it has no TIMs: every \
                 polygon drawn in flat colour",
                cx.kind
            ));
        }
        let Some(tim) = cx.tims.get(idx) else {
            return Resolved::Flat(format!(
                "{label} polygon TIM index {idx} is beyond the {} TIMs: drawn in flat \
                 colour{reconstructed}",
                cx.tims.len()
            ));
        };
        // UVs are relative to the TIM: shift them to its place inside its page.
        let tpage = tim.texpage();
        let per = TexPage(tpage).texels_per_halfword();
        let du = ((tim.image.x % 64) * per) as u8;
        let dv = (tim.image.y % 256) as u8;
        let shift = cx.kind.v_shift();
        let uv = uvs.map(|[u, v]| [u.wrapping_add(du), v.wrapping_add(shift).wrapping_add(dv)]);
        let clut = tim.clut.as_ref().map(|_| tim.clut_attribute());
        (tpage, clut, uv)
    };
    let tp = TexPage(tpage);
    let n = p.corners as usize;
    let range = |k: usize| {
        uv[..n]
            .iter()
            .fold((255u8, 0u8), |(a, b), c| (a.min(c[k]), b.max(c[k])))
    };
    let ((u0, u1), (v0, v1)) = (range(0), range(1));
    let missing = |what: String| {
        Resolved::Missing(format!(
            "material {idx} (TPage 0x{tpage:04x}{}) {what}: drawn with a magenta checkerboard",
            clut.map_or(String::new(), |c| format!(", CLUT 0x{c:04x}"))
        ))
    };
    if cx.uploads.texels(tp, [u0, v0, u1, v1]).is_none() {
        return missing(format!(
            "samples texels at page ({},{}) that no TIM uploads",
            tp.x(),
            tp.y()
        ));
    }
    let clut = match (tp.depth() >= 2, clut) {
        (true, c) => c.unwrap_or(0),
        (false, None) => {
            return missing(format!(
                "is a {}bpp TIM with no CLUT block: its palette is unknown",
                [4, 8][usize::from(tp.depth())]
            ))
        }
        (false, Some(c)) => {
            if let Some(None) = cx.uploads.palette(Clut(c), tp.depth()) {
                return missing(format!(
                    "reads a palette at VRAM ({},{}) that no TIM uploads",
                    Clut(c).x(),
                    Clut(c).y()
                ));
            }
            c
        }
    };
    Resolved::Vram { tpage, clut, uv }
}

/// Where a checkerboard goes when a material points at VRAM no TIM fills: the last 16x16
/// halfwords of VRAM, sampled as 15bpp from texture page 15/1.
pub const FALLBACK_X: u16 = 1008;
/// Top line of the checkerboard.
pub const FALLBACK_Y: u16 = 496;
/// The texpage that samples the checkerboard.
pub const FALLBACK_TPAGE: u16 = 15 | 1 << 4 | 2 << 7;

/// The magenta/black checkerboard drawn for missing VRAM.
pub fn checkerboard() -> VramImage {
    let data = (0..256u16)
        .map(|i| {
            if ((i % 16) / 4 + (i / 16) / 4) % 2 == 0 {
                0x7C1F // magenta
            } else {
                0x8000 // opaque black
            }
        })
        .collect();
    VramImage {
        x: FALLBACK_X,
        y: FALLBACK_Y,
        width: 16,
        height: 16,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tim::TimDepth;

    fn tim(clut: Option<(u16, u16, u16)>, image: (u16, u16, u16, u16)) -> Tim {
        let block = |x, y, w, h| VramImage {
            x,
            y,
            width: w,
            height: h,
            data: vec![1; usize::from(w) * usize::from(h)],
        };
        Tim {
            depth: TimDepth::Bpp4,
            clut: clut.map(|(x, y, w)| block(x, y, w, 1)),
            image: block(image.0, image.1, image.2, image.3),
        }
    }

    #[test]
    fn a_palette_is_found_in_image_blocks_as_well_as_clut_blocks() {
        let tims = [
            tim(Some((0, 480, 16)), (640, 0, 16, 16)),
            tim(None, (320, 500, 256, 2)),
        ];
        let up = Uploads::of(&tims);
        let block = |c: u16| up.palette(Clut(c), 0).flatten().map(|u| (u.tim, u.block));
        assert_eq!(block(480 << 6), Some((0, Block::Clut)));
        assert_eq!(block(20 | 501 << 6), Some((1, Block::Image)));
        assert_eq!(block(20 | 502 << 6), None, "line 502: no upload");
        assert_eq!(up.palette(Clut(0), 2), None, "15bpp pages have no palette");
        // 8bpp: 256 entries from X 304 reach into the image block at X 320.
        assert!(up.palette(Clut(19 | 500 << 6), 1).flatten().is_some());
        assert!(up.palette(Clut(19 | 500 << 6), 0).flatten().is_none());
    }

    #[test]
    fn texels_touch_when_any_sampled_halfword_is_uploaded() {
        let tims = [tim(None, (648, 10, 4, 4))];
        let up = Uploads::of(&tims);
        let page = TexPage(10); // X 640, 4bpp: 4 texels per halfword
        assert!(up.texels(page, [0, 0, 35, 10]).is_some()); // halfwords 640..648, lines 0..10
        assert!(up.texels(page, [0, 0, 35, 9]).is_none()); // lines 0..9 only
        assert!(up.texels(page, [0, 0, 31, 255]).is_none()); // halfwords 640..647 only
        assert!(up.texels(page, [44, 13, 255, 255]).is_some()); // from halfword 651, line 13
        assert!(up.texels(page, [48, 13, 255, 255]).is_none()); // from halfword 652
    }

    #[test]
    fn kinds_parse_and_name_themselves() {
        for k in [
            ModelKind::Field,
            ModelKind::World,
            ModelKind::Battle,
            ModelKind::Weapon,
        ] {
            assert_eq!(k.name().parse::<ModelKind>(), Ok(k));
        }
        assert_eq!("Weapon".parse::<ModelKind>(), Ok(ModelKind::Weapon));
        assert!("party".parse::<ModelKind>().is_err());
    }
}
