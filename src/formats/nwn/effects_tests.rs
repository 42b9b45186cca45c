//! NWN emitter fields read as rollnw reads them, each on a hand-written ASCII emitter. The
//! reference values come from rollnw (`lib/nw/render/particle_system.cpp` and
//! `lib/nw/model/mdl_particle_import.cpp`, read at commit 3504a71).

use std::path::Path;

use super::*;
use crate::effects::{simulate, Snapshot};
use crate::formats::LoadOptions;

/// A model of one dummy root and one emitter node with `fields` (one `name value` a line).
fn emitter_model(fields: &str) -> NWNModel {
    let text = format!(
        "newmodel t\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n\
         node emitter e\n  parent t\n{fields}\nendnode\nendmodelgeom t\ndonemodel t\n"
    );
    let path = Path::new("/nonexistent-dir/fx.mdl");
    super::super::load(path, text.as_bytes(), &LoadOptions::default()).unwrap()
}

/// The model's one emitter simulated to `time` seconds of the rest pose.
fn run(m: &NWNModel, time: f32) -> Snapshot {
    let (node, def) = &m.emitters[0];
    simulate(0, def, &AnimatedNode::new(m, *node, None), time)
}

/// The emitter's state at time 0.
fn state(m: &NWNModel) -> crate::effects::EmitterState {
    AnimatedNode::new(m, m.emitters[0].0, None).state(0.0)
}

#[test]
fn mass_is_the_acceleration_itself() {
    // rollnw particle_system.cpp: `velocity.z -= mass * dt` each step, mass as authored. The
    // torch smoke's mass −0.2 over a 2 s life rises ½ · 0.2 · 2² = 0.4 m from rest (× 9.8
    // gave 3.9 m).
    let m = emitter_model("  update Fountain\n  birthrate 60\n  lifeExp 2\n  mass -0.2");
    assert_eq!(state(&m).gravity, -0.2);
    // The oldest is 119 steps old: ½ · 0.2 · (119/60)² ≈ 0.39 m up.
    let s = run(&m, 1.99);
    let top = s
        .particles
        .iter()
        .map(|p| p.position[1])
        .fold(0.0, f32::max);
    assert!((0.38..=0.41).contains(&top), "highest particle {top} m");
}
