//! Running an emitter: from the animation's start in whole [`STEP_HZ`] steps, and from where
//! an earlier run of the same emitter and animation left off ([`SimCache`]), which gives the
//! same particles bit for bit, since a run is a pure function of its state at the top of a step.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::frame::{point, Inverse};
use super::Particle;
use super::{sane, spawn, step_time, steps_to, Emission, EmitterDef, EmitterSource, EmitterState};
use super::{Rng, Snapshot, POOL_PER_EMITTER, STEP_HZ};
use crate::math::{add3, dot3, scale3, sub3};

/// Steps between the points a [`SimCache`] keeps: 10 s, so that a frame goes on from at most
/// that far back, and a run to the 10-minute cap keeps 60.
pub const SAVE_EVERY: u32 = 600;

/// Most points one [`SimCache`] keeps (each up to [`POOL_PER_EMITTER`] particles, a few KB):
/// enough for 8 emitters over every animation's full 10 minutes, or far more emitters and
/// animations over the times frames are usually asked for.
pub const MAX_SAVED: usize = 512;

/// A run's whole state at the top of step `k`, before that step advances its particles.
#[derive(Clone, Debug)]
struct Resume {
    k: u32,
    rng: Rng,
    particles: Vec<Particle>,
    /// Particles owed by a continuous emitter (a fraction of one).
    owed: f32,
    /// Particles born so far.
    serial: u64,
    /// Spawns a full pool refused.
    dropped: u64,
    /// A single emitter's one particle was born.
    single_done: bool,
    /// The emitter as of the step before.
    state: EmitterState,
    /// How far its origin moved over the step before (scene units).
    moved: [f32; 3],
    /// Where its point-to-point particles go now, if anywhere.
    target: Option<[f32; 3]>,
}

impl Resume {
    /// The start of emitter `index`'s run.
    fn start(index: usize, def: &EmitterDef, src: &dyn EmitterSource) -> Resume {
        Resume {
            k: 0,
            rng: Rng::for_emitter(index, &def.name),
            particles: Vec::new(),
            owed: 0.0,
            serial: 0,
            dropped: 0,
            single_done: false,
            state: src.state(0.0),
            moved: [0.0; 3],
            target: aims(def).then(|| src.target(0.0)).flatten(),
        }
    }
}

/// Runs emitter `index` of a model from the animation start to `time` seconds.
pub fn simulate(index: usize, def: &EmitterDef, src: &dyn EmitterSource, time: f32) -> Snapshot {
    let start = vec![Resume::start(index, def, src)];
    let mut out = run(&[(def, src)], start, steps_to(time), |_, _| {});
    out.pop().expect("one emitter run")
}

/// Goes on from each `runs[i]` (emitter `emitters[i]`) to step `steps` (at or after each
/// one's step), handing `save` each run's state at every multiple of [`SAVE_EVERY`] it
/// passes. The emitters step together, one step of each before the next step of any: a
/// source sampled for one emitter is then sampled for the next at the same moment, so a
/// model's pose can be shared (NWN's `PoseMemo`). A run resuming later than the others
/// waits for the step it resumes at.
fn run(
    emitters: &[(&EmitterDef, &dyn EmitterSource)],
    mut runs: Vec<Resume>,
    steps: u32,
    mut save: impl FnMut(usize, &Resume),
) -> Vec<Snapshot> {
    let first = runs.iter().map(|r| r.k).min().unwrap_or(steps);
    for k in first..=steps {
        for (i, r) in runs.iter_mut().enumerate() {
            if r.k != k {
                continue;
            }
            let (def, src) = emitters[i];
            if k > 0 {
                age(def, src, r);
            }
            if k < steps {
                births(def, src, r);
                r.k += 1;
                if r.k.is_multiple_of(SAVE_EVERY) {
                    save(i, r);
                }
            }
        }
    }
    (runs.into_iter())
        .map(|r| Snapshot {
            particles: r.particles,
            state: r.state,
            dropped: r.dropped,
            target: r.target,
        })
        .collect()
}

/// Whether an emitter asks its source for a target (point-to-point and beam emitters).
fn aims(def: &EmitterDef) -> bool {
    def.extras.pull.is_some() || def.extras.beam.is_some()
}

/// The top of step `r.k` (not the first): the emitter sampled at the step's time, everyone
/// alive advanced by one step (semi-implicit Euler), the dead retired. Step boundaries are
/// k / STEP_HZ (not k · dt), so one step's end is the next one's start.
fn age(def: &EmitterDef, src: &dyn EmitterSource, r: &mut Resume) {
    let dt = 1.0 / STEP_HZ as f32;
    let before = r.state.origin;
    r.state = src.state(step_time(r.k));
    r.moved = sub3(r.state.origin, before);
    r.target = aims(def).then(|| src.target(step_time(r.k))).flatten();
    let state = r.state;
    // Attached particles are kept in the emitter's frame as it is now.
    let inverse = def.attached.then(|| Inverse::of(&state));
    let frame = inverse.map(|inv| (&state, inv));
    let wind = scale3(def.extras.wind.map(|c| sane(c, -1e4, 1e4)), dt);
    for p in &mut r.particles {
        p.steps += 1;
        p.age = p.steps as f32 / STEP_HZ as f32;
        if let (Some(pull), Some(path)) = (def.extras.pull, p.path) {
            p.position = super::motion::on_path(pull, &path, p);
            continue;
        }
        if let (Some(pull), Some(target)) = (def.extras.pull, r.target) {
            let at = frame.map_or(p.position, |(s, _)| point(s, p.position));
            super::motion::pull(pull, target, at, dt, p);
        }
        p.velocity = add3(p.velocity, wind);
        // Gravity along −Y of the space the velocity is in: the scene's, or the frame's when
        // the motion turns with the emitter (WebWowViewerCpp's (0, 0, −g) in the emitter's
        // space for model-space particles).
        p.velocity[1] -= p.gravity * dt;
        let keep = 1.0 - (p.drag * dt).min(1.0);
        p.velocity = scale3(p.velocity, keep);
        let from = p.position;
        let step = scale3(p.velocity, dt);
        p.position = add3(
            p.position,
            match inverse {
                // rollnw: a scene displacement, taken into the frame.
                Some(inv) if def.extras.world_motion => inv.vector(step),
                _ => step,
            },
        );
        if let Some(floor) = def.extras.floor {
            super::motion::meet_floor(floor, frame, from, p);
        }
    }
    r.particles.retain(|p| p.age < p.life);
}

