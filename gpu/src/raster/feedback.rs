//! Texture feedback: the 2 KB texture cache, and primitives drawn in order on live VRAM.
//!
//! The GPU reads texels through a cache of 256 entries of 4 halfwords (8 bytes). An entry is
//! filled from VRAM on a miss and never updated by drawing, so once a primitive or a fill
//! writes over texels the cache holds, later reads of them see the old values until the cache
//! is emptied (by a texture page or depth change, a VRAM transfer, GP0(01h), a GP1 reset).
//! A texel that misses is read from VRAM as it is at that moment, pixels already drawn by the
//! same primitive included.
//!
//! Batches draw primitives in parallel bands sampling a snapshot of VRAM from before the batch
//! ([`super::texcache`]): exact only while no primitive reads what was written since the cache
//! was last emptied (then VRAM, the snapshot and any cached copy agree on every texel it
//! reads). [`Feedback`] keeps the tiles written since the last emptying; a textured primitive
//! whose texels lie in them, or in what it draws itself, is drawn alone, in the hardware's
//! pixel order, on live VRAM, through [`TexelCache`] ([`Feedback::draw`]).
//!
//! That needs the cache's contents, which depend on every texel fetched since the last
//! emptying. Primitives drawn by batches are not simulated as they go (that would cost the
//! common case a second scan): they are logged, and their fetches replayed through the cache
//! ([`Feedback::catch_up`]) only when something is about to write where a logged primitive
//! read (after that, VRAM would no longer hold what it fetched) or when the cache's contents
//! are needed. Until then every entry they filled still equals VRAM, so replaying later
//! fills the same values.
//!
//! Entry index, from the VRAM halfword (x, y) read: `(x / 4) % 4 + 4 · (y % 64)` for 4-bit
//! pages (cache blocks of 64×64 texels), `(x / 4) % 8 + 8 · (y % 32)` for 8- and 15-bit ones
//! (blocks of 64×32 and 32×32 texels); its tag is the address of the four halfwords, and a
//! miss fills just those four.
// Source: psx-spx "GPU Texture Caching" (which gives 32×64 texels for 8-bit blocks: the
// reference's 64×32 is what its wide streams need, 2 of 6 differing otherwise); verified:
// hwtests/emulator-reference/wide (entry layout per depth, a miss filling one entry). What
// empties the cache: the reference's README; its data pass whether a depth change between
// 8 and 15 bits empties it or not.

use super::texture::{decode, locate, ClutTable, Texture};
use super::tiles::TileSet;
use super::{shade, Hit, Interp, Prim};
use crate::gp0::fields::{TexPage, TextureDepth};
use crate::{VramImage, VRAM_WIDTH};

/// Entries in the texture cache.
pub const ENTRIES: usize = 256;

/// Primitives logged before their fetches are replayed regardless: bounds the log's memory
/// (64 bytes a triangle) and the replay's length.
pub const LOG_CAP: usize = 4096;

/// An entry's tag when it holds nothing.
const NO_TAG: u32 = u32::MAX;

/// Where a texel a primitive drew with came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelSource {
    /// VRAM (a cache miss: the entry was filled now).
    Vram,
    /// The texture cache, its entry filled by command `filled` (index among GP0 commands;
    /// `None`: by a primitive drawn while no pixel history was watched); it may hold what VRAM
    /// held then rather than now.
    Cache {
        /// The command whose fetch filled the entry.
        filled: Option<u64>,
    },
}

/// One cache entry: four halfwords of VRAM as they were when it was filled.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// VRAM index of the first halfword, or [`NO_TAG`].
    tag: u32,
    data: [u16; 4],
    /// The command that filled it, when known.
    filled: Option<u64>,
}

/// The 2 KB texture cache.
#[derive(Clone, Debug)]
pub struct TexelCache {
    entries: Box<[Entry; ENTRIES]>,
}

impl Default for TexelCache {
    fn default() -> Self {
        let empty = Entry {
            tag: NO_TAG,
            data: [0; 4],
            filled: None,
        };
        TexelCache {
            entries: Box::new([empty; ENTRIES]),
        }
    }
}

