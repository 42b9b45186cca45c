//! Recorded GPU input as `replay`, `census` and `info` take it: a text stream
//! (`hwtests/FORMAT.md`) or a GPU dump ([`dump`]), plain or zstd/xz-compressed, read by content.
//!
//! A parsed input, dump or text, is held as dump packets ([`Entries`]), so it costs about its
//! own size in memory whatever its lines or packets are; every reader of an input walks one
//! sequence of packets ([`Input::packets`]), each with its place in the file.

use std::io::Read;
use std::path::Path;

use crate::capture::compressed::{self, Compression};
use crate::capture::dump::{self, Dump, Entries, PacketRef, PacketType};
use crate::hwtest::stream::{self, Item};
use crate::read::{self, ErrorKind, LoadError};

/// The name of the text stream format in messages.
pub const STREAM_FORMAT: &str = "GPU text stream";

/// The format load errors of recorded input carry before it is known to be a dump.
const INPUT_FORMAT: &str = "GPU stream";

/// What `replay` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A text stream's GP0/GP1/frame items, in order, and the 1-based line each came from, as
    /// code builds them (the benches). Each item takes several times the room [`Input::Text`]
    /// gives it, so [`Input::parse`] and [`Input::from_items`] make that.
    Stream {
        /// The items.
        items: Vec<Item>,
        /// 1-based line of each item.
        lines: Vec<usize>,
    },
    /// A parsed text stream.
    Text(Text),
    /// A parsed GPU dump.
    Dump(Dump),
}

/// A text stream held as dump packets: consecutive `gp0` lines one GP0 packet, consecutive
/// `gp1` lines one GP1 packet, each `frame` line a VSync without payload; with the line each
/// packet starts on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text {
    /// The packets (offsets in them mean nothing: places are lines).
    entries: Entries,
    /// 1-based line of each packet's first word; a packet's words are on consecutive lines.
    lines: Vec<u32>,
    /// The line a word must be on to join the last packet (0: none can).
    joins: u32,
    /// The compression of the file it was read from, if any.
    pub compression: Option<Compression>,
}

impl Text {
    /// Adds a GP0/GP1/frame item read on `line`; other items (probe files') are not GPU input.
    #[inline]
    fn push(&mut self, item: &Item, line: u32) {
        match *item {
            Item::Gp0(w) => self.word(PacketType::GP0, w, line),
            Item::Gp1(w) => self.word(PacketType::GP1, w, line),
            Item::Frame => {
                self.entries.push(PacketType::VSYNC, &[]);
                self.lines.push(line);
                self.joins = 0;
            }
            _ => {}
        }
    }

    /// A word on `line`: the last packet's next word when that packet is of this kind and ends
    /// on the line before (so each word's line stays its packet's plus its index), else a
    /// packet of its own.
    #[inline]
    fn word(&mut self, kind: PacketType, word: u32, line: u32) {
        if line != self.joins || !self.entries.extend_last(kind, word) {
            self.entries.push(kind, &[word]);
            self.lines.push(line);
        }
        self.joins = line.saturating_add(1);
    }
}

/// Where a packet is in its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The 1-based line of a text stream its first word is on; its words are on consecutive
    /// lines.
    Line(u64),
    /// The byte offset of a dump packet's header.
    Byte(u64),
}

impl Place {
    /// Where payload word `k` of the packet is: `line L` or `byte 0xB`.
    pub fn word(self, k: u64) -> String {
        match self {
            Place::Line(l) => format!("line {}", l + k),
            Place::Byte(b) => format!("byte {:#x}", b + 4 + 4 * k),
        }
    }
}

/// Where the next packet of an input is ([`Input::packet_at`]); the default is the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Packets (of a [`Input::Stream`]: items) before it.
    index: usize,
    /// Its header's word in the input's [`Entries`].
    word: usize,
}

/// The packets of an input with their places ([`Input::packets`]).
pub struct Packets<'a> {
    input: &'a Input,
    at: Cursor,
}

impl<'a> Iterator for Packets<'a> {
    type Item = (Place, PacketRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let (packet, next) = self.input.packet_at(self.at)?;
        self.at = next;
        Some(packet)
    }
}

