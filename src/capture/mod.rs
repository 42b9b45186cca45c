//! Recorded GPU input and the pictures it makes: reading and writing GPU dumps, replaying them
//! (or text streams) from power-on, the display read-out, comparing pictures, pixel history and
//! counting what a recording does.
//!
//! - [`dump`]: the GPUDUMP (`.psxgpu`) reader and writer;
//! - [`replay`]: recorded input → a GPU at power-on, optionally stopping at a frame;
//! - [`display`]: the picture a TV shows, cut out of VRAM (every picture psxrender saves);
//! - [`compare`]: two pictures compared in 15-bit space;
//! - [`history`]: pixel history as text;
//! - [`census`]: what a recording does, counted without drawing.

pub mod census;
pub mod compare;
pub mod display;
pub mod dump;
pub mod history;
pub mod replay;
