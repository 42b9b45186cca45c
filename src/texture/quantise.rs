//! Texels in PS1 form: resampled to power-of-two sizes, encoded with the hardware's
//! transparency rules, and quantised to a 16- or 256-colour CLUT by median cut.
//!
//! A texel value is 16 bits (15-bit colour and STP), so every table by colour here is an array
//! of 65,536 entries indexed by the value rather than a hash map, and a median-cut box is split
//! by counting its colours per channel value rather than by sorting them.

use std::ops::Range;

use super::{BlendClass, TextureDepth};
use crate::scene::RgbaImage;

/// Entries of a table indexed by texel value.
const TEXEL_VALUES: usize = 1 << 16;

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
pub(super) fn target_size(n: u32, shrink: u32) -> u16 {
    let n = n.clamp(1, 256);
    let up = n.next_power_of_two();
    let p = if up - n <= n - up / 2 { up } else { up / 2 };
    (p >> shrink).clamp(8, 256) as u16
}

/// Most pixels a box may hold for its sums to be kept in 32 bits: each pixel adds at most
/// 255 × 255 to a colour sum.
const MAX_BOX_32: usize = (u32::MAX / (255 * 255)) as usize;

/// `img` resampled to `w`×`h` by a box filter with premultiplied alpha and encoded for
/// `class`, row by row; magenta for an image without pixels. Each box's mean is its colour
/// sums (weighted by alpha) over its alpha sum and its alpha sum over its pixel count, all
/// rounded down, so black where the box is all transparent.
fn encoded(img: &RgbaImage, class: BlendClass, w: u16, h: u16) -> Vec<u16> {
    let (w, h) = (usize::from(w), usize::from(h));
    if img.pixels.is_empty() {
        return vec![encode([255, 0, 255, 255], class); w * h];
    }
    let (sw, sh) = (img.width.max(1) as usize, img.height.max(1) as usize);
    if (sw, sh) == (w, h) {
        return same_size(img, class);
    }
    let span = |t: usize, from: usize, to: usize| {
        let a = t * from / to;
        a..((t + 1) * from / to).max(a + 1)
    };
    let columns: Vec<Range<usize>> = (0..w).map(|tx| span(tx, sw, w)).collect();
    let widest = columns.iter().map(|c| c.len()).max().unwrap_or(1);
    let tallest = (0..h).map(|ty| span(ty, sh, h).len()).max().unwrap_or(1);
    let mut out = Vec::with_capacity(w * h);
    if widest * tallest > MAX_BOX_32 {
        for ty in 0..h {
            let rows = span(ty, sh, h);
            for xs in &columns {
                out.push(encode(box_mean(img, sw, xs.clone(), rows.clone()), class));
            }
        }
        return out;
    }
    // Where every pixel is opaque, the alpha weights are all 255 and cancel out of each mean
    // (255·Σc / 255·n = Σc / n, rounded down alike), so the channels are summed unweighted.
    let opaque = img
        .pixels
        .iter()
        .fold(u32::MAX, |m, &p| m & u32::from_le_bytes(p))
        >> 24
        == 255;
    // One row of boxes at a time: its source rows are summed pixel column by pixel column
    // (whole rows of bytes, which the compiler adds many lanes at a time), then each box sums
    // its pixel columns. Unweighted sums of few enough rows fit in 16 bits, twice the lanes.
    let narrow = opaque && tallest <= MAX_ROWS_16;
    let mut slim = vec![[0u16; 4]; if narrow { sw } else { 0 }];
    let mut wide = vec![[0u32; 4]; if narrow { 0 } else { sw }];
    for ty in 0..h {
        let rows = span(ty, sh, h);
        sum_rows(img, rows.clone(), opaque, &mut slim, &mut wide);
        for xs in &columns {
            let s = if narrow {
                column_sum(&slim[xs.clone()])
            } else {
                column_sum(&wide[xs.clone()])
            };
            let n = (xs.len() * rows.len()) as u32;
            // Unweighted sums are divided by the pixel count, weighted ones by the alpha sum.
            let weight = if opaque { n } else { s[3] };
            let channel = |c: u32| c.checked_div(weight).unwrap_or(0) as u8;
            let mean = [
                channel(s[0]),
                channel(s[1]),
                channel(s[2]),
                (s[3] / n) as u8,
            ];
            out.push(encode(mean, class));
        }
    }
    out
}

/// `img` encoded texel for texel: boxes of one pixel, each mean the pixel itself, black where
/// it is transparent (its weighted colour sums are 0).
fn same_size(img: &RgbaImage, class: BlendClass) -> Vec<u16> {
    img.pixels
        .iter()
        .map(|&p| encode(if p[3] == 0 { [0; 4] } else { p }, class))
        .collect()
}

