//! Batch rendering: a manifest of render jobs (JSON Lines, one job a line, keys = the render
//! command's long options) planned into jobs, split into shards, run, and recorded in a report
//! that makes a re-run skip finished work.
//!
//! The library holds what is independent of the command line: reading manifests
//! ([`manifest`]), expanding model globs ([`glob`]), the stable hash used for inputs, outputs
//! and shard assignment ([`hash`]), shards ([`shard`]) and reports with their resume rule
//! ([`report`]). `psxrender batch` (src/cli/batch/) turns manifest keys into render arguments
//! with the render command's own parser and runs each job as a child process.

pub mod confine;
pub mod glob;
pub mod hash;
pub mod manifest;
pub mod report;
pub mod shard;
