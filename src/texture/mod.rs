//! Textures in PS1 form: resampled to power-of-two sizes of at most 256×256, quantised to a 4bpp
//! or 8bpp CLUT (or kept at 15bpp), texels encoded with the hardware's transparency rules, and
//! placed in VRAM beside the framebuffer.
//!
//! Texel encoding (psx-spx "Texture colour/transparency"): halfword 0x0000 is never drawn; any
//! other texel is drawn, and on a semi-transparent polygon it blends only when its bit 15 (STP) is
//! set. So: fully transparent texels → 0x0000; opaque black → 0x8000 (or 0x0421 where STP would
//! make it blend); partial alpha on an alpha-blended face → STP set; every texel of an additive /
//! subtractive face → STP set.
//!
//! Placement: a texture of S×T texels sits at an X aligned to its own width in halfwords (64 at
//! most) and a Y aligned to T, so inside its 256×256 texture page it starts at a multiple of its
//! size; each polygon is preceded by a GP0(E2h) texture window whose mask is the size and whose
//! offset is that start, which gives the wrap-around UVs that the models ask for. CLUTs (16 or 256
//! halfwords × 1 line) are placed at X multiples of 16. When everything does not fit, every
//! texture is halved and placement retried, down to 8×8.
//!
//! This layer stands on the scene's images alone: the loaders (`info`'s PS1 form of a
//! texture) and the renderer both use it, and it knows neither.

pub mod cache;
mod facts;
mod place;
mod quantise;
pub mod tim;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use gpu::gp0::fields::{Clut, TexPage};

use crate::scene::{Blend, RgbaImage, Texture, TextureImage, VramImage};
use cache::{ImageHash, Key};
use quantise::{convert, distinct_texels, Converted};

pub use cache::{source_id, SourceFacts, TextureCache};
pub use facts::{ps1_facts, Ps1Facts};
pub use tim::{Tim, TimDepth};

/// How a texture's texels are encoded, from the blend of the faces that use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BlendClass {
    /// Alpha ignored.
    Opaque,
    /// Alpha < 1/2 → transparent.
    Cutout,
    /// Partial alpha → STP (blended), full → solid.
    Alpha,
    /// Every visible texel blends (additive, subtractive, quarter).
    Blended,
}

impl BlendClass {
    /// The name `--blend` and `info` use for the encoding.
    pub fn name(self) -> &'static str {
        match self {
            BlendClass::Opaque => "opaque",
            BlendClass::Cutout => "cutout",
            BlendClass::Alpha => "alpha",
            BlendClass::Blended => "additive",
        }
    }

    /// The encoding a texture seen on its own gets: [`BlendClass::Opaque`] when every pixel
    /// is opaque, [`BlendClass::Cutout`] when alpha is only ever near 0 or near 255 (as the
    /// [`BlendClass::Alpha`] encoding would threshold it), else [`BlendClass::Alpha`].
    pub fn for_image(img: &RgbaImage) -> Self {
        if img.pixels.iter().all(|p| p[3] == 255) {
            BlendClass::Opaque
        } else if img.pixels.iter().all(|p| p[3] < 16 || p[3] >= 240) {
            BlendClass::Cutout
        } else {
            BlendClass::Alpha
        }
    }
}

impl From<Blend> for BlendClass {
    fn from(b: Blend) -> Self {
        match b {
            Blend::Opaque => BlendClass::Opaque,
            Blend::Cutout => BlendClass::Cutout,
            Blend::Alpha => BlendClass::Alpha,
            Blend::Additive | Blend::Subtractive | Blend::AddQuarter => BlendClass::Blended,
        }
    }
}

/// Texture colour depth: `None` in [`TextureDepth::Auto`] picks 4bpp for ≤16 colours, else 8bpp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TextureDepth {
    /// 4bpp when the texture has at most 16 colours, 8bpp otherwise.
    #[default]
    Auto,
    /// Always 4bpp (16-colour CLUT).
    Bpp4,
    /// Always 8bpp (256-colour CLUT).
    Bpp8,
    /// Direct 15-bit colour, no CLUT.
    Bpp15,
}

/// A rectangle of VRAM (halfwords × lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Left.
    pub x: u16,
    /// Top.
    pub y: u16,
    /// Width in halfwords.
    pub w: u16,
    /// Height in lines.
    pub h: u16,
}

