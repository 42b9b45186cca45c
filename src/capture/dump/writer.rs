//! Dumps written in either form ([`Form`]): packets, consecutive words coalesced, and whole
//! captures of rendered frames.
//!
//! DuckStation's form is what its recorder lays out (stenzek/duckstation `gpu_dump.cpp`, read
//! for facts): the 14-byte magic; GPU version 1, game ID, video format and comment packets;
//! the state restore (GP1 packets of one word each, the VRAM upload with a size word of 0 for
//! 1024×512); trace begin; then the trace, each GP1 word its own packet and each VSync two
//! words of CPU cycles. Its player drops a GP1 packet of any other length and refuses a dump
//! without a trace begin or a VSync after it, so a writer in this form always has them.

use std::fmt;

use super::{Packet, PacketType, VSyncTime, MAGIC_SHORT, MAGIC_SPEC, MAX_PACKET_WORDS};

/// Which of the two dump forms to write (module docs). Reading takes both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// DuckStation's: its player opens only this one (it compares the 14-byte magic).
    #[default]
    DuckStation,
    /// The ps1dev spec's 16-byte `v1r1` form (PCSX-Redux).
    Spec,
}

impl Form {
    /// The magic a dump of this form starts with.
    pub fn magic(self) -> &'static [u8] {
        match self {
            Form::DuckStation => MAGIC_SHORT,
            Form::Spec => MAGIC_SPEC,
        }
    }

    /// `duckstation` or `spec` (the `--dump-form` values).
    pub fn name(self) -> &'static str {
        match self {
            Form::DuckStation => "duckstation",
            Form::Spec => "spec",
        }
    }

    /// The form named `duckstation` or `spec`.
    pub fn from_name(name: &str) -> Option<Self> {
        [Form::DuckStation, Form::Spec]
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }
}

/// The GPU version word DuckStation writes: its own enum's `V2_1MB_VRAM`, which is 1 (the spec
/// numbers that GPU 2).
pub const DUCKSTATION_GPU_VERSION: u32 = 1;

/// The game ID DuckStation writes when the game has no serial; a psxrender capture has none.
pub const NO_GAME_ID: &str = "UNKNOWN";

/// CPU cycles per frame stamped on VSyncs written without a time (33.8688 MHz over 60 Hz NTSC
/// or 50 Hz PAL fields): DuckStation's player reads no time from them, so only the order counts.
const CYCLES_PER_FRAME: [u64; 2] = [33_868_800 / 60, 33_868_800 / 50];

/// A packet too long for the 24-bit length field (only strings and unknown packets can be;
/// GP0/GP1 words are split over several packets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketTooLong {
    /// The packet type.
    pub kind: PacketType,
    /// Its payload length in words.
    pub words: usize,
}

impl fmt::Display for PacketTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GPUDUMP packet type 0x{:02x} has {} payload words; the format allows {MAX_PACKET_WORDS}",
            self.kind.0, self.words
        )
    }
}

impl std::error::Error for PacketTooLong {}

/// Builds a dump, coalescing consecutive GP0 words (and, in the spec form, GP1 words) into one
/// packet. The renderer's `--dump-gp0`, `replay --dump` and tests use it.
#[derive(Clone, Debug)]
pub struct Writer {
    out: Vec<u8>,
    pending: Option<(PacketType, Vec<u32>)>,
    form: Form,
    /// VSyncs written so far.
    frames: u64,
    /// PAL (true) or NTSC timing for VSyncs written without a time.
    pal: bool,
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

impl Writer {
    /// An empty dump in the spec's form: just the 16-byte magic.
    pub fn new() -> Self {
        Self::with_form(Form::Spec)
    }

    /// An empty dump in `form`: just its magic.
    pub fn with_form(form: Form) -> Self {
        Writer {
            out: form.magic().to_vec(),
            pending: None,
            form,
            frames: 0,
            pal: false,
        }
    }

    /// The form being written.
    pub fn form(&self) -> Form {
        self.form
    }

