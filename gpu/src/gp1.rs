//! GP1: display control, and what it reports — the displayed area ([`Display`]) and the
//! display half of GPUSTAT.
//!
//! Source: psx-spx "GPU Display Control Commands (GP1)" and "GPU Status Register".

/// What GP1 says the TV shows: where in VRAM, how big, and in which colour depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Display {
    /// Left edge of the displayed area in VRAM halfwords (GP1(05h)).
    pub x: u16,
    /// Top edge in VRAM lines (GP1(05h)).
    pub y: u16,
    /// Visible width in pixels: `((X2−X1)/cycles_per_pixel + 2) & !3` from GP1(06h) and the
    /// dot clock of GP1(08h) (256/320/368/512/640 for the standard ranges).
    pub width: u16,
    /// Visible height in lines: `Y2−Y1` from GP1(07h), doubled in 480-line interlace
    /// (GP1(08h) bits 2 and 5).
    pub height: u16,
    /// 24-bit colour mode (GP1(08h) bit 4): pixels are 3 bytes packed in VRAM.
    pub depth24: bool,
    /// Display enabled (GP1(03h) bit 0 clear).
    pub enabled: bool,
    /// Nominal horizontal resolution of GP1(08h) (256/320/368/512/640).
    pub mode_width: u16,
    /// 480-line interlaced mode (GP1(08h) bits 2 and 5).
    pub interlaced480: bool,
    /// PAL (GP1(08h) bit 3).
    pub pal: bool,
}

/// What a GP1 word asks of the rest of the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gp1Effect {
    /// Nothing beyond the display registers.
    None,
    /// GP1(00h): reset the GPU (display registers already reset).
    Reset,
    /// GP1(01h): reset the command buffer.
    ResetCommands,
    /// GP1(10h–1Fh): latch GPU register `index` (0–15) into GPUREAD.
    ReadRegister(u32),
}

/// The display registers GP1 writes.
#[derive(Clone, Debug)]
pub struct DisplayRegs {
    enabled: bool,
    start: u32,
    horizontal: u32,
    vertical: u32,
    mode: u32,
    dma: u32,
    /// GP1(09h): GP0(E1h) bit 11 may disable textures.
    pub allow_texture_disable: bool,
}

impl Default for DisplayRegs {
    fn default() -> Self {
        let mut r = DisplayRegs {
            enabled: false,
            start: 0,
            horizontal: 0,
            vertical: 0,
            mode: 0,
            dma: 0,
            allow_texture_disable: false,
        };
        r.reset();
        r
    }
}

impl DisplayRegs {
    /// GP1(00h)'s display part: display off, default ranges, mode 0.
    fn reset(&mut self) {
        self.enabled = false;
        self.dma = 0;
        self.start = 0;
        self.horizontal = 0x200 | ((0x200 + 256 * 10) << 12);
        self.vertical = 0x10 | ((0x10 + 240) << 10);
        self.mode = 0;
    }

    /// Writes one GP1 word.
    pub fn write(&mut self, word: u32) -> Gp1Effect {
        let arg = word & 0x00ff_ffff;
        match (word >> 24) & 0x3f {
            0x00 => {
                self.reset();
                return Gp1Effect::Reset;
            }
            0x01 => return Gp1Effect::ResetCommands,
            0x03 => self.enabled = arg & 1 == 0,
            0x04 => self.dma = arg & 3,
            0x05 => self.start = arg,
            0x06 => self.horizontal = arg,
            0x07 => self.vertical = arg,
            0x08 => self.mode = arg,
            0x09 => self.allow_texture_disable = arg & 1 != 0,
            // GP1(10h): register read (the index mirrors every 16).
            0x10..=0x1f => return Gp1Effect::ReadRegister(arg & 0xf),
            _ => {}
        }
        Gp1Effect::None
    }

    /// The display configuration.
    pub fn display(&self) -> Display {
        let m = self.mode;
        let (mode_width, cycles) = if m & 0x40 != 0 {
            (368, 7)
        } else {
            match m & 3 {
                0 => (256, 10),
                1 => (320, 8),
                2 => (512, 5),
                _ => (640, 4),
            }
        };
        let x1 = self.horizontal & 0xfff;
        let x2 = (self.horizontal >> 12) & 0xfff;
        let width = ((x2.saturating_sub(x1) / cycles + 2) & !3) as u16;
        let y1 = self.vertical & 0x3ff;
        let y2 = (self.vertical >> 10) & 0x3ff;
        let interlaced480 = m & 0x24 == 0x24;
        let lines = y2.saturating_sub(y1) as u16;
        Display {
            x: (self.start & 0x3ff) as u16,
            y: ((self.start >> 10) & 0x1ff) as u16,
            width,
            height: if interlaced480 { lines * 2 } else { lines },
            depth24: m & 0x10 != 0,
            enabled: self.enabled,
            mode_width,
            interlaced480,
            pal: m & 8 != 0,
        }
    }

    /// GPUSTAT bits 16–23 and 29–30 (display mode, display off, DMA direction).
    pub fn status_bits(&self) -> u32 {
        let m = self.mode;
        let mut s = ((m >> 6) & 1) << 16;
        s |= (m & 3) << 17;
        s |= ((m >> 2) & 1) << 19;
        s |= ((m >> 3) & 1) << 20;
        s |= ((m >> 4) & 1) << 21;
        s |= ((m >> 5) & 1) << 22;
        s |= (!self.enabled as u32) << 23;
        s | self.dma << 29
    }
}
