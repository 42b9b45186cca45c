//! Hand-written M2 emitters against the values the reference readers give them: wowdev's M2
//! page ("Particle emitters", the `≤ BC` layout) and WebWowViewerCpp's
//! `wowViewerLib/src/engine/managers/particles/` (`particleEmitter.cpp`, `generators/`).

use super::super::track::Track;
use super::super::writer::{SynthBone, SynthModel, SynthSequence, SynthTrack};
use super::*;
use crate::effects::{simulate, Particle};
use crate::formats::error::ErrorKind;
use crate::formats::m2::{self, FORMAT};
use crate::formats::LoadOptions;
use crate::math::dot3;

/// A model with one still bone and a 2 s sequence, for emitters to ride on.
fn host() -> M2Model {
    host_moving(SynthTrack::default())
}

/// The same, its bone's translation `track` (WoW space).
fn host_moving(track: SynthTrack<[f32; 3]>) -> M2Model {
    host_with(SynthBone {
        parent: -1,
        translation: track,
        ..SynthBone::default()
    })
}

/// A model whose one bone is `bone`, with a 2 s sequence.
fn host_with(bone: SynthBone) -> M2Model {
    let synth = SynthModel {
        version: 256,
        name: "Host".into(),
        sequences: vec![SynthSequence {
            start_ms: 0,
            end_ms: 2000,
            ..SynthSequence::default()
        }],
        bones: vec![bone],
        ..SynthModel::default()
    };
    let path = std::env::temp_dir().join("psxrender-m2-effects-host.m2");
    m2::load(&path, &synth.write(), &LoadOptions::default()).unwrap()
}

/// A plane emitter of 60 particles a second living 10 s, leaving at speed 1, with nothing else
/// set.
fn emitter() -> ParticleEmitter {
    let mut tracks: [Track<f32>; 10] = std::array::from_fn(|_| Track::constant(0.0));
    tracks[track_index::SPEED] = Track::constant(1.0);
    tracks[track_index::RATE] = Track::constant(60.0);
    tracks[track_index::LIFESPAN] = Track::constant(10.0);
    ParticleEmitter {
        blend: 4,
        tracks,
        enabled: Track::constant(1.0),
        ..ParticleEmitter::default()
    }
}

/// A point or direction of an emitter's generators (their X, Y, Z) on a still bone, in the
/// scene: WebWowViewerCpp's `m2Object.cpp` turns them a quarter about Z
/// (`particleCoordinatesFix`), X to the bone's Y and Y to its −X.
fn generator(v: [f32; 3]) -> [f32; 3] {
    to_scene([-v[1], v[0], v[2]])
}

/// `e`'s live particles after `seconds` on `host`'s sequence.
fn run(m: &M2Model, e: &ParticleEmitter, seconds: f32) -> Vec<Particle> {
    let src = M2Emitter::new(m, e, Some(0));
    simulate(0, &emitter_def(0, e), &src, seconds).particles
}

/// A file of `version` whose one particle record has bytes `record` (its tracks all empty).
fn file_with_particle(version: u32, record: &[(usize, &[u8])]) -> Vec<u8> {
    let mut d = vec![0u8; 0x200];
    d[0..4].copy_from_slice(b"MD20");
    d[4..8].copy_from_slice(&version.to_le_bytes());
    let at = d.len();
    d.resize(at + PARTICLE_SIZE as usize, 0);
    // Every track without a global sequence (-1), the ten from 0x34 and "enabled in".
    for t in (0..10).map(|k| 0x34 + 0x1C * k).chain([0x1DC]) {
        d[at + t + 2..at + t + 4].copy_from_slice(&(-1i16).to_le_bytes());
    }
    for (o, bytes) in record {
        d[at + o..at + o + bytes.len()].copy_from_slice(bytes);
    }
    let ofs = OFS_PARTICLES as usize;
    d[ofs..ofs + 4].copy_from_slice(&1u32.to_le_bytes());
    d[ofs + 4..ofs + 8].copy_from_slice(&(at as u32).to_le_bytes());
    d
}

