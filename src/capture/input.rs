//! Recorded GPU input as `replay`, `census` and `info` take it: a text stream
//! (`hwtests/FORMAT.md`) or a GPU dump ([`dump`]), read by content.

use std::path::Path;

use crate::capture::dump::{self, Dump, Packet};
use crate::hwtest::stream::{self, Item};
use crate::read::{self, LoadError};

/// The name of the text stream format in messages.
pub const STREAM_FORMAT: &str = "GPU text stream";

/// What `replay` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A text stream's GP0/GP1/frame items, in order, and the line each came from.
    Stream {
        /// The items.
        items: Vec<Item>,
        /// 1-based line of each item.
        lines: Vec<usize>,
    },
    /// A parsed GPU dump.
    Dump(Dump),
}

impl Input {
    /// Reads `data` as a dump when it starts with a dump magic (or is a compressed file), else
    /// as a text stream. Errors carry the byte offset; the caller adds the file name.
    pub fn parse(data: &[u8]) -> Result<Self, LoadError> {
        if dump::looks_like_dump(data) {
            return dump::parse(data).map(Input::Dump);
        }
        let text = std::str::from_utf8(data).map_err(|e| {
            LoadError::invalid(
                "GPU stream",
                e.valid_up_to() as u64,
                "neither a GPUDUMP (no PSXGPUDUMPv1 magic) nor a UTF-8 text stream",
            )
        })?;
        let (mut items, mut lines) = (Vec::new(), Vec::new());
        items.reserve(stream::likely_lines(text));
        lines.reserve(stream::likely_lines(text));
        stream::each_line(text, |l| {
            if matches!(l.item, Item::Gp0(_) | Item::Gp1(_) | Item::Frame) {
                items.push(l.item);
                lines.push(l.line);
            }
        })?;
        if items.is_empty() {
            return Err(LoadError::invalid(
                "GPU stream",
                0,
                "no `gp0`, `gp1` or `frame` lines: not a GPU stream",
            ));
        }
        Ok(Input::Stream { items, lines })
    }

    /// Where GP0 word `n` (from 0, in input order) is in the input: `line L` of a text stream,
    /// `byte 0xB` of a dump; `None` past the last.
    pub fn locate_gp0(&self, n: u64) -> Option<String> {
        match self {
            Input::Stream { items, lines } => items
                .iter()
                .zip(lines)
                .filter(|(i, _)| matches!(i, Item::Gp0(_)))
                .nth(n.try_into().ok()?)
                .map(|(_, line)| format!("line {line}")),
            Input::Dump(d) => {
                let mut left = n;
                for e in &d.entries {
                    if let Packet::Gp0(words) = &e.packet {
                        let len = words.len() as u64;
                        if left < len {
                            return Some(format!("byte {:#x}", e.offset + 4 + 4 * left));
                        }
                        left -= len;
                    }
                }
                None
            }
        }
    }

    /// Loads and parses a file (size capped by [`read::read_file`]).
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let data = read::read_file(path, "GPU stream")?;
        Self::parse(&data).map_err(|e| e.in_file(path))
    }

    /// How many frame marks the input holds.
    pub fn frames(&self) -> u64 {
        match self {
            Input::Stream { items, .. } => {
                items.iter().filter(|i| **i == Item::Frame).count() as u64
            }
            Input::Dump(d) => d.frames(),
        }
    }

    /// The input as a spec-form (16-byte magic) GPU dump that emulator dump players open: a
    /// comment, trace begin, the words, a VSync per frame mark, and a closing VSync when the
    /// input does not end with one (DuckStation's player needs at least one). Dumps are
    /// re-encoded as they are (a 14-byte-magic dump comes out in the 16-byte form).
    pub fn to_dump(&self) -> Result<Vec<u8>, dump::PacketTooLong> {
        match self {
            Input::Dump(d) => {
                let packets: Vec<Packet> = d.packets().cloned().collect();
                dump::encode(&packets)
            }
            Input::Stream { items, .. } => {
                let mut w = dump::Writer::new();
                w.packet(&Packet::Comment(format!(
                    "psxrender {} replay of a text stream",
                    env!("CARGO_PKG_VERSION")
                )))?;
                w.packet(&Packet::TraceBegin)?;
                for item in items {
                    match item {
                        Item::Gp0(x) => w.gp0(*x),
                        Item::Gp1(x) => w.gp1(*x),
                        Item::Frame => w.vsync(dump::VSyncTime::None),
                        _ => {}
                    }
                }
                if items.last() != Some(&Item::Frame) {
                    w.vsync(dump::VSyncTime::None);
                }
                Ok(w.finish())
            }
        }
    }

    /// A one-line (dumps: a few lines) description for the command line.
    pub fn summary(&self) -> String {
        match self {
            Input::Stream { items, .. } => {
                let count = |f: fn(&Item) -> bool| items.iter().filter(|i| f(i)).count();
                format!(
                    "text stream: {} GP0 words, {} GP1 words, {} frames",
                    count(|i| matches!(i, Item::Gp0(_))),
                    count(|i| matches!(i, Item::Gp1(_))),
                    self.frames()
                )
            }
            Input::Dump(d) => d.summary(),
        }
    }
}
