//! An upper bound on what parsing a document's JSON allocates, read from the text in one pass
//! before the `gltf` crate parses it. serde grows each array's `Vec` by doubling, one element at
//! a time, so an element written in three bytes (`{},`) costs a whole struct — hundreds of bytes
//! for a node or a material — and a budget scaled to the text alone is overrun many times over
//! before the loader sees a single count.
//!
//! The bound follows the crate's document types ([`ROOT`]). Each array element is charged three
//! slots of the `Vec` it fills (a doubling `Vec` holds at most twice its length, and the old
//! buffer while it moves) and each array one slot more (a `Vec`'s smallest capacity is four).
//! `extensions`, accessor `min`/`max` and attribute maps become `serde_json::Value`s, and
//! extensions are first buffered by serde (their structs flatten a map): each element and each
//! member there is charged a `Value`, serde's copy and a map entry. A struct written as an array
//! (serde fills its fields in order) or named by an escaped key may hold anything: its elements
//! are charged the largest slot. Keys a struct does not have are skipped by serde without
//! allocating, and so is what serde refuses at its first byte (an object where a list or a
//! number belongs). Every string may be held as serde's buffered copy, the value built from it
//! and serde_json's unescaping scratch, and `extras` keeps its raw text: four bytes per byte of
//! text cover them.

use ::gltf::json;
use serde_json::Value;

/// Bytes of one `T`.
const fn size<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

const fn max(a: u64, b: u64) -> u64 {
    if a > b {
        a
    } else {
        b
    }
}

/// What a JSON value becomes in the crate's document.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    /// A struct, with its fields that allocate (the others are scalars, indices and fixed-size
    /// arrays).
    Struct(&'static [(&'static str, Shape)]),
    /// A `Vec` of `slot`-byte elements of the given shape.
    List(u64, &'static Shape),
    /// A `serde_json::Value` (with serde's buffered copy), or a map keyed by strings.
    Value,
    /// Anything: a struct written as an array, or a value named by an escaped key.
    Any,
    /// Nothing beyond its text: a scalar, `extras`, a key the struct does not have, or a value
    /// serde refuses at its first byte.
    Free,
}

/// Every struct's `extensions`: a flattened map of `Value`s.
const EXT: (&str, Shape) = ("extensions", Shape::Value);
/// A struct whose only allocating field is `extensions`.
const PLAIN: Shape = Shape::Struct(&[EXT]);
/// `Vec<Index<_>>` and `Vec<f32>`: `children`, `joints`, scene `nodes`, morph `weights`.
const NUMBERS: Shape = Shape::List(
    max(size::<json::Index<json::Node>>(), size::<f32>()),
    &Shape::Free,
);
/// `extensionsUsed`, `extensionsRequired`.
const STRINGS: Shape = Shape::List(size::<String>(), &Shape::Free);

const PRIMITIVE: Shape = Shape::Struct(&[
    EXT,
    ("attributes", Shape::Value),
    (
        "targets",
        Shape::List(size::<json::mesh::MorphTarget>(), &Shape::Struct(&[])),
    ),
]);
const MESH: Shape = Shape::Struct(&[
    EXT,
    (
        "primitives",
        Shape::List(size::<json::mesh::Primitive>(), &PRIMITIVE),
    ),
    ("weights", NUMBERS),
]);
const NODE: Shape = Shape::Struct(&[EXT, ("children", NUMBERS), ("weights", NUMBERS)]);
const ACCESSOR: Shape = Shape::Struct(&[
    EXT,
    ("min", Shape::Value),
    ("max", Shape::Value),
    (
        "sparse",
        Shape::Struct(&[EXT, ("indices", PLAIN), ("values", PLAIN)]),
    ),
]);
const ANIMATION: Shape = Shape::Struct(&[
    EXT,
    (
        "channels",
        Shape::List(
            size::<json::animation::Channel>(),
            &Shape::Struct(&[EXT, ("target", PLAIN)]),
        ),
    ),
    (
        "samplers",
        Shape::List(size::<json::animation::Sampler>(), &PLAIN),
    ),
]);
const MATERIAL: Shape = Shape::Struct(&[
    EXT,
    (
        "pbrMetallicRoughness",
        Shape::Struct(&[
            EXT,
            ("baseColorTexture", PLAIN),
            ("metallicRoughnessTexture", PLAIN),
        ]),
    ),
    ("normalTexture", PLAIN),
    ("occlusionTexture", PLAIN),
    ("emissiveTexture", PLAIN),
]);
const CAMERA: Shape = Shape::Struct(&[EXT, ("perspective", PLAIN), ("orthographic", PLAIN)]);

