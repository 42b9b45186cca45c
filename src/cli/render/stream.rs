//! Long frame ranges in bounded memory: frames are rendered in parallel a chunk at a time and
//! handed on in order, so a GIF or sheet of 10,000 frames holds a few frames, not all of them.

use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use rayon::prelude::*;

use psxrender::output::AtomicFile;
use psxrender::render::Frame;
use psxrender::sheet::FPS;

use super::super::write_failed;

/// Frames rendered per worker thread in one chunk: enough to keep every thread busy between
/// the ordered hand-offs, few enough that the peak stays a handful of frames.
const PER_THREAD: usize = 4;

/// Renders item `i` of `0..count` with `make(state, i)` on `pool` and passes each result to
/// `take(i, value)` in order, on the calling thread. Chunks overlap: while `take` consumes one
/// chunk, the pool renders the next, so at most two chunks of results are held. States come
/// from `init()` and are reused from chunk to chunk (at most one per item in flight). Stops at
/// the first error.
pub(super) fn in_order<S, T, E>(
    pool: &rayon::ThreadPool,
    count: u32,
    init: impl Fn() -> S + Sync,
    make: impl Fn(&mut S, u32) -> Result<T, E> + Sync,
    mut take: impl FnMut(u32, T) -> Result<(), E>,
) -> Result<(), E>
where
    S: Send,
    T: Send,
    E: Send,
{
    let chunk = (pool.current_num_threads() * PER_THREAD).max(1) as u32;
    let states: Mutex<Vec<S>> = Mutex::new(Vec::new());
    let render = |range: Range<u32>| -> Vec<Result<T, E>> {
        pool.install(|| {
            range
                .into_par_iter()
                .map(|i| {
                    let popped = states.lock().ok().and_then(|mut v| v.pop());
                    let mut state = popped.unwrap_or_else(&init);
                    let r = make(&mut state, i);
                    if let Ok(mut v) = states.lock() {
                        v.push(state);
                    }
                    r
                })
                .collect()
        })
    };
    let chunk_at = |start: u32| start..start.saturating_add(chunk).min(count);
    let mut current = chunk_at(0);
    let mut done = render(current.clone());
    while !current.is_empty() {
        let next = chunk_at(current.end);
        let (rendered, taken) = std::thread::scope(|s| {
            let ahead = (!next.is_empty()).then(|| s.spawn(|| render(next.clone())));
            let mut taken = Ok(());
            for (i, r) in current.clone().zip(done) {
                taken = r.and_then(|v| take(i, v));
                if taken.is_err() {
                    break;
                }
            }
            let rendered = ahead.map_or_else(Vec::new, |h| {
                h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
            });
            (rendered, taken)
        });
        taken?;
        done = rendered;
        current = next;
    }
    Ok(())
}

/// How long GIF frame `n` (from 0) is shown, in the GIF's 1/100 s: frame boundaries at
/// `n/FPS` seconds rounded to the grid, so at 30 fps delays run 3, 4, 3, 3, 4, 3... and 30
/// frames last exactly one second (a flat 3/100 s would play at 33.3 fps).
pub(super) fn gif_delay_cs(n: u32) -> u32 {
    let at = |k: u64| (k * 100 + u64::from(FPS) / 2) / u64::from(FPS);
    (at(u64::from(n) + 1) - at(u64::from(n))) as u32
}

/// Writes a looping 30 fps GIF to `out`, whole or not at all. `feed` is given the sink that
/// encodes one frame (with `--bg none`, alpha 0 becomes the GIF's transparent colour) and
/// calls it for every frame in order.
pub(super) fn write_gif(
    out: &Path,
    feed: impl FnOnce(&mut dyn FnMut(&Frame) -> Result<(), ExitCode>) -> Result<(), ExitCode>,
) -> Result<(), ExitCode> {
    use image::codecs::gif::{GifEncoder, Repeat};
    let mut file = AtomicFile::create(out).map_err(|e| write_failed(out, e))?;
    {
        let mut enc = GifEncoder::new_with_speed(&mut file, 10);
        enc.set_repeat(Repeat::Infinite)
            .map_err(|e| write_failed(out, e))?;
        let mut n = 0;
        feed(&mut |f: &Frame| {
            let buf = image::RgbaImage::from_raw(f.width, f.height, f.rgba())
                .ok_or_else(|| write_failed(out, "frame size does not match its pixels"))?;
            let delay = image::Delay::from_numer_denom_ms(gif_delay_cs(n) * 10, 1);
            n += 1;
            enc.encode_frame(image::Frame::from_parts(buf, 0, 0, delay))
                .map_err(|e| write_failed(out, e))
        })?;
    }
    file.commit().map_err(|e| write_failed(out, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gif_delays_make_thirty_frames_last_one_second() {
        let d: Vec<u32> = (0..30).map(gif_delay_cs).collect();
        assert_eq!(&d[..6], [3, 4, 3, 3, 4, 3]);
        assert_eq!(d.iter().sum::<u32>(), 100);
        assert_eq!((0..3000).map(gif_delay_cs).sum::<u32>(), 10_000);
    }

    #[test]
    fn hands_on_every_item_in_order_and_stops_at_an_error() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut seen = Vec::new();
        let r: Result<(), ()> = in_order(
            &pool,
            50,
            || (),
            |_, i| Ok(i * 2),
            |i, v| {
                seen.push((i, v));
                Ok(())
            },
        );
        assert!(r.is_ok());
        assert_eq!(seen, (0..50).map(|i| (i, i * 2)).collect::<Vec<_>>());
        let mut taken = 0;
        let r = in_order(
            &pool,
            50,
            || (),
            |_, i| if i == 30 { Err(i) } else { Ok(i) },
            |_, _| {
                taken += 1;
                Ok(())
            },
        );
        assert_eq!((r, taken), (Err(30), 30));
    }

    #[test]
    fn holds_at_most_two_chunks_and_reuses_states() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let chunk = 2 * PER_THREAD;
        let (live, peak, states) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        let r: Result<(), ()> = in_order(
            &pool,
            1000,
            || states.fetch_add(1, SeqCst),
            |_, i| {
                peak.fetch_max(live.fetch_add(1, SeqCst) + 1, SeqCst);
                Ok(vec![i; 16])
            },
            |_, _| {
                live.fetch_sub(1, SeqCst);
                Ok(())
            },
        );
        assert!(r.is_ok());
        let peak = peak.load(SeqCst);
        assert!(peak <= 2 * chunk, "{peak} results held, chunks of {chunk}");
        // One state per worker thread, reused by every chunk.
        assert!(states.load(SeqCst) <= 2, "{} states", states.load(SeqCst));
    }
}