fn parse_particle(d: &[u8], version: u32) -> ParticleEmitter {
    let r = Reader::new(d, FORMAT);
    let budget = ReadBudget::new(FORMAT, m2::BUDGET_RATE, r.len());
    let x = parse(&r, &budget, version, 0, 1, 1).unwrap();
    x.particles[0].clone()
}

#[test]
fn emitter_type_is_a_u16_at_0x2a_before_version_263() {
    // wowdev ≤ BC (and WebWowViewerCpp's M2ParticleOld comment): before 263 blend and emitter
    // type are u16s at 0x28 and 0x2A; from 263 bytes at 0x28 and 0x29, a particle colour index
    // at 0x2A. A v256 sphere with additive blend: 4u16, 2u16.
    let v256 = file_with_particle(256, &[(0x28, &[4, 0, 2, 0])]);
    let p = parse_particle(&v256, 256);
    assert_eq!((p.blend, p.kind), (4, 2));
    // The same emitter in a 263 file, colour index 11.
    let v263 = file_with_particle(263, &[(0x28, &[4, 2, 11, 0])]);
    let p = parse_particle(&v263, 263);
    assert_eq!((p.blend, p.kind), (4, 2));
}

#[test]
fn an_emitter_type_without_a_generator_emits_nothing() {
    // WebWowViewerCpp builds generators for types 1–3 only; any other draws nothing.
    let m = host();
    let mut e = emitter();
    assert!(!run(&m, &e, 1.0).is_empty());
    e.kind = 0;
    assert!(run(&m, &e, 1.0).is_empty());
}

#[test]
fn a_horizontal_range_of_0_is_a_flat_fan() {
    // CPlaneGenerator: polar = verticalRange · U(−1, 1), azimuth = horizontalRange · U(−1, 1),
    // velocity (cos az · sin pol, sin az · sin pol, cos pol): with horizontal range 0 every
    // velocity lies in the generators' X–Z plane (no component along their Y, the bone's −X).
    let m = host();
    let mut e = emitter();
    e.tracks[track_index::VERTICAL_RANGE] = Track::constant(0.8);
    let ps = run(&m, &e, 1.0);
    assert!(ps.len() > 50);
    let gen_y = generator([0.0, 1.0, 0.0]);
    let gen_x = generator([1.0, 0.0, 0.0]);
    for p in &ps {
        assert!(dot3(p.velocity, gen_y).abs() < 1e-5, "{:?}", p.velocity);
    }
    // Spread over the fan: some lean toward +X, some toward −X, as far as sin 0.8.
    let side: Vec<f32> = ps.iter().map(|p| dot3(p.velocity, gen_x)).collect();
    assert!(side.iter().any(|v| *v > 0.4) && side.iter().any(|v| *v < -0.4));
    assert!(side.iter().all(|v| v.abs() <= crate::math::sin(0.8) + 1e-5));
}

#[test]
fn generators_are_a_quarter_turn_from_their_bone() {
    // WebWowViewerCpp's m2Object.cpp: each emitter is drawn through its bone times
    // `particleCoordinatesFix` (columns (0,1,0), (−1,0,0), (0,0,1): "actually there in the
    // client"). A plane 2 long and 0 wide on a still bone starts particles along WoW Y, up to
    // ±1, with no WoW X part; through the bone alone they would lie along WoW X.
    let mut e = emitter();
    e.tracks[track_index::SPEED] = Track::constant(0.0);
    e.tracks[track_index::AREA_LENGTH] = Track::constant(2.0);
    let ps = run(&host(), &e, 1.0);
    assert!(ps.len() > 50);
    let [wow_x, wow_y] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].map(to_scene);
    for p in &ps {
        assert!(dot3(p.position, wow_x).abs() < 1e-5, "{:?}", p.position);
        assert!(
            dot3(p.position, wow_y).abs() <= 1.0 + 1e-5,
            "{:?}",
            p.position
        );
    }
    let along: Vec<f32> = ps.iter().map(|p| dot3(p.position, wow_y)).collect();
    assert!(along.iter().any(|v| *v > 0.5) && along.iter().any(|v| *v < -0.5));
}

