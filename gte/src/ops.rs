//! The 22 GTE commands, built from named hardware steps that always set their FLAG bits.
//!
//! Arithmetic is done in `i64`. MAC1–3 accumulate in 44 bits: after every addition the sum is
//! checked against ±2^43 (FLAG 30..25) and wrapped to 44 bits, then shifted by `sf*12` and
//! stored as 32 bits. MAC0 is checked against 32 bits (FLAG 16/15). IR1–3 saturate to
//! -8000h/0..7FFFh per lm (FLAG 24..22), colour FIFO channels to 0..FFh (FLAG 21..19), SZ3/OTZ
//! to 0..FFFFh (FLAG 18), SX2/SY2 to ±400h (FLAG 14/13), IR0 to 0..1000h (FLAG 12).
//!
//! Source: psx-spx "GTE Saturation", "… Calculation Commands". Verified: all 1100 command
//! cases of hwtests `gte/ps1tests-fuzz.txt` and 23 of `gte/rustation.txt`.

use crate::command::{Command, Matrix, Op, Translation, Vector};
use crate::divide::divide;
use crate::regs::{control as c, data as d};
use crate::Gte;

/// FLAG bits, named after what they report (psx-spx "GTE Saturation").
pub mod flag {
    /// MACn (n = 1..3) positive overflow: bit `31 - n`.
    pub const fn mac_pos(n: usize) -> u32 {
        1 << (31 - n)
    }
    /// MACn (n = 1..3) negative overflow: bit `28 - n`.
    pub const fn mac_neg(n: usize) -> u32 {
        1 << (28 - n)
    }
    /// IRn (n = 1..3) saturated: bit `25 - n`.
    pub const fn ir(n: usize) -> u32 {
        1 << (25 - n)
    }
    /// Colour FIFO channel (0 R, 1 G, 2 B) saturated: bit `21 - ch`.
    pub const fn color(ch: usize) -> u32 {
        1 << (21 - ch)
    }
    /// SZ3 or OTZ saturated.
    pub const SZ3_OTZ: u32 = 1 << 18;
    /// RTPS/RTPT divide overflow.
    pub const DIVIDE: u32 = 1 << 17;
    /// MAC0 positive overflow.
    pub const MAC0_POS: u32 = 1 << 16;
    /// MAC0 negative overflow.
    pub const MAC0_NEG: u32 = 1 << 15;
    /// SX2 saturated.
    pub const SX2: u32 = 1 << 14;
    /// SY2 saturated.
    pub const SY2: u32 = 1 << 13;
    /// IR0 saturated.
    pub const IR0: u32 = 1 << 12;
}

const MAC_MAX: i64 = (1 << 43) - 1;
const MAC_MIN: i64 = -(1 << 43);

/// Sign-extends the low 16 bits.
fn s16(v: u32) -> i64 {
    i64::from(v as u16 as i16)
}

/// Low and high halves of a packed register, sign-extended.
fn pair(v: u32) -> [i64; 2] {
    [s16(v), s16(v >> 16)]
}

