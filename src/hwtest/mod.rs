//! Hardware-test runners: replaying the `hwtests/` vectors (`hwtests/FORMAT.md`) through the
//! emulated chips and reporting every mismatch.
//!
//! - [`stream`]: the plain-text GPU stream format (`gp0`/`gp1`/`frame`, probe records) that
//!   the GPU tests and `replay` read;
//! - [`conformance`]: `gpu-probes` files, each case replayed from power-on and its VRAM probes
//!   checked;
//! - [`gte_vectors`]: GTE register vectors, every wrong register named.

pub mod conformance;
pub mod gte_vectors;
pub mod stream;
