//! GP0 parameter words as newtypes, each accessor naming its bits, and each constructor (the
//! encoder a CPU-side writer uses) next to the accessors that read the same bits back.
//!
//! The drawing-environment commands GP0(E1h)–GP0(E6h) are one word each: their types here read
//! the word's parameter bits (`from_word`) and write the whole word back (`word`).
//!
//! Source: psx-spx "GPU Render Polygon/Line/Rectangle Commands" and "GPU Rendering Attributes";
//! the sign-extension and field widths are verified by the hwtests probes (phases 1, 14).

/// GP0 command bytes that encoders write and [`super::decode::decode`] reads by name.
pub mod opcode {
    /// GP0(01h): clear the texture cache.
    pub const CLEAR_CACHE: u8 = 0x01;
    /// GP0(02h): fill a rectangle.
    pub const FILL: u8 = 0x02;
    /// GP0(A0h): CPU→VRAM transfer (A0h–BFh all mean it).
    pub const CPU_TO_VRAM: u8 = 0xa0;
    /// GP0(E1h): draw mode.
    pub const DRAW_MODE: u8 = 0xe1;
    /// GP0(E2h): texture window.
    pub const TEX_WINDOW: u8 = 0xe2;
    /// GP0(E3h): drawing area top-left.
    pub const AREA_TOP_LEFT: u8 = 0xe3;
    /// GP0(E4h): drawing area bottom-right.
    pub const AREA_BOTTOM_RIGHT: u8 = 0xe4;
    /// GP0(E5h): drawing offset.
    pub const DRAW_OFFSET: u8 = 0xe5;
    /// GP0(E6h): mask bit setting.
    pub const MASK_SETTING: u8 = 0xe6;
}

/// A command word: `op` in bits 24–31 above the parameter bits `params` (bits 0–23).
#[inline]
pub const fn command_word(op: u8, params: u32) -> u32 {
    (op as u32) << 24 | (params & 0x00ff_ffff)
}

/// Sign-extends the low 11 bits of `v`.
#[inline]
pub fn sext11(v: i32) -> i32 {
    (v << 21) >> 21
}

/// A colour word: bits 0–7 red, 8–15 green, 16–23 blue (the command byte sits in 24–31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ColorWord(pub u32);

impl ColorWord {
    /// The word with `command` in bits 24–31 (a primitive's first word; 0 for later colour
    /// words) and `rgb` below it.
    pub fn new(command: u8, rgb: [u8; 3]) -> ColorWord {
        ColorWord(
            u32::from(rgb[0])
                | u32::from(rgb[1]) << 8
                | u32::from(rgb[2]) << 16
                | u32::from(command) << 24,
        )
    }
    /// The command byte (bits 24–31).
    pub fn command(self) -> u8 {
        (self.0 >> 24) as u8
    }
    /// Red, 8 bits.
    pub fn r(self) -> u8 {
        self.0 as u8
    }
    /// Green, 8 bits.
    pub fn g(self) -> u8 {
        (self.0 >> 8) as u8
    }
    /// Blue, 8 bits.
    pub fn b(self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// The colour reduced to BGR555 by dropping the 3 low bits of each channel (no dither).
    pub fn to_bgr555(self) -> u16 {
        (self.r() as u16 >> 3) | ((self.g() as u16 >> 3) << 5) | ((self.b() as u16 >> 3) << 10)
    }
}

/// A vertex word: bits 0–10 X and 16–26 Y, both signed 11-bit (bits 11–15 / 27–31 ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VertexWord(pub u32);

impl VertexWord {
    /// The word for (`x`, `y`), each stored as its low 16 bits (as a CPU stores the GTE's SXY
    /// halves); the GPU reads 11 of them, so -1024..=1023 reads back unchanged.
    pub fn new(x: i16, y: i16) -> VertexWord {
        VertexWord(u32::from(x as u16) | u32::from(y as u16) << 16)
    }
    /// X, sign-extended from 11 bits (-1024..=1023).
    pub fn x(self) -> i32 {
        sext11(self.0 as i32)
    }
    /// Y, sign-extended from 11 bits (-1024..=1023).
    pub fn y(self) -> i32 {
        sext11((self.0 >> 16) as i32)
    }
}

/// A texture-coordinate word: bits 0–7 U, 8–15 V, 16–31 a CLUT or texture-page attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TexCoordWord(pub u32);

impl TexCoordWord {
    /// The word for texel (`u`, `v`) with `attr` (a [`Clut`] or [`TexPage`] halfword, or 0) in
    /// the upper half.
    pub fn new(u: u8, v: u8, attr: u16) -> TexCoordWord {
        TexCoordWord(u32::from(u) | u32::from(v) << 8 | u32::from(attr) << 16)
    }
    /// U, 8 bits.
    pub fn u(self) -> u8 {
        self.0 as u8
    }
    /// V, 8 bits.
    pub fn v(self) -> u8 {
        (self.0 >> 8) as u8
    }
    /// The upper halfword (CLUT in the first texcoord word, texpage in the second).
    pub fn attr(self) -> u16 {
        (self.0 >> 16) as u16
    }
}

/// A CLUT attribute: bits 0–5 X/16, bits 6–14 Y.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Clut(pub u16);

impl Clut {
    /// The CLUT at VRAM (`x`, `y`): `x` rounded down to a multiple of 16 (0..=1008), `y`
    /// 0..=511.
    pub fn new(x: u16, y: u16) -> Clut {
        Clut(((x / 16) & 0x3f) | ((y & 0x1ff) << 6))
    }
    /// X in VRAM halfwords (a multiple of 16).
    pub fn x(self) -> usize {
        (self.0 as usize & 0x3f) * 16
    }
    /// Y in VRAM lines.
    pub fn y(self) -> usize {
        (self.0 as usize >> 6) & 0x1ff
    }
}

/// Texture colour depth (texpage bits 7–8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDepth {
    /// 4-bit CLUT indices, 4 texels per halfword.
    Clut4,
    /// 8-bit CLUT indices, 2 texels per halfword.
    Clut8,
    /// Direct 15-bit colour (value 3 is "reserved" and behaves as 15-bit).
    Direct15,
}