/// The spawns of step `r.k`, [now, now + dt).
fn births(def: &EmitterDef, src: &dyn EmitterSource, r: &mut Resume) {
    let dt = 1.0 / STEP_HZ as f32;
    let count = match def.emission {
        _ if !r.state.enabled => 0,
        Emission::Continuous => {
            // Per second, or (NWN spawntype 1) per unit the emitter moved.
            let per = if def.extras.per_distance {
                dot3(r.moved, r.moved).sqrt()
            } else {
                dt
            };
            r.owed += sane(r.state.birthrate, 0.0, 1e5) * sane(per, 0.0, 1e3);
            // A hair of tolerance so a whole particle owed after rounding (6 × 1/6) is born.
            let n = (r.owed + 1e-4).floor();
            r.owed -= n;
            n as u32
        }
        Emission::Single { looping } => {
            let spawn = r.particles.is_empty() && (looping || !r.single_done);
            r.single_done |= spawn;
            spawn as u32
        }
        Emission::Burst => {
            let b = src.bursts(step_time(r.k), step_time(r.k + 1)).min(64);
            (sane(r.state.birthrate, 0.0, POOL_PER_EMITTER as f32) as u32).saturating_mul(b)
        }
    };
    let inverse = def.attached.then(|| Inverse::of(&r.state));
    for _ in 0..count.min(POOL_PER_EMITTER as u32 * 4) {
        if r.particles.len() >= POOL_PER_EMITTER {
            r.dropped += 1;
            continue;
        }
        let mut p = spawn(def, &r.state, src.spline(), inverse, &mut r.rng, r.serial);
        if def.extras.inherit_velocity {
            // The emitter's velocity over the step before (NWN inheritvel).
            let v = scale3(r.moved, STEP_HZ as f32).map(|c| sane(c, -1e4, 1e4));
            let v = match inverse {
                Some(inv) if def.in_frame_motion() => inv.vector(v),
                _ => v,
            };
            p.velocity = add3(p.velocity, v);
        }
        if let (Some(pull), Some(target)) = (def.extras.pull, r.target) {
            let target = inverse.map_or(target, |inv| inv.point(target));
            p.path = super::motion::bezier_path(pull, p.position, target);
        }
        r.particles.push(p);
        r.serial += 1;
    }
}

/// Where a model's emitters' runs have been, per (animation, emitter): a frame late in an
/// animation goes on from the latest point at or before its time rather than from the start,
/// so frame after frame of a long render, or a preview left running, costs at most
/// [`SAVE_EVERY`] steps each instead of every step since the start. Shared by every thread
/// posing the model; whichever thread saves a point first, the point is the same.
#[derive(Debug, Default)]
pub struct SimCache {
    saved: Mutex<Saved>,
}

#[derive(Debug, Default)]
struct Saved {
    /// Per (animation, emitter index), the points kept, in order of step.
    runs: HashMap<(Option<usize>, usize), Vec<Resume>>,
    /// Points kept in all.
    count: usize,
}

impl SimCache {
    /// [`simulate`] each of a model's emitters (`emitters[i]` is emitter `i`) in `animation`,
    /// together, each going on from the latest point saved at or before `time`, and saving
    /// the points they pass.
    pub fn simulate_all(
        &self,
        animation: Option<usize>,
        emitters: &[(&EmitterDef, &dyn EmitterSource)],
        time: f32,
    ) -> Vec<Snapshot> {
        let steps = steps_to(time);
        let runs = (emitters.iter().enumerate())
            .map(|(i, &(def, src))| {
                let from = self.latest((animation, i), steps);
                from.unwrap_or_else(|| Resume::start(i, def, src))
            })
            .collect();
        run(emitters, runs, steps, |i, r| self.save((animation, i), r))
    }

    /// Points kept in all.
    pub fn saved(&self) -> usize {
        self.lock().count
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Saved> {
        self.saved.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn latest(&self, key: (Option<usize>, usize), steps: u32) -> Option<Resume> {
        let saved = self.lock();
        let run = saved.runs.get(&key)?;
        let at = run.partition_point(|r| r.k <= steps);
        at.checked_sub(1).map(|i| run[i].clone())
    }

    fn save(&self, key: (Option<usize>, usize), r: &Resume) {
        let mut saved = self.lock();
        if saved.count >= MAX_SAVED {
            return;
        }
        let run = saved.runs.entry(key).or_default();
        if let Err(at) = run.binary_search_by_key(&r.k, |s| s.k) {
            run.insert(at, r.clone());
            saved.count += 1;
        }
    }
}
