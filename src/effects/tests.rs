use super::*;
use crate::scene::Blend;

/// A constant emitter: every field fixed, bursts at the given times.
struct Fixed {
    state: EmitterState,
    bursts: Vec<f32>,
}

impl EmitterSource for Fixed {
    fn state(&self, _time: f32) -> EmitterState {
        self.state
    }
    fn bursts(&self, from: f32, to: f32) -> u32 {
        self.bursts.iter().filter(|&&t| from <= t && t < to).count() as u32
    }
}

fn def(emission: Emission) -> EmitterDef {
    EmitterDef {
        name: "test".into(),
        emission,
        facing: Facing::Camera,
        blend: Blend::Additive,
        texture: Some(0),
        atlas: Atlas::WHOLE,
        cells: CellAnimation::Rate {
            fps: 0.0,
            first: 0,
            last: 0,
            random: false,
        },
        attached: false,
        extras: Default::default(),
        tail: None,
    }
}

fn fixed(birthrate: f32, life: f32) -> Fixed {
    Fixed {
        state: EmitterState {
            birthrate,
            life,
            ..EmitterState::default()
        },
        bursts: Vec::new(),
    }
}

#[test]
fn continuous_emission_counts_births_and_deaths() {
    // 10 a second, 1 s life: after 0.5 s five are alive, after 3 s ten (the oldest dying).
    let src = fixed(10.0, 1.0);
    let d = def(Emission::Continuous);
    assert_eq!(simulate(0, &d, &src, 0.5).particles.len(), 5);
    let late = simulate(0, &d, &src, 3.0);
    assert_eq!(late.particles.len(), 10);
    assert!(late.particles.iter().all(|p| p.age < 1.0));
    // Ages are whole steps: the youngest was born in the last step.
    let youngest = late.particles.last().unwrap();
    assert!(youngest.age < 0.1 + 1e-4, "{}", youngest.age);
}

#[test]
fn the_pool_caps_live_particles() {
    let src = fixed(10_000.0, 5.0);
    let s = simulate(0, &def(Emission::Continuous), &src, 1.0);
    assert_eq!(s.particles.len(), POOL_PER_EMITTER);
    assert!(s.dropped > 0);
}

#[test]
fn single_emits_once_unless_looping() {
    let src = fixed(0.0, 0.5);
    let once = def(Emission::Single { looping: false });
    assert_eq!(simulate(0, &once, &src, 0.25).particles.len(), 1);
    assert_eq!(simulate(0, &once, &src, 2.0).particles.len(), 0);
    let looping = def(Emission::Single { looping: true });
    let s = simulate(0, &looping, &src, 2.1);
    assert_eq!(s.particles.len(), 1);
    assert_eq!(s.particles[0].serial, 4, "born at 0, 0.5, 1.0, 1.5 and 2.0");
    // At 2.0 exactly the fourth has just died and the fifth is born in the next step.
    assert!(simulate(0, &looping, &src, 2.0).particles.is_empty());
}

#[test]
fn bursts_spawn_birthrate_particles_at_once() {
    let src = Fixed {
        bursts: vec![0.2, 0.3],
        ..fixed(7.0, 1.0)
    };
    let d = def(Emission::Burst);
    assert_eq!(simulate(0, &d, &src, 0.1).particles.len(), 0);
    assert_eq!(simulate(0, &d, &src, 0.25).particles.len(), 7);
    assert_eq!(simulate(0, &d, &src, 0.5).particles.len(), 14);
    assert_eq!(simulate(0, &d, &src, 1.25).particles.len(), 7);
    assert_eq!(simulate(0, &d, &src, 1.5).particles.len(), 0);
}

#[test]
fn motion_follows_speed_and_gravity() {
    // Straight up at 2 units/s with gravity 4: after 0.5 s, y = 2·0.5 − ½·4·0.5² (Euler
    // steps land within a step's worth).
    let mut src = fixed(1000.0, 10.0);
    src.state.speed = 2.0;
    src.state.gravity = 4.0;
    let s = simulate(0, &def(Emission::Continuous), &src, 0.5);
    let oldest = &s.particles[0];
    assert!((oldest.age - 0.5).abs() < 1e-4);
    let want = 2.0 * 0.5 - 0.5 * 4.0 * 0.25;
    assert!(
        (oldest.position[1] - want).abs() < 0.04,
        "{:?}",
        oldest.position
    );
    assert!(oldest.position[0].abs() < 1e-6 && oldest.position[2].abs() < 1e-6);
}

