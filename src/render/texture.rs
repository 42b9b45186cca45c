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

use std::collections::HashMap;

use super::packets::{texture_window, BlendMode, Clut, TexPage};
use super::RenderError;
use crate::formats::tim::{Tim, TimDepth};
use crate::scene::{Blend, RgbaImage, Texture, VramImage};

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

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// Where one texture (in one encoding) ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Texpage attribute (semi-transparency mode 0; the polygon sets its own).
    pub page: TexPage,
    /// CLUT attribute.
    pub clut: Clut,
    /// The GP0(E2h) word wrapping UVs inside this texture.
    pub window: u32,
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

/// Cap on source texture size accepted (pixels); larger images are refused.
pub const MAX_SOURCE_PIXELS: usize = 8192 * 8192;

/// Converts and places `uses` (texture index, encoding) of `textures`, avoiding `occupied`.
pub fn prepare(
    textures: &[Texture],
    uses: &[(usize, BlendClass)],
    depth: TextureDepth,
    occupied: &[Rect],
) -> Result<TextureSet, RenderError> {
    let mut uses: Vec<(usize, BlendClass)> = uses
        .iter()
        .copied()
        .filter(|(i, _)| *i < textures.len())
        .collect();
    uses.sort();
    uses.dedup();
    for &(i, _) in &uses {
        let img = &textures[i].image;
        let n = img.width as usize * img.height as usize;
        if n > MAX_SOURCE_PIXELS || img.pixels.len() != n {
            return Err(RenderError::BadTexture {
                name: textures[i].name.clone(),
                cause: format!(
                    "{}x{} with {} pixels (at most {MAX_SOURCE_PIXELS} accepted)",
                    img.width,
                    img.height,
                    img.pixels.len()
                ),
            });
        }
    }
    for shrink in 0..=5 {
        let converted: Vec<Converted> = uses
            .iter()
            .map(|&(i, class)| convert(&textures[i].image, class, depth, shrink))
            .collect();
        if let Some(set) = place(&uses, &converted, occupied, shrink) {
            return Ok(set);
        }
    }
    Err(RenderError::VramFull {
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
    img: &RgbaImage,
    class: BlendClass,
    depth: TextureDepth,
    framebuffer: Rect,
) -> Result<Ps1Form, RenderError> {
    let texture = Texture {
        name: String::new(),
        image: img.clone(),
    };
    let set = prepare(&[texture], &[(0, class)], depth, &[framebuffer])?;
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
    let image = image.ok_or(RenderError::VramFull { textures: 1 })?;
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
        colours: distinct_texels(img, class, placed.size[0], placed.size[1]),
        shrink: set.shrink,
    })
}

/// A texture in PS1 form, not yet placed.
struct Converted {
    w: u16,
    h: u16,
    /// 0 = 4bpp, 1 = 8bpp, 2 = 15bpp.
    depth: u8,
    /// Halfwords as they go to VRAM (indices packed, or direct colours).
    data: Vec<u16>,
    palette: Vec<u16>,
}

impl Converted {
    fn width_halfwords(&self) -> u16 {
        match self.depth {
            0 => self.w / 4,
            1 => self.w / 2,
            _ => self.w,
        }
    }
}

/// The power of two nearest `n` (ties up), 8–256, halved `shrink` times (not below 8).
fn target_size(n: u32, shrink: u32) -> u16 {
    let n = n.clamp(1, 256);
    let up = n.next_power_of_two();
    let p = if up - n <= n - up / 2 { up } else { up / 2 };
    (p >> shrink).clamp(8, 256) as u16
}

/// Box-filtered resample with premultiplied alpha.
fn resample(img: &RgbaImage, w: u16, h: u16) -> Vec<[u8; 4]> {
    let (sw, sh) = (img.width.max(1) as usize, img.height.max(1) as usize);
    let mut out = Vec::with_capacity(w as usize * h as usize);
    if img.pixels.is_empty() {
        out.resize(w as usize * h as usize, [255, 0, 255, 255]);
        return out;
    }
    for ty in 0..h as usize {
        let y0 = ty * sh / h as usize;
        let y1 = ((ty + 1) * sh / h as usize).max(y0 + 1);
        for tx in 0..w as usize {
            let x0 = tx * sw / w as usize;
            let x1 = ((tx + 1) * sw / w as usize).max(x0 + 1);
            let mut acc = [0u64; 4];
            for y in y0..y1 {
                for p in &img.pixels[y * sw + x0..y * sw + x1] {
                    let a = p[3] as u64;
                    acc[0] += p[0] as u64 * a;
                    acc[1] += p[1] as u64 * a;
                    acc[2] += p[2] as u64 * a;
                    acc[3] += a;
                }
            }
            let n = ((y1 - y0) * (x1 - x0)) as u64;
            let channel = |c: u64| c.checked_div(acc[3]).unwrap_or(0) as u8;
            out.push([
                channel(acc[0]),
                channel(acc[1]),
                channel(acc[2]),
                (acc[3] / n) as u8,
            ]);
        }
    }
    out
}

