//! Comparing two PS1 pictures in 15-bit space: psxrender output against emulator captures or
//! hardware references.
//!
//! Inputs ([`Capture::parse`], by content): PNGs (display screenshots, or 1024×512 VRAM
//! images) or raw 1 MiB VRAM files (1024×512 little-endian halfwords, as `replay --vram-raw`
//! writes). A PNG's 8-bit channels are mapped back to 5 bits by detecting which expansion made
//! them ([`Expansion`]): `c << 3` (ps1-tests' reference PNGs), `(c << 3) | (c >> 2)` (psxrender,
//! many emulators) or `round(c * 255 / 31)`; an image that fits none is read as `v >> 3` and
//! flagged lossy. Screenshots upscaled by an integer factor (1–4 per axis, nearest neighbour)
//! are sampled back down, and a screenshot that is a centred crop of the other picture (as
//! DuckStation's default Overscan crop is of the standard NTSC range) is compared with that
//! part of it ([`align`]); other size mismatches are errors.
//!
//! Statistics ([`Report`]) are over 5-bit channel values: identical pixels, pixels within the
//! tolerance (largest channel difference ≤ N), the largest channel error, PSNR with peak 31,
//! and the bounding box of differing pixels. The mask bit (15) is not compared; when both
//! inputs are raw VRAM, mask-bit differences are counted separately.

use std::fmt;
use std::path::Path;

use crate::output::expand5;
use crate::read::{self, ErrorKind, LoadError};

/// Format name in load errors.
pub const FORMAT: &str = "capture";

/// Size of a raw VRAM file: 1024×512 halfwords.
pub const RAW_VRAM_BYTES: usize = gpu::VRAM_WIDTH * gpu::VRAM_HEIGHT * 2;

/// Largest PNG accepted, in pixels (a 4× upscaled 640×480 screenshot is 4.9 M).
pub const MAX_PIXELS: u64 = 16 << 20;

/// How 5-bit channels were widened to 8 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expansion {
    /// `c << 3` (ps1-tests `vram.png`; 31 → 248).
    Shift,
    /// `(c << 3) | (c >> 2)` (31 → 255).
    Replicate,
    /// `round(c * 255 / 31)`.
    Scaled,
    /// None of the above fits every value; channels read as `v >> 3`.
    Lossy,
}

impl Expansion {
    fn widen(self, c: u8) -> u8 {
        match self {
            Expansion::Shift | Expansion::Lossy => c << 3,
            Expansion::Replicate => expand5(u16::from(c)),
            Expansion::Scaled => ((u32::from(c) * 255 + 15) / 31) as u8,
        }
    }

    /// Inverse table: 8-bit value → 5-bit value, `None` where the expansion never produces it.
    fn inverse(self) -> [Option<u8>; 256] {
        let mut t = [None; 256];
        if self == Expansion::Lossy {
            for (v, e) in t.iter_mut().enumerate() {
                *e = Some((v >> 3) as u8);
            }
        } else {
            for c in 0..32u8 {
                t[usize::from(self.widen(c))] = Some(c);
            }
        }
        t
    }

    /// The first expansion (in the order Shift, Replicate, Scaled) that produced every value
    /// present in `used`; `Lossy` if none did.
    pub fn detect(used: &[bool; 256]) -> Expansion {
        [Expansion::Shift, Expansion::Replicate, Expansion::Scaled]
            .into_iter()
            .find(|e| {
                let inv = e.inverse();
                used.iter().zip(inv).all(|(&u, i)| !u || i.is_some())
            })
            .unwrap_or(Expansion::Lossy)
    }
}

impl fmt::Display for Expansion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expansion::Shift => "c<<3",
            Expansion::Replicate => "(c<<3)|(c>>2)",
            Expansion::Scaled => "round(c*255/31)",
            Expansion::Lossy => "not 15-bit (read as v>>3)",
        })
    }
}