impl Gte {
    /// Executes a GTE command: the 25-bit immediate of `COP2 imm25`, or the whole instruction
    /// word (bits 25–31 are ignored). FLAG is cleared first, as on hardware.
    ///
    /// Undocumented opcodes (the 42 values of bits 0–5 that psx-spx lists as "N/A") change
    /// nothing here, FLAG included: what they do on hardware is not documented and not covered
    /// by any hardware vector, so this is a guess that at least never corrupts state.
    pub fn execute(&mut self, cmd: u32) {
        let cmd = Command(cmd & 0x1FF_FFFF);
        let Some(op) = cmd.op() else { return };
        self.control[c::FLAG] = 0;
        let (sf, lm) = (cmd.shift(), cmd.lm());
        match op {
            Op::Rtps => self.rtp(0, sf, lm, true),
            Op::Rtpt => {
                for v in 0..3 {
                    self.rtp(v, sf, lm, v == 2);
                }
            }
            Op::Nclip => self.nclip_step(),
            Op::Op => self.op(sf, lm),
            Op::Dpcs => self.dpc(self.data[d::RGBC], sf, lm),
            Op::Dpct => {
                for _ in 0..3 {
                    self.dpc(self.data[d::RGB0], sf, lm);
                }
            }
            Op::Intpl => {
                let m = self.ir().map(|ir| ir << 12);
                self.interpolate(m, sf, lm);
                self.push_color();
            }
            Op::Mvmva => self.mvmva(cmd),
            Op::Ncds => self.nc(0, Shade::DepthCue, sf, lm),
            Op::Ncdt => (0..3).for_each(|v| self.nc(v, Shade::DepthCue, sf, lm)),
            Op::Nccs => self.nc(0, Shade::Color, sf, lm),
            Op::Ncct => (0..3).for_each(|v| self.nc(v, Shade::Color, sf, lm)),
            Op::Ncs => self.nc(0, Shade::Plain, sf, lm),
            Op::Nct => (0..3).for_each(|v| self.nc(v, Shade::Plain, sf, lm)),
            Op::Cdp => self.cc(Shade::DepthCue, sf, lm),
            Op::Cc => self.cc(Shade::Color, sf, lm),
            Op::Sqr => {
                let ir = self.ir();
                self.set_macs(ir.map(|v| v * v), sf);
                self.macs_to_irs(lm);
            }
            Op::Dcpl => {
                let m = self.color_times_ir(self.data[d::RGBC]);
                self.interpolate(m, sf, lm);
                self.push_color();
            }
            Op::Avsz3 => {
                let sum: i64 = (d::SZ1..=d::SZ3).map(|r| i64::from(self.data[r])).sum();
                self.avsz(s16(self.control[c::ZSF3]) * sum);
            }
            Op::Avsz4 => {
                let sum: i64 = (d::SZ0..=d::SZ3).map(|r| i64::from(self.data[r])).sum();
                self.avsz(s16(self.control[c::ZSF4]) * sum);
            }
            Op::Gpf => {
                let (ir0, ir) = (s16(self.data[d::IR0]), self.ir());
                self.set_macs(ir.map(|v| v * ir0), sf);
                self.macs_to_irs(lm);
                self.push_color();
            }
            Op::Gpl => {
                let (ir0, ir) = (s16(self.data[d::IR0]), self.ir());
                let mac = [1, 2, 3].map(|n| i64::from(self.data[d::MAC0 + n] as i32) << sf);
                self.set_macs([0, 1, 2].map(|i| mac[i] + ir[i] * ir0), sf);
                self.macs_to_irs(lm);
                self.push_color();
            }
        }
    }

    // ---- hardware steps ------------------------------------------------------------------

    /// Checks a MACn (n = 1..3) accumulator value for 44-bit overflow and wraps it to 44 bits.
    fn acc44(&mut self, n: usize, v: i64) -> i64 {
        if v > MAC_MAX {
            self.control[c::FLAG] |= flag::mac_pos(n);
        } else if v < MAC_MIN {
            self.control[c::FLAG] |= flag::mac_neg(n);
        }
        (v << 20) >> 20
    }

    /// Stores `v >> shift` in MACn (n = 1..3), after the 44-bit check of `v`; returns the
    /// stored 32-bit value (what IR saturation sees: verified by hwtests DPCS cases).
    fn set_mac(&mut self, n: usize, v: i64, shift: u32) -> i64 {
        let v = (self.acc44(n, v) >> shift) as i32;
        self.data[d::MAC0 + n] = v as u32;
        i64::from(v)
    }

    fn set_macs(&mut self, v: [i64; 3], shift: u32) {
        for (i, v) in v.into_iter().enumerate() {
            self.set_mac(i + 1, v, shift);
        }
    }