/// One texel in VRAM form (see the module docs).
fn encode(p: [u8; 4], class: BlendClass) -> u16 {
    let c = (p[0] as u16 >> 3) | (p[1] as u16 >> 3) << 5 | (p[2] as u16 >> 3) << 10;
    let a = p[3];
    match class {
        BlendClass::Opaque => nonzero(c, 0x8000),
        BlendClass::Cutout if a < 128 => 0,
        BlendClass::Cutout => nonzero(c, 0x8000),
        BlendClass::Alpha if a < 16 => 0,
        BlendClass::Alpha if a >= 240 => nonzero(c, 0x0421),
        BlendClass::Alpha | BlendClass::Blended if a >= 16 => c | 0x8000,
        BlendClass::Alpha | BlendClass::Blended => 0,
    }
}

fn nonzero(c: u16, black: u16) -> u16 {
    if c == 0 {
        black
    } else {
        c
    }
}

/// `img` resampled to `w`×`h` and encoded for `class`, row by row.
fn encoded(img: &RgbaImage, class: BlendClass, w: u16, h: u16) -> Vec<u16> {
    resample(img, w, h)
        .into_iter()
        .map(|p| encode(p, class))
        .collect()
}

/// How many distinct texel values (15-bit colour and STP) `img` has once resampled to `w`×`h`
/// and encoded for `class`: what a CLUT would have to hold. 0 for an image whose pixel count
/// does not match its size.
fn distinct_texels(img: &RgbaImage, class: BlendClass, w: u16, h: u16) -> usize {
    if img.pixels.len() != img.width as usize * img.height as usize {
        return 0;
    }
    let seen: std::collections::HashSet<u16> = encoded(img, class, w, h).into_iter().collect();
    seen.len()
}

fn convert(img: &RgbaImage, class: BlendClass, depth: TextureDepth, shrink: u32) -> Converted {
    let w = target_size(img.width, shrink);
    let h = target_size(img.height, shrink);
    let texels = encoded(img, class, w, h);
    let mut counts: HashMap<u16, u32> = HashMap::new();
    for &t in &texels {
        *counts.entry(t).or_default() += 1;
    }
    let bits = match depth_bits(depth, counts.len()) {
        15 => {
            return Converted {
                w,
                h,
                depth: 2,
                data: texels,
                palette: Vec::new(),
            }
        }
        b => b,
    };
    let palette = quantise(&counts, 1 << bits);
    let mut lookup: HashMap<u16, u8> = HashMap::with_capacity(counts.len());
    for &k in counts.keys() {
        lookup.insert(k, nearest(&palette, k));
    }
    let idx: Vec<u8> = texels.iter().map(|t| lookup[t]).collect();
    let data = if bits == 4 {
        idx.chunks(4)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u16, |a, (i, &v)| a | (v as u16) << (4 * i))
            })
            .collect()
    } else {
        idx.chunks(2)
            .map(|c| c[0] as u16 | (c.get(1).copied().unwrap_or(0) as u16) << 8)
            .collect()
    };
    let mut palette = palette;
    palette.resize(1 << bits, 0);
    Converted {
        w,
        h,
        depth: if bits == 4 { 0 } else { 1 },
        data,
        palette,
    }
}

/// Bits per texel for `depth` when the texture has `colours` distinct texel values: 4, 8 or 15.
fn depth_bits(depth: TextureDepth, colours: usize) -> u32 {
    match depth {
        TextureDepth::Bpp15 => 15,
        TextureDepth::Bpp4 => 4,
        TextureDepth::Bpp8 => 8,
        TextureDepth::Auto if colours <= 16 => 4,
        TextureDepth::Auto => 8,
    }
}

