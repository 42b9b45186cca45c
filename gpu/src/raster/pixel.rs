//! The per-pixel rule shared by every primitive: texture modulation, dither, saturation to 5
//! bits, semi-transparency and the mask bit, from a texel (see [`super::texture::fetch`]) and
//! a colour to the halfword left in VRAM.
//!
//! Design rule: written once, generic over [`Lanes`], and compiled for each kernel (one pixel in
//! [`Scalar`], eight in the portable and AVX2 lanes; see [`super::lanes`]). The flags
//! (textured, raw, blend mode) are plain arguments: every kernel passes constants, which the
//! compiler folds away in the inlined rule, and the in-order path (`super::shade`) passes
//! run-time values.
//!
//! Source: psx-spx "GPU Rendering Attributes" / "Semi Transparency" / "Dithering";
//! verified by hwtests probe phases 5, 7, 11, 12.

use super::lanes::Lanes;
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

/// Blend selectors, the rule's blend argument and the span loops' const parameter: an opaque
/// primitive.
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

/// How a primitive writes pixels: `check` 0x8000 when GP0(E6h) bit 1 is set (else 0), `set`
/// the forced bit 15 (GP0(E6h) bit 0); `V` a halfword, or one per lane (see [`PixelOut::lanes`]).
#[derive(Clone, Copy, Debug)]
pub struct PixelOut<V = u16> {
    /// Destination bits that forbid the write.
    pub check: V,
    /// Bits forced on in every written pixel.
    pub set: V,
}

impl PixelOut {
    /// The mask handling of `mode`.
    pub fn new(mode: &PixelMode) -> Self {
        PixelOut {
            check: if mode.check_mask { 0x8000 } else { 0 },
            set: mode.set_mask,
        }
    }

    /// The same in every lane of `l`.
    #[inline(always)]
    pub fn lanes<L: Lanes>(self, l: L) -> PixelOut<L::V> {
        PixelOut {
            check: l.splat(self.check.into()),
            set: l.splat(self.set.into()),
        }
    }
}

/// What the rule takes for a group of pixels, `V` one value per pixel.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<V> {
    /// The halfwords in VRAM.
    pub dst: V,
    /// The texels (textured primitives only).
    pub texel: V,
    /// Red, green, blue, 8-bit.
    pub rgb: [V; 3],
    /// The dither offsets (0 where not dithered).
    pub dither: V,
    /// All ones for the pixels the primitive covers; the others keep `dst`.
    pub covered: V,
}

/// A primitive's flags, as the rule reads them: every kernel passes constants.
#[derive(Clone, Copy, Debug)]
pub struct Flags {
    /// Textured.
    pub textured: bool,
    /// Texels unmodulated (with a texture only).
    pub raw: bool,
    /// A `BLEND_*` selector.
    pub blend: u8,
}

impl Flags {
    /// A primitive textured or not, its texels raw or modulated, blending by selector `blend`.
    pub const fn new(textured: bool, raw: bool, blend: u8) -> Self {
        Flags {
            textured,
            raw,
            blend,
        }
    }
}

/// The halfwords `p` leaves in VRAM: the texel (0x0000 is transparent) modulated by the colour
/// or the colour alone, dithered and saturated to BGR555, blended with the destination when
/// semi-transparent, unless the destination's checked mask bit forbids the write (`out`).
#[inline(always)]
pub fn pixel<L: Lanes>(l: L, f: Flags, p: Inputs<L::V>, out: PixelOut<L::V>) -> L::V {
    let col = colour(l, f, p.texel, p.rgb, p.dither);
    let draw = l.andnot(
        transparent(l, f, p.texel),
        l.and(p.covered, writable(l, p.dst, out)),
    );
    l.select(draw, l.or(written(l, f, p.dst, col), out.set), p.dst)
}

/// All ones where a textured primitive's texel is transparent (0x0000), else zero.
#[inline(always)]
pub fn transparent<L: Lanes>(l: L, f: Flags, texel: L::V) -> L::V {
    if f.textured {
        l.eq(texel, l.splat(0))
    } else {
        l.splat(0)
    }
}

/// All ones where the destination `dst` has no mask bit `out` checks, else zero.
#[inline(always)]
pub fn writable<L: Lanes>(l: L, dst: L::V, out: PixelOut<L::V>) -> L::V {
    l.eq(l.and(dst, out.check), l.splat(0))
}

/// The colour of a pixel before blending, BGR555 with bit 15 the texel's: the texel unchanged
/// (raw), the texel modulated by `rgb` (128 = ×1), or `rgb` alone; dithered by `d`.
#[inline(always)]
pub fn colour<L: Lanes>(l: L, f: Flags, texel: L::V, rgb: [L::V; 3], d: L::V) -> L::V {
    let [r, g, b] = rgb;
    if f.textured && f.raw {
        texel
    } else if f.textured {
        let c = l.or(
            modulate5::<L, 0>(l, texel, r, d),
            modulate5::<L, 5>(l, texel, g, d),
        );
        let c = l.or(c, modulate5::<L, 10>(l, texel, b, d));
        l.or(c, l.and(texel, l.splat(0x8000)))
    } else {
        let c = l.or(to5::<L, 0>(l, r, d), to5::<L, 5>(l, g, d));
        l.or(c, to5::<L, 10>(l, b, d))
    }
}

