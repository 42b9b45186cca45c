//! VRAM transfers: GP0(02h) fill, GP0(80h) VRAM→VRAM copy, GP0(A0h) CPU→VRAM and GP0(C0h)
//! VRAM→CPU. All wrap at the VRAM edges.
//!
//! Source: psx-spx "GPU Memory Transfer Commands"; verified: hwtests phases 1, 5 and
//! gpu-images/vram-to-vram-overlap.

use crate::{VRAM_HEIGHT, VRAM_WIDTH};

/// A rectangle being transferred one halfword at a time (row by row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    x: usize,
    y: usize,
    w: usize,
    h: usize,
    pos: usize,
}

/// Transfer size from a WH word: width `((w−1) & 3FFh) + 1`, height `((h−1) & 1FFh) + 1`
/// (so 0 means the maximum).
pub fn transfer_size(wh: u32) -> (usize, usize) {
    let w = ((wh & 0xffff).wrapping_sub(1) & 0x3ff) + 1;
    let h = ((wh >> 16).wrapping_sub(1) & 0x1ff) + 1;
    (w as usize, h as usize)
}

/// An XY word's (x & 3FFh, y & 1FFh).
pub fn transfer_xy(xy: u32) -> (usize, usize) {
    ((xy & 0x3ff) as usize, ((xy >> 16) & 0x1ff) as usize)
}

impl Transfer {
    /// A transfer of the rectangle given by an XY and a WH word.
    pub fn new(xy: u32, wh: u32) -> Self {
        let (x, y) = transfer_xy(xy);
        let (w, h) = transfer_size(wh);
        Transfer { x, y, w, h, pos: 0 }
    }

    /// The rectangle transferred: x, y, width, height (wrapping at the VRAM edges).
    pub fn rect(&self) -> (usize, usize, usize, usize) {
        (self.x, self.y, self.w, self.h)
    }

    /// All halfwords transferred.
    pub fn done(&self) -> bool {
        self.pos >= self.w * self.h
    }

