//! A batch: primitives prepared in command order, not yet drawn, with an estimate of the work
//! each band of rows will take ([`super::bands`] cuts VRAM by it), the tiles each may draw and
//! the texture look-ups the serial scan makes for them (`canvas.rs`).
//!
//! Each kind of primitive has its own vector, so a band reads a 12-byte entry per primitive
//! and only the primitives in its rows, and each band of [`BAND_ROWS`] marks the entries
//! meeting it (its bin, one bit per entry), so a drawing band visits only its own.
//! Triangles are culled but not set up: set-up runs where they are drawn, in each run of bands
//! they reach, since a set-up triangle is three times the size of a queued one and writing it here
//! and reading it back there costs one thread more than the set-up it saves.

use super::line::Line;
use super::rect::Rect;
use super::sample::Sample;
use super::span::{prefetch, prefetch_lines};
use super::texture::ClutRef;
use super::tiles::TileSet;
use super::triangle::TriangleCmd;
use super::Prim;
use crate::VRAM_HEIGHT;

/// Rows per band of the load estimate.
pub const BAND_ROWS: usize = 16;
/// Bands of the load estimate in VRAM.
pub const BANDS: usize = VRAM_HEIGHT / BAND_ROWS;
/// Drawing packets queued before they are drawn anyway. Each queue wakes the pool's threads
/// a few times (fixed costs a longer queue spreads thinner); the bound keeps a queue's
/// prepared primitives (about 200 bytes a textured triangle with its tiles and look-up: under
/// 1 MB for 4096) within a core's L2 cache, where the bands read them, and bounds memory and
/// latency on long streams.
pub const MAX_BATCH: usize = 4096;

/// A texture look-up left to the serial scan: what a textured packet samples, and the
/// entries of its batch (`at..at + count` in command order) that take its CLUT's place.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// The first entry the texture belongs to.
    pub at: u32,
    /// How many entries (a quad's two triangles; 0 when culled).
    pub count: u32,
    /// What it samples.
    pub sample: Sample,
}

/// Which vector of the batch holds a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Triangle,
    Line,
    Rect,
}

/// A primitive's place in command order: where it is stored and the rows `[top, bottom)` it
/// may touch, so a band skips the ones it misses in one pass over a flat array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub kind: Kind,
    pub index: u32,
    pub top: i16,
    pub bottom: i16,
    /// Which triangle of its quad the entry is (1: v1 v2 v3), 0 for any other primitive: the
    /// pixel history names it.
    pub half: u8,
}

/// Primitives waiting to be drawn.
#[derive(Debug, Default)]
pub struct Batch {
    pub(crate) order: Vec<Entry>,
    pub(crate) triangles: Vec<TriangleCmd>,
    pub(crate) lines: Vec<Line>,
    pub(crate) rects: Vec<Rect>,
    /// The tiles each entry of `order` may draw.
    pub(crate) drawn: Vec<TileSet>,
    /// Texture look-ups, in command order.
    pub(crate) looks: Vec<Look>,
    /// (entry, epoch): from that entry on, the packets ran under that texture cache epoch
    /// ([`crate::prepare::Snap::cache_epoch`]); one at the first packet and at each change.
    pub(crate) epochs: Vec<(u32, u32)>,
    /// Estimated pixels drawn per band of [`BAND_ROWS`].
    pub(crate) load: Vec<u32>,
    /// Which entries meet which band of [`BAND_ROWS`] (its bin), as bits: word `g * BANDS + b`
    /// has bit `k` set when entry `64 g + k` meets band `b`. A drawing band ORs its load
    /// bands' words, one per 64 entries, and visits only the entries set
    /// ([`Batch::meeting`]), so cutting VRAM into many bands does not make each walk every
    /// entry.
    pub(crate) bins: Vec<u64>,
}

