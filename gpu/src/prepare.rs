//! Drawing packets, queued in command order by the front end, turned into primitives.
//!
//! The front end ([`Queue`]) does only what must follow command order and is cheap: it copies
//! each drawing packet's words and notes the drawing state it runs under (its draw mode and
//! texture-cache epoch, and a [`Snap`] of the rest, pushed only when that has changed since
//! the last one used). Everything else a primitive needs
//! before it is drawn — decoding, placing vertices, culling, the texture it samples, the rows
//! and tiles it may draw, the load estimate — depends only on the packet and its snap, so
//! [`prepare`] does it for slices of the queue on any thread ([`prepare_all`] in parallel
//! chunks; [`Preparing`] hands each chunk to the serial scan as soon as it is ready). Texture
//! look-ups that depend on earlier primitives (what the batch has drawn, the CLUT cache) are
//! left to the serial scan of `canvas.rs` as [`Look`]s.

use std::ops::Range;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use crate::gp0::decode::{decode, Gp0Command, PolyFlags, RawVertex, RectSize};
use crate::gp0::fields::{Clut, ColorWord, TexPage};
use crate::raster::batch::{Batch, Look};
use crate::raster::line::Line;
use crate::raster::rect::Rect;
use crate::raster::texcache::{Sample, UvBounds};
use crate::raster::texture::Texture;
use crate::raster::triangle::{Shading, TriangleCmd, Vtx};
use crate::raster::Prim;
use crate::state::{wrap_shift, DrawState};

/// Queued packets per chunk prepared on one thread: large enough that a chunk's bookkeeping
/// is small next to its packets, small enough that a batch of [`crate::raster::batch::MAX_BATCH`]
/// splits into several.
pub const CHUNK: usize = 256;

/// The fewest packets the last chunks of a queue are halved down to ([`chunks`]).
pub const LAST_CHUNK: usize = 32;

/// The chunks a queue of `len` packets is prepared in, in command order: [`CHUNK`] packets
/// each, except the last `2 * CHUNK` or fewer, which are halved again and again while more
/// than `2 * LAST_CHUNK` are left. Threads preparing a queue together ([`Preparing`]) then
/// run out of chunks at about the same time, rather than one starting a whole chunk as the
/// others finish while the serial scan waits for it.
pub fn chunks(len: usize) -> impl Iterator<Item = Range<usize>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let left = len - at;
        let size = if left > 2 * CHUNK {
            CHUNK
        } else if left > 2 * LAST_CHUNK {
            left / 2
        } else {
            left
        };
        at += size;
        (size > 0).then(|| at - size..at)
    })
}

/// The drawing state a queued packet runs under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snap {
    /// GP0(E1h)–GP0(E6h), the draw mode as this packet's texture page left it.
    pub state: DrawState,
    /// GP1(09h): whether E1h bit 11 may disable textures.
    pub allow_texture_disable: bool,
    /// How many times a drawing-mode change (GP0(E1h), a polygon's page word) has emptied
    /// the texture cache: the scan empties it, in command order, where this changes.
    pub cache_epoch: u32,
}

impl Snap {
    fn textures_disabled(&self) -> bool {
        self.allow_texture_disable && self.state.draw_mode.texture_disable()
    }
}

/// One queued drawing packet: its words are `Queue::words[at..at + len]`; it runs under
/// `Queue::snaps[snap]` with its own draw mode and texture cache epoch ([`Queue::push`]).
#[derive(Clone, Copy, Debug)]
pub struct Item {
    at: u32,
    snap: u32,
    epoch: u32,
    mode: TexPage,
    len: u16,
}

/// Drawing packets in command order, not yet prepared, and the states they run under.
#[derive(Debug, Default)]
pub struct Queue {
    words: Vec<u32>,
    items: Vec<Item>,
    snaps: Vec<Snap>,
    /// The state has changed since the last snap pushed.
    stale: bool,
}

