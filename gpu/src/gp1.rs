//! GP1: display control, and what it reports — the displayed area ([`Display`]) and the
//! display half of GPUSTAT. Each parameter word has a type that writes it (`new`, `word`) beside
//! the accessors the display reads it with.
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

/// GP1 command bytes (bits 24–29 of a GP1 word: [`command`]).
pub mod cmd {
    /// GP1(00h): reset the GPU.
    pub const RESET: u8 = 0x00;
    /// GP1(01h): reset the command buffer.
    pub const RESET_COMMANDS: u8 = 0x01;
    /// GP1(02h): acknowledge the GPU interrupt.
    pub const ACK_IRQ: u8 = 0x02;
    /// GP1(03h): display enable.
    pub const DISPLAY_ENABLE: u8 = 0x03;
    /// GP1(04h): DMA direction.
    pub const DMA_DIRECTION: u8 = 0x04;
    /// GP1(05h): start of the displayed area in VRAM.
    pub const DISPLAY_START: u8 = 0x05;
    /// GP1(06h): horizontal display range.
    pub const HORIZONTAL_RANGE: u8 = 0x06;
    /// GP1(07h): vertical display range.
    pub const VERTICAL_RANGE: u8 = 0x07;
    /// GP1(08h): display mode.
    pub const DISPLAY_MODE: u8 = 0x08;
    /// GP1(09h): allow GP0(E1h) to disable textures.
    pub const TEXTURE_DISABLE: u8 = 0x09;
}

/// The command byte of a GP1 word: bits 24–29 (40h–FFh mirror 00h–3Fh).
pub fn command(word: u32) -> u8 {
    ((word >> 24) & 0x3f) as u8
}

/// The name of GP1 command byte `command` (psx-spx "GPU Display Control Commands").
pub fn name(command: u8) -> &'static str {
    match command {
        cmd::RESET => "reset",
        cmd::RESET_COMMANDS => "reset command buffer",
        cmd::ACK_IRQ => "acknowledge IRQ",
        cmd::DISPLAY_ENABLE => "display enable",
        cmd::DMA_DIRECTION => "DMA direction",
        cmd::DISPLAY_START => "display start",
        cmd::HORIZONTAL_RANGE => "horizontal range",
        cmd::VERTICAL_RANGE => "vertical range",
        cmd::DISPLAY_MODE => "display mode",
        cmd::TEXTURE_DISABLE => "texture disable",
        0x10..=0x1f => "GPU info",
        _ => "other",
    }
}

/// A GP1 word: `command` in bits 24–31 above the parameter bits `arg` (bits 0–23).
pub const fn word(command: u8, arg: u32) -> u32 {
    (command as u32) << 24 | (arg & 0x00ff_ffff)
}

/// GP1(00h): the reset word.
pub const fn reset_word() -> u32 {
    word(cmd::RESET, 0)
}

/// GP1(03h): the word turning the display on or off (bit 0 set: off).
pub fn display_enable_word(on: bool) -> u32 {
    word(cmd::DISPLAY_ENABLE, u32::from(!on))
}

/// GP1(05h) display start: bits 0–9 X in VRAM halfwords, 10–18 Y in lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DisplayStart(pub u32);

impl DisplayStart {
    /// The start at VRAM (`x`, `y`), `x` 0..=1023, `y` 0..=511 (higher bits dropped).
    pub fn new(x: u16, y: u16) -> DisplayStart {
        DisplayStart(u32::from(x & 0x3ff) | u32::from(y & 0x1ff) << 10)
    }
    /// The GP1(05h) word.
    pub fn word(self) -> u32 {
        word(cmd::DISPLAY_START, self.0)
    }
    /// X (bits 0–9).
    pub fn x(self) -> u16 {
        (self.0 & 0x3ff) as u16
    }
    /// Y (bits 10–18).
    pub fn y(self) -> u16 {
        ((self.0 >> 10) & 0x1ff) as u16
    }
}

/// GP1(06h) horizontal display range: bits 0–11 X1 and 12–23 X2, in GPU clock cycles from the
/// start of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct HorizontalRange(pub u32);

impl HorizontalRange {
    /// The range `x1`..`x2`, each 0..=4095 (higher bits dropped).
    pub fn new(x1: u16, x2: u16) -> HorizontalRange {
        HorizontalRange(u32::from(x1 & 0xfff) | u32::from(x2 & 0xfff) << 12)
    }
    /// The GP1(06h) word.
    pub fn word(self) -> u32 {
        word(cmd::HORIZONTAL_RANGE, self.0)
    }
    /// X1 (bits 0–11).
    pub fn x1(self) -> u16 {
        (self.0 & 0xfff) as u16
    }
    /// X2 (bits 12–23).
    pub fn x2(self) -> u16 {
        ((self.0 >> 12) & 0xfff) as u16
    }
}

