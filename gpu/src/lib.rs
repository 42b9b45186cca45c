//! The PlayStation 1 GPU, emulated bit for bit.
//!
//! Data flow: GP0 words → packet assembly → decoded commands → rasteriser → 1024×512 VRAM of
//! 16-bit halfwords (bit 15 = mask bit, bits 0–14 = BGR555). GP1 words set display state,
//! which [`Gpu::display`] reports so a front end can cut the visible picture out of VRAM.
//!
//! SKELETON: the API below is fixed (other crates build against it); the bodies are being
//! written in the GPU issue.
#![warn(missing_docs)]

/// VRAM width in halfwords.
pub const VRAM_WIDTH: usize = 1024;
/// VRAM height in lines.
pub const VRAM_HEIGHT: usize = 512;

/// What GP1 says the TV shows: where in VRAM, how big, and in which colour depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Display {
    /// Left edge of the displayed area in VRAM halfwords (GP1(05h)).
    pub x: u16,
    /// Top edge in VRAM lines (GP1(05h)).
    pub y: u16,
    /// Visible width in pixels (256/320/368/512/640 from GP1(08h)).
    pub width: u16,
    /// Visible height in lines (240, or 480 when interlaced 480-line mode is set).
    pub height: u16,
    /// 24-bit colour mode (GP1(08h) bit 4): pixels are 3 bytes packed in VRAM.
    pub depth24: bool,
    /// Display enabled (GP1(03h)).
    pub enabled: bool,
}

/// The GPU: VRAM plus all GP0/GP1 state.
pub struct Gpu {
    vram: Vec<u16>,
    threads: usize,
}

impl Default for Gpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Gpu {
    /// A GPU in its power-on state, VRAM zeroed.
    pub fn new() -> Self {
        Gpu {
            vram: vec![0; VRAM_WIDTH * VRAM_HEIGHT],
            threads: 0,
        }
    }

    /// Writes one word to GP0 (0x1F801810).
    pub fn gp0(&mut self, _word: u32) {}

    /// Writes several words to GP0, in order.
    pub fn gp0_words(&mut self, words: &[u32]) {
        for &w in words {
            self.gp0(w);
        }
    }

    /// Writes one word to GP1 (0x1F801814).
    pub fn gp1(&mut self, _word: u32) {}

    /// Reads GPUREAD (0x1F801810).
    pub fn gpuread(&mut self) -> u32 {
        0
    }

    /// Reads GPUSTAT (0x1F801814).
    pub fn gpustat(&self) -> u32 {
        0
    }

    /// VRAM, row-major, 1024×512 halfwords. Finishes any drawing still queued first.
    pub fn vram(&mut self) -> &[u16] {
        &self.vram
    }

    /// Number of rasteriser threads; 0 = all cores (the default), 1 = serial.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads;
    }

    /// The display configuration GP1 has set.
    pub fn display(&self) -> Display {
        Display {
            x: 0,
            y: 0,
            width: 320,
            height: 240,
            depth24: false,
            enabled: false,
        }
    }
}