impl Queue {
    /// Packets queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No packet is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The drawing state other than the draw mode has changed: the next packet needs a new
    /// snap.
    #[inline]
    pub fn state_changed(&mut self) {
        self.stale = true;
    }

    /// Queues a drawing packet (polygon, line or polyline's first segment, rectangle) to run
    /// under `snap`. Its draw mode and texture cache epoch are kept with the packet, since a
    /// textured polygon's page changes them from one packet to the next; the rest of the state
    /// is stored again only after [`Queue::state_changed`].
    #[inline]
    pub fn push(&mut self, words: &[u32], snap: &Snap) {
        self.take_snap(|| *snap);
        self.push_item(0, words.len(), snap.state.draw_mode, snap.cache_epoch);
        self.append(words);
    }

    /// Stores `snap()`, the state the packets queued next run under, if the state has changed
    /// since the last snap stored (or none is).
    #[inline]
    pub fn take_snap(&mut self, snap: impl FnOnce() -> Snap) {
        if self.stale || self.snaps.is_empty() {
            self.snaps.push(snap());
            self.stale = false;
        }
    }

    /// Queues a packet of `len` words under the last snap taken, with draw mode `mode` and
    /// texture cache epoch `epoch`: its words are those [`Queue::append`] will copy `offset`
    /// words after the words queued so far. So a run of packets lying one after another in
    /// the input is copied in one go.
    #[inline]
    pub fn push_item(&mut self, offset: usize, len: usize, mode: TexPage, epoch: u32) {
        debug_assert!(!self.snaps.is_empty(), "a snap is taken first");
        self.items.push(Item {
            at: (self.words.len() + offset) as u32,
            snap: (self.snaps.len() - 1) as u32,
            epoch,
            mode,
            len: len as u16,
        });
    }

    /// Copies the words of the packets pushed since the last call.
    #[inline]
    pub fn append(&mut self, words: &[u32]) {
        self.words.extend_from_slice(words);
    }

    /// The drawing state `item` runs under.
    #[inline]
    fn snap(&self, item: &Item) -> Snap {
        let mut snap = self.snaps[item.snap as usize];
        snap.state.draw_mode = item.mode;
        snap.cache_epoch = item.epoch;
        snap
    }

    /// Queues one segment of a polyline as a line packet of its own.
    pub fn push_segment(
        &mut self,
        flags: PolyFlags,
        from: &RawVertex,
        to: &RawVertex,
        snap: &Snap,
    ) {
        let op = 0x40 | (flags.gouraud as u32) << 4 | (flags.semi as u32) << 1;
        let first = op << 24 | (from.color.0 & 0xff_ffff);
        if flags.gouraud {
            self.push(&[first, from.pos.0, to.color.0, to.pos.0], snap)
        } else {
            self.push(&[first, from.pos.0, to.pos.0], snap)
        }
    }

    /// Empties the queue, keeping its allocations; the next packet takes a new snap.
    pub fn clear(&mut self) {
        self.words.clear();
        self.items.clear();
        self.snaps.clear();
        self.stale = true;
    }
}

/// Prepares every queued packet into a batch for each of its [`chunks`], in command order: on
/// the current rayon pool when `parallel`, else here. The result is the same.
pub fn prepare_all(queue: &Queue, parallel: bool, spare: &mut Vec<Batch>) -> Vec<Batch> {
    let chunks: Vec<Range<usize>> = chunks(queue.len()).collect();
    let mut out: Vec<Batch> = std::iter::repeat_with(|| spare.pop().unwrap_or_default())
        .take(chunks.len())
        .collect();
    let each = |(b, r): (&mut Batch, Range<usize>)| prepare(b, queue, &queue.items[r]);
    if parallel && chunks.len() > 1 {
        out.par_iter_mut().zip(chunks).for_each(each);
    } else {
        out.iter_mut().zip(chunks).for_each(each);
    }
    out
}