    /// Stores MAC0 (32 bits) after checking the 32-bit overflow; returns the unwrapped value.
    fn set_mac0(&mut self, v: i64) -> i64 {
        if v > i64::from(i32::MAX) {
            self.control[c::FLAG] |= flag::MAC0_POS;
        } else if v < i64::from(i32::MIN) {
            self.control[c::FLAG] |= flag::MAC0_NEG;
        }
        self.data[d::MAC0] = v as u32;
        v
    }

    /// IRn (n = 1..3) ← `v` saturated to -8000h/0..7FFFh per `lm`; FLAG bit on saturation.
    fn set_ir(&mut self, n: usize, v: i64, lm: bool) {
        let min = if lm { 0 } else { -0x8000 };
        let sat = v.clamp(min, 0x7FFF);
        if sat != v {
            self.control[c::FLAG] |= flag::ir(n);
        }
        self.data[d::IR0 + n] = sat as u16 as u32;
    }

    /// IR1–3 ← MAC1–3 (as stored, 32 bits), saturated per `lm`.
    fn macs_to_irs(&mut self, lm: bool) {
        for n in 1..=3 {
            self.set_ir(n, i64::from(self.data[d::MAC0 + n] as i32), lm);
        }
    }

    fn ir(&self) -> [i64; 3] {
        [1, 2, 3].map(|n| s16(self.data[d::IR0 + n]))
    }

    fn vector(&self, v: usize) -> [i64; 3] {
        let [x, y] = pair(self.data[d::VXY0 + 2 * v]);
        [x, y, s16(self.data[d::VZ0 + 2 * v])]
    }

    /// A 3×3 matrix of 16-bit entries packed in five control registers starting at `base`.
    fn matrix(&self, base: usize) -> [[i64; 3]; 3] {
        let r = &self.control[base..base + 5];
        let e: [i64; 9] = [
            s16(r[0]),
            s16(r[0] >> 16),
            s16(r[1]),
            s16(r[1] >> 16),
            s16(r[2]),
            s16(r[2] >> 16),
            s16(r[3]),
            s16(r[3] >> 16),
            s16(r[4]),
        ];
        [[e[0], e[1], e[2]], [e[3], e[4], e[5]], [e[6], e[7], e[8]]]
    }

    /// A 3-vector of 32-bit control registers starting at `base` (TR, BK, FC).
    fn control_vec(&self, base: usize) -> [i64; 3] {
        [0, 1, 2].map(|i| i64::from(self.control[base + i] as i32))
    }

    /// `(t << 12) + m·v` row by row, each partial sum checked and wrapped to 44 bits, stored in
    /// MAC1–3 shifted by `sf`; returns the unshifted 44-bit sums.
    fn mat_vec(&mut self, m: &[[i64; 3]; 3], v: [i64; 3], t: [i64; 3], sf: u32) -> [i64; 3] {
        let mut out = [0; 3];
        for i in 0..3 {
            let mut acc = t[i] << 12;
            for j in 0..3 {
                acc = self.acc44(i + 1, acc + m[i][j] * v[j]);
            }
            self.data[d::MAC1 + i] = (acc >> sf) as u32;
            out[i] = acc;
        }
        out
    }

    /// Pushes MAC1–3 / 16 (saturated to 0..FFh) with RGBC's CODE byte onto the colour FIFO.
    fn push_color(&mut self) {
        let mut rgb = self.data[d::RGBC] & 0xFF00_0000;
        for ch in 0..3 {
            let v = i64::from(self.data[d::MAC1 + ch] as i32) >> 4;
            let sat = v.clamp(0, 0xFF);
            if sat != v {
                self.control[c::FLAG] |= flag::color(ch);
            }
            rgb |= (sat as u32) << (8 * ch);
        }
        self.data[d::RGB0] = self.data[d::RGB1];
        self.data[d::RGB1] = self.data[d::RGB2];
        self.data[d::RGB2] = rgb;
    }

