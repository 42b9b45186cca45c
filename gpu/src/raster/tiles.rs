//! VRAM tiles: 64×32 halfwords, 16 across and 16 down, and sets of them as 256-bit masks. The
//! unit in which the texture cache keeps its snapshot coherent ([`super::texcache`]) and the
//! batch records where it may draw.

use crate::{VRAM_HEIGHT, VRAM_WIDTH};

/// Tile width in halfwords.
pub const TILE_W: usize = 64;
/// Tile height in rows.
pub const TILE_H: usize = 32;
/// Tiles across VRAM.
pub const TILES_X: usize = VRAM_WIDTH / TILE_W;

/// A set of tiles: bit `tx` of 16-bit lane `ty`, four lanes to a word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileSet([u64; 4]);

impl TileSet {
    /// No tile.
    pub const EMPTY: TileSet = TileSet([0; 4]);
    /// Every tile.
    pub const ALL: TileSet = TileSet([u64::MAX; 4]);

    /// The tiles of the VRAM rectangle at (x, y), `w` × `h` halfwords, wrapping at the VRAM
    /// edges (a size beyond VRAM's covers all of it; a zero size, nothing).
    pub fn rect(x: usize, y: usize, w: usize, h: usize) -> Self {
        if w == 0 || h == 0 {
            return TileSet::EMPTY;
        }
        let cols = ring(x % VRAM_WIDTH, w.min(VRAM_WIDTH), TILE_W);
        let rows = ring(y % VRAM_HEIGHT, h.min(VRAM_HEIGHT), TILE_H);
        // Lane ty (of word ty / 4) holds `cols` where bit ty of `rows` is set. No loop and no
        // branch on the size: three of these run for every textured primitive prepared.
        let lanes = cols * 0x0001_0001_0001_0001;
        TileSet(std::array::from_fn(|i| {
            lanes & LANES[(rows >> (4 * i)) as usize & 15]
        }))
    }

    /// Every tile of either set.
    #[inline]
    pub fn union(self, o: TileSet) -> TileSet {
        TileSet(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }

    /// The tiles of `self` not in `o`.
    #[inline]
    pub fn minus(self, o: TileSet) -> TileSet {
        TileSet(std::array::from_fn(|i| self.0[i] & !o.0[i]))
    }

    /// Whether the sets share a tile.
    #[inline]
    pub fn meets(self, o: TileSet) -> bool {
        (0..4).any(|i| self.0[i] & o.0[i] != 0)
    }

    /// No tile in the set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == [0; 4]
    }

    /// This set and the tiles of `row`.
    #[inline]
    pub fn with(mut self, row: TileRow) -> TileSet {
        self.0[(row.ty as usize / 4) & 3] |= (row.cols as u64) << (16 * (row.ty % 4));
        self
    }

    /// The tiles, as (tx, ty), row by row.
    pub fn iter(self) -> impl Iterator<Item = (usize, usize)> {
        // Bit `b` of word `w` is tile (b % 16, 4w + b / 16): set bits in increasing order.
        self.0.into_iter().enumerate().flat_map(|(w, mut bits)| {
            std::iter::from_fn(move || {
                let b = bits.trailing_zeros() as usize;
                bits &= bits.wrapping_sub(1);
                (b < 64).then_some((b % TILES_X, w * 4 + b / TILES_X))
            })
        })
    }
}

/// Tiles of one row of tiles, as a mask of its 16 columns: where a CLUT's entries lie (on one
/// VRAM row). An eighth of the size of a [`TileSet`], so a texture look-up carries its
/// CLUT's tiles in a few bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileRow {
    ty: u8,
    cols: u16,
}

impl TileRow {
    /// No tile.
    pub const EMPTY: TileRow = TileRow { ty: 0, cols: 0 };

    /// The tiles `len` halfwords from (x, y) along row y meet, wrapping at VRAM's right
    /// edge: those of `TileSet::rect(x, y, len, 1)`.
    pub fn span(x: usize, y: usize, len: usize) -> Self {
        if len == 0 {
            return TileRow::EMPTY;
        }
        TileRow {
            ty: (y % VRAM_HEIGHT / TILE_H) as u8,
            cols: ring(x % VRAM_WIDTH, len.min(VRAM_WIDTH), TILE_W) as u16,
        }
    }

    /// The tiles as a set.
    #[inline]
    pub fn set(self) -> TileSet {
        TileSet::EMPTY.with(self)
    }
}