#[test]
fn wind_adds_to_every_particles_velocity_each_second() {
    // wowdev ≤ BC: `WindVector` is three floats at 0x1B4. WebWowViewerCpp's
    // particleEmitter.cpp (`CalculateForces`, `UpdateParticle`) adds WindVector · dt to each
    // particle's velocity every update: wind (2, 0, 0) on particles leaving at speed 0 gives a
    // particle of age a the velocity 2a along WoW X (without it they stay still).
    let mut wind = Vec::new();
    for v in [2.0f32, 0.0, 0.0] {
        wind.extend_from_slice(&v.to_le_bytes());
    }
    let parsed = parse_particle(&file_with_particle(256, &[(0x1B4, &wind)]), 256);
    assert_eq!(parsed.wind, [2.0, 0.0, 0.0]);
    let mut e = ParticleEmitter {
        wind: parsed.wind,
        ..emitter()
    };
    e.tracks[track_index::SPEED] = Track::constant(0.0);
    let ps = run(&host(), &e, 1.0);
    assert!(ps.len() > 50);
    let x = to_scene([1.0, 0.0, 0.0]);
    for p in &ps {
        let along = dot3(p.velocity, x);
        assert!((along - 2.0 * p.age).abs() < 1e-4, "{p:?}");
        assert!(
            (dot3(p.velocity, p.velocity) - along * along).abs() < 1e-6,
            "{p:?}"
        );
    }
}

#[test]
fn a_sphere_emitter_starts_particles_on_its_radius_leaving_outward() {
    // CSphereGenerator: radius = areaLength + (areaWidth − areaLength) · U(0, 1) (here 0.5..0.5),
    // direction (cos pol · cos az, cos pol · sin az, sin pol), position = direction · radius;
    // the velocity leaves outward. Horizontal range π, vertical ±0.3.
    let m = host();
    let mut e = emitter();
    e.kind = 2;
    e.tracks[track_index::AREA_LENGTH] = Track::constant(0.5);
    e.tracks[track_index::AREA_WIDTH] = Track::constant(0.5);
    e.tracks[track_index::VERTICAL_RANGE] = Track::constant(0.3);
    e.tracks[track_index::HORIZONTAL_RANGE] = Track::constant(std::f32::consts::PI);
    e.tracks[track_index::SPEED] = Track::constant(0.0);
    let ps = run(&m, &e, 0.5);
    assert!(ps.len() > 20);
    let up = to_scene([0.0, 0.0, 1.0]);
    for p in &ps {
        let r = dot3(p.position, p.position).sqrt();
        assert!((r - 0.5).abs() < 1e-4, "radius {r}");
        // Elevation within ±0.3 of the X–Y plane.
        assert!(dot3(p.position, up).abs() <= 0.5 * crate::math::sin(0.3) + 1e-4);
    }
}

#[test]
fn cell_keys_are_start_end_repeat_runs_split_at_the_midpoint() {
    // wowdev ≤ BC: lifespanUVAnim = start, end, repeat (up to the midpoint), then decayUVAnim.
    // A 4 × 2 sheet, life run 0..=3 twice, decay run cell 5, midpoint 0.5, life 1 s: at 20% of
    // the life (40% of the first half, 8 steps) cell 3; at 30% (60%) cell 0 again (the second
    // repeat); after the midpoint cell 5. Read as birth/middle/death keys, 20% would be cell 1.
    let m = host();
    let mut e = emitter();
    e.tiles = [2, 4];
    e.cells = [0, 3, 2];
    e.decay_cells = [5, 5, 1];
    e.tracks[track_index::LIFESPAN] = Track::constant(1.0);
    let def = emitter_def(0, &e);
    let src = M2Emitter::new(&m, &e, Some(0));
    let snap = simulate(0, &def, &src, 0.95);
    let sprites = crate::effects::sprites(&def, &snap, None);
    assert_eq!(sprites.len(), snap.particles.len());
    // First half: 2 × 4 steps over 0..0.5, each 1/16 of the life.
    let want = |f: f32| {
        if f <= 0.5 {
            ((f * 16.0) as u32).min(7) % 4
        } else {
            5
        }
    };
    let mut seen = [false; 8];
    for (p, s) in snap.particles.iter().zip(&sprites) {
        let f = p.progress();
        // Away from the step edges, where float rounding may fall either way.
        if ((f * 16.0) - (f * 16.0).round()).abs() < 0.01 {
            continue;
        }
        let c = want(f);
        seen[c as usize] = true;
        assert_eq!(s.uv[0], def.atlas.cell_uv(c)[0], "progress {f}");
    }
    assert!(seen[0] && seen[3] && seen[5]);
}

