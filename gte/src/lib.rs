//! The PlayStation Geometry Transformation Engine (COP2), emulated bit for bit.
//!
//! SKELETON: being written in the GTE issue.
#![warn(missing_docs)]

/// The GTE register file and command unit.
#[derive(Clone, Debug, Default)]
pub struct Gte {
    data: [u32; 32],
    control: [u32; 32],
}

impl Gte {
    /// A GTE with every register zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// MTC2: writes data register `r` (0–31).
    pub fn write_data(&mut self, r: usize, v: u32) {
        self.data[r & 31] = v;
    }

    /// MFC2: reads data register `r` (0–31).
    pub fn read_data(&self, r: usize) -> u32 {
        self.data[r & 31]
    }

    /// CTC2: writes control register `r` (0–31).
    pub fn write_control(&mut self, r: usize, v: u32) {
        self.control[r & 31] = v;
    }

    /// CFC2: reads control register `r` (0–31).
    pub fn read_control(&self, r: usize) -> u32 {
        self.control[r & 31]
    }

    /// Executes a GTE command (the 25-bit command field or the whole COP2 word).
    pub fn execute(&mut self, _cmd: u32) {}
}