    /// `MAC + (FC - MAC) * IR0`, then IR1–3 from the result per lm. `m` is the unshifted
    /// (`<< 12`-scaled) colour; the FC−MAC difference saturates IR as if lm=0.
    fn interpolate(&mut self, m: [i64; 3], sf: u32, lm: bool) {
        let fc = self.control_vec(c::RFC);
        for i in 0..3 {
            let diff = self.set_mac(i + 1, (fc[i] << 12) - m[i], sf);
            self.set_ir(i + 1, diff, false);
        }
        let (ir0, ir) = (s16(self.data[d::IR0]), self.ir());
        self.set_macs([0, 1, 2].map(|i| ir[i] * ir0 + m[i]), sf);
        self.macs_to_irs(lm);
    }

    /// `[R*IR1, G*IR2, B*IR3] << 4` for colour `rgb` (R in the low byte).
    fn color_times_ir(&self, rgb: u32) -> [i64; 3] {
        let ir = self.ir();
        [0, 1, 2].map(|i| (i64::from(rgb >> (8 * i) & 0xFF) * ir[i]) << 4)
    }

    /// GTE RTPS (0x01) on vector `v`; RTPT (0x30) is three of these with depth cueing on the
    /// last only.
    fn rtp(&mut self, v: usize, sf: u32, lm: bool, depth_cue: bool) {
        let rt = self.matrix(c::RT);
        let tr = self.control_vec(c::TRX);
        let acc = self.mat_vec(&rt, self.vector(v), tr, sf);
        self.set_ir(1, (acc[0] >> sf) as i32 as i64, lm);
        self.set_ir(2, (acc[1] >> sf) as i32 as i64, lm);
        // IR3's flag is checked as if lm=0 against MAC3 >> 12 whatever sf says; the stored
        // value follows lm (psx-spx RTPS notes).
        let z = acc[2] >> 12;
        if z != z.clamp(-0x8000, 0x7FFF) {
            self.control[c::FLAG] |= flag::ir(3);
        }
        let ir3 = i64::from((acc[2] >> sf) as i32);
        let min = if lm { 0 } else { -0x8000 };
        self.data[d::IR3] = ir3.clamp(min, 0x7FFF) as u16 as u32;

        let sz3 = z.clamp(0, 0xFFFF);
        if sz3 != z {
            self.control[c::FLAG] |= flag::SZ3_OTZ;
        }
        self.data[d::SZ0] = self.data[d::SZ1];
        self.data[d::SZ1] = self.data[d::SZ2];
        self.data[d::SZ2] = self.data[d::SZ3];
        self.data[d::SZ3] = sz3 as u32;

        let (n, overflow) = divide(self.control[c::H] as u16, sz3 as u16);
        if overflow {
            self.control[c::FLAG] |= flag::DIVIDE;
        }
        let n = i64::from(n);
        let ir = self.ir();
        let sx = self.set_mac0(n * ir[0] + i64::from(self.control[c::OFX] as i32)) >> 16;
        let sy = self.set_mac0(n * ir[1] + i64::from(self.control[c::OFY] as i32)) >> 16;
        let (sxc, syc) = (sx.clamp(-0x400, 0x3FF), sy.clamp(-0x400, 0x3FF));
        if sxc != sx {
            self.control[c::FLAG] |= flag::SX2;
        }
        if syc != sy {
            self.control[c::FLAG] |= flag::SY2;
        }
        self.data[d::SXY0] = self.data[d::SXY1];
        self.data[d::SXY1] = self.data[d::SXY2];
        self.data[d::SXY2] = (sxc as u16 as u32) | (syc as u16 as u32) << 16;

        if depth_cue {
            let dqa = s16(self.control[c::DQA]);
            let dqb = i64::from(self.control[c::DQB] as i32);
            let mac0 = self.set_mac0(n * dqa + dqb) >> 12;
            let ir0 = mac0.clamp(0, 0x1000);
            if ir0 != mac0 {
                self.control[c::FLAG] |= flag::IR0;
            }
            self.data[d::IR0] = ir0 as u32;
        }
    }

