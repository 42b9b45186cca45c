//! The per-pixel back end shared by every primitive: dither, texture modulation,
//! semi-transparency and the mask bit.
//!
//! Source: psx-spx "GPU Rendering Attributes" / "Semi Transparency" / "Dithering";
//! verified by hwtests probe phases 5, 7, 11, 12.

use crate::gp0::fields::BlendMode;

/// The 4×4 dither offsets added to 8-bit colour components, indexed `[y & 3][x & 3]`.
// Source: psx-spx "24bit RGB to 15bit RGB Dithering"; verified: hwtests phase 11.
pub const DITHER: [[i16; 4]; 4] = [
    [-4, 0, -3, 1],
    [2, -2, 3, -1],
    [-3, 1, -4, 0],
    [3, -1, 2, -2],
];

/// How pixels of one primitive are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelMode {
    /// Blend mode when the primitive is semi-transparent.
    pub blend: Option<BlendMode>,
    /// GP0(E6h) bit 0: force bit 15 of written pixels.
    pub set_mask: u16,
    /// GP0(E6h) bit 1: skip pixels whose destination has bit 15.
    pub check_mask: bool,
}

/// Blends foreground `f` over background `b` (both BGR555).
#[inline]
pub fn blend(mode: BlendMode, b: u16, f: u16) -> u16 {
    match mode {
        BlendMode::Average => blend_const::<BLEND_AVERAGE>(b, f),
        BlendMode::Add => blend_const::<BLEND_ADD>(b, f),
        BlendMode::Subtract => blend_const::<BLEND_SUBTRACT>(b, f),
        BlendMode::AddQuarter => blend_const::<BLEND_ADD_QUARTER>(b, f),
    }
}

/// Const-generic blend selectors for the specialised span loops (0 = opaque primitive).
pub const BLEND_NONE: u8 = 0;
/// B/2 + F/2.
pub const BLEND_AVERAGE: u8 = 1;
/// B + F.
pub const BLEND_ADD: u8 = 2;
/// B − F.
pub const BLEND_SUBTRACT: u8 = 3;
/// B + F/4.
pub const BLEND_ADD_QUARTER: u8 = 4;

/// The selector of a primitive's blend mode.
pub fn blend_selector(mode: Option<BlendMode>) -> u8 {
    match mode {
        None => BLEND_NONE,
        Some(BlendMode::Average) => BLEND_AVERAGE,
        Some(BlendMode::Add) => BLEND_ADD,
        Some(BlendMode::Subtract) => BLEND_SUBTRACT,
        Some(BlendMode::AddQuarter) => BLEND_ADD_QUARTER,
    }
}

/// [`blend`] with the mode known at compile time (`MODE` a `BLEND_*` selector other than none).
#[inline(always)]
pub fn blend_const<const MODE: u8>(b: u16, f: u16) -> u16 {
    let mut out = 0u16;
    for shift in [0, 5, 10] {
        let bc = ((b >> shift) & 31) as i16;
        let fc = ((f >> shift) & 31) as i16;
        let c = match MODE {
            BLEND_AVERAGE => (bc + fc) >> 1,
            BLEND_ADD => (bc + fc).min(31),
            BLEND_SUBTRACT => (bc - fc).max(0),
            _ => (bc + (fc >> 2)).min(31),
        };
        out |= (c as u16) << shift;
    }
    out
}

/// [`PixelMode::put`] with the blend mode known at compile time: `check` is 0x8000 when
/// GP0(E6h) bit 1 is set (else 0), `set` the forced bit 15.
#[inline(always)]
pub fn put_const<const MODE: u8>(dst: &mut u16, color: u16, semi: bool, check: u16, set: u16) {
    // An opaque write without the mask check never reads the destination.
    if MODE == BLEND_NONE {
        if check != 0 && *dst & check != 0 {
            return;
        }
        *dst = color | set;
        return;
    }
    let d = *dst;
    if d & check != 0 {
        return;
    }
    // Blended and plain colour selected without a branch: texel bit 15 gates blending pixel by
    // pixel and is unpredictable in real textures.
    let c = color & 0x7fff;
    let blended = blend_const::<MODE>(d & 0x7fff, c);
    let keep = (semi as u16).wrapping_neg();
    *dst = (blended & keep) | (c & !keep) | (color & 0x8000) | set;
}

impl PixelMode {
    /// Writes `color` (bits 0–14 colour, bit 15 the texel's mask/semi bit) to `dst`,
    /// blending when `semi` is set for this pixel.
    #[inline]
    pub fn put(&self, dst: &mut u16, color: u16, semi: bool) {
        let d = *dst;
        if self.check_mask && d & 0x8000 != 0 {
            return;
        }
        let mut c = color & 0x7fff;
        if semi {
            if let Some(mode) = self.blend {
                c = blend(mode, d & 0x7fff, c);
            }
        }
        *dst = c | (color & 0x8000) | self.set_mask;
    }
}

/// An 8-bit component to 5 bits, dithered with offset `d` (0 = plain truncation).
#[inline]
pub fn to5(c: i32, d: i32) -> u16 {
    ((c + d).clamp(0, 255) >> 3) as u16
}

/// 8-bit RGB to BGR555 with dither offset `d`.
#[inline]
pub fn rgb_to_555(r: i32, g: i32, b: i32, d: i32) -> u16 {
    to5(r, d) | (to5(g, d) << 5) | (to5(b, d) << 10)
}

/// Modulates texel `t` (BGR555 + bit 15) by 8-bit colour (128 = ×1), dithered by `d`.
/// Bit 15 of the texel is kept.
#[inline]
pub fn modulate(t: u16, r: i32, g: i32, b: i32, d: i32) -> u16 {
    let m = |shift: u16, c: i32| -> u16 {
        let tc = ((t >> shift) & 31) as i32;
        (((tc * c) >> 4) + d).clamp(0, 255) as u16 >> 3
    };
    m(0, r) | (m(5, g) << 5) | (m(10, b) << 10) | (t & 0x8000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_modes() {
        let b = 0x7fff & (20 | (10 << 5) | (31 << 10));
        let f = 8 | (30 << 5) | (4 << 10);
        assert_eq!(blend(BlendMode::Average, b, f), 14 | (20 << 5) | (17 << 10));
        assert_eq!(blend(BlendMode::Add, b, f), 28 | (31 << 5) | (31 << 10));
        assert_eq!(blend(BlendMode::Subtract, b, f), 12 | (27 << 10));
        assert_eq!(
            blend(BlendMode::AddQuarter, b, f),
            22 | (17 << 5) | (31 << 10)
        );
    }

    #[test]
    fn modulate_saturates_and_identity_at_128() {
        assert_eq!(modulate(0x7fff, 128, 128, 128, 0), 0x7fff);
        assert_eq!(modulate(0x8010, 255, 128, 0, 0), 0x801f);
        assert_eq!(modulate(0x0010, 64, 0, 0, 0), 0x0008);
    }

    #[test]
    fn mask_check_and_set() {
        let m = PixelMode {
            blend: None,
            set_mask: 0x8000,
            check_mask: true,
        };
        let mut d = 0x8001;
        m.put(&mut d, 0x1234, false);
        assert_eq!(d, 0x8001);
        let mut d = 0x0001;
        m.put(&mut d, 0x1234, false);
        assert_eq!(d, 0x9234);
    }
}
