//! Neverwinter Nights models: binary and ASCII MDL, animations (own and through the
//! supermodel chain), skins, textures (DDS/TGA/PLT by resref).
//!
//! Data flow: [`parse()`] (binary or ASCII by content: [`binary`], [`ascii`]) → [`mdl::Mdl`]
//! (NWN's Z-up space) → [`load`] makes the [`NWNModel`] (supermodels loaded, animations gathered
//! and matched to nodes by name, textures resolved through [`textures`]) → posing (`pose.rs`)
//! samples the controllers ([`anim`]) at frame/30 s, walks the tree, deforms skins, and converts
//! to the scene convention (+Y up, front +Z).
//!
//! Files, as in every loader: `mod.rs` the model and [`load`], [`mod@parse`] the bytes, `pose.rs`
//! the frame, `info.rs` the facts `psxrender info` prints, [`writer`] synthetic files for tests.

pub mod anim;
pub mod ascii;
pub mod binary;
pub mod chunks;
pub mod dangly;
pub mod effects;
mod info;
pub mod mdl;
pub mod parse;
mod pose;
#[cfg(test)]
mod tests;
pub mod textures;
pub mod txi;
pub mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::{Folders, LoadError, LoadOptions, MAX_FILE_SIZE};
use crate::scene::{AnimationInfo, Model, PoseRequest, PosedMesh};
pub use parse::{looks_ascii, parse};

use anim::{Affine, Trs};
use mdl::{Animation, Body, Mdl, Node};

/// Deepest supermodel chain followed.
pub const MAX_SUPERMODEL_DEPTH: usize = 16;

/// NWN model space → scene space. NWN is Z-up and its creatures face +Y — checked on
/// c_aribeth: her `rhand_g`/`rbicep_g` lie on +X (a figure facing +Y with Z up has its right
/// side on +X), her toes reach further from the ankles toward +Y than her heels, and her long
/// hair hangs lowest on −Y. The scene wants +Y up and the front toward +Z, so
/// `(x, y, z) → (−x, z, y)`: a 180° turn about the (0, 1, 1) axis, i.e. a proper
/// rotation (determinant +1), so counter-clockwise fronts stay counter-clockwise (1240 of
/// c_aribeth's 1242 faces wind counter-clockwise around their vertex normals).
pub fn to_scene(p: [f32; 3]) -> [f32; 3] {
    [-p[0], p[2], p[1]]
}

/// One model of the supermodel chain.
#[derive(Clone, Debug)]
pub struct ChainLink {
    /// Model name as referenced.
    pub name: String,
    /// The file loaded, `None` when not found.
    pub path: Option<PathBuf>,
    /// How many animations it added.
    pub animations: usize,
}

/// An animation playable on the model. Its node tree is read from its file when it is first
/// drawn ([`NWNModel::keyed`]): a creature's supermodel carries dozens of animations, and a
/// frame draws one.
pub struct PlayableAnimation {
    /// The animation's header (name, length, events); its `nodes` are empty unless its file
    /// was read whole (ASCII): the tree is what [`NWNModel::keyed`] gives.
    pub animation: Animation,
    /// The model file it comes from.
    pub source: String,
    /// The times of its `detonate` events, in order (what fires an explosion emitter).
    pub detonations: Vec<f32>,
    /// Where its tree is, when not read yet.
    body: Body,
    /// The file `body` is in.
    file: Option<Arc<SourceFile>>,
    keyed: OnceLock<Keyed>,
}

/// A model file whose animation trees are read when drawn.
struct SourceFile {
    path: PathBuf,
    bytes: Vec<u8>,
    /// Bytes of the read budget spent on the file so far (its outline and the trees read
    /// since): each tree read goes on from it, so the trees of one file together cost no more
    /// than reading it whole would. Held while a tree is read.
    budget_used: Mutex<u64>,
}

