//! NWN texture-info (`.txi`) files as `info` reports them: each command and what the NWN
//! loader does with it.

use serde::Serialize;

/// The format's name in messages.
pub const FORMAT: &str = "NWN TXI";

/// One command of a TXI file.
#[derive(Clone, Debug, Serialize)]
pub struct TxiCommand {
    /// 1-based line.
    pub line: usize,
    /// The command word, lower-cased.
    pub command: String,
    /// The rest of the line.
    pub value: String,
    /// What psxrender does with it (`None`: not used).
    pub effect: Option<&'static str>,
}

/// NWN TXI facts.
#[derive(Clone, Debug, Serialize)]
pub struct TxiFacts {
    /// "NWN TXI".
    pub format: &'static str,
    /// Commands in file order.
    pub commands: Vec<TxiCommand>,
}

impl TxiFacts {
    /// Every command of the TXI text in `data` (its first 64 KiB) with what psxrender does
    /// with it.
    pub fn parse(data: &[u8]) -> TxiFacts {
        let text = String::from_utf8_lossy(&data[..data.len().min(64 << 10)]);
        let commands = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| {
                let content = l.split('#').next().unwrap_or("").trim();
                let (cmd, value) = content
                    .split_once(char::is_whitespace)
                    .unwrap_or((content, ""));
                (!cmd.is_empty()).then(|| {
                    let command = cmd.to_ascii_lowercase();
                    let value = value.trim().to_string();
                    TxiCommand {
                        line: i + 1,
                        effect: txi_effect(&command, &value),
                        command,
                        value,
                    }
                })
            })
            .collect();
        TxiFacts {
            format: FORMAT,
            commands,
        }
    }
}

/// What the NWN loader does with a TXI command (`pose::blend_for`).
fn txi_effect(command: &str, value: &str) -> Option<&'static str> {
    match command {
        "blending" if value.eq_ignore_ascii_case("additive") => {
            Some("faces with this texture are drawn additive (PS1 mode B+F)")
        }
        "envmaptexture" | "bumpmaptexture" => {
            Some("the texture's alpha is a map mask, so its faces are drawn opaque")
        }
        _ => None,
    }
}
