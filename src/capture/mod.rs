//! Recorded GPU input and the pictures it makes: reading and writing GPU dumps, replaying them
//! (or text streams) from power-on, the display read-out, comparing pictures, pixel history and
//! counting what a recording does.
//!
//! - [`dump`]: the GPUDUMP (`.psxgpu`) reader and writer;
//! - [`compressed`]: zstd/xz-compressed dumps (`.psxgpu.zst`, `.psxgpu.xz`), decoded as streams;
//! - [`input`]: recorded input (a dump or a text stream), read by content;
//! - [`replay`]: recorded input → a GPU at power-on, optionally stopping at a frame;
//! - [`sequence`]: every frame of a capture in one pass, memory bounded by one frame;
//! - [`display`]: the picture a TV shows, cut out of VRAM (every picture psxrender saves);
//! - [`crop`]: that picture framed as DuckStation frames it (`--crop`);
//! - [`compare`]: two pictures compared in 15-bit space;
//! - [`pairs`]: two sequences of pictures compared frame by frame;
//! - [`history`]: pixel history as text;
//! - [`census`]: what a recording does, counted without drawing;
//! - [`info`]: the facts `psxrender info` reports of recorded input.

pub mod census;
pub mod compare;
pub mod compressed;
pub mod crop;
pub mod display;
pub mod dump;
pub mod history;
pub mod info;
pub mod input;
pub mod pairs;
pub mod replay;
pub mod sequence;
