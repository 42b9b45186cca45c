//! The picture a TV shows: the display area GP1 selects, cut out of VRAM, as 8-bit RGB.
//!
//! - 15-bit mode: one VRAM halfword per pixel, BGR555; each 5-bit channel is widened with
//!   [`crate::output::expand5`], `(c << 3) | (c >> 2)`, so 0 → 0 and 31 → 255 (what a DAC
//!   spanning the full range shows; ps1-tests' reference PNGs use plain `c << 3` instead, which
//!   `compare` also reads). The mask bit (15) is not shown.
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

use gpu::{Display, VRAM_HEIGHT, VRAM_WIDTH};

use crate::output::bgr555_to_rgb;

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
        Picture {
            width,
            height,
            rgb: vec![0; width as usize * height as usize * 3],
        }
    }
}

/// The halfword at (x, y), wrapping at the VRAM edges; 0 if `vram` is short.
fn halfword(vram: &[u16], x: usize, y: usize) -> u16 {
    let i = (y % VRAM_HEIGHT) * VRAM_WIDTH + (x % VRAM_WIDTH);
    vram.get(i).copied().unwrap_or(0)
}

/// The picture size for `d` (see the module docs).
pub fn size(d: &Display) -> (u16, u16) {
    let width = if (1..=VRAM_WIDTH as u16).contains(&d.width) {
        d.width
    } else {
        d.mode_width.clamp(1, VRAM_WIDTH as u16)
    };
    let height = if (1..=VRAM_HEIGHT as u16).contains(&d.height) {
        d.height
    } else if d.interlaced480 {
        480
    } else {
        240
    };
    (width, height)
}

/// The displayed picture per `d`, whether or not the display is enabled (see [`shown`]).
pub fn cut(vram: &[u16], d: &Display) -> Picture {
    let (width, height) = size(d);
    let (width, height) = (usize::from(width), usize::from(height));
    let (x0, y0) = (usize::from(d.x), usize::from(d.y));
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in 0..height {
        let y = y0 + row;
        if d.depth24 {
            // Byte b of the line lives in halfword b/2, low byte first.
            let byte = |b: usize| -> u8 {
                let h = halfword(vram, x0 + b / 2, y);
                if b.is_multiple_of(2) {
                    h as u8
                } else {
                    (h >> 8) as u8
                }
            };
            for px in 0..width {
                let b = px * 3;
                rgb.extend([byte(b), byte(b + 1), byte(b + 2)]);
            }
        } else {
            for px in 0..width {
                rgb.extend(bgr555_to_rgb(halfword(vram, x0 + px, y)));
            }
        }
    }
    Picture {
        width: width as u32,
        height: height as u32,
        rgb,
    }
}

/// What the TV shows: [`cut`], or black when the display is disabled (GP1(03h)).
pub fn shown(vram: &[u16], d: &Display) -> Picture {
    let p = cut(vram, d);
    if d.enabled {
        p
    } else {
        Picture::black(p.width, p.height)
    }
}

/// The whole VRAM as a 1024×512 RGB picture, one pixel per halfword, 15-bit decoded.
pub fn vram_picture(vram: &[u16]) -> Picture {
    let mut rgb = Vec::with_capacity(VRAM_WIDTH * VRAM_HEIGHT * 3);
    for y in 0..VRAM_HEIGHT {
        for x in 0..VRAM_WIDTH {
            rgb.extend(bgr555_to_rgb(halfword(vram, x, y)));
        }
    }
    Picture {
        width: VRAM_WIDTH as u32,
        height: VRAM_HEIGHT as u32,
        rgb,
    }
}

/// The whole VRAM as exactly 1 MiB: 1024×512 little-endian halfwords, mask bit included.
pub fn vram_raw(vram: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(VRAM_WIDTH * VRAM_HEIGHT * 2);
    for i in 0..VRAM_WIDTH * VRAM_HEIGHT {
        out.extend(vram.get(i).copied().unwrap_or(0).to_le_bytes());
    }
    out
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
    fn disabled_display_is_black_and_raw_is_one_mib() {
        let v = vram_with(&[(0, 0, 0xffff)]);
        let mut d = display(0, 0, 320, 240, false);
        d.enabled = false;
        assert!(shown(&v, &d).rgb.iter().all(|&c| c == 0));
        let raw = vram_raw(&v);
        assert_eq!(raw.len(), 1 << 20);
        assert_eq!(raw[..4], [0xff, 0xff, 0, 0]);
        assert_eq!(vram_picture(&v).rgb[..4], [255, 255, 255, 0]);
    }
}
