//! Drawing a batch over bands of VRAM rows, in parallel, identical to one serial pass.
//!
//! A band is a run of whole VRAM rows drawn in one pass by one thread. [`plan`] cuts VRAM into
//! bands of about equal estimated work ([`Batch::load`](super::batch::Batch), [`edges`]): a
//! pure function of the batch's load estimate, the thread count and the least load a band is
//! worth ([`MIN_BAND_LOAD`]): one band per thread, fewer for a light batch. [`draw_bands`]
//! hands the bands, disjoint `&mut` runs of rows, to rayon, whose work stealing shares them
//! among the pool's threads and carries a panic in any of them to the caller. A band draws,
//! in command order, every primitive of the batch that meets its rows, clipped to them: the
//! primitives its load bands' bins list. Every pixel thus sees exactly the writes of a serial
//! run, in the same order, whatever the number of threads and whichever thread draws which
//! band. Textures are read from the texture cache's snapshot, which no band writes.

use rayon::prelude::*;

use super::batch::{Batch, Kind, BAND_ROWS};
use super::span::Simd;
use super::{Band, TexSource};
use crate::{VRAM_HEIGHT, VRAM_WIDTH};

/// The least estimated load (pixels, [`Batch::load`]) a band is cut for, and so the default of
/// [`crate::Gpu::set_parallel_min_load`]: a batch lighter than two such bands is drawn on the
/// calling thread. Below it, setting up the triangles across one more cut and waking another
/// thread cost about what that thread saves.
pub const MIN_BAND_LOAD: u64 = 32 * 1024;

/// Draws every primitive of `batch` (prepared chunks, in command order) clipped to `band`, in
/// command order, sampling `src`, in one pass on this thread. The band visits only the
/// primitives its load bands' bins hold (`Batch::meeting`), so cutting VRAM into many bands
/// does not make each of them walk every primitive.
pub fn draw(batch: &[Batch], band: &mut Band, src: TexSource, simd: Simd) {
    let rows = band.y0 as usize / BAND_ROWS..(band.y1 as usize).div_ceil(BAND_ROWS);
    let (y0, y1) = (band.y0, band.y1);
    for chunk in batch {
        let mut next = chunk.meeting(0, rows.clone());
        for g in 0..chunk.groups() {
            let mut m = next;
            next = chunk.meeting(g + 1, rows.clone());
            chunk.fetch_for(g, next, rows.clone());
            let bands = std::slice::from_mut(&mut *band);
            while m != 0 {
                let e = chunk.entry(g, m);
                m &= m - 1;
                if (e.bottom as i32) <= y0 || (e.top as i32) >= y1 {
                    continue;
                }
                let i = e.index as usize;
                match e.kind {
                    Kind::Triangle => chunk.triangles[i].setup().draw(bands, src, simd),
                    Kind::Line => chunk.lines[i].draw(bands),
                    Kind::Rect => chunk.rects[i].draw(bands, src, simd),
                }
            }
        }
    }
}

/// Runs `each` on every band of plan `edges` over `vram` (rows `edges[0]` to the last edge),
/// in parallel on the current rayon pool (the calling thread's, or the global one); a panic
/// in any band is raised here once every band is done with.
pub fn draw_bands(vram: &mut [u16], edges: &[usize], each: impl Fn(&mut Band) + Sync) {
    split(vram, edges).par_iter_mut().for_each(&each);
}

/// The bands of plan `edges` over `vram`, which holds rows `edges[0]` to the last edge.
fn split<'a>(vram: &'a mut [u16], edges: &[usize]) -> Vec<Band<'a>> {
    let rows = edges.last().unwrap_or(&0) - edges.first().unwrap_or(&0);
    assert_eq!(
        vram.len(),
        rows * VRAM_WIDTH,
        "the plan's rows are the rows given"
    );
    let mut rest = vram;
    (edges.windows(2).map(|w| {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut((w[1] - w[0]) * VRAM_WIDTH);
        rest = tail;
        Band::new(head, w[0], w[1])
    }))
    .collect()
}

