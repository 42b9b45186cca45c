//! A typed layer over the register file for the renderer: one newtype per hardware number
//! format, `fixed` types at the edge, and one method per job (`set_rotation`, `rtpt`, `nclip`,
//! `avsz3`, `ncds`, …).
//!
//! Every method goes through [`Gte::write_data`]/[`Gte::write_control`], [`Gte::execute`] and
//! [`Gte::read_data`], so the typed layer sees exactly what a CPU program would: the same
//! register quirks, the same saturation, the same FLAG. Commands are issued with the words
//! Sony's libraries use ([`Op::canonical`]: RTPT sf=1 lm=0, NCDS sf=1 lm=1, …).
//!
//! Typical per-frame use (camera set once, then per triangle):
//! ```
//! use fixed::types::{I16F16, I4F12};
//! use gte::typed::{Matrix, Translation, Vertex};
//! let mut gte = gte::Gte::new();
//! gte.set_rotation(&Matrix::IDENTITY);
//! gte.set_translation(Translation { x: 0, y: 0, z: 1000 });
//! gte.set_screen(I16F16::from_num(160), I16F16::from_num(120), 1000);
//! gte.set_ordering_table_size(1024);
//! let tri = [Vertex::new(0, 0, 0), Vertex::new(100, 0, 0), Vertex::new(0, 100, 0)];
//! let (xy, z) = gte.rtpt(tri);
//! assert_eq!((xy[1].x, xy[1].y, z[1]), (260, 120, 1000));
//! let facing = gte.nclip();      // sign = winding
//! let otz = gte.avsz3();         // ordering-table index
//! assert!(facing > 0 && otz > 0);
//! ```
//!
//! ## Switching from raw register calls
//!
//! | raw register code | typed layer |
//! |---|---|
//! | own `data`/`control` register-number constants | [`crate::regs::data`], [`crate::regs::control`] |
//! | own command-word constants (RTPT `0x028_0030`, …) | `Op::Rtpt.canonical().0`, … ([`Op::canonical`]) |
//! | CTC2 of packed RT/LLM/LCM words | [`Gte::set_rotation`], [`Gte::set_light_matrix`], [`Gte::set_color_matrix`] with [`Matrix`] of [`Q12`] |
//! | CTC2 of TR, BK, FC, OFX/OFY/H, DQA/DQB, ZSF3/ZSF4 | [`Gte::set_translation`], [`Gte::set_background_color`], [`Gte::set_far_color`], [`Gte::set_screen`], [`Gte::set_depth_cue`], [`Gte::set_z_scale`] / [`Gte::set_ordering_table_size`] |
//! | MTC2 V0–V2, RTPT, MFC2 SXY0–2 and SZ1–3, CFC2 FLAG | [`Gte::rtpt`] then [`Gte::flag`] |
//! | RTPS, MFC2 SXY2 | [`Gte::rtps`] |
//! | NCLIP, MFC2 MAC0 | [`Gte::nclip`] (or [`Gte::nclip_of`] for explicit points) |
//! | AVSZ3/AVSZ4, MFC2 OTZ | [`Gte::avsz3`], [`Gte::avsz4`] |
//! | MTC2 normals + RGBC, NCCS/NCCT, MFC2 RGB0–2 | [`Gte::nccs`], [`Gte::ncct`] (also `ncs`/`nct`, `ncds`/`ncdt`) |
//!
//! Results are bit-identical to raw code that issues the same command words (sf=1; lm=0 for
//! RTPS/RTPT, lm=1 for the lighting commands): the typed calls are those register writes.

use fixed::types::{I16F16, I20F12, I28F4, I4F12, I8F24, I8F8};

use crate::ops::flag;
use crate::regs::{control as c, data as d};
use crate::{Gte, Op};

/// Signed 1.3.12 (psx-spx "1,3,12", often written "4.12"): RT/LLM/LCM entries, ZSF3/ZSF4,
/// IR0 and unit normals. `Q12::ONE` = 0x1000.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Q12(i16);

