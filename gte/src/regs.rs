//! The GTE register file exactly as the CPU sees it through MTC2/MFC2 (data, r0–r31) and
//! CTC2/CFC2 (control, r32–r63): storage widths, write side effects and read quirks.
//!
//! Source: psx-spx "GTE Registers"; hwtests `FORMAT.md` §2. Verified: the 50 command-less
//! cases of `gte/ps1tests-fuzz.txt` (register I/O only) and every read-back of the others.

/// psx-spx names of registers 0..63 (data 0..31, then control 32..63), as the vector files and
/// `psxrender gte-vectors` print them.
pub const REG_NAMES: [&str; 64] = [
    "VXY0", "VZ0", "VXY1", "VZ1", "VXY2", "VZ2", "RGBC", "OTZ", //
    "IR0", "IR1", "IR2", "IR3", "SXY0", "SXY1", "SXY2", "SXYP", //
    "SZ0", "SZ1", "SZ2", "SZ3", "RGB0", "RGB1", "RGB2", "RES1", //
    "MAC0", "MAC1", "MAC2", "MAC3", "IRGB", "ORGB", "LZCS", "LZCR", //
    "RT11RT12", "RT13RT21", "RT22RT23", "RT31RT32", "RT33", "TRX", "TRY", "TRZ", //
    "L11L12", "L13L21", "L22L23", "L31L32", "L33", "RBK", "GBK", "BBK", //
    "LR1LR2", "LR3LG1", "LG2LG3", "LB1LB2", "LB3", "RFC", "GFC", "BFC", //
    "OFX", "OFY", "H", "DQA", "DQB", "ZSF3", "ZSF4", "FLAG", //
];

/// Data register numbers (MTC2/MFC2 `$n`), named as in psx-spx.
#[allow(missing_docs)]
pub mod data {
    pub const VXY0: usize = 0;
    pub const VZ0: usize = 1;
    pub const VXY1: usize = 2;
    pub const VZ1: usize = 3;
    pub const VXY2: usize = 4;
    pub const VZ2: usize = 5;
    pub const RGBC: usize = 6;
    pub const OTZ: usize = 7;
    pub const IR0: usize = 8;
    pub const IR1: usize = 9;
    pub const IR2: usize = 10;
    pub const IR3: usize = 11;
    pub const SXY0: usize = 12;
    pub const SXY1: usize = 13;
    pub const SXY2: usize = 14;
    pub const SXYP: usize = 15;
    pub const SZ0: usize = 16;
    pub const SZ1: usize = 17;
    pub const SZ2: usize = 18;
    pub const SZ3: usize = 19;
    pub const RGB0: usize = 20;
    pub const RGB1: usize = 21;
    pub const RGB2: usize = 22;
    pub const RES1: usize = 23;
    pub const MAC0: usize = 24;
    pub const MAC1: usize = 25;
    pub const MAC2: usize = 26;
    pub const MAC3: usize = 27;
    pub const IRGB: usize = 28;
    pub const ORGB: usize = 29;
    pub const LZCS: usize = 30;
    pub const LZCR: usize = 31;
}

/// Control register numbers (CTC2/CFC2 `$n`, i.e. vector-file register `32 + n`).
#[allow(missing_docs)]
pub mod control {
    pub const RT: usize = 0;
    pub const TRX: usize = 5;
    pub const LLM: usize = 8;
    pub const RBK: usize = 13;
    pub const LCM: usize = 16;
    pub const RFC: usize = 21;
    pub const OFX: usize = 24;
    pub const OFY: usize = 25;
    pub const H: usize = 26;
    pub const DQA: usize = 27;
    pub const DQB: usize = 28;
    pub const ZSF3: usize = 29;
    pub const ZSF4: usize = 30;
    pub const FLAG: usize = 31;
}

/// FLAG bits that software may write (30..12); the rest read as zero except bit 31.
pub const FLAG_WRITE_MASK: u32 = 0x7FFF_F000;
/// FLAG bits whose OR is reported in bit 31 (30..23 and 18..13).
pub const FLAG_ERROR_MASK: u32 = 0x7F87_E000;

/// Data registers that hold 16 bits and read back sign-extended: VZ0–2, IR0–3.
const DATA_S16: u32 = 1 << 1 | 1 << 3 | 1 << 5 | 1 << 8 | 1 << 9 | 1 << 10 | 1 << 11;
/// Data registers that hold 16 bits and read back zero-extended: OTZ, SZ0–3.
const DATA_U16: u32 = 1 << 7 | 1 << 16 | 1 << 17 | 1 << 18 | 1 << 19;
/// Control registers holding 16 bits, read sign-extended: RT33 L33 LB3 H DQA ZSF3 ZSF4
/// (H is unsigned in use, but the CFC2 read sign-extends it: psx-spx "BUG", verified by hwtests).
const CONTROL_S16: u32 = 1 << 4 | 1 << 12 | 1 << 20 | 1 << 26 | 1 << 27 | 1 << 29 | 1 << 30;

/// Saturates `ir >> 7` to 0..=0x1F: one channel of ORGB.
fn orgb_channel(ir: u32) -> u32 {
    ((ir as u16 as i16) >> 7).clamp(0, 0x1F) as u32
}

/// The count LZCR reports for `v`: leading bits equal to bit 31 (1..=32).
pub fn leading_sign_bits(v: u32) -> u32 {
    if v as i32 >= 0 {
        v.leading_zeros()
    } else {
        v.leading_ones()
    }
}