fn channels(c: u16) -> [i32; 4] {
    [
        (c & 31) as i32,
        (c >> 5 & 31) as i32,
        (c >> 10 & 31) as i32,
        (c >> 15) as i32 * 64,
    ]
}

/// Median cut over the 15-bit colours (+ STP as a heavily weighted fourth axis). Transparent
/// 0x0000 keeps an exact entry of its own.
fn quantise(counts: &HashMap<u16, u32>, max: usize) -> Vec<u16> {
    let mut palette = Vec::with_capacity(max);
    let mut colours: Vec<(u16, u32)> = counts
        .iter()
        .filter(|(&k, _)| k != 0)
        .map(|(&k, &n)| (k, n))
        .collect();
    colours.sort_unstable();
    if counts.contains_key(&0) {
        palette.push(0);
    }
    let room = max - palette.len();
    if colours.len() <= room {
        palette.extend(colours.iter().map(|c| c.0));
        return palette;
    }
    let mut boxes: Vec<Vec<(u16, u32)>> = vec![colours];
    while boxes.len() < room {
        // Split the box with the widest channel range.
        let mut best = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.len() < 2 {
                continue;
            }
            let (axis, range) = widest(b);
            if best.is_none_or(|(_, _, r)| range > r) {
                best = Some((i, axis, range));
            }
        }
        let Some((i, axis, _)) = best else { break };
        let mut b = boxes.swap_remove(i);
        b.sort_unstable_by_key(|c| (channels(c.0)[axis], c.0));
        let total: u64 = b.iter().map(|c| c.1 as u64).sum();
        let mut acc = 0u64;
        let mut cut = 1;
        for (j, c) in b.iter().enumerate() {
            acc += c.1 as u64;
            if acc * 2 >= total {
                cut = (j + 1).clamp(1, b.len() - 1);
                break;
            }
        }
        let rest = b.split_off(cut);
        boxes.push(b);
        boxes.push(rest);
    }
    for b in &boxes {
        let total: u64 = b.iter().map(|c| c.1 as u64).sum::<u64>().max(1);
        let mut acc = [0u64; 4];
        for &(k, n) in b {
            let ch = channels(k);
            for a in 0..4 {
                acc[a] += ch[a] as u64 * n as u64;
            }
        }
        let m: Vec<u16> = acc
            .iter()
            .map(|&s| ((s + total / 2) / total) as u16)
            .collect();
        let c = m[0] | m[1] << 5 | m[2] << 10 | if m[3] >= 32 { 0x8000 } else { 0 };
        palette.push(if c == 0 { 0x8000 } else { c });
    }
    palette
}

fn widest(b: &[(u16, u32)]) -> (usize, i32) {
    let mut lo = [i32::MAX; 4];
    let mut hi = [i32::MIN; 4];
    for &(k, _) in b {
        let ch = channels(k);
        for a in 0..4 {
            lo[a] = lo[a].min(ch[a]);
            hi[a] = hi[a].max(ch[a]);
        }
    }
    (0..4)
        .map(|a| (a, hi[a] - lo[a]))
        .max_by_key(|&(a, r)| (r, std::cmp::Reverse(a)))
        .unwrap_or((0, 0))
}

fn nearest(palette: &[u16], c: u16) -> u8 {
    if c == 0 {
        return palette.iter().position(|&p| p == 0).unwrap_or(0) as u8;
    }
    let ch = channels(c);
    let mut best = (i32::MAX, 0usize);
    for (i, &p) in palette.iter().enumerate() {
        if p == 0 {
            continue;
        }
        let q = channels(p);
        let d: i32 = (0..4).map(|a| (ch[a] - q[a]).pow(2)).sum();
        if d < best.0 {
            best = (d, i);
        }
    }
    best.1 as u8
}

/// First-fit placement on aligned positions, row by row.
struct Allocator {
    used: Vec<Rect>,
}

impl Allocator {
    fn alloc(&mut self, w: u16, h: u16, align_x: u16, align_y: u16) -> Option<Rect> {
        let mut y = 0u16;
        while y as usize + h as usize <= gpu::VRAM_HEIGHT {
            let mut x = 0u16;
            while x as usize + w as usize <= gpu::VRAM_WIDTH {
                let r = Rect { x, y, w, h };
                match self.used.iter().find(|u| u.overlaps(&r)) {
                    None => {
                        self.used.push(r);
                        return Some(r);
                    }
                    // Skip past the blocking rectangle.
                    Some(u) => x = (u.x + u.w).div_ceil(align_x) * align_x,
                }
            }
            y += align_y;
        }
        None
    }
}