impl Batch {
    /// Number of primitives waiting.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Queues a primitive.
    pub fn push(&mut self, p: Prim) {
        if self.load.is_empty() {
            self.load = vec![0; BANDS];
        }
        let at = self.order.len();
        if at.is_multiple_of(64) {
            self.bins.resize(self.bins.len() + BANDS, 0);
        }
        let ((t, b), (l, r)) = (p.rows(), p.cols());
        self.drawn.push(if t < b && l < r {
            TileSet::rect(l as usize, t as usize, (r - l) as usize, (b - t) as usize)
        } else {
            TileSet::EMPTY
        });
        // The rows inside VRAM, and the load bands they meet.
        let (top, bottom) = (t.max(0) as usize, (b.max(0) as usize).min(VRAM_HEIGHT));
        if top < bottom {
            // Pixels per band: the bounding box (half of it for a triangle) spread over its
            // rows. One loop over the bands, without a branch on the width: most primitives
            // meet one to three bands, in no pattern a branch predictor learns.
            let w = (r - l).max(0) as u32 >> matches!(p, Prim::Triangle(_)) as u32;
            let group = at / 64 * BANDS;
            for band in top / BAND_ROWS..(bottom - 1) / BAND_ROWS + 1 {
                self.bins[group + band] |= 1 << (at % 64);
                let (y0, y1) = (band * BAND_ROWS, (band + 1) * BAND_ROWS);
                let rows = (bottom.min(y1) - top.max(y0)) as u32;
                self.load[band] = self.load[band].saturating_add(rows * w);
            }
        }
        let (kind, index) = match p {
            Prim::Triangle(t) => (Kind::Triangle, push(&mut self.triangles, t)),
            Prim::Line(l) => (Kind::Line, push(&mut self.lines, l)),
            Prim::Rect(r) => (Kind::Rect, push(&mut self.rects, r)),
        };
        self.order.push(Entry {
            kind,
            index,
            top: t as i16,
            bottom: b as i16,
            half: 0,
        });
    }

    /// Room for `n` more packets, each a textured triangle (the common packet): a chunk's
    /// vectors are sized once instead of grown by doubling, each growth a copy into memory
    /// not touched before (a new GPU's first queues pay for every such page).
    pub fn reserve(&mut self, n: usize) {
        self.order.reserve(n);
        self.triangles.reserve(n);
        self.drawn.reserve(n);
        self.looks.reserve(n);
        self.bins.reserve(n.div_ceil(64) * BANDS);
    }

    /// The entry pushed last is the second triangle of a quad (v1 v2 v3).
    pub fn second_half(&mut self) {
        if let Some(e) = self.order.last_mut() {
            e.half = 1;
        }
    }

    /// The packets from the next entry on run under texture cache epoch `epoch`.
    #[inline]
    pub fn mark_epoch(&mut self, epoch: u32) {
        if self.epochs.last().is_none_or(|&(_, e)| e != epoch) {
            self.epochs.push((self.len() as u32, epoch));
        }
    }

    /// Writes where the CLUT entries are (`clut`, from the texture cache) into entries
    /// `entries`.
    pub(crate) fn set_clut(&mut self, entries: std::ops::Range<usize>, clut: ClutRef) {
        for e in &self.order[entries] {
            let i = e.index as usize;
            match e.kind {
                Kind::Triangle => self.triangles[i].set_clut(clut),
                Kind::Rect => self.rects[i].set_clut(clut),
                Kind::Line => {}
            }
        }
    }

    /// Drops the primitives (drawn), keeping the allocations.
    pub fn clear(&mut self) {
        self.order.clear();
        self.triangles.clear();
        self.lines.clear();
        self.rects.clear();
        self.drawn.clear();
        self.looks.clear();
        self.epochs.clear();
        self.load.fill(0);
        self.bins.clear();
    }

    /// Calls `f` with each entry meeting load bands `bins` (of [`BAND_ROWS`] rows), in command
    /// order: group by group ([`Batch::meeting`], [`Batch::fetch_for`]).
    #[cfg(test)]
    pub(crate) fn each_meeting(&self, bins: std::ops::Range<usize>, mut f: impl FnMut(&Entry)) {
        let mut next = self.meeting(0, bins.clone());
        for g in 0..self.groups() {
            let mut m = next;
            next = self.meeting(g + 1, bins.clone());
            self.fetch_for(g, next, bins.clone());
            while m != 0 {
                f(self.entry(g, m));
                m &= m - 1;
            }
        }
    }

    /// The groups of 64 entries (the last one partial).
    #[inline]
    pub(crate) fn groups(&self) -> usize {
        self.bins.len() / BANDS
    }

    /// The entries of group `g` (`64 g ..`) meeting load bands `bins`, one bit each: the OR of
    /// one word per load band; 0 past the last group.
    #[inline]
    pub(crate) fn meeting(&self, g: usize, bins: std::ops::Range<usize>) -> u64 {
        let words = self.bins.get(g * BANDS..(g + 1) * BANDS).unwrap_or(&[]);
        (words.get(bins).unwrap_or(&[]).iter()).fold(0u64, |m, w| m | w)
    }

    /// The entry of group `g` at the lowest bit set in `m` (not 0).
    #[inline]
    pub(crate) fn entry(&self, g: usize, m: u64) -> &Entry {
        &self.order[g * 64 + m.trailing_zeros() as usize]
    }

