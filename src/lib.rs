//! psxrender: loads 3D models and renders them exactly as PlayStation 1 hardware would.
//!
//! Data flow: a loader in [`formats`] (picked by content, [`detect`]) reads a model into a
//! [`scene::Model`]; posing gives a [`scene::PosedMesh`]; the renderer converts it to PS1 fixed
//! point, runs it through the emulated GTE (crate `gte`), builds an ordering table, and streams
//! GP0 words into the emulated GPU (crate `gpu`), whose display read-out ([`capture::display`])
//! becomes the PNG.
//!
//! Beside that path: [`capture`] reads, replays, compares and counts recorded GPU input;
//! [`hwtest`] runs the hardware-test vectors. `docs/architecture.md` maps every module and its
//! layer: [`read`] at the bottom, then the scene, [`texture`] and [`formats`], the renderer and
//! capture tools, and [`detect`] on top.
//!
//! # Example
//!
//! Load a model file, render frame 10 of its idle animation and save the picture (the model
//! here is the FF9-format character the crate builds for `psxrender demo`, written to a file
//! first so it is loaded as any model would be):
//!
//! ```
//! use psxrender::formats::{ff9, LoadOptions};
//! use psxrender::render::{default_animation, RenderOptions, Renderer};
//! use psxrender::scene::PoseRequest;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("psxrender-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("character.ff9");
//! std::fs::write(&path, ff9::demo_character())?;
//!
//! let model = psxrender::detect::load(&path, &LoadOptions::default())?;
//! let request = PoseRequest {
//!     animation: default_animation(model.as_ref()),
//!     frame: 10,
//!     camera: None,
//! };
//! let options = RenderOptions {
//!     framing: request.clone(),
//!     ..RenderOptions::default()
//! };
//! let frame = Renderer::new(model.as_ref(), &options)?.render(&request)?;
//! let png = dir.join("frame10.png");
//! psxrender::output::save_png_rgb(&png, frame.width, frame.height, &frame.rgb)?;
//! assert_eq!((frame.width, frame.height), (320, 240));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

pub mod batch;
pub mod capture;
pub mod cpu_time;
pub mod describe;
pub mod detect;
pub mod effects;
pub mod formats;
pub mod hwtest;
pub mod math;
pub mod output;
pub mod preview;
pub mod read;
pub mod render;
pub mod scene;
pub mod serve;
pub mod sheet;
pub mod texture;