fn place(
    uses: &[(usize, BlendClass)],
    converted: &[Converted],
    occupied: &[Rect],
    shrink: u32,
) -> Option<TextureSet> {
    let mut alloc = Allocator {
        used: occupied.to_vec(),
    };
    let mut order: Vec<usize> = (0..converted.len()).collect();
    order.sort_by_key(|&i| {
        let c = &converted[i];
        std::cmp::Reverse((c.h, c.width_halfwords()))
    });
    let mut set = TextureSet {
        shrink,
        ..TextureSet::default()
    };
    let mut rects = vec![None; converted.len()];
    for &i in &order {
        let c = &converted[i];
        let wh = c.width_halfwords().max(1);
        rects[i] = Some(alloc.alloc(wh, c.h, wh.min(64), c.h)?);
    }
    for &i in &order {
        let c = &converted[i];
        let r = rects[i]?;
        let clut = if c.palette.is_empty() {
            Clut(0)
        } else {
            let cr = alloc.alloc(c.palette.len() as u16, 1, 16, 1)?;
            set.uploads.push(VramImage {
                x: cr.x,
                y: cr.y,
                width: cr.w,
                height: 1,
                data: c.palette.clone(),
            });
            Clut::new(cr.x, cr.y)
        };
        set.uploads.push(VramImage {
            x: r.x,
            y: r.y,
            width: r.w,
            height: r.h,
            data: c.data.clone(),
        });
        let texels_per_hw = match c.depth {
            0 => 4,
            1 => 2,
            _ => 1,
        };
        let u0 = (r.x % 64) * texels_per_hw;
        let v0 = r.y % 256;
        let window = texture_window(
            ((256 - c.w) / 8) as u8,
            ((256 - c.h) / 8) as u8,
            (u0 / 8) as u8,
            (v0 / 8) as u8,
        );
        set.placed.insert(
            uses[i],
            Placed {
                page: TexPage::new(
                    r.x,
                    r.y,
                    BlendMode::Average,
                    gpu::gp0::fields::TextureDepth::from_bits(c.depth),
                ),
                clut,
                window,
                size: [c.w, c.h],
            },
        );
    }
    Some(set)
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
            },
        }
    }

    #[test]
    fn sizes_round_to_powers_of_two() {
        assert_eq!(target_size(100, 0), 128);
        assert_eq!(target_size(90, 0), 64);
        assert_eq!(target_size(1024, 0), 256);
        assert_eq!(target_size(1024, 2), 64);
        assert_eq!(target_size(3, 0), 8);
    }

    #[test]
    fn encoding_rules() {
        assert_eq!(encode([0, 0, 0, 255], BlendClass::Opaque), 0x8000);
        assert_eq!(encode([255, 0, 0, 0], BlendClass::Opaque), 0x001f);
        assert_eq!(encode([255, 0, 0, 10], BlendClass::Cutout), 0);
        assert_eq!(encode([255, 0, 0, 128], BlendClass::Alpha), 0x801f);
        assert_eq!(encode([0, 0, 255, 255], BlendClass::Alpha), 0x7c00);
        assert_eq!(encode([0, 255, 0, 255], BlendClass::Blended), 0x83e0);
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
        let set = prepare(&[t], &[(0, BlendClass::Opaque)], TextureDepth::Auto, &[]).unwrap();
        let clut = set.uploads.iter().find(|u| u.height == 1).unwrap();
        assert_eq!(clut.width, 256);
        assert!(clut.data.iter().all(|&c| c != 0));
    }

    #[test]
    fn too_many_textures_shrink_then_fail_cleanly() {
        let t = tex(256, 256, |x, y| [x as u8, y as u8, (x ^ y) as u8, 255]);
        let many = vec![t; 40];
        let uses: Vec<_> = (0..40).map(|i| (i, BlendClass::Opaque)).collect();
        let set = prepare(&many, &uses, TextureDepth::Bpp15, &[]).unwrap();
        assert!(set.shrink > 0);
        let full = [Rect {
            x: 0,
            y: 0,
            w: 1024,
            h: 512,
        }];
        assert!(matches!(
            prepare(&many, &uses, TextureDepth::Bpp15, &full),
            Err(RenderError::VramFull { .. })
        ));
    }
}