impl Q12 {
    /// 1.0 (0x1000).
    pub const ONE: Q12 = Q12(0x1000);
    /// 0.0.
    pub const ZERO: Q12 = Q12(0);
    /// From the raw 16-bit register value.
    pub const fn from_bits(bits: i16) -> Q12 {
        Q12(bits)
    }
    /// The raw 16-bit register value.
    pub const fn to_bits(self) -> i16 {
        self.0
    }
    /// Nearest value, saturated to -8.0..8.0 (for loaders; NaN gives 0).
    pub fn from_f32(v: f32) -> Q12 {
        Q12((v * 4096.0).round().clamp(-32768.0, 32767.0) as i16)
    }
    /// As a `fixed` number.
    pub const fn to_fixed(self) -> I4F12 {
        I4F12::from_bits(self.0)
    }
}

impl From<I4F12> for Q12 {
    fn from(v: I4F12) -> Q12 {
        Q12(v.to_bits())
    }
}

impl From<Q12> for I4F12 {
    fn from(v: Q12) -> I4F12 {
        v.to_fixed()
    }
}

/// A 3×3 matrix of 1.3.12 entries, row-major (`m[0]` = M11 M12 M13): RT, LLM or LCM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Matrix(pub [[Q12; 3]; 3]);

impl Matrix {
    /// The identity matrix.
    pub const IDENTITY: Matrix = Matrix([
        [Q12::ONE, Q12::ZERO, Q12::ZERO],
        [Q12::ZERO, Q12::ONE, Q12::ZERO],
        [Q12::ZERO, Q12::ZERO, Q12::ONE],
    ]);

    /// From `fixed` entries, row-major.
    pub fn from_fixed(m: [[I4F12; 3]; 3]) -> Matrix {
        Matrix(m.map(|row| row.map(Q12::from)))
    }

    /// The five packed control registers (M11|M12<<16, M13|M21<<16, …, M33).
    fn to_words(self) -> [u32; 5] {
        let mut e = [0u32; 9];
        for (slot, q) in e.iter_mut().zip(self.0.iter().flatten()) {
            *slot = u32::from(q.0 as u16);
        }
        [
            e[0] | e[1] << 16,
            e[2] | e[3] << 16,
            e[4] | e[5] << 16,
            e[6] | e[7] << 16,
            e[8],
        ]
    }

    fn from_words(w: [u32; 5]) -> Matrix {
        let h = |i: usize| Q12((w[i / 2] >> (16 * (i % 2))) as u16 as i16);
        Matrix([[h(0), h(1), h(2)], [h(3), h(4), h(5)], [h(6), h(7), h(8)]])
    }
}

/// A model-space vertex: VXn, VYn, VZn, signed 16-bit integers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vertex {
    /// VX.
    pub x: i16,
    /// VY.
    pub y: i16,
    /// VZ.
    pub z: i16,
}

impl Vertex {
    /// A vertex.
    pub const fn new(x: i16, y: i16, z: i16) -> Vertex {
        Vertex { x, y, z }
    }
}

/// A surface normal for the lighting commands: V0–V2 read as 1.3.12 (length 1.0 = 0x1000).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Normal {
    /// X.
    pub x: Q12,
    /// Y.
    pub y: Q12,
    /// Z.
    pub z: Q12,
}

impl Normal {
    /// From floats (for loaders), each saturated to the 1.3.12 range.
    pub fn from_f32(x: f32, y: f32, z: f32) -> Normal {
        Normal {
            x: Q12::from_f32(x),
            y: Q12::from_f32(y),
            z: Q12::from_f32(z),
        }
    }

    fn vertex(self) -> Vertex {
        Vertex::new(self.x.0, self.y.0, self.z.0)
    }
}

/// The translation vector TRX/TRY/TRZ: signed 32-bit integers (model units, added before the
/// 1.3.12 rotation result is shifted, i.e. at integer scale).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Translation {
    /// TRX.
    pub x: i32,
    /// TRY.
    pub y: i32,
    /// TRZ.
    pub z: i32,
}

/// A projected screen position SXn/SYn: signed 16-bit, saturated by RTPS to -400h..3FFh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScreenXY {
    /// SX.
    pub x: i16,
    /// SY.
    pub y: i16,
}