    /// GTE NCLIP (0x06): the winding of SXY0..2.
    fn nclip_step(&mut self) {
        let [x0, y0] = pair(self.data[d::SXY0]);
        let [x1, y1] = pair(self.data[d::SXY1]);
        let [x2, y2] = pair(self.data[d::SXY2]);
        self.set_mac0(x0 * y1 + x1 * y2 + x2 * y0 - x0 * y2 - x1 * y0 - x2 * y1);
    }

    /// GTE OP (0x0C): IR × (RT11, RT22, RT33).
    fn op(&mut self, sf: u32, lm: bool) {
        let rt = self.matrix(c::RT);
        let dv = [rt[0][0], rt[1][1], rt[2][2]];
        let ir = self.ir();
        self.set_macs(
            [
                ir[2] * dv[1] - ir[1] * dv[2],
                ir[0] * dv[2] - ir[2] * dv[0],
                ir[1] * dv[0] - ir[0] * dv[1],
            ],
            sf,
        );
        self.macs_to_irs(lm);
    }

    /// GTE DPCS (0x10) on colour `rgb`; DPCT (0x2A) runs it on RGB0 three times.
    fn dpc(&mut self, rgb: u32, sf: u32, lm: bool) {
        let m = [0, 1, 2].map(|i| i64::from(rgb >> (8 * i) & 0xFF) << 16);
        self.interpolate(m, sf, lm);
        self.push_color();
    }

    /// GTE AVSZ3/AVSZ4 tail: MAC0 ← `v`, OTZ ← MAC0 / 1000h saturated to 0..FFFFh.
    fn avsz(&mut self, v: i64) {
        let otz = self.set_mac0(v) >> 12;
        let sat = otz.clamp(0, 0xFFFF);
        if sat != otz {
            self.control[c::FLAG] |= flag::SZ3_OTZ;
        }
        self.data[d::OTZ] = sat as u32;
    }

    /// GTE NCS/NCCS/NCDS (and the T variants per vector): light V`v` through LLM, then LCM+BK,
    /// then the colour stage `shade`.
    fn nc(&mut self, v: usize, shade: Shade, sf: u32, lm: bool) {
        let llm = self.matrix(c::LLM);
        self.mat_vec(&llm, self.vector(v), [0; 3], sf);
        self.macs_to_irs(lm);
        self.cc(shade, sf, lm);
    }

    /// GTE CC (0x1C) / CDP (0x14), and the tail of the NC commands: IR through LCM+BK, then
    /// the colour stage, then the colour FIFO.
    fn cc(&mut self, shade: Shade, sf: u32, lm: bool) {
        let lcm = self.matrix(c::LCM);
        let bk = self.control_vec(c::RBK);
        self.mat_vec(&lcm, self.ir(), bk, sf);
        self.macs_to_irs(lm);
        match shade {
            Shade::Plain => {}
            Shade::Color => {
                let m = self.color_times_ir(self.data[d::RGBC]);
                self.set_macs(m, sf);
                self.macs_to_irs(lm);
            }
            Shade::DepthCue => {
                let m = self.color_times_ir(self.data[d::RGBC]);
                self.interpolate(m, sf, lm);
            }
        }
        self.push_color();
    }

