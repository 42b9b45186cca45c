//! Decoding of the COP2 "imm25" command word.
//!
//! Source: psx-spx "GTE Command Encoding". Only bits 0–5 (the real opcode), 10 (lm), 13–19
//! (cv, v, mx, sf) matter to the hardware; the "fake" number in bits 20–24 is ignored.

/// A GTE command word: the 25-bit immediate of `COP2 imm25` (a whole COP2 instruction word is
/// accepted; bits 25–31 are ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Command(pub u32);

/// The 22 documented operations, by their real opcode (bits 0–5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Op {
    Rtps,
    Nclip,
    Op,
    Dpcs,
    Intpl,
    Mvmva,
    Ncds,
    Cdp,
    Ncdt,
    Nccs,
    Cc,
    Ncs,
    Nct,
    Sqr,
    Dcpl,
    Dpct,
    Avsz3,
    Avsz4,
    Rtpt,
    Gpf,
    Gpl,
    Ncct,
}

impl Op {
    /// Every documented operation.
    pub const ALL: [Op; 22] = [
        Op::Rtps,
        Op::Nclip,
        Op::Op,
        Op::Dpcs,
        Op::Intpl,
        Op::Mvmva,
        Op::Ncds,
        Op::Cdp,
        Op::Ncdt,
        Op::Nccs,
        Op::Cc,
        Op::Ncs,
        Op::Nct,
        Op::Sqr,
        Op::Dcpl,
        Op::Dpct,
        Op::Avsz3,
        Op::Avsz4,
        Op::Rtpt,
        Op::Gpf,
        Op::Gpl,
        Op::Ncct,
    ];

    /// The real opcode (command bits 0–5).
    pub const fn opcode(self) -> u32 {
        match self {
            Op::Rtps => 0x01,
            Op::Nclip => 0x06,
            Op::Op => 0x0C,
            Op::Dpcs => 0x10,
            Op::Intpl => 0x11,
            Op::Mvmva => 0x12,
            Op::Ncds => 0x13,
            Op::Cdp => 0x14,
            Op::Ncdt => 0x16,
            Op::Nccs => 0x1B,
            Op::Cc => 0x1C,
            Op::Ncs => 0x1E,
            Op::Nct => 0x20,
            Op::Sqr => 0x28,
            Op::Dcpl => 0x29,
            Op::Dpct => 0x2A,
            Op::Avsz3 => 0x2D,
            Op::Avsz4 => 0x2E,
            Op::Rtpt => 0x30,
            Op::Gpf => 0x3D,
            Op::Gpl => 0x3E,
            Op::Ncct => 0x3F,
        }
    }

    /// The operation with real opcode `opcode`, or `None` for the undocumented ones.
    pub const fn from_opcode(opcode: u32) -> Option<Op> {
        Some(match opcode & 0x3F {
            0x01 => Op::Rtps,
            0x06 => Op::Nclip,
            0x0C => Op::Op,
            0x10 => Op::Dpcs,
            0x11 => Op::Intpl,
            0x12 => Op::Mvmva,
            0x13 => Op::Ncds,
            0x14 => Op::Cdp,
            0x16 => Op::Ncdt,
            0x1B => Op::Nccs,
            0x1C => Op::Cc,
            0x1E => Op::Ncs,
            0x20 => Op::Nct,
            0x28 => Op::Sqr,
            0x29 => Op::Dcpl,
            0x2A => Op::Dpct,
            0x2D => Op::Avsz3,
            0x2E => Op::Avsz4,
            0x30 => Op::Rtpt,
            0x3D => Op::Gpf,
            0x3E => Op::Gpl,
            0x3F => Op::Ncct,
            _ => return None,
        })
    }

    /// The psx-spx mnemonic.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Rtps => "RTPS",
            Op::Nclip => "NCLIP",
            Op::Op => "OP",
            Op::Dpcs => "DPCS",
            Op::Intpl => "INTPL",
            Op::Mvmva => "MVMVA",
            Op::Ncds => "NCDS",
            Op::Cdp => "CDP",
            Op::Ncdt => "NCDT",
            Op::Nccs => "NCCS",
            Op::Cc => "CC",
            Op::Ncs => "NCS",
            Op::Nct => "NCT",
            Op::Sqr => "SQR",
            Op::Dcpl => "DCPL",
            Op::Dpct => "DPCT",
            Op::Avsz3 => "AVSZ3",
            Op::Avsz4 => "AVSZ4",
            Op::Rtpt => "RTPT",
            Op::Gpf => "GPF",
            Op::Gpl => "GPL",
            Op::Ncct => "NCCT",
        }
    }

    /// The command word Sony's libraries issue for this operation (psx-spx opcode summary,
    /// with its usual sf/lm and, for MVMVA, `mx=RT v=V0 cv=TR`).
    pub const fn canonical(self) -> Command {
        Command(match self {
            Op::Rtps => 0x018_0001,
            Op::Nclip => 0x140_0006,
            Op::Op => 0x178_000C,
            Op::Dpcs => 0x078_0010,
            Op::Intpl => 0x098_0011,
            Op::Mvmva => 0x048_0012,
            Op::Ncds => 0x0E8_0413,
            Op::Cdp => 0x128_0414,
            Op::Ncdt => 0x0F8_0416,
            Op::Nccs => 0x108_041B,
            Op::Cc => 0x138_041C,
            Op::Ncs => 0x0C8_041E,
            Op::Nct => 0x0D8_0420,
            Op::Sqr => 0x0A8_0428,
            Op::Dcpl => 0x068_0029,
            Op::Dpct => 0x0F8_002A,
            Op::Avsz3 => 0x158_002D,
            Op::Avsz4 => 0x168_002E,
            Op::Rtpt => 0x028_0030,
            Op::Gpf => 0x198_003D,
            Op::Gpl => 0x1A8_003E,
            Op::Ncct => 0x118_043F,
        })
    }
}

