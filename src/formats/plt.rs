//! NWN PLT ("texture palette") files, composited into RGBA from the `pal_*.tga` palettes.
//!
//! Layout (source: Torlack's plt.html, format-notes §2.1; verified on `pmh0_head001.plt`):
//! `"PLT V1  "`, `u32` (10 = layer count), `u32` (unknown), `u32 width`, `u32 height`, then
//! `width × height` pixels of `{u8 colour index, u8 palette group 0..9}`, rows bottom-up like
//! the TGAs they replace. Each group has a palette image 256 wide with one row per colour
//! choice (choice 0 = the top row of the image as displayed); a pixel's colour is
//! `palette[group][row = chosen row for the group][column = colour index]`.

use super::error::{ErrorKind, Result};
use super::reader::Reader;
use crate::scene::RgbaImage;
use serde::Serialize;

/// Palette files of the ten groups, in group order (skin, hair, metal 1, metal 2, cloth 1,
/// cloth 2, leather 1, leather 2, tattoo 1, tattoo 2).
pub const PALETTE_FILES: [&str; 10] = [
    "pal_skin01",
    "pal_hair01",
    "pal_armor01",
    "pal_armor02",
    "pal_cloth01",
    "pal_cloth01",
    "pal_leath01",
    "pal_leath01",
    "pal_tattoo01",
    "pal_tattoo01",
];

/// Largest accepted side, in pixels.
pub const MAX_DIMENSION: u32 = 4096;

/// A parsed PLT: per pixel (colour index, group), top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plt {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `(colour index, palette group)` per pixel, top row first.
    pub pixels: Vec<(u8, u8)>,
}

/// Parses a PLT file.
pub fn parse(data: &[u8]) -> Result<Plt> {
    let r = Reader::new(data, "PLT");
    if r.bytes(0, 8, "signature")? != b"PLT V1  " {
        return Err(r.error(
            0,
            ErrorKind::BadMagic {
                expected: "\"PLT V1  \"",
            },
        ));
    }
    let w = r.u32_at(16, "width")?;
    let h = r.u32_at(20, "height")?;
    r.check_count(16, u64::from(w), u64::from(MAX_DIMENSION), "PLT width")?;
    r.check_count(20, u64::from(h), u64::from(MAX_DIMENSION), "PLT height")?;
    let body = r.array(16, 24, u64::from(w) * u64::from(h), 2, "PLT pixels")?;
    let (w_us, h_us) = (w as usize, h as usize);
    let mut pixels = Vec::with_capacity(w_us * h_us);
    for y in (0..h_us).rev() {
        for p in body[y * w_us * 2..(y + 1) * w_us * 2].chunks_exact(2) {
            pixels.push((p[0], p[1]));
        }
    }
    Ok(Plt {
        width: w,
        height: h,
        pixels,
    })
}

impl Plt {
    /// Composites the texture: `palettes[g]` is group `g`'s palette image (top row first) or
    /// `None` when missing (then a grey ramp of the colour index is used); `rows[g]` the chosen
    /// row. Rows past the image's height clamp to its last row; groups above 9 use group 0.
    pub fn composite(&self, palettes: &[Option<RgbaImage>; 10], rows: [u8; 10]) -> RgbaImage {
        let pixels = self
            .pixels
            .iter()
            .map(|&(index, group)| {
                let g = if group < 10 { group as usize } else { 0 };
                match &palettes[g] {
                    Some(pal) if pal.width > 0 && pal.height > 0 => {
                        let row = u32::from(rows[g]).min(pal.height - 1);
                        let col = u32::from(index).min(pal.width - 1);
                        pal.pixels[(row * pal.width + col) as usize]
                    }
                    _ => [index, index, index, 255],
                }
            })
            .collect();
        RgbaImage {
            width: self.width,
            height: self.height,
            pixels,
        }
    }
}

/// Names of the ten PLT groups, in group order.
const PLT_GROUPS: [&str; 10] = [
    "skin", "hair", "metal1", "metal2", "cloth1", "cloth2", "leather1", "leather2", "tattoo1",
    "tattoo2",
];

/// One PLT layer (palette group).
#[derive(Clone, Debug, Serialize)]
pub struct PltLayer {
    /// Group number (0-9).
    pub group: u8,
    /// Its name (skin, hair, …).
    pub name: &'static str,
    /// The palette image it samples.
    pub palette: &'static str,
    /// Pixels that use it.
    pub pixels: u64,
}

/// PLT facts.
#[derive(Clone, Debug, Serialize)]
pub struct PltFacts {
    /// The header's layer count.
    pub layer_count: u32,
    /// Pixels per layer (layers no pixel uses are left out).
    pub layers: Vec<PltLayer>,
    /// Pixels naming a group past 9 (drawn with group 0).
    pub other_pixels: u64,
}

/// What `info` reports of the PLT in `data`: pixels per palette group.
pub fn facts(data: &[u8]) -> Result<PltFacts> {
    let p = parse(data)?;
    let layer_count = Reader::new(data, "PLT").u32_at(8, "layer count")?;
    let mut counts = [0u64; 10];
    let mut other = 0;
    for &(_, g) in &p.pixels {
        match counts.get_mut(g as usize) {
            Some(c) => *c += 1,
            None => other += 1,
        }
    }
    let layers = (0..10)
        .filter(|&g| counts[g] > 0)
        .map(|g| PltLayer {
            group: g as u8,
            name: PLT_GROUPS[g],
            palette: PALETTE_FILES[g],
            pixels: counts[g],
        })
        .collect();
    Ok(PltFacts {
        layer_count,
        layers,
        other_pixels: other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_picks_row_and_column() {
        let mut d = b"PLT V1  ".to_vec();
        for v in [10u32, 0, 2, 1] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        d.extend_from_slice(&[3, 1, 0, 0]);
        let plt = parse(&d).unwrap();
        let pal = RgbaImage {
            width: 4,
            height: 2,
            pixels: (0..8u8).map(|i| [i, 0, 0, 255]).collect(),
        };
        let mut pals: [Option<RgbaImage>; 10] = Default::default();
        pals[1] = Some(pal);
        let img = plt.composite(&pals, [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(img.pixels[0], [7, 0, 0, 255], "group 1 row 1 column 3");
        assert_eq!(img.pixels[1], [0, 0, 0, 255], "group 0 missing: grey ramp");
    }

    #[test]
    fn bad_plts_fail_cleanly() {
        assert!(parse(b"PLT V1").is_err());
        let mut d = b"PLT V1  ".to_vec();
        for v in [10u32, 0, 100_000, 100_000] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        assert!(matches!(
            parse(&d).unwrap_err().kind,
            ErrorKind::CountTooLarge { .. }
        ));
    }
}
