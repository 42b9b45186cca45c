//! The picture a TV shows (the GPU's read-out: [`gpu::picture`], re-exported here), and the
//! whole VRAM as a picture or as raw bytes.

pub use gpu::picture::{cut, shown, size, Picture};
use gpu::{VRAM_HEIGHT, VRAM_WIDTH};

use crate::output::bgr555_to_rgb;

/// The halfword at (x, y); 0 if `vram` is short.
fn halfword(vram: &[u16], x: usize, y: usize) -> u16 {
    vram.get(y * VRAM_WIDTH + x).copied().unwrap_or(0)
}

/// The whole VRAM as a 1024×512 RGB picture, one pixel per halfword, 15-bit decoded.
pub fn vram_picture(vram: &[u16]) -> Picture {
    let mut rgb = Vec::with_capacity(VRAM_WIDTH * VRAM_HEIGHT * 3);
    for y in 0..VRAM_HEIGHT {
        for x in 0..VRAM_WIDTH {
            rgb.extend(bgr555_to_rgb(halfword(vram, x, y)));
        }
    }
    Picture {
        width: VRAM_WIDTH as u32,
        height: VRAM_HEIGHT as u32,
        rgb,
    }
}

/// The whole VRAM as exactly 1 MiB: 1024×512 little-endian halfwords, mask bit included.
pub fn vram_raw(vram: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(VRAM_WIDTH * VRAM_HEIGHT * 2);
    for i in 0..VRAM_WIDTH * VRAM_HEIGHT {
        out.extend(vram.get(i).copied().unwrap_or(0).to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_is_one_mib_and_the_picture_one_pixel_a_halfword() {
        let mut v = vec![0u16; VRAM_WIDTH * VRAM_HEIGHT];
        v[0] = 0xffff;
        let raw = vram_raw(&v);
        assert_eq!(raw.len(), 1 << 20);
        assert_eq!(raw[..4], [0xff, 0xff, 0, 0]);
        assert_eq!(vram_picture(&v).rgb[..4], [255, 255, 255, 0]);
    }
}