impl Input {
    /// Reads `data`, decompressing it first when it is a zstd/xz stream, as a dump when what
    /// it holds starts with a dump magic, else as a text stream. Errors carry the byte offset
    /// (of the decompressed data, past the decoder's own errors); the caller adds the file name.
    pub fn parse(data: &[u8]) -> Result<Self, LoadError> {
        let Some(c) = Compression::detect(data) else {
            return Self::parse_plain(data, None);
        };
        // A dump is read packet by packet as it decodes; a text stream is read whole. Either
        // is capped like a plain file's size.
        let decoder = c.decoder(data, read::MAX_FILE_SIZE);
        let decode_error = |e: std::io::Error| match compressed::carried(&e) {
            Some(carried) => carried.clone(),
            None => LoadError::new(INPUT_FORMAT, 0, ErrorKind::Io(e.to_string())),
        };
        let (head, mut decoded) =
            compressed::peek(decoder, dump::MAGIC_PREFIX.len()).map_err(decode_error)?;
        if dump::has_magic(&head) {
            let mut d = dump::collect(dump::PacketReader::new(decoded)?)?;
            d.compression = Some(c);
            return Ok(Input::Dump(d));
        }
        let mut text = Vec::new();
        decoded.read_to_end(&mut text).map_err(decode_error)?;
        Self::parse_plain(&text, Some(c))
    }

    /// [`Input::parse`] of data that is not compressed (or no longer is).
    fn parse_plain(data: &[u8], compression: Option<Compression>) -> Result<Self, LoadError> {
        if dump::has_magic(data) {
            let mut d = dump::parse(data)?;
            d.compression = compression;
            return Ok(Input::Dump(d));
        }
        // Lines are numbered in a u32: a text has fewer lines than bytes.
        if data.len() >= u32::MAX as usize {
            return Err(LoadError::new(
                INPUT_FORMAT,
                0,
                ErrorKind::CountTooLarge {
                    what: "text stream bytes",
                    count: data.len() as u64,
                    max: u64::from(u32::MAX) - 1,
                },
            ));
        }
        let text = std::str::from_utf8(data).map_err(|e| {
            LoadError::invalid(
                INPUT_FORMAT,
                e.valid_up_to() as u64,
                "neither a GPUDUMP (no PSXGPUDUMPv1 magic) nor a UTF-8 text stream",
            )
        })?;
        // Room for every line as one word, reserved once: a stream is mostly `gp0` lines.
        let mut t = Text {
            entries: Entries::with_capacity(0, stream::likely_lines(text)),
            compression,
            ..Text::default()
        };
        stream::each_line(text, |l| {
            t.push(&l.item, u32::try_from(l.line).unwrap_or(u32::MAX))
        })?;
        if t.entries.is_empty() {
            return Err(LoadError::invalid(
                INPUT_FORMAT,
                0,
                "no `gp0`, `gp1` or `frame` lines: not a GPU stream",
            ));
        }
        Ok(Input::Text(t))
    }

    /// A text stream of `items`, as if each were on its own line from line 1.
    pub fn from_items(items: &[Item]) -> Self {
        let mut t = Text::default();
        for (n, item) in items.iter().enumerate() {
            t.push(item, u32::try_from(n + 1).unwrap_or(u32::MAX));
        }
        Input::Text(t)
    }

