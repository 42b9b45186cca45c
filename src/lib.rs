//! psxrender: loads 3D models and renders them exactly as PlayStation 1 hardware would.
//!
//! Data flow: a loader in [`formats`] reads a model into a [`scene::Model`]; posing gives a
//! [`scene::PosedMesh`]; the renderer converts it to PS1 fixed point, runs it through the
//! emulated GTE (crate `gte`), builds an ordering table, and streams GP0 words into the emulated
//! GPU (crate `gpu`), whose display read-out ([`capture::display`]) becomes the PNG.
//!
//! Beside that path: [`capture`] reads, replays, compares and counts recorded GPU input;
//! [`hwtest`] runs the hardware-test vectors. `docs/architecture.md` maps every module.
#![forbid(unsafe_code)]

pub mod batch;
pub mod capture;
pub mod cpu_time;
pub mod describe;
pub mod effects;
pub mod formats;
pub mod hwtest;
pub mod math;
pub mod output;
pub mod preview;
pub mod render;
pub mod scene;
pub mod sheet;