/// The tiles, as a 16-bit mask around a ring of 16 tiles of `size` halfwords, that `len`
/// (1 to 16 · `size`) halfwords from `at` (inside the ring) meet.
#[inline]
fn ring(at: usize, len: usize, size: usize) -> u64 {
    let count = ((at % size + len - 1) / size + 1).min(16);
    let run = ((1u64 << count) - 1) << (at / size);
    (run | run >> 16) & 0xffff
}

/// For each 4-bit set of lanes, the mask of those 16-bit lanes of a word.
const LANES: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut n = 0;
    while n < 16 {
        let mut j = 0;
        while j < 4 {
            if n >> j & 1 == 1 {
                t[n] |= 0xffff << (16 * j);
            }
            j += 1;
        }
        n += 1;
    }
    t
};

/// Copies tile (tx, ty) from `src` to `dst`, both whole VRAM images.
pub fn copy_tile(dst: &mut [u16], src: &[u16], (tx, ty): (usize, usize)) {
    for y in ty * TILE_H..(ty + 1) * TILE_H {
        let row = y * VRAM_WIDTH + tx * TILE_W;
        dst[row..row + TILE_W].copy_from_slice(&src[row..row + TILE_W]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(s: TileSet) -> Vec<(usize, usize)> {
        s.iter().collect()
    }

    /// Rectangles inside VRAM, wrapping at both edges, empty, and larger than VRAM.
    #[test]
    fn rectangles_wrap_at_the_vram_edges() {
        assert_eq!(tiles(TileSet::rect(64, 32, 64, 32)), [(1, 1)]);
        assert_eq!(
            tiles(TileSet::rect(63, 31, 2, 2)),
            [(0, 0), (1, 0), (0, 1), (1, 1)]
        );
        assert_eq!(
            tiles(TileSet::rect(1000, 500, 100, 40)),
            [(0, 0), (1, 0), (15, 0), (0, 15), (1, 15), (15, 15)]
        );
        assert!(TileSet::rect(5, 5, 0, 10).is_empty());
        assert!(TileSet::rect(5, 5, 10, 0).is_empty());
        assert_eq!(TileSet::rect(0, 0, 4096, 4096).iter().count(), 256);
    }

    /// `rect` marks exactly the tiles some halfword of the rectangle lies in.
    #[test]
    fn rectangles_mark_the_tiles_of_their_halfwords() {
        let mut r = crate::rng::XorShift::new(0x711e_5e75);
        for _ in 0..2000 {
            let (x, y) = (r.below(2048) as usize, r.below(1024) as usize);
            let (w, h) = (r.below(1100) as usize, r.below(600) as usize);
            let mut want = vec![];
            for ty in 0..VRAM_HEIGHT / TILE_H {
                for tx in 0..TILES_X {
                    let hit_x = (0..w.min(VRAM_WIDTH)).any(|i| (x + i) % VRAM_WIDTH / TILE_W == tx);
                    let hit_y =
                        (0..h.min(VRAM_HEIGHT)).any(|j| (y + j) % VRAM_HEIGHT / TILE_H == ty);
                    if hit_x && hit_y {
                        want.push((tx, ty));
                    }
                }
            }
            assert_eq!(tiles(TileSet::rect(x, y, w, h)), want, "{x},{y} {w}x{h}");
        }
    }

    /// A row of tiles is the set `rect` makes of the same halfwords of one row.
    #[test]
    fn tile_rows_are_one_row_rectangles() {
        let mut r = crate::rng::XorShift::new(0x7111_e404);
        for _ in 0..2000 {
            let (x, y) = (r.below(2048) as usize, r.below(1024) as usize);
            let len = r.below(1100) as usize;
            assert_eq!(TileRow::span(x, y, len).set(), TileSet::rect(x, y, len, 1));
            let other = TileSet::rect(y, x, len, 40);
            let both = other.union(TileSet::rect(x, y, len, 1));
            assert_eq!(other.with(TileRow::span(x, y, len)), both, "{x},{y} {len}");
        }
    }

    #[test]
    fn set_operations() {
        let a = TileSet::rect(0, 0, 128, 32);
        let b = TileSet::rect(64, 0, 128, 64);
        assert!(a.meets(b));
        assert_eq!(tiles(a.minus(b)), [(0, 0)]);
        assert_eq!(a.union(b).iter().count(), 5);
        assert!(!a.minus(a).meets(b));
    }
}