    /// Every GPU packet of the input in order, with its place: a dump's packets, a text
    /// stream's runs of words and frame marks.
    pub fn packets(&self) -> Packets<'_> {
        Packets {
            input: self,
            at: Cursor::default(),
        }
    }

    /// The packet at `at` with its place, and the cursor of the next; `None` past the last.
    pub fn packet_at(&self, at: Cursor) -> Option<((Place, PacketRef<'_>), Cursor)> {
        let next = |word| Cursor {
            index: at.index + 1,
            word,
        };
        match self {
            Input::Stream { items, lines } => {
                let mut index = at.index;
                loop {
                    let packet = match items.get(index)? {
                        Item::Gp0(w) => PacketRef::Gp0(std::slice::from_ref(w)),
                        Item::Gp1(w) => PacketRef::Gp1(std::slice::from_ref(w)),
                        Item::Frame => PacketRef::VSync(dump::VSyncTime::None),
                        _ => {
                            index += 1;
                            continue;
                        }
                    };
                    let line = lines.get(index).copied().unwrap_or(0) as u64;
                    let after = Cursor {
                        index: index + 1,
                        word: 0,
                    };
                    return Some(((Place::Line(line), packet), after));
                }
            }
            Input::Text(t) => {
                let (e, word) = t.entries.get(at.word)?;
                let line = t.lines.get(at.index).copied().unwrap_or(0);
                Some(((Place::Line(line.into()), e.packet), next(word)))
            }
            Input::Dump(d) => {
                let mut word = at.word;
                loop {
                    let (e, after) = d.entries.get(word)?;
                    if d.counts(&e) {
                        return Some(((Place::Byte(e.offset), e.packet), next(after)));
                    }
                    word = after;
                }
            }
        }
    }

    /// Where GP0 word `n` (from 0, in input order) is in the input: `line L` of a text stream,
    /// `byte 0xB` of a dump; `None` past the last.
    pub fn locate_gp0(&self, n: u64) -> Option<String> {
        let mut left = n;
        for (place, packet) in self.packets() {
            if let PacketRef::Gp0(words) = packet {
                let len = words.len() as u64;
                if left < len {
                    return Some(place.word(left));
                }
                left -= len;
            }
        }
        None
    }

    /// Loads and parses a file (size capped by [`read::read_file`]).
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let data = read::read_file(path, INPUT_FORMAT)?;
        Self::parse(&data).map_err(|e| e.in_file(path))
    }

    /// The compression of the file the input was read from, if any.
    pub fn compression(&self) -> Option<Compression> {
        match self {
            Input::Stream { .. } => None,
            Input::Text(t) => t.compression,
            Input::Dump(d) => d.compression,
        }
    }

    /// How many frame marks the input holds.
    pub fn frames(&self) -> u64 {
        self.packets()
            .filter(|(_, p)| matches!(p, PacketRef::VSync(_)))
            .count() as u64
    }

    /// The input as a GPU dump in `form` that emulator dump players open. In the spec form a
    /// dump's packets are copied as they are (a 14-byte-magic dump changes only its magic); in
    /// DuckStation's form they go through its [`dump::Writer`] (GP1 words one per packet,
    /// VSyncs with a 64-bit time), after its header when the dump has no GPU version packet.
    /// A text stream becomes the header (DuckStation's form; the spec's: a comment), trace
    /// begin, the words and a VSync per frame mark. Either way a trace begin is written first
    /// when there is none, and a closing VSync when none follows the last words (DuckStation's
    /// player needs a trace begin and at least one VSync after it).
    pub fn to_dump(&self, form: dump::Form) -> Result<Vec<u8>, dump::PacketTooLong> {
        if let (Input::Dump(d), dump::Form::Spec) = (self, form) {
            return Ok(d.to_spec_bytes());
        }
        let mut w = dump::Writer::with_form(form);
        let is = |f: fn(&PacketRef) -> bool| self.packets().any(|(_, p)| f(&p));
        let has_header = is(|p| matches!(p, PacketRef::GpuVersion(_)));
        if !has_header {
            let comment = format!("psxrender {} replay", env!("CARGO_PKG_VERSION"));
            match form {
                dump::Form::DuckStation => {
                    w.duckstation_header(dump::NO_GAME_ID, self.pal(), &comment)
                }
                dump::Form::Spec => w.packet(&dump::Packet::Comment(comment))?,
            }
        }
        if !is(|p| matches!(p, PacketRef::TraceBegin)) {
            w.packet(&dump::Packet::TraceBegin)?;
        }
        let mut ends_with_frame = false;
        for (_, packet) in self.packets() {
            match packet {
                PacketRef::VSync(_) => ends_with_frame = true,
                PacketRef::Gp0(_) | PacketRef::Gp1(_) => ends_with_frame = false,
                _ => {}
            }
            w.packet(&packet.to_packet())?;
        }
        if !ends_with_frame {
            w.vsync(dump::VSyncTime::None);
        }
        Ok(w.finish())
    }

    /// Whether the input's first GP1(08h) display mode selects PAL.
    fn pal(&self) -> bool {
        let first_mode = self.packets().find_map(|(_, p)| match p {
            PacketRef::Gp1(words) => words.iter().copied().find(|w| w >> 24 == 0x08),
            _ => None,
        });
        first_mode.is_some_and(|w| dump::pal_mode(&[w]))
    }

    /// A one-line (dumps: a few lines) description for the command line.
    pub fn summary(&self) -> String {
        if let Input::Dump(d) = self {
            return d.summary();
        }
        let (mut gp0, mut gp1, mut frames) = (0, 0, 0);
        for (_, packet) in self.packets() {
            match packet {
                PacketRef::Gp0(w) => gp0 += w.len(),
                PacketRef::Gp1(w) => gp1 += w.len(),
                PacketRef::VSync(_) => frames += 1,
                _ => {}
            }
        }
        let packed = match self.compression() {
            Some(c) => format!(" ({}-compressed)", c.name()),
            None => String::new(),
        };
        format!("text stream{packed}: {gp0} GP0 words, {gp1} GP1 words, {frames} frames")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::dump::Packet;
    use crate::capture::replay::Prepared;

    /// Consecutive lines of one port are one packet; a comment, the other port or a frame
    /// starts the next, so each word's line is its packet's plus its index.
    #[test]
    fn text_streams_are_held_as_packets_of_consecutive_lines() {
        let text = "gp0 1\ngp0 2\n# c\ngp0 3\ngp1 4\ngp1 5\ngp0 6\nframe\nframe\ncase x\ngp0 7\n";
        let input = Input::parse(text.as_bytes()).unwrap();
        let packets: Vec<_> = input.packets().map(|(at, p)| (at, p.to_packet())).collect();
        let line = Place::Line;
        let vsync = || Packet::VSync(dump::VSyncTime::None);
        assert_eq!(
            packets,
            [
                (line(1), Packet::Gp0(vec![1, 2])),
                (line(4), Packet::Gp0(vec![3])),
                (line(5), Packet::Gp1(vec![4, 5])),
                (line(7), Packet::Gp0(vec![6])),
                (line(8), vsync()),
                (line(9), vsync()),
                (line(11), Packet::Gp0(vec![7])),
            ]
        );
        let places: Vec<_> = (0..8).map(|n| input.locate_gp0(n)).collect();
        let expected = [1, 2, 4, 7, 11].map(|l| Some(format!("line {l}")));
        assert_eq!(places[..5], expected);
        assert_eq!(places[5], None);
        assert_eq!(input.frames(), 2);
    }

    /// Items built in code ([`Input::Stream`], [`Input::from_items`]) replay like the parsed
    /// text of the same lines.
    #[test]
    fn items_built_in_code_read_like_parsed_text() {
        let items = vec![
            Item::Gp1(0),
            Item::Gp0(1),
            Item::Gp0(2),
            Item::Frame,
            Item::Gp0(3),
        ];
        let text = Input::parse(b"gp1 0\ngp0 1\ngp0 2\nframe\ngp0 3\n").unwrap();
        let built = Input::from_items(&items);
        assert_eq!(built, text);
        let lines = (1..=items.len()).collect();
        let stream = Input::Stream { items, lines };
        assert_eq!(Prepared::new(&stream), Prepared::new(&text));
        assert_eq!(stream.summary(), text.summary());
        assert_eq!(stream.locate_gp0(2), text.locate_gp0(2));
        for form in [dump::Form::DuckStation, dump::Form::Spec] {
            assert_eq!(stream.to_dump(form), text.to_dump(form));
        }
    }

    /// A compressed text stream is the plain one with its compression noted; what decodes to
    /// neither a dump nor text is refused by what it is.
    #[test]
    fn compressed_text_streams_are_told_apart_by_content() {
        let text = b"gp0 020000ff\ngp0 0\ngp0 00010010\nframe\n";
        let plain = Input::parse(text).unwrap();
        for c in [Compression::Zstd, Compression::Xz] {
            let input = Input::parse(&c.compress(text).unwrap()).unwrap();
            assert_eq!(input.compression(), Some(c));
            assert_eq!(Prepared::new(&input), Prepared::new(&plain));
            let bin = Input::parse(&c.compress(&[0xff; 8]).unwrap()).unwrap_err();
            assert!(bin.to_string().contains("neither a GPUDUMP"), "{bin}");
            let dump = dump::encode(&[dump::Packet::Gp0(vec![1])]).unwrap();
            let input = Input::parse(&c.compress(&dump).unwrap()).unwrap();
            assert!(matches!(&input, Input::Dump(d) if d.compression == Some(c)));
        }
    }
}
