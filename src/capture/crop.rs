//! DuckStation's display crops, applied to the picture psxrender reads out of VRAM, so a
//! `--display` picture has the size and framing of a DuckStation screenshot.
//!
//! psxrender's read-out ([`Crop::Range`], the default) is the whole display range GP1(06h)/
//! (07h) selects: `((X2−X1)/cycles + 2) & !3` pixels (psx-spx; 364 for the 368 mode's standard
//! range 0x260–0xC60, since 2560/7 is 365.7) by `Y2−Y1` lines (doubled in 480-line interlace).
//! DuckStation (`gpu.cpp`, `UpdateCRTCDisplayParameters`, read for facts) shows a *visible
//! area* instead, in GPU clock ticks and scanlines:
//!
//! | crop | NTSC ticks × lines | PAL ticks × lines |
//! |---|---|---|
//! | [`Crop::Overscan`] (its default) | 608–3168 × 24–248 | 628–3188 × 30–298 |
//! | [`Crop::Borders`] | the display range, X rounded down to the dot clock | the same |
//! | [`Crop::Full`] (its "None") | 488–3288 × 16–256 | 488–3300 × 20–308 |
//!
//! Each edge is then clamped to the active area (the Full row), the X range rounded down to a
//! whole number of dot clocks (10/8/7/5/4 ticks per pixel for the 256/320/368/512/640 modes)
//! and X1, Y1 to the line length and line count (3413 ticks × 263 lines NTSC, 3406 × 314 PAL).
//! The picture is `(end − start) / cycles` pixels by the visible lines (doubled in 480-line
//! interlace); the display range's pixels land in it at their place, cut where they leave it,
//! black where it has none. DuckStation counts the range's VRAM columns from the rounded range,
//! `((end − start)/cycles + 2) & !3`. So NTSC's standard range 0x260–0xC60 × 0x10–0x100 gives
//! 320×224 under Overscan, VRAM lines Y+8 to Y+231; in the 368 mode the rounded range is
//! 602–3164, 366 pixels, 368 VRAM columns, of which Overscan shows 365 and Borders 366 (the
//! psx-spx read-out has 364).

use gpu::gp1::{HorizontalRange, VerticalRange};
use gpu::Display;

use crate::capture::display::{self, Picture};

/// Which part of the picture to keep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Crop {
    /// The whole display range, as psxrender reads it out (module docs).
    #[default]
    Range,
    /// DuckStation's default: the part of the picture a TV's overscan leaves.
    Overscan,
    /// DuckStation's "Only Borders": the display range, clamped to the active area.
    Borders,
    /// DuckStation's "None": the whole active area, black around the display range.
    Full,
}

impl Crop {
    /// Every crop, in `--crop` order.
    pub const ALL: [Crop; 4] = [Crop::Range, Crop::Overscan, Crop::Borders, Crop::Full];

    /// The `--crop` name: `range`, `overscan`, `borders` or `full`.
    pub fn name(self) -> &'static str {
        match self {
            Crop::Range => "range",
            Crop::Overscan => "overscan",
            Crop::Borders => "borders",
            Crop::Full => "full",
        }
    }

    /// The crop named `name`.
    pub fn from_name(name: &str) -> Option<Crop> {
        Crop::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// One video standard's timing, in GPU clock ticks per line and lines per field.
struct Standard {
    ticks: u16,
    lines: u16,
    /// The active area: [`Crop::Full`].
    active: [u16; 4],
    /// [`Crop::Overscan`].
    overscan: [u16; 4],
}

/// Source: DuckStation `gpu.cpp` (ticks and lines as its CRTC model counts them).
const NTSC: Standard = Standard {
    ticks: 3413,
    lines: 263,
    active: [488, 3288, 16, 256],
    overscan: [608, 3168, 24, 248],
};

/// Source: DuckStation `gpu.cpp` (its PAL numbers are marked as unverified there).
const PAL: Standard = Standard {
    ticks: 3406,
    lines: 314,
    active: [488, 3300, 20, 308],
    overscan: [628, 3188, 30, 298],
};

/// Where a crop puts the read-out: a `width` × `height` picture, black but for the read-out's
/// `size` pixels from `from` (its column and row) placed at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in lines.
    pub height: u32,
    /// First column and row of the read-out shown.
    pub from: (u32, u32),
    /// Columns and rows of the read-out shown.
    pub size: (u32, u32),
    /// Where they go in the picture.
    pub at: (u32, u32),
}