/// The document root (`gltf_json::Root`).
const ROOT: Shape = Shape::Struct(&[
    EXT,
    ("asset", PLAIN),
    ("extensionsUsed", STRINGS),
    ("extensionsRequired", STRINGS),
    (
        "accessors",
        Shape::List(size::<json::Accessor>(), &ACCESSOR),
    ),
    (
        "animations",
        Shape::List(size::<json::Animation>(), &ANIMATION),
    ),
    ("buffers", Shape::List(size::<json::Buffer>(), &PLAIN)),
    (
        "bufferViews",
        Shape::List(size::<json::buffer::View>(), &PLAIN),
    ),
    ("cameras", Shape::List(size::<json::Camera>(), &CAMERA)),
    ("images", Shape::List(size::<json::Image>(), &PLAIN)),
    (
        "materials",
        Shape::List(size::<json::Material>(), &MATERIAL),
    ),
    ("meshes", Shape::List(size::<json::Mesh>(), &MESH)),
    ("nodes", Shape::List(size::<json::Node>(), &NODE)),
    (
        "samplers",
        Shape::List(size::<json::texture::Sampler>(), &PLAIN),
    ),
    (
        "scenes",
        Shape::List(
            size::<json::Scene>(),
            &Shape::Struct(&[EXT, ("nodes", NUMBERS)]),
        ),
    ),
    (
        "skins",
        Shape::List(
            size::<json::Skin>(),
            &Shape::Struct(&[EXT, ("joints", NUMBERS)]),
        ),
    ),
    ("textures", Shape::List(size::<json::Texture>(), &PLAIN)),
]);

/// One element of a `Value` array: the `Value`, and serde's buffered copy (smaller than a
/// `Value`).
const VALUE_SLOT: u64 = 2 * size::<Value>();
/// One member of a `Value` map: the map's entry (hash, key, value), serde's buffered copy of
/// key and value, and two hash-index slots (an index and a control byte each). An attribute
/// map's B-tree node is smaller than four of these, which a one-member map is charged.
const MEMBER_SLOT: u64 =
    size::<(usize, String, Value)>() + 2 * size::<Value>() + 2 * (size::<usize>() + 1);
/// The largest slot any array element can fill.
const ANY_SLOT: u64 = {
    let mut m = VALUE_SLOT;
    let slots = [
        size::<json::Accessor>(),
        size::<json::Animation>(),
        size::<json::animation::Channel>(),
        size::<json::animation::Sampler>(),
        size::<json::Buffer>(),
        size::<json::buffer::View>(),
        size::<json::Camera>(),
        size::<json::Image>(),
        size::<json::Material>(),
        size::<json::Mesh>(),
        size::<json::mesh::Primitive>(),
        size::<json::mesh::MorphTarget>(),
        size::<json::Node>(),
        size::<json::texture::Sampler>(),
        size::<json::Scene>(),
        size::<json::Skin>(),
        size::<json::Texture>(),
        size::<String>(),
    ];
    let mut i = 0;
    while i < slots.len() {
        m = max(m, slots[i]);
        i += 1;
    }
    m
};
/// Slots charged per element (or member) of a growing `Vec` (or map).
const GROWTH: u64 = 3;
/// Nesting followed; serde_json refuses anything deeper than 128 before parsing into it.
const MAX_DEPTH: usize = 256;

impl Shape {
    /// Bytes charged per element when this shape is an array, and the elements' shape.
    fn element(self) -> (u64, Shape) {
        match self {
            Shape::List(slot, elem) => (slot, *elem),
            Shape::Value => (VALUE_SLOT, Shape::Value),
            Shape::Any => (ANY_SLOT, Shape::Any),
            Shape::Struct(_) | Shape::Free => (0, Shape::Free),
        }
    }

    /// Bytes charged per member when this shape is an object, and the shape of the value under
    /// `key` (`escaped`: the key's text holds a `\` escape, so it may spell any field).
    fn member(self, key: &[u8], escaped: bool) -> (u64, Shape) {
        match self {
            Shape::Struct(_) if escaped => (0, Shape::Any),
            Shape::Struct(fields) => (
                0,
                fields
                    .iter()
                    .find(|(k, _)| k.as_bytes() == key)
                    .map_or(Shape::Free, |f| f.1),
            ),
            Shape::Value => (MEMBER_SLOT, Shape::Value),
            Shape::Any => (MEMBER_SLOT, Shape::Any),
            Shape::List(..) | Shape::Free => (0, Shape::Free),
        }
    }

