//! VRAM placement: each texture at an X aligned to its width (64 halfwords at most) and a Y
//! aligned to its height, CLUTs at X multiples of 16, first fit row by row.

use gpu::gp0::fields::{BlendMode, Clut, TexPage};

use super::quantise::Converted;
use super::{BlendClass, Placed, Rect, TextureSet, Window};
use crate::scene::VramImage;

/// Words of a row of the taken-halfword map.
const ROW_WORDS: usize = gpu::VRAM_WIDTH / 64;

/// First-fit placement on aligned positions, row by row, over a map of the VRAM halfwords
/// already taken (a bit each): a candidate is checked against the map, not against every
/// rectangle placed, so placing T textures costs about T times VRAM's rows, not T³.
struct Allocator {
    rows: Vec<[u64; ROW_WORDS]>,
}

impl Allocator {
    /// An allocator with `occupied` (clipped to VRAM) taken.
    fn new(occupied: &[Rect]) -> Allocator {
        let mut a = Allocator {
            rows: vec![[0; ROW_WORDS]; gpu::VRAM_HEIGHT],
        };
        for r in occupied {
            a.take(r);
        }
        a
    }

    /// Marks `r` (clipped to VRAM) taken: its columns as a row of bits, or-ed a word at a time
    /// into each of its rows.
    fn take(&mut self, r: &Rect) {
        let (x0, x1) = (usize::from(r.x), usize::from(r.x) + usize::from(r.w));
        let (y0, y1) = (usize::from(r.y), usize::from(r.y) + usize::from(r.h));
        let cols = columns(x0, x1.min(gpu::VRAM_WIDTH));
        for row in self.rows.iter_mut().take(y1).skip(y0) {
            for (r, c) in row.iter_mut().zip(&cols) {
                *r |= c;
            }
        }
    }

    /// The first position, rows top down and each row left to right, of an X multiple of
    /// `align_x` and a Y multiple of `align_y` where `w` × `h` halfwords are all free; taken.
    fn alloc(&mut self, w: u16, h: u16, align_x: u16, align_y: u16) -> Option<Rect> {
        let (w, h) = (usize::from(w), usize::from(h));
        let (align_x, align_y) = (usize::from(align_x), usize::from(align_y));
        let mut y = 0;
        while y + h <= gpu::VRAM_HEIGHT {
            // The columns taken in any row the rectangle would cover.
            let mut cols = [0u64; ROW_WORDS];
            for row in &self.rows[y..y + h] {
                for (c, r) in cols.iter_mut().zip(row) {
                    *c |= r;
                }
            }
            let mut x = 0;
            while x + w <= gpu::VRAM_WIDTH {
                // Past the taken columns from x (a full row band is left at once).
                let Some(free) = first_free(&cols, x) else {
                    break;
                };
                x = free.div_ceil(align_x) * align_x;
                if x + w > gpu::VRAM_WIDTH {
                    break;
                }
                match last_taken(&cols, x, x + w) {
                    None => {
                        let r = Rect {
                            x: x as u16,
                            y: y as u16,
                            w: w as u16,
                            h: h as u16,
                        };
                        self.take(&r);
                        return Some(r);
                    }
                    // Every aligned X up to the taken column overlaps it.
                    Some(t) => x = (t + 1).div_ceil(align_x) * align_x,
                }
            }
            y += align_y;
        }
        None
    }
}

/// Columns `from..to` of a row as bits (none when `to <= from`).
fn columns(from: usize, to: usize) -> [u64; ROW_WORDS] {
    let mut cols = [0u64; ROW_WORDS];
    for (w, c) in cols.iter_mut().enumerate() {
        // The part of from..to within this word's columns, as bit positions 0..64.
        let lo = from.max(w * 64).min((w + 1) * 64) - w * 64;
        let hi = to.max(w * 64).min((w + 1) * 64) - w * 64;
        if hi > lo {
            *c = (u64::MAX >> (64 - (hi - lo))) << lo;
        }
    }
    cols
}

/// The first column at or after `from` whose bit is clear in `cols`.
fn first_free(cols: &[u64; ROW_WORDS], from: usize) -> Option<usize> {
    let mut at = from;
    while at < gpu::VRAM_WIDTH {
        let free = !cols[at / 64] >> (at % 64);
        if free != 0 {
            return Some(at + free.trailing_zeros() as usize);
        }
        at = (at / 64 + 1) * 64;
    }
    None
}

/// The last column in `[from, to)` whose bit is set in `cols`.
fn last_taken(cols: &[u64; ROW_WORDS], from: usize, to: usize) -> Option<usize> {
    let mut end = to;
    while end > from {
        let word = (end - 1) / 64;
        let lo = from.max(word * 64);
        // The bits of columns lo..end within this word.
        let span = end - lo;
        let mask = if span == 64 {
            u64::MAX
        } else {
            ((1u64 << span) - 1) << (lo % 64)
        };
        let bits = cols[word] & mask;
        if bits != 0 {
            return Some(word * 64 + 63 - bits.leading_zeros() as usize);
        }
        end = lo;
    }
    None
}