impl TextureDepth {
    /// The depth of texpage bits 7–8 (`bits` 0–3; 3 is 15-bit).
    pub fn from_bits(bits: u8) -> TextureDepth {
        // A table, not a branch: a stream's depths follow no pattern.
        const DEPTHS: [TextureDepth; 4] = [
            TextureDepth::Clut4,
            TextureDepth::Clut8,
            TextureDepth::Direct15,
            TextureDepth::Direct15,
        ];
        DEPTHS[(bits & 3) as usize]
    }
    /// The value of texpage bits 7–8 (0, 1 or 2).
    pub fn bits(self) -> u8 {
        match self {
            TextureDepth::Clut4 => 0,
            TextureDepth::Clut8 => 1,
            TextureDepth::Direct15 => 2,
        }
    }
}

/// Semi-transparency mode (texpage bits 5–6): B = background, F = foreground.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendMode {
    /// B/2 + F/2.
    Average,
    /// B + F, saturating.
    Add,
    /// B − F, saturating at 0.
    Subtract,
    /// B + F/4, saturating.
    AddQuarter,
}

impl BlendMode {
    /// The mode of texpage bits 5–6 (`bits` 0–3).
    pub fn from_bits(bits: u8) -> BlendMode {
        match bits & 3 {
            0 => BlendMode::Average,
            1 => BlendMode::Add,
            2 => BlendMode::Subtract,
            _ => BlendMode::AddQuarter,
        }
    }
    /// The value of texpage bits 5–6.
    pub fn bits(self) -> u8 {
        match self {
            BlendMode::Average => 0,
            BlendMode::Add => 1,
            BlendMode::Subtract => 2,
            BlendMode::AddQuarter => 3,
        }
    }
}

/// The texture-page / draw-mode attribute (GP0(E1h) bits 0–13, or a polygon's texpage
/// halfword): bits 0–3 X/64, 4 Y/256, 5–6 blend mode, 7–8 depth, 9 dither, 10 draw to
/// display area, 11 texture disable, 12 rectangle X-flip, 13 rectangle Y-flip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TexPage(pub u16);