    /// The information packets DuckStation's recorder starts a dump with, in its order: GPU
    /// version, game ID, video format (`PAL` or `NTSC`, which also sets the timing of VSyncs
    /// written without a time), comment (left out if too long for a packet).
    pub fn duckstation_header(&mut self, game_id: &str, pal: bool, comment: &str) {
        self.pal = pal;
        let video = if pal { "PAL" } else { "NTSC" };
        let _ = self.packet(&Packet::GpuVersion(DUCKSTATION_GPU_VERSION));
        // Strings longer than the 24-bit length field are the only failures: left out.
        for p in [
            Packet::GameId(game_id.into()),
            Packet::VideoFormat(video.into()),
            Packet::Comment(comment.into()),
        ] {
            let _ = self.packet(&p);
        }
    }

    fn raw(&mut self, kind: PacketType, payload: &[u32]) {
        let header = u32::from(kind.0) << 24 | payload.len() as u32;
        self.out.extend_from_slice(&header.to_le_bytes());
        for w in payload {
            self.out.extend_from_slice(&w.to_le_bytes());
        }
    }

    fn flush(&mut self) {
        if let Some((kind, words)) = self.pending.take() {
            for chunk in words.chunks(MAX_PACKET_WORDS) {
                self.raw(kind, chunk);
            }
        }
    }

    fn push_word(&mut self, kind: PacketType, word: u32) {
        match &mut self.pending {
            Some((k, words)) if *k == kind => words.push(word),
            _ => {
                self.flush();
                self.pending = Some((kind, vec![word]));
            }
        }
    }

    /// Records one GP0 word.
    pub fn gp0(&mut self, word: u32) {
        self.push_word(PacketType::GP0, word);
    }

    /// Records GP0 words.
    pub fn gp0_words(&mut self, words: &[u32]) {
        for &w in words {
            self.gp0(w);
        }
    }

    /// Records one GP1 word: in DuckStation's form a packet of its own (its player drops GP1
    /// packets of any other length), in the spec's form coalesced with the words around it.
    pub fn gp1(&mut self, word: u32) {
        if self.form == Form::DuckStation {
            self.flush();
            self.raw(PacketType::GP1, &[word]);
        } else {
            self.push_word(PacketType::GP1, word);
        }
    }

    /// Records a VSync (end of a frame). DuckStation's form always carries a 64-bit time: one
    /// written without a time gets the frames so far times a frame's CPU cycles.
    pub fn vsync(&mut self, time: VSyncTime) {
        self.flush();
        let time = match (self.form, time) {
            (Form::Spec, t) => t,
            (Form::DuckStation, VSyncTime::None) => {
                VSyncTime::U64(self.frames * CYCLES_PER_FRAME[usize::from(self.pal)])
            }
            (Form::DuckStation, VSyncTime::U32(t)) => VSyncTime::U64(t.into()),
            (Form::DuckStation, t) => t,
        };
        self.frames += 1;
        match time {
            VSyncTime::None => self.raw(PacketType::VSYNC, &[]),
            VSyncTime::U32(t) => self.raw(PacketType::VSYNC, &[t]),
            VSyncTime::U64(t) => self.raw(PacketType::VSYNC, &[t as u32, (t >> 32) as u32]),
        }
    }

    /// Records the full-VRAM upload a replayable dump starts with: GP0(A0h) of 1024×512 at
    /// (0,0), with the size word of the form (the spec/PCSX-Redux `02000400`; DuckStation's 0,
    /// which the GPU reads as 1024×512 by its `((n - 1) & mask) + 1` rule). `vram` is
    /// row-major; missing halfwords are written as 0.
    pub fn restore_vram(&mut self, vram: &[u16]) {
        let size = match self.form {
            Form::Spec => 0x0200_0400,
            Form::DuckStation => 0,
        };
        self.gp0_words(&[0xA000_0000, 0, size]);
        let n = gpu::VRAM_WIDTH * gpu::VRAM_HEIGHT;
        let at = |i: usize| u32::from(vram.get(i).copied().unwrap_or(0));
        for i in (0..n).step_by(2) {
            self.gp0(at(i) | at(i + 1) << 16);
        }
    }