/// The framing `crop` gives the display `d` with ranges `h` and `v` (module docs).
pub fn framing(crop: Crop, d: &Display, h: HorizontalRange, v: VerticalRange) -> Option<Framing> {
    if crop == Crop::Range {
        return None;
    }
    let std = if d.pal { &PAL } else { &NTSC };
    let cycles = cycles_per_pixel(d.mode_width);
    let round = |x: u16| x.min(std.ticks) / cycles * cycles;
    let (hs, he) = (round(h.x1()), round(h.x2()));
    let (vs, ve) = (v.y1().min(std.lines), v.y2().min(std.lines));
    let [ax0, ax1, ay0, ay1] = std.active;
    let [x0, x1, y0, y1] = match crop {
        Crop::Overscan => std.overscan,
        Crop::Full => std.active,
        _ => [hs, he, vs, ve],
    };
    let x0 = x0.clamp(ax0, ax1);
    let x1 = x1.clamp(x0, ax1);
    let y0 = y0.clamp(ay0, ay1);
    let y1 = y1.clamp(y0, ay1);
    let shift = u32::from(d.interlaced480);
    let width = u32::from((x1 - x0) / cycles);
    let height = u32::from(y1 - y0) << shift;
    // The read-out's pixels and lines before the visible area are cut; after it, it starts
    // that far in.
    let ticks = |a: u16, b: u16| u32::from(a.saturating_sub(b) / cycles);
    let lines = |a: u16, b: u16| u32::from(a.saturating_sub(b)) << shift;
    let from = (ticks(x0, hs), lines(y0, vs));
    let at = (ticks(hs, x0), lines(vs, y0));
    let shown_lines = lines(ve.min(y1), vs.max(y0));
    // DuckStation's count of VRAM columns, from the range rounded to dot clocks: (pixels + 2)
    // rounded down to 4, 4 for a single pixel.
    let pixels = he.saturating_sub(hs) / cycles;
    let columns = match pixels {
        1 => 4,
        p => u32::from((p + 2) & !3),
    };
    let cols = columns
        .saturating_sub(from.0)
        .min(width.saturating_sub(at.0));
    Some(Framing {
        width,
        height,
        from,
        size: (cols, shown_lines.min(height.saturating_sub(at.1))),
        at,
    })
}

/// GPU clock ticks per pixel of the mode `mode_width` pixels wide.
fn cycles_per_pixel(mode_width: u16) -> u16 {
    match mode_width {
        256 => 10,
        368 => 7,
        512 => 5,
        640 => 4,
        _ => 8,
    }
}

/// What the TV shows of `vram` (black when the display is disabled), framed as `crop` says.
/// The VRAM columns and lines DuckStation shows are read as [`display::shown`] reads the
/// display range, from the display start, so they may run past psxrender's own read-out.
pub fn shown(
    vram: &[u16],
    d: &Display,
    h: HorizontalRange,
    v: VerticalRange,
    crop: Crop,
) -> Picture {
    let Some(f) = framing(crop, d, h, v) else {
        return display::shown(vram, d);
    };
    let source = Display {
        width: (f.from.0 + f.size.0).min(u32::from(u16::MAX)) as u16,
        height: (f.from.1 + f.size.1).min(u32::from(u16::MAX)) as u16,
        ..*d
    };
    apply(&display::shown(vram, &source), &f)
}

