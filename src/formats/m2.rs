//! SKELETON: the M2 loader is being written in its issue.

use std::path::Path;

use super::{LoadError, LoadOptions};
use crate::scene::{AnimationInfo, Model, PoseRequest, PosedMesh};

/// A loaded M2 model.
pub struct M2Model;

/// Loads a M2 model from `data` (the contents of `path`).
pub fn load(path: &Path, _data: &[u8], _opts: &LoadOptions) -> Result<M2Model, LoadError> {
    Err(LoadError::invalid("M2", 0, "loader not built yet").in_file(path))
}

impl Model for M2Model {
    fn format(&self) -> &'static str {
        "M2"
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