/// Particles launched at speed 1 within `spread` of straight up for 0.2 s (120 of them).
fn launched(spread: f32) -> Snapshot {
    let mut src = fixed(600.0, 10.0);
    src.state.speed = 1.0;
    src.state.spread = spread;
    simulate(0, &def(Emission::Continuous), &src, 0.2)
}

/// Each particle's angle from straight up, smallest first.
fn angles(s: &Snapshot) -> Vec<f32> {
    let mut a: Vec<f32> = (s.particles.iter())
        .map(|p| {
            crate::math::normalize3(p.velocity)[1]
                .clamp(-1.0, 1.0)
                .acos()
        })
        .collect();
    a.sort_by(f32::total_cmp);
    a
}

#[test]
fn spread_keeps_directions_in_the_cone() {
    let s = launched(0.3);
    assert!(s.particles.len() > 100);
    let widest = *angles(&s).last().unwrap();
    assert!(widest <= 0.3 + 1e-4 && widest > 0.2, "{widest}");
}

#[test]
fn a_frame_is_a_pure_function_of_its_time() {
    let mut src = fixed(30.0, 2.0);
    src.state.speed = 1.0;
    src.state.speed_random = 0.5;
    src.state.spread = 1.0;
    let d = def(Emission::Continuous);
    let a = simulate(3, &d, &src, 10.0 / 30.0);
    let b = simulate(3, &d, &src, 10.0 / 30.0);
    assert_eq!(a, b);
    // Another emitter index draws another sequence.
    let c = simulate(4, &d, &src, 10.0 / 30.0);
    assert_ne!(a.particles, c.particles);
    assert_eq!(steps_to(10.0 / 30.0), 20);
}

#[test]
fn over_life_curves_pass_through_their_keys() {
    let c = OverLife {
        start: 0.0f32,
        middle: 1.0,
        end: 0.0,
        mid: 0.25,
    };
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    assert_eq!(c.at(0.0, lerp), 0.0);
    assert_eq!(c.at(0.25, lerp), 1.0);
    assert!((c.at(0.625, lerp) - 0.5).abs() < 1e-6);
    assert_eq!(c.at(1.0, lerp), 0.0);
}

#[test]
fn atlas_cells_cover_the_sheet_row_major() {
    let a = Atlas {
        columns: 4,
        rows: 2,
    };
    assert_eq!(a.cell_uv(0), [[0.0, 0.0], [0.25, 0.5]]);
    assert_eq!(a.cell_uv(5), [[0.25, 0.5], [0.5, 1.0]]);
    assert_eq!(a.cell_uv(8), a.cell_uv(0));
}

#[test]
fn camera_sprites_face_the_camera_with_their_size() {
    let mut src = fixed(1000.0, 1.0);
    src.state.size = OverLife {
        start: [2.0, 4.0],
        middle: [2.0, 4.0],
        end: [2.0, 4.0],
        mid: 0.5,
    };
    src.state.color.start = [0.5; 3];
    src.state.color.middle = [0.5; 3];
    src.state.color.end = [0.5; 3];
    let d = def(Emission::Continuous);
    let snap = simulate(0, &d, &src, 1.0 / 60.0);
    let cam = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];
    let s = sprites(&d, &snap, Some(cam));
    assert!(!s.is_empty());
    let q = &s[0];
    assert_eq!(q.corners[0], [-1.0, 2.0, 0.0]);
    assert_eq!(q.corners[3], [1.0, -2.0, 0.0]);
    assert_eq!(q.uv, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]);
    assert_eq!(q.color, [64; 3]);
}

#[test]
fn additive_sprites_fade_by_colour_and_vanish_at_zero() {
    let mut src = fixed(1000.0, 1.0);
    src.state.alpha = OverLife {
        start: 0.5,
        middle: 0.5,
        end: 0.5,
        mid: 0.5,
    };
    let d = def(Emission::Continuous);
    let snap = simulate(0, &d, &src, 1.0 / 60.0);
    assert_eq!(sprites(&d, &snap, None)[0].color, [64; 3]);
    src.state.alpha.start = 0.0;
    src.state.alpha.middle = 0.0;
    src.state.alpha.end = 0.0;
    let snap = simulate(0, &d, &src, 1.0 / 60.0);
    assert!(sprites(&d, &snap, None).is_empty());
}