/// GP1(07h) vertical display range: bits 0–9 Y1 and 10–19 Y2, in scanlines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VerticalRange(pub u32);

impl VerticalRange {
    /// The range `y1`..`y2`, each 0..=1023 (higher bits dropped).
    pub fn new(y1: u16, y2: u16) -> VerticalRange {
        VerticalRange(u32::from(y1 & 0x3ff) | u32::from(y2 & 0x3ff) << 10)
    }
    /// The GP1(07h) word.
    pub fn word(self) -> u32 {
        word(cmd::VERTICAL_RANGE, self.0)
    }
    /// Y1 (bits 0–9).
    pub fn y1(self) -> u16 {
        (self.0 & 0x3ff) as u16
    }
    /// Y2 (bits 10–19).
    pub fn y2(self) -> u16 {
        ((self.0 >> 10) & 0x3ff) as u16
    }
}

/// GP1(08h) display mode: bits 0–1 horizontal resolution (256/320/512/640), 2 vertical
/// resolution (480 lines with bit 5), 3 PAL, 4 24-bit colour, 5 interlace, 6 368 wide
/// (overriding bits 0–1), 7 "reverse flag". GPUSTAT bits 16–22 show bits 0–6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DisplayMode(pub u32);

impl DisplayMode {
    /// The mode `width` pixels wide (256, 320, 368, 512 or 640; `None` for any other), 480-line
    /// interlaced or not, PAL or NTSC, in 24- or 15-bit colour.
    pub fn new(width: u16, interlaced480: bool, pal: bool, depth24: bool) -> Option<DisplayMode> {
        let hres = match width {
            256 => 0,
            320 => 1,
            512 => 2,
            640 => 3,
            368 => 1 << 6,
            _ => return None,
        };
        let flag = |on: bool, bits: u32| if on { bits } else { 0 };
        Some(DisplayMode(
            hres | flag(interlaced480, 1 << 2 | 1 << 5) | flag(pal, 1 << 3) | flag(depth24, 1 << 4),
        ))
    }
    /// The GP1(08h) word.
    pub fn word(self) -> u32 {
        word(cmd::DISPLAY_MODE, self.0)
    }
    /// The nominal width in pixels (256/320/368/512/640) and the GPU clock cycles per pixel
    /// (the dot clock divider: 10/8/7/5/4).
    pub fn width_and_cycles(self) -> (u16, u32) {
        if self.0 & 0x40 != 0 {
            return (368, 7);
        }
        match self.0 & 3 {
            0 => (256, 10),
            1 => (320, 8),
            2 => (512, 5),
            _ => (640, 4),
        }
    }
    /// 480-line interlaced (bits 2 and 5 both set).
    pub fn interlaced480(self) -> bool {
        self.0 & 0x24 == 0x24
    }
    /// PAL (bit 3).
    pub fn pal(self) -> bool {
        self.0 & 8 != 0
    }
    /// 24-bit colour (bit 4).
    pub fn depth24(self) -> bool {
        self.0 & 0x10 != 0
    }
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
    start: DisplayStart,
    horizontal: HorizontalRange,
    vertical: VerticalRange,
    mode: DisplayMode,
    dma: u32,
    /// GP1(09h): GP0(E1h) bit 11 may disable textures.
    pub allow_texture_disable: bool,
}

impl Default for DisplayRegs {
    /// As after GP1(00h): display off, default ranges, mode 0.
    fn default() -> Self {
        DisplayRegs {
            enabled: false,
            start: DisplayStart::default(),
            horizontal: HorizontalRange::new(0x200, 0x200 + 256 * 10),
            vertical: VerticalRange::new(0x10, 0x10 + 240),
            mode: DisplayMode::default(),
            dma: 0,
            allow_texture_disable: false,
        }
    }
}

impl DisplayRegs {
    /// Writes one GP1 word.
    pub fn write(&mut self, word: u32) -> Gp1Effect {
        let arg = word & 0x00ff_ffff;
        match command(word) {
            cmd::RESET => {
                // GP1(09h)'s setting is not reset.
                let allow_texture_disable = self.allow_texture_disable;
                *self = DisplayRegs {
                    allow_texture_disable,
                    ..DisplayRegs::default()
                };
                return Gp1Effect::Reset;
            }
            cmd::RESET_COMMANDS => return Gp1Effect::ResetCommands,
            // Bit 0 clear turns the display on.
            cmd::DISPLAY_ENABLE => self.enabled = arg & 1 == 0,
            cmd::DMA_DIRECTION => self.dma = arg & 3,
            cmd::DISPLAY_START => self.start = DisplayStart(arg),
            cmd::HORIZONTAL_RANGE => self.horizontal = HorizontalRange(arg),
            cmd::VERTICAL_RANGE => self.vertical = VerticalRange(arg),
            cmd::DISPLAY_MODE => self.mode = DisplayMode(arg),
            cmd::TEXTURE_DISABLE => self.allow_texture_disable = arg & 1 != 0,
            // GP1(10h): register read (the index mirrors every 16).
            0x10..=0x1f => return Gp1Effect::ReadRegister(arg & 0xf),
            _ => {}
        }
        Gp1Effect::None
    }

