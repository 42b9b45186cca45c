//! The picture a TV shows: the display area GP1 selects, cut out of VRAM, as 8-bit RGB.
//!
//! - 15-bit mode: one VRAM halfword per pixel, BGR555; each 5-bit channel is widened with
//!   [`expand5`], `(c << 3) | (c >> 2)`, so 0 → 0 and 31 → 255 (what a DAC spanning the full
//!   range shows). The mask bit (15) is not shown.
//! - 24-bit mode: pixels are 3 bytes packed in VRAM (R, G, B in byte order, little-endian
//!   halfwords), so a 320-pixel line spans 480 halfwords. Source: psx-spx "GPU Video Memory
//!   (VRAM)" — 24bit Direct Display.
//! - Both wrap at VRAM edges: x modulo 1024 halfwords, y modulo 512 lines. Source: psx-spx
//!   (display start plus size beyond VRAM wraps); not checked against hardware captures.
//!
//! Size: [`Display::width`]/[`Display::height`] as the GPU derives them from the display ranges
//! GP1(06h)/(07h) and the mode GP1(08h) — 256/320/368/512/640 × 240/480 for the standard
//! ranges, 256 lines for a PAL game that asks for them. When the ranges give no usable size
//! (0, or larger than VRAM) the nominal mode size is used: `mode_width` × 240 (480 interlaced).
//! Where the ranges place the picture on the TV (the black border) is not drawn.

use crate::{Display, Gpu, VRAM_HEIGHT, VRAM_WIDTH};

/// An 8-bit RGB image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 3` bytes, row-major RGB.
    pub rgb: Vec<u8>,
}

impl Picture {
    /// An all-black picture (what a TV shows when the display is disabled).
    pub fn black(width: u32, height: u32) -> Self {
        let rgb = vec![0; width as usize * height as usize * 3];
        Picture { width, height, rgb }
    }
}

impl Gpu {
    /// What the TV shows now ([`shown`]).
    pub fn picture(&mut self) -> Picture {
        let d = self.display();
        shown(self.vram(), &d)
    }
}

/// A 5-bit channel widened to 8 bits: `(c << 3) | (c >> 2)`, so 0 → 0 and 31 → 255.
pub const fn expand5(c: u16) -> u8 {
    let c = (c & 31) as u8;
    (c << 3) | (c >> 2)
}

/// A BGR555 halfword as 8-bit RGB (mask bit ignored).
pub fn bgr555_to_rgb(p: u16) -> [u8; 3] {
    [expand5(p), expand5(p >> 5), expand5(p >> 10)]
}

/// The halfword at (x, y), wrapping at the VRAM edges; 0 if `vram` is short.
fn halfword(vram: &[u16], x: usize, y: usize) -> u16 {
    let i = (y % VRAM_HEIGHT) * VRAM_WIDTH + (x % VRAM_WIDTH);
    vram.get(i).copied().unwrap_or(0)
}

/// The picture size for `d` (see the module docs).
pub fn size(d: &Display) -> (u16, u16) {
    let width = match d.width {
        1..=1024 => d.width,
        _ => d.mode_width.clamp(1, VRAM_WIDTH as u16),
    };
    let height = match d.height {
        1..=512 => d.height,
        _ if d.interlaced480 => 480,
        _ => 240,
    };
    (width, height)
}