#[test]
fn spin_is_turns_over_a_particles_life() {
    // wowdev ≤ BC: spin 1.0 rotates a particle 360° over its lifetime, from an angle of 0 (the
    // record has no base spin). Spin 0.5 and a 2 s life: half a turn by death, π/2 after 1 s.
    let m = host();
    let mut e = emitter();
    e.spin = 0.5;
    e.tracks[track_index::LIFESPAN] = Track::constant(2.0);
    let ps = run(&m, &e, 1.0);
    assert!(!ps.is_empty());
    for p in &ps {
        assert_eq!(p.angle, 0.0);
        let turned = p.spin * p.life;
        assert!((turned - std::f32::consts::PI).abs() < 1e-4, "{turned}");
    }
}

/// A model whose one bone slides along WoW +Y at 1 unit a second over its 2 s sequence.
fn moving_host() -> M2Model {
    host_moving(SynthTrack {
        interpolation: 1,
        global_sequence: -1,
        ranges: vec![(0, 1)],
        times: vec![0, 2000],
        values: vec![[0.0; 3], [0.0, 2.0, 0.0]],
    })
}

#[test]
fn model_space_particles_move_with_their_emitter() {
    // WebWowViewerCpp (flag 0x10): particles are kept in the emitter's space, so a still
    // particle rides along with its bone; without the flag it stays where it was born. Speed
    // 0, the bone 1 unit/s along WoW +Y: after 1 s the first particle is 1 unit from where it
    // was born, at the emitter.
    let m = moving_host();
    let mut e = emitter();
    e.tracks[track_index::SPEED] = Track::constant(0.0);
    let world = |e: &ParticleEmitter| {
        let def = emitter_def(0, e);
        let src = M2Emitter::new(&m, e, Some(0));
        let snap = simulate(0, &def, &src, 1.0);
        let p = &snap.particles[0];
        (snap.world_position(&def, p), snap.state.origin)
    };
    let (free, origin) = world(&e);
    assert!(dot3(free, free).sqrt() < 0.05, "{free:?}");
    e.flags = flag::MODEL_SPACE;
    let (carried, _) = world(&e);
    let d = crate::math::sub3(carried, origin);
    assert!(dot3(d, d).sqrt() < 1e-4, "{carried:?} vs {origin:?}");
    assert!((dot3(origin, origin).sqrt() - 1.0).abs() < 0.02);
}

#[test]
fn model_space_particles_turn_with_their_bone() {
    // WebWowViewerCpp (flag 0x10): a particle keeps its position and velocity in the
    // emitter's space and is drawn through the bone's whole matrix. The bone turns 90° about
    // WoW X over the first second; a particle born at 0 leaving along the emitter's Z at
    // speed 1 is, after 1 s, one unit along the turned Z: WoW (0, −1, 0), moving that way.
    // Without the flag (or following the bone's position alone) it is at WoW (0, 0, 1).
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let m = host_turning(SynthTrack {
        interpolation: 1,
        global_sequence: -1,
        ranges: vec![(0, 1)],
        times: vec![0, 1000],
        values: vec![[0.0, 0.0, 0.0, 1.0], [s, 0.0, 0.0, s]],
    });
    let first = |e: &ParticleEmitter| {
        let def = emitter_def(0, e);
        let src = M2Emitter::new(&m, e, Some(0));
        let snap = simulate(0, &def, &src, 1.0);
        let p = &snap.particles[0];
        (snap.world_position(&def, p), snap.world_velocity(&def, p))
    };
    let near = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-3);
    let mut e = emitter();
    let (free, _) = first(&e);
    assert!(near(free, to_scene([0.0, 0.0, 1.0])), "{free:?}");
    e.flags = flag::MODEL_SPACE;
    let (at, velocity) = first(&e);
    assert!(near(at, to_scene([0.0, -1.0, 0.0])), "{at:?}");
    assert!(near(velocity, to_scene([0.0, -1.0, 0.0])), "{velocity:?}");
}

