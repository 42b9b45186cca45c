//! Drawing a batch over bands of VRAM rows, in parallel, identical to one serial pass.
//!
//! A band is a run of whole VRAM rows drawn in one pass by one thread. [`plan`] cuts VRAM into
//! bands of about equal estimated work ([`Batch::load`](super::batch::Batch), [`edges`]): a
//! pure function of the batch's load estimate, the primitives across each possible cut and the
//! thread count; two bands per thread so that a thread done early finds more to take while the
//! cuts that adds are cheap, one when they are not, and none lighter than [`MIN_BAND_LOAD`],
//! since every cut sets up the triangles across it once more. The drawing threads take the
//! plan's bands in runs of adjacent ones ([`Claims`]), each run drawn as one band. A band draws,
//! in command order, every primitive of the batch that meets its rows, clipped to them
//! ([`draw`]): the primitives its load bands' bins list. Every pixel thus sees exactly the
//! writes of a serial run, in the same order, whatever the number of threads, whichever thread
//! draws which rows and in how many passes. A triangle is set up by each run it reaches (set-up
//! is cheap next to its pixels, and a run never waits for another), but once by a thread
//! whose runs follow one another: it carries the set-ups across ([`Carry`]). Textures are
//! read from the texture cache's snapshot, which no band writes.

use super::batch::{Batch, Kind, BANDS, BAND_ROWS, PRIM_COST};
use super::span::Simd;
use super::triangle::Triangle;
use super::{Band, TexSource};
use crate::{VRAM_HEIGHT, VRAM_WIDTH};
use std::sync::{Mutex, PoisonError};

/// Bands per thread at most: enough that a thread done early (its band lighter than estimated,
/// or the thread descheduled) finds another to take, few enough that bands seldom share a
/// triangle.
pub const BANDS_PER_THREAD: usize = 2;

/// The second band per thread is cut only while the set-up it repeats (the primitives across
/// its extra cuts, `PRIM_COST` each) is at most this fraction of the batch's load: it insures
/// against a band estimated a few per cent light, and is not worth more than that. At two
/// threads a 640×480 frame of small triangles repeats about 1.3%, at sixteen about 8.5%.
pub const SECOND_BAND_SHARE: u64 = 16;

/// The least estimated load (pixels) a band is cut for: below it, setting up the triangles
/// across one more cut costs about what another thread saves.
pub const MIN_BAND_LOAD: u64 = 16 * 1024;

/// Draws every primitive of `batch` (prepared chunks, in command order) clipped to `band`
/// (whole load bands of VRAM), in command order, sampling `src`. A band visits only the
/// primitives its load bands' bins hold (`Batch::each_meeting`), so cutting VRAM into many
/// bands does not make each of them walk every primitive. `carry` is the drawing thread's:
/// when it drew the band just above this one, the triangles crossing between them are not set
/// up again, and it keeps those crossing this band's bottom row for the band below.
pub fn draw(batch: &[Batch], band: &mut Band, src: TexSource, simd: Simd, carry: &mut Carry) {
    let from_above = carry.row.take() == Some(band.y0);
    if band.y0 >= band.y1 {
        return;
    }
    // The last band has no band below to keep set-ups for; a band that neither takes nor
    // keeps any (a serial batch: all of VRAM) runs the loop without the carry's bookkeeping.
    let keep = band.y1 < VRAM_HEIGHT as i32;
    if keep || from_above {
        visit::<true>(batch, band, src, simd, carry, from_above, keep);
    } else {
        visit::<false>(batch, band, src, simd, carry, false, false);
    }
    if keep {
        std::mem::swap(&mut carry.held, &mut carry.next);
        carry.row = Some(band.y1);
    }
}