/// Sums source rows `rows` of `img` into the sums of its pixel columns: `slim` (16 bits,
/// unweighted) when it has them, else `wide` (32 bits, weighted unless `opaque`). The first
/// row is stored rather than added, so the sums need no clearing.
fn sum_rows(
    img: &RgbaImage,
    rows: Range<usize>,
    opaque: bool,
    slim: &mut [[u16; 4]],
    wide: &mut [[u32; 4]],
) {
    let sw = img.width.max(1) as usize;
    let narrow = !slim.is_empty();
    for y in rows.clone() {
        let line = &img.pixels[y * sw..(y + 1) * sw];
        match (narrow, opaque, y == rows.start) {
            (true, _, true) => add_row::<u16, true>(line, slim),
            (true, _, false) => add_row::<u16, false>(line, slim),
            (false, true, true) => add_row::<u32, true>(line, wide),
            (false, true, false) => add_row::<u32, false>(line, wide),
            (false, false, true) => add_row_weighted::<true>(line, wide),
            (false, false, false) => add_row_weighted::<false>(line, wide),
        }
    }
}

/// Most rows whose unweighted channel sums fit in 16 bits.
const MAX_ROWS_16: usize = (u16::MAX / 255) as usize;

/// Adds one source row into the sums of its pixel columns, channel by channel; stores it
/// there when `FIRST`.
fn add_row<T, const FIRST: bool>(line: &[[u8; 4]], sums: &mut [[T; 4]])
where
    T: Copy + Default + From<u8> + std::ops::Add<Output = T>,
{
    for (s, &p) in sums.as_flattened_mut().iter_mut().zip(line.as_flattened()) {
        *s = if FIRST { T::default() } else { *s } + T::from(p);
    }
}

/// The sums of a box's pixel columns.
fn column_sum<T: Copy + Into<u32>>(columns: &[[T; 4]]) -> [u32; 4] {
    columns.iter().fold([0u32; 4], |a, c| {
        [
            a[0] + c[0].into(),
            a[1] + c[1].into(),
            a[2] + c[2].into(),
            a[3] + c[3].into(),
        ]
    })
}

/// Adds one source row into the sums of its pixel columns: colours weighted by alpha, and
/// alpha; stores it there when `FIRST`.
fn add_row_weighted<const FIRST: bool>(line: &[[u8; 4]], sums: &mut [[u32; 4]]) {
    for (s, p) in sums.iter_mut().zip(line) {
        // A channel times an alpha fits in 16 bits.
        let a = u16::from(p[3]);
        let weighted = [
            u16::from(p[0]) * a,
            u16::from(p[1]) * a,
            u16::from(p[2]) * a,
            a,
        ];
        for (sc, w) in s.iter_mut().zip(weighted) {
            *sc = if FIRST { 0 } else { *sc } + u32::from(w);
        }
    }
}