/// A model like [`host`] whose bone turns by the `rotation` track.
fn host_turning(rotation: SynthTrack<[f32; 4]>) -> M2Model {
    host_with(SynthBone {
        parent: -1,
        rotation,
        ..SynthBone::default()
    })
}

/// The sprites of `e` on `host` after 0.5 s, seen by the default camera (down scene −Z).
fn drawn(e: &ParticleEmitter) -> Vec<crate::scene::Sprite> {
    let m = host();
    let def = emitter_def(0, e);
    let src = M2Emitter::new(&m, e, Some(0));
    crate::effects::sprites(&def, &simulate(0, &def, &src, 0.5), None)
}

#[test]
fn flat_quads_lie_in_the_emitter_plane() {
    // WebWowViewerCpp (flag 0x1000): the quad's axes are the emitter's X and Y, not the
    // camera's. The emitter's Z is WoW up (scene +Y): every corner of a flat quad is level with
    // its centre, where a camera-facing quad spans scene Y.
    let mut e = emitter();
    e.tracks[track_index::AREA_LENGTH] = Track::constant(0.2);
    e.tracks[track_index::AREA_WIDTH] = Track::constant(0.2);
    let height = |s: &crate::scene::Sprite| s.corners[0][1] - s.corners[2][1];
    assert!(drawn(&e).iter().all(|s| height(s).abs() > 1.0));
    e.flags = flag::FLAT;
    let flat = drawn(&e);
    assert!(!flat.is_empty());
    for s in &flat {
        assert!(s
            .corners
            .iter()
            .all(|c| (c[1] - s.corners[0][1]).abs() < 1e-5));
    }
}

#[test]
fn velocity_aligned_quads_point_along_their_motion() {
    // WebWowViewerCpp (flag 0x4, without 0x1000): one quad axis is the velocity seen from the
    // camera. Particles leaving within ±π/2 of up with horizontal range 0 move in the scene's
    // X–Y plane, square to the default camera: each quad's upright edge lies along its
    // particle's velocity, where a camera-facing quad keeps it on scene Y.
    let m = host();
    let mut e = emitter();
    e.tracks[track_index::VERTICAL_RANGE] = Track::constant(std::f32::consts::FRAC_PI_2);
    e.flags = flag::VELOCITY_ALIGNED;
    let def = emitter_def(0, &e);
    let src = M2Emitter::new(&m, &e, Some(0));
    let snap = simulate(0, &def, &src, 0.5);
    let ss = crate::effects::sprites(&def, &snap, None);
    assert_eq!(ss.len(), snap.particles.len());
    let mut tilted = 0;
    for (p, s) in snap.particles.iter().zip(&ss) {
        let up = crate::math::normalize3(crate::math::sub3(s.corners[0], s.corners[2]));
        let v = crate::math::normalize3(p.velocity);
        assert!(dot3(up, v).abs() > 1.0 - 1e-4, "{up:?} vs {v:?}");
        tilted += usize::from(v[1].abs() < 0.9);
    }
    assert!(tilted > 10, "{tilted} particles leave away from up");
}

#[test]
fn random_cell_flags_offset_cells_per_particle_or_per_emitter() {
    // WebWowViewerCpp: 0x10000 gives each particle a random cell; 0x8000 shifts the whole
    // emitter's cells by one random offset. An 8-cell sheet whose runs stay on cell 0.
    let mut e = emitter();
    e.tiles = [2, 4];
    let cells = |e: &ParticleEmitter| {
        let def = emitter_def(0, e);
        let mut seen: Vec<[f32; 2]> = drawn(e).iter().map(|s| s.uv[0]).collect();
        seen.sort_by(|a, b| a.partial_cmp(b).unwrap());
        seen.dedup();
        (def, seen)
    };
    let (def, plain) = cells(&e);
    assert_eq!(plain, vec![def.atlas.cell_uv(0)[0]]);
    e.flags = flag::RANDOM_CELL;
    assert!(cells(&e).1.len() >= 6, "per particle");
    e.flags = flag::RANDOM_OFFSET;
    let (def, one) = cells(&e);
    assert_eq!(one.len(), 1, "one offset for the emitter");
    let CellAnimation::Intervals { offset, .. } = def.cells else {
        panic!("{:?}", def.cells)
    };
    assert_ne!(
        offset, 0,
        "emitter 0's offset (this test needs one that moves the cell)"
    );
    assert_eq!(one[0], def.atlas.cell_uv(offset)[0]);
}