    /// Before group `g` is drawn: asks for the primitives of group `g + 1` that meet the band
    /// (`next`, from [`Batch::meeting`]) to be fetched towards the cache, and the entries and
    /// bin words of the group after. They were written by the thread that prepared them, often
    /// on another core, and the wait for them would otherwise fall on the drawing band.
    #[inline]
    pub(crate) fn fetch_for(&self, g: usize, next: u64, bins: std::ops::Range<usize>) {
        self.fetch_ahead(g + 1, next);
        let later = (g + 2) * BANDS;
        if let Some(words) = self.bins.get(later + bins.start..later + bins.end) {
            prefetch_lines(words);
        }
        let ahead = self.order.get((g + 2) * 64..).unwrap_or(&[]);
        prefetch_lines(&ahead[..ahead.len().min(64)]);
    }

    /// Asks for the data of the entries of group `g` (`64 g ..`) set in `m` to be fetched.
    #[inline]
    fn fetch_ahead(&self, g: usize, mut m: u64) {
        while m != 0 {
            let e = &self.order[g * 64 + m.trailing_zeros() as usize];
            m &= m - 1;
            let i = e.index as usize;
            match e.kind {
                Kind::Triangle => prefetch(&self.triangles[i]),
                Kind::Rect => prefetch(&self.rects[i]),
                Kind::Line => prefetch(&self.lines[i]),
            }
        }
    }

    /// The primitive of entry `e`.
    pub(crate) fn prim(&self, e: &Entry) -> Prim {
        let i = e.index as usize;
        match e.kind {
            Kind::Triangle => Prim::Triangle(self.triangles[i]),
            Kind::Line => Prim::Line(self.lines[i].clone()),
            Kind::Rect => Prim::Rect(self.rects[i].clone()),
        }
    }

    /// The primitives from entry `at` on, and the look-ups that begin there or later, moved
    /// into a batch of their own (a look-up at `at` or before `at` ends before it); both
    /// rebuilt, load estimates included. For the rare cut at a texture conflict.
    pub fn split_off(&mut self, at: usize) -> Batch {
        let order = std::mem::take(&mut self.order);
        let (triangles, lines, rects) = (
            std::mem::take(&mut self.triangles),
            std::mem::take(&mut self.lines),
            std::mem::take(&mut self.rects),
        );
        let looks = std::mem::take(&mut self.looks);
        let epochs = std::mem::take(&mut self.epochs);
        self.clear();
        let mut rest = Batch::default();
        let old = Batch {
            triangles,
            lines,
            rects,
            ..Batch::default()
        };
        for (k, e) in order.iter().enumerate() {
            let p = old.prim(e);
            let b = if k < at { &mut *self } else { &mut rest };
            b.push(p);
            if e.half == 1 {
                b.second_half();
            }
        }
        for l in looks {
            if (l.at as usize) < at {
                self.looks.push(l);
            } else {
                rest.looks.push(Look {
                    at: l.at - at as u32,
                    ..l
                });
            }
        }
        for (e, epoch) in epochs {
            if (e as usize) < at {
                self.epochs.push((e, epoch));
            } else {
                rest.epochs.push((e - at as u32, epoch));
            }
        }
        rest
    }
}