impl TexPage {
    /// The page whose top-left is at VRAM (`x`, `y`), rounded down to the page grid (X in
    /// 64-halfword steps, Y 0 or 256), with `blend` and `depth`; every other bit 0.
    pub fn new(x: u16, y: u16, blend: BlendMode, depth: TextureDepth) -> TexPage {
        TexPage(
            ((x / 64) & 15)
                | (((y / 256) & 1) << 4)
                | u16::from(blend.bits()) << 5
                | u16::from(depth.bits()) << 7,
        )
    }
    /// The same attribute with another semi-transparency mode.
    pub fn with_blend(self, blend: BlendMode) -> TexPage {
        TexPage((self.0 & !0x60) | u16::from(blend.bits()) << 5)
    }
    /// Page X in VRAM halfwords.
    pub fn base_x(self) -> usize {
        (self.0 as usize & 0xf) * 64
    }
    /// Page Y in VRAM lines (0 or 256).
    pub fn base_y(self) -> usize {
        ((self.0 as usize >> 4) & 1) * 256
    }
    /// Semi-transparency mode.
    pub fn blend_mode(self) -> BlendMode {
        BlendMode::from_bits((self.0 >> 5) as u8)
    }
    /// Texture colour depth.
    pub fn depth(self) -> TextureDepth {
        TextureDepth::from_bits((self.0 >> 7) as u8)
    }
    /// Dither 24-bit to 15-bit (bit 9).
    pub fn dither(self) -> bool {
        self.0 & (1 << 9) != 0
    }
    /// Texture disable (bit 11; effective only when GP1(09h) allows it).
    pub fn texture_disable(self) -> bool {
        self.0 & (1 << 11) != 0
    }
    /// Rectangle X-flip (bit 12).
    pub fn flip_x(self) -> bool {
        self.0 & (1 << 12) != 0
    }
    /// Rectangle Y-flip (bit 13).
    pub fn flip_y(self) -> bool {
        self.0 & (1 << 13) != 0
    }
    /// Drawing to the displayed area allowed (bit 10; GP0(E1h) only).
    pub fn draw_to_display(self) -> bool {
        self.0 & (1 << 10) != 0
    }
    /// Bits 0–8 alone: page, blend mode and depth (what [`TexPage::new`] sets).
    pub fn texture_bits(self) -> TexPage {
        TexPage(self.0 & 0x1ff)
    }
    /// The same attribute with dithering (bit 9) on or off.
    pub fn with_dither(self, on: bool) -> TexPage {
        TexPage((self.0 & !(1 << 9)) | u16::from(on) << 9)
    }
    /// The same attribute with drawing to the displayed area (bit 10) allowed or not.
    pub fn with_draw_to_display(self, on: bool) -> TexPage {
        TexPage((self.0 & !(1 << 10)) | u16::from(on) << 10)
    }
    /// GP0(E1h): the draw mode a word sets (bits 0–13).
    pub fn from_draw_mode_word(word: u32) -> TexPage {
        TexPage((word & 0x3fff) as u16)
    }
    /// GP0(E1h): the word setting this draw mode (bits 0–13).
    pub fn draw_mode_word(self) -> u32 {
        command_word(opcode::DRAW_MODE, u32::from(self.0 & 0x3fff))
    }
}

/// GP0(E2h) texture window: bits 0–4 mask X, 5–9 mask Y, 10–14 offset X, 15–19 offset Y, all in
/// 8-texel steps. A coordinate becomes `(c & !(mask*8)) | ((offset & mask)*8)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TexWindow(pub u32);

impl TexWindow {
    /// The window of masks and offsets in 8-texel steps, each its low 5 bits.
    pub fn new(mask_x: u8, mask_y: u8, offset_x: u8, offset_y: u8) -> TexWindow {
        let field = |v: u8, shift: u32| u32::from(v & 0x1f) << shift;
        TexWindow(field(mask_x, 0) | field(mask_y, 5) | field(offset_x, 10) | field(offset_y, 15))
    }
    /// GP0(E2h): the window a word sets (bits 0–19).
    pub fn from_word(word: u32) -> TexWindow {
        TexWindow(word & 0xf_ffff)
    }
    /// GP0(E2h): the word setting this window.
    pub fn word(self) -> u32 {
        command_word(opcode::TEX_WINDOW, self.0 & 0xf_ffff)
    }
    /// Mask X (bits 0–4).
    pub fn mask_x(self) -> u8 {
        (self.0 & 0x1f) as u8
    }
    /// Mask Y (bits 5–9).
    pub fn mask_y(self) -> u8 {
        ((self.0 >> 5) & 0x1f) as u8
    }
    /// Offset X (bits 10–14).
    pub fn offset_x(self) -> u8 {
        ((self.0 >> 10) & 0x1f) as u8
    }
    /// Offset Y (bits 15–19).
    pub fn offset_y(self) -> u8 {
        ((self.0 >> 15) & 0x1f) as u8
    }
    /// The (and, or) pair applied to U.
    pub fn u_and_or(self) -> (u8, u8) {
        and_or(self.mask_x(), self.offset_x())
    }
    /// The (and, or) pair applied to V.
    pub fn v_and_or(self) -> (u8, u8) {
        and_or(self.mask_y(), self.offset_y())
    }
}