/// Places every converted texture (largest first) and its CLUT, avoiding `occupied`; `None`
/// when one does not fit.
pub(super) fn place(
    uses: &[(usize, BlendClass)],
    converted: &[Converted],
    occupied: &[Rect],
    shrink: u32,
) -> Option<TextureSet> {
    let mut alloc = Allocator::new(occupied);
    let mut order: Vec<usize> = (0..converted.len()).collect();
    order.sort_by_key(|&i| {
        let c = &converted[i];
        std::cmp::Reverse((c.h, c.width_halfwords()))
    });
    let mut set = TextureSet {
        shrink,
        ..TextureSet::default()
    };
    let mut rects = vec![None; converted.len()];
    for &i in &order {
        let c = &converted[i];
        let wh = c.width_halfwords().max(1);
        rects[i] = Some(alloc.alloc(wh, c.h, wh.min(64), c.h)?);
    }
    for &i in &order {
        let c = &converted[i];
        let r = rects[i]?;
        let clut = if c.palette.is_empty() {
            Clut(0)
        } else {
            let cr = alloc.alloc(c.palette.len() as u16, 1, 16, 1)?;
            set.uploads.push(VramImage {
                x: cr.x,
                y: cr.y,
                width: cr.w,
                height: 1,
                data: c.palette.clone(),
            });
            Clut::new(cr.x, cr.y)
        };
        set.uploads.push(VramImage {
            x: r.x,
            y: r.y,
            width: r.w,
            height: r.h,
            data: c.data.clone(),
        });
        let texels_per_hw = match c.depth {
            0 => 4,
            1 => 2,
            _ => 1,
        };
        let u0 = (r.x % 64) * texels_per_hw;
        let v0 = r.y % 256;
        let window = Window {
            mask: [((256 - c.w) / 8) as u8, ((256 - c.h) / 8) as u8],
            offset: [(u0 / 8) as u8, (v0 / 8) as u8],
        };
        set.placed.insert(
            uses[i],
            Placed {
                page: TexPage::new(
                    r.x,
                    r.y,
                    BlendMode::Average,
                    gpu::gp0::fields::TextureDepth::from_bits(c.depth),
                ),
                clut,
                window,
                size: [c.w, c.h],
            },
        );
    }
    Some(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// First fit as it was first written: every candidate against every rectangle placed,
    /// skipping past the one it meets. The definition the map must match.
    fn first_fit(used: &mut Vec<Rect>, w: u16, h: u16, align_x: u16, align_y: u16) -> Option<Rect> {
        let overlaps = |a: &Rect, b: &Rect| {
            let (ax, ay, aw, ah) = (a.x as u32, a.y as u32, a.w as u32, a.h as u32);
            let (bx, by, bw, bh) = (b.x as u32, b.y as u32, b.w as u32, b.h as u32);
            ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah
        };
        let mut y = 0u16;
        while y as usize + h as usize <= gpu::VRAM_HEIGHT {
            let mut x = 0u16;
            while x as usize + w as usize <= gpu::VRAM_WIDTH {
                let r = Rect { x, y, w, h };
                match used.iter().find(|u| overlaps(u, &r)) {
                    None => {
                        used.push(r);
                        return Some(r);
                    }
                    Some(u) => x = (u.x + u.w).div_ceil(align_x) * align_x,
                }
            }
            y += align_y;
        }
        None
    }

    /// Random textures and CLUTs, around random occupied areas, land where first fit puts them,
    /// until VRAM is full.
    #[test]
    fn the_map_places_as_first_fit_does() {
        let mut rng = gpu::XorShift::new(0x0009_1ace_0001);
        for round in 0..40 {
            let occupied: Vec<Rect> = (0..rng.below(4))
                .map(|_| Rect {
                    x: rng.below(1024) as u16,
                    y: rng.below(512) as u16,
                    w: 1 + rng.below(400) as u16,
                    h: 1 + rng.below(300) as u16,
                })
                .collect();
            let mut want = occupied.clone();
            let mut map = Allocator::new(&occupied);
            for k in 0..300 {
                let (w, h, ax, ay) = if rng.below(3) == 0 {
                    (16 << rng.below(5), 1, 16, 1)
                } else {
                    let h = 1u16 << rng.below(9);
                    let w = 1u16 << rng.below(7);
                    (w, h, w.min(64), h)
                };
                let got = map.alloc(w, h, ax, ay);
                assert_eq!(
                    got,
                    first_fit(&mut want, w, h, ax, ay),
                    "round {round}, {k}"
                );
                if got.is_none() {
                    break;
                }
            }
        }
    }

    /// A row's bits set a word at a time are the columns set one by one.
    #[test]
    fn columns_are_the_bits_from_to() {
        for from in (0..1024).step_by(7).chain([0, 63, 64, 65, 1023]) {
            for to in (0..=1024).step_by(13).chain([0, 1, 64, 128, 1023, 1024]) {
                let mut want = [0u64; ROW_WORDS];
                for x in from..to {
                    want[x / 64] |= 1 << (x % 64);
                }
                assert_eq!(columns(from, to), want, "{from}..{to}");
            }
        }
    }

    #[test]
    fn last_taken_finds_the_rightmost_set_column() {
        let mut cols = [0u64; ROW_WORDS];
        assert_eq!(last_taken(&cols, 0, 1024), None);
        cols[1] = 1 << 5; // column 69
        cols[3] = 1; // column 192
        assert_eq!(last_taken(&cols, 0, 1024), Some(192));
        assert_eq!(last_taken(&cols, 0, 192), Some(69));
        assert_eq!(last_taken(&cols, 70, 192), None);
        assert_eq!(last_taken(&cols, 69, 70), Some(69));
        assert_eq!(last_taken(&cols, 64, 128), Some(69));
        assert_eq!(first_free(&cols, 69), Some(70));
        assert_eq!(first_free(&cols, 0), Some(0));
        cols = [u64::MAX; ROW_WORDS];
        cols[15] = !(1 << 63); // only column 1023 free
        assert_eq!(first_free(&cols, 5), Some(1023));
        cols[15] = u64::MAX;
        assert_eq!(first_free(&cols, 0), None);
    }
}