impl TexelCache {
    /// The entry VRAM halfword `at` goes to for a page of `depth`.
    pub fn index(depth: TextureDepth, at: usize) -> usize {
        let (x, y) = (at % VRAM_WIDTH, at / VRAM_WIDTH);
        match depth {
            TextureDepth::Clut4 => (x >> 2) & 3 | (y & 63) << 2,
            TextureDepth::Clut8 | TextureDepth::Direct15 => (x >> 2) & 7 | (y & 31) << 3,
        }
    }

    /// The VRAM halfword at index `at` as a page of `depth` reads it: from the cache on a hit,
    /// else from `vram`, filling the entry (by `command`, when known).
    #[inline]
    pub fn read(
        &mut self,
        depth: TextureDepth,
        at: usize,
        vram: &VramImage,
        command: Option<u64>,
    ) -> (u16, TexelSource) {
        let e = &mut self.entries[Self::index(depth, at)];
        let tag = at & !3;
        if e.tag == tag as u32 {
            return (e.data[at & 3], TexelSource::Cache { filled: e.filled });
        }
        e.tag = tag as u32;
        e.data.copy_from_slice(&vram[tag..tag + 4]);
        e.filled = command;
        (e.data[at & 3], TexelSource::Vram)
    }

    /// Texel (u, v) of `t` (its CLUT entries `clut`) read through the cache.
    pub fn texel(
        &mut self,
        t: &Texture,
        clut: &ClutTable,
        uv: (u8, u8),
        vram: &VramImage,
        command: Option<u64>,
    ) -> (u16, TexelSource) {
        let (at, shift) = locate_texel(t, uv);
        let (h, source) = self.read(t.depth, at, vram, command);
        let texel = match t.depth {
            TextureDepth::Clut4 => decode::<4>(clut, h, shift),
            TextureDepth::Clut8 => decode::<8>(clut, h, shift),
            TextureDepth::Direct15 => h,
        };
        (texel, source)
    }

    /// Every entry emptied.
    pub fn empty(&mut self) {
        for e in self.entries.iter_mut() {
            e.tag = NO_TAG;
        }
    }
}

/// Whether drawing mode `new` (GP0(E1h), or a polygon's page word applied) empties the cache
/// after `old`: the page or the texture depth changed.
// Verified: hwtests/emulator-reference/wide.
pub fn empties_cache(old: TexPage, new: TexPage) -> bool {
    (old.0 ^ new.0) & 0x19f != 0
}

/// The VRAM index of the halfword holding texel (u, v) of `t`, and the texel's bit offset.
fn locate_texel(t: &Texture, (u, v): (u8, u8)) -> (usize, u32) {
    let page = (t.page_x as usize, t.page_y as usize);
    let win = (t.win_u, t.win_v);
    match t.depth {
        TextureDepth::Clut4 => locate::<4>(page, win, u, v),
        TextureDepth::Clut8 => locate::<8>(page, win, u, v),
        TextureDepth::Direct15 => locate::<15>(page, win, u, v),
    }
}

/// A primitive's texture, whether raw, and how it writes pixels.
fn texturing(p: &Prim) -> (Option<Texture>, bool, super::pixel::PixelMode) {
    match p {
        Prim::Triangle(cmd) => {
            let s = cmd.shading();
            (s.texture, s.raw, s.mode)
        }
        Prim::Rect(r) => (r.texture.map(|t| t.0), r.raw, r.mode),
        Prim::Line(l) => (None, false, *l.mode()),
    }
}

/// Visits the pixels a primitive draws, in the hardware's order, with what its loop gives
/// each.
fn scan(p: &Prim, mut f: impl FnMut(i32, i32, Interp)) {
    match p {
        Prim::Triangle(cmd) => cmd.setup().scan(f),
        Prim::Rect(r) => {
            let ((top, bottom), (left, right)) = (r.rows(), r.cols());
            for y in top..bottom {
                for x in left..right {
                    if let Some(i) = r.sample(x, y) {
                        f(x, y, i);
                    }
                }
            }
        }
        Prim::Line(l) => l.scan(f),
    }
}

/// How often the in-order path ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedbackStats {
    /// Primitives drawn in order through the cache.
    pub in_order: u64,
    /// Replays of logged primitives' fetches.
    pub catch_ups: u64,
}

