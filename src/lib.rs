//! psxrender: loads 3D models and renders them exactly as PlayStation 1 hardware would.
//!
//! Data flow: a loader in [`formats`] reads a model into a [`scene::Model`]; posing gives a
//! [`scene::PosedMesh`]; the renderer converts it to PS1 fixed point, runs it through the
//! emulated GTE (crate `gte`), builds an ordering table, and streams GP0 words into the emulated
//! GPU (crate `gpu`), whose VRAM becomes the PNG.

pub mod census;
pub mod compare;
pub mod conformance;
pub mod cpu_time;
pub mod describe;
pub mod display;
pub mod dump;
pub mod formats;
pub mod gte_vectors;
pub mod history;
pub mod output;
pub mod preview;
pub mod render;
pub mod replay;
pub mod scene;
pub mod sheet;
pub mod stream;