/// An animation's node tree read, and per model node the animation node keyed for it.
#[derive(Default)]
struct Keyed {
    /// The tree when read from the file (empty when it is in the animation's `nodes`).
    read: Vec<Node>,
    node_map: Vec<Option<usize>>,
}

/// An animation's node tree and, for each model node, the animation node keyed for it
/// (matched by name).
pub struct KeyedAnimation<'a> {
    /// The animation.
    pub playable: &'a PlayableAnimation,
    /// Its nodes.
    pub nodes: &'a [Node],
    /// Per model node, the index into `nodes` keyed for it.
    pub node_map: &'a [Option<usize>],
}

impl<'a> KeyedAnimation<'a> {
    /// The animation node keyed for model node `node`.
    pub fn node_for(&self, node: usize) -> Option<&'a Node> {
        self.nodes.get(self.node_map.get(node).copied().flatten()?)
    }
}

/// A loaded NWN model.
pub struct NWNModel {
    /// The file.
    pub path: PathBuf,
    /// The parsed model.
    pub mdl: Mdl,
    /// Supermodels, nearest first.
    pub chain: Vec<ChainLink>,
    /// Animations: the model's own, then each supermodel's not already present.
    pub animations: Vec<PlayableAnimation>,
    /// Textures used, in first-use order.
    pub textures: Vec<textures::Resolved>,
    /// Per node: index into `textures` of its texture 0 (a mesh's) or particle texture (an
    /// emitter's).
    pub node_texture: Vec<Option<usize>>,
    /// The emitters drawn: (node index, definition).
    pub emitters: Vec<(usize, crate::effects::EmitterDef)>,
    /// The chunk models its emitters draw that loaded.
    pub chunks: Vec<chunks::Chunk>,
    /// Where the emitters' runs have been, for later frames to go on from.
    sim: crate::effects::SimCache,
    warnings: Vec<String>,
    /// Warnings of animation trees read since the load.
    late_warnings: Mutex<Vec<String>>,
    rest: Vec<Trs>,
    bind_world: Vec<Affine>,
}

/// Loads a NWN model from `data` (the contents of `path`).
pub fn load(path: &Path, data: &[u8], opts: &LoadOptions) -> Result<NWNModel, LoadError> {
    load_model(path, data, opts, true)
}

/// [`load`] without looking for chunk models (for a chunk model itself: chunks are followed
/// one level down only).
fn load_without_chunks(
    path: &Path,
    data: &[u8],
    opts: &LoadOptions,
) -> Result<NWNModel, LoadError> {
    load_model(path, data, opts, false)
}

