//! VRAM placement: each texture at an X aligned to its width (64 halfwords at most) and a Y
//! aligned to its height, CLUTs at X multiples of 16, first fit row by row.

use gpu::gp0::fields::{BlendMode, Clut, TexPage};

use super::quantise::Converted;
use super::{BlendClass, Placed, Rect, TextureSet, Window};
use crate::scene::VramImage;

/// First-fit placement on aligned positions, row by row.
struct Allocator {
    used: Vec<Rect>,
}

impl Allocator {
    fn alloc(&mut self, w: u16, h: u16, align_x: u16, align_y: u16) -> Option<Rect> {
        let mut y = 0u16;
        while y as usize + h as usize <= gpu::VRAM_HEIGHT {
            let mut x = 0u16;
            while x as usize + w as usize <= gpu::VRAM_WIDTH {
                let r = Rect { x, y, w, h };
                match self.used.iter().find(|u| u.overlaps(&r)) {
                    None => {
                        self.used.push(r);
                        return Some(r);
                    }
                    // Skip past the blocking rectangle.
                    Some(u) => x = (u.x + u.w).div_ceil(align_x) * align_x,
                }
            }
            y += align_y;
        }
        None
    }
}

/// Places every converted texture (largest first) and its CLUT, avoiding `occupied`; `None`
/// when one does not fit.
pub(super) fn place(
    uses: &[(usize, BlendClass)],
    converted: &[Converted],
    occupied: &[Rect],
    shrink: u32,
) -> Option<TextureSet> {
    let mut alloc = Allocator {
        used: occupied.to_vec(),
    };
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