/// An emitter whose every field moves with time, with bursts every 7.3 s.
struct Wavy;

impl EmitterSource for Wavy {
    fn state(&self, time: f32) -> EmitterState {
        EmitterState {
            origin: [time.sin(), 0.5 * time, 0.0],
            birthrate: 20.0 + 15.0 * (0.7 * time).sin(),
            life: 1.5 + (0.3 * time).cos(),
            speed: 2.0 + time.cos(),
            gravity: 3.0,
            spread: 0.4,
            ..EmitterState::default()
        }
    }
    fn bursts(&self, from: f32, to: f32) -> u32 {
        ((to / 7.3).floor() - (from / 7.3).floor()) as u32
    }
}

/// Going on from a cache's saved points gives the particles a run from the start gives, bit for
/// bit, whatever order frames are asked in, whichever emitters resume from where, and however
/// many points the cache may keep.
#[test]
fn runs_going_on_from_saved_points_equal_runs_from_the_start() {
    let defs = [
        Emission::Continuous,
        Emission::Burst,
        Emission::Single { looping: true },
    ]
    .map(def);
    let each: Vec<(&EmitterDef, &dyn EmitterSource)> = defs
        .iter()
        .map(|d| (d, &Wavy as &dyn EmitterSource))
        .collect();
    let alone = |t: f32| -> Vec<Snapshot> {
        (defs.iter().enumerate())
            .map(|(i, d)| simulate(i, d, &Wavy, t))
            .collect()
    };
    let times = [
        0.0, 9.99, 10.0, 10.01, 35.5, 20.2, 599.9, 700.0, 3.0, 123.4, 61.0,
    ];
    let cache = SimCache::default();
    for t in times {
        let want = alone(t);
        for animation in [None, Some(3)] {
            assert_eq!(cache.simulate_all(animation, &each, t), want, "{t} s");
        }
    }
    // Each of the six runs kept its points up to the 600 s cap: 60 each.
    assert_eq!(cache.saved(), 6 * 60);
    // Runs resuming at different steps, stepped together: the first emitter has points up to
    // 100 s, the others none.
    let uneven = SimCache::default();
    uneven.simulate_all(Some(1), &each[..1], 100.0);
    for t in [50.0, 75.5, 150.0] {
        assert_eq!(uneven.simulate_all(Some(1), &each, t), alone(t), "{t} s");
    }
    // Past the cap on points kept, runs still equal (from the start or the points kept).
    for animation in 0..20 {
        let got = cache.simulate_all(Some(animation), &each[..1], 599.0);
        assert_eq!(got, alone(599.0)[..1], "animation {animation}");
    }
    assert_eq!(cache.saved(), sim::MAX_SAVED);
}

#[test]
fn each_source_blend_takes_its_ps1_mode() {
    use super::sprites::drawn;
    let white = [1.0; 3];
    // Alpha blending (NWN `normal`; M2 2, 5, 6, 7, tests/m2_effects.rs): B/2 + F/2 while dense,
    // its colour 2a so the foreground term is a·F (rollnw draws `normal` alpha-blended, not
    // additive); B + F/4 once thin (a < 1/4), its colour 4a: still a·F, the background kept.
    // Additive: B + a·F. Opaque and punch-through ignore opacity.
    for (blend, a, (mode, k)) in [
        (Blend::Alpha, 0.4, (Blend::Alpha, 102)),
        (Blend::Alpha, 1.0, (Blend::Alpha, 255)),
        (Blend::Alpha, 0.1, (Blend::AddQuarter, 51)),
        (Blend::Additive, 0.5, (Blend::Additive, 64)),
        (Blend::Cutout, 0.5, (Blend::Cutout, 128)),
    ] {
        assert_eq!(
            drawn(blend, white, a),
            Some((mode, [k; 3])),
            "{blend:?} at {a}"
        );
    }
    // Black smoke halves what lies behind; black light adds nothing.
    assert!(drawn(Blend::Alpha, [0.0; 3], 0.5).is_some());
    assert_eq!(drawn(Blend::Additive, [0.0; 3], 0.5), None);
    // Textures of alpha emitters are placed for both modes.
    assert_eq!(
        drawn_blends(Blend::Alpha),
        [Blend::Alpha, Blend::AddQuarter]
    );
}