/// The component at bit `S` of texel `t` modulated by colour `c`, dithered by `d`, saturated:
/// `clamp(((tc × c) >> 4) + d, 0, 255) >> 3` at bit `S`.
#[inline(always)]
fn modulate5<L: Lanes, const S: i32>(l: L, t: L::V, c: L::V, d: L::V) -> L::V {
    let tc = l.and(l.shr::<S>(t), l.splat(31));
    to5::<L, S>(l, l.sar::<4>(l.mul(tc, c)), d)
}

/// 8-bit component `c` dithered by `d`, saturated to 0..=255 and cut to 5 bits at bit `S`.
#[inline(always)]
fn to5<L: Lanes, const S: i32>(l: L, c: L::V, d: L::V) -> L::V {
    let m = l.min(l.max(l.add(c, d), l.splat(0)), l.splat(255));
    l.shl::<S>(l.shr::<3>(m))
}

/// The value written over `dst` for colour `col`, before the forced mask bit: `col` itself, or
/// blended with `dst` where semi-transparent (untextured pixels always; textured ones where the
/// texel has bit 15).
#[inline(always)]
fn written<L: Lanes>(l: L, f: Flags, dst: L::V, col: L::V) -> L::V {
    if f.blend == BLEND_NONE {
        return col;
    }
    let (bit15, low15) = (l.splat(0x8000), l.splat(0x7fff));
    let (bg, fg) = (l.and(dst, low15), l.and(col, low15));
    let blended = l.or(
        l.or(
            blend5::<L, 0>(l, f.blend, bg, fg),
            blend5::<L, 5>(l, f.blend, bg, fg),
        ),
        blend5::<L, 10>(l, f.blend, bg, fg),
    );
    let c = if f.textured {
        l.select(l.eq(l.and(col, bit15), bit15), blended, fg)
    } else {
        blended
    };
    l.or(c, l.and(col, bit15))
}

/// The component at bit `S` of background `b` blended with foreground `f` by `mode`.
#[inline(always)]
fn blend5<L: Lanes, const S: i32>(l: L, mode: u8, b: L::V, f: L::V) -> L::V {
    let five = l.splat(31);
    let bc = l.and(l.shr::<S>(b), five);
    let fc = l.and(l.shr::<S>(f), five);
    let c = match mode {
        BLEND_AVERAGE => l.shr::<1>(l.add(bc, fc)),
        BLEND_ADD => l.min(l.add(bc, fc), five),
        BLEND_SUBTRACT => l.max(l.sub(bc, fc), l.splat(0)),
        _ => l.min(l.add(bc, l.shr::<2>(fc)), five),
    };
    l.shl::<S>(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::lanes::Scalar;

    /// Untextured and opaque.
    const UNTEXTURED: Flags = Flags {
        textured: false,
        raw: false,
        blend: BLEND_NONE,
    };

    /// Blends foreground `f` over background `b` (both BGR555): the rule `written` applies, for one pixel.
    pub fn blend(mode: BlendMode, b: u16, f: u16) -> u16 {
        let flags = Flags {
            textured: false,
            raw: false,
            blend: blend_selector(Some(mode)),
        };
        written(Scalar, flags, b.into(), (f & 0x7fff).into()) as u16 & 0x7fff
    }

    /// 8-bit RGB to BGR555 with dither offset `d`: [`colour`] of an untextured pixel.
    pub fn rgb_to_555(r: i32, g: i32, b: i32, d: i32) -> u16 {
        colour(Scalar, UNTEXTURED, 0, [r, g, b], d) as u16
    }

    /// Texel `t` (BGR555 + bit 15) modulated by 8-bit colour (128 = ×1), dithered by `d`, bit 15
    /// kept: [`colour`] of a textured pixel.
    pub fn modulate(t: u16, r: i32, g: i32, b: i32, d: i32) -> u16 {
        let f = Flags {
            textured: true,
            ..UNTEXTURED
        };
        colour(Scalar, f, t.into(), [r, g, b], d) as u16
    }

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

    /// A pixel through the rule for one pixel, untextured.
    fn put(out: PixelOut, dst: u16, colour: [i32; 3]) -> u16 {
        let p = Inputs {
            dst: dst.into(),
            texel: 0,
            rgb: colour,
            dither: 0,
            covered: -1,
        };
        pixel(Scalar, UNTEXTURED, p, out.lanes(Scalar)) as u16
    }

    #[test]
    fn mask_check_and_set() {
        let out = PixelOut {
            check: 0x8000,
            set: 0x8000,
        };
        assert_eq!(put(out, 0x8001, [8, 16, 24]), 0x8001);
        assert_eq!(
            put(out, 0x0001, [8, 16, 24]),
            0x8000 | rgb_to_555(8, 16, 24, 0)
        );
    }
}