/// The mean of a box of `img` (`sw` pixels a row) as [`encoded`] takes it, in 64-bit sums for
/// boxes too large for 32.
fn box_mean(img: &RgbaImage, sw: usize, xs: Range<usize>, ys: Range<usize>) -> [u8; 4] {
    let mut acc = [0u64; 4];
    let n = (xs.len() * ys.len()) as u64;
    for y in ys {
        for p in &img.pixels[y * sw + xs.start..y * sw + xs.end] {
            let a = u64::from(p[3]);
            acc[0] += u64::from(p[0]) * a;
            acc[1] += u64::from(p[1]) * a;
            acc[2] += u64::from(p[2]) * a;
            acc[3] += a;
        }
    }
    let channel = |c: u64| c.checked_div(acc[3]).unwrap_or(0) as u8;
    [
        channel(acc[0]),
        channel(acc[1]),
        channel(acc[2]),
        (acc[3] / n) as u8,
    ]
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

/// How often each texel value occurs.
struct Histogram {
    counts: Vec<u32>,
    /// How many values occur.
    distinct: usize,
}

impl Histogram {
    fn of(texels: &[u16]) -> Histogram {
        let mut counts = vec![0u32; TEXEL_VALUES];
        let mut distinct = 0;
        for &t in texels {
            let n = &mut counts[usize::from(t)];
            distinct += usize::from(*n == 0);
            *n += 1;
        }
        Histogram { counts, distinct }
    }

    /// The values other than transparent 0x0000 that occur, ascending, with their counts.
    fn visible(&self) -> Vec<(u16, u32)> {
        let mut out = Vec::with_capacity(self.distinct);
        for (k, &n) in self.counts.iter().enumerate().skip(1) {
            if n != 0 {
                out.push((k as u16, n));
            }
        }
        out
    }
}

/// How many distinct texel values (15-bit colour and STP) `img` has once resampled to `w`×`h`
/// and encoded for `class`: what a CLUT would have to hold. 0 for an image whose pixel count
/// does not match its size.
pub(super) fn distinct_texels(img: &RgbaImage, class: BlendClass, w: u16, h: u16) -> usize {
    if img.pixels.len() != img.width as usize * img.height as usize {
        return 0;
    }
    Histogram::of(&encoded(img, class, w, h)).distinct
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
    if depth == TextureDepth::Bpp15 {
        return Converted {
            w,
            h,
            depth: 2,
            data: texels,
            palette: Vec::new(),
        };
    }
    let hist = Histogram::of(&texels);
    let four = match depth {
        TextureDepth::Bpp4 => true,
        TextureDepth::Auto => hist.distinct <= 16,
        TextureDepth::Bpp8 | TextureDepth::Bpp15 => false,
    };
    let bits = if four { 4 } else { 8 };
    let visible = hist.visible();
    let transparent = hist.counts[0] != 0;
    let mut palette = quantise(&visible, transparent, 1 << bits);
    let nearest = Nearest::new(&palette);
    let mut index = vec![0u8; TEXEL_VALUES];
    index[0] = nearest.of(0);
    for &(k, _) in &visible {
        index[usize::from(k)] = nearest.of(k);
    }
    let idx = texels.iter().map(|&t| index[usize::from(t)]);
    let data = pack(idx, if four { 4 } else { 2 });
    palette.resize(1 << bits, 0);
    Converted {
        w,
        h,
        depth: if bits == 4 { 0 } else { 1 },
        data,
        palette,
    }
}

/// Indices packed `per` to a halfword, the first in the low bits (4bpp: 4, 8bpp: 2).
fn pack(idx: impl Iterator<Item = u8>, per: usize) -> Vec<u16> {
    let shift = 16 / per;
    let mut out = Vec::new();
    let (mut word, mut n) = (0u16, 0);
    for v in idx {
        word |= u16::from(v) << (shift * n);
        n += 1;
        if n == per {
            out.push(word);
            (word, n) = (0, 0);
        }
    }
    if n != 0 {
        out.push(word);
    }
    out
}

fn channels(c: u16) -> [i32; 4] {
    [
        (c & 31) as i32,
        (c >> 5 & 31) as i32,
        (c >> 10 & 31) as i32,
        (c >> 15) as i32 * 64,
    ]
}

/// Values a channel takes: 0–31 for colours, 0 or 64 for STP.
const CHANNEL_VALUES: usize = 65;

/// Median cut over the `visible` colours (ascending, with counts; 15-bit colour + STP as a
/// heavily weighted fourth axis) to at most `max` entries. Transparent 0x0000, when present,
/// keeps an exact entry of its own, first.
fn quantise(visible: &[(u16, u32)], transparent: bool, max: usize) -> Vec<u16> {
    let mut palette = Vec::with_capacity(max);
    if transparent {
        palette.push(0);
    }
    let room = max - palette.len();
    if visible.len() <= room {
        palette.extend(visible.iter().map(|c| c.0));
        return palette;
    }
    let mut boxes = vec![ColourBox::new(visible.to_vec())];
    while boxes.len() < room {
        // Split the box with the widest channel range (the first of equals).
        let mut best: Option<(usize, i32)> = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.colours.len() >= 2 && best.is_none_or(|(_, r)| b.range > r) {
                best = Some((i, b.range));
            }
        }
        let Some((i, _)) = best else { break };
        let (low, high) = boxes.swap_remove(i).split();
        boxes.push(low);
        boxes.push(high);
    }
    for b in &boxes {
        palette.push(b.mean());
    }
    palette
}

/// Colours of one median-cut box, ascending by value, with their widest channel.
struct ColourBox {
    colours: Vec<(u16, u32)>,
    axis: usize,
    range: i32,
}

impl ColourBox {
    fn new(colours: Vec<(u16, u32)>) -> ColourBox {
        let mut lo = [i32::MAX; 4];
        let mut hi = [i32::MIN; 4];
        for &(k, _) in &colours {
            let ch = channels(k);
            for a in 0..4 {
                lo[a] = lo[a].min(ch[a]);
                hi[a] = hi[a].max(ch[a]);
            }
        }
        let (axis, range) = (0..4)
            .map(|a| (a, hi[a] - lo[a]))
            .max_by_key(|&(a, r)| (r, std::cmp::Reverse(a)))
            .unwrap_or((0, 0));
        ColourBox {
            colours,
            axis,
            range,
        }
    }