/// A texture window axis as the (and, or) pair `(c & !(mask*8)) | ((offset & mask)*8)` applies.
fn and_or(mask: u8, offset: u8) -> (u8, u8) {
    (!(mask << 3), (offset & mask) << 3)
}

/// A drawing-area corner, inclusive (GP0(E3h) top-left, GP0(E4h) bottom-right): bits 0–9 X,
/// 10–18 Y. Bit 19 is Y's tenth bit on the GPU with 2 MB of VRAM only: kept, not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AreaCorner(pub u32);

impl AreaCorner {
    /// The corner at VRAM (`x`, `y`), `x` 0..=1023, `y` 0..=511 (higher bits dropped).
    pub fn new(x: u16, y: u16) -> AreaCorner {
        AreaCorner(u32::from(x & 0x3ff) | u32::from(y & 0x1ff) << 10)
    }
    /// GP0(E3h) or GP0(E4h): the corner a word sets (bits 0–19).
    pub fn from_word(word: u32) -> AreaCorner {
        AreaCorner(word & 0xf_ffff)
    }
    /// GP0(E3h): the word making this corner the top-left.
    pub fn top_left_word(self) -> u32 {
        command_word(opcode::AREA_TOP_LEFT, self.0 & 0xf_ffff)
    }
    /// GP0(E4h): the word making this corner the bottom-right.
    pub fn bottom_right_word(self) -> u32 {
        command_word(opcode::AREA_BOTTOM_RIGHT, self.0 & 0xf_ffff)
    }
    /// X in VRAM halfwords (0..=1023).
    pub fn x(self) -> i32 {
        (self.0 & 0x3ff) as i32
    }
    /// Y in VRAM lines (0..=511).
    pub fn y(self) -> i32 {
        ((self.0 >> 10) & 0x1ff) as i32
    }
}

/// GP0(E5h) drawing offset: bits 0–10 X and 11–21 Y, both signed 11-bit, added to every vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DrawOffset(pub u32);

impl DrawOffset {
    /// The offset (`x`, `y`), each stored as its low 11 bits: -1024..=1023 reads back unchanged.
    pub fn new(x: i16, y: i16) -> DrawOffset {
        DrawOffset(u32::from(x as u16 & 0x7ff) | u32::from(y as u16 & 0x7ff) << 11)
    }
    /// GP0(E5h): the offset a word sets (bits 0–21).
    pub fn from_word(word: u32) -> DrawOffset {
        DrawOffset(word & 0x3f_ffff)
    }
    /// GP0(E5h): the word setting this offset.
    pub fn word(self) -> u32 {
        command_word(opcode::DRAW_OFFSET, self.0 & 0x3f_ffff)
    }
    /// X, sign-extended from 11 bits.
    pub fn x(self) -> i32 {
        sext11(self.0 as i32)
    }
    /// Y, sign-extended from 11 bits.
    pub fn y(self) -> i32 {
        sext11((self.0 >> 11) as i32)
    }
}

/// GP0(E6h) mask bit setting: bit 0 sets bit 15 of every pixel drawn, bit 1 keeps pixels whose
/// bit 15 is set from being drawn over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MaskSetting(pub u32);

impl MaskSetting {
    /// The setting: `set` the mask bit, `check` it.
    pub const fn new(set: bool, check: bool) -> MaskSetting {
        MaskSetting(set as u32 | (check as u32) << 1)
    }
    /// GP0(E6h): the setting a word makes (bits 0–1).
    pub fn from_word(word: u32) -> MaskSetting {
        MaskSetting(word & 3)
    }
    /// GP0(E6h): the word making this setting.
    pub const fn word(self) -> u32 {
        command_word(opcode::MASK_SETTING, self.0 & 3)
    }
    /// Pixels drawn get bit 15 set (bit 0).
    pub fn set(self) -> bool {
        self.0 & 1 != 0
    }
    /// Pixels whose bit 15 is set are not drawn over (bit 1).
    pub fn check(self) -> bool {
        self.0 & 2 != 0
    }
}

/// A VRAM position word of a fill, copy or transfer: bits 0–15 X, 16–31 Y. The GPU reads X's
/// low 10 bits and Y's low 9 ([`crate::vram::transfer_xy`]; a fill also rounds X down to 16,
/// [`crate::vram::fill_rect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VramXy(pub u32);