/// [`draw`]'s pass over the entries meeting `band`: with `CARRY`, taking the set-ups held
/// when `from_above` and, when `keep`, keeping in `carry.next` those of the triangles below
/// the band. Kept out of line, an instance for each `CARRY`: the serial pass (no carry) then
/// runs fewer instructions than with both instances inlined into `draw`.
#[inline(never)]
fn visit<const CARRY: bool>(
    batch: &[Batch],
    band: &mut Band,
    src: TexSource,
    simd: Simd,
    carry: &mut Carry,
    from_above: bool,
    keep: bool,
) {
    let (y0, y1) = (band.y0, band.y1);
    let (held, next) = (&carry.held, &mut carry.next);
    let mut taken = 0;
    next.clear();
    let bins = y0 as usize / BAND_ROWS..(y1 as usize).div_ceil(BAND_ROWS);
    for (c, chunk) in batch.iter().enumerate() {
        chunk.each_meeting(bins.clone(), |e| {
            if (e.bottom as i32) <= y0 || (e.top as i32) >= y1 {
                return;
            }
            let i = e.index as usize;
            let bands = std::slice::from_mut(&mut *band);
            match e.kind {
                Kind::Triangle if CARRY => {
                    let key = (c as u64) << 32 | i as u64;
                    let kept = keep && (e.bottom as i32) > y1;
                    // Drawn in the band above too (it began above this band's first row):
                    // its set-up is the next one held, in command order as both bands visit.
                    let above = from_above && (e.top as i32) < y0;
                    let fresh;
                    let t = match held.get(taken).filter(|(k, _)| above && *k == key) {
                        Some((_, t)) => {
                            taken += 1;
                            t
                        }
                        None => {
                            debug_assert!(!above, "a triangle from the band above was not held");
                            fresh = chunk.triangles[i].setup();
                            &fresh
                        }
                    };
                    t.draw(bands, src, simd);
                    if kept {
                        next.push((key, t.clone()));
                    }
                }
                Kind::Triangle => chunk.triangles[i].setup().draw(bands, src, simd),
                Kind::Line => chunk.lines[i].draw(bands),
                Kind::Rect => chunk.rects[i].draw(bands, src, simd),
            }
        });
    }
    debug_assert!(
        !from_above || taken == held.len(),
        "every set-up held was used"
    );
}

/// What a drawing thread carries from one band to the next: the set-ups of the triangles
/// crossing the bottom row of the band it drew last, in command order, which the band right
/// below uses if the same thread draws it next. A thread whose runs of bands follow one another
/// (the usual claims, [`Claims`]) so sets up a triangle across their cut once, as one pass
/// would; any other band sets up what it draws.
#[derive(Default)]
pub struct Carry {
    /// The row the held triangles cross, if any are held.
    row: Option<i32>,
    /// (chunk << 32 | triangle index, set-up), in command order.
    held: Vec<(u64, Triangle)>,
    /// Filled while a band is drawn, then held.
    next: Vec<(u64, Triangle)>,
}

/// The bands of a plan not drawn yet, handed to the threads that draw them. A thread claims
/// the first 1/`takers` of the bands left, rounded up, and draws them in one pass, as one band
/// (any run of adjacent bands draws what its bands draw, [`draw`]). So a thread done early
/// takes part of what is left, and bands cut for more threads than draw them (a pool of fewer
/// threads than asked for, one per core: `Gpu::exec` in `lib.rs`) are drawn in about as few
/// passes as the threads need, not set up again at every cut of the plan: 16 bands on 2
/// threads in runs of 8, 4, 2, 1 and 1, on 1 thread in one. Claims are served in turn under one
/// lock, so the runs follow from the plan and `takers` alone; which thread draws which run
/// depends on timing, and neither changes a pixel.
pub struct Claims<'a> {
    /// VRAM rows `edges[0]..edges[last]`, not claimed yet, and the plan's cuts in them.
    left: Mutex<(&'a mut [u16], &'a [usize])>,
    /// The threads drawing: a claim takes 1/`takers` of the bands left.
    takers: usize,
}

impl<'a> Claims<'a> {
    /// The bands of plan `edges` (`edges[0] = 0` to `VRAM_HEIGHT`, from [`plan`]) over `vram`,
    /// to be drawn by `takers` threads.
    pub fn new(vram: &'a mut [u16], edges: &'a [usize], takers: usize) -> Self {
        let rows = edges.last().unwrap_or(&0) - edges.first().unwrap_or(&0);
        assert_eq!(
            vram.len(),
            rows * VRAM_WIDTH,
            "the plan's rows are the rows given"
        );
        Claims {
            left: Mutex::new((vram, edges)),
            takers: takers.max(1),
        }
    }

