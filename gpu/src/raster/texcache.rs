//! Texture coherence: what a batch's primitives sample, kept equal to what the console would
//! sample, and the CLUT cache. The one owner of the rule "the snapshot equals live VRAM wherever
//! a queued primitive samples it".
//!
//! A batch draws when it ends, so its primitives must sample VRAM as it was before the batch
//! drew anything. The snapshot holds that image, tile by tile ([`super::tiles`]): a tile is
//! copied from VRAM when a primitive first samples it and stays valid until something writes
//! there (a transfer; the batch that may have drawn it, once it has). A primitive that would
//! sample a tile the pending batch may have drawn gets [`Conflict`]: the batch is cut before it
//! and drawn, and the look-up made again. Look-ups are made in command order by the serial
//! scan of `canvas.rs`, which owns the images meanwhile. What a primitive samples is the part
//! of its page its texture coordinates reach ([`UvBounds`], turned into tiles where the
//! primitive is prepared), not the whole page, so a page that overlaps what is being drawn (as
//! pages near the frame buffer, or wrapping past VRAM's right edge, do) ends a batch only when
//! it is really read there.
//!
//! The CLUT cache holds one CLUT: its position, how many entries it loaded (16 or 256) and
//! those entries as VRAM held them when loaded, used again while the key stays the same even if
//! VRAM under it has changed. Verified: gpu-images/clut-cache rows 136 and 152. Entries are read
//! from the snapshot at the CLUT's place as long as VRAM there still holds them; just before
//! anything writes there, they are copied out, and primitives then read the copy from the
//! batch's CLUT table.

use super::feedback::Feedback;
use super::texture::{clut_len, ClutRef, ClutTable};
use super::tiles::{copy_tile, TileRow, TileSet};
use crate::gp0::fields::{Clut, TexPage, TexWindow, TextureDepth};
use crate::{VramImage, VRAM_HEIGHT, VRAM_WIDTH};

/// Halfwords in VRAM.
const VRAM_SIZE: usize = VRAM_WIDTH * VRAM_HEIGHT;

/// The texture coordinates a primitive can sample, before the texture window: U in
/// `u.0..=u.1`, V in `v.0..=v.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UvBounds {
    /// Lowest and highest U.
    pub u: (u8, u8),
    /// Lowest and highest V.
    pub v: (u8, u8),
}

impl UvBounds {
    /// Every coordinate.
    pub const ALL: UvBounds = UvBounds {
        u: (0, 255),
        v: (0, 255),
    };

    /// The coordinates of a polygon with these vertex coordinates. A triangle's interpolated
    /// U at a pixel it draws is the affine function through its vertices' U (+½, with
    /// gradients truncated by less than 2⁻¹² per pixel, so by less than 0.375 over 1023 + 511
    /// pixels) at a point of the closed triangle: it stays strictly between min U and max U + 1,
    /// and its integer part never wraps. Likewise V.
    #[inline]
    pub fn polygon(uvs: &[(u8, u8)]) -> Self {
        let (mut u, mut v) = ((255, 0), (255, 0));
        for &(pu, pv) in uvs {
            u = (u.0.min(pu), u.1.max(pu));
            v = (v.0.min(pv), v.1.max(pv));
        }
        UvBounds { u, v }
    }

    /// The coordinates of a rectangle `w` × `h` from (u0, v0), stepping backwards under the
    /// flips (X-flip starts at U0 + 1); all of an axis whose coordinates wrap.
    pub fn rect(u0: u8, v0: u8, (w, h): (i32, i32), (flip_x, flip_y): (bool, bool)) -> Self {
        let axis = |start: u8, n: i32, back: bool| -> (u8, u8) {
            let n = n.clamp(1, 256) - 1;
            let (lo, hi) = if back {
                (start as i32 - n, start as i32)
            } else {
                (start as i32, start as i32 + n)
            };
            match (lo, hi) {
                (0..=255, 0..=255) => (lo as u8, hi as u8),
                _ => (0, 255),
            }
        };
        UvBounds {
            u: axis(if flip_x { u0.wrapping_add(1) } else { u0 }, w, flip_x),
            v: axis(v0, h, flip_y),
        }
    }

    /// The coordinates after texture window `w`: unchanged by a plain window, else within
    /// `or ..= and | or`.
    fn windowed(self, w: TexWindow) -> Self {
        let axis = |(lo, hi): (u8, u8), (and, or): (u8, u8)| match (and, or) {
            (0xff, 0) => (lo, hi),
            _ => (or, and | or),
        };
        UvBounds {
            u: axis(self.u, w.u_and_or()),
            v: axis(self.v, w.v_and_or()),
        }
    }

    /// The VRAM tiles a primitive sampling these coordinates of `page` through `window`
    /// reads (its CLUT aside).
    pub fn sampled(self, page: TexPage, window: TexWindow) -> TileSet {
        self.windowed(window).tiles(page)
    }