    /// The display ranges GP1(06h) and GP1(07h) set, as written.
    pub fn ranges(&self) -> (HorizontalRange, VerticalRange) {
        (self.horizontal, self.vertical)
    }

    /// The display configuration.
    pub fn display(&self) -> Display {
        let m = self.mode;
        let (mode_width, cycles) = m.width_and_cycles();
        let (x1, x2) = (self.horizontal.x1(), self.horizontal.x2());
        let width = ((u32::from(x2.saturating_sub(x1)) / cycles + 2) & !3) as u16;
        let lines = self.vertical.y2().saturating_sub(self.vertical.y1());
        let interlaced480 = m.interlaced480();
        Display {
            x: self.start.x(),
            y: self.start.y(),
            width,
            height: if interlaced480 { lines * 2 } else { lines },
            depth24: m.depth24(),
            enabled: self.enabled,
            mode_width,
            interlaced480,
            pal: m.pal(),
        }
    }

    /// GPUSTAT bits 16–23 and 29–30 (display mode, display off, DMA direction).
    pub fn status_bits(&self) -> u32 {
        // Mode bit 6 goes to bit 16, bits 0–1 to 17–18, bits 2–5 to 19–22.
        let m = self.mode.0;
        let s = ((m >> 6) & 1) << 16 | (m & 3) << 17 | ((m >> 2) & 0xf) << 19;
        s | (!self.enabled as u32) << 23 | self.dma << 29
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The display words the renderer writes read back through the display registers.
        #[test]
        fn display_words_round_trip(
            x in 0u16..1024,
            y in 0u16..512,
            x1 in 0u16..4096,
            x2 in 0u16..4096,
            y1 in 0u16..1024,
            y2 in 0u16..1024,
            width in prop::sample::select(vec![256u16, 320, 368, 512, 640]),
            flags in any::<[bool; 3]>(),
            on in any::<bool>(),
        ) {
            let [interlaced480, pal, depth24] = flags;
            let mode = DisplayMode::new(width, interlaced480, pal, depth24).unwrap();
            let mut regs = DisplayRegs::default();
            for w in [
                reset_word(),
                mode.word(),
                DisplayStart::new(x, y).word(),
                HorizontalRange::new(x1, x2).word(),
                VerticalRange::new(y1, y2).word(),
                display_enable_word(on),
            ] {
                regs.write(w);
            }
            let d = regs.display();
            prop_assert_eq!((d.x, d.y, d.enabled), (x, y, on));
            prop_assert_eq!(
                (d.mode_width, d.interlaced480, d.pal, d.depth24),
                (width, interlaced480, pal, depth24)
            );
            prop_assert_eq!((regs.horizontal.x1(), regs.horizontal.x2()), (x1, x2));
            prop_assert_eq!((regs.vertical.y1(), regs.vertical.y2()), (y1, y2));
        }

        /// A display start or range word reads back to itself (every parameter bit means
        /// something).
        #[test]
        fn display_decoders_round_trip(arg in any::<u32>()) {
            let start = arg & 0x7_ffff;
            let s = DisplayStart(start);
            prop_assert_eq!(DisplayStart::new(s.x(), s.y()).word(), word(cmd::DISPLAY_START, start));
            let h = HorizontalRange(arg & 0xff_ffff);
            prop_assert_eq!(HorizontalRange::new(h.x1(), h.x2()), h);
            let v = VerticalRange(arg & 0xf_ffff);
            prop_assert_eq!(VerticalRange::new(v.y1(), v.y2()), v);
            prop_assert_eq!(command(h.word()), cmd::HORIZONTAL_RANGE);
            prop_assert_eq!(command(v.word()), cmd::VERTICAL_RANGE);
        }
    }

    #[test]
    fn command_bytes_and_names() {
        assert_eq!(reset_word(), 0);
        assert_eq!(display_enable_word(true), 0x0300_0000);
        assert_eq!(display_enable_word(false), 0x0300_0001);
        assert_eq!(command(0x4800_0001), cmd::DISPLAY_MODE);
        assert_eq!(name(cmd::DISPLAY_MODE), "display mode");
        assert_eq!(name(0x1f), "GPU info");
        assert_eq!(name(0x20), "other");
        assert_eq!(DisplayMode::new(300, false, false, false), None);
        let edge = DisplayMode::new(640, true, true, true).unwrap();
        assert_eq!(edge.word(), 0x0800_003f);
        assert_eq!(
            DisplayMode::new(368, false, false, false)
                .unwrap()
                .width_and_cycles(),
            (368, 7)
        );
    }
}
