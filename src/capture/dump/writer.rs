//! Dumps written in the spec's 16-byte form: packets, consecutive words coalesced, and whole
//! captures of rendered frames.

use std::fmt;

use super::{Packet, PacketType, VSyncTime, MAGIC_SPEC, MAX_PACKET_WORDS};

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

/// Builds a dump in the spec's 16-byte form, coalescing consecutive GP0 (or GP1) words into
/// one packet. The renderer's `--dump-gp0` and tests use it.
#[derive(Clone, Debug)]
pub struct Writer {
    out: Vec<u8>,
    pending: Option<(PacketType, Vec<u32>)>,
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

impl Writer {
    /// An empty dump: just the 16-byte magic.
    pub fn new() -> Self {
        Writer {
            out: MAGIC_SPEC.to_vec(),
            pending: None,
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

    /// Records one GP1 word.
    pub fn gp1(&mut self, word: u32) {
        self.push_word(PacketType::GP1, word);
    }

    /// Records a VSync (end of a frame).
    pub fn vsync(&mut self, time: VSyncTime) {
        self.flush();
        match time {
            VSyncTime::None => self.raw(PacketType::VSYNC, &[]),
            VSyncTime::U32(t) => self.raw(PacketType::VSYNC, &[t]),
            VSyncTime::U64(t) => self.raw(PacketType::VSYNC, &[t as u32, (t >> 32) as u32]),
        }
    }

    /// Records the full-VRAM upload a replayable dump starts with (GP0(A0h) of 1024×512 at
    /// (0,0), the spec/PCSX-Redux form `A0000000, 00000000, 02000400`). `vram` is row-major;
    /// missing halfwords are written as 0.
    pub fn restore_vram(&mut self, vram: &[u16]) {
        self.gp0_words(&[0xA000_0000, 0, 0x0200_0400]);
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

/// Rendered frames as one GPUDUMP an emulator's dump player plays as an animation: `comment`
/// (left out if too long for a packet), the state restore (GP1 reset, the whole VRAM
/// `initial_vram`, then the display set-up `gp1_setup`) once, trace begin, then for each frame
/// its GP0 words and one VSync. Each frame's words set all the drawing state they use and clear
/// the framebuffer, so frame N replays to the same picture as when it was rendered alone.
pub fn capture(
    comment: &str,
    initial_vram: &[u16],
    gp1_setup: &[u32],
    frames: &[&[u32]],
) -> Vec<u8> {
    let mut w = Writer::new();
    let _ = w.packet(&Packet::Comment(comment.to_string()));
    w.gp1(0);
    w.restore_vram(initial_vram);
    for &g in gp1_setup {
        w.gp1(g);
    }
    // A trace-begin is a fixed empty packet: it cannot be too long.
    let _ = w.packet(&Packet::TraceBegin);
    for gp0 in frames {
        w.gp0_words(gp0);
        w.vsync(VSyncTime::None);
    }
    w.finish()
}

/// One rendered frame as a GPUDUMP: [`capture`] of that frame alone.
pub fn frame_dump(comment: &str, initial_vram: &[u16], gp1_setup: &[u32], gp0: &[u32]) -> Vec<u8> {
    capture(comment, initial_vram, gp1_setup, &[gp0])
}

/// Encodes packets as a 16-byte-magic dump. Consecutive GP0 (GP1) packets are merged, which a
/// replay cannot tell apart.
pub fn encode(packets: &[Packet]) -> std::result::Result<Vec<u8>, PacketTooLong> {
    let mut w = Writer::new();
    for p in packets {
        w.packet(p)?;
    }
    Ok(w.finish())
}