    /// The VRAM tiles page `page` holds these coordinates in.
    fn tiles(self, page: TexPage) -> TileSet {
        let shift = match page.depth() {
            TextureDepth::Clut4 => 2,
            TextureDepth::Clut8 => 1,
            TextureDepth::Direct15 => 0,
        };
        let (x0, x1) = ((self.u.0 >> shift) as usize, (self.u.1 >> shift) as usize);
        let (y0, y1) = (self.v.0 as usize, self.v.1 as usize);
        TileSet::rect(
            page.base_x() + x0,
            page.base_y() + y0,
            x1 - x0 + 1,
            y1 - y0 + 1,
        )
    }
}

/// A texture that cannot be handed out in the pending batch: it would sample what the batch
/// may have drawn. The batch is drawn first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict;

/// What a textured primitive samples, worked out where it is prepared (any thread) so that
/// the look-up in command order ([`TexCache::texture`]) is a few bit operations.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The tiles its texture coordinates reach ([`UvBounds::sampled`]).
    pub tiles: TileSet,
    /// The tiles of its CLUT's entries (none for 15-bit textures): one row of tiles.
    pub clut_tiles: TileRow,
    /// `tiles` and `clut_tiles`: what it reads when its CLUT is loaded, kept whole so that
    /// the serial scan need not form it.
    pub reads: TileSet,
    /// The CLUT attribute (bits 0–14), the CLUT cache's key.
    pub key: u16,
    /// CLUT entries the depth loads: 16, 256, or 0 for 15-bit textures.
    pub entries: u16,
    /// The CLUT's first halfword in VRAM.
    pub clut_at: u32,
    /// The CLUT cannot be read in place as 256 halfwords (it wraps past VRAM's right edge,
    /// or ends past VRAM's end): it is copied out when loaded.
    pub copied: bool,
}

impl Sample {
    /// What a primitive sampling coordinates `uv` of `page` through `window` with `clut`
    /// reads.
    pub fn new(page: TexPage, clut: Clut, window: TexWindow, uv: UvBounds) -> Self {
        let n = clut_len(page.depth());
        let at = clut.y() * VRAM_WIDTH + clut.x();
        let (tiles, clut_tiles) = (
            uv.sampled(page, window),
            TileRow::span(clut.x(), clut.y(), n),
        );
        Sample {
            tiles,
            clut_tiles,
            reads: tiles.with(clut_tiles),
            key: clut.0 & 0x7fff,
            entries: n as u16,
            clut_at: at as u32,
            copied: n != 0 && (clut.x() + n > VRAM_WIDTH || at + 256 > VRAM_SIZE),
        }
    }

    /// Where its CLUT entries are while the CLUT cache has not copied them out: in VRAM at
    /// the CLUT's place (none for 15-bit textures). A primitive is prepared with this, so the
    /// scan writes into it only when [`TexCache::texture`] answers otherwise.
    pub fn clut_in_place(&self) -> ClutRef {
        match self.entries {
            0 => ClutRef::None,
            _ => ClutRef::Vram(self.clut_at),
        }
    }
}

/// The CLUT cache's contents.
#[derive(Clone, Debug)]
struct ClutCache {
    /// The CLUT attribute loaded (bits 0–14).
    key: u16,
    /// Entries loaded.
    loaded: usize,
    /// The tiles the entries lie in.
    tiles: TileRow,
    /// The entries, once VRAM under them was about to change (else VRAM still holds them).
    saved: Option<Box<ClutTable>>,
    /// Index of `saved` in the pending batch's CLUT table, once a primitive has used it.
    slot: Option<u32>,
}

/// VRAM and the texture snapshot: what a batch draws into and samples.
pub struct Images {
    /// VRAM.
    pub vram: Box<VramImage>,
    /// VRAM as the pending batch must sample it, where [`TexCache`] says it is valid.
    pub snapshot: Box<VramImage>,
}

impl Default for Images {
    /// Both zeroed.
    fn default() -> Self {
        Images {
            vram: crate::written_vram(),
            snapshot: crate::boxed_vram(),
        }
    }
}

/// The texture snapshot's coherence with VRAM, the CLUT cache and the texture cache.
pub struct TexCache {
    /// Tiles of the snapshot holding VRAM's current contents.
    valid: TileSet,
    /// Tiles the pending batch may draw.
    drawn: TileSet,
    clut: Option<ClutCache>,
    /// The texture cache, and when a primitive must be drawn in order through it.
    pub feedback: Feedback,
    /// When the CLUT cache loads a CLUT it holds again.
    pub clut_reload: ClutReload,
}

/// When the CLUT cache loads again the CLUT it holds (same position).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClutReload {
    /// As the console: when it holds fewer entries than the texture depth needs. A 4-bit
    /// primitive after an 8-bit load uses the entries held; an 8-bit one after that loads
    /// again. Verified: gpu-images/clut-cache rows 136 (4 to 8 bits) and 152 (8 to 4 bits,
    /// entries overwritten in between: the old ones are drawn); the 8-bit load after a 4-bit
    /// use: the emulator reference (its wide streams).
    #[default]
    Hardware,
    /// As the reference software GPU (`hwtests/emulator-reference`): whenever the depth
    /// differs from the one it loaded for; it misses gpu-images/clut-cache row 152. For
    /// comparing with that reference only.
    Reference,
}