    /// GTE MVMVA (0x12): matrix `mx` × vector `v` + translation `cv`.
    ///
    /// cv=2 (FC) is the hardware's odd path: the first column's sum `FC << 12 + M11*V1` is
    /// computed only for its FLAG side effects (44-bit overflow and IR saturation as if lm=0),
    /// and MAC gets just `M12*V2 + M13*V3`.
    fn mvmva(&mut self, cmd: Command) {
        let (sf, lm) = (cmd.shift(), cmd.lm());
        let m = match cmd.mx() {
            Matrix::Rotation => self.matrix(c::RT),
            Matrix::Light => self.matrix(c::LLM),
            Matrix::Color => self.matrix(c::LCM),
            Matrix::Reserved => {
                let r = i64::from(self.data[d::RGBC] & 0xFF) << 4;
                let rt = self.matrix(c::RT);
                let (rt13, rt22) = (rt[0][2], rt[1][1]);
                [[-r, r, s16(self.data[d::IR0])], [rt13; 3], [rt22; 3]]
            }
        };
        let v = match cmd.v() {
            Vector::V(n) => self.vector(n),
            Vector::Ir => self.ir(),
        };
        match cmd.cv() {
            Translation::Tr => {
                self.mat_vec(&m, v, self.control_vec(c::TRX), sf);
            }
            Translation::Bk => {
                self.mat_vec(&m, v, self.control_vec(c::RBK), sf);
            }
            Translation::None => {
                self.mat_vec(&m, v, [0; 3], sf);
            }
            Translation::FcBugged => {
                let fc = self.control_vec(c::RFC);
                for i in 0..3 {
                    let first = self.acc44(i + 1, (fc[i] << 12) + m[i][0] * v[0]);
                    self.set_ir(i + 1, i64::from((first >> sf) as i32), false);
                    let acc = self.acc44(i + 1, m[i][1] * v[1]);
                    let acc = self.acc44(i + 1, acc + m[i][2] * v[2]);
                    self.data[d::MAC1 + i] = (acc >> sf) as u32;
                }
            }
        }
        self.macs_to_irs(lm);
    }
}

/// The colour stage of the NC*/CC/CDP commands.
#[derive(Clone, Copy)]
enum Shade {
    /// NCS/NCT: the light colour as is.
    Plain,
    /// NCCS/NCCT/CC: multiplied by RGBC.
    Color,
    /// NCDS/NCDT/CDP: multiplied by RGBC and interpolated towards FC by IR0.
    DepthCue,
}

#[cfg(test)]
mod tests {
    use super::flag;
    use crate::regs::{control as c, data as d};
    use crate::Gte;

    /// MVMVA with explicit fields: sf (bit 19), mx, v, cv, lm.
    fn mvmva(sf: bool, mx: u32, v: u32, cv: u32, lm: bool) -> u32 {
        0x12 | u32::from(sf) << 19 | mx << 17 | v << 15 | cv << 13 | u32::from(lm) << 10
    }

    fn macs(g: &Gte) -> [i32; 3] {
        [1, 2, 3].map(|n| g.read_data(d::MAC0 + n) as i32)
    }

    fn irs(g: &Gte) -> [i32; 3] {
        [1, 2, 3].map(|n| g.read_data(d::IR0 + n) as i32)
    }

    /// A GTE whose RT is [[1,2,3],[4,5,6],[7,8,9]] (raw), V0 = (10, 20, 30), IR = (-1, -2, -3).
    fn setup() -> Gte {
        let mut g = Gte::new();
        let e = [1u32, 2, 3, 4, 5, 6, 7, 8, 9];
        for base in [c::RT, c::LLM, c::LCM] {
            for i in 0..4 {
                g.write_control(base + i, e[2 * i] | e[2 * i + 1] << 16);
            }
            g.write_control(base + 4, e[8]);
        }
        g.write_data(d::VXY0, 10 | 20 << 16);
        g.write_data(d::VZ0, 30);
        for (n, v) in [(1, -1i32), (2, -2), (3, -3)] {
            g.write_data(d::IR0 + n, v as u32);
        }
        for i in 0..3 {
            g.write_control(c::TRX + i, 100 + i as u32);
            g.write_control(c::RBK + i, 200 + i as u32);
            g.write_control(c::RFC + i, 300 + i as u32);
        }
        g
    }

