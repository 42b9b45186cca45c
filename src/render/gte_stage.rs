//! The geometry stage, done the way a game's inner loop does it: MTC2/CTC2 the inputs into the
//! emulated GTE, issue COP2 command words, MFC2 the results. Nothing here computes a projection
//! or a light on the CPU.
//!
//! Every register write, command word and read goes through `gte::typed` (the same MTC2/CTC2,
//! command and MFC2 a CPU program issues, with Sony's command words), so the register packing
//! is spelled once, in the `gte` crate. Register numbers and command words: psx-spx "GTE
//! Registers" / "GTE Opcode Summary" (../shared/spec/psx-spx-gte.md). Sure: documented and used
//! by every game.

use fixed::types::{I16F16, I20F12};
use gte::typed::{Matrix, Normal, Rgbc, ScreenXY, Translation, Vertex};
use gte::Gte;

/// FLAG bits that make a projected vertex unusable: SX2/SY2 saturated (14, 13), divide
/// overflow (17), SZ3 saturated (18).
pub const FLAG_PROJECTION_BAD: u32 = 1 << 14 | 1 << 13 | 1 << 17 | 1 << 18;

/// Signed 1.3.12 (psx-spx "4.12"): RT, LLM, LCM entries and normals.
pub use gte::typed::Q12;

/// Everything loaded into the GTE's control registers for one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Environment {
    /// Rotation, rows = camera right, down, forward.
    pub rt: [[Q12; 3]; 3],
    /// Translation (camera-space units, signed 32).
    pub tr: [i32; 3],
    /// Light directions (rows), in model space.
    pub llm: [[Q12; 3]; 3],
    /// Light colours (columns = lights).
    pub lcm: [[Q12; 3]; 3],
    /// Background (ambient) colour, 1.0 = 4096.
    pub bk: [i32; 3],
    /// Screen offset, signed 16.16.
    pub of: [i32; 2],
    /// Projection plane distance.
    pub h: u16,
    /// Average-Z scale factors.
    pub zsf3: i16,
    /// Average-Z scale factor for quads.
    pub zsf4: i16,
}

impl Environment {
    /// CTC2s every register (through `gte::typed`, which packs them as the hardware holds them).
    pub fn load(&self, gte: &mut Gte) {
        gte.set_rotation(&Matrix(self.rt));
        let [x, y, z] = self.tr;
        gte.set_translation(Translation { x, y, z });
        gte.set_light_matrix(&Matrix(self.llm));
        gte.set_color_matrix(&Matrix(self.lcm));
        gte.set_background_color(self.bk.map(I20F12::from_bits));
        gte.set_screen(
            I16F16::from_bits(self.of[0]),
            I16F16::from_bits(self.of[1]),
            self.h,
        );
        gte.set_z_scale(Q12::from_bits(self.zsf3), Q12::from_bits(self.zsf4));
    }
}

fn vertex(v: [i16; 3]) -> Vertex {
    Vertex::new(v[0], v[1], v[2])
}

fn normal(v: [i16; 3]) -> Normal {
    let [x, y, z] = v.map(Q12::from_bits);
    Normal { x, y, z }
}

fn rgbc(color: [u8; 3], code: u8) -> Rgbc {
    Rgbc::new(color[0], color[1], color[2], code)
}

fn rgb(c: Rgbc) -> [u8; 3] {
    [c.r, c.g, c.b]
}

/// RTPT on three vertices: returns SXY0..2 and FLAG.
pub fn rtpt(gte: &mut Gte, v: [[i16; 3]; 3]) -> ([ScreenXY; 3], u32) {
    let (xy, _) = gte.rtpt(v.map(vertex));
    (xy, gte.flag().0)
}

/// RTPS on one vertex (pushes the screen and Z FIFOs): returns its SXY2 and FLAG.
pub fn rtps(gte: &mut Gte, v: [i16; 3]) -> (ScreenXY, u32) {
    let (xy, _) = gte.rtps(vertex(v));
    (xy, gte.flag().0)
}

/// NCLIP on the screen FIFO: the signed doubled area (negative = clockwise on screen).
pub fn nclip(gte: &mut Gte) -> i32 {
    gte.nclip()
}

/// AVSZ3 (after RTPT) or AVSZ4 (after RTPT + RTPS): the OTZ.
pub fn average_z(gte: &mut Gte, quad: bool) -> u32 {
    u32::from(if quad { gte.avsz4() } else { gte.avsz3() })
}

/// NCCS: one lit colour for `normal` (1.3.12) modulating `color` (128 = 1.0 in GP0 terms).
pub fn light_one(gte: &mut Gte, normal_bits: [i16; 3], color: [u8; 3], code: u8) -> [u8; 3] {
    rgb(gte.nccs(normal(normal_bits), rgbc(color, code)))
}

/// NCCT: three lit colours sharing one `color`.
pub fn light_three(
    gte: &mut Gte,
    normals: [[i16; 3]; 3],
    color: [u8; 3],
    code: u8,
) -> [[u8; 3]; 3] {
    gte.ncct(normals.map(normal), rgbc(color, code)).map(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_packs_registers_like_ctc2() {
        let mut e = Environment::default();
        e.rt[0] = [Q12::from_bits(1), Q12::from_bits(-1), Q12::from_bits(2)];
        e.rt[2][2] = Q12::from_bits(-4096);
        e.h = 343;
        e.of = [160 << 16, 120 << 16];
        let mut g = Gte::new();
        e.load(&mut g);
        assert_eq!(g.read_control(0), 0xffff_0001);
        assert_eq!(g.read_control(1) & 0xffff, 2);
        assert_eq!(g.read_control(4) as i32 as i16, -4096);
        assert_eq!(g.read_control(gte::regs::control::OFX), 160 << 16);
        assert_eq!(Q12::from_f32(1.0), Q12::ONE);
        assert_eq!(Q12::from_f32(100.0).to_bits(), i16::MAX);
    }
}
