//! Texels in PS1 form: resampled to power-of-two sizes, encoded with the hardware's
//! transparency rules, and quantised to a 16- or 256-colour CLUT by median cut.

use std::collections::HashMap;

use super::{BlendClass, TextureDepth};
use crate::scene::RgbaImage;

/// A texture in PS1 form, not yet placed.
pub(super) struct Converted {
    pub(super) w: u16,
    pub(super) h: u16,
    /// 0 = 4bpp, 1 = 8bpp, 2 = 15bpp.
    pub(super) depth: u8,
    /// Halfwords as they go to VRAM (indices packed, or direct colours).
    pub(super) data: Vec<u16>,
    pub(super) palette: Vec<u16>,
}

impl Converted {
    pub(super) fn width_halfwords(&self) -> u16 {
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
pub(super) fn distinct_texels(img: &RgbaImage, class: BlendClass, w: u16, h: u16) -> usize {
    if img.pixels.len() != img.width as usize * img.height as usize {
        return 0;
    }
    let seen: std::collections::HashSet<u16> = encoded(img, class, w, h).into_iter().collect();
    seen.len()
}

/// `img` resampled (halved `shrink` times) and encoded at `depth`, with its CLUT.
pub(super) fn convert(
    img: &RgbaImage,
    class: BlendClass,
    depth: TextureDepth,
    shrink: u32,
) -> Converted {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