    /// The VRAM index of the halfword `k` places after the next one; `None` past the end.
    pub fn index_ahead(&self, k: usize) -> Option<usize> {
        let pos = self.pos + k;
        if pos >= self.w * self.h {
            return None;
        }
        let (r, c) = (pos / self.w, pos % self.w);
        Some(((self.y + r) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH + ((self.x + c) & (VRAM_WIDTH - 1)))
    }

    /// The VRAM index of the next halfword, then advances; `None` when done.
    fn next(&mut self) -> Option<usize> {
        let i = self.index_ahead(0)?;
        self.pos += 1;
        Some(i)
    }
}

/// The rectangle a GP0(02h) fill covers: x rounded down and width rounded up to 16, both
/// 10-bit; y and height 9-bit (x, y, width, height; wrapping at the VRAM edges).
pub fn fill_rect(xy: u32, wh: u32) -> (usize, usize, usize, usize) {
    (
        (xy & 0x3f0) as usize,
        ((xy >> 16) & 0x1ff) as usize,
        (((wh & 0x3ff) + 0xf) & !0xf) as usize,
        ((wh >> 16) & 0x1ff) as usize,
    )
}

/// Writes the two halfwords of a GP0(A0h) payload word, honouring GP0(E6h) (`mask` bits 0–1).
pub fn upload_word(vram: &mut [u16], t: &mut Transfer, word: u32, mask: u32) {
    for hw in [word as u16, (word >> 16) as u16] {
        if let Some(i) = t.next() {
            if mask & 2 != 0 && vram[i] & 0x8000 != 0 {
                continue;
            }
            vram[i] = hw | (((mask & 1) as u16) << 15);
        }
    }
}

/// Writes a run of GP0(A0h) payload words: what [`upload_word`] does for each in turn, a row
/// segment at a time instead of dividing out each halfword's row and column.
pub fn upload_words(vram: &mut [u16], t: &mut Transfer, words: &[u32], mask: u32) {
    let (set, check) = (((mask & 1) as u16) << 15, mask & 2 != 0);
    // Halfwords past the transfer's end are dropped, as `upload_word` drops them.
    let n = (words.len() * 2).min((t.w * t.h).saturating_sub(t.pos));
    let mut k = 0;
    while k < n {
        let (r, c) = (t.pos / t.w, t.pos % t.w);
        let row = ((t.y + r) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
        let x0 = (t.x + c) & (VRAM_WIDTH - 1);
        // The rest of this transfer row, up to VRAM's right edge (where it wraps).
        let seg = (t.w - c).min(n - k).min(VRAM_WIDTH - x0);
        let dst = &mut vram[row + x0..row + x0 + seg];
        if check {
            for (j, d) in dst.iter_mut().enumerate() {
                if *d & 0x8000 == 0 {
                    *d = halfword(words, k + j) | set;
                }
            }
        } else {
            copy_halfwords(dst, words, k, set);
        }
        k += seg;
        t.pos += seg;
    }
}

/// Halfword `k` of an upload's payload `words`: the low half of each word first.
fn halfword(words: &[u32], k: usize) -> u16 {
    (words[k / 2] >> (k % 2 * 16)) as u16
}

/// Writes halfwords `k..k + dst.len()` of `words` ([`halfword`]), each ORed with `set`, into
/// `dst`: whole words at a time between an odd first and last, so that an upload's row is a
/// straight copy.
fn copy_halfwords(dst: &mut [u16], words: &[u32], k: usize, set: u16) {
    let (mut dst, mut k) = (dst, k);
    if k % 2 == 1 {
        let Some((first, rest)) = dst.split_first_mut() else {
            return;
        };
        *first = halfword(words, k) | set;
        (dst, k) = (rest, k + 1);
    }
    let (src, end) = (&words[k / 2..], k + dst.len());
    let mut pairs = dst.chunks_exact_mut(2);
    for (d, &w) in (&mut pairs).zip(src) {
        d[0] = w as u16 | set;
        d[1] = (w >> 16) as u16 | set;
    }
    if let [last] = pairs.into_remainder() {
        *last = halfword(words, end - 1) | set;
    }
}

/// Reads the next two halfwords of a GP0(C0h) transfer (zero past its end).
pub fn read_word(vram: &[u16], t: &mut Transfer) -> u32 {
    let lo = t.next().map_or(0, |i| vram[i]) as u32;
    let hi = t.next().map_or(0, |i| vram[i]) as u32;
    lo | (hi << 16)
}

/// GP0(02h): fills a rectangle with `color` (mask bit clear). X is rounded down and the width
/// up to multiples of 16; the drawing area and mask settings are ignored; both axes wrap.
pub fn fill(vram: &mut [u16], color: u16, xy: u32, wh: u32) {
    let (x, y, w, h) = fill_rect(xy, wh);
    for r in 0..h {
        let row = ((y + r) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
        for c in 0..w {
            vram[row + ((x + c) & (VRAM_WIDTH - 1))] = color;
        }
    }
}

/// GP0(80h): copies a rectangle inside VRAM, honouring GP0(E6h) (`mask` bits 0–1). Rows are
/// copied top to bottom; each row is read whole before it is written, so a row overlapping
/// itself moves like `memmove`.
// Verified: gpu-images/vram-to-vram-overlap (147 overlapping copies, widths up to 15).
pub fn copy(vram: &mut [u16], src: u32, dst: u32, wh: u32, mask: u32) {
    let (sx, sy) = transfer_xy(src);
    let (dx, dy) = transfer_xy(dst);
    let (w, h) = transfer_size(wh);
    let set = ((mask & 1) as u16) << 15;
    let mut line = vec![0u16; w];
    for r in 0..h {
        let srow = ((sy + r) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
        let drow = ((dy + r) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
        for (c, v) in line.iter_mut().enumerate() {
            *v = vram[srow + ((sx + c) & (VRAM_WIDTH - 1))];
        }
        for (c, &v) in line.iter().enumerate() {
            let d = &mut vram[drow + ((dx + c) & (VRAM_WIDTH - 1))];
            if mask & 2 != 0 && *d & 0x8000 != 0 {
                continue;
            }
            *d = v | set;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of words uploads what word-by-word uploads do: transfers wrapping at both VRAM
    /// edges, every mask setting, runs cut anywhere and running past the transfer's end.
    #[test]
    fn runs_upload_what_single_words_do() {
        let mut rng = crate::rng::XorShift::new(0x00a0_5eed);
        for _ in 0..300 {
            let xy = rng.next_u32() & 0x01ff_03ff;
            let wh = (rng.below(40) << 16) | rng.below(70);
            let mask = rng.below(4);
            let start: Vec<u16> = (0..VRAM_WIDTH * VRAM_HEIGHT)
                .map(|i| if i % 3 == 0 { 0x8000 } else { 0 })
                .collect();
            let words: Vec<u32> = (0..rng.below(2000)).map(|_| rng.next_u32()).collect();
            let (mut one, mut run) = (start.clone(), start);
            let (mut t1, mut t2) = (Transfer::new(xy, wh), Transfer::new(xy, wh));
            for &w in &words {
                upload_word(&mut one, &mut t1, w, mask);
            }
            let mut rest = &words[..];
            while !rest.is_empty() {
                let n = (1 + rng.below(300) as usize).min(rest.len());
                upload_words(&mut run, &mut t2, &rest[..n], mask);
                rest = &rest[n..];
            }
            assert!(one == run, "{xy:08x} {wh:08x} mask {mask}");
            assert_eq!(t1.done(), t2.done());
        }
    }

    #[test]
    fn sizes_wrap_to_maximum() {
        assert_eq!(transfer_size(0), (1024, 512));
        assert_eq!(transfer_size(0x0001_0001), (1, 1));
        assert_eq!(transfer_size(0x0200_0400), (1024, 512));
    }

    #[test]
    fn fill_rounds_and_wraps() {
        let mut v = vec![0u16; VRAM_WIDTH * VRAM_HEIGHT];
        fill(&mut v, 0x1f, 0x01ff_03f5, 0x0002_0011);
        assert_eq!(v[511 * 1024 + 1008], 0x1f);
        assert_eq!(v[1023], 0x1f);
        assert_eq!(v[15], 0x1f);
        assert_eq!(v[16], 0);
        assert_eq!(v[1024 + 1008], 0);
    }
}
