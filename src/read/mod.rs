//! The base layer: every file psxrender reads is read whole through [`read_file`] (capped,
//! regular files only), parsed through one bounds-checked [`reader::Reader`], and fails with one
//! [`error::LoadError`]. Loaders, capture readers and hardware-test runners all stand on it; it
//! uses nothing else of the crate.

pub mod budget;
pub mod error;
pub mod files;
pub mod reader;
pub mod text;

pub use budget::ReadBudget;
pub use error::{ErrorKind, LoadError, Result, Role, Unrecognised};
pub use files::{note_read, read_capped, read_file, record_reads, MAX_FILE_SIZE};
pub use reader::Reader;