#[test]
fn spread_angles_are_uniform_up_to_the_spread() {
    // rollnw particle_system.cpp initial_emission_direction: θ = random in [0, spread], so half
    // the particles leave within spread/2 (uniform over the cap's area put the median at
    // acos((1 + cos 1)/2) = 0.69 for spread 1).
    let a = angles(&launched(1.0));
    let median = a[a.len() / 2];
    assert!((0.42..0.58).contains(&median), "median {median}");
    // Spreads past π reach behind the emitter (NWN 6.28: every direction).
    let s = launched(std::f32::consts::TAU);
    assert!(s.particles.iter().any(|p| p.velocity[1] < -0.5));
}

#[test]
fn without_a_rate_cells_run_once_over_the_life() {
    // rollnw eval_sprite_frame with frames_per_second 0: frame = begin + ⌊t · count⌋ at
    // normalised age t. Cells 4..=7 over a 1 s life: cell 6 at 0.5 s, 7 at 0.99 s.
    let mut d = def(Emission::Continuous);
    d.cells = CellAnimation::Rate {
        fps: 0.0,
        first: 4,
        last: 7,
        random: false,
    };
    let s = simulate(0, &d, &fixed(0.0, 1.0), 0.0);
    assert!(s.particles.is_empty());
    let mut p = spawn(&d, &fixed(0.0, 1.0).state, None, None, &mut Rng(1), 0);
    for (age, want) in [(0.0, 4), (0.3, 5), (0.5, 6), (0.99, 7)] {
        p.age = age;
        assert_eq!(super::sprites::cell(&d, &p), want, "at {age} s");
    }
}

#[test]
fn spinning_particles_start_at_zero() {
    // rollnw starts every NWN particle at rotation 0 (≤ BC M2 records have no start angle
    // either).
    let mut src = fixed(60.0, 5.0);
    src.state.spin = 1.0;
    let d = def(Emission::Continuous);
    let s = simulate(0, &d, &src, 0.5);
    assert!(s.particles.iter().all(|p| p.angle == 0.0));
}

/// An emitter at the origin shooting one particle a step straight up (scene +Y) at 1 unit/s,
/// unturned before 0.5 s and turned 90° about scene Z from then on.
struct Turning;

impl EmitterSource for Turning {
    fn state(&self, time: f32) -> EmitterState {
        let turned = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        EmitterState {
            birthrate: 60.0,
            life: 10.0,
            speed: 1.0,
            turn: if time < 0.5 {
                EmitterState::default().turn
            } else {
                turned
            },
            ..EmitterState::default()
        }
    }
}

#[test]
fn attached_particles_follow_their_emitters_turn() {
    // The first particle after 1 s (60 steps, the turn from step 30 on), in the scene:
    let first = |attached: bool, world_motion: bool| {
        let mut d = def(Emission::Continuous);
        d.attached = attached;
        d.extras.world_motion = world_motion;
        let snap = simulate(0, &d, &Turning, 1.0);
        snap.world_position(&d, &snap.particles[0])
    };
    let near = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-4);
    // Free: straight up, 1 unit.
    assert!(near(first(false, false), [0.0, 1.0, 0.0]));
    // M2 model space (WebWowViewerCpp draws the particle, kept with its velocity in the
    // emitter's space, through the emitter's matrix): the whole path turns, (−1, 0, 0).
    let m2 = first(true, false);
    assert!(near(m2, [-1.0, 0.0, 0.0]), "{m2:?}");
    // rollnw emitter_attached (the position kept through the emitter's transform, each
    // step's motion a world displacement): 29 steps up, turned to −X at step 30, then 31
    // steps up: (−29/60, 31/60, 0). Following the emitter's position alone gives (0, 1, 0).
    let nwn = first(true, true);
    assert!(near(nwn, [-29.0 / 60.0, 31.0 / 60.0, 0.0]), "{nwn:?}");
}