#[test]
fn tail_particles_trail_their_velocity() {
    // WebWowViewerCpp (buildVertex2): a tail spans from the particle back along its velocity
    // for tailLength seconds, as wide as the particle; wowdev ≤ BC headOrTail 1 draws only
    // tails, 2 heads and tails. Particles rising at 1 unit/s with tail length 0.5: each tail
    // runs from the particle 0.5 down, 2 units (the quad's width) across.
    let m = host();
    let mut e = emitter();
    e.head_or_tail = 1;
    e.tail_length = 0.5;
    let def = emitter_def(0, &e);
    let src = M2Emitter::new(&m, &e, Some(0));
    let snap = simulate(0, &def, &src, 0.5);
    let tails = crate::effects::sprites(&def, &snap, None);
    assert_eq!(tails.len(), snap.particles.len());
    // Corner 0 (u = 0) at the particle, corner 1 (u = 1) the tail's end, corner 2 across.
    for (p, s) in snap.particles.iter().zip(&tails) {
        let (head, end) = (s.corners[0][1], s.corners[1][1]);
        assert!(
            (head - p.position[1]).abs() < 1e-4,
            "{head} vs {:?}",
            p.position
        );
        assert!((head - end - 0.5).abs() < 1e-4, "{}", head - end);
        assert!(((s.corners[2][0] - s.corners[0][0]).abs() - 2.0).abs() < 1e-4);
    }
    let e = ParticleEmitter {
        head_or_tail: 2,
        ..e
    };
    let def = emitter_def(0, &e);
    let src = M2Emitter::new(&m, &e, Some(0));
    let both = crate::effects::sprites(&def, &simulate(0, &def, &src, 0.5), None);
    assert_eq!(both.len(), 2 * snap.particles.len());
}

/// A file of `version` whose particle record's spline array (0x1D4) says `count` points at
/// `offset` (0: right after the record), followed by `points`.
fn file_with_spline(version: u32, count: u32, offset: u32, points: &[[f32; 3]]) -> Vec<u8> {
    let after = 0x200 + PARTICLE_SIZE as u32;
    let offset = if offset == 0 { after } else { offset };
    let (c, o) = (count.to_le_bytes(), offset.to_le_bytes());
    // Emitter type 3: a u16 at 0x2A before 263, a byte at 0x29 from it.
    let kind: (usize, &[u8]) = if version >= 263 {
        (0x29, &[3])
    } else {
        (0x2A, &[3, 0])
    };
    let mut d = file_with_particle(version, &[(0x1D4, &c), (0x1D8, &o), kind]);
    for v in points.iter().flatten() {
        d.extend_from_slice(&v.to_le_bytes());
    }
    d
}

/// A curved one-segment spline (WoW axes): up, across, down.
const ARCH: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 1.0],
    [1.0, 0.0, 0.0],
];

#[test]
fn spline_points_are_read_at_0x1d4_in_every_version() {
    // wowdev ≤ BC and WebWowViewerCpp's M2ParticleOld: `M2Array<C3Vector> splinePoints` just
    // before the "enabled in" track (0x1DC), for 256 through 263 alike.
    for version in [256, 260, 263] {
        let d = file_with_spline(version, 4, 0, &ARCH);
        assert_eq!(parse_particle(&d, version).spline.points(), ARCH);
    }
}

#[test]
fn bad_spline_arrays_are_refused_where_they_are_read() {
    let at = 0x200 + 0x1D4;
    let refused = |d: Vec<u8>| {
        let r = Reader::new(&d, FORMAT);
        let budget = ReadBudget::new(FORMAT, m2::BUDGET_RATE, r.len());
        parse(&r, &budget, 256, 0, 1, 1).unwrap_err()
    };
    // More points than the cap.
    let n = MAX_SPLINE_POINTS as u32 + 1;
    let e = refused(file_with_spline(256, n, 0, &[]));
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    assert_eq!(e.offset, at);
    // Four points said, three there.
    let e = refused(file_with_spline(256, 4, 0, &ARCH[..3]));
    assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");
    assert_eq!(e.offset, at);
    // The same array on a plane emitter is never read (nor is it by WebWowViewerCpp).
    let mut d = file_with_spline(256, 4, 0, &ARCH[..3]);
    d[0x200 + 0x2A] = 1;
    assert!(parse_particle(&d, 256).spline.points().is_empty());
}