fn load_model(
    path: &Path,
    data: &[u8],
    opts: &LoadOptions,
    follow_chunks: bool,
) -> Result<NWNModel, LoadError> {
    let mut warnings = Vec::new();
    let outline = parse::outline(data, &mut warnings).map_err(|e| e.in_file(path))?;
    let mut mdl = outline.mdl;
    let dir = crate::formats::model_dir(path).to_path_buf();
    let (chain, super_anims) = load_supermodels(&mdl, &dir, opts, &mut warnings);
    let file = SourceFile::keep(path, &outline.bodies, outline.budget_used, || data.to_vec());
    let own = Gathered::of(
        std::mem::take(&mut mdl.animations),
        outline.bodies,
        file,
        &mdl.name,
    );
    let mut animations: Vec<PlayableAnimation> = Vec::new();
    for g in own.chain(super_anims) {
        let a = g.animation;
        if animations
            .iter()
            .any(|p| p.animation.name.eq_ignore_ascii_case(&a.name))
        {
            continue;
        }
        let detonations = sorted_times(
            (a.events.iter())
                .filter(|(_, name)| name.eq_ignore_ascii_case("detonate"))
                .map(|(t, _)| *t),
        );
        animations.push(PlayableAnimation {
            animation: a,
            source: g.source,
            detonations,
            body: g.body,
            file: g.file,
            keyed: OnceLock::new(),
        });
    }

    let mut texs: Vec<textures::Resolved> = Vec::new();
    let allowance = crate::formats::images::ImageAllowance::default();
    let mut node_texture = Vec::with_capacity(mdl.nodes.len());
    for n in &mdl.nodes {
        let mesh_tex = n
            .mesh
            .as_ref()
            .filter(|m| m.render && !m.textures[0].is_empty())
            .map(|m| &m.textures[0]);
        // A chunk emitter draws its model, not its texture (rollnw).
        let emitter_tex = match &n.detail {
            mdl::NodeDetail::Emitter { texture, .. }
                if !mdl::is_null_name(texture) && chunks::chunk_name(n).is_none() =>
            {
                Some(texture)
            }
            _ => None,
        };
        let t = mesh_tex.or(emitter_tex).map(|name| {
            match texs.iter().position(|t| t.name.eq_ignore_ascii_case(name)) {
                Some(i) => i,
                None => {
                    texs.push(textures::resolve(
                        name,
                        &dir,
                        opts,
                        &allowance,
                        &mut warnings,
                    ));
                    texs.len() - 1
                }
            }
        });
        node_texture.push(t);
    }

    let chunks = if follow_chunks {
        chunks::resolve(&mdl, &dir, opts, &mut texs, &mut warnings)
    } else {
        Vec::new()
    };
    let rest: Vec<Trs> = mdl.nodes.iter().map(Trs::rest).collect();
    let local: Vec<Affine> = rest.iter().map(Trs::affine).collect();
    let bind_world = anim::world(&mdl.nodes, &local);
    let mut model = NWNModel {
        path: path.to_path_buf(),
        mdl,
        chain,
        animations,
        textures: texs,
        node_texture,
        emitters: Vec::new(),
        chunks,
        sim: crate::effects::SimCache::default(),
        warnings,
        late_warnings: Mutex::default(),
        rest,
        bind_world,
    };
    let (emitters, skipped) = effects::emitters(&model);
    model.emitters = emitters;
    model.warnings.extend(skipped);
    Ok(model)
}

/// An animation of the model or its supermodels, gathered at load.
struct Gathered {
    animation: Animation,
    source: String,
    body: Body,
    file: Option<Arc<SourceFile>>,
}

impl Gathered {
    /// The animations of the model named `source`, their trees where `bodies` say: in the
    /// animation, or in `file`.
    fn of(
        animations: Vec<Animation>,
        bodies: Vec<Body>,
        file: Option<Arc<SourceFile>>,
        source: &str,
    ) -> impl Iterator<Item = Gathered> {
        let source = source.to_string();
        animations
            .into_iter()
            .zip(bodies)
            .map(move |(animation, body)| Gathered {
                animation,
                source: source.clone(),
                file: match body {
                    Body::Parsed => None,
                    _ => file.clone(),
                },
                body,
            })
    }
}

impl SourceFile {
    /// The file at `path` (its bytes made by `bytes`), kept when a tree of `bodies` is still
    /// in it; `budget_used` is what its outline spent.
    fn keep(
        path: &Path,
        bodies: &[Body],
        budget_used: u64,
        bytes: impl FnOnce() -> Vec<u8>,
    ) -> Option<Arc<SourceFile>> {
        let waiting = bodies.iter().any(|b| !matches!(b, Body::Parsed));
        waiting.then(|| {
            Arc::new(SourceFile {
                path: path.to_path_buf(),
                bytes: bytes(),
                budget_used: Mutex::new(budget_used),
            })
        })
    }
}

/// Where the models a model names (supermodels, chunk models) are looked for: its folder
/// `dir`, then each `--search-path`.
fn model_dirs(dir: &Path, opts: &LoadOptions) -> Vec<PathBuf> {
    crate::formats::distinct(
        std::iter::once(dir.to_path_buf()).chain(opts.search_paths.iter().cloned()),
    )
}

/// The warning for a model `what` not found in `dirs`, ending with what that means.
fn missing(what: &str, dirs: &[PathBuf], effect: &str) -> String {
    let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(
        "{what} MISSING (searched {}; add --search-path): {effect}",
        searched.join(", ")
    )
}