/// MVMVA matrix selection (bits 17–18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matrix {
    /// Rotation matrix RT.
    Rotation,
    /// Light matrix LLM.
    Light,
    /// Light colour matrix LCM.
    Color,
    /// mx=3: the hardware's garbage matrix (psx-spx: `-R*10h, +R*10h, IR0, RT13×3, RT22×3`).
    Reserved,
}

/// MVMVA vector selection (bits 15–16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vector {
    /// V0, V1 or V2.
    V(usize),
    /// [IR1, IR2, IR3].
    Ir,
}

/// MVMVA translation selection (bits 13–14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Translation {
    /// TR (TRX, TRY, TRZ).
    Tr,
    /// BK (RBK, GBK, BBK).
    Bk,
    /// FC, which the hardware adds wrongly (see [`crate::Gte::execute`]).
    FcBugged,
    /// No translation.
    None,
}

impl Command {
    /// The real opcode, bits 0–5.
    pub const fn opcode(self) -> u32 {
        self.0 & 0x3F
    }
    /// The documented operation, if the opcode is one.
    pub const fn op(self) -> Option<Op> {
        Op::from_opcode(self.opcode())
    }
    /// sf (bit 19): shift results right by 12 (fractional IR).
    pub const fn sf(self) -> bool {
        self.0 >> 19 & 1 != 0
    }
    /// The shift sf selects: 12 or 0.
    pub const fn shift(self) -> u32 {
        if self.sf() {
            12
        } else {
            0
        }
    }
    /// lm (bit 10): saturate IR1–3 to 0..7FFF instead of -8000..7FFF.
    pub const fn lm(self) -> bool {
        self.0 >> 10 & 1 != 0
    }
    /// MVMVA matrix, bits 17–18.
    pub const fn mx(self) -> Matrix {
        match self.0 >> 17 & 3 {
            0 => Matrix::Rotation,
            1 => Matrix::Light,
            2 => Matrix::Color,
            _ => Matrix::Reserved,
        }
    }
    /// MVMVA vector, bits 15–16.
    pub const fn v(self) -> Vector {
        match self.0 >> 15 & 3 {
            3 => Vector::Ir,
            n => Vector::V(n as usize),
        }
    }
    /// MVMVA translation, bits 13–14.
    pub const fn cv(self) -> Translation {
        match self.0 >> 13 & 3 {
            0 => Translation::Tr,
            1 => Translation::Bk,
            2 => Translation::FcBugged,
            _ => Translation::None,
        }
    }
    /// This command with sf set or cleared.
    pub const fn with_sf(self, sf: bool) -> Command {
        Command(self.0 & !(1 << 19) | (sf as u32) << 19)
    }
    /// This command with lm set or cleared.
    pub const fn with_lm(self, lm: bool) -> Command {
        Command(self.0 & !(1 << 10) | (lm as u32) << 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_words_decode_to_their_op() {
        for op in Op::ALL {
            assert_eq!(Op::from_opcode(op.opcode()), Some(op), "{}", op.name());
            assert_eq!(op.canonical().op(), Some(op), "{}", op.name());
            assert_eq!(Command(0x4A00_0000 | op.canonical().0).op(), Some(op));
        }
        let undocumented = (0..64).filter(|&o| Op::from_opcode(o).is_none()).count();
        assert_eq!(undocumented, 64 - 22);
    }

    #[test]
    fn fields() {
        let c = Command(0x4A04_E412);
        assert!(!c.sf());
        assert!(c.lm());
        assert_eq!(c.mx(), Matrix::Color);
        assert_eq!(c.v(), Vector::V(1));
        assert_eq!(c.cv(), Translation::None);
        assert_eq!(Command(0x4A01_4412).cv(), Translation::FcBugged);
    }
}