/// Pushes `v` and returns its index.
fn push<T>(vec: &mut Vec<T>, v: T) -> u32 {
    vec.push(v);
    (vec.len() - 1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::{prepare_all, Queue, Snap};
    use crate::state::DrawState;

    /// A prepared batch of every kind of entry — textured quads (two entries for one look-up),
    /// flat triangles, lines, textured rectangles — under three texture-cache epochs.
    fn mixed() -> Batch {
        let mut q = Queue::default();
        for i in 0..24u32 {
            let snap = || Snap {
                state: DrawState {
                    area_br: 1023 | 511 << 10,
                    ..DrawState::default()
                },
                cache_epoch: i / 9,
                ..Snap::default()
            };
            let (x, y) = (i * 37 % 900, i * 53 % 480);
            let xy = |dx: u32, dy: u32| (y + dy) << 16 | (x + dx);
            match i % 4 {
                0 => q.push(
                    &[
                        0x2c80_8080,
                        xy(0, 0),
                        0x0000_0000,
                        xy(30, 0),
                        0x0000_0010,
                        xy(0, 20),
                        0x0000_1000,
                        xy(30, 20),
                        0x0000_1010,
                    ],
                    &snap(),
                ),
                1 => q.push(&[0x2000_00ff, xy(0, 0), xy(40, 5), xy(10, 35)], &snap()),
                2 => q.push(&[0x4000_ff00, xy(0, 0), xy(50, 30)], &snap()),
                _ => q.push(
                    &[0x6480_8080, xy(0, 0), 0x0000_0000, 12 << 16 | 20],
                    &snap(),
                ),
            }
        }
        let mut chunks = prepare_all(&q, 0..usize::MAX, false, &mut Vec::new());
        assert_eq!(chunks.len(), 1);
        chunks.pop().unwrap()
    }

    /// Splitting at every entry keeps each primitive, its drawn tiles and its load on its
    /// side, and rebases the look-ups and epochs of the part after the cut.
    #[test]
    fn split_off_partitions_a_batch_at_every_entry() {
        let whole = mixed();
        let n = whole.len();
        assert!(n > 24 && whole.looks.len() == 12 && whole.epochs.len() == 3);
        for at in 0..=n {
            let mut head = mixed();
            let tail = head.split_off(at);
            assert_eq!((head.len(), tail.len()), (at, n - at), "cut at {at}");
            for k in 0..n {
                let (side, j) = if k < at { (&head, k) } else { (&tail, k - at) };
                let (a, b) = (whole.prim(&whole.order[k]), side.prim(&side.order[j]));
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "entry {k}, cut at {at}");
                assert_eq!(whole.drawn[k], side.drawn[j], "entry {k}, cut at {at}");
            }
            let load: Vec<u64> = (0..BANDS)
                .map(|i| {
                    let l = |b: &Batch| b.load.get(i).copied().unwrap_or(0) as u64;
                    l(&head) + l(&tail)
                })
                .collect();
            let want: Vec<u64> = (0..BANDS).map(|i| whole.load[i] as u64).collect();
            assert_eq!(load, want, "cut at {at}");
            let looks: Vec<(u32, u32)> = (head.looks.iter().map(|l| (l.at, l.count)))
                .chain(tail.looks.iter().map(|l| (l.at + at as u32, l.count)))
                .collect();
            let want: Vec<(u32, u32)> = whole.looks.iter().map(|l| (l.at, l.count)).collect();
            assert_eq!(looks, want, "cut at {at}");
            let epochs: Vec<(u32, u32)> = (head.epochs.iter().copied())
                .chain(tail.epochs.iter().map(|&(e, c)| (e + at as u32, c)))
                .collect();
            let starts: Vec<u32> = whole.epochs.iter().map(|&(_, c)| c).collect();
            assert!(epochs.iter().all(|&(e, c)| {
                let k = whole.epochs.iter().rposition(|&(w, _)| w <= e).unwrap();
                starts[k] == c
            }));
        }
    }

    /// The entries met through the bins of every run of load bands are those whose rows meet
    /// it, each once, in command order: chunks of 1 to 300 entries (past a word of 64),
    /// primitives reaching past VRAM's top and bottom among them.
    #[test]
    fn bins_give_the_entries_meeting_a_band_once_in_order() {
        let mut rng = crate::rng::XorShift::new(0xb175_0000_0000_0031);
        for n in [1usize, 63, 64, 65, 300] {
            let mut b = Batch::default();
            for _ in 0..n {
                let y = rng.below(560) as i32 - 24;
                let tall = rng.below(4) == 0;
                let h = 1 + rng.below(if tall { 200 } else { 24 }) as i32;
                b.push(Prim::Rect(Rect {
                    x: 0,
                    y,
                    w: 8,
                    h,
                    rgb: (0, 0, 0),
                    texture: None,
                    raw: false,
                    flip_x: false,
                    flip_y: false,
                    clip: crate::raster::Clip {
                        x0: 0,
                        y0: 0,
                        x1: 1023,
                        y1: 511,
                    },
                    mode: crate::raster::pixel::PixelMode {
                        blend: None,
                        set_mask: 0,
                        check_mask: false,
                    },
                }));
            }
            for first in 0..BANDS {
                for end in first + 1..=BANDS {
                    let (y0, y1) = ((first * BAND_ROWS) as i16, (end * BAND_ROWS) as i16);
                    let want: Vec<u32> = (b.order.iter())
                        .filter(|e| e.top < y1 && e.bottom > y0 && e.top < e.bottom)
                        .map(|e| e.index)
                        .collect();
                    let mut got = Vec::new();
                    b.each_meeting(first..end, |e| got.push(e.index));
                    assert_eq!(got, want, "{n} entries, load bands {first}..{end}");
                }
            }
        }
    }
}