    /// The next rows to draw, or `None` when every band is claimed.
    pub fn claim(&self) -> Option<Band<'a>> {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        let (rows, edges) = &mut *left;
        let bands = edges.len().checked_sub(1).filter(|&b| b > 0)?;
        let take = bands.div_ceil(self.takers);
        let (y0, y1) = (edges[0], edges[take]);
        let (band, rest) = std::mem::take(rows).split_at_mut((y1 - y0) * VRAM_WIDTH);
        *rows = rest;
        *edges = &edges[take..];
        Some(Band::new(band, y0, y1))
    }
}

/// The bands a batch with `load` (per [`BAND_ROWS`] rows of VRAM) and `crossings` (per load
/// band, the primitives meeting it and the one above: `Batch::crossings`) is drawn in
/// on `threads` threads: the rows where each begins, then `VRAM_HEIGHT`. Each of whole load
/// bands, none lighter than [`MIN_BAND_LOAD`] (so at least one); one per thread, or
/// [`BANDS_PER_THREAD`] when the extra cuts repeat at most 1/[`SECOND_BAND_SHARE`] of the
/// load in set-up.
pub fn plan(load: &[u32], crossings: &[u32; BANDS], threads: usize) -> Vec<usize> {
    let total: u64 = load.iter().map(|&l| l as u64).sum();
    let by_load = (total / MIN_BAND_LOAD).max(1);
    let cut = |per_thread: usize| {
        let count = (threads.max(1) as u64 * per_thread as u64).min(by_load);
        edges(load, 0..VRAM_HEIGHT, count as usize)
    };
    // The set-up repeated by the primitives across a plan's cuts.
    let repeated = |at: &[usize]| -> u64 {
        let inner = &at[1..at.len() - 1];
        (inner.iter())
            .map(|&y| crossings[y / BAND_ROWS] as u64 * PRIM_COST as u64)
            .sum()
    };
    let (one, more) = (cut(1), cut(BANDS_PER_THREAD));
    if repeated(&more).saturating_sub(repeated(&one)) * SECOND_BAND_SHARE <= total {
        more
    } else {
        one
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gp0::fields::BlendMode;
    use crate::raster::batch::BANDS;
    use crate::raster::pixel::PixelMode;
    use crate::raster::rect::Rect;
    use crate::raster::triangle::{Shading, TriangleCmd, Vtx};
    use crate::raster::{Clip, Prim};
    use crate::rng::XorShift;

    /// Every blend mode, for batches whose result depends on the order of writes.
    const MODES: [BlendMode; 4] = [
        BlendMode::Average,
        BlendMode::Add,
        BlendMode::Subtract,
        BlendMode::AddQuarter,
    ];

    const ALL: Clip = Clip {
        x0: 0,
        y0: 0,
        x1: 1023,
        y1: 511,
    };

    /// Edges cover all rows once, in order, without empty bands, and hold about equal load.
    #[test]
    fn bands_are_balanced_runs_of_rows() {
        let mut load = vec![0u32; BANDS];
        for (i, l) in load.iter_mut().enumerate().take(28) {
            *l = 1000 + (i as u32 % 5) * 300;
        }
        let total: u32 = load.iter().sum();
        for count in [1, 2, 3, 5, 28, 64] {
            let at = edges(&load, 0..VRAM_HEIGHT, count);
            let bands = at.len() - 1;
            assert!(bands >= 1 && bands <= count, "{count}");
            assert_eq!((at[0], at[bands]), (0, VRAM_HEIGHT), "{count}");
            assert!(at.windows(2).all(|w| w[0] < w[1] && w[1] % BAND_ROWS == 0));
            if bands < count {
                continue;
            }
            // Each band but the last ends where its cumulative share is first reached.
            for k in 0..bands - 1 {
                let end = at[k + 1] / BAND_ROWS;
                let want = total as u64 * (k as u64 + 1);
                let upto: u32 = load[..end].iter().sum();
                assert!(
                    upto as u64 * count as u64 >= want
                        && (upto - load[end - 1]) as u64 * (count as u64) < want,
                    "{count}"
                );
            }
        }
        assert_eq!(edges(&[0; BANDS], 0..VRAM_HEIGHT, 3), [0, VRAM_HEIGHT]);
    }

    /// An untextured rectangle (x, y, w, h) of colour `rgb`, blended with `blend`.
    fn flat_rect(xywh: [i32; 4], rgb: (i32, i32, i32), blend: Option<BlendMode>) -> Prim {
        let [x, y, w, h] = xywh;
        Prim::Rect(Rect {
            x,
            y,
            w,
            h,
            rgb,
            texture: None,
            raw: false,
            flip_x: false,
            flip_y: false,
            clip: ALL,
            mode: PixelMode {
                blend,
                set_mask: 0,
                check_mask: false,
            },
        })
    }

    /// A recorded batch: 2048 small rectangles spread as the small-triangle workload's
    /// triangles are (each within 16 px of a centre in 640×480).
    fn recorded_batch() -> Batch {
        let mut rng = XorShift::new(0x5ba1_1715_0000_0018);
        let mut batch = Batch::default();
        for _ in 0..2048 {
            let (x, y) = (16 + rng.below(608) as i32, 16 + rng.below(448) as i32);
            let at = [x - 16 + rng.below(16) as i32, y - 16 + rng.below(16) as i32];
            let wh = [1 + rng.below(16) as i32, 1 + rng.below(16) as i32];
            batch.push(flat_rect([at[0], at[1], wh[0], wh[1]], (0, 0, 0), None));
        }
        batch
    }

    /// The load and the crossings of `batch`, as `draw_pending` gives them to [`plan`].
    fn estimate(batch: &Batch) -> (Vec<u32>, [u32; BANDS]) {
        let mut crossings = [0; BANDS];
        batch.add_crossings(&mut crossings);
        (batch.load.clone(), crossings)
    }

    /// The plan is a pure function of the load, the crossings and the thread count: the same
    /// on every call and as recorded, covering VRAM once, never more than two bands per thread
    /// nor more than the load holds `MIN_BAND_LOAD`s, and two per thread only while the set-up
    /// they repeat is at most 1/`SECOND_BAND_SHARE` of the load.
    #[test]
    fn the_plan_depends_on_the_estimate_and_the_thread_count_alone() {
        let (load, crossings) = estimate(&recorded_batch());
        let total: u64 = load.iter().map(|&l| l as u64).sum();
        for threads in [1, 2, 3, 5, 8, 16, 33, 64] {
            let p = plan(&load, &crossings, threads);
            for _ in 0..3 {
                let again = plan(&load.clone(), &crossings.clone(), threads);
                assert_eq!(again, p, "{threads} threads");
            }
            let bands = p.len() - 1;
            assert_eq!((p[0], p[bands]), (0, VRAM_HEIGHT), "{threads} threads");
            assert!(bands <= threads * BANDS_PER_THREAD, "{threads} threads");
            assert!(
                bands as u64 <= (total / MIN_BAND_LOAD).max(1),
                "{threads} threads"
            );
        }
        assert_eq!(
            plan(&load, &crossings, 1).len(),
            3,
            "one thread still cuts two bands to share"
        );
        assert_eq!(plan(&[0; BANDS], &[0; BANDS], 64), [0, VRAM_HEIGHT]);
        // The plans as recorded for this batch: a change to the policy shows here and must be
        // meant (eight threads on reach the load's cap of 13 bands; these primitives are at
        // most 16 rows tall, so the second band per thread stays cheap).
        let many: &[usize] = &[
            0, 48, 80, 112, 160, 192, 224, 256, 288, 320, 368, 400, 432, 512,
        ];
        let recorded: [(usize, &[usize]); 8] = [
            (1, &[0, 240, 512]),
            (2, &[0, 128, 240, 352, 512]),
            (3, &[0, 96, 160, 240, 304, 400, 512]),
            (5, &[0, 64, 96, 144, 192, 240, 288, 320, 384, 416, 512]),
            (8, many),
            (16, many),
            (33, many),
            (64, many),
        ];
        for (threads, want) in recorded {
            let got = plan(&load, &crossings, threads);
            assert_eq!(got, want, "{threads} threads");
        }
    }

    /// Claims hand out every row once, top to bottom, in runs of whole bands of the plan: the
    /// first 1/`takers` of the bands left, rounded up.
    #[test]
    fn claims_hand_out_the_plan_once_in_runs_of_its_bands() {
        let (load, crossings) = estimate(&recorded_batch());
        for threads in [1, 2, 3, 5, 8, 16, 33, 64] {
            let plan = plan(&load, &crossings, threads);
            let bands = plan.len() - 1;
            for takers in [1, 2, 3, 16] {
                let mut vram = crate::boxed_vram();
                let claims = Claims::new(&mut vram[..], &plan, takers);
                let got: Vec<(i32, i32)> = std::iter::from_fn(|| claims.claim())
                    .map(|b| (b.y0, b.y1))
                    .collect();
                let (mut at, mut left) = (0, bands);
                for &(y0, y1) in &got {
                    let cut = |y: i32| plan.iter().position(|&e| e as i32 == y).expect("a cut");
                    let (i, j) = (cut(y0), cut(y1));
                    assert_eq!(y0, at, "{threads}/{takers}: {got:?}");
                    let want = left.div_ceil(takers);
                    assert_eq!(j - i, want, "{threads}/{takers}: {got:?}");
                    (at, left) = (y1, left - want);
                }
                assert_eq!(at, VRAM_HEIGHT as i32, "{threads}/{takers}");
            }
        }
        // 16 bands on 2 threads and on 1, as the docs give them.
        let sixteen: Vec<usize> = (0..=16).map(|k| k * 32).collect();
        for (takers, want) in [(2, &[8, 4, 2, 1, 1][..]), (1, &[16])] {
            let mut vram = crate::boxed_vram();
            let claims = Claims::new(&mut vram[..], &sixteen, takers);
            let runs: Vec<i32> = std::iter::from_fn(|| claims.claim())
                .map(|b| (b.y1 - b.y0) / 32)
                .collect();
            assert_eq!(runs, want, "{takers} takers");
        }
    }

    /// Tall primitives cross every cut: the second band per thread is cut while its extra cuts
    /// repeat little set-up (few threads, wide bands) and not once they would repeat more than
    /// 1/`SECOND_BAND_SHARE` of the load (many threads, narrow bands).
    #[test]
    fn a_second_band_per_thread_only_while_its_cuts_are_cheap() {
        let mut rng = XorShift::new(0x5ba1_1715_0000_0032);
        let mut batch = Batch::default();
        for _ in 0..4096 {
            let (x, y) = (rng.below(608) as i32, rng.below(440) as i32);
            let wh = [1 + rng.below(8) as i32, 24 + rng.below(16) as i32];
            batch.push(flat_rect([x, y, wh[0], wh[1]], (0, 0, 0), None));
        }
        let (load, crossings) = estimate(&batch);
        let total: u64 = load.iter().map(|&l| l as u64).sum();
        // Every rectangle is 24 to 39 rows tall: it meets two or three load bands.
        let crossed: u32 = crossings.iter().sum();
        assert!((4096..=2 * 4096).contains(&crossed), "{crossed}");
        let repeated = |at: &[usize]| -> u64 {
            (at[1..at.len() - 1].iter())
                .map(|&y| (crossings[y / BAND_ROWS] * PRIM_COST) as u64)
                .sum()
        };
        for threads in [2, 16] {
            let p = plan(&load, &crossings, threads);
            let two = edges(&load, 0..VRAM_HEIGHT, 2 * threads);
            let one = edges(&load, 0..VRAM_HEIGHT, threads);
            let extra = repeated(&two) - repeated(&one);
            let cheap = extra * SECOND_BAND_SHARE <= total;
            assert_eq!(p, if cheap { two } else { one }, "{threads} threads");
            assert_eq!(cheap, threads == 2, "{threads} threads: {extra} of {total}");
        }
    }

    /// Calls `f` with [`tall_triangles`] as a batch of one chunk, and an empty texture source.
    fn with_tall_triangles(f: impl FnOnce(&[Batch], TexSource)) {
        let batch = tall_triangles();
        let tex = crate::boxed_vram();
        let src = TexSource {
            vram: &tex,
            cluts: &[],
        };
        f(std::slice::from_ref(&batch), src);
    }

    /// Gouraud triangles up to 120 rows tall, semi-transparent in every blend mode (so the
    /// order of writes shows), drawn by threads carrying set-ups from band to band.
    fn tall_triangles() -> Batch {
        let mut rng = XorShift::new(0xca77_1ed0_0000_0003);
        let mut batch = Batch::default();
        while batch.len() < 1500 {
            let (x, y) = (rng.below(900) as i32, rng.below(400) as i32);
            let v = std::array::from_fn(|_| Vtx {
                x: x + rng.below(120) as i32,
                y: y + rng.below(120) as i32,
                r: rng.below(256) as i32,
                g: rng.below(256) as i32,
                b: rng.below(256) as i32,
                ..Vtx::default()
            });
            let shading = Shading {
                gouraud: true,
                texture: None,
                raw: false,
                dither: batch.len() % 2 == 0,
                mode: PixelMode {
                    blend: (batch.len() % 3 != 0).then(|| MODES[batch.len() % 4]),
                    set_mask: 0,
                    check_mask: false,
                },
            };
            if let Some(t) = TriangleCmd::new(v, ALL, shading) {
                batch.push(Prim::Triangle(t));
            }
        }
        batch
    }

    /// After a band, a thread holds the set-ups of exactly the triangles crossing its bottom
    /// row, in command order; the band below draws with them what it draws without them, and
    /// a band that does not begin at that row ignores them.
    #[test]
    fn a_carry_holds_the_triangles_crossing_the_row_below() {
        with_tall_triangles(|one, src| {
            let batch = &one[0];
            let mut vram = crate::boxed_vram();
            let (upper, rest) = vram.split_at_mut(160 * VRAM_WIDTH);
            let (lower, rest) = rest.split_at_mut(64 * VRAM_WIDTH);
            let mut carry = Carry::default();
            draw(
                one,
                &mut Band::new(upper, 0, 160),
                src,
                Simd::best(),
                &mut carry,
            );
            let crossing: Vec<u64> = (batch.order.iter())
                .filter(|e| e.top < 160 && e.bottom > 160)
                .map(|e| e.index as u64)
                .collect();
            assert!(crossing.len() > 100, "{}", crossing.len());
            let held: Vec<u64> = carry.held.iter().map(|(k, _)| *k).collect();
            assert_eq!((carry.row, held), (Some(160), crossing));
            // The band below with the carry, and the same band again without one.
            let mut alone = lower.to_vec();
            draw(
                one,
                &mut Band::new(lower, 160, 224),
                src,
                Simd::best(),
                &mut carry,
            );
            assert_eq!(carry.row, Some(224));
            let fresh = &mut Carry::default();
            draw(
                one,
                &mut Band::new(&mut alone, 160, 224),
                src,
                Simd::best(),
                fresh,
            );
            assert!(
                alone == lower,
                "the carried set-ups draw what fresh ones draw"
            );
            // A band not beginning at the row held sets up its own; the last band keeps nothing.
            let mut scratch = crate::boxed_vram();
            let mut other = Carry::default();
            let upper = &mut Band::new(&mut scratch[..160 * VRAM_WIDTH], 0, 160);
            draw(one, upper, src, Simd::best(), &mut other);
            let rows = rest.len() / VRAM_WIDTH;
            let mut alone = rest.to_vec();
            draw(
                one,
                &mut Band::new(rest, 224, 224 + rows),
                src,
                Simd::best(),
                &mut other,
            );
            assert_eq!(other.row, None);
            let fresh = &mut Carry::default();
            draw(
                one,
                &mut Band::new(&mut alone, 224, 224 + rows),
                src,
                Simd::best(),
                fresh,
            );
            assert!(alone == rest, "set-ups held for another row are not used");
        });
    }

    /// Tall triangles drawn in the runs one, two and three takers claim of the plans for two,
    /// three and sixteen threads, every second run with the set-ups carried from the run above
    /// it, equal one pass.
    #[test]
    fn carried_set_ups_draw_what_one_pass_draws() {
        with_tall_triangles(|one, src| {
            let mut want = crate::boxed_vram();
            let all = &mut Band::new(&mut want[..], 0, VRAM_HEIGHT);
            draw(one, all, src, Simd::best(), &mut Carry::default());
            let (load, crossings) = estimate(&one[0]);
            for threads in [2, 3, 16] {
                let at = plan(&load, &crossings, threads);
                for takers in [1, 2, 3] {
                    // Two threads taking the runs two by two: each draws two adjacent runs
                    // (the second with the set-ups carried), then one not adjacent.
                    let mut got = crate::boxed_vram();
                    let claims = Claims::new(&mut got[..], &at, takers);
                    let mut carries = [Carry::default(), Carry::default()];
                    let (mut runs, mut carried) = (0, 0);
                    while let Some(mut band) = claims.claim() {
                        let carry = &mut carries[runs / 2 % 2];
                        carried += (carry.row == Some(band.y0)) as usize;
                        draw(one, &mut band, src, Simd::best(), carry);
                        runs += 1;
                    }
                    assert_eq!(
                        carried,
                        runs / 2,
                        "{threads}/{takers}: runs drawn with a carry"
                    );
                    if let Some(i) = want.iter().zip(got.iter()).position(|(a, b)| a != b) {
                        panic!("{threads}/{takers}: ({}, {}) differs", i % 1024, i / 1024);
                    }
                }
            }
        });
    }

    /// Overlapping semi-transparent rectangles in every blend mode (the result depends on the
    /// order of writes), drawn in the bands of every thread count's plan, equal one pass.
    #[test]
    fn bands_draw_what_one_pass_draws() {
        let mut rng = XorShift::new(0x51ab_5eed_0000_0001);
        let mut batch = Batch::default();
        for i in 0..2000 {
            let at = [rng.below(1000) as i32, rng.below(500) as i32];
            let wh = [1 + rng.below(32) as i32, 1 + rng.below(32) as i32];
            let rgb = (rng.below(256) as i32, rng.below(256) as i32, 0x80);
            let blend = (i % 5 != 0).then(|| MODES[i % 4]);
            batch.push(flat_rect([at[0], at[1], wh[0], wh[1]], rgb, blend));
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
            std::slice::from_ref(&batch),
            &mut Band::new(&mut want, 0, VRAM_HEIGHT),
            src,
            simd,
            &mut Carry::default(),
        );
        // Every thread count's plan, then bands of every width in load bands.
        let (load, crossings) = estimate(&batch);
        let plans = [2, 3, 5, 8, 16, 33, 64].map(|threads| plan(&load, &crossings, threads));
        let widths = (1..=BANDS).map(|w| {
            let mut at: Vec<usize> = (0..VRAM_HEIGHT).step_by(w * BAND_ROWS).collect();
            at.push(VRAM_HEIGHT);
            at
        });
        for at in plans.into_iter().chain(widths) {
            let mut got = start.clone();
            let mut rest = &mut got[..];
            let mut bands = Vec::new();
            for w in at.windows(2) {
                let (head, tail) = rest.split_at_mut((w[1] - w[0]) * VRAM_WIDTH);
                bands.push(Band::new(head, w[0], w[1]));
                rest = tail;
            }
            // Bands drawn bottom first: the order bands run in changes nothing.
            for band in bands.iter_mut().rev() {
                draw(
                    std::slice::from_ref(&batch),
                    band,
                    src,
                    simd,
                    &mut Carry::default(),
                );
            }
            if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                panic!("bands {at:?}: ({}, {}) differs", i % 1024, i / 1024);
            }
            // The same bands claimed in runs, as two or three threads would.
            for takers in [2, 3] {
                let mut got = start.clone();
                let claims = Claims::new(&mut got, &at, takers);
                let mut carry = Carry::default();
                while let Some(mut band) = claims.claim() {
                    draw(
                        std::slice::from_ref(&batch),
                        &mut band,
                        src,
                        simd,
                        &mut carry,
                    );
                }
                if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                    panic!("claims of {at:?}: ({}, {}) differs", i % 1024, i / 1024);
                }
            }
        }
    }
}