/// A spline emitter (type 3) along `points`, its particles still (speed 0).
fn spline_emitter(points: &[[f32; 3]]) -> ParticleEmitter {
    let mut e = emitter();
    e.kind = 3;
    e.spline = crate::effects::Spline::new(points.to_vec());
    e.tracks[track_index::SPEED] = Track::constant(0.0);
    e
}

#[test]
fn a_spline_emitter_starts_particles_on_its_spline() {
    // CSplineGenerator: the fraction along the spline is drawn between the area length and
    // width (clamped to 0..1); C3Spline_Bezier3 with one segment takes it as the Bézier
    // parameter. Length = width = 0.5 on ARCH: every particle at
    // 0.125·P0 + 0.375·P1 + 0.375·P2 + 0.125·P3 = (0.5, 0, 0.75); a plane generator would
    // spread them over a 0.5 × 0.5 square about the emitter instead.
    let m = host();
    let mut e = spline_emitter(&ARCH);
    e.tracks[track_index::AREA_LENGTH] = Track::constant(0.5);
    e.tracks[track_index::AREA_WIDTH] = Track::constant(0.5);
    let ps = run(&m, &e, 0.5);
    assert!(ps.len() > 20);
    let want = generator([0.5, 0.0, 0.75]);
    for p in &ps {
        let d = crate::math::sub3(p.position, want);
        assert!(dot3(d, d).sqrt() < 1e-5, "{:?}", p.position);
    }
    // With no vertical range and no Z source a particle leaves along the emitter's Z.
    e.tracks[track_index::SPEED] = Track::constant(1.0);
    let up = to_scene([0.0, 0.0, 1.0]);
    for p in run(&m, &e, 0.5) {
        assert!(
            (dot3(p.velocity, up) - 1.0).abs() < 1e-5,
            "{:?}",
            p.velocity
        );
    }
}

#[test]
fn a_spline_of_several_segments_is_measured_along_its_length() {
    // C3Spline::arclengthSegT: with more than one segment the fraction is of the summed
    // lengths. Two straight segments along X, 0 → 1 and 1 → 4 (control points evenly spaced):
    // half of the length 4 is 1 into the second segment, x = 2 (a per-segment fraction would
    // give x = 1).
    let line = [0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0, 2.0, 3.0, 4.0].map(|x| [x, 0.0, 0.0]);
    let mut e = spline_emitter(&line);
    e.tracks[track_index::AREA_LENGTH] = Track::constant(0.5);
    e.tracks[track_index::AREA_WIDTH] = Track::constant(0.5);
    let ps = run(&host(), &e, 0.25);
    assert!(!ps.is_empty());
    let want = generator([2.0, 0.0, 0.0]);
    for p in &ps {
        let d = crate::math::sub3(p.position, want);
        assert!(dot3(d, d).sqrt() < 1e-3, "{:?}", p.position);
    }
}

#[test]
fn a_spline_vertical_range_turns_z_about_the_tangent() {
    // CSplineGenerator: with a vertical range the velocity is Z turned about the spline's
    // tangent by U(−1, 1) · range. ARCH's tangent at 0.5 is WoW X, so every velocity lies in
    // the Y–Z plane (no X part), at most 0.6 rad from Z. A plane emitter's fan (horizontal
    // range 0) lies in the X–Z plane instead.
    let mut e = spline_emitter(&ARCH);
    e.tracks[track_index::SPEED] = Track::constant(1.0);
    e.tracks[track_index::AREA_LENGTH] = Track::constant(0.5);
    e.tracks[track_index::AREA_WIDTH] = Track::constant(0.5);
    e.tracks[track_index::VERTICAL_RANGE] = Track::constant(0.6);
    let ps = run(&host(), &e, 1.0);
    assert!(ps.len() > 50);
    let [x, y, z] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].map(generator);
    for p in &ps {
        assert!(dot3(p.velocity, x).abs() < 1e-5, "{:?}", p.velocity);
        assert!(dot3(p.velocity, z) >= crate::math::cos(0.6) - 1e-5);
    }
    let side: Vec<f32> = ps.iter().map(|p| dot3(p.velocity, y)).collect();
    assert!(side.iter().any(|v| *v > 0.3) && side.iter().any(|v| *v < -0.3));
}

