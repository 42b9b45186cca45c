//! Packets held in memory as a dump file holds them: each header word followed by its payload
//! words, all in one `Vec<u32>`, read back as [`PacketRef`] views.
//!
//! Rule: a held recording costs its own size, whatever its packets are. A record per packet
//! with a `Vec` of its own makes a 4-byte header-only packet ten times its size, so a file of
//! such packets would need ten times its length in memory; held as words, it needs its length.
//! Parsed text streams are held the same way ([`crate::capture::input::Text`]).

use std::fmt;

use super::{PacketRef, PacketType, MAX_PACKET_WORDS};

/// A recording's packets in file form (see the module docs), in order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Entries {
    /// Byte offset of the first header in its file (the magic's length).
    start: u64,
    /// Each header followed by its payload.
    words: Vec<u32>,
    /// Packets held.
    count: usize,
    /// Index in `words` of the last packet's header.
    last: Option<usize>,
}

/// Where [`Entries`] ended at one time ([`Entries::mark`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    words: usize,
    count: usize,
    last: Option<usize>,
}

/// One packet of [`Entries`]: where its header is, and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRef<'a> {
    /// Byte offset of the packet header in its file.
    pub offset: u64,
    /// The packet.
    pub packet: PacketRef<'a>,
}

impl Entries {
    /// No packets yet; the first will sit at byte `start` of its file, and room is made for
    /// `words` header and payload words (a hint: the store grows past it as needed).
    pub fn with_capacity(start: u64, words: usize) -> Self {
        Entries {
            start,
            words: Vec::with_capacity(words),
            count: 0,
            last: None,
        }
    }

    /// Number of packets.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when there are no packets.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Every packet, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            entries: self,
            at: 0,
        }
    }

    /// The packet whose header is word `at` of the store (0, or what an earlier call returned
    /// as next), and where the next packet starts; `None` past the last.
    pub fn get(&self, at: usize) -> Option<(EntryRef<'_>, usize)> {
        let header = *self.words.get(at)?;
        let kind = PacketType((header >> 24) as u8);
        // Only whole packets are stored; the `min` keeps a view in bounds all the same.
        let end = (at + 1 + (header & 0xFF_FFFF) as usize).min(self.words.len());
        let entry = EntryRef {
            offset: self.start + 4 * at as u64,
            packet: PacketRef::new(kind, &self.words[at + 1..end]),
        };
        Some((entry, end))
    }

    /// Appends a packet's header; its payload words follow through [`Entries::payload`].
    #[inline]
    pub(crate) fn push_header(&mut self, kind: PacketType, len: usize) {
        debug_assert!(len <= MAX_PACKET_WORDS);
        self.last = Some(self.words.len());
        self.count += 1;
        self.words.push(u32::from(kind.0) << 24 | len as u32);
    }

    /// Where the store ends now, to [`Entries::rollback`] to.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            words: self.words.len(),
            count: self.count,
            last: self.last,
        }
    }

    /// Drops what was added since `mark` (a packet the reader skipped or found cut).
    pub(super) fn rollback(&mut self, mark: Mark) {
        self.words.truncate(mark.words);
        self.count = mark.count;
        self.last = mark.last;
    }

    /// The store's words, for a reader to append the payload of the header it just pushed.
    pub(super) fn payload(&mut self) -> &mut Vec<u32> {
        &mut self.words
    }

    /// Appends a whole packet (`payload` at most [`MAX_PACKET_WORDS`] words).
    #[inline]
    pub(crate) fn push(&mut self, kind: PacketType, payload: &[u32]) {
        self.push_header(kind, payload.len());
        self.words.extend_from_slice(payload);
    }

    /// Appends `word` to the last packet when it is a `kind` packet with room for another
    /// word; false (nothing done) otherwise.
    #[inline]
    pub(crate) fn extend_last(&mut self, kind: PacketType, word: u32) -> bool {
        let Some(at) = self.last else {
            return false;
        };
        let header = self.words[at];
        let len = (header & 0xFF_FFFF) as usize;
        // Only the last packet's payload can grow: it ends the store.
        if header >> 24 != u32::from(kind.0) || len == MAX_PACKET_WORDS {
            return false;
        }
        self.words[at] = header + 1;
        self.words.push(word);
        true
    }

    /// Appends the packets as file bytes (headers and payloads, little-endian): what follows a
    /// dump's magic.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.reserve(self.words.len() * 4);
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

impl fmt::Debug for Entries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The packets of [`Entries`], in order ([`Entries::iter`]).
#[derive(Clone)]
pub struct Iter<'a> {
    entries: &'a Entries,
    at: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = EntryRef<'a>;

    fn next(&mut self) -> Option<EntryRef<'a>> {
        let (entry, next) = self.entries.get(self.at)?;
        self.at = next;
        Some(entry)
    }
}
