//! The geometry stage, done the way a game's inner loop does it: MTC2/CTC2 the inputs into the
//! emulated GTE, issue COP2 command words, MFC2 the results. Nothing here computes a projection
//! or a light on the CPU.
//!
//! Register numbers and command words: psx-spx "GTE Registers" / "GTE Opcode Summary"
//! (../shared/spec/psx-spx-gte.md). Sure: documented and used by every game.

use gte::Gte;

use gte::regs::{control, data};
use gte::Op;

/// Command word of `op` as Sony's libraries issue it (sf = 1 where it matters).
const fn cmd(op: Op) -> u32 {
    op.canonical().0
}

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

fn pair(a: i16, b: i16) -> u32 {
    a as u16 as u32 | (b as u16 as u32) << 16
}

fn write_matrix(gte: &mut Gte, base: usize, m: &[[Q12; 3]; 3]) {
    let f: Vec<i16> = m.iter().flatten().map(|q| q.to_bits()).collect();
    gte.write_control(base, pair(f[0], f[1]));
    gte.write_control(base + 1, pair(f[2], f[3]));
    gte.write_control(base + 2, pair(f[4], f[5]));
    gte.write_control(base + 3, pair(f[6], f[7]));
    gte.write_control(base + 4, f[8] as i32 as u32);
}

impl Environment {
    /// CTC2s every register.
    pub fn load(&self, gte: &mut Gte) {
        write_matrix(gte, control::RT, &self.rt);
        for i in 0..3 {
            gte.write_control(control::TRX + i, self.tr[i] as u32);
            gte.write_control(control::RBK + i, self.bk[i] as u32);
        }
        write_matrix(gte, control::LLM, &self.llm);
        write_matrix(gte, control::LCM, &self.lcm);
        gte.write_control(control::OFX, self.of[0] as u32);
        gte.write_control(control::OFY, self.of[1] as u32);
        gte.write_control(control::H, self.h as u32);
        gte.write_control(control::ZSF3, self.zsf3 as i32 as u32);
        gte.write_control(control::ZSF4, self.zsf4 as i32 as u32);
    }
}

/// MTC2 a vector into V`n` (0–2).
pub fn set_vector(gte: &mut Gte, n: usize, v: [i16; 3]) {
    gte.write_data(data::VXY0 + 2 * n, pair(v[0], v[1]));
    gte.write_data(data::VZ0 + 2 * n, v[2] as i32 as u32);
}

/// RTPT on three vertices: returns SXY0..2 and FLAG.
pub fn rtpt(gte: &mut Gte, v: [[i16; 3]; 3]) -> ([u32; 3], u32) {
    for (n, p) in v.iter().enumerate() {
        set_vector(gte, n, *p);
    }
    gte.execute(cmd(Op::Rtpt));
    (
        [
            gte.read_data(data::SXY0),
            gte.read_data(data::SXY0 + 1),
            gte.read_data(data::SXY0 + 2),
        ],
        gte.read_control(control::FLAG),
    )
}

/// RTPS on one vertex (pushes the screen and Z FIFOs): returns its SXY2 and FLAG.
pub fn rtps(gte: &mut Gte, v: [i16; 3]) -> (u32, u32) {
    set_vector(gte, 0, v);
    gte.execute(cmd(Op::Rtps));
    (
        gte.read_data(data::SXY0 + 2),
        gte.read_control(control::FLAG),
    )
}

/// NCLIP on the screen FIFO: the signed doubled area (negative = clockwise on screen).
pub fn nclip(gte: &mut Gte) -> i32 {
    gte.execute(cmd(Op::Nclip));
    gte.read_data(data::MAC0) as i32
}

/// AVSZ3 (after RTPT) or AVSZ4 (after RTPT + RTPS): the OTZ.
pub fn average_z(gte: &mut Gte, quad: bool) -> u32 {
    gte.execute(if quad { cmd(Op::Avsz4) } else { cmd(Op::Avsz3) });
    gte.read_data(data::OTZ) & 0xffff
}

fn rgb_of(w: u32) -> [u8; 3] {
    [w as u8, (w >> 8) as u8, (w >> 16) as u8]
}

/// NCCS: one lit colour for `normal` (1.3.12) modulating `color` (128 = 1.0 in GP0 terms).
pub fn light_one(gte: &mut Gte, normal: [i16; 3], color: [u8; 3], code: u8) -> [u8; 3] {
    set_vector(gte, 0, normal);
    gte.write_data(
        data::RGBC,
        super::packets::rgb_word(color) | (code as u32) << 24,
    );
    gte.execute(cmd(Op::Nccs));
    rgb_of(gte.read_data(data::RGB0 + 2))
}

/// NCCT: three lit colours sharing one `color`.
pub fn light_three(
    gte: &mut Gte,
    normals: [[i16; 3]; 3],
    color: [u8; 3],
    code: u8,
) -> [[u8; 3]; 3] {
    for (n, v) in normals.iter().enumerate() {
        set_vector(gte, n, *v);
    }
    gte.write_data(
        data::RGBC,
        super::packets::rgb_word(color) | (code as u32) << 24,
    );
    gte.execute(cmd(Op::Ncct));
    [
        rgb_of(gte.read_data(data::RGB0)),
        rgb_of(gte.read_data(data::RGB0 + 1)),
        rgb_of(gte.read_data(data::RGB0 + 2)),
    ]
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
        assert_eq!(g.read_control(control::OFX), 160 << 16);
        assert_eq!(Q12::from_f32(1.0), Q12::ONE);
        assert_eq!(Q12::from_f32(100.0).to_bits(), i16::MAX);
    }
}