/// Follows the supermodel chain from `mdl`, returning the links and their animations.
fn load_supermodels(
    mdl: &Mdl,
    dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> (Vec<ChainLink>, Vec<Gathered>) {
    let dirs = model_dirs(dir, opts);
    let folders = Folders::new(dir, opts);
    let mut chain: Vec<ChainLink> = Vec::new();
    let mut anims = Vec::new();
    let mut next = mdl.supermodel.clone();
    let mut seen = vec![mdl.name.to_ascii_lowercase()];
    while let Some(name) = next.take() {
        if seen.contains(&name.to_ascii_lowercase()) {
            warnings.push(format!(
                "supermodel chain loops back to '{name}'; stopped there"
            ));
            break;
        }
        if chain.len() >= MAX_SUPERMODEL_DEPTH {
            warnings.push(format!(
                "supermodel chain longer than {MAX_SUPERMODEL_DEPTH}; stopped at '{name}'"
            ));
            break;
        }
        seen.push(name.to_ascii_lowercase());
        let Some(path) = textures::find_file(&dirs, &name, "mdl") else {
            let effect = if chain.is_empty() {
                "no animations come from it; the model renders in its rest pose"
            } else {
                "animations further up the chain are unavailable"
            };
            warnings.push(missing(&format!("supermodel '{name}'"), &dirs, effect));
            chain.push(ChainLink {
                name,
                path: None,
                animations: 0,
            });
            break;
        };
        let parsed =
            folders.read(&path, "NWN MDL", MAX_FILE_SIZE).and_then(|d| {
                match parse::outline(&d, warnings) {
                    Ok(o) => Ok((o, d)),
                    Err(e) => Err(e.in_file(&path)),
                }
            });
        match parsed {
            Ok((o, data)) => {
                let sm = o.mdl;
                chain.push(ChainLink {
                    name,
                    path: Some(path.clone()),
                    animations: sm.animations.len(),
                });
                let file = SourceFile::keep(&path, &o.bodies, o.budget_used, || data);
                anims.extend(Gathered::of(sm.animations, o.bodies, file, &sm.name));
                next = sm.supermodel;
            }
            Err(e) => {
                warnings.push(format!("supermodel '{name}' failed to load: {e}"));
                chain.push(ChainLink {
                    name,
                    path: Some(path),
                    animations: 0,
                });
                break;
            }
        }
    }
    (chain, anims)
}

impl NWNModel {
    /// Animation `i` with its node tree, read from its file the first time it is asked for
    /// (safe from several threads: one reads, the others wait for it). A tree that fails to
    /// read leaves the animation keying no node, so the model stays in its rest pose in it,
    /// and the error joins the model's warnings; so do the warnings of a tree read.
    pub fn keyed(&self, i: usize) -> Option<KeyedAnimation<'_>> {
        let playable = self.animations.get(i)?;
        let keyed = playable.keyed.get_or_init(|| {
            let read = self.read_tree(playable);
            let nodes = if read.is_empty() {
                &playable.animation.nodes
            } else {
                &read
            };
            let node_map = (self.mdl.nodes.iter())
                .map(|n| (nodes.iter()).position(|an| an.name.eq_ignore_ascii_case(&n.name)))
                .collect();
            Keyed { read, node_map }
        });
        let nodes = if keyed.read.is_empty() {
            &playable.animation.nodes
        } else {
            &keyed.read
        };
        Some(KeyedAnimation {
            playable,
            nodes,
            node_map: &keyed.node_map,
        })
    }

    /// The node tree of `playable` read from its file (empty when it has none to read, or the
    /// read failed; the failure is a warning).
    fn read_tree(&self, playable: &PlayableAnimation) -> Vec<Node> {
        let Some(file) = &playable.file else {
            return Vec::new();
        };
        let mut warnings = Vec::new();
        let mut used = file.budget_used.lock().unwrap_or_else(|e| e.into_inner());
        let read = parse::animation_nodes(&file.bytes, &playable.body, *used, &mut warnings);
        let nodes = match read {
            Ok((nodes, spent)) => {
                *used = spent;
                nodes
            }
            Err(e) => {
                warnings.push(format!(
                    "animation '{}' of '{}' failed to load: {}; the model stays in its rest \
                     pose in it",
                    playable.animation.name,
                    playable.source,
                    e.in_file(&file.path)
                ));
                Vec::new()
            }
        };
        drop(used);
        (self.late_warnings.lock().unwrap_or_else(|e| e.into_inner())).extend(warnings);
        nodes
    }

    /// The loaded chunk model emitter node `node` draws, if it names one that loaded.
    pub fn chunk(&self, node: usize) -> Option<&chunks::Chunk> {
        let name = chunks::chunk_name(self.mdl.nodes.get(node)?)?;
        (self.chunks.iter()).find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Counts of drawn meshes, vertices, faces.
    pub fn drawn_counts(&self) -> (usize, usize, usize) {
        let mut out = (0, 0, 0);
        for m in self.mdl.nodes.iter().filter_map(pose::drawn_mesh) {
            out.0 += 1;
            out.1 += m.vertices.len();
            out.2 += m.faces.len();
        }
        out
    }
}

/// Classification byte of a tile model.
const CLASSIFICATION_TILE: u8 = 2;

/// Tiles are seen by the game's camera from the south (scene −Z, as NWN's north is scene +Z),
/// looking down; a little off-axis so walls read as walls.
const TILE_VIEW: (f32, f32) = (200.0, 50.0);

impl Model for NWNModel {
    fn format(&self) -> &'static str {
        "NWN MDL"
    }

    fn preferred_view(&self) -> Option<(f32, f32)> {
        (self.mdl.classification == CLASSIFICATION_TILE).then_some(TILE_VIEW)
    }

    fn animations(&self) -> Vec<AnimationInfo> {
        self.animations
            .iter()
            .map(|a| {
                let len = a.animation.length;
                AnimationInfo {
                    name: a.animation.name.clone(),
                    frames: (len * 30.0).round().max(1.0) as u32,
                    duration_ms: (len * 1000.0).round() as u32,
                }
            })
            .collect()
    }

    fn pose(&self, request: &PoseRequest) -> PosedMesh {
        pose::pose(self, request)
    }

    fn effects(&self, request: &PoseRequest) -> crate::scene::Effects {
        let memo = pose::PoseMemo::default();
        let sources = self.emitters.iter().map(|(node, def)| {
            let src = effects::AnimatedNode::new(self, *node, request.animation).sharing(&memo);
            let src: Box<dyn crate::effects::EmitterSource> = Box::new(src);
            (def, src)
        });
        let time = request.frame as f32 / 30.0;
        let cache = (&self.sim, request.animation);
        crate::effects::collect(sources, time, request.camera, cache)
    }

    fn lights(&self, request: &PoseRequest) -> Option<crate::scene::ModelLights> {
        effects::lights(self, request.animation, request.frame as f32 / 30.0)
    }

    fn info(&self) -> String {
        info::Facts::of(self).to_string()
    }

    fn facts(&self) -> serde_json::Value {
        serde_json::to_value(info::Facts::of(self)).unwrap_or_default()
    }

    fn warnings(&self) -> Vec<String> {
        let late = self.late_warnings.lock().unwrap_or_else(|e| e.into_inner());
        self.warnings.iter().chain(late.iter()).cloned().collect()
    }
}

/// `times` in increasing order, for counting those in a range by binary search; NaNs, which
/// no range holds, are left out.
pub(crate) fn sorted_times(times: impl Iterator<Item = f32>) -> Vec<f32> {
    let mut v: Vec<f32> = times.filter(|t| !t.is_nan()).collect();
    v.sort_by(f32::total_cmp);
    v
}
