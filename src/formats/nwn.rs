//! SKELETON: the NWN loader is being written in its issue.

use std::path::Path;

use super::{LoadError, LoadOptions};
use crate::scene::{AnimationInfo, Model, PoseRequest, PosedMesh};

/// A loaded NWN model.
pub struct NWNModel;

/// Loads a NWN model from `data` (the contents of `path`).
pub fn load(path: &Path, _data: &[u8], _opts: &LoadOptions) -> Result<NWNModel, LoadError> {
    Err(LoadError::invalid("NWN", 0, "loader not built yet").in_file(path))
}

impl Model for NWNModel {
    fn format(&self) -> &'static str {
        "NWN"
    }
    fn animations(&self) -> Vec<AnimationInfo> {
        Vec::new()
    }
    fn pose(&self, _request: &PoseRequest) -> PosedMesh {
        PosedMesh::default()
    }
    fn info(&self) -> String {
        String::new()
    }
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// True when `data` looks like an ASCII MDL (text, not a binary header).
pub fn looks_ascii(data: &[u8]) -> bool {
    let head = &data[..data.len().min(512)];
    !head.is_empty()
        && head
            .iter()
            .all(|&b| b == b'\t' || b == b'\n' || b == b'\r' || (32..127).contains(&b))
}
