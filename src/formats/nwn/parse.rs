//! Reading MDL bytes: binary ([`super::binary`]) or ASCII ([`super::ascii`]) picked by
//! content, both into the same [`Mdl`] (NWN's own Z-up space; nothing is loaded beside it).

use super::mdl::{Body, Mdl, Node, Outline};
use super::{ascii, binary};
use crate::formats::LoadError;

/// Parses binary or ASCII MDL bytes (picked by content) without loading anything else.
pub fn parse(data: &[u8], warnings: &mut Vec<String>) -> Result<Mdl, LoadError> {
    if is_binary(data) {
        binary::parse(data, warnings)
    } else {
        ascii::parse(data, warnings)
    }
}

/// [`parse`] leaving what can wait until an animation is drawn: a binary file's animation node
/// trees (see [`super::binary::outline`]). ASCII files are read whole.
pub fn outline(data: &[u8], warnings: &mut Vec<String>) -> Result<Outline, LoadError> {
    if is_binary(data) {
        binary::outline(data, warnings)
    } else {
        let mdl = ascii::parse(data, warnings)?;
        Ok(Outline {
            bodies: vec![Body::Parsed; mdl.animations.len()],
            mdl,
            budget_used: 0,
        })
    }
}

/// The node tree of an animation [`outline`] left in `data` (see
/// [`super::binary::animation_nodes`]).
pub fn animation_nodes(
    data: &[u8],
    body: &Body,
    budget_used: u64,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Node>, u64), LoadError> {
    binary::animation_nodes(data, body, budget_used, warnings)
}

fn is_binary(data: &[u8]) -> bool {
    data.len() >= 4 && data[..4] == [0, 0, 0, 0]
}

/// True when `data` looks like an ASCII MDL: no NUL bytes in the first 4 KiB and one of the
/// keywords an ASCII model starts with (`#MAXMODEL`, `newmodel`, `beginmodelgeom`).
pub fn looks_ascii(data: &[u8]) -> bool {
    let data = crate::read::text::strip_bom(data);
    let head = &data[..data.len().min(4096)];
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    // The keyword must start a line: prose that mentions it (a README) is not a model.
    text.lines().any(|l| {
        let first = l.split_whitespace().next().unwrap_or("");
        ["#maxmodel", "newmodel", "beginmodelgeom"].contains(&first)
    })
}
