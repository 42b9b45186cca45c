//! DXT (S3TC; BC1, BC2, BC3) block decoding into RGBA pixels, for DDS and BLP2 textures.
//!
//! Each 4×4 block holds a colour part (two RGB565 endpoints and sixteen 2-bit indices) and, for
//! DXT3/DXT5, an alpha part before it. The four colours of a block are the endpoints widened
//! to 8 bits by repeating their top bits, and the thirds between them rounded down; a DXT1
//! block whose first endpoint is not above the second has the half-way colour instead and a
//! transparent black fourth. DXT3 alpha is 4 bits a pixel, widened by repetition; DXT5 alpha
//! is eight levels from two endpoints (sevenths between them rounded down, or fifths plus 0
//! and 255 when the first is not above the second) and 3-bit indices. A block's pixels
//! outside the image (sides not a multiple of 4) are dropped.
//!
//! The rule is written here, a palette per block and a look-up per pixel, rather than left to
//! `texpresso`, whose decoder copies each decoded block into the image byte by byte at nearly
//! twice the cost; a unit test holds the two to the same pixels.

/// The block encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dxt {
    /// DXT1 / BC1: 8 bytes a block, colour only (1-bit alpha in its three-colour mode).
    Dxt1,
    /// DXT3 / BC2: 16 bytes a block, 4-bit explicit alpha then colour.
    Dxt3,
    /// DXT5 / BC3: 16 bytes a block, interpolated alpha then colour.
    Dxt5,
}

impl Dxt {
    /// Bytes of one block.
    pub fn block_bytes(self) -> usize {
        match self {
            Dxt::Dxt1 => 8,
            Dxt::Dxt3 | Dxt::Dxt5 => 16,
        }
    }

    /// Bytes of a `w`×`h` image (whole blocks).
    pub fn level_bytes(self, w: usize, h: usize) -> usize {
        w.div_ceil(4) * h.div_ceil(4) * self.block_bytes()
    }
}

/// The `w`×`h` image whose blocks are `data`, row of blocks after row of blocks; the pixel
/// rows in reverse order when `flip` (images stored bottom row first). `None` when `data` is
/// shorter than [`Dxt::level_bytes`]; bytes after that are ignored.
pub fn decode(format: Dxt, w: usize, h: usize, data: &[u8], flip: bool) -> Option<Vec<[u8; 4]>> {
    let data = data.get(..format.level_bytes(w, h))?;
    let mut out = vec![[0u8; 4]; w * h];
    let row_bytes = w.div_ceil(4) * format.block_bytes();
    if row_bytes == 0 {
        return Some(out);
    }
    // The format is matched once per image, not once per block.
    match format {
        Dxt::Dxt1 => decode_blocks::<DXT1>(w, h, data, flip, &mut out),
        Dxt::Dxt3 => decode_blocks::<DXT3>(w, h, data, flip, &mut out),
        Dxt::Dxt5 => decode_blocks::<DXT5>(w, h, data, flip, &mut out),
    }
    Some(out)
}

// The formats as const generic parameters.
const DXT1: u8 = 1;
const DXT3: u8 = 3;
const DXT5: u8 = 5;

/// Decodes `data` (whole blocks of format `F`, at least one a row) into `out` (`w`×`h`).
fn decode_blocks<const F: u8>(w: usize, h: usize, data: &[u8], flip: bool, out: &mut [[u8; 4]]) {
    let block_bytes = if F == DXT1 { 8 } else { 16 };
    let row_bytes = w.div_ceil(4) * block_bytes;
    for (by, blocks) in data.chunks_exact(row_bytes).enumerate() {
        let rows = (h - by * 4).min(4);
        for (bx, block) in blocks.chunks_exact(block_bytes).enumerate() {
            let pixels = block_pixels::<F>(block);
            let x = bx * 4;
            for (py, from) in pixels.chunks_exact(4).take(rows).enumerate() {
                let y = by * 4 + py;
                let row = if flip { h - 1 - y } else { y };
                // A whole row of the block is four fixed-size stores; only a block on the
                // image's right edge may have fewer columns.
                let dst = &mut out[row * w + x..row * w + (x + 4).min(w)];
                if let Ok(dst) = <&mut [[u8; 4]; 4]>::try_from(&mut *dst) {
                    *dst = [0, 1, 2, 3].map(|i| from[i].to_le_bytes());
                } else {
                    for (d, &p) in dst.iter_mut().zip(from) {
                        *d = p.to_le_bytes();
                    }
                }
            }
        }
    }
}

/// The sixteen pixels of one block of format `F`, row by row, each RGBA packed little-endian.
fn block_pixels<const F: u8>(block: &[u8]) -> [u32; 16] {
    let colour = if F == DXT1 { block } else { &block[8..] };
    let colours = colours(colour, F == DXT1);
    let bits = u32::from_le_bytes([colour[4], colour[5], colour[6], colour[7]]);
    let pick = |i: usize| colours[(bits >> (2 * i) & 3) as usize];
    match F {
        DXT3 => {
            let alpha = explicit_alpha(&block[..8]);
            std::array::from_fn(|i| pick(i) & 0x00ff_ffff | u32::from(alpha[i]) << 24)
        }
        DXT5 => {
            let alpha = interpolated_alpha(&block[..8]);
            std::array::from_fn(|i| pick(i) & 0x00ff_ffff | u32::from(alpha[i]) << 24)
        }
        _ => std::array::from_fn(pick),
    }
}

