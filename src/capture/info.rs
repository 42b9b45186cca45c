//! Recorded GPU input as `info` reports it: what the words do ([`Census`]) and, for a dump,
//! its header and information packets.

use serde::Serialize;

use crate::capture::census::Census;
use crate::capture::dump::{self, Dump, Magic, PacketRef};
use crate::capture::input::{Input, STREAM_FORMAT};

/// A GPU dump's or text stream's facts.
#[derive(Clone, Debug, Serialize)]
pub struct GpuFacts {
    /// "GPUDUMP" or "GPU text stream".
    pub format: &'static str,
    /// GPUDUMP: which magic.
    pub magic: Option<&'static str>,
    /// The file's compression (`zstd`, `xz`), if any.
    pub compression: Option<&'static str>,
    /// GPUDUMP: packets.
    pub packets: Option<usize>,
    /// GPUDUMP: comment, game ID, video format and GPU version packets, as text.
    pub notes: Vec<String>,
    /// What the words do.
    pub census: Census,
    /// Odd but readable packets.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl GpuFacts {
    /// The facts of `input`: its census, and for a dump its magic, compression, packets and
    /// notes.
    pub fn of(input: Input) -> GpuFacts {
        let census = Census::of(&input);
        match &input {
            Input::Stream { .. } | Input::Text(_) => GpuFacts {
                format: STREAM_FORMAT,
                magic: None,
                compression: input.compression().map(|c| c.name()),
                packets: None,
                notes: Vec::new(),
                census,
                warnings: Vec::new(),
            },
            Input::Dump(d) => GpuFacts {
                format: dump::FORMAT,
                magic: Some(match d.magic {
                    Magic::Spec => "16-byte spec magic (PSXGPUDUMPv1r1)",
                    Magic::Short => "14-byte DuckStation magic (PSXGPUDUMPv1)",
                }),
                compression: d.compression.map(|c| c.name()),
                packets: Some(d.entries.len()),
                notes: dump_notes(d),
                census,
                warnings: d.warnings.clone(),
            },
        }
    }
}

fn dump_notes(d: &Dump) -> Vec<String> {
    let mut gp0 = 0usize;
    let mut out = Vec::new();
    for p in d.packets() {
        match p {
            PacketRef::Gp0(w) => gp0 += w.len(),
            PacketRef::GameId(s) => out.push(format!("game ID: {s}")),
            PacketRef::VideoFormat(s) => out.push(format!("video format: {s}")),
            PacketRef::Comment(s) => out.push(format!("comment: {s}")),
            PacketRef::GpuVersion(v) => out.push(format!("GPU version word: {v}")),
            PacketRef::TraceBegin => {
                out.push(format!("trace begins after {gp0} state-restore GP0 words"))
            }
            _ => {}
        }
    }
    out
}