/// Where one texture (in one encoding) ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Texpage attribute (semi-transparency mode 0; the polygon sets its own).
    pub page: TexPage,
    /// CLUT attribute.
    pub clut: Clut,
    /// The GP0(E2h) texture window wrapping UVs inside this texture.
    pub window: Window,
    /// Size in texels.
    pub size: [u16; 2],
}

/// All textures of a model, placed.
#[derive(Clone, Debug, Default)]
pub struct TextureSet {
    /// Placement per (texture index, encoding).
    pub placed: HashMap<(usize, BlendClass), Placed>,
    /// What to upload (pixels and CLUTs).
    pub uploads: Vec<VramImage>,
    /// How many times every texture was halved to fit.
    pub shrink: u32,
}

/// A GP0(E2h) texture window in 8-texel steps: texcoord = (texcoord AND NOT (mask*8)) OR
/// ((offset AND mask)*8). The renderer writes it as the GP0 word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Window {
    /// Mask, U and V.
    pub mask: [u8; 2],
    /// Offset, U and V.
    pub offset: [u8; 2],
}

/// Why textures could not be put in PS1 form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextureError {
    /// The textures and CLUTs do not fit beside the framebuffer even at 8×8.
    VramFull {
        /// How many textures were asked for.
        textures: usize,
    },
    /// A texture image is malformed or too large.
    BadTexture {
        /// Its name.
        name: String,
        /// What is wrong.
        cause: String,
    },
}

impl fmt::Display for TextureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextureError::VramFull { textures } => write!(
                f,
                "{textures} textures and their CLUTs do not fit in VRAM beside the framebuffer, even shrunk to 8x8"
            ),
            TextureError::BadTexture { name, cause } => write!(f, "texture {name}: {cause}"),
        }
    }
}

impl std::error::Error for TextureError {}

/// Cap on source texture size accepted (pixels); larger images are refused.
pub const MAX_SOURCE_PIXELS: usize = 8192 * 8192;

/// Largest side of a texture in PS1 form: a texture page is 256 texels square.
pub const PS1_MAX_SIDE: u32 = 256;

/// How many times a loader may halve a `w`×`h` source before it is drawn (decode a smaller mip
/// level, or decode at a reduced scale), `levels` the halvings the file or codec offers: 0
/// unless a side is more than twice [`PS1_MAX_SIDE`], so a texture within that bound is decoded
/// as it always was; else the most halvings that leave each side (`n >> k`) at least the PS1
/// size the converter resamples that side to at full size. Then each side is still resampled to
/// the same PS1 size, from a source holding a quarter of the pixels or fewer per halving.
pub fn early_halvings(w: u32, h: u32, levels: u32) -> u32 {
    if w.max(h) <= 2 * PS1_MAX_SIDE {
        return 0;
    }
    let (tw, th) = (
        u32::from(quantise::target_size(w, 0)),
        u32::from(quantise::target_size(h, 0)),
    );
    (0..=levels.min(31))
        .take_while(|&k| w >> k >= tw && h >> k >= th)
        .last()
        .unwrap_or(0)
}

/// Converts and places `uses` (texture index, encoding) of `textures`, avoiding `occupied`;
/// conversions are taken from and added to `cache` when there is one.
pub fn prepare(
    textures: &[Texture],
    uses: &[(usize, BlendClass)],
    depth: TextureDepth,
    occupied: &[Rect],
    cache: Option<&TextureCache>,
) -> Result<TextureSet, TextureError> {
    let mut uses: Vec<(usize, BlendClass)> = uses
        .iter()
        .copied()
        .filter(|(i, _)| *i < textures.len())
        .collect();
    uses.sort();
    uses.dedup();
    for &(i, _) in &uses {
        // Sized without decoding: a lazily decoded image always has the size it promised.
        let image = &textures[i].image;
        let [w, h] = image.size();
        let n = w as usize * h as usize;
        let pixels = image.is_decoded().then(|| image.pixels.len());
        if n > MAX_SOURCE_PIXELS || pixels.is_some_and(|p| p != n) {
            return Err(TextureError::BadTexture {
                name: textures[i].name.clone(),
                cause: format!(
                    "{w}x{h} with {} pixels (at most {MAX_SOURCE_PIXELS} accepted)",
                    pixels.unwrap_or(n)
                ),
            });
        }
    }
    // Each source is hashed once for all its encodings and sizes; one the loader named is not
    // decoded unless an entry is missing.
    let mut hashes: HashMap<usize, ImageHash> = HashMap::new();
    if cache.is_some() {
        for &(i, _) in &uses {
            hashes
                .entry(i)
                .or_insert_with(|| ImageHash::of(&textures[i].image));
        }
    }
    for shrink in 0..=5 {
        let converted: Vec<Converted> = uses
            .iter()
            .map(|&(i, class)| {
                let img = &textures[i].image;
                match (cache, hashes.get(&i)) {
                    (Some(cache), Some(&hash)) => {
                        let key = Key::new(hash, class, depth, shrink);
                        cache.get(key).unwrap_or_else(|| {
                            let c = convert(img, class, depth, shrink);
                            cache.put(key, &c);
                            c
                        })
                    }
                    _ => convert(img, class, depth, shrink),
                }
            })
            .collect();
        if let Some(set) = place::place(&uses, &converted, occupied, shrink) {
            return Ok(set);
        }
    }
    Err(TextureError::VramFull {
        textures: uses.len(),
    })
}

