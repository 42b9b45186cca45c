//! The PlayStation Geometry Transformation Engine (COP2), emulated bit for bit.
//!
//! Data flow: the CPU (or the renderer) writes the 64 registers with [`Gte::write_data`]
//! (MTC2) and [`Gte::write_control`] (CTC2), issues a command with [`Gte::execute`] and reads
//! results back with [`Gte::read_data`] (MFC2) / [`Gte::read_control`] (CFC2). The register
//! file ([`regs`]) reproduces every storage width, write side effect and read quirk; the
//! commands ([`ops`]) every saturation and FLAG bit; the perspective divide ([`divide`]) the
//! hardware's UNR approximation. [`typed`] is a layer for the renderer with fixed-point types
//! at the edge, working through the same register file.
//!
//! Projecting one vertex with the raw register interface (what a CPU program does with
//! CTC2/MTC2, the COP2 command and MFC2):
//! ```
//! use gte::regs::{control as c, data as d};
//! use gte::{Gte, Op};
//!
//! let mut gte = Gte::new();
//! // RT = identity: 1.0 is 0x1000 in 1.3.12, two entries per word (RT11|RT12, …, RT33).
//! for (r, v) in [0x1000, 0, 0x1000, 0, 0x1000].into_iter().enumerate() {
//!     gte.write_control(c::RT + r, v);
//! }
//! gte.write_control(c::TRX + 2, 1000); // TRZ: the camera 1000 units back
//! gte.write_control(c::OFX, 160 << 16); // screen centre, 16.16
//! gte.write_control(c::OFY, 120 << 16);
//! gte.write_control(c::H, 1000); // projection plane distance
//! gte.write_data(d::VXY0, 50 << 16 | 100); // V0 = (100, 50, 0)
//! gte.write_data(d::VZ0, 0);
//! gte.execute(Op::Rtps.canonical().0);
//! // SXY2 = (y << 16) | x: H / SZ = 1, so the point lands 100 right and 50 down of centre.
//! assert_eq!(gte.read_data(d::SXY2), 170 << 16 | 260);
//! assert_eq!(gte.read_data(d::SZ3), 1000);
//! ```
//!
//! How sure we are: 1150/1150 hwtests `gte/ps1tests-fuzz.txt` cases (all 64 registers after
//! each of the 22 commands with random sf/lm/mx/v/cv, plus register-only cases) and 23/23
//! `gte/rustation.txt` console dumps match (`psxrender gte-vectors`, `tests/gte_vectors.rs`).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod command;
pub mod divide;
pub mod ops;
pub mod regs;
pub mod typed;

pub use command::{Command, Op};
pub use regs::REG_NAMES;

/// The GTE register file and command unit.
///
/// Registers are stored as the hardware holds them (16-bit registers keep 16 bits); reads apply
/// the sign/zero extension the CPU sees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gte {
    data: [u32; 32],
    control: [u32; 32],
}

impl Gte {
    /// A GTE with every register zero (LZCR, computed from LZCS = 0, reads 32 only after a
    /// write to LZCS; the console's power-on state is not documented).
    pub fn new() -> Self {
        Self::default()
    }
}
