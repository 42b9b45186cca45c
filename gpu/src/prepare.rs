//! Drawing packets, queued in command order by the front end, turned into primitives.
//!
//! The front end ([`Queue`]) does only what must follow command order and is cheap: it copies
//! each drawing packet's words and notes the drawing state it runs under (its draw mode and
//! texture-cache epoch, and a [`Snap`] of the rest, pushed only when that has changed since
//! the last one used). Everything else a primitive needs
//! before it is drawn — decoding, placing vertices, culling, the texture it samples, the rows
//! and tiles it may draw, the load estimate — depends only on the packet and its snap, so
//! [`prepare`] does it for slices of the queue on any thread ([`prepare_all`]: rayon over
//! chunks of [`CHUNK`] packets). Texture look-ups that depend on earlier primitives (what the
//! batch has drawn, the CLUT cache) are left to the serial scan in command order
//! ([`TexCache::scan`](crate::raster::texcache::TexCache::scan)) as [`Look`]s.

use std::ops::Range;

use rayon::prelude::*;

use crate::gp0::decode::{decode, Gp0Command, PolyFlags, RawVertex, RectSize};
use crate::gp0::fields::{Clut, ColorWord, TexPage};
use crate::raster::batch::{Batch, Look};
use crate::raster::line::Line;
use crate::raster::rect::Rect;
use crate::raster::sample::{Sample, UvBounds};
use crate::raster::texture::Texture;
use crate::raster::triangle::{Shading, TriangleCmd, Vtx};
use crate::raster::Prim;
use crate::state::{wrap_shift, DrawState};

/// Queued packets per chunk prepared as one task: large enough that a chunk's bookkeeping (a
/// batch of its own, a task for rayon) is small next to its packets, small enough that a
/// queue of [`crate::raster::batch::MAX_BATCH`] splits into enough for rayon to share among
/// threads. A queue of one chunk is prepared on the calling thread.
pub const CHUNK: usize = 256;

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

/// Prepares the queued packets of chunks `chunks` (of [`CHUNK`] packets; clamped to the
/// queue) into a batch each, in command order, the batches taken from `spare` (for their
/// allocations): on the current rayon pool when `parallel`, else here. The result is the same.
pub fn prepare_all(
    queue: &Queue,
    chunks: Range<usize>,
    parallel: bool,
    spare: &mut Vec<Batch>,
) -> Vec<Batch> {
    let at = |chunk: usize| chunk.saturating_mul(CHUNK).min(queue.len());
    let items = &queue.items[at(chunks.start)..at(chunks.end)];
    let mut out: Vec<Batch> = std::iter::repeat_with(|| spare.pop().unwrap_or_default())
        .take(items.len().div_ceil(CHUNK))
        .collect();
    let each = |(b, items): (&mut Batch, &[Item])| prepare(b, queue, items);
    if parallel && out.len() > 1 {
        (out.par_iter_mut().zip(items.par_chunks(CHUNK))).for_each(each);
    } else {
        out.iter_mut().zip(items.chunks(CHUNK)).for_each(each);
    }
    out
}

/// Prepares `items` of `queue` into `batch` (empty), in order.
pub fn prepare(batch: &mut Batch, queue: &Queue, items: &[Item]) {
    batch.reserve(items.len());
    for it in items {
        let words = &queue.words[it.at as usize..][..it.len as usize];
        let snap = &queue.snap(it);
        batch.mark_epoch(snap.cache_epoch);
        match decode(words) {
            Gp0Command::Polygon { flags, verts } => polygon(batch, snap, flags, &verts),
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

/// GP0(20h–3Fh): a triangle, or a quad as triangles v0 v1 v2 and v1 v2 v3 (each culled on
/// its own).
// Verified: hwtests phases 1 (quad split), 4, 8.
fn polygon(batch: &mut Batch, snap: &Snap, flags: PolyFlags, raw: &[RawVertex; 4]) {
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
    for k in 0..1 + flags.quad as usize {
        let tri = wrapped([v[k], v[k + 1], v[k + 2]]);
        if let Some(t) = TriangleCmd::new(tri, clip, shading) {
            push(batch, Prim::Triangle(t), texture.is_some());
            if k == 1 {
                batch.second_half();
            }
        }
    }
}

/// GP0(40h–5Fh): a line, or one segment of a polyline.
fn line(batch: &mut Batch, snap: &Snap, flags: PolyFlags, a: &RawVertex, b: &RawVertex) {
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
fn rect(
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

    /// A queue of `n` flat triangles over the whole of VRAM.
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

    /// A queue is prepared in chunks of `CHUNK` packets, in command order, the same on the
    /// pool as here.
    #[test]
    fn chunks_prepared_on_the_pool_are_those_prepared_here() {
        let q = triangles(5 * CHUNK as u32 + 7);
        let here = prepare_all(&q, 0..usize::MAX, false, &mut Vec::new());
        assert_eq!(
            here.iter().map(Batch::len).collect::<Vec<_>>(),
            [256, 256, 256, 256, 256, 7]
        );
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build();
        let pooled = pool
            .expect("a pool")
            .install(|| prepare_all(&q, 0..usize::MAX, true, &mut Vec::new()));
        assert_eq!(format!("{here:?}"), format!("{pooled:?}"));
    }
}