/// Where a capture came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A raw 1 MiB VRAM file (mask bits known).
    RawVram,
    /// A PNG and the expansion detected in it.
    Png(Expansion),
}

/// A picture as 15-bit halfwords (bit 15 = mask bit, known only for raw VRAM).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major halfwords.
    pub pixels: Vec<u16>,
    /// What it was read from.
    pub source: Source,
}

impl Capture {
    /// Reads PNG or raw VRAM bytes, by content: PNG signature, else exactly 1 MiB = raw.
    pub fn parse(data: &[u8]) -> Result<Capture, LoadError> {
        if data.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Self::parse_png(data);
        }
        if data.len() == RAW_VRAM_BYTES {
            let pixels = data
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            return Ok(Capture {
                width: gpu::VRAM_WIDTH as u32,
                height: gpu::VRAM_HEIGHT as u32,
                pixels,
                source: Source::RawVram,
            });
        }
        Err(LoadError::new(
            FORMAT,
            0,
            ErrorKind::BadMagic {
                expected: "a PNG, or a raw VRAM file of exactly 1048576 bytes",
            },
        ))
    }

    fn parse_png(data: &[u8]) -> Result<Capture, LoadError> {
        let bad = |msg: String| LoadError::invalid(FORMAT, 0, msg);
        let decoder = image::codecs::png::PngDecoder::new(std::io::Cursor::new(data))
            .map_err(|e| bad(format!("PNG: {e}")))?;
        let (w, h) = image::ImageDecoder::dimensions(&decoder);
        let pixels = u64::from(w) * u64::from(h);
        if pixels > MAX_PIXELS {
            return Err(LoadError::new(
                FORMAT,
                16,
                ErrorKind::CountTooLarge {
                    what: "PNG pixels",
                    count: pixels,
                    max: MAX_PIXELS,
                },
            ));
        }
        let img = image::DynamicImage::from_decoder(decoder)
            .map_err(|e| bad(format!("PNG: {e}")))?
            .to_rgb8();
        Ok(Self::from_rgb(w, h, img.as_raw()))
    }

    /// A capture from 8-bit RGB, detecting the expansion. `rgb` must hold `w * h * 3` bytes
    /// (missing pixels read as black).
    pub fn from_rgb(width: u32, height: u32, rgb: &[u8]) -> Capture {
        let mut used = [false; 256];
        for &v in rgb {
            used[usize::from(v)] = true;
        }
        let expansion = Expansion::detect(&used);
        let inv = expansion.inverse();
        let c5 = |v: u8| u16::from(inv[usize::from(v)].unwrap_or(v >> 3));
        let n = width as usize * height as usize;
        let pixels = (0..n)
            .map(|i| match rgb.get(i * 3..i * 3 + 3) {
                Some(p) => c5(p[0]) | c5(p[1]) << 5 | c5(p[2]) << 10,
                None => 0,
            })
            .collect();
        Capture {
            width,
            height,
            pixels,
            source: Source::Png(expansion),
        }
    }

    /// Loads a file (size capped by [`read::read_file`]).
    pub fn load(path: &Path) -> Result<Capture, LoadError> {
        let data = read::read_file(path, FORMAT)?;
        Self::parse(&data).map_err(|e| e.in_file(path))
    }

    fn at(&self, x: u32, y: u32) -> u16 {
        self.pixels[(y * self.width + x) as usize]
    }

    /// The pixels of `r` (inside the capture).
    fn part(&self, r: Rect) -> Capture {
        let pixels = (r.y..r.y + r.h)
            .flat_map(|y| (r.x..r.x + r.w).map(move |x| (x, y)))
            .map(|(x, y)| self.at(x, y))
            .collect();
        Capture {
            width: r.w,
            height: r.h,
            pixels,
            source: self.source,
        }
    }

    /// Every `sx`-th column and `sy`-th row: undoes a nearest-neighbour upscale. Also returns
    /// how many `sx × sy` blocks were not a single colour (a filtered upscale).
    fn downscale(&self, sx: u32, sy: u32) -> (Capture, u64) {
        let (w, h) = (self.width / sx, self.height / sy);
        let mut mixed = 0;
        let mut pixels = Vec::with_capacity(w as usize * h as usize);
        for y in 0..h {
            for x in 0..w {
                let p = self.at(x * sx, y * sy);
                let uniform = (0..sy).all(|dy| {
                    (0..sx).all(|dx| self.at(x * sx + dx, y * sy + dy) & 0x7fff == p & 0x7fff)
                });
                if !uniform {
                    mixed += 1;
                }
                pixels.push(p);
            }
        }
        let c = Capture {
            width: w,
            height: h,
            pixels,
            source: self.source,
        };
        (c, mixed)
    }
}

