//! Drawing a batch over bands of VRAM rows, in parallel, identical to one serial pass.
//!
//! A band is a run of whole VRAM rows drawn by one task. VRAM is cut into bands of about equal
//! estimated work ([`Batch::load`](super::batch::Batch), [`edges`]), a few per thread so that a
//! thread done early takes another band (rayon's work stealing here; in `canvas.rs` the caller
//! takes the helpers' unclaimed bands); each band walks the whole batch in command
//! order and draws every primitive clipped to its rows. Every pixel thus sees exactly the
//! writes of a serial run, in the same order, whatever the number of threads. A triangle is set
//! up by each band it reaches (set-up is cheap next to its pixels, and a band never waits for
//! another); textures are read from the texture cache's snapshot, which no band writes.
//!
//! Here threads that have no band left go back to rayon (the caller's pool, which it keeps
//! busy); `canvas.rs` draws with the GPU's own helpers.

use rayon::prelude::*;

use super::batch::{Batch, Entry, Kind, BAND_ROWS};
use super::span::Simd;
use super::{Band, TexSource};
use crate::VRAM_WIDTH;

/// Bands per thread when drawing in parallel: enough to even out what the load estimate
/// misses (a thread done early takes another band), few enough that bands seldom share a
/// triangle (each band sets up the triangles it reaches).
pub(crate) const BANDS_PER_THREAD: usize = 4;

/// Where a batch is drawn.
#[derive(Clone, Copy, Debug)]
pub enum Exec {
    /// In one pass on the calling thread.
    Serial,
    /// In bands on the rayon pool this thread belongs to (the global pool outside any).
    Current,
}

/// Draws every primitive of `batch` clipped to `rows` (whole load bands of VRAM), sampling
/// `src`.
pub fn draw(batch: &Batch, mut rows: Band, src: TexSource, simd: Simd, exec: Exec) {
    let one = |band: &mut Band| {
        for e in &batch.order {
            draw_entry(batch, e, band, src, simd);
        }
    };
    if rows.y0 >= rows.y1 {
        return;
    }
    let threads = match exec {
        Exec::Serial => 1,
        Exec::Current => rayon::current_num_threads(),
    };
    if threads <= 1 {
        return one(&mut rows);
    }
    let mut bands = cut(&batch.load, rows, threads * BANDS_PER_THREAD);
    bands.par_iter_mut().with_max_len(1).for_each(one);
}

/// Draws one primitive clipped to `band`, if it may touch it.
#[inline]
fn draw_entry(batch: &Batch, e: &Entry, band: &mut Band, src: TexSource, simd: Simd) {
    if (e.bottom as i32) <= band.y0 || (e.top as i32) >= band.y1 {
        return;
    }
    let i = e.index as usize;
    let bands = std::slice::from_mut(band);
    match e.kind {
        Kind::Triangle => batch.triangles[i].setup().draw(bands, src, simd),
        Kind::Line => batch.lines[i].draw(bands),
        Kind::Rect => batch.rects[i].draw(bands, src, simd),
    }
}

/// `rows` (whole load bands) cut into at most `count` bands of whole load bands, of about
/// equal load (`load` per [`BAND_ROWS`] rows of VRAM).
fn cut<'v>(load: &[u32], rows: Band<'v>, count: usize) -> Vec<Band<'v>> {
    let rows_at = edges(load, rows.y0 as usize..rows.y1 as usize, count);
    let mut rest = rows.rows;
    let mut out = Vec::with_capacity(rows_at.len());
    for pair in rows_at.windows(2) {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut((pair[1] - pair[0]) * VRAM_WIDTH);
        rest = tail;
        out.push(Band::new(head, pair[0], pair[1]));
    }
    out
}

/// Where VRAM rows `rows` (whole load bands) are cut into at most `count` bands of whole
/// load bands and about equal load (`load` per [`BAND_ROWS`] rows of VRAM), from
/// `rows.start` to `rows.end`; bands holding no load join their neighbours.
pub fn edges(load: &[u32], rows: std::ops::Range<usize>, count: usize) -> Vec<usize> {
    let (first, end) = (rows.start / BAND_ROWS, rows.end / BAND_ROWS);
    let load = |band: usize| load.get(band).copied().unwrap_or(0) as u64;
    let total: u64 = (first..end).map(load).sum();
    let count = count.clamp(1, (end - first).max(1)) as u64;
    let mut out = vec![rows.start];
    let (mut band, mut acc) = (first, 0u64);
    for k in 1..count {
        while band < end && acc * count < total * k {
            acc += load(band);
            band += 1;
        }
        if band * BAND_ROWS > *out.last().expect("starts with rows.start") {
            out.push(band * BAND_ROWS);
        }
    }
    if rows.end > *out.last().expect("starts with rows.start") {
        out.push(rows.end);
    }
    out
}