/// A queue's [`chunks`] being prepared by any number of threads, each claiming the next chunk
/// in command order, and taken in command order by one thread that scans them
/// ([`Preparing::take`]) as each is ready: the scan, which is serial, runs while the chunks
/// after it are prepared.
pub struct Preparing<'q> {
    queue: &'q Queue,
    chunks: Vec<Range<usize>>,
    progress: Mutex<Progress>,
    /// Wakes the scanning thread while it sleeps: a chunk is ready, or a thread preparing one
    /// panicked.
    ready: Condvar,
    /// A chunk whose preparing panics: the tests' injected fault.
    #[cfg(test)]
    fault: Option<usize>,
    /// A chunk whose preparing, once done, waits until the scanning thread sleeps: the tests'
    /// way to make it sleep and be woken.
    #[cfg(test)]
    hold: Option<usize>,
}

struct Progress {
    /// Chunks claimed so far: chunks `0..claimed`, claimed in order.
    claimed: usize,
    /// Chunks prepared and not yet taken.
    done: Vec<Option<Batch>>,
    /// Batches to prepare chunks into (their allocations are reused).
    empty: Vec<Batch>,
    /// A thread panicked while preparing a chunk, which so never comes.
    failed: bool,
    /// The scanning thread sleeps on `ready`. A chunk done wakes it only then: std's condition
    /// variable (a futex on Linux) makes a system call on every notify, whether or not a thread
    /// sleeps, and this one mostly does not (it prepares chunks itself while the next is not
    /// ready).
    asleep: bool,
}

impl<'q> Preparing<'q> {
    /// The chunks of `queue`, none claimed yet; prepared into batches from `spare`.
    pub fn new(queue: &'q Queue, spare: &mut Vec<Batch>) -> Self {
        let chunks: Vec<Range<usize>> = chunks(queue.len()).collect();
        let empty = spare.split_off(spare.len().saturating_sub(chunks.len()));
        Preparing {
            queue,
            progress: Mutex::new(Progress {
                claimed: 0,
                done: std::iter::repeat_with(|| None).take(chunks.len()).collect(),
                empty,
                failed: false,
                asleep: false,
            }),
            chunks,
            ready: Condvar::new(),
            #[cfg(test)]
            fault: None,
            #[cfg(test)]
            hold: None,
        }
    }

    /// The number of chunks.
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Prepares chunks until none is left to claim (a helping thread's work).
    pub fn help(&self) {
        while self.prepare_next() {}
    }

    /// Claims the next chunk and prepares it; false if every chunk is claimed.
    fn prepare_next(&self) -> bool {
        let (i, mut batch) = {
            let mut p = self.progress();
            if p.claimed == self.chunks.len() {
                return false;
            }
            p.claimed += 1;
            (p.claimed - 1, p.empty.pop().unwrap_or_default())
        };
        let claimed = Claimed(self);
        #[cfg(test)]
        if self.fault == Some(i) {
            panic!("injected while preparing chunk {i}");
        }
        let items = &self.queue.items[self.chunks[i].clone()];
        prepare(&mut batch, self.queue, items);
        drop(claimed);
        #[cfg(test)]
        while self.hold == Some(i) && !self.progress().asleep {
            std::thread::yield_now();
        }
        let mut p = self.progress();
        p.done[i] = Some(batch);
        if p.asleep {
            drop(p);
            self.ready.notify_all();
        }
        true
    }

    /// Chunk `k`, prepared: taken by the scanning thread for `k` = 0, 1, 2, ... in turn. While
    /// it is not ready, this thread prepares the next unclaimed chunk; once all are claimed, it
    /// sleeps until the thread preparing chunk `k` is done.
    ///
    /// # Panics
    /// If a thread preparing a chunk panicked: that chunk will never be ready. (The scope the
    /// threads run in raises one of the two panics.)
    pub fn take(&self, k: usize) -> Batch {
        let mut p = self.progress();
        loop {
            if let Some(b) = p.done[k].take() {
                return b;
            }
            assert!(!p.failed, "a chunk's preparing panicked on another thread");
            if p.claimed < self.chunks.len() {
                drop(p);
                self.prepare_next();
                p = self.progress();
            } else {
                p.asleep = true;
                p = self.ready.wait(p).unwrap_or_else(PoisonError::into_inner);
                p.asleep = false;
            }
        }
    }
}

/// A chunk being prepared: if preparing it panics, the scanning thread is told rather than
/// left waiting for it.
struct Claimed<'a, 'q>(&'a Preparing<'q>);

impl Drop for Claimed<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.progress().failed = true;
            self.0.ready.notify_all();
        }
    }
}