impl ScreenXY {
    fn from_word(w: u32) -> ScreenXY {
        ScreenXY {
            x: w as u16 as i16,
            y: (w >> 16) as u16 as i16,
        }
    }
}

/// A colour with its GP0 command byte: RGBC and the colour FIFO RGB0–RGB2 (4 × u8: R in bits
/// 0–7, G 8–15, B 16–23, CODE 24–31).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rgbc {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// CODE: copied unchanged into the results (meant to be a GP0 command byte).
    pub code: u8,
}

impl Rgbc {
    /// A colour.
    pub const fn new(r: u8, g: u8, b: u8, code: u8) -> Rgbc {
        Rgbc { r, g, b, code }
    }
    /// The register word.
    pub const fn to_word(self) -> u32 {
        u32::from_le_bytes([self.r, self.g, self.b, self.code])
    }
    /// From a register word.
    pub const fn from_word(w: u32) -> Rgbc {
        let [r, g, b, code] = w.to_le_bytes();
        Rgbc { r, g, b, code }
    }
}

/// The FLAG register (control 31) as read by CFC2: what saturated or overflowed in the last
/// command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flag(pub u32);

impl Flag {
    /// Bit 31: any of bits 30..23, 18..13 (the "error" summary).
    pub const fn error(self) -> bool {
        self.0 >> 31 != 0
    }
    /// Bit 17: the perspective divide overflowed (vertex at or in front of the near plane,
    /// SZ3 <= H/2).
    pub const fn divide_overflow(self) -> bool {
        self.0 & flag::DIVIDE != 0
    }
    /// Bit 18: SZ3 or OTZ saturated to 0..FFFFh (vertex behind the camera or too far).
    pub const fn z_saturated(self) -> bool {
        self.0 & flag::SZ3_OTZ != 0
    }
    /// Bits 14/13: SX2 or SY2 saturated to -400h..3FFh (off screen).
    pub const fn xy_saturated(self) -> bool {
        self.0 & (flag::SX2 | flag::SY2) != 0
    }
}

impl Gte {
    /// CTC2 of a packed matrix at `base` (RT 0, LLM 8, LCM 16).
    fn write_matrix(&mut self, base: usize, m: &Matrix) {
        for (i, w) in m.to_words().into_iter().enumerate() {
            self.write_control(base + i, w);
        }
    }

    /// Sets the rotation matrix RT (control 0–4).
    pub fn set_rotation(&mut self, m: &Matrix) {
        self.write_matrix(c::RT, m);
    }

    /// The rotation matrix RT as stored.
    pub fn rotation(&self) -> Matrix {
        Matrix::from_words(std::array::from_fn(|i| self.read_control(c::RT + i)))
    }

    /// Sets the light matrix LLM (control 8–12): row n = direction of light n, 1.3.12.
    pub fn set_light_matrix(&mut self, m: &Matrix) {
        self.write_matrix(c::LLM, m);
    }

    /// Sets the light colour matrix LCM (control 16–20): column n = colour of light n, 1.3.12.
    pub fn set_color_matrix(&mut self, m: &Matrix) {
        self.write_matrix(c::LCM, m);
    }

    /// Sets the translation vector TR (control 5–7).
    pub fn set_translation(&mut self, t: Translation) {
        self.write_control(c::TRX, t.x as u32);
        self.write_control(c::TRX + 1, t.y as u32);
        self.write_control(c::TRX + 2, t.z as u32);
    }

    /// Sets OFX/OFY (signed 16.16, psx-spx "1,15,16") and H (unsigned 16-bit projection plane
    /// distance).
    pub fn set_screen(&mut self, ofx: I16F16, ofy: I16F16, h: u16) {
        self.write_control(c::OFX, ofx.to_bits() as u32);
        self.write_control(c::OFY, ofy.to_bits() as u32);
        self.write_control(c::H, u32::from(h));
    }

    /// Sets the background (ambient) colour BK: signed 1.19.12 per channel, 1.0 = full.
    pub fn set_background_color(&mut self, bk: [I20F12; 3]) {
        for (i, v) in bk.into_iter().enumerate() {
            self.write_control(c::RBK + i, v.to_bits() as u32);
        }
    }