    /// The shape of a container opened where this shape is expected: a struct may be written as
    /// an array (its fields in order); a list written as an object is refused.
    fn opened(self, array: bool) -> Shape {
        match (self, array) {
            (Shape::Struct(_), true) => Shape::Any,
            (Shape::List(..), false) => Shape::Free,
            (s, _) => s,
        }
    }
}

/// One member of the document's top-level object, with what its value was charged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The key as written (at most [`KEY_SHOWN`] characters).
    pub key: String,
    /// Bytes charged for its value.
    pub bytes: u64,
    /// Elements of its value, when that is an array.
    pub elements: u64,
}

/// Characters of a key kept for messages.
pub const KEY_SHOWN: usize = 64;

/// The bound for one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Bytes parsing the JSON may allocate at most.
    pub bytes: u64,
    /// The top-level member charged the most, if the document is an object with members.
    pub largest: Option<Member>,
}

/// An open array or object.
struct Frame {
    shape: Shape,
    array: bool,
    /// Array: the next value starts an element. Object: the next string is a key.
    expecting: bool,
    /// Object: the shape of the value after the current key.
    value: Shape,
}

/// The top-level member being read.
struct Current {
    key: (usize, usize),
    start: u64,
    elements: u64,
}

/// Scans `text` (the JSON the crate will parse) for the bound. Never fails: malformed text is
/// charged as far as it reads, and serde_json refuses it at the first fault.
pub fn of(text: &[u8]) -> Cost {
    let mut scan = Scan {
        text,
        bytes: TEXT_COPIES.saturating_mul(text.len() as u64),
        stack: Vec::new(),
        too_deep: 0,
        done: false,
        current: None,
        largest: None,
    };
    let mut i = 0;
    while i < text.len() {
        i = scan.step(i);
    }
    scan.finish_member();
    Cost {
        bytes: scan.bytes,
        largest: scan.largest,
    }
}

/// Bytes charged per byte of text for the strings in it.
const TEXT_COPIES: u64 = 4;

/// The scanner's state.
struct Scan<'a> {
    text: &'a [u8],
    bytes: u64,
    stack: Vec<Frame>,
    /// Containers opened past [`MAX_DEPTH`], counted only to keep brackets matched.
    too_deep: usize,
    /// The top-level value has ended: what follows is refused as trailing text.
    done: bool,
    current: Option<Current>,
    largest: Option<Member>,
}

impl Scan<'_> {
    /// Reads the token at `i`; returns where the next one may start.
    fn step(&mut self, i: usize) -> usize {
        let b = self.text[i];
        let end = if b == b'"' {
            string_end(self.text, i)
        } else {
            i + 1
        };
        if self.too_deep > 0 {
            match b {
                b'[' | b'{' => self.too_deep += 1,
                b']' | b'}' => self.too_deep -= 1,
                _ => {}
            }
            return end;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => {}
            b',' => {
                if let Some(f) = self.stack.last_mut() {
                    f.expecting = true;
                }
            }
            b']' | b'}' => {
                if self.stack.pop().is_some() && self.stack.is_empty() {
                    self.done = true;
                }
            }
            _ => {
                if let Some(shape) = self.value_at(i, end) {
                    if b == b'[' || b == b'{' {
                        self.open(shape, b == b'[');
                    }
                }
            }
        }
        end
    }

    /// A key or the first byte of a value at `i..end`: reads a key (`None`), or charges an
    /// array element and gives the value's shape.
    fn value_at(&mut self, i: usize, end: usize) -> Option<Shape> {
        let depth = self.stack.len();
        let Some(f) = self.stack.last_mut() else {
            return Some(if self.done { Shape::Free } else { ROOT });
        };
        if !f.array {
            if !f.expecting {
                return Some(f.value);
            }
            f.expecting = false;
            if self.text[i] == b'"' {
                let key = (i + 1, end.saturating_sub(1).max(i + 1));
                let text = &self.text[key.0..key.1];
                let (charge, value) = f.shape.member(text, text.contains(&b'\\'));
                f.value = value;
                self.bytes = self.bytes.saturating_add(GROWTH * charge);
                if depth == 1 {
                    self.finish_member();
                    self.current = Some(Current {
                        key,
                        start: self.bytes,
                        elements: 0,
                    });
                }
            }
            return None;
        }
        if !f.expecting {
            // A second value without a comma: serde_json refuses it.
            return Some(Shape::Free);
        }
        f.expecting = false;
        let (slot, elem) = f.shape.element();
        self.bytes = self.bytes.saturating_add(GROWTH * slot);
        if depth == 2 {
            if let Some(c) = self.current.as_mut() {
                c.elements += 1;
            }
        }
        Some(elem)
    }

    /// Opens an array or object where `shape` is expected.
    fn open(&mut self, shape: Shape, array: bool) {
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep = 1;
            return;
        }
        let shape = shape.opened(array);
        // The smallest capacity a `Vec` (or map) takes on its first element.
        let first = if array {
            shape.element().0
        } else {
            shape.member(b"", false).0
        };
        self.bytes = self.bytes.saturating_add(first);
        self.stack.push(Frame {
            shape,
            array,
            expecting: true,
            value: Shape::Free,
        });
    }

    /// Ends the top-level member being read, keeping it if it was charged the most so far.
    fn finish_member(&mut self) {
        let Some(c) = self.current.take() else { return };
        let cost = self.bytes - c.start;
        if self.largest.as_ref().is_none_or(|m| cost > m.bytes) {
            let key = String::from_utf8_lossy(&self.text[c.key.0..c.key.1]);
            self.largest = Some(Member {
                key: key.chars().take(KEY_SHOWN).collect(),
                bytes: cost,
                elements: c.elements,
            });
        }
    }
}