/// A 5- or 6-bit channel widened to 8 bits by repeating its top bits.
#[inline]
fn widen(v: u16, bits: u32) -> u32 {
    let v = u32::from(v);
    (v << (8 - bits)) | (v >> (2 * bits - 8))
}

/// The four colours of a colour part (see the module docs), RGBA packed little-endian.
#[inline]
fn colours(part: &[u8], dxt1: bool) -> [u32; 4] {
    let (a, b) = (
        u16::from_le_bytes([part[0], part[1]]),
        u16::from_le_bytes([part[2], part[3]]),
    );
    let rgb = |c: u16| {
        [
            widen(c >> 11, 5),
            widen(c >> 5 & 0x3f, 6),
            widen(c & 0x1f, 5),
        ]
    };
    let (c, d) = (rgb(a), rgb(b));
    let pack = |p: [u32; 3]| p[0] | p[1] << 8 | p[2] << 16 | 0xff00_0000;
    let mix = |f: fn(u32, u32) -> u32| pack([f(c[0], d[0]), f(c[1], d[1]), f(c[2], d[2])]);
    if dxt1 && a <= b {
        [pack(c), pack(d), mix(|c, d| (c + d) / 2), 0]
    } else {
        [
            pack(c),
            pack(d),
            mix(|c, d| (2 * c + d) / 3),
            mix(|c, d| (c + 2 * d) / 3),
        ]
    }
}

/// DXT3's sixteen 4-bit alphas, low nibble first, widened to 8 bits.
#[inline]
fn explicit_alpha(part: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (pair, &b) in out.chunks_exact_mut(2).zip(part) {
        pair[0] = (b & 0x0f) * 17;
        pair[1] = (b >> 4) * 17;
    }
    out
}

/// DXT5's sixteen alphas from its two endpoints and 3-bit indices (see the module docs).
#[inline]
fn interpolated_alpha(part: &[u8]) -> [u8; 16] {
    let (a0, a1) = (u32::from(part[0]), u32::from(part[1]));
    let mut levels = [0u8; 8];
    levels[0] = part[0];
    levels[1] = part[1];
    if a0 <= a1 {
        for i in 1..5 {
            levels[1 + i as usize] = (((5 - i) * a0 + i * a1) / 5) as u8;
        }
        levels[7] = 255;
    } else {
        for i in 1..7 {
            levels[1 + i as usize] = (((7 - i) * a0 + i * a1) / 7) as u8;
        }
    }
    let mut bits = 0u64;
    for (i, &b) in part[2..8].iter().enumerate() {
        bits |= u64::from(b) << (8 * i);
    }
    std::array::from_fn(|i| levels[(bits >> (3 * i) & 7) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn theirs(format: Dxt) -> texpresso::Format {
        match format {
            Dxt::Dxt1 => texpresso::Format::Bc1,
            Dxt::Dxt3 => texpresso::Format::Bc2,
            Dxt::Dxt5 => texpresso::Format::Bc3,
        }
    }

    proptest! {
        /// Any blocks, any size (edges not on block boundaries too): the pixels texpresso
        /// decodes, and in reverse row order when flipped.
        #[test]
        fn decodes_as_texpresso_does(
            kind in 0..3usize,
            w in 1..14usize,
            h in 1..14usize,
            seed in any::<u64>(),
        ) {
            let format = [Dxt::Dxt1, Dxt::Dxt3, Dxt::Dxt5][kind];
            let mut x = seed | 1;
            let data: Vec<u8> = (0..format.level_bytes(w, h))
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let mut expected = vec![0u8; w * h * 4];
            theirs(format).decompress(&data, w, h, &mut expected);
            let ours = decode(format, w, h, &data, false).unwrap();
            prop_assert_eq!(ours.as_flattened(), &expected[..]);
            let flipped = decode(format, w, h, &data, true).unwrap();
            let rows: Vec<&[[u8; 4]]> = flipped.chunks_exact(w).rev().collect();
            prop_assert_eq!(rows.concat(), ours);
        }
    }

    #[test]
    fn both_colour_orders_and_alpha_modes() {
        // Endpoints in both orders (four colours; three and transparent for DXT1), alpha
        // endpoints in both orders (seven levels; five plus 0 and 255), every index.
        for (c0, c1) in [(0xF800u16, 0x001Fu16), (0x001F, 0xF800), (0x1234, 0x1234)] {
            for (a0, a1) in [(200u8, 10u8), (10, 200)] {
                let mut block = vec![a0, a1, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA];
                block.extend_from_slice(&c0.to_le_bytes());
                block.extend_from_slice(&c1.to_le_bytes());
                block.extend_from_slice(&[0xE4, 0x1B, 0xE4, 0x1B]);
                for format in [Dxt::Dxt1, Dxt::Dxt3, Dxt::Dxt5] {
                    let data = if format == Dxt::Dxt1 {
                        &block[8..]
                    } else {
                        &block[..]
                    };
                    let mut expected = vec![0u8; 64];
                    theirs(format).decompress(data, 4, 4, &mut expected);
                    let ours = decode(format, 4, 4, data, false).unwrap();
                    assert_eq!(
                        ours.as_flattened(),
                        &expected[..],
                        "{format:?} {c0:#x} {a0}"
                    );
                }
            }
        }
    }

    #[test]
    fn short_data_is_refused() {
        assert!(decode(Dxt::Dxt5, 8, 8, &[0; 63], false).is_none());
        assert_eq!(decode(Dxt::Dxt1, 4, 4, &[0; 9], false).unwrap().len(), 16);
    }
}