/// The bands a batch with `load` (per [`BAND_ROWS`] rows of VRAM) is drawn in on `threads`
/// threads: the rows where each begins, then `VRAM_HEIGHT`. One band per thread, of whole load
/// bands and about equal load, but none lighter than `min_band` (so at least one; 0: one per
/// thread whatever the load).
pub fn plan(load: &[u32], threads: usize, min_band: u64) -> Vec<usize> {
    let total: u64 = load.iter().map(|&l| l as u64).sum();
    let by_load = total.checked_div(min_band).unwrap_or(u64::MAX);
    let count = by_load.clamp(1, threads.max(1) as u64);
    edges(load, count as usize)
}

/// Where VRAM's rows are cut into at most `count` bands of whole load bands and about equal
/// load (`load` per [`BAND_ROWS`] rows of VRAM), from 0 to `VRAM_HEIGHT`; bands holding no
/// load join their neighbours.
pub fn edges(load: &[u32], count: usize) -> Vec<usize> {
    let end = VRAM_HEIGHT / BAND_ROWS;
    let load = |band: usize| load.get(band).copied().unwrap_or(0) as u64;
    let total: u64 = (0..end).map(load).sum();
    let count = count.clamp(1, end) as u64;
    let mut out = vec![0];
    let (mut band, mut acc) = (0, 0u64);
    for k in 1..count {
        while band < end && acc * count < total * k {
            acc += load(band);
            band += 1;
        }
        if band * BAND_ROWS > *out.last().expect("starts with 0") {
            out.push(band * BAND_ROWS);
        }
    }
    if VRAM_HEIGHT > *out.last().expect("starts with 0") {
        out.push(VRAM_HEIGHT);
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
    use std::time::Duration;

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
            let at = edges(&load, count);
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
        assert_eq!(edges(&[0; BANDS], 3), [0, VRAM_HEIGHT]);
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

    /// The plan is a pure function of the load, the thread count and the least band load: the
    /// same on every call and as recorded, covering VRAM once, never more bands than threads
    /// nor than the load holds `min_band`s.
    #[test]
    fn the_plan_depends_on_the_estimate_and_the_thread_count_alone() {
        let load = recorded_batch().load;
        let total: u64 = load.iter().map(|&l| l as u64).sum();
        for min_band in [0, 4096, MIN_BAND_LOAD] {
            for threads in [1, 2, 3, 5, 8, 16, 33, 64] {
                let p = plan(&load, threads, min_band);
                for _ in 0..3 {
                    assert_eq!(
                        plan(&load.clone(), threads, min_band),
                        p,
                        "{threads} threads"
                    );
                }
                let bands = p.len() - 1;
                assert_eq!((p[0], p[bands]), (0, VRAM_HEIGHT), "{threads} threads");
                assert!(bands <= threads, "{threads} threads");
                if let Some(most) = total.checked_div(min_band) {
                    assert!(bands as u64 <= most.max(1), "{threads} threads");
                }
            }
        }
        assert_eq!(plan(&load, 1, 0), [0, VRAM_HEIGHT], "one thread, one band");
        assert_eq!(plan(&[0; BANDS], 64, 0), [0, VRAM_HEIGHT]);
        // The plans as recorded for this batch: a change to the policy shows here and must be
        // meant.
        let recorded: [(usize, u64, &[usize]); 4] = [
            (2, 0, &[0, 240, 512]),
            (3, 0, &[0, 160, 320, 512]),
            (5, 4096, &[0, 96, 192, 288, 384, 512]),
            (
                16,
                4096,
                &[
                    0, 48, 80, 96, 128, 160, 176, 208, 240, 272, 288, 320, 352, 384, 416, 432, 512,
                ],
            ),
        ];
        for (threads, min_band, want) in recorded {
            assert_eq!(plan(&load, threads, min_band), want, "{threads} threads");
        }
        // 64 threads: a band for each load band holding load, the empty ones joined to them.
        assert_eq!(plan(&load, 64, 0).len(), 29);
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
    /// order of writes shows), crossing the cuts between bands.
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

    /// Tall triangles across the cuts, drawn by pools of two and three threads in the bands of
    /// the plans for two, three and sixteen threads, equal one pass.
    #[test]
    fn tall_triangles_drawn_in_bands_on_a_pool_equal_one_pass() {
        with_tall_triangles(|one, src| {
            let simd = Simd::best();
            let mut want = crate::boxed_vram();
            draw(
                one,
                &mut Band::new(&mut want[..], 0, VRAM_HEIGHT),
                src,
                simd,
            );
            for threads in [2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                let pool = pool.expect("a pool");
                for cut_for in [2, 3, 16] {
                    let at = plan(&one[0].load, cut_for, 0);
                    assert_eq!(at.len(), cut_for + 1, "every band holds load");
                    let mut got = crate::boxed_vram();
                    pool.install(|| {
                        draw_bands(&mut got[..], &at, |band| draw(one, band, src, simd))
                    });
                    if let Some(i) = want.iter().zip(got.iter()).position(|(a, b)| a != b) {
                        let (x, y) = (i % 1024, i / 1024);
                        panic!("{threads} threads, plan for {cut_for}: ({x}, {y}) differs");
                    }
                }
            }
        });
    }

    /// A panic in a band, on whichever thread draws it, reaches the caller of `draw_bands` once
    /// the other bands are done, and the pool draws again afterwards. (On a thread of its own
    /// with a time limit, so that a hang fails the test rather than stalls it.)
    #[test]
    fn a_panic_in_a_band_reaches_the_caller() {
        let rows = [4, 200, 400, 508];
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build();
            let pool = pool.expect("a pool");
            let edges: Vec<usize> = (0..=8).map(|k| k * 64).collect();
            let mut vram = crate::boxed_vram();
            let mut caught = Vec::new();
            for row in rows {
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pool.install(|| {
                        draw_bands(&mut vram[..], &edges, |band| {
                            if (band.y0..band.y1).contains(&row) {
                                panic!("injected in the band drawing row {row}");
                            }
                            band.row(band.y0).fill(1);
                        })
                    })
                }));
                let msg = got.expect_err("the panic is raised on the caller");
                caught.push(msg.downcast_ref::<String>().cloned().unwrap_or_default());
            }
            pool.install(|| draw_bands(&mut vram[..], &edges, |band| band.row(band.y0).fill(2)));
            let _ = tx.send((caught, vram[448 * VRAM_WIDTH]));
        });
        let got = rx.recv_timeout(Duration::from_secs(60));
        let (caught, after) = got.expect("draw_bands returned within the time limit");
        let want = rows.map(|row| format!("injected in the band drawing row {row}"));
        assert_eq!(caught, want);
        assert_eq!(after, 2, "the pool draws after a panic");
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
        );
        // Every thread count's plan, then bands of every width in load bands.
        let plans = [2, 3, 5, 8, 16, 33, 64].map(|threads| plan(&batch.load, threads, 0));
        let widths = (1..=BANDS).map(|w| {
            let mut at: Vec<usize> = (0..VRAM_HEIGHT).step_by(w * BAND_ROWS).collect();
            at.push(VRAM_HEIGHT);
            at
        });
        for at in plans.into_iter().chain(widths) {
            let mut got = start.clone();
            // Bands drawn bottom first: the order bands run in changes nothing.
            for band in split(&mut got, &at).iter_mut().rev() {
                draw(std::slice::from_ref(&batch), band, src, simd);
            }
            if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                panic!("bands {at:?}: ({}, {}) differs", i % 1024, i / 1024);
            }
            // The same bands drawn by pools of two and three threads.
            for threads in [2, 3] {
                let mut got = start.clone();
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                pool.expect("a pool").install(|| {
                    draw_bands(&mut got, &at, |band| {
                        draw(std::slice::from_ref(&batch), band, src, simd)
                    })
                });
                if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                    panic!(
                        "{threads} threads, bands {at:?}: ({}, {}) differs",
                        i % 1024,
                        i / 1024
                    );
                }
            }
        }
    }
}