/// Prepares `items` of `queue` into `batch` (empty), in order.
pub fn prepare(batch: &mut Batch, queue: &Queue, items: &[Item]) {
    batch.reserve(items.len());
    for it in items {
        let words = &queue.words[it.at as usize..][..it.len as usize];
        let snap = &queue.snap(it);
        batch.mark_epoch(snap.cache_epoch);
        match decode(words) {
            Gp0Command::Polygon { flags, verts } => {
                polygon(batch, snap, flags, &verts);
            }
            Gp0Command::Line { flags, verts } if verts.len() >= 2 => {
                line(batch, snap, flags, &verts[0], &verts[1])
            }
            Gp0Command::Rect {
                flags,
                size,
                vert,
                wh,
            } => rect(batch, snap, flags, size, &vert, wh),
            _ => {}
        }
    }
}

/// GP0(20h–3Fh): a triangle, or a quad as triangles v0 v1 v2 and v1 v2 v3. Returns which
/// of the (one or two) triangles were queued, the others culled.
// Verified: hwtests phases 1 (quad split), 4, 8.
pub fn polygon(
    batch: &mut Batch,
    snap: &Snap,
    flags: PolyFlags,
    raw: &[RawVertex; 4],
) -> [bool; 2] {
    let s = &snap.state;
    let mut texture = None;
    if flags.textured && !snap.textures_disabled() {
        let uvs = raw.map(|r| (r.tex.u(), r.tex.v()));
        let uv = UvBounds::polygon(&uvs[..3 + flags.quad as usize]);
        texture = Some(look(batch, snap, Clut(raw[0].tex.attr()), uv));
    }
    let raw_tex = flags.raw && texture.is_some();
    let dither = s.draw_mode.dither() && (flags.gouraud || (texture.is_some() && !raw_tex));
    let shading = Shading {
        gouraud: flags.gouraud,
        raw: raw_tex,
        dither,
        mode: s.pixel_mode(flags.semi),
        texture,
    };
    let v: [Vtx; 4] = std::array::from_fn(|i| s.vtx(&raw[i]));
    let clip = s.clip();
    let mut queued = [false; 2];
    for k in 0..1 + flags.quad as usize {
        let tri = wrapped([v[k], v[k + 1], v[k + 2]]);
        if let Some(t) = TriangleCmd::new(tri, clip, shading) {
            push(batch, Prim::Triangle(t), texture.is_some());
            queued[k] = true;
        }
    }
    queued
}

/// GP0(40h–5Fh): a line, or one segment of a polyline.
pub fn line(batch: &mut Batch, snap: &Snap, flags: PolyFlags, a: &RawVertex, b: &RawVertex) {
    let s = &snap.state;
    // Verified: gpu-images/lines (flat lines dither too).
    let dither = s.draw_mode.dither();
    let [va, vb] = wrapped([s.vtx(a), s.vtx(b)]);
    let mode = s.pixel_mode(flags.semi);
    if let Some(l) = Line::new(va, vb, flags.gouraud, dither, s.clip(), mode) {
        push(batch, Prim::Line(l), false);
    }
}