/// The texture cache's state and what the batches did since it was last emptied: the one
/// owner of the rule "a batch's primitive reads nothing the cache or VRAM could disagree on".
#[derive(Clone, Debug, Default)]
pub struct Feedback {
    cache: TexelCache,
    /// The cache may hold entries (a replay or an in-order primitive filled some since it was
    /// last emptied): emptying it must clear them.
    filled: bool,
    /// Tiles written (by primitives and fills) since the cache was last emptied.
    written: TileSet,
    /// Textured primitives handed to batches whose fetches the cache does not hold yet.
    log: Vec<Prim>,
    /// Tiles the logged primitives may read.
    read: TileSet,
    /// How often the in-order path ran.
    pub stats: FeedbackStats,
}

impl Feedback {
    /// The cache is emptied: nothing logged or written since matters any more.
    pub fn empty(&mut self) {
        if std::mem::take(&mut self.filled) {
            self.cache.empty();
        }
        self.written = TileSet::EMPTY;
        self.log.clear();
        self.read = TileSet::EMPTY;
    }

    /// Whether the logged fetches must be replayed (with VRAM as it is now) before `tiles`
    /// are written: a logged primitive may have read there, or the log is full.
    pub fn must_catch_up(&self, tiles: TileSet) -> bool {
        !self.log.is_empty() && (tiles.meets(self.read) || self.log.len() >= LOG_CAP)
    }

    /// Records that `tiles` are about to be written (after [`Feedback::catch_up`] when
    /// [`Feedback::must_catch_up`] says so).
    pub fn will_write(&mut self, tiles: TileSet) {
        self.written = self.written.union(tiles);
    }

    /// Whether a primitive sampling `sampled` must be drawn in order through the cache: it
    /// may read what was written since the cache was last emptied (its own pixels included,
    /// once [`Feedback::will_write`] has them).
    pub fn in_order(&self, sampled: TileSet) -> bool {
        sampled.meets(self.written)
    }

    /// Logs textured primitive `p`, handed to a batch, sampling `sampled`.
    pub fn log(&mut self, p: Prim, sampled: TileSet) {
        self.log.push(p);
        self.read = self.read.union(sampled);
    }

    /// Replays the logged primitives' fetches through the cache, reading `vram`: VRAM after
    /// they were drawn and before anything wrote where they read.
    pub fn catch_up(&mut self, vram: &VramImage) {
        if self.log.is_empty() {
            return;
        }
        self.stats.catch_ups += 1;
        self.filled = true;
        let cache = &mut self.cache;
        for p in self.log.drain(..) {
            let (Some(t), _, _) = texturing(&p) else {
                continue;
            };
            scan(&p, |_, _, i| {
                if let Some(uv) = i.uv {
                    cache.read(t.depth, locate_texel(&t, uv).0, vram, None);
                }
            });
        }
        self.read = TileSet::EMPTY;
    }

    /// Draws `p` (of command `command`, when known) pixel by pixel in the hardware's order
    /// into `vram`, reading texels through the cache (the log caught up, when it is textured)
    /// and its CLUT entries from `clut` (the CLUT cache's). `seen` gets each pixel's VRAM
    /// index, its value before, what happened there and where its texel came from.
    pub fn draw(
        &mut self,
        p: &Prim,
        clut: &ClutTable,
        vram: &mut VramImage,
        command: Option<u64>,
        mut seen: impl FnMut(usize, u16, Hit, Option<TexelSource>),
    ) {
        let (texture, raw, mode) = texturing(p);
        if texture.is_some() {
            debug_assert!(self.log.is_empty(), "the cache is caught up");
            self.stats.in_order += 1;
            self.filled = true;
        }
        let cache = &mut self.cache;
        scan(p, |x, y, interp| {
            let at = y as usize * VRAM_WIDTH + x as usize;
            let (texel, source) = match (&texture, interp.uv) {
                (Some(t), Some(uv)) => {
                    let (texel, source) = cache.texel(t, clut, uv, vram, command);
                    (Some(texel), Some(source))
                }
                _ => (None, None),
            };
            let before = vram[at];
            let hit = shade(interp, texel, raw, mode, before);
            vram[at] = hit.value;
            seen(at, before, hit, source);
        });
    }
}
