//! Reading a model: a 0xDB data cluster (its chunks, the chosen model, the animations that fit
//! its skeleton, TIMs and the 0x12 materials) or a bare type-0x02 model, plus the side files
//! `LoadOptions` names; counts are capped before anything is kept.

use super::cluster;
use super::texture::Uploads;
use super::{Animation, FF9Model, MaterialSet, Mesh, ModelKind, Tim, FORMAT};
use crate::formats::{ErrorKind, LoadError, LoadOptions};

/// The model in `data` with the side files of `opts` (errors without the file name yet).
pub(super) fn parse(data: &[u8], opts: &LoadOptions) -> Result<FF9Model, LoadError> {
    let mut warnings = Vec::new();
    let mut raw_anims: Vec<(Option<u16>, u64, &[u8])> = Vec::new();
    let mut tims = Vec::new();
    let mut material_sets: Vec<MaterialSet> = Vec::new();
    let mut chunks = Vec::new();
    let mut vram_halfwords = 0u64;
    let (mesh, model_id, source) = if cluster::is_cluster(data) {
        let c = cluster::parse(data)?;
        warnings.extend(c.notes.iter().cloned());
        chunks.clone_from(&c.chunks);
        for (off, kind) in &c.skipped {
            warnings.push(format!(
                "skipped cluster chunk type 0x{kind:02x} at 0x{off:x}"
            ));
        }
        let models: Vec<_> = c
            .objects
            .iter()
            .filter(|o| o.kind == cluster::TYPE_MODEL)
            .collect();
        let index = opts.ff9_model.unwrap_or(0);
        let Some(obj) = models.get(index) else {
            return Err(LoadError::invalid(
                FORMAT,
                0,
                format!(
                    "model {index} asked for, but the cluster holds {} model(s)",
                    models.len()
                ),
            ));
        };
        let mesh = Mesh::parse(obj.data).map_err(|e| obj.rebase(e))?;
        for o in &c.objects {
            match o.kind {
                cluster::TYPE_ANIMATION => raw_anims.push((Some(o.id), o.offset, o.data)),
                cluster::TYPE_TIM => {
                    let tim = Tim::parse(o.data).map_err(|e| o.rebase(e))?;
                    vram_halfwords += tim_halfwords(&tim);
                    if vram_halfwords > MAX_VRAM_HALFWORDS {
                        return Err(LoadError::new(
                            FORMAT,
                            o.offset,
                            ErrorKind::CountTooLarge {
                                what: "TIM halfwords (all TIMs together)",
                                count: vram_halfwords,
                                max: MAX_VRAM_HALFWORDS,
                            },
                        ));
                    }
                    tims.push((Some(o.id), tim))
                }
                cluster::TYPE_MATERIALS => {
                    material_sets.push(MaterialSet::parse(o.data).map_err(|e| o.rebase(e))?)
                }
                _ => {}
            }
        }
        let source = format!(
            "data cluster, model {index} of {} (object id {})",
            models.len(),
            obj.id
        );
        (mesh, Some(obj.id), source)
    } else if data.len() >= 2 && data[..2] == [0, 0] {
        if let Some(n) = opts.ff9_model {
            warnings.push(format!(
                "--model {n} ignored: the file is a single bare model"
            ));
        }
        (Mesh::parse(data)?, None, "bare type-0x02 model".to_string())
    } else {
        return Err(LoadError::new(
            FORMAT,
            0,
            ErrorKind::BadMagic {
                expected: "an FF9 data cluster (0xDB) or a type-0x02 model (00 00)",
            },
        ));
    };
    let bone_count = mesh.bones.len();
    let mut animations = Vec::new();
    let mut anim_entries = 0u64;
    for (id, off, bytes) in raw_anims {
        let frames = bytes
            .get(2..4)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
        anim_entries += u64::from(frames) * bone_count as u64;
        if anim_entries > MAX_ANIMATION_ENTRIES {
            warnings.push(format!(
                "animation {} at 0x{off:x} skipped: all animations together exceed {} \
                 frame×bone entries",
                id.unwrap_or(0),
                MAX_ANIMATION_ENTRIES
            ));
            continue;
        }
        match Animation::parse(bytes, bone_count) {
            Ok(a) => animations.push((id, a)),
            Err(mut e) => {
                e.offset += off;
                warnings.push(format!(
                    "animation {} skipped (does not fit this {bone_count}-bone model): {e}",
                    id.unwrap_or(0)
                ));
            }
        }
    }
    if let Some(p) = &opts.ff9_anim {
        let bytes = crate::formats::read_file(p, "FF9 animation")?;
        animations.push((
            None,
            Animation::parse(&bytes, bone_count).map_err(|e| e.in_file(p))?,
        ));
    }
    for p in &opts.ff9_tims {
        tims.push((None, crate::formats::tim::load(p)?));
    }
    if let Some(p) = &opts.ff9_materials {
        // A side file replaces whatever the cluster held.
        let bytes = crate::formats::read_file(p, "FF9 materials")?;
        material_sets = vec![MaterialSet::parse(&bytes).map_err(|e| e.in_file(p))?];
    }
    // The record naming this model in any 0x12 object, else the first record there is.
    let materials = model_id
        .and_then(|id| {
            material_sets
                .iter()
                .flat_map(|s| &s.models)
                .find(|m| m.model_id == id)
        })
        .or_else(|| material_sets.iter().flat_map(|s| &s.models).next())
        .cloned();
    let kind = match opts.ff9_kind {
        Some(k) => (k, false),
        None if materials.is_some() => (ModelKind::Field, true),
        None => (ModelKind::Battle, true),
    };
    if materials.is_some() && !kind.0.uses_material_records() {
        warnings.push(format!(
            "the 0x12 record is not used for materials: a {} model takes material index = \
             TIM index",
            kind.0
        ));
    }
    let default_animation = materials
        .as_ref()
        .and_then(|m| m.default_animation)
        .and_then(|id| animations.iter().position(|(a, _)| *a == Some(id)))
        .or((!animations.is_empty()).then_some(0));
    if animations.is_empty() {
        warnings.push(
            "no animation fits this model: drawn in the fallback pose (no rotations, each bone \
             its length along the parent's +Z) — pass --anim-file FILE for a real pose"
                .to_string(),
        );
    }
    let mut model = FF9Model {
        source,
        mesh,
        model_id,
        animations,
        default_animation,
        uploads: Uploads::of(tims.iter().map(|(_, t)| t)),
        tims,
        materials,
        kind,
        chunks,
        vertex_bones: Vec::new(),
        faces: Vec::new(),
        vram: Vec::new(),
        warnings,
    };
    model.build_faces();
    Ok(model)
}

/// Most TIM data kept from one cluster: four times VRAM.
const MAX_VRAM_HALFWORDS: u64 = 4 * 1024 * 512;
/// Most decoded (frame, bone) angle entries kept from one cluster (6 bytes each).
const MAX_ANIMATION_ENTRIES: u64 = 4 << 20;

fn tim_halfwords(t: &Tim) -> u64 {
    t.image.data.len() as u64 + t.clut.as_ref().map_or(0, |c| c.data.len() as u64)
}