/// GP0(60h–7Fh): a rectangle.
pub fn rect(
    batch: &mut Batch,
    snap: &Snap,
    flags: PolyFlags,
    size: RectSize,
    vert: &RawVertex,
    wh: u32,
) {
    let (w, h) = size.size(wh);
    if w == 0 || h == 0 {
        return;
    }
    let s = &snap.state;
    let (x, y) = s.place(vert.pos);
    let (x, y) = (x + wrap_shift(x), y + wrap_shift(y));
    let mode = s.draw_mode;
    let texture = (flags.textured && !snap.textures_disabled()).then(|| {
        let (u, v) = (vert.tex.u(), vert.tex.v());
        let uv = UvBounds::rect(u, v, (w, h), (mode.flip_x(), mode.flip_y()));
        (look(batch, snap, Clut(vert.tex.attr()), uv), u, v)
    });
    let c: ColorWord = vert.color;
    let r = Rect {
        x,
        y,
        w,
        h,
        rgb: (c.r() as i32, c.g() as i32, c.b() as i32),
        raw: flags.raw,
        texture,
        flip_x: mode.flip_x(),
        flip_y: mode.flip_y(),
        clip: s.clip(),
        mode: s.pixel_mode(flags.semi),
    };
    let textured = r.texture.is_some();
    push(batch, Prim::Rect(r), textured);
}

/// `v` moved where its pixels land ([`wrap_shift`]).
fn wrapped<const N: usize>(mut v: [Vtx; N]) -> [Vtx; N] {
    let dx = wrap_shift(v.iter().map(|p| p.x).min().unwrap_or(0));
    let dy = wrap_shift(v.iter().map(|p| p.y).min().unwrap_or(0));
    for p in &mut v {
        (p.x, p.y) = (p.x + dx, p.y + dy);
    }
    v
}

/// Notes the look-up of a textured packet whose entries come next, and returns its texture
/// with its CLUT entries in place in VRAM (the scan changes that if the CLUT cache says
/// otherwise).
fn look(batch: &mut Batch, snap: &Snap, clut: Clut, uv: UvBounds) -> Texture {
    let s = &snap.state;
    let sample = Sample::new(s.draw_mode, clut, s.tex_window, uv);
    let at = sample.clut_in_place();
    batch.looks.push(Look {
        at: batch.len() as u32,
        count: 0,
        sample,
    });
    Texture::new(s.draw_mode, s.tex_window, at)
}