/// An axis-aligned rectangle of pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

impl fmt::Display for Rect {
    /// `x 3..9, y 0..4 (7x5)`: the columns and rows it spans, inclusive, and its size.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "x {}..{}, y {}..{} ({}x{})",
            self.x,
            self.x + self.w - 1,
            self.y,
            self.y + self.h - 1,
            self.w,
            self.h
        )
    }
}

impl Rect {
    fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x && y >= self.y && x - self.x < self.w && y - self.y < self.h
    }
}

/// Reads a mask file: `rect X Y W H` lines (the `hwtests` `mask.txt` format), `#` comments.
pub fn parse_mask(text: &str) -> Result<Vec<Rect>, LoadError> {
    let mut rects = Vec::new();
    let mut offset = 0u64;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len() as u64;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let f: Vec<&str> = content.split_whitespace().collect();
        let nums: Vec<u32> = f.iter().skip(1).filter_map(|s| s.parse().ok()).collect();
        match (f[0], nums.as_slice()) {
            ("rect", &[x, y, w, h]) if f.len() == 5 => rects.push(Rect { x, y, w, h }),
            _ => {
                return Err(LoadError::invalid(
                    "mask",
                    start,
                    format!("line {}: expected `rect X Y W H`", i + 1),
                ))
            }
        }
    }
    Ok(rects)
}

/// Two captures brought to one size.
#[derive(Clone, Debug)]
pub struct Aligned {
    /// The first capture, downscaled if it was the upscaled one.
    pub a: Capture,
    /// The second capture, likewise.
    pub b: Capture,
    /// The upscale factor (x, y) that was undone, (1, 1) if none.
    pub scale: (u32, u32),
    /// Blocks of the upscaled image that were not one colour (0 for a clean nearest-neighbour
    /// upscale).
    pub mixed_blocks: u64,
    /// When one capture is a centred crop of the other ([`align`]): the part of the larger one
    /// compared, and whether that one is `a`.
    pub crop: Option<(Rect, bool)>,
}

/// Sizes that cannot be matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeMismatch {
    /// First size.
    pub a: (u32, u32),
    /// Second size.
    pub b: (u32, u32),
}

impl fmt::Display for SizeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sizes differ: {}x{} vs {}x{}, and neither is a 1x-4x integer upscale of the other",
            self.a.0, self.a.1, self.b.0, self.b.1
        )
    }
}

impl std::error::Error for SizeMismatch {}

/// Most columns or rows a centred crop may leave out ([`align`]): DuckStation's Overscan crop
/// leaves out 16 lines of the standard NTSC range, 32 in 480-line interlace.
pub const MAX_CROP: u32 = 32;