    #[test]
    fn mvmva_translations() {
        let rows = [140i32, 320, 500]; // RT × V0
        for (cv, t) in [(0, 100), (1, 200), (3, 0)] {
            let mut g = setup();
            g.execute(mvmva(false, 0, 0, cv, false));
            let want = [0, 1, 2].map(|i| rows[i] + ((t + i as i32) << 12) * i32::from(t != 0));
            assert_eq!(macs(&g), want, "cv={cv}");
            let all_ir = 0x8000_0000 | flag::ir(1) | flag::ir(2) | flag::ir(3);
            let want_flag = if t == 0 { 0 } else { all_ir };
            assert_eq!(
                g.read_control(c::FLAG),
                want_flag,
                "cv={cv}: saturation flags"
            );
        }
    }

    /// RTPS checks IR3's flag as if lm=0 against MAC3 >> 12, whatever sf says, while the IR3
    /// it stores follows sf and lm (psx-spx RTPS notes).
    #[test]
    fn rtps_checks_ir3_against_mac3_shifted_by_12() {
        let rtps = |sf: bool, lm: bool| 0x01 | u32::from(sf) << 19 | u32::from(lm) << 10;
        let at = |vz: i16| {
            let mut g = Gte::new();
            for (i, word) in [0x1000, 0, 0x1000, 0, 0x1000].into_iter().enumerate() {
                g.write_control(c::RT + i, word); // RT = identity (1.0 in 4.12)
            }
            g.write_data(d::VZ0, vz as u16 as u32);
            g
        };
        // sf=1, lm=1, MAC3 = -5: IR3 is stored clamped to 0, yet no flag (as if lm=0).
        let mut g = at(-5);
        g.execute(rtps(true, true));
        assert_eq!(g.read_data(d::MAC0 + 3) as i32, -5);
        assert_eq!(g.read_data(d::IR0 + 3), 0);
        assert_eq!(g.read_control(c::FLAG) & flag::ir(3), 0);
        // sf=0, MAC3 = 0x10000: IR3 saturates to 7FFFh, yet MAC3 >> 12 = 16 is in range.
        let mut g = at(0x10);
        g.execute(rtps(false, false));
        assert_eq!(g.read_data(d::MAC0 + 3), 0x10000);
        assert_eq!(g.read_data(d::IR0 + 3), 0x7FFF);
        assert_eq!(g.read_control(c::FLAG) & flag::ir(3), 0);
        // MAC3 >> 12 out of range flags IR3 whatever sf and lm say.
        let mut g = at(0x7FFF);
        g.write_control(c::TRX + 2, 0x7FFF_0000);
        g.execute(rtps(true, true));
        assert_ne!(g.read_control(c::FLAG) & flag::ir(3), 0);
    }

    /// cv=2 (FC): MAC gets only the M12*V2 + M13*V3 columns; the FC + M11*V1 part only
    /// reaches FLAG (psx-spx MVMVA).
    #[test]
    fn mvmva_fc_is_bugged() {
        let mut g = setup();
        g.execute(mvmva(false, 0, 0, 2, false));
        assert_eq!(
            macs(&g),
            [2 * 20 + 3 * 30, 5 * 20 + 6 * 30, 8 * 20 + 9 * 30]
        );
        assert_eq!(irs(&g), [130, 280, 430]);
        // FC << 12 + M11*V1 = 300<<12 + 10 saturates IR1 (lm=0): the flags say so even though
        // IR1 itself ends up 130.
        let f = g.read_control(c::FLAG);
        assert_eq!(
            f,
            0x8000_0000 | flag::ir(1) | flag::ir(2) | flag::ir(3),
            "{f:#x}"
        );
    }

