//! Reading a model: a 0xDB data cluster (its chunks, the chosen model, the animations that fit
//! its skeleton, TIMs and the 0x12 materials) or a bare type-0x02 model, plus the side files
//! `LoadOptions` names; counts are capped before anything is kept.

use super::cluster::{self, ChunkHeader};
use super::texture::Uploads;
use super::{Animation, FF9Model, MaterialSet, Mesh, ModelKind, ModelMaterials, Tim, FORMAT};
use crate::formats::{ErrorKind, LoadError, LoadOptions};

/// The model in `data` with the side files of `opts` (errors without the file name yet).
pub(super) fn parse(data: &[u8], opts: &LoadOptions) -> Result<FF9Model, LoadError> {
    let mut warnings = Vec::new();
    let mut contents = if cluster::is_cluster(data) {
        Contents::of_cluster(data, opts, &mut warnings)?
    } else if data.len() >= 2 && data[..2] == [0, 0] {
        if let Some(n) = opts.ff9_model {
            warnings.push(format!(
                "--model {n} ignored: the file is a single bare model"
            ));
        }
        Contents::new(Mesh::parse(data)?, None, "bare type-0x02 model".to_string())
    } else {
        return Err(LoadError::new(
            FORMAT,
            0,
            ErrorKind::BadMagic {
                expected: "an FF9 data cluster (0xDB) or a type-0x02 model (00 00)",
            },
        ));
    };
    let bone_count = contents.mesh.bones.len();
    let raw_anims = std::mem::take(&mut contents.raw_anims);
    let mut animations = fitting_animations(raw_anims, bone_count, &mut warnings);
    contents.add_side_files(opts, &mut animations)?;
    let Contents {
        mesh,
        model_id,
        source,
        chunks,
        tims,
        material_sets,
        ..
    } = contents;
    let materials = record_for(model_id, &material_sets);
    let kind = kind_of(opts, materials.is_some(), &mut warnings);
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

/// The record naming this model in any 0x12 object, else the first record there is.
fn record_for(model_id: Option<u16>, sets: &[MaterialSet]) -> Option<ModelMaterials> {
    model_id
        .and_then(|id| {
            sets.iter()
                .flat_map(|s| &s.models)
                .find(|m| m.model_id == id)
        })
        .or_else(|| sets.iter().flat_map(|s| &s.models).next())
        .cloned()
}

/// The model's kind from `--ff9-kind`, else guessed (field when it has a 0x12 record), and
/// whether it was guessed.
fn kind_of(opts: &LoadOptions, has_record: bool, warnings: &mut Vec<String>) -> (ModelKind, bool) {
    let kind = match opts.ff9_kind {
        Some(k) => (k, false),
        None if has_record => (ModelKind::Field, true),
        None => (ModelKind::Battle, true),
    };
    if has_record && !kind.0.uses_material_records() {
        warnings.push(format!(
            "the 0x12 record is not used for materials: a {} model takes material index = \
             TIM index",
            kind.0
        ));
    }
    kind
}

/// An animation object not yet decoded: its id, absolute offset and bytes.
type RawAnimation<'a> = (Option<u16>, u64, &'a [u8]);

/// What the file itself holds: the chosen model, and from a cluster its chunk headers,
/// animations, TIMs and 0x12 objects.
struct Contents<'a> {
    mesh: Mesh,
    model_id: Option<u16>,
    /// Where the model came from, as `info` says it.
    source: String,
    chunks: Vec<ChunkHeader>,
    raw_anims: Vec<RawAnimation<'a>>,
    tims: Vec<(Option<u16>, Tim)>,
    material_sets: Vec<MaterialSet>,
    /// Halfwords of all TIMs kept so far.
    vram_halfwords: u64,
}

impl<'a> Contents<'a> {
    fn new(mesh: Mesh, model_id: Option<u16>, source: String) -> Self {
        Contents {
            mesh,
            model_id,
            source,
            chunks: Vec::new(),
            raw_anims: Vec::new(),
            tims: Vec::new(),
            material_sets: Vec::new(),
            vram_halfwords: 0,
        }
    }