/// Makes `a` and `b` the same size, undoing an integer upscale (1–4 per axis) of either; else,
/// when one is a centred crop of the other upscaled by the same factor on both axes (at most
/// [`MAX_CROP`] columns and rows fewer, an even number each) — what DuckStation's default
/// Overscan crop makes of the standard NTSC range: its screenshot is psxrender's `--display`
/// without 8 lines at the top and the bottom — comparing that part of the larger one.
pub fn align(a: Capture, b: Capture) -> Result<Aligned, SizeMismatch> {
    let factor = |big: &Capture, small: &Capture| -> Option<(u32, u32)> {
        let f = |b: u32, s: u32| {
            (s > 0 && b.is_multiple_of(s) && (1..=4).contains(&(b / s))).then(|| b / s)
        };
        Some((f(big.width, small.width)?, f(big.height, small.height)?))
    };
    if let Some(s) = factor(&b, &a) {
        let (b, mixed_blocks) = b.downscale(s.0, s.1);
        return Ok(Aligned {
            a,
            b,
            scale: s,
            mixed_blocks,
            crop: None,
        });
    }
    if let Some(s) = factor(&a, &b) {
        let (a, mixed_blocks) = a.downscale(s.0, s.1);
        return Ok(Aligned {
            a,
            b,
            scale: s,
            mixed_blocks,
            crop: None,
        });
    }
    for a_larger in [true, false] {
        let (large, shot) = if a_larger { (&a, &b) } else { (&b, &a) };
        if let Some((k, rect)) = centred_crop(large, shot) {
            let part = large.part(rect);
            let (shot, mixed_blocks) = shot.downscale(k, k);
            let (a, b) = if a_larger { (part, shot) } else { (shot, part) };
            return Ok(Aligned {
                a,
                b,
                scale: (k, k),
                mixed_blocks,
                crop: Some((rect, a_larger)),
            });
        }
    }
    Err(SizeMismatch {
        a: (a.width, a.height),
        b: (b.width, b.height),
    })
}

/// The upscale factor and the part of `large` that `shot` shows, when `shot` is a centred crop
/// of `large` upscaled `k` times ([`align`]).
fn centred_crop(large: &Capture, shot: &Capture) -> Option<(u32, Rect)> {
    (1..=4).find_map(|k| {
        if !shot.width.is_multiple_of(k) || !shot.height.is_multiple_of(k) {
            return None;
        }
        let (w, h) = (shot.width / k, shot.height / k);
        let (dw, dh) = (large.width.checked_sub(w)?, large.height.checked_sub(h)?);
        let fits = dw <= MAX_CROP && dh <= MAX_CROP && dw % 2 == 0 && dh % 2 == 0;
        (fits && w > 0 && h > 0 && dw + dh > 0).then_some((
            k,
            Rect {
                x: dw / 2,
                y: dh / 2,
                w,
                h,
            },
        ))
    })
}

/// What to compare.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Largest per-channel difference (5-bit units) still counted as equal.
    pub tolerance: u8,
    /// Pixels left out of the comparison.
    pub ignore: Vec<Rect>,
}

/// The outcome of a comparison of two same-size captures.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Width compared.
    pub width: u32,
    /// Height compared.
    pub height: u32,
    /// Pixels compared (all but the ignored).
    pub compared: u64,
    /// Pixels with identical bits 0–14.
    pub identical: u64,
    /// Pixels whose largest channel difference is within the tolerance (includes identical).
    pub within_tolerance: u64,
    /// Largest channel difference, 5-bit units (0–31).
    pub max_channel_error: u8,
    /// PSNR in dB over 5-bit channels, peak 31; infinite when identical.
    pub psnr: f64,
    /// Smallest rectangle holding every differing pixel.
    pub bbox: Option<Rect>,
    /// Pixels whose mask bit differs (only when both are raw VRAM).
    pub mask_bit_differences: Option<u64>,
    /// The tolerance used.
    pub tolerance: u8,
}