impl Default for TexCache {
    fn default() -> Self {
        TexCache {
            valid: TileSet::EMPTY,
            drawn: TileSet::EMPTY,
            clut: None,
            feedback: Feedback::default(),
            clut_reload: ClutReload::Hardware,
        }
    }
}

impl TexCache {
    /// Where the CLUT entries are for a primitive sampling `sample`, with the snapshot made to
    /// hold what it samples; the entries added to `cluts` (the pending batch's table) when they
    /// come from a copy. On `Err` nothing has changed. Inlined: the serial scan calls it once
    /// per textured packet.
    #[inline(always)]
    pub fn texture(
        &mut self,
        im: &mut Images,
        sample: &Sample,
        cluts: &mut Vec<ClutTable>,
    ) -> Result<ClutRef, Conflict> {
        let n = sample.entries as usize;
        // The CLUT cache serves the entries when it holds this CLUT with enough of them (a
        // 15-bit texture has none to serve).
        let served = self.clut.as_ref().filter(|c| {
            n != 0
                && c.key == sample.key
                && match self.clut_reload {
                    ClutReload::Hardware => c.loaded >= n,
                    ClutReload::Reference => c.loaded == n,
                }
        });
        let hit = served.is_some();
        let (clut_tiles, tiles) = match served {
            Some(c) => (c.tiles, sample.tiles.with(c.tiles)),
            None => (sample.clut_tiles, sample.reads),
        };
        if tiles.meets(self.drawn) {
            return Err(Conflict);
        }
        let missing = tiles.minus(self.valid);
        // From here on the snapshot equals VRAM over `tiles`, the CLUT's among them.
        if !missing.is_empty() {
            for t in missing.iter() {
                copy_tile(&mut im.snapshot[..], &im.vram[..], t);
            }
            self.valid = self.valid.union(missing);
        }
        if n == 0 {
            return Ok(sample.clut_in_place());
        }
        if !hit {
            // A CLUT the snapshot cannot hand out as 256 halfwords in a row (it wraps past the
            // right edge, or ends past VRAM's end) is copied at once.
            let saved = sample.copied.then(|| {
                let (x, y) = (
                    sample.clut_at as usize % VRAM_WIDTH,
                    sample.clut_at as usize / VRAM_WIDTH,
                );
                let mut t = Box::new([0; 256]);
                let row = &im.snapshot[y * VRAM_WIDTH..][..VRAM_WIDTH];
                let head = n.min(VRAM_WIDTH - x);
                t[..head].copy_from_slice(&row[x..][..head]);
                t[head..n].copy_from_slice(&row[..n - head]);
                t
            });
            self.clut = Some(ClutCache {
                key: sample.key,
                loaded: n,
                tiles: clut_tiles,
                saved,
                slot: None,
            });
        }
        let c = self.clut.as_mut().expect("loaded above");
        // The cache now serves this depth: 8-bit primitives after a 4-bit one load again.
        c.loaded = n;
        Ok(match &c.saved {
            None => sample.clut_in_place(),
            Some(t) => ClutRef::Table(*c.slot.get_or_insert_with(|| {
                cluts.push(**t);
                (cluts.len() - 1) as u32
            })),
        })
    }

    /// Records that the pending batch may draw `tiles`.
    #[inline]
    pub fn will_draw(&mut self, tiles: TileSet) {
        self.drawn = self.drawn.union(tiles);
    }

    /// Whether the pending batch may draw any of `tiles`.
    pub fn may_draw(&self, tiles: TileSet) -> bool {
        self.drawn.meets(tiles)
    }

    /// To call just before VRAM's `tiles` are written (by a transfer, or by the pending batch
    /// with [`TexCache::drawn_tiles`]): the CLUT cache copies out entries VRAM is about to
    /// lose, and those snapshot tiles stop being valid.
    pub fn before_write(&mut self, vram: &VramImage, tiles: TileSet) {
        if let Some(c) = &mut self.clut {
            if c.saved.is_none() && c.tiles.set().meets(tiles) {
                let at =
                    ((c.key >> 6) & 0x1ff) as usize * VRAM_WIDTH + (c.key & 0x3f) as usize * 16;
                let mut t = Box::new([0; 256]);
                t[..c.loaded].copy_from_slice(&vram[at..at + c.loaded]);
                c.saved = Some(t);
            }
        }
        self.valid = self.valid.minus(tiles);
    }

    /// The tiles the pending batch may draw.
    pub fn drawn_tiles(&self) -> TileSet {
        self.drawn
    }

    /// The pending batch's primitives have been drawn (after [`TexCache::before_write`] with
    /// its tiles): no tile is pending.
    pub fn drawn_cleared(&mut self) {
        self.drawn = TileSet::EMPTY;
    }

    /// A new batch begins, with an empty CLUT table.
    pub fn batch_drawn(&mut self) {
        if let Some(c) = &mut self.clut {
            c.slot = None;
        }
    }

    /// GP0(01h), GP1(00h), GP1(01h): the CLUT cache forgets what it holds and the texture
    /// cache is emptied.
    pub fn empty_caches(&mut self) {
        self.clut = None;
        self.feedback.empty();
    }
}