/// The displayed picture per `d`, whether or not the display is enabled (see [`shown`]).
///
/// Each line is converted whole from the halfwords it spans when they lie inside VRAM and
/// `vram`; a line that wraps past the right edge or runs past the end of a short `vram` takes
/// each halfword at its wrapped place (0 past the end), one at a time. Both give the same
/// bytes.
pub fn cut(vram: &[u16], d: &Display) -> Picture {
    let (width, height) = size(d);
    let (width, height) = (usize::from(width), usize::from(height));
    let (x0, y0) = (usize::from(d.x), usize::from(d.y));
    // Halfwords a line spans: 3 bytes a pixel in 24-bit mode, one halfword in 15-bit.
    let span = match d.depth24 {
        true => (width * 3).div_ceil(2),
        false => width,
    };
    let mut rgb = Vec::with_capacity(width * height * 3);
    // A whole line is converted here, then appended at once.
    let mut buf = [0; 3 * VRAM_WIDTH];
    for y in y0..y0 + height {
        let start = (y % VRAM_HEIGHT) * VRAM_WIDTH + x0;
        let whole = (x0 + span <= VRAM_WIDTH).then(|| vram.get(start..start + span));
        match whole.flatten() {
            Some(src) => {
                let out = &mut buf[..width * 3];
                line(src, out, d.depth24);
                rgb.extend_from_slice(out);
            }
            None if d.depth24 => {
                // Byte b of the line lives in halfword b/2, low byte first.
                let byte = |b: usize| (halfword(vram, x0 + b / 2, y) >> (b % 2 * 8)) as u8;
                rgb.extend((0..width * 3).map(byte));
            }
            None => {
                rgb.extend((x0..x0 + width).flat_map(|x| bgr555_to_rgb(halfword(vram, x, y))));
            }
        }
    }
    Picture {
        width: width as u32,
        height: height as u32,
        rgb,
    }
}

/// One line of the picture, `out` (3 bytes a pixel), from the halfwords it spans, `src` (which
/// does not wrap): in 24-bit mode their bytes, low byte first; in 15-bit mode each widened
/// through [`RGB`], four pixels (12 bytes) at a time.
fn line(src: &[u16], out: &mut [u8], depth24: bool) {
    if depth24 {
        let mut pairs = out.chunks_exact_mut(2);
        for (o, h) in (&mut pairs).zip(src) {
            o.copy_from_slice(&h.to_le_bytes());
        }
        // An odd byte count ends on the low byte of the last halfword.
        if let ([last], Some(&h)) = (pairs.into_remainder(), src.last()) {
            *last = h as u8;
        }
        return;
    }
    let rgb = |h: u16| RGB[usize::from(h & 0x7fff)];
    let mut quads = out.chunks_exact_mut(12);
    let mut pixels = src.chunks_exact(4);
    for (o, p) in (&mut quads).zip(&mut pixels) {
        let [a, b, c, d] = [rgb(p[0]), rgb(p[1]), rgb(p[2]), rgb(p[3])];
        o[0..4].copy_from_slice(&(a | b << 24).to_le_bytes());
        o[4..8].copy_from_slice(&(b >> 8 | c << 16).to_le_bytes());
        o[8..12].copy_from_slice(&(c >> 16 | d << 8).to_le_bytes());
    }
    let rest = quads.into_remainder().chunks_exact_mut(3);
    for (o, &h) in rest.zip(pixels.remainder()) {
        o.copy_from_slice(&rgb(h).to_le_bytes()[..3]);
    }
}

/// Every BGR555 colour as [`bgr555_to_rgb`] widens it, R in the low byte, then G, B and 0:
/// one look-up a pixel instead of three widenings. Built by the compiler (128 KB).
static RGB: [u32; 1 << 15] = {
    let mut t = [0u32; 1 << 15];
    let mut p = 0;
    while p < t.len() {
        let (r, g, b) = (p as u16, (p >> 5) as u16, (p >> 10) as u16);
        t[p] = expand5(r) as u32 | (expand5(g) as u32) << 8 | (expand5(b) as u32) << 16;
        p += 1;
    }
    t
};