    /// Sets the far colour FC: signed 1.27.4 per channel, in 0..255 colour units.
    pub fn set_far_color(&mut self, fc: [I28F4; 3]) {
        for (i, v) in fc.into_iter().enumerate() {
            self.write_control(c::RFC + i, v.to_bits() as u32);
        }
    }

    /// Sets depth cueing: IR0 after RTPS/RTPT = (DQA × H/SZ + DQB) / 1000h, with DQA signed
    /// 1.7.8 and DQB signed 1.7.24.
    pub fn set_depth_cue(&mut self, dqa: I8F8, dqb: I8F24) {
        self.write_control(c::DQA, dqa.to_bits() as u16 as u32);
        self.write_control(c::DQB, dqb.to_bits() as u32);
    }

    /// Sets the AVSZ3/AVSZ4 scale factors ZSF3/ZSF4 (signed 1.3.12).
    pub fn set_z_scale(&mut self, zsf3: Q12, zsf4: Q12) {
        self.write_control(c::ZSF3, zsf3.0 as u16 as u32);
        self.write_control(c::ZSF4, zsf4.0 as u16 as u32);
    }

    /// Sets ZSF3 = N/30h and ZSF4 = N/40h so AVSZ3/AVSZ4 map SZ 0..FFFFh onto OT indices
    /// 0..`entries` (psx-spx "Average Z Registers"); `entries` is capped at 10000h.
    pub fn set_ordering_table_size(&mut self, entries: u32) {
        let n = entries.min(0x1_0000) as i32;
        self.set_z_scale(
            Q12((n / 0x30).min(0x7FFF) as i16),
            Q12((n / 0x40).min(0x7FFF) as i16),
        );
    }

    /// Sets IR0, the depth-cue interpolation factor the NCDx/CDP/DPCx commands use (1.3.12,
    /// 0 = own colour, 1.0 = far colour). RTPS/RTPT overwrite it.
    pub fn set_ir0(&mut self, ir0: Q12) {
        self.write_data(d::IR0, ir0.0 as u16 as u32);
    }

    /// IR0 as read back (after RTPS/RTPT: the depth-cue factor 0..1000h).
    pub fn ir0(&self) -> Q12 {
        Q12(self.read_data(d::IR0) as i16)
    }

    /// The FLAG register after the last command.
    pub fn flag(&self) -> Flag {
        Flag(self.read_control(c::FLAG))
    }

    fn write_vertex(&mut self, n: usize, v: Vertex) {
        self.write_data(2 * n, u32::from(v.x as u16) | u32::from(v.y as u16) << 16);
        self.write_data(2 * n + 1, v.z as u16 as u32);
    }

    /// GTE RTPS (0x01) sf=1 lm=0: rotates, translates and projects one vertex; returns
    /// (SXY2, SZ3). Also updates IR0 (depth cue) and FLAG.
    pub fn rtps(&mut self, v: Vertex) -> (ScreenXY, u16) {
        self.write_vertex(0, v);
        self.execute(Op::Rtps.canonical().0);
        (
            ScreenXY::from_word(self.read_data(d::SXY2)),
            self.read_data(d::SZ3) as u16,
        )
    }

    /// GTE RTPT (0x30) sf=1 lm=0: projects three vertices; returns (SXY0..2, SZ1..3) — the
    /// screen positions and depths of `v[0]`, `v[1]`, `v[2]`. IR0 gets the depth cue of `v[2]`.
    pub fn rtpt(&mut self, v: [Vertex; 3]) -> ([ScreenXY; 3], [u16; 3]) {
        for (n, v) in v.into_iter().enumerate() {
            self.write_vertex(n, v);
        }
        self.execute(Op::Rtpt.canonical().0);
        (
            [0, 1, 2].map(|i| ScreenXY::from_word(self.read_data(d::SXY0 + i))),
            [0, 1, 2].map(|i| self.read_data(d::SZ1 + i) as u16),
        )
    }

    /// GTE NCLIP (0x06) on the SXY FIFO (the last three projected vertices): twice the signed
    /// area; > 0 counter-clockwise on screen (y down: clockwise as seen), < 0 the other way,
    /// 0 degenerate.
    pub fn nclip(&mut self) -> i32 {
        self.execute(Op::Nclip.canonical().0);
        self.read_data(d::MAC0) as i32
    }