impl Report {
    /// True when every compared pixel is within the tolerance.
    pub fn passed(&self) -> bool {
        self.within_tolerance == self.compared
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |n: u64| {
            if self.compared == 0 {
                100.0
            } else {
                n as f64 * 100.0 / self.compared as f64
            }
        };
        writeln!(
            f,
            "compared {}x{}: {} pixels",
            self.width, self.height, self.compared
        )?;
        writeln!(
            f,
            "identical: {} ({:.4}%)",
            self.identical,
            pct(self.identical)
        )?;
        if self.tolerance > 0 {
            writeln!(
                f,
                "within tolerance {}: {} ({:.4}%)",
                self.tolerance,
                self.within_tolerance,
                pct(self.within_tolerance)
            )?;
        }
        writeln!(
            f,
            "largest channel error: {} (of 31, 5-bit units)",
            self.max_channel_error
        )?;
        if self.psnr.is_finite() {
            writeln!(f, "PSNR: {:.2} dB (5-bit, peak 31)", self.psnr)?;
        } else {
            writeln!(f, "PSNR: infinite (identical)")?;
        }
        match self.bbox {
            Some(r) => writeln!(f, "differences within {r}")?,
            None => writeln!(f, "no differences")?,
        }
        if let Some(m) = self.mask_bit_differences {
            writeln!(f, "mask bit (15) differs in {m} pixels (not counted above)")?;
        }
        Ok(())
    }
}

fn channels(p: u16) -> [u8; 3] {
    [(p & 31) as u8, (p >> 5 & 31) as u8, (p >> 10 & 31) as u8]
}

/// Largest channel difference of two halfwords, 5-bit units.
fn channel_error(a: u16, b: u16) -> u8 {
    let (a, b) = (channels(a), channels(b));
    (0..3).map(|i| a[i].abs_diff(b[i])).max().unwrap_or(0)
}

/// Compares two captures of the same size (see [`align`]).
pub fn compare(a: &Capture, b: &Capture, opts: &Options) -> Report {
    let (w, h) = (a.width.min(b.width), a.height.min(b.height));
    let both_raw = a.source == Source::RawVram && b.source == Source::RawVram;
    let mut r = Report {
        width: w,
        height: h,
        compared: 0,
        identical: 0,
        within_tolerance: 0,
        max_channel_error: 0,
        psnr: f64::INFINITY,
        bbox: None,
        mask_bit_differences: both_raw.then_some(0),
        tolerance: opts.tolerance,
    };
    let mut sq_sum = 0u64;
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if opts.ignore.iter().any(|rect| rect.contains(x, y)) {
                continue;
            }
            let (pa, pb) = (a.at(x, y), b.at(x, y));
            r.compared += 1;
            if let Some(m) = &mut r.mask_bit_differences {
                *m += u64::from((pa ^ pb) & 0x8000 != 0);
            }
            if (pa ^ pb) & 0x7fff == 0 {
                r.identical += 1;
                r.within_tolerance += 1;
                continue;
            }
            let (ca, cb) = (channels(pa), channels(pb));
            sq_sum += (0..3)
                .map(|i| u64::from(ca[i].abs_diff(cb[i])).pow(2))
                .sum::<u64>();
            let err = channel_error(pa, pb);
            r.max_channel_error = r.max_channel_error.max(err);
            if err <= opts.tolerance {
                r.within_tolerance += 1;
            }
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    if sq_sum > 0 {
        let mse = sq_sum as f64 / (r.compared as f64 * 3.0);
        r.psnr = 10.0 * (31.0f64 * 31.0 / mse).log10();
        r.bbox = Some(Rect {
            x: x0,
            y: y0,
            w: x1 - x0 + 1,
            h: y1 - y0 + 1,
        });
    }
    r
}

