//! Packet assembly: GP0 words, one at a time or in slices of any length, into whole commands.
//! The same words give the same steps however they are cut.
//!
//! A fixed-length packet ([`packet_len`](super::decode::packet_len)) is handed over whole. A
//! polyline is handed over as its first packet (opcode, two vertices), then segment by segment
//! as further vertices come, until a terminator word. A CPU→VRAM transfer is handed over as its
//! 3-word header, then as runs of payload words until `⌈w·h/2⌉` have come. What follows a packet
//! is for [`follows`] to say.

use std::ops::Range;

use super::decode::{
    decode, fixed_drawing_len, follows, is_polyline_terminator, packet_words, Follows, Gp0Command,
    PolyFlags, RawVertex,
};
use super::fields::{ColorWord, TexCoordWord, VertexWord};

/// The longest fixed-length packet: a gouraud textured quad.
pub const MAX_PACKET: usize = 12;

/// One whole packet, gathered from the words of several calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    words: [u32; MAX_PACKET],
    len: u8,
}

impl Packet {
    fn new(words: &[u32]) -> Self {
        let mut p = Packet {
            words: [0; MAX_PACKET],
            len: words.len() as u8,
        };
        p.words[..words.len()].copy_from_slice(words);
        p
    }
}

impl std::ops::Deref for Packet {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.words[..self.len as usize]
    }
}

/// What the words taken so far complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing yet: the words were taken into a packet still incomplete.
    Pending,
    /// A whole packet, these words of the input: a command, a polyline's first segment, or a
    /// transfer's header.
    Packet(Range<usize>),
    /// The same, gathered from the words of several calls: [`Assembler::gathered`]. (A packet
    /// that arrived whole is not copied.)
    Gathered,
    /// A polyline's next segment.
    Segment {
        /// The polyline's opcode flags.
        flags: PolyFlags,
        /// Its start (the previous vertex).
        from: RawVertex,
        /// Its end.
        to: RawVertex,
    },
    /// These words of the input are CPU→VRAM payload.
    Payload(Range<usize>),
}

/// The assembler's state between words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for a command word.
    Idle,
    /// Collecting a fixed-length packet of `len` words.
    Collecting { len: u8 },
    /// Inside a polyline: the last vertex, and for gouraud the colour of the next one once
    /// its colour word has come.
    Polyline {
        flags: PolyFlags,
        last: RawVertex,
        color: Option<u32>,
        first: u32,
    },
    /// Inside a CPU→VRAM payload: words still to come.
    Payload { left: u32 },
}

/// Turns GP0 words into [`Step`]s, and counts words and commands.
#[derive(Clone, Debug)]
pub struct Assembler {
    state: State,
    buf: Packet,
    words: u64,
    commands: u64,
    command_word: u64,
}

impl Default for Assembler {
    fn default() -> Self {
        Assembler {
            state: State::Idle,
            buf: Packet::new(&[]),
            words: 0,
            commands: 0,
            command_word: 0,
        }
    }
}

impl Assembler {
    /// Takes the words of `words` from `*at` on (at least one; `*at < words.len()`) up to the
    /// next step, advancing `*at` past them.
    #[inline]
    pub fn next(&mut self, words: &[u32], at: &mut usize) -> Step {
        let i = *at;
        match self.state {
            State::Idle => {
                let len = packet_words(words[i]);
                self.commands += 1;
                self.command_word = self.words;
                if let Some(p) = words.get(i..i + len) {
                    self.take(at, len);
                    self.state = after(p);
                    return Step::Packet(i..i + len);
                }
                let have = words.len() - i;
                self.buf = Packet::new(&words[i..]);
                self.take(at, have);
                self.state = State::Collecting { len: len as u8 };
                Step::Pending
            }
            State::Collecting { len } => {
                let (have, len) = (self.buf.len as usize, len as usize);
                let n = (len - have).min(words.len() - i);
                self.buf.words[have..have + n].copy_from_slice(&words[i..i + n]);
                self.buf.len += n as u8;
                self.take(at, n);
                if have + n < len {
                    return Step::Pending;
                }
                self.state = after(&self.buf);
                Step::Gathered
            }
            State::Payload { left } => {
                let n = (left as usize).min(words.len() - i);
                self.take(at, n);
                self.state = match left as usize - n {
                    0 => State::Idle,
                    left => State::Payload { left: left as u32 },
                };
                Step::Payload(i..i + n)
            }
            State::Polyline {
                flags,
                last,
                color,
                first,
            } => {
                let word = words[i];
                self.take(at, 1);
                let at_point_start = !flags.gouraud || color.is_none();
                if at_point_start && is_polyline_terminator(word) {
                    self.state = State::Idle;
                    return Step::Pending;
                }
                if flags.gouraud && color.is_none() {
                    self.state = State::Polyline {
                        flags,
                        last,
                        color: Some(word),
                        first,
                    };
                    return Step::Pending;
                }
                let to = RawVertex {
                    pos: VertexWord(word),
                    color: ColorWord(color.unwrap_or(first)),
                    tex: TexCoordWord(0),
                };
                self.state = State::Polyline {
                    flags,
                    last: to,
                    color: None,
                    first,
                };
                Step::Segment {
                    flags,
                    from: last,
                    to,
                }
            }
        }
    }