    /// GTE NCLIP on explicit screen points (written to SXY0..2 first).
    pub fn nclip_of(&mut self, p: [ScreenXY; 3]) -> i32 {
        for (i, p) in p.into_iter().enumerate() {
            self.write_data(
                d::SXY0 + i,
                u32::from(p.x as u16) | u32::from(p.y as u16) << 16,
            );
        }
        self.nclip()
    }

    /// GTE AVSZ3 (0x2D): OTZ = ZSF3 × (SZ1+SZ2+SZ3) / 1000h, saturated to 0..FFFFh.
    pub fn avsz3(&mut self) -> u16 {
        self.execute(Op::Avsz3.canonical().0);
        self.read_data(d::OTZ) as u16
    }

    /// GTE AVSZ4 (0x2E): OTZ = ZSF4 × (SZ0+SZ1+SZ2+SZ3) / 1000h (run after RTPT + RTPS of a
    /// quad's fourth vertex).
    pub fn avsz4(&mut self) -> u16 {
        self.execute(Op::Avsz4.canonical().0);
        self.read_data(d::OTZ) as u16
    }

    /// Runs a lighting command on `normals` (V0.. as needed) with RGBC = `color`, returning
    /// the newest `N` colour FIFO entries, oldest first.
    fn light<const N: usize>(&mut self, op: Op, normals: [Normal; N], color: Rgbc) -> [Rgbc; N] {
        for (n, v) in normals.into_iter().enumerate() {
            self.write_vertex(n, v.vertex());
        }
        self.write_data(d::RGBC, color.to_word());
        self.execute(op.canonical().0);
        std::array::from_fn(|i| Rgbc::from_word(self.read_data(d::RGB2 + 1 + i - N)))
    }

    /// GTE NCS (0x1E) sf=1 lm=1: light colour of one normal (BK + LCM × sat(LLM × n)), CODE
    /// from `color`.
    pub fn ncs(&mut self, normal: Normal, color: Rgbc) -> Rgbc {
        self.light(Op::Ncs, [normal], color)[0]
    }

    /// GTE NCT (0x20): [`Gte::ncs`] for three normals.
    pub fn nct(&mut self, normals: [Normal; 3], color: Rgbc) -> [Rgbc; 3] {
        self.light(Op::Nct, normals, color)
    }

    /// GTE NCCS (0x1B) sf=1 lm=1: `color` × the light colour of `normal`.
    pub fn nccs(&mut self, normal: Normal, color: Rgbc) -> Rgbc {
        self.light(Op::Nccs, [normal], color)[0]
    }

    /// GTE NCCT (0x3F): [`Gte::nccs`] for three normals.
    pub fn ncct(&mut self, normals: [Normal; 3], color: Rgbc) -> [Rgbc; 3] {
        self.light(Op::Ncct, normals, color)
    }

    /// GTE NCDS (0x13) sf=1 lm=1: like [`Gte::nccs`], then interpolated towards FC by IR0
    /// (depth cueing; set IR0 with [`Gte::set_ir0`] or let RTPS/RTPT set it).
    pub fn ncds(&mut self, normal: Normal, color: Rgbc) -> Rgbc {
        self.light(Op::Ncds, [normal], color)[0]
    }

