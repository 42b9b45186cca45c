//! Writing FF9 data: a data cluster in the game's layout from models, animations, TIMs and a
//! materials set (each chunk's own writer lives beside its reader: [`super::mesh`],
//! [`super::anim`], [`super::material`], [`super::cluster`]).

use std::fmt;

use super::{cluster, Animation, MaterialSet, Mesh, Tim};

/// A writer refused its input (a count or offset that the format cannot hold).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError(String);

impl WriteError {
    pub(crate) fn new(msg: &str) -> Self {
        WriteError(msg.to_string())
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write FF9 data: {}", self.0)
    }
}

impl std::error::Error for WriteError {}

/// Writes a data cluster in the game's layout, one typed chunk per type: models, animations,
/// TIMs and (optionally) a 0x12 materials object, each with its object id (the 0x12 object's
/// id is 0).
pub fn write_cluster(
    models: &[(u16, Mesh)],
    animations: &[(u16, Animation)],
    tims: &[(u16, Tim)],
    materials: Option<&MaterialSet>,
) -> Result<Vec<u8>, WriteError> {
    let mut objects = Vec::new();
    for (id, m) in models {
        objects.push((cluster::TYPE_MODEL, *id, m.write()?));
    }
    for (id, a) in animations {
        objects.push((cluster::TYPE_ANIMATION, *id, a.write()?));
    }
    for (id, t) in tims {
        objects.push((cluster::TYPE_TIM, *id, t.write()));
    }
    if let Some(m) = materials {
        objects.push((cluster::TYPE_MATERIALS, 0, m.write()?));
    }
    cluster::write(&objects)
}