/// The index just past the string starting at `start` (its opening quote), or the text's end.
fn string_end(text: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(n) = text[i..].iter().position(|&c| c == b'"' || c == b'\\') {
        i += n;
        if text[i] == b'"' {
            return i + 1;
        }
        i += 2;
        if i >= text.len() {
            break;
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_arrays_are_charged_per_element_and_named() {
        let text = br#"{"asset":{"version":"2.0"},"nodes":[{},{},{}],"scene":0}"#;
        let c = of(text);
        let node = size::<json::Node>();
        let nodes = Member {
            key: "nodes".into(),
            bytes: GROWTH * 3 * node + node,
            elements: 3,
        };
        assert_eq!(c.largest, Some(nodes));
        assert_eq!(c.bytes, 4 * text.len() as u64 + GROWTH * 3 * node + node);
    }

    #[test]
    fn skipped_and_refused_values_cost_only_their_text() {
        let node = size::<json::Node>();
        // (document, node elements charged): unknown keys and `extras` are skipped, a list
        // written as an object is refused, brackets inside strings are text.
        for (text, nodes) in [
            (
                &br#"{"asset":{},"unknown":[{},{},[[]]],"nodes":{"a":[{}]}}"#[..],
                0,
            ),
            (br#"{"asset":{"extras":[[],[],{"a":[]}]}}"#, 0),
            (br#"{"nodes":["[[{{\"[",0]}"#, 2),
        ] {
            let list = if nodes > 0 { node } else { 0 };
            assert_eq!(
                of(text).bytes,
                4 * text.len() as u64 + nodes * GROWTH * node + list,
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn escaped_keys_and_structs_as_arrays_may_hold_anything() {
        let plain = of(br#"{"nodes":[{}]}"#).bytes;
        let escaped = of(br#"{"n\u006fdes":[{}]}"#).bytes;
        assert!(escaped - 5 >= GROWTH * ANY_SLOT, "{escaped} vs {plain}");
        let positional = of(br#"{"nodes":[[0,0]]}"#);
        assert!(positional.bytes >= 2 * GROWTH * ANY_SLOT);
    }

    #[test]
    fn any_bytes_scan_in_one_pass_without_panicking() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let alphabet = b"{}[]\",:\\ 0an";
        for len in 0..2000 {
            let text: Vec<u8> = (0..len % 97)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            of(&text);
        }
        // Nesting past the depth followed keeps brackets matched without growing the stack.
        let deep = [
            &b"{\"nodes\":"[..],
            &[b'['; 100_000],
            &[b']'; 100_000],
            b",\"x\":[{}]}",
        ]
        .concat();
        let c = of(&deep);
        assert_eq!(c.largest.map(|m| m.key), Some("nodes".to_string()));
    }
}