impl crate::Gte {
    /// MTC2: writes data register `r` (0–31; higher bits of `r` are ignored). Side effects:
    /// SXYP pushes the SXY FIFO, IRGB sets IR1–3, LZCS sets LZCR, ORGB and LZCR ignore writes,
    /// 16-bit registers keep the low 16 bits.
    pub fn write_data(&mut self, r: usize, v: u32) {
        let r = r & 31;
        match r {
            data::SXYP => {
                self.data[data::SXY0] = self.data[data::SXY1];
                self.data[data::SXY1] = self.data[data::SXY2];
                self.data[data::SXY2] = v;
            }
            data::IRGB => {
                self.data[data::IRGB] = v & 0x7FFF;
                self.data[data::IR1] = (v & 0x1F) << 7;
                self.data[data::IR2] = ((v >> 5) & 0x1F) << 7;
                self.data[data::IR3] = ((v >> 10) & 0x1F) << 7;
            }
            data::ORGB | data::LZCR => {}
            data::LZCS => {
                self.data[data::LZCS] = v;
                self.data[data::LZCR] = leading_sign_bits(v);
            }
            _ if (DATA_S16 | DATA_U16) >> r & 1 != 0 => self.data[r] = v & 0xFFFF,
            _ => self.data[r] = v,
        }
    }

    /// MFC2: reads data register `r` (0–31). VZn/IRn sign-extend, OTZ/SZn zero-extend, SXYP
    /// reads SXY2, IRGB and ORGB both read ORGB (IR1–3 collapsed to 5:5:5), LZCR the count.
    pub fn read_data(&self, r: usize) -> u32 {
        let r = r & 31;
        match r {
            data::SXYP => self.data[data::SXY2],
            data::IRGB | data::ORGB => {
                orgb_channel(self.data[data::IR1])
                    | orgb_channel(self.data[data::IR2]) << 5
                    | orgb_channel(self.data[data::IR3]) << 10
            }
            _ if DATA_S16 >> r & 1 != 0 => self.data[r] as u16 as i16 as i32 as u32,
            _ => self.data[r],
        }
    }

    /// CTC2: writes control register `r` (0–31). 16-bit registers keep the low 16 bits; FLAG
    /// keeps bits 30..12.
    pub fn write_control(&mut self, r: usize, v: u32) {
        let r = r & 31;
        self.control[r] = match r {
            control::FLAG => v & FLAG_WRITE_MASK,
            _ if CONTROL_S16 >> r & 1 != 0 => v & 0xFFFF,
            _ => v,
        };
    }

    /// CFC2: reads control register `r` (0–31). RT33/L33/LB3/DQA/ZSF3/ZSF4 and H read
    /// sign-extended; FLAG reads with bit 31 = OR of bits 30..23 and 18..13.
    pub fn read_control(&self, r: usize) -> u32 {
        let r = r & 31;
        let v = self.control[r];
        match r {
            control::FLAG => v | (u32::from(v & FLAG_ERROR_MASK != 0) << 31),
            _ if CONTROL_S16 >> r & 1 != 0 => v as u16 as i16 as i32 as u32,
            _ => v,
        }
    }

    /// Writes register `r` of the vector-file numbering (0..31 data, 32..63 control).
    pub fn write_reg(&mut self, r: usize, v: u32) {
        if r & 32 == 0 {
            self.write_data(r, v)
        } else {
            self.write_control(r, v)
        }
    }

    /// Reads register `r` of the vector-file numbering (0..31 data, 32..63 control).
    pub fn read_reg(&self, r: usize) -> u32 {
        if r & 32 == 0 {
            self.read_data(r)
        } else {
            self.read_control(r)
        }
    }

    /// All 64 registers as the CPU reads them (MFC2 r0..31 then CFC2 r0..31).
    pub fn read_all(&self) -> [u32; 64] {
        std::array::from_fn(|r| self.read_reg(r))
    }

    /// Writes all 64 registers in index order, with every side effect, as the vector files'
    /// `in` lines do.
    pub fn write_all(&mut self, regs: &[u32; 64]) {
        for (r, &v) in regs.iter().enumerate() {
            self.write_reg(r, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Gte;

    #[test]
    fn side_effects() {
        let mut g = Gte::new();
        g.write_data(12, 1);
        g.write_data(13, 2);
        g.write_data(14, 3);
        g.write_data(15, 4);
        assert_eq!(
            [g.read_data(12), g.read_data(13), g.read_data(14)],
            [2, 3, 4]
        );
        assert_eq!(g.read_data(15), 4);
        g.write_data(28, 0x7FFF);
        assert_eq!(
            [g.read_data(9), g.read_data(10), g.read_data(11)],
            [0xF80; 3]
        );
        assert_eq!(g.read_data(29), 0x7FFF);
        g.write_data(9, 0x8000);
        assert_eq!(g.read_data(9), 0xFFFF_8000);
        assert_eq!(g.read_data(28), 0x7FE0, "negative IR1 reads as 0 in ORGB");
        for (v, n) in [
            (0, 32),
            (u32::MAX, 32),
            (1, 31),
            (0x8000_0000, 1),
            (0x4000_0000, 1),
        ] {
            g.write_data(30, v);
            assert_eq!(g.read_data(31), n, "LZCS {v:#x}");
        }
        g.write_data(31, 5);
        assert_eq!(g.read_data(31), 1);
        g.write_control(26, 0x1234_8000);
        assert_eq!(g.read_control(26), 0xFFFF_8000, "H reads sign-extended");
        g.write_control(31, 0xFFFF_FFFF);
        assert_eq!(g.read_control(31), 0xFFFF_F000);
        g.write_control(31, 0x0008_1000);
        assert_eq!(
            g.read_control(31),
            0x0008_1000,
            "bits 19 and 12 are not error bits"
        );
        g.write_data(7, 0xFFFF_FFFF);
        assert_eq!(g.read_data(7), 0xFFFF);
    }
}