    /// A whole polygon or rectangle packet at `*at`, when no packet is under way: taken (as
    /// [`Assembler::next`] would take it) and its range returned. The common case, without the
    /// general step machinery; `None` (also at the end of `words`) leaves everything to `next`.
    #[inline]
    pub fn drawing_packet(&mut self, words: &[u32], at: &mut usize) -> Option<Range<usize>> {
        if self.state != State::Idle {
            return None;
        }
        let i = *at;
        let len = fixed_drawing_len(*words.get(i)?)?;
        if i + len > words.len() {
            return None;
        }
        self.commands += 1;
        self.command_word = self.words;
        self.take(at, len);
        Some(i..i + len)
    }

    #[inline]
    fn take(&mut self, at: &mut usize, n: usize) {
        *at += n;
        self.words += n as u64;
    }

    /// The packet of the last [`Step::Gathered`].
    pub fn gathered(&self) -> Packet {
        self.buf
    }

    /// GP1(01h): drops any packet, polyline or payload under way.
    pub fn reset(&mut self) {
        self.state = State::Idle;
    }

    /// Waiting for a command word (GPUSTAT bit 26).
    pub fn idle(&self) -> bool {
        self.state == State::Idle
    }

    /// GP0 words taken so far.
    pub fn words(&self) -> u64 {
        self.words
    }

    /// The current (or last) command: its index among the commands (from 0) and the index of
    /// its first word among the words.
    pub fn command(&self) -> (u64, u64) {
        (self.commands.saturating_sub(1), self.command_word)
    }
}

/// The assembler's state after the whole packet `p`: what follows it.
#[inline]
fn after(p: &[u32]) -> State {
    match follows(p) {
        Follows::Polyline => match decode(p) {
            Gp0Command::Line { flags, verts } if verts.len() >= 2 => State::Polyline {
                flags,
                last: verts[1],
                color: None,
                first: p[0],
            },
            _ => State::Idle,
        },
        Follows::Payload(left) => State::Payload { left },
        Follows::Command => State::Idle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a step hands over, with the words it names.
    #[derive(Debug, PartialEq)]
    enum Out {
        Packet(Vec<u32>),
        Segment(Step),
        Payload(Range<usize>),
    }

    /// Every step but `Pending` of `words` fed in pieces of `cut` words, payload runs joined
    /// and made ranges of `words`.
    fn steps(words: &[u32], cut: usize) -> Vec<Out> {
        let mut a = Assembler::default();
        let mut out: Vec<Out> = Vec::new();
        for (k, piece) in words.chunks(cut).enumerate() {
            let mut at = 0;
            while at < piece.len() {
                match a.next(piece, &mut at) {
                    Step::Pending => {}
                    Step::Packet(r) => out.push(Out::Packet(piece[r].to_vec())),
                    Step::Gathered => out.push(Out::Packet(a.gathered().to_vec())),
                    Step::Payload(r) => {
                        let r = k * cut + r.start..k * cut + r.end;
                        match out.last_mut() {
                            Some(Out::Payload(p)) if p.end == r.start => p.end = r.end,
                            _ => out.push(Out::Payload(r)),
                        }
                    }
                    s => out.push(Out::Segment(s)),
                }
            }
        }
        out
    }

    /// A triangle, a gouraud polyline of three points, an upload of 3 halfwords (2 words) and
    /// a fill: the same steps whether fed whole, word by word or in pieces of 2 or 5.
    #[test]
    fn steps_do_not_depend_on_how_words_arrive() {
        let words = [
            0x2000_00ff,
            0,
            1,
            2,
            0x5800_0001,
            0x0001_0001,
            0x0000_0002,
            0x0002_0002,
            0x0000_0003,
            0x0003_0003,
            0x5555_5555,
            0xa000_0000,
            0,
            0x0001_0003,
            0x1111_2222,
            0x0000_3333,
            0x0200_0000,
            0,
            0x0010_0010,
        ];
        let whole = steps(&words, words.len());
        assert_eq!(whole.len(), 6, "{whole:?}");
        assert!(matches!(&whole[0], Out::Packet(p) if p.len() == 4));
        assert!(matches!(&whole[1], Out::Packet(p) if p.len() == 4));
        assert!(matches!(&whole[2], Out::Segment(Step::Segment { to, .. }) if to.pos.x() == 3));
        assert!(matches!(&whole[3], Out::Packet(p) if p.len() == 3));
        assert_eq!(whole[4], Out::Payload(14..16));
        assert!(matches!(&whole[5], Out::Packet(p) if p[0] == 0x0200_0000));
        for cut in [1, 2, 5] {
            assert_eq!(steps(&words, cut), whole, "pieces of {cut}");
        }
    }

    #[test]
    fn reset_drops_a_packet_under_way() {
        let mut a = Assembler::default();
        let mut at = 0;
        assert_eq!(a.next(&[0x2000_0000, 0], &mut at), Step::Pending);
        assert!(!a.idle());
        a.reset();
        assert!(a.idle());
        at = 0;
        assert!(matches!(a.next(&[0xe100_0000], &mut at), Step::Packet(_)));
        assert_eq!(a.command(), (1, 2));
    }
}