/// The diff image: `a` dimmed to a quarter where the pixels match (grey-blue where ignored),
/// yellow where they differ within the tolerance, magenta where they differ beyond it.
pub fn diff_image(a: &Capture, b: &Capture, opts: &Options) -> crate::capture::display::Picture {
    let (w, h) = (a.width.min(b.width), a.height.min(b.height));
    let mut rgb = Vec::with_capacity(w as usize * h as usize * 3);
    for y in 0..h {
        for x in 0..w {
            let (pa, pb) = (a.at(x, y), b.at(x, y));
            let px = if opts.ignore.iter().any(|r| r.contains(x, y)) {
                [40, 40, 64]
            } else if (pa ^ pb) & 0x7fff == 0 {
                crate::output::bgr555_to_rgb(pa).map(|c| c / 4)
            } else if channel_error(pa, pb) <= opts.tolerance {
                [255, 255, 0]
            } else {
                [255, 0, 255]
            };
            rgb.extend(px);
        }
    }
    crate::capture::display::Picture {
        width: w,
        height: h,
        rgb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgb_of(pixels: &[u16], e: Expansion) -> Vec<u8> {
        pixels
            .iter()
            .flat_map(|&p| channels(p).map(|c| e.widen(c)))
            .collect()
    }

    fn gradient(w: u32, h: u32) -> Vec<u16> {
        (0..w * h).map(|i| (i * 37 % 0x8000) as u16).collect()
    }

    #[test]
    fn expansions_are_detected_and_inverted() {
        let px = gradient(64, 32);
        for e in [Expansion::Shift, Expansion::Replicate, Expansion::Scaled] {
            let c = Capture::from_rgb(64, 32, &rgb_of(&px, e));
            assert_eq!(c.source, Source::Png(e));
            assert_eq!(c.pixels, px, "{e}");
        }
        let odd: Vec<u8> = (0..=255).cycle().take(96).collect();
        let c = Capture::from_rgb(32, 1, &odd);
        assert_eq!(c.source, Source::Png(Expansion::Lossy));
        assert_eq!(c.pixels[0], 0);
        assert_eq!(c.pixels[10], 3 | 3 << 5 | 4 << 10);
    }

    #[test]
    fn one_pixel_off_is_counted_and_boxed() {
        let a = Capture::from_rgb(16, 8, &rgb_of(&gradient(16, 8), Expansion::Shift));
        let mut b = a.clone();
        let i = (5 * 16 + 3) as usize;
        b.pixels[i] = (b.pixels[i] & !31) | ((b.pixels[i] & 31) ^ 2);
        let r = compare(&a, &b, &Options::default());
        assert_eq!((r.compared, r.identical), (128, 127));
        assert_eq!(r.max_channel_error, 2);
        assert_eq!(
            r.bbox,
            Some(Rect {
                x: 3,
                y: 5,
                w: 1,
                h: 1
            })
        );
        assert!(!r.passed());
        // MSE = 4 / (128*3); PSNR = 10 log10(961 / MSE).
        assert!((r.psnr - 10.0 * (961.0 * 384.0 / 4.0f64).log10()).abs() < 1e-9);
        let tol = Options {
            tolerance: 2,
            ..Options::default()
        };
        assert!(compare(&a, &b, &tol).passed());
        let ignore = Options {
            ignore: vec![Rect {
                x: 3,
                y: 5,
                w: 1,
                h: 1,
            }],
            ..Options::default()
        };
        let r = compare(&a, &b, &ignore);
        assert!(r.passed() && r.compared == 127 && r.psnr.is_infinite());
        let d = diff_image(&a, &b, &Options::default());
        assert_eq!(d.rgb[i * 3..i * 3 + 3], [255, 0, 255]);
    }

    #[test]
    fn upscales_are_undone_and_bad_sizes_refused() {
        let small = gradient(20, 10);
        let a = Capture::from_rgb(20, 10, &rgb_of(&small, Expansion::Replicate));
        for (sx, sy) in [(2, 2), (3, 3), (4, 4), (2, 1)] {
            let big: Vec<u16> = (0..10 * sy)
                .flat_map(|y| (0..20 * sx).map(move |x| (x / sx, y / sy)))
                .map(|(x, y)| small[(y * 20 + x) as usize])
                .collect();
            let b = Capture::from_rgb(20 * sx, 10 * sy, &rgb_of(&big, Expansion::Shift));
            let al = align(b, a.clone()).unwrap();
            assert_eq!(al.scale, (sx, sy));
            assert_eq!(al.mixed_blocks, 0);
            assert!(compare(&al.a, &al.b, &Options::default()).passed());
        }
        let b = Capture::from_rgb(21, 10, &[]);
        let e = align(a.clone(), b).unwrap_err();
        assert_eq!(e.b, (21, 10));
        let b = Capture::from_rgb(100, 50, &[]);
        assert!(align(a, b).is_err(), "5x is not an accepted upscale");
    }

    /// A DuckStation Overscan screenshot of the standard NTSC range is psxrender's 320×240
    /// `--display` without 8 lines at the top and the bottom, upscaled 1×, 2× or 4×: aligned
    /// to those 224 lines, it compares equal; a line off is a difference.
    #[test]
    fn centred_crops_are_detected() {
        let ours = &gradient(320, 240);
        let a = Capture::from_rgb(320, 240, &rgb_of(ours, Expansion::Replicate));
        for k in [1, 2, 4] {
            let shot: Vec<u16> = (0..224 * k)
                .flat_map(|y| (0..320 * k).map(move |x| ours[((y / k + 8) * 320 + x / k) as usize]))
                .collect();
            let b = Capture::from_rgb(320 * k, 224 * k, &rgb_of(&shot, Expansion::Replicate));
            let al = align(a.clone(), b.clone()).unwrap();
            let rect = Rect {
                x: 0,
                y: 8,
                w: 320,
                h: 224,
            };
            assert_eq!((al.scale, al.crop), ((k, k), Some((rect, true))), "{k}x");
            assert!(compare(&al.a, &al.b, &Options::default()).passed(), "{k}x");
            let al = align(b, a.clone()).unwrap();
            assert_eq!(al.crop, Some((rect, false)));
            assert!(
                compare(&al.a, &al.b, &Options::default()).passed(),
                "{k}x swapped"
            );
        }
        let shifted: Vec<u16> = (0..224)
            .flat_map(|y| (0..320).map(move |x| ours[((y + 7) * 320 + x) as usize]))
            .collect();
        let b = Capture::from_rgb(320, 224, &rgb_of(&shifted, Expansion::Replicate));
        let al = align(a, b).unwrap();
        assert!(!compare(&al.a, &al.b, &Options::default()).passed());
    }

    #[test]
    fn raw_vram_and_png_agree_and_mask_bits_are_separate() {
        let mut raw = vec![0u8; RAW_VRAM_BYTES];
        raw[0..2].copy_from_slice(&0x801fu16.to_le_bytes());
        let a = Capture::parse(&raw).unwrap();
        assert_eq!(a.source, Source::RawVram);
        raw[0..2].copy_from_slice(&0x001fu16.to_le_bytes());
        let b = Capture::parse(&raw).unwrap();
        let r = compare(&a, &b, &Options::default());
        assert!(r.passed());
        assert_eq!(r.mask_bit_differences, Some(1));
        let e = Capture::parse(&raw[..100]).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadMagic { .. }));
        let e = Capture::parse(b"\x89PNG\r\n\x1a\ngarbage").unwrap_err();
        assert!(e.to_string().contains("PNG"), "{e}");
    }

    #[test]
    fn random_bytes_never_panic() {
        use proptest::prelude::*;
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&proptest::collection::vec(any::<u8>(), 0..300), |tail| {
                let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
                png.extend_from_slice(&tail);
                let _ = Capture::parse(&png);
                let _ = Capture::parse(&tail);
                let _ = parse_mask(&String::from_utf8_lossy(&tail));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn mask_files_parse() {
        let m = parse_mask("# c\nrect 1 2 3 4\n\nrect 5 6 7 8 # x\n").unwrap();
        assert_eq!(
            m[1],
            Rect {
                x: 5,
                y: 6,
                w: 7,
                h: 8
            }
        );
        let e = parse_mask("rect 1 2 3 4\nrect 1 2\n").unwrap_err();
        assert_eq!(e.offset, 13);
    }
}
