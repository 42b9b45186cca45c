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
//! How sure we are: 1150/1150 hwtests `gte/ps1tests-fuzz.txt` cases (all 64 registers after
//! each of the 22 commands with random sf/lm/mx/v/cv, plus register-only cases) and 23/23
//! `gte/rustation.txt` console dumps match (`psxrender gte-vectors`, `tests/gte_vectors.rs`).
#![warn(missing_docs)]

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