/// The read-out `full` framed as `f` says (pixels outside `full` read as black).
pub fn apply(full: &Picture, f: &Framing) -> Picture {
    let mut out = Picture::black(f.width, f.height);
    for row in 0..f.size.1 {
        let (sy, dy) = (f.from.1 + row, f.at.1 + row);
        if sy >= full.height || dy >= f.height {
            break;
        }
        for col in 0..f.size.0 {
            let (sx, dx) = (f.from.0 + col, f.at.0 + col);
            if sx >= full.width || dx >= f.width {
                break;
            }
            let s = ((sy * full.width + sx) * 3) as usize;
            let d = ((dy * f.width + dx) * 3) as usize;
            out.rgb[d..d + 3].copy_from_slice(&full.rgb[s..s + 3]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The display of the standard NTSC or PAL set-up in mode `width` (15-bit, not interlaced
    /// unless 480 lines), as the GPU reads it.
    fn standard(
        width: u16,
        pal: bool,
        interlaced: bool,
    ) -> (Display, HorizontalRange, VerticalRange) {
        let mut g = gpu::Gpu::new();
        let mode = gpu::gp1::DisplayMode::new(width, interlaced, pal, false).unwrap();
        let h = HorizontalRange::new(0x260, 0xC60);
        let v = match pal {
            false => VerticalRange::new(0x10, 0x100),
            true => VerticalRange::new(0x23, 0x123),
        };
        for w in [0x0300_0000, mode.word(), h.word(), v.word()] {
            g.gp1(w);
        }
        (g.display(), h, v)
    }

    fn frame(crop: Crop, s: (Display, HorizontalRange, VerticalRange)) -> Framing {
        framing(crop, &s.0, s.1, s.2).unwrap()
    }

    /// NTSC Overscan of the standard range: 320×224 from line 8 (issue 71's table); 480i
    /// doubles the lines; each mode's width is 2560 ticks over its dot clock.
    #[test]
    fn overscan_of_the_standard_ntsc_range() {
        let f = frame(Crop::Overscan, standard(320, false, false));
        assert_eq!(
            f,
            Framing {
                width: 320,
                height: 224,
                from: (0, 8),
                size: (320, 224),
                at: (0, 0)
            }
        );
        let f = frame(Crop::Overscan, standard(640, false, true));
        assert_eq!((f.width, f.height, f.from), (640, 448, (0, 16)));
        for (mode, width) in [(256, 256), (368, 365), (512, 512)] {
            let f = frame(Crop::Overscan, standard(mode, false, false));
            assert_eq!(f.width, width, "{mode}");
        }
    }

    /// The 368 mode: psx-spx's `((X2−X1)/7 + 2) & !3` gives a 364-pixel read-out; DuckStation
    /// rounds the range to 602–3164 first and shows 365 columns under Overscan, 366 under
    /// Borders, read from VRAM past the 364.
    #[test]
    fn the_368_mode_is_364_365_or_366_wide() {
        let s = standard(368, false, false);
        assert_eq!(display::size(&s.0), (364, 240));
        let f = frame(Crop::Overscan, s);
        assert_eq!((f.width, f.size), (365, (365, 224)));
        let f = frame(Crop::Borders, s);
        assert_eq!((f.width, f.height, f.size), (366, 240, (366, 240)));
        let mut vram = vec![0u16; 1024 * 512];
        vram[365] = 0x7fff;
        let p = shown(&vram, &s.0, s.1, s.2, Crop::Borders);
        assert_eq!(p.width, 366);
        assert_eq!(
            p.rgb[365 * 3..366 * 3],
            [255, 255, 255],
            "column 365 is VRAM's"
        );
    }

    /// Borders keeps the range, clamped to the active area; Full puts it in the active area
    /// with black around it; PAL's overscan starts above the standard range (black on top).
    #[test]
    fn borders_full_and_pal() {
        let f = frame(Crop::Borders, standard(320, false, false));
        assert_eq!(
            (f.width, f.height, f.from, f.at),
            (320, 240, (0, 0), (0, 0))
        );
        let f = frame(Crop::Full, standard(320, false, false));
        assert_eq!((f.width, f.height), (350, 240));
        assert_eq!((f.at, f.size), ((15, 0), (320, 240)));
        // PAL: overscan starts 20 ticks (2 pixels) into the range and 5 lines above it.
        let f = frame(Crop::Overscan, standard(320, true, false));
        assert_eq!(
            (f.width, f.height, f.at, f.from),
            (320, 268, (0, 5), (2, 0))
        );
        assert_eq!(f.size, (318, 256));
        assert!(framing(
            Crop::Range,
            &standard(320, true, false).0,
            HorizontalRange(0),
            VerticalRange(0)
        )
        .is_none());
    }

    /// Applying a framing moves the read-out's pixels and leaves the rest black.
    #[test]
    fn apply_places_pixels() {
        let mut full = Picture::black(4, 3);
        full.rgb[(4 + 1) * 3] = 200; // (1, 1) red
        let f = Framing {
            width: 5,
            height: 2,
            from: (1, 1),
            size: (3, 2),
            at: (2, 0),
        };
        let out = apply(&full, &f);
        assert_eq!((out.width, out.height), (5, 2));
        assert_eq!(out.rgb[2 * 3], 200);
        assert_eq!(out.rgb.iter().filter(|&&c| c != 0).count(), 1);
    }
}