/// The framebuffer a lone texture is placed beside for `psxrender texture` and `info`: the
/// default `--size`, 320x240 at the origin.
pub const LONE_TEXTURE_FRAMEBUFFER: Rect = Rect {
    x: 0,
    y: 0,
    w: 320,
    h: 240,
};

/// One texture as the renderer holds it in VRAM (for `psxrender texture` and `info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ps1Form {
    /// The texels and CLUT at the places [`prepare`] gave them, as a TIM.
    pub tim: Tim,
    /// Distinct texel values (15-bit colour and STP) before the CLUT was made.
    pub colours: usize,
    /// How many times it was halved to fit in VRAM.
    pub shrink: u32,
}

impl Ps1Form {
    /// Bits per texel: 4 or 8 (CLUT) or 15 (direct).
    pub fn bits(&self) -> u32 {
        match self.tim.depth {
            TimDepth::Bpp4 => 4,
            TimDepth::Bpp8 => 8,
            TimDepth::Bpp15 | TimDepth::Bpp24 => 15,
        }
    }
}

/// `img` converted and placed exactly as [`prepare`] converts and places a model's only
/// texture beside `framebuffer`, returned as a TIM holding the uploaded rectangles.
pub fn ps1_form(
    img: Arc<RgbaImage>,
    class: BlendClass,
    depth: TextureDepth,
    framebuffer: Rect,
) -> Result<Ps1Form, TextureError> {
    let texture = Texture {
        name: String::new(),
        image: TextureImage::from(Arc::clone(&img)),
    };
    let set = prepare(&[texture], &[(0, class)], depth, &[framebuffer], None)?;
    let placed = set.placed[&(0, class)];
    let (mut clut, mut image) = (None, None);
    for u in set.uploads {
        // The CLUT is one line; the texels at least 8 (sizes are 8-256).
        if u.height == 1 {
            clut = Some(u);
        } else {
            image = Some(u);
        }
    }
    let image = image.ok_or(TextureError::VramFull { textures: 1 })?;
    let tim_depth = match (placed.page.0 >> 7) & 3 {
        0 => TimDepth::Bpp4,
        1 => TimDepth::Bpp8,
        _ => TimDepth::Bpp15,
    };
    Ok(Ps1Form {
        tim: Tim {
            depth: tim_depth,
            clut,
            image,
        },
        colours: distinct_texels(&img, class, placed.size[0], placed.size[1]),
        shrink: set.shrink,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Texture {
        let mut pixels = Vec::new();
        for y in 0..h {
            for x in 0..w {
                pixels.push(f(x, y));
            }
        }
        Texture {
            name: "t".into(),
            image: RgbaImage {
                width: w,
                height: h,
                pixels,
            }
            .into(),
        }
    }

    #[test]
    fn only_textures_past_twice_the_ps1_side_are_halved_early() {
        // Within the bound: decoded as they are, whatever mips the file holds.
        assert_eq!(early_halvings(512, 512, 9), 0);
        assert_eq!(early_halvings(100, 3000, 9), 0);
        // Past it: down to the PS1 size of each side, no further, and no more than offered.
        assert_eq!(early_halvings(2048, 2048, 3), 3);
        assert_eq!(early_halvings(2048, 2048, 11), 3);
        assert_eq!(early_halvings(2048, 2048, 1), 1);
        assert_eq!(early_halvings(1024, 600, 10), 1);
        assert_eq!(early_halvings(2048, 128, 10), 0);
        for (w, h) in [(1024, 600), (4096, 513), (8192, 8192), (1000, 700)] {
            let k = early_halvings(w, h, 16);
            for shrink in 0..=5 {
                assert_eq!(
                    quantise::target_size(w >> k, shrink),
                    quantise::target_size(w, shrink),
                    "{w}x{h} halved {k} times"
                );
                assert_eq!(
                    quantise::target_size(h >> k, shrink),
                    quantise::target_size(h, shrink)
                );
            }
        }
    }

    #[test]
    fn few_colours_give_4bpp_and_exact_palette() {
        let t = tex(16, 16, |x, _| {
            if x < 8 {
                [255, 0, 0, 255]
            } else {
                [0, 0, 0, 0]
            }
        });
        let set = prepare(
            &[t],
            &[(0, BlendClass::Cutout)],
            TextureDepth::Auto,
            &[Rect {
                x: 0,
                y: 0,
                w: 320,
                h: 240,
            }],
            None,
        )
        .unwrap();
        let p = set.placed[&(0, BlendClass::Cutout)];
        assert_eq!(p.size, [16, 16]);
        let clut = set.uploads.iter().find(|u| u.height == 1).unwrap();
        assert_eq!(&clut.data[..2], &[0x0000, 0x001f]);
        let pix = set.uploads.iter().find(|u| u.height == 16).unwrap();
        assert_eq!(pix.width, 4);
        assert!(pix.x >= 320, "placed beside the framebuffer at {}", pix.x);
        assert_eq!(pix.data[0], 0x1111, "{:#06x}", pix.data[0]);
        assert_eq!(pix.data[2], 0x0000, "{:#06x}", pix.data[2]);
    }

    #[test]
    fn many_colours_quantise_to_256() {
        let t = tex(64, 64, |x, y| [(x * 4) as u8, (y * 4) as u8, 128, 255]);
        let set = prepare(
            &[t],
            &[(0, BlendClass::Opaque)],
            TextureDepth::Auto,
            &[],
            None,
        )
        .unwrap();
        let clut = set.uploads.iter().find(|u| u.height == 1).unwrap();
        assert_eq!(clut.width, 256);
        assert!(clut.data.iter().all(|&c| c != 0));
    }

    #[test]
    fn too_many_textures_shrink_then_fail_cleanly() {
        let t = tex(256, 256, |x, y| [x as u8, y as u8, (x ^ y) as u8, 255]);
        let many = vec![t; 40];
        let uses: Vec<_> = (0..40).map(|i| (i, BlendClass::Opaque)).collect();
        let set = prepare(&many, &uses, TextureDepth::Bpp15, &[], None).unwrap();
        assert!(set.shrink > 0);
        let full = [Rect {
            x: 0,
            y: 0,
            w: 1024,
            h: 512,
        }];
        assert!(matches!(
            prepare(&many, &uses, TextureDepth::Bpp15, &full, None),
            Err(TextureError::VramFull { .. })
        ));
    }

    #[test]
    fn the_cache_changes_nothing_cold_or_warm() {
        let dir =
            std::env::temp_dir().join(format!("psxrender-prepare-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = TextureCache::new(&dir, cache::DEFAULT_LIMIT);
        let textures: Vec<Texture> = (0..24u32)
            .map(|n| {
                tex(256, 128, move |x, y| {
                    [(x * n) as u8, (y + n) as u8, (x ^ y) as u8, (x * 2) as u8]
                })
            })
            .collect();
        let uses: Vec<_> = (0..24)
            .flat_map(|i| [(i, BlendClass::Opaque), (i, BlendClass::Alpha)])
            .collect();
        let fb = [Rect {
            x: 0,
            y: 0,
            w: 640,
            h: 480,
        }];
        let plain = prepare(&textures, &uses, TextureDepth::Auto, &fb, None).unwrap();
        assert!(
            plain.shrink > 0,
            "halved to fit, so shrunk entries are cached too"
        );
        for round in ["cold", "warm"] {
            let cached = prepare(&textures, &uses, TextureDepth::Auto, &fb, Some(&cache)).unwrap();
            assert_eq!(cached.placed, plain.placed, "{round}");
            assert_eq!(cached.uploads, plain.uploads, "{round}");
            assert_eq!(cached.shrink, plain.shrink, "{round}");
        }
        let entries = std::fs::read_dir(&dir).unwrap().count();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(entries >= 48, "{entries} entries");
    }
}