    /// A 0xDB cluster: model `opts.ff9_model` (default 0) and every object beside it.
    fn of_cluster(
        data: &'a [u8],
        opts: &LoadOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Self, LoadError> {
        let c = cluster::parse(data)?;
        warnings.extend(c.notes.iter().cloned());
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
        let source = format!(
            "data cluster, model {index} of {} (object id {})",
            models.len(),
            obj.id
        );
        let mut contents = Contents::new(mesh, Some(obj.id), source);
        contents.chunks.clone_from(&c.chunks);
        for o in &c.objects {
            contents.add_object(o)?;
        }
        Ok(contents)
    }

    /// Keeps an animation, TIM or 0x12 object; TIMs together are capped.
    fn add_object(&mut self, o: &cluster::Object<'a>) -> Result<(), LoadError> {
        match o.kind {
            cluster::TYPE_ANIMATION => self.raw_anims.push((Some(o.id), o.offset, o.data)),
            cluster::TYPE_TIM => {
                let tim = Tim::parse(o.data).map_err(|e| o.rebase(e))?;
                self.vram_halfwords += tim_halfwords(&tim);
                if self.vram_halfwords > MAX_VRAM_HALFWORDS {
                    return Err(LoadError::new(
                        FORMAT,
                        o.offset,
                        ErrorKind::CountTooLarge {
                            what: "TIM halfwords (all TIMs together)",
                            count: self.vram_halfwords,
                            max: MAX_VRAM_HALFWORDS,
                        },
                    ));
                }
                self.tims.push((Some(o.id), tim))
            }
            cluster::TYPE_MATERIALS => self
                .material_sets
                .push(MaterialSet::parse(o.data).map_err(|e| o.rebase(e))?),
            _ => {}
        }
        Ok(())
    }

    /// The side files `opts` names: an animation added to the cluster's, TIMs added to its
    /// TIMs, and a 0x12 file that replaces whatever the cluster held.
    fn add_side_files(
        &mut self,
        opts: &LoadOptions,
        animations: &mut Vec<(Option<u16>, Animation)>,
    ) -> Result<(), LoadError> {
        if let Some(p) = &opts.ff9_anim {
            let bytes = crate::formats::read_file(p, "FF9 animation")?;
            animations.push((
                None,
                Animation::parse(&bytes, self.mesh.bones.len()).map_err(|e| e.in_file(p))?,
            ));
        }
        for p in &opts.ff9_tims {
            self.tims.push((None, crate::formats::tim::load(p)?));
        }
        if let Some(p) = &opts.ff9_materials {
            let bytes = crate::formats::read_file(p, "FF9 materials")?;
            self.material_sets = vec![MaterialSet::parse(&bytes).map_err(|e| e.in_file(p))?];
        }
        Ok(())
    }
}

/// The cluster's animations that fit a `bone_count`-bone skeleton, in file order; the others,
/// and any past the cap on all animations together, are skipped with a warning.
fn fitting_animations(
    raw: Vec<RawAnimation<'_>>,
    bone_count: usize,
    warnings: &mut Vec<String>,
) -> Vec<(Option<u16>, Animation)> {
    let mut animations = Vec::new();
    let mut anim_entries = 0u64;
    for (id, off, bytes) in raw {
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
    animations
}

/// Most TIM data kept from one cluster: four times VRAM.
const MAX_VRAM_HALFWORDS: u64 = 4 * 1024 * 512;
/// Most decoded (frame, bone) angle entries kept from one cluster (6 bytes each).
const MAX_ANIMATION_ENTRIES: u64 = 4 << 20;

fn tim_halfwords(t: &Tim) -> u64 {
    t.image.data.len() as u64 + t.clut.as_ref().map_or(0, |c| c.data.len() as u64)
}