    /// GTE NCDT (0x16): [`Gte::ncds`] for three normals (one IR0 for all three).
    pub fn ncdt(&mut self, normals: [Normal; 3], color: Rgbc) -> [Rgbc; 3] {
        self.light(Op::Ncdt, normals, color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> Gte {
        let mut g = Gte::new();
        g.set_rotation(&Matrix::IDENTITY);
        g.set_translation(Translation {
            x: 0,
            y: 0,
            z: 1000,
        });
        g.set_screen(I16F16::from_num(160), I16F16::from_num(120), 1000);
        g.set_ordering_table_size(0x1000);
        g
    }

    #[test]
    fn projection() {
        let mut g = camera();
        let (xy, z) = g.rtpt([
            Vertex::new(100, 50, 0),
            Vertex::new(-100, 0, 1000),
            Vertex::new(0, 0, -600),
        ]);
        assert_eq!(xy[0], ScreenXY { x: 260, y: 170 });
        assert_eq!(z[0], 1000);
        assert_eq!(xy[1], ScreenXY { x: 110, y: 120 });
        assert_eq!(z[1], 2000);
        assert_eq!(z[2], 400);
        assert!(
            g.flag().divide_overflow(),
            "SZ 400 < H/2 overflows the divider"
        );
        let (p, sz) = g.rtps(Vertex::new(0, 0, -2000));
        assert_eq!((p, sz), (ScreenXY { x: 160, y: 120 }, 0));
        assert!(g.flag().z_saturated() && g.flag().error());
        assert_eq!(g.rotation(), Matrix::IDENTITY);
    }

    #[test]
    fn winding_and_order() {
        let mut g = camera();
        let a = ScreenXY { x: 0, y: 0 };
        let b = ScreenXY { x: 10, y: 0 };
        let c = ScreenXY { x: 0, y: 10 };
        assert_eq!(g.nclip_of([a, b, c]), 100);
        assert_eq!(g.nclip_of([a, c, b]), -100);
        g.rtpt([
            Vertex::new(0, 0, 0),
            Vertex::new(0, 0, 3000),
            Vertex::new(0, 0, 6000),
        ]);
        // SZ 1000, 4000, 7000: (12000 × (4096/48)) >> 12 = 12000 / 48.
        assert_eq!(g.avsz3(), ((12000 * (0x1000 / 0x30)) >> 12) as u16);
        g.rtps(Vertex::new(0, 0, 1000));
        assert_eq!(g.avsz4(), ((14000 * (0x1000 / 0x40)) >> 12) as u16);
    }

    #[test]
    fn lighting() {
        let mut g = Gte::new();
        let one = I20F12::from_num(1);
        g.set_background_color([one; 3]);
        g.set_far_color([I28F4::from_num(255), I28F4::from_num(0), I28F4::from_num(0)]);
        let c = Rgbc::new(10, 100, 200, 0x30);
        let n = Normal::from_f32(0.0, 0.0, 1.0);
        // Zero light matrices: the light is BK = 1.0, so colour × 1.0 = colour.
        assert_eq!(g.nccs(n, c), c);
        g.set_ir0(Q12::ZERO);
        assert_eq!(g.ncds(n, c), c);
        g.set_ir0(Q12::ONE);
        assert_eq!(g.ncds(n, c), Rgbc::new(255, 0, 0, 0x30));
        assert_eq!(
            g.ncs(n, c),
            Rgbc::new(255, 255, 255, 0x30),
            "light 1.0 = 4096 >> 4 saturates"
        );
        assert_eq!(g.ncct([n; 3], c), [c; 3]);
        // One white light straight on: BK 0 + (light · normal) = 1.0.
        g.set_background_color([I20F12::ZERO; 3]);
        let mut llm = Matrix::default();
        llm.0[0][2] = Q12::ONE;
        g.set_light_matrix(&llm);
        let mut lcm = Matrix::default();
        lcm.0[0][0] = Q12::ONE;
        lcm.0[1][0] = Q12::ONE;
        lcm.0[2][0] = Q12::ONE;
        g.set_color_matrix(&lcm);
        g.set_ir0(Q12::ZERO);
        assert_eq!(g.ncdt([n; 3], c), [c; 3]);
        let away = Normal::from_f32(0.0, 0.0, -1.0);
        assert_eq!(
            g.nct([away; 3], c),
            [Rgbc::new(0, 0, 0, 0x30); 3],
            "lm=1 clamps at 0"
        );
    }

    #[test]
    fn q12_edges() {
        assert_eq!(Q12::from_f32(1.0), Q12::ONE);
        assert_eq!(Q12::from_f32(100.0).to_bits(), i16::MAX);
        assert_eq!(Q12::from_f32(f32::NAN), Q12::ZERO);
        assert_eq!(I4F12::from(Q12::ONE), I4F12::ONE);
        let m = Matrix::from_fixed([[I4F12::from_num(-0.5); 3]; 3]);
        assert_eq!(m.0[2][2].to_bits(), -0x800);
    }
}