/// What the TV shows: [`cut`], or black when the display is disabled (GP1(03h)).
pub fn shown(vram: &[u16], d: &Display) -> Picture {
    let p = cut(vram, d);
    match d.enabled {
        true => p,
        false => Picture::black(p.width, p.height),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display(x: u16, y: u16, width: u16, height: u16, depth24: bool) -> Display {
        Display {
            x,
            y,
            width,
            height,
            depth24,
            enabled: true,
            mode_width: width,
            interlaced480: height == 480,
            pal: false,
        }
    }

    fn vram_with(points: &[(usize, usize, u16)]) -> Vec<u16> {
        let mut v = vec![0u16; VRAM_WIDTH * VRAM_HEIGHT];
        for &(x, y, h) in points {
            v[y * VRAM_WIDTH + x] = h;
        }
        v
    }

    fn px(p: &Picture, x: usize, y: usize) -> [u8; 3] {
        let i = (y * p.width as usize + x) * 3;
        [p.rgb[i], p.rgb[i + 1], p.rgb[i + 2]]
    }

    /// Every pixel of the 15-bit cut is the widened halfword at its wrapped place, whatever the
    /// start (near both edges) and however short the VRAM given is.
    #[test]
    fn fifteen_bit_cut_reads_each_pixel_at_its_wrapped_place() {
        let full: Vec<u16> = (0..VRAM_WIDTH * VRAM_HEIGHT)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_right(7) as u16)
            .collect();
        for vram in [&full[..], &full[..VRAM_WIDTH * 100 + 17], &[]] {
            for (x, y) in [(0, 0), (1000, 300), (1023, 511), (700, 480)] {
                let d = display(x, y, 320, 240, false);
                let p = cut(vram, &d);
                for (j, yy) in (0..240).zip(usize::from(y)..) {
                    for (i, xx) in (0..320).zip(usize::from(x)..) {
                        let want = bgr555_to_rgb(halfword(vram, xx, yy));
                        assert_eq!(px(&p, i, j), want, "({i}, {j}) from ({x}, {y})");
                    }
                }
            }
        }
    }

    /// The picture by the per-pixel rule alone: each byte from the halfword at its wrapped
    /// place ([`halfword`]), as `cut` would give it without converting lines whole.
    fn by_rule(vram: &[u16], d: &Display) -> Vec<u8> {
        let (w, h) = size(d);
        let (x0, y0) = (usize::from(d.x), usize::from(d.y));
        let mut out = Vec::new();
        for y in y0..y0 + usize::from(h) {
            for i in 0..usize::from(w) {
                if d.depth24 {
                    for b in i * 3..i * 3 + 3 {
                        out.push((halfword(vram, x0 + b / 2, y) >> (b % 2 * 8)) as u8);
                    }
                } else {
                    out.extend(bgr555_to_rgb(halfword(vram, x0 + i, y)));
                }
            }
        }
        out
    }

    /// Whole-line conversion gives the per-pixel rule's bytes for random VRAM and display
    /// areas of both depths: lines inside VRAM, wrapping past its right and bottom edges, and
    /// over VRAM slices cut short anywhere (a line partly or wholly past the end).
    #[test]
    fn whole_lines_give_what_the_per_pixel_rule_gives() {
        let mut rng = crate::XorShift::new(0x00c0_7a11);
        let full: Vec<u16> = (0..VRAM_WIDTH * VRAM_HEIGHT)
            .map(|_| rng.next_u32() as u16)
            .collect();
        for k in 0..150 {
            let width = match rng.below(3) {
                0 => [256, 320, 368, 512, 640][rng.below(5) as usize],
                _ => 1 + rng.below(1024) as u16,
            };
            let height = 1 + rng.below(if k % 4 == 0 { 512 } else { 64 }) as u16;
            let depth24 = rng.below(2) == 1;
            let span = [width, (width * 3).div_ceil(2)][usize::from(depth24)];
            // Half the areas end near VRAM's right edge: some just inside, some across it.
            let x = match rng.below(2) {
                0 => rng.below(1024) as u16,
                _ => (1024 - span.min(1024) + rng.below(3) as u16) % 1024,
            };
            let y = rng.below(512) as u16;
            let len = match rng.below(4) {
                0 => rng.below(full.len() as u32) as usize,
                1 => (u32::from(y) + 1 + rng.below(u32::from(height))) as usize * VRAM_WIDTH,
                _ => full.len(),
            };
            let vram = &full[..len.min(full.len())];
            let d = display(x, y, width, height, depth24);
            let want = by_rule(vram, &d);
            assert!(cut(vram, &d).rgb == want, "{d:?}, {} halfwords", vram.len());
        }
    }

    #[test]
    fn every_mode_has_its_size() {
        let v = vram_with(&[]);
        for w in [256, 320, 368, 512, 640] {
            for h in [240, 480] {
                for d24 in [false, true] {
                    let p = cut(&v, &display(0, 0, w, h, d24));
                    assert_eq!((p.width, p.height), (u32::from(w), u32::from(h)));
                    assert_eq!(p.rgb.len(), usize::from(w) * usize::from(h) * 3);
                }
            }
        }
    }

    #[test]
    fn unusable_ranges_fall_back_to_the_mode_size() {
        let mut d = display(0, 0, 0, 0, false);
        d.mode_width = 368;
        assert_eq!(size(&d), (368, 240));
        d.interlaced480 = true;
        d.height = 2000;
        assert_eq!(size(&d), (368, 480));
        let pal = display(0, 0, 320, 256, false);
        assert_eq!(size(&pal), (320, 256));
    }

    #[test]
    fn fifteen_bit_expands_and_ignores_mask() {
        // Red 31, green 16, blue 1, mask set.
        let v = vram_with(&[(100, 50, 0x8000 | 1 << 10 | 16 << 5 | 31)]);
        let p = cut(&v, &display(100, 50, 320, 240, false));
        assert_eq!(px(&p, 0, 0), [255, 132, 8]);
        assert_eq!(px(&p, 1, 0), [0, 0, 0]);
    }

    #[test]
    fn wraps_at_vram_edges() {
        let v = vram_with(&[(0, 0, 0x001f), (1023, 511, 0x7c00)]);
        let p = cut(&v, &display(1023, 511, 256, 240, false));
        assert_eq!(px(&p, 0, 0), [0, 0, 255], "start corner");
        assert_eq!(px(&p, 1, 1), [255, 0, 0], "wrapped to (0,0)");
    }

    #[test]
    fn twenty_four_bit_packs_three_bytes() {
        // Pixel 0 = (0x11,0x22,0x33), pixel 1 = (0x44,0x55,0x66): halfwords 2211 4433 6655.
        let v = vram_with(&[(8, 2, 0x2211), (9, 2, 0x4433), (10, 2, 0x6655)]);
        let p = cut(&v, &display(8, 2, 320, 240, true));
        assert_eq!(px(&p, 0, 0), [0x11, 0x22, 0x33]);
        assert_eq!(px(&p, 1, 0), [0x44, 0x55, 0x66]);
        // 640 wide in 24-bit starting at x=1000 wraps after 24 halfwords = 16 pixels.
        let v = vram_with(&[(0, 0, 0x2211), (1, 0, 0x0033)]);
        let p = cut(&v, &display(1000, 0, 640, 480, true));
        assert_eq!(px(&p, 16, 0), [0x11, 0x22, 0x33]);
    }

    #[test]
    fn disabled_display_is_black() {
        let v = vram_with(&[(0, 0, 0xffff)]);
        let mut d = display(0, 0, 320, 240, false);
        d.enabled = false;
        assert!(shown(&v, &d).rgb.iter().all(|&c| c == 0));
        d.enabled = true;
        assert_eq!(shown(&v, &d).rgb[..4], [255, 255, 255, 0]);
    }

    #[test]
    fn expansion_spans_full_range() {
        assert_eq!((expand5(0), expand5(16), expand5(31)), (0, 132, 255));
        assert_eq!(bgr555_to_rgb(0x7c1f), [255, 0, 255]);
    }
}