    /// The box cut at the weighted median along its widest channel, colours ordered by that
    /// channel then by value: the low part holds the colours up to and including the one
    /// where the running count first reaches half the total (at least one, and at least one
    /// left for the high part).
    fn split(self) -> (ColourBox, ColourBox) {
        let axis = self.axis;
        let value = |k: u16| channels(k)[axis] as usize;
        let mut weight = [0u64; CHANNEL_VALUES];
        let mut count = [0usize; CHANNEL_VALUES];
        for &(k, n) in &self.colours {
            weight[value(k)] += u64::from(n);
            count[value(k)] += 1;
        }
        let total: u64 = weight.iter().sum();
        // The channel value where the running count reaches half, and the count before it.
        let (mut at, mut acc, mut before) = (0, 0u64, 0usize);
        while 2 * (acc + weight[at]) < total {
            acc += weight[at];
            before += count[at];
            at += 1;
        }
        // Within that value, colours go by value: find the one that reaches half.
        let mut last = before;
        for &(k, n) in &self.colours {
            if value(k) == at {
                acc += u64::from(n);
                if 2 * acc >= total {
                    break;
                }
                last += 1;
            }
        }
        let cut = (last + 1).min(self.colours.len() - 1);
        // The first colour of the high part, by (channel value, colour value).
        let (mut v, mut skip) = (0, cut);
        while skip >= count[v] {
            skip -= count[v];
            v += 1;
        }
        let first_high = self
            .colours
            .iter()
            .filter(|&&(k, _)| value(k) == v)
            .nth(skip)
            .map_or(0, |c| c.0);
        let (low, high): (Vec<_>, Vec<_>) = self
            .colours
            .into_iter()
            .partition(|&(k, _)| (value(k), k) < (v, first_high));
        (ColourBox::new(low), ColourBox::new(high))
    }

    /// The count-weighted mean colour, each channel rounded to nearest; STP set when at
    /// least half the weight has it; never 0x0000 (transparent).
    fn mean(&self) -> u16 {
        let total: u64 = self
            .colours
            .iter()
            .map(|c| u64::from(c.1))
            .sum::<u64>()
            .max(1);
        let mut acc = [0u64; 4];
        for &(k, n) in &self.colours {
            let ch = channels(k);
            for a in 0..4 {
                acc[a] += ch[a] as u64 * u64::from(n);
            }
        }
        let m = acc.map(|s| ((s + total / 2) / total) as u16);
        let c = m[0] | m[1] << 5 | m[2] << 10 | if m[3] >= 32 { 0x8000 } else { 0 };
        if c == 0 {
            0x8000
        } else {
            c
        }
    }
}

/// The CLUT entry nearest each colour: least squared distance over the four channels, the
/// first entry of equals, never the transparent entry for a visible colour.
///
/// Entries are searched outward from the colour's green in a list sorted by green, stopping
/// where green alone is farther than the best so far; only entries of the colour's own STP
/// are searched when there are any, since STP alone is 64² apart, more than any colours.
struct Nearest {
    transparent: u8,
    /// Visible entries with STP clear and set, each by green then index.
    by_stp: [Vec<([i32; 4], u8)>; 2],
}

impl Nearest {
    fn new(palette: &[u16]) -> Nearest {
        let mut by_stp: [Vec<([i32; 4], u8)>; 2] = [Vec::new(), Vec::new()];
        for (i, &p) in palette.iter().enumerate() {
            if p != 0 {
                by_stp[usize::from(p >> 15)].push((channels(p), i as u8));
            }
        }
        for list in &mut by_stp {
            list.sort_by_key(|&(ch, i)| (ch[1], i));
        }
        Nearest {
            transparent: palette.iter().position(|&p| p == 0).unwrap_or(0) as u8,
            by_stp,
        }
    }

    fn of(&self, c: u16) -> u8 {
        if c == 0 {
            return self.transparent;
        }
        let own = usize::from(c >> 15);
        let list = if self.by_stp[own].is_empty() {
            &self.by_stp[1 - own]
        } else {
            &self.by_stp[own]
        };
        let ch = channels(c);
        let start = list.partition_point(|e| e.0[1] < ch[1]);
        // (distance, index) of the best so far: the least distance, then the first index.
        let mut best = (i32::MAX, 0u8);
        let mut consider = |e: &([i32; 4], u8)| {
            let green = e.0[1] - ch[1];
            if green * green > best.0 {
                return false;
            }
            let d: i32 = (0..4).map(|a| (ch[a] - e.0[a]).pow(2)).sum();
            best = best.min((d, e.1));
            true
        };
        for e in &list[start..] {
            if !consider(e) {
                break;
            }
        }
        for e in list[..start].iter().rev() {
            if !consider(e) {
                break;
            }
        }
        best.1
    }
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