    /// Records any packet. Fails only for a string or unknown packet longer than the 24-bit
    /// length field allows.
    pub fn packet(&mut self, packet: &Packet) -> std::result::Result<(), PacketTooLong> {
        let string = |s: &str| -> Vec<u32> {
            // Zero-padded to a whole word, always with at least one NUL.
            let mut b = s.as_bytes().to_vec();
            b.push(0);
            b.resize(b.len().div_ceil(4) * 4, 0);
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let payload = match packet {
            Packet::Gp0(w) => {
                self.gp0_words(w);
                return Ok(());
            }
            Packet::Gp1(w) => {
                w.iter().for_each(|&w| self.gp1(w));
                return Ok(());
            }
            Packet::VSync(t) => {
                self.vsync(*t);
                return Ok(());
            }
            Packet::Discard(n) | Packet::Readback(n) | Packet::GpuVersion(n) => vec![*n],
            Packet::TraceBegin => vec![],
            Packet::GameId(s) | Packet::VideoFormat(s) | Packet::Comment(s) => string(s),
            Packet::Unknown { payload, .. } => payload.clone(),
        };
        if payload.len() > MAX_PACKET_WORDS {
            return Err(PacketTooLong {
                kind: packet.kind(),
                words: payload.len(),
            });
        }
        self.flush();
        self.raw(packet.kind(), &payload);
        Ok(())
    }

    /// Ends any pending packet and returns the file's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.flush();
        self.out
    }
}

/// Whether the last GP1(08h) display mode of `gp1` words selects PAL (bit 3).
pub fn pal_mode(gp1: &[u32]) -> bool {
    gp1.iter()
        .rev()
        .find(|&&w| w >> 24 == 0x08)
        .is_some_and(|&w| w & 1 << 3 != 0)
}

/// Rendered frames as one GPUDUMP in `form` that an emulator's dump player plays as an
/// animation: the information packets (DuckStation's form: [`Writer::duckstation_header`];
/// the spec's: `comment` alone), the state restore once (GP1 reset; the spec form: the whole
/// VRAM `initial_vram`, then the display set-up `gp1_setup`; DuckStation's: the set-up first,
/// as its recorder writes the video mode before VRAM), trace begin, then for each frame its GP0
/// words and one VSync. Each frame's words set all the drawing state they use and clear the
/// framebuffer, so frame N replays to the same picture as when it was rendered alone.
pub fn capture(
    form: Form,
    comment: &str,
    initial_vram: &[u16],
    gp1_setup: &[u32],
    frames: &[&[u32]],
) -> Vec<u8> {
    let mut w = Writer::with_form(form);
    match form {
        Form::DuckStation => {
            w.duckstation_header(NO_GAME_ID, pal_mode(gp1_setup), comment);
            w.gp1(0);
            gp1_setup.iter().for_each(|&g| w.gp1(g));
            w.restore_vram(initial_vram);
        }
        Form::Spec => {
            let _ = w.packet(&Packet::Comment(comment.to_string()));
            w.gp1(0);
            w.restore_vram(initial_vram);
            gp1_setup.iter().for_each(|&g| w.gp1(g));
        }
    }
    // A trace-begin is a fixed empty packet: it cannot be too long.
    let _ = w.packet(&Packet::TraceBegin);
    for gp0 in frames {
        w.gp0_words(gp0);
        w.vsync(VSyncTime::None);
    }
    w.finish()
}

/// One rendered frame as a GPUDUMP in `form`: [`capture`] of that frame alone.
pub fn frame_dump(
    form: Form,
    comment: &str,
    initial_vram: &[u16],
    gp1_setup: &[u32],
    gp0: &[u32],
) -> Vec<u8> {
    capture(form, comment, initial_vram, gp1_setup, &[gp0])
}

/// Encodes packets as a 16-byte-magic dump. Consecutive GP0 (GP1) packets are merged, which a
/// replay cannot tell apart.
pub fn encode(packets: &[Packet]) -> std::result::Result<Vec<u8>, PacketTooLong> {
    encode_as(Form::Spec, packets)
}

/// Encodes packets as a dump in `form` ([`Writer::packet`] for each).
pub fn encode_as(form: Form, packets: &[Packet]) -> std::result::Result<Vec<u8>, PacketTooLong> {
    let mut w = Writer::with_form(form);
    for p in packets {
        w.packet(p)?;
    }
    Ok(w.finish())
}