/// Queues `p`; `textured`: it belongs to the last look-up.
fn push(batch: &mut Batch, p: Prim, textured: bool) {
    if textured {
        if let Some(l) = batch.looks.last_mut() {
            l.count += 1;
        }
    }
    batch.push(p);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue of `n` flat triangles over the whole of VRAM, several to a row of chunks.
    fn triangles(n: u32) -> Queue {
        let mut q = Queue::default();
        for i in 0..n {
            let (x, y) = (i * 37 % 1000, i * 53 % 500);
            let xy = |dx: u32, dy: u32| (y + dy) << 16 | (x + dx);
            let snap = || Snap {
                state: DrawState {
                    area_br: 1023 | 511 << 10,
                    ..DrawState::default()
                },
                ..Snap::default()
            };
            q.push(&[0x2000_00ff, xy(0, 0), xy(20, 3), xy(5, 17)], &snap());
        }
        q
    }

    /// A queue's chunks cover it in order, whole chunks first, then halving down to
    /// `LAST_CHUNK`; a queue of one full batch ends in chunks of 256, 128, 64 and 64.
    #[test]
    fn chunks_cover_the_queue_and_shrink_at_its_end() {
        for len in (0..3000).chain([4000, 4096]) {
            let c: Vec<Range<usize>> = chunks(len).collect();
            assert_eq!(c.first().map_or(0, |r| r.start), 0, "{len}");
            assert_eq!(c.last().map_or(0, |r| r.end), len, "{len}");
            assert!(c.windows(2).all(|w| w[0].end == w[1].start), "{len}");
            assert!(c.iter().all(|r| r.len() <= CHUNK), "{len}");
            assert!(c.iter().all(|r| r.len() >= LAST_CHUNK.min(len)), "{len}");
            assert!(c.windows(2).all(|w| w[1].len() <= w[0].len() + 1), "{len}");
        }
        let sizes: Vec<usize> = chunks(crate::raster::batch::MAX_BATCH)
            .map(|r| r.len())
            .collect();
        assert_eq!(sizes[..14], [CHUNK; 14]);
        assert_eq!(sizes[14..], [256, 128, 64, 64]);
    }

    /// Whatever threads help, the scanning thread takes each chunk as `prepare_all` prepares
    /// it, in command order.
    #[test]
    fn preparing_hands_out_in_order_what_prepare_all_prepares() {
        let q = triangles(5 * CHUNK as u32 + 7);
        let want: Vec<String> = (prepare_all(&q, false, &mut Vec::new()).iter())
            .map(|b| format!("{b:?}"))
            .collect();
        // 4 × 256, then 131, 66, 33 and 33.
        assert_eq!(want.len(), 8);
        for helpers in 0..4 {
            let mut spare: Vec<Batch> = std::iter::repeat_with(Batch::default).take(2).collect();
            let preparing = Preparing::new(&q, &mut spare);
            assert!(spare.is_empty());
            let got: Vec<String> = std::thread::scope(|s| {
                for _ in 0..helpers {
                    s.spawn(|| preparing.help());
                }
                (0..preparing.chunks())
                    .map(|k| format!("{:?}", preparing.take(k)))
                    .collect()
            });
            assert_eq!(got, want, "{helpers} helpers");
        }
    }

    /// A chunk prepared by a helper while the scanning thread sleeps for it wakes that thread
    /// (on a thread of its own, so that a scan left asleep fails the test rather than hangs it).
    #[test]
    fn a_chunk_done_wakes_the_scanning_thread_asleep_for_it() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let q = triangles(4 * CHUNK as u32);
            let mut preparing = Preparing::new(&q, &mut Vec::new());
            // The helper claims chunk 0 and, once it is prepared, holds it until the scanning
            // thread, having prepared every other chunk, sleeps for it.
            preparing.hold = Some(0);
            let taken = std::thread::scope(|s| {
                s.spawn(|| preparing.help());
                while preparing.progress().claimed == 0 {
                    std::thread::yield_now();
                }
                (0..preparing.chunks())
                    .map(|k| preparing.take(k).len())
                    .sum::<usize>()
            });
            let _ = tx.send(taken);
        });
        let taken = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(taken, Ok(4 * CHUNK), "the scanning thread was left asleep");
    }

    /// A panic while preparing a chunk stops the scanning thread with a panic, whether the
    /// scanning thread or a helper prepared it: it never waits for a chunk that will not come.
    /// Cases: no helper; one helper done (its panic included) before the scan starts, so the
    /// chunk is certainly a helper's; two helpers beside the scan. (Each runs on a thread of its
    /// own, so that a scanning thread left waiting fails the test rather than hangs it.)
    #[test]
    fn a_panic_while_preparing_reaches_the_scanning_thread() {
        for helpers in 0..3 {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let q = triangles(4 * CHUNK as u32);
                let mut preparing = Preparing::new(&q, &mut Vec::new());
                preparing.fault = Some(2);
                let help = || {
                    let _ = std::panic::catch_unwind(|| preparing.help());
                };
                let scanned = std::thread::scope(|s| {
                    if helpers == 1 {
                        s.spawn(help).join().expect("the helper's panic is caught");
                    } else {
                        for _ in 0..helpers {
                            s.spawn(help);
                        }
                    }
                    std::panic::catch_unwind(|| {
                        (0..preparing.chunks()).for_each(|k| drop(preparing.take(k)))
                    })
                });
                let _ = tx.send(scanned.is_err());
            });
            let panicked = rx.recv_timeout(std::time::Duration::from_secs(60));
            assert_eq!(
                panicked,
                Ok(true),
                "{helpers} helpers: the scanning thread waited on"
            );
        }
    }
}