/// The row, on a boundary of the load bands, above which the load (`load` per [`BAND_ROWS`]
/// rows of VRAM) comes nearest `target`.
pub fn split_at(load: &[u32], target: u64) -> usize {
    let (mut band, mut acc) = (0, 0u64);
    for &l in load {
        let next = acc + l as u64;
        // Stop once there, or where taking this band would overshoot by more than leaving it
        // undershoots.
        if acc >= target || next - target.min(next) > target - acc {
            break;
        }
        (band, acc) = (band + 1, next);
    }
    band * BAND_ROWS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gp0::fields::BlendMode;
    use crate::raster::batch::BANDS;
    use crate::raster::pixel::PixelMode;
    use crate::raster::rect::Rect;
    use crate::raster::{Clip, Prim};
    use crate::rng::XorShift;
    use crate::VRAM_HEIGHT;

    /// Bands cover all rows once, in order, without empty ones, and hold about equal load.
    #[test]
    fn bands_are_balanced_runs_of_rows() {
        let mut load = vec![0u32; BANDS];
        for (i, l) in load.iter_mut().enumerate().take(28) {
            *l = 1000 + (i as u32 % 5) * 300;
        }
        let total: u32 = load.iter().sum();
        let mut vram = vec![0u16; VRAM_WIDTH * VRAM_HEIGHT];
        for count in [1, 2, 3, 5, 28, 64] {
            let bands = cut(&load, Band::new(&mut vram, 0, VRAM_HEIGHT), count);
            assert!(!bands.is_empty() && bands.len() <= count, "{count}");
            let mut at = 0;
            for b in &bands {
                assert!(b.y0 == at && b.y1 > b.y0, "{count}");
                assert_eq!(b.rows.len(), (b.y1 - b.y0) as usize * VRAM_WIDTH);
                at = b.y1;
            }
            assert_eq!(at, VRAM_HEIGHT as i32);
            if bands.len() < count {
                continue;
            }
            // Each band but the last ends where its cumulative share is first reached.
            for (k, b) in bands.iter().enumerate().take(bands.len() - 1) {
                let end = b.y1 as usize / BAND_ROWS;
                let want = total as u64 * (k as u64 + 1);
                let upto: u32 = load[..end].iter().sum();
                assert!(
                    upto as u64 * count as u64 >= want
                        && (upto - load[end - 1]) as u64 * (count as u64) < want,
                    "{count}"
                );
            }
        }
        assert_eq!(
            cut(&[0; BANDS], Band::new(&mut vram, 0, VRAM_HEIGHT), 3).len(),
            1
        );
    }

    /// The split lands on the load band boundary nearest the target, walking no further than
    /// the target once it is reached.
    #[test]
    fn split_at_is_the_nearest_boundary() {
        let load = [100u32, 0, 300, 50, 0, 0];
        for (target, want) in [
            (0, 0),
            (49, 0),
            (51, 1),
            (100, 1),
            (249, 2),
            (251, 3),
            (400, 3),
            (424, 3),
            (426, 4),
            (450, 4),
            (10_000, 6),
        ] {
            assert_eq!(split_at(&load, target), want * BAND_ROWS, "target {target}");
        }
    }

    /// Overlapping semi-transparent rectangles in every blend mode (the result depends on the
    /// order of writes), drawn in bands on pools of 2 to 4 threads, equal one serial pass.
    #[test]
    fn bands_draw_what_one_pass_draws() {
        let mut rng = XorShift::new(0x51ab_5eed_0000_0001);
        let mut batch = Batch::default();
        let modes = [
            BlendMode::Average,
            BlendMode::Add,
            BlendMode::Subtract,
            BlendMode::AddQuarter,
        ];
        for i in 0..2000 {
            batch.push(Prim::Rect(Rect {
                x: rng.below(1000) as i32,
                y: rng.below(500) as i32,
                w: 1 + rng.below(32) as i32,
                h: 1 + rng.below(32) as i32,
                rgb: (rng.below(256) as i32, rng.below(256) as i32, 0x80),
                texture: None,
                raw: false,
                flip_x: false,
                flip_y: false,
                clip: Clip {
                    x0: 0,
                    y0: 0,
                    x1: 1023,
                    y1: 511,
                },
                mode: PixelMode {
                    blend: (i % 5 != 0).then(|| modes[i % 4]),
                    set_mask: 0,
                    check_mask: false,
                },
            }));
        }
        let tex = crate::boxed_vram();
        let src = TexSource {
            vram: &tex,
            cluts: &[],
        };
        let simd = Simd::best();
        let start: Vec<u16> = (0..512 * VRAM_WIDTH)
            .map(|_| rng.next_u32() as u16)
            .collect();
        let mut want = start.clone();
        draw(
            &batch,
            Band::new(&mut want, 0, VRAM_HEIGHT),
            src,
            simd,
            Exec::Serial,
        );
        for threads in 2..=4 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut got = start.clone();
            pool.install(|| {
                draw(
                    &batch,
                    Band::new(&mut got, 0, VRAM_HEIGHT),
                    src,
                    simd,
                    Exec::Current,
                )
            });
            if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                panic!("{threads} threads: ({}, {}) differs", i % 1024, i / 1024);
            }
        }
    }
}