impl VramXy {
    /// The word for (`x`, `y`).
    pub fn new(x: u16, y: u16) -> VramXy {
        VramXy(u32::from(x) | u32::from(y) << 16)
    }
}

/// A size word of a fill, copy or transfer: bits 0–15 width, 16–31 height. A transfer reads
/// `((w−1) & 3FFh) + 1` by `((h−1) & 1FFh) + 1` ([`crate::vram::transfer_size`]), a fill
/// `w & 3FFh` rounded up to 16 by `h & 1FFh` ([`crate::vram::fill_rect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VramSize(pub u32);

impl VramSize {
    /// The word for `w`×`h`.
    pub fn new(w: u16, h: u16) -> VramSize {
        VramSize(u32::from(w) | u32::from(h) << 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn blend() -> impl Strategy<Value = BlendMode> {
        (0u8..4).prop_map(BlendMode::from_bits)
    }

    fn depth() -> impl Strategy<Value = TextureDepth> {
        (0u8..3).prop_map(TextureDepth::from_bits)
    }

    proptest! {
        /// Every encoder's fields read back through the decoders.
        #[test]
        fn encoders_round_trip(
            command in any::<u8>(),
            rgb in any::<[u8; 3]>(),
            x in -1024i16..=1023,
            y in -1024i16..=1023,
            u in any::<u8>(),
            v in any::<u8>(),
            attr in any::<u16>(),
            vx in 0u16..1024,
            vy in 0u16..512,
            blend in blend(),
            depth in depth(),
            other in blend(),
        ) {
            let c = ColorWord::new(command, rgb);
            prop_assert_eq!((c.command(), [c.r(), c.g(), c.b()]), (command, rgb));
            let p = VertexWord::new(x, y);
            prop_assert_eq!((p.x(), p.y()), (i32::from(x), i32::from(y)));
            let t = TexCoordWord::new(u, v, attr);
            prop_assert_eq!((t.u(), t.v(), t.attr()), (u, v, attr));
            let clut = Clut::new(vx, vy);
            prop_assert_eq!((clut.x(), clut.y()), (usize::from(vx & !15), usize::from(vy)));
            let page = TexPage::new(vx, vy, blend, depth);
            prop_assert_eq!(
                (page.base_x(), page.base_y(), page.blend_mode(), page.depth()),
                (usize::from(vx & !63), usize::from(vy & 256), blend, depth)
            );
            prop_assert!(!page.dither() && !page.texture_disable() && !page.flip_x());
            let page2 = page.with_blend(other);
            prop_assert_eq!((page2.blend_mode(), page2.0 & !0x60), (other, page.0 & !0x60));
        }
    }

    proptest! {
        /// GP0(E1h)–GP0(E6h): each encoder's fields read back through its decoder.
        #[test]
        fn environment_encoders_round_trip(
            page in 0u16..0x4000,
            dither in any::<bool>(),
            display in any::<bool>(),
            window in any::<[u8; 4]>(),
            corner in (0u16..1024, 0u16..512),
            offset in (-1024i16..=1023, -1024i16..=1023),
            mask in any::<(bool, bool)>(),
        ) {
            let t = TexPage(page).with_dither(dither).with_draw_to_display(display);
            prop_assert_eq!((t.dither(), t.draw_to_display()), (dither, display));
            prop_assert_eq!(t.0 & !0x600, page & !0x600);
            prop_assert_eq!(TexPage::from_draw_mode_word(t.draw_mode_word()), t);
            prop_assert_eq!(t.texture_bits().0, page & 0x1ff);

            let [mx, my, ox, oy] = window;
            let w = TexWindow::from_word(TexWindow::new(mx, my, ox, oy).word());
            prop_assert_eq!(
                [w.mask_x(), w.mask_y(), w.offset_x(), w.offset_y()],
                window.map(|v| v & 0x1f)
            );

            let c = AreaCorner::new(corner.0, corner.1);
            for word in [c.top_left_word(), c.bottom_right_word()] {
                let back = AreaCorner::from_word(word);
                prop_assert_eq!((back.x(), back.y()), (i32::from(corner.0), i32::from(corner.1)));
            }

            let o = DrawOffset::from_word(DrawOffset::new(offset.0, offset.1).word());
            prop_assert_eq!((o.x(), o.y()), (i32::from(offset.0), i32::from(offset.1)));

            let m = MaskSetting::from_word(MaskSetting::new(mask.0, mask.1).word());
            prop_assert_eq!((m.set(), m.check()), mask);
        }

        /// GP0(E1h)–GP0(E6h): a word whose parameter bits all mean something reads back to
        /// itself.
        #[test]
        fn environment_decoders_round_trip(params in any::<u32>()) {
            let word = |op: u8, bits: u32| command_word(op, params & bits);
            let e1 = word(opcode::DRAW_MODE, 0x3fff);
            prop_assert_eq!(TexPage::from_draw_mode_word(e1).draw_mode_word(), e1);
            let e2 = word(opcode::TEX_WINDOW, 0xf_ffff);
            prop_assert_eq!(TexWindow::from_word(e2).word(), e2);
            let e3 = word(opcode::AREA_TOP_LEFT, 0xf_ffff);
            prop_assert_eq!(AreaCorner::from_word(e3).top_left_word(), e3);
            let e4 = word(opcode::AREA_BOTTOM_RIGHT, 0xf_ffff);
            prop_assert_eq!(AreaCorner::from_word(e4).bottom_right_word(), e4);
            let e5 = word(opcode::DRAW_OFFSET, 0x3f_ffff);
            prop_assert_eq!(DrawOffset::from_word(e5).word(), e5);
            let e6 = word(opcode::MASK_SETTING, 3);
            prop_assert_eq!(MaskSetting::from_word(e6).word(), e6);
            let corner = params & 0x7_ffff;
            let c = AreaCorner(corner);
            prop_assert_eq!(AreaCorner::new(c.x() as u16, c.y() as u16).0, corner);
            let offset = params & 0x3f_ffff;
            let o = DrawOffset(offset);
            prop_assert_eq!(DrawOffset::new(o.x() as i16, o.y() as i16).0, offset);
            let window = params & 0xf_ffff;
            let w = TexWindow(window);
            prop_assert_eq!(TexWindow::new(w.mask_x(), w.mask_y(), w.offset_x(), w.offset_y()).0, window);
        }
    }

    /// The edges of each environment field, written and read back.
    #[test]
    fn environment_edges() {
        for (x, y) in [(0, 0), (1023, 511), (1023, 0), (0, 511)] {
            let c = AreaCorner::new(x, y);
            assert_eq!((c.x(), c.y()), (i32::from(x), i32::from(y)));
        }
        assert_eq!(AreaCorner::new(1023, 511).bottom_right_word(), 0xe407_ffff);
        for (x, y) in [(-1024, 1023), (1023, -1024), (-1, 0), (0, -1)] {
            let o = DrawOffset::from_word(DrawOffset::new(x, y).word());
            assert_eq!((o.x(), o.y()), (i32::from(x), i32::from(y)));
        }
        assert_eq!(DrawOffset::new(-1, -1).word(), 0xe53f_ffff);
        assert_eq!(TexWindow::new(31, 31, 31, 31).word(), 0xe20f_ffff);
        assert_eq!(MaskSetting::new(true, true).word(), 0xe600_0003);
        let all = TexPage(0x3fff);
        assert_eq!(all.draw_mode_word(), 0xe100_3fff);
        assert!(all.dither() && all.draw_to_display() && all.texture_disable());
        assert_eq!(all.with_dither(false).with_draw_to_display(false).0, 0x39ff);
    }

    #[test]
    fn vertex_sign_extends_11_bits() {
        let v = VertexWord(0xf800_07ff);
        assert_eq!(v.x(), -1);
        assert_eq!(v.y(), 0);
        let v = VertexWord(0x0400_0400);
        assert_eq!(v.x(), -1024);
        assert_eq!(v.y(), -1024);
        assert_eq!(VertexWord(0x03ff_0801).x(), 1);
    }

    #[test]
    fn texpage_fields() {
        let t = TexPage(0x1ff);
        assert_eq!(t.base_x(), 960);
        assert_eq!(t.base_y(), 256);
        assert_eq!(t.blend_mode(), BlendMode::AddQuarter);
        assert_eq!(t.depth(), TextureDepth::Direct15);
        assert_eq!(Clut(0x7fff).y(), 511);
        assert_eq!(Clut(0x7fff).x(), 1008);
    }

    #[test]
    fn texture_window_formula() {
        let w = TexWindow(0x1 | (0x1 << 10));
        assert_eq!(w.u_and_or(), (0xf7, 0x08));
        let (a, o) = w.u_and_or();
        assert_eq!((3u8 & a) | o, 11);
    }
}