#[test]
fn a_moving_spline_width_places_each_birth_at_the_width() {
    // CSplineGenerator: when the area width differs from its value at the last birth, the
    // particle starts at that fraction itself (no random draw). A width rising 0 → 1 over the
    // 2 s sequence on a straight one-segment spline 0 → 3 along X: a particle born at t sits
    // at x = 3 · t / 2.
    let line = [0.0, 1.0, 2.0, 3.0].map(|x| [x, 0.0, 0.0]);
    let mut e = spline_emitter(&line);
    e.tracks[track_index::AREA_WIDTH] = Track {
        interpolation: crate::formats::m2::track::Interpolation::Linear,
        global_sequence: None,
        ranges: vec![(0, 1)],
        times: vec![0, 2000],
        values: vec![0.0, 1.0],
        tangents: Vec::new(),
    };
    let ps = run(&host(), &e, 1.0);
    assert!(ps.len() > 50);
    // Tracks are sampled in whole milliseconds: up to 1 ms early, 1.5e-3 along X.
    let x = generator([1.0, 0.0, 0.0]);
    for p in &ps {
        let born = 1.0 - p.age;
        assert!((dot3(p.position, x) - 1.5 * born).abs() < 2e-3, "{p:?}");
    }
}

#[test]
fn twinkle_hides_particles_above_its_percent_and_scales_the_rest() {
    // wowdev ≤ BC: `TwinkleSpeed` @0x180, `TwinklePercent` @0x184, the twinkle scale range
    // @0x188. WebWowViewerCpp's particleEmitter.cpp (`CalculateParticlePreRenderData`) draws a
    // particle only while TwinklePercent ≥ RandTable[0x7f & (int(age · speed) + seed)], its
    // scale times (max − min) · that value + min: percent 0.5 shows about half the particles,
    // each 2 to 2.5 times its own size (without the rule every particle shows, 2 to 3 times).
    let mut bytes = Vec::new();
    for v in [4.0f32, 0.5, 2.0, 3.0] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let parsed = parse_particle(&file_with_particle(256, &[(0x180, &bytes)]), 256);
    let read = (
        parsed.twinkle_speed,
        parsed.twinkle_percent,
        parsed.twinkle_scale,
    );
    assert_eq!(read, (4.0, 0.5, [2.0, 3.0]));
    let m = host();
    let edges = |e: &ParticleEmitter| -> Vec<f32> {
        let (def, src) = (emitter_def(0, e), M2Emitter::new(&m, e, Some(0)));
        let sprites = crate::effects::sprites(&def, &simulate(0, &def, &src, 1.0), None);
        let edge = |s: &crate::scene::Sprite| {
            let d = crate::math::sub3(s.corners[1], s.corners[0]);
            dot3(d, d).sqrt()
        };
        sprites.iter().map(edge).collect()
    };
    let plain = edges(&emitter());
    assert!(plain.len() > 50);
    let twinkled = edges(&ParticleEmitter {
        twinkle_speed: parsed.twinkle_speed,
        twinkle_percent: parsed.twinkle_percent,
        twinkle_scale: parsed.twinkle_scale,
        ..emitter()
    });
    let shown = twinkled.len() as f32 / plain.len() as f32;
    assert!(
        (0.3..=0.7).contains(&shown),
        "{shown} of the particles shown"
    );
    let unit = plain[0];
    assert!(plain.iter().all(|l| (l - unit).abs() < 1e-4));
    for l in &twinkled {
        assert!(
            (2.0 * unit - 1e-4..=2.5 * unit + 1e-4).contains(l),
            "{l} against {unit}"
        );
    }
}
