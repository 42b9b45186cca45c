//! SKELETON: the FF9 loader is being written in its issue.

use std::path::Path;

use super::{LoadError, LoadOptions};
use crate::scene::{AnimationInfo, Model, PoseRequest, PosedMesh};

/// A loaded FF9 model.
pub struct FF9Model;

/// Loads a FF9 model from `data` (the contents of `path`).
pub fn load(path: &Path, _data: &[u8], _opts: &LoadOptions) -> Result<FF9Model, LoadError> {
    Err(LoadError::invalid("FF9", 0, "loader not built yet").in_file(path))
}

impl Model for FF9Model {
    fn format(&self) -> &'static str {
        "FF9"
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