    /// mx=3: [-R<<4, R<<4, IR0; RT13 ×3; RT22 ×3].
    #[test]
    fn mvmva_garbage_matrix() {
        let mut g = setup();
        g.write_data(d::RGBC, 0x0000_0002);
        g.write_data(d::IR0, 0x100);
        g.execute(mvmva(false, 3, 0, 3, false));
        assert_eq!(
            macs(&g),
            [
                -32 * 10 + 32 * 20 + 0x100 * 30,
                3 * (10 + 20 + 30),
                5 * (10 + 20 + 30)
            ]
        );
    }

    /// v=3 takes IR1–3; lm=1 clamps negative results to 0 with the IR flags.
    #[test]
    fn mvmva_ir_vector_and_lm() {
        let mut g = setup();
        g.execute(mvmva(false, 1, 3, 3, true));
        assert_eq!(macs(&g), [-14, -32, -50]);
        assert_eq!(irs(&g), [0, 0, 0]);
        assert_eq!(
            g.read_control(c::FLAG),
            0x8000_0000 | flag::ir(1) | flag::ir(2) | flag::ir(3)
        );
        let mut g = setup();
        g.execute(mvmva(false, 1, 3, 3, false));
        assert_eq!(irs(&g), [-14, -32, -50]);
        assert_eq!(g.read_control(c::FLAG), 0);
    }

    /// The 44-bit accumulator: TRX<<12 + RT11*VX0 past 2^43 sets FLAG 30 and wraps.
    #[test]
    fn mac_44_bit_overflow() {
        let mut g = Gte::new();
        g.write_control(c::TRX, 0x7FFF_FFFF);
        g.write_control(c::RT, 0x7FFF);
        g.write_data(d::VXY0, 0x7FFF);
        g.execute(mvmva(true, 0, 0, 0, false));
        let sum: i64 = (0x7FFF_FFFF_i64 << 12) + 0x7FFF * 0x7FFF;
        let wrapped = (sum << 20) >> 20;
        assert!(wrapped < 0);
        assert_eq!(g.read_data(d::MAC1) as i32, (wrapped >> 12) as i32);
        let f = g.read_control(c::FLAG);
        assert_eq!(
            f & (flag::mac_pos(1) | flag::ir(1)),
            flag::mac_pos(1) | flag::ir(1),
            "{f:#x}"
        );
        // And the negative side.
        g.write_control(c::TRX, 0x8000_0000);
        g.write_data(d::VXY0, 0x8000);
        g.execute(mvmva(true, 0, 0, 0, false));
        assert_ne!(g.read_control(c::FLAG) & flag::mac_neg(1), 0);
    }

    #[test]
    fn sqr_and_op() {
        let mut g = setup();
        g.execute(0x0A0_0428); // SQR sf=0 lm=1
        assert_eq!(macs(&g), [1, 4, 9]);
        g.execute(0x170_000C); // OP sf=0 lm=0: IR × (RT11, RT22, RT33) = (1,4,9)... × (1,5,9)
        let (a, b) = ([1i32, 4, 9], [1i32, 5, 9]);
        let cross = [
            a[2] * b[1] - a[1] * b[2],
            a[0] * b[2] - a[2] * b[0],
            a[1] * b[0] - a[0] * b[1],
        ];
        assert_eq!(macs(&g), cross);
    }

    #[test]
    fn color_fifo_saturates_and_keeps_code() {
        let mut g = Gte::new();
        g.write_data(d::RGBC, 0xAB00_0000);
        g.write_data(d::IR0, 0x1000);
        for (n, v) in [(1, 0x7FFF), (2, 0xFFFF_8000), (3, 0x0800)] {
            g.write_data(d::IR0 + n, v);
        }
        g.execute(0x198_003D); // GPF sf=1 lm=0
        assert_eq!(g.read_data(d::RGB2), 0xAB80_00FF);
        let f = g.read_control(c::FLAG);
        assert_eq!(
            f,
            flag::color(0) | flag::color(1),
            "colour flags are not error bits: {f:#x}"
        );
    }
}
