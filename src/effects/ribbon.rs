//! Ribbons (M2 ribbon emitters): a strip trailing behind a moving emitter. Like particles, a
//! pure function of the time: edges are laid at `edges_per_second` from the animation's start
//! in whole [`STEP_HZ`] steps; each keeps where the emitter was at its birth (its top `above`
//! and bottom `below` along the emitter's up axis), falls by `gravity`, and dies after
//! `edge_life` seconds. The strip runs from the emitter's current edge back through the live
//! edges, oldest last; each segment is one quad, its texture stretched along the strip from
//! u = 0 at the emitter to u = 1 one edge life behind; the whole strip takes the emitter's
//! current colour and opacity (blended as particles are: [`super::drawn_blends`]).

use super::{sane, steps_to, POOL_PER_EMITTER, STEP_HZ};
use crate::math::{add3, scale3, sub3};
use crate::scene::{Blend, Sprite};

/// What never changes about a ribbon emitter.
#[derive(Clone, Debug, PartialEq)]
pub struct RibbonDef {
    /// Name (for `info`).
    pub name: String,
    /// Edges laid a second.
    pub edges_per_second: f32,
    /// Seconds an edge lives.
    pub edge_life: f32,
    /// Downward acceleration of edges (scene −Y).
    pub gravity: f32,
    /// Texture index, `None` = untextured.
    pub texture: Option<usize>,
    /// How it blends.
    pub blend: Blend,
}

/// A ribbon emitter at one moment, in scene space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RibbonState {
    /// Where it is.
    pub origin: [f32; 3],
    /// Its up axis (unit).
    pub up: [f32; 3],
    /// Extent above the origin.
    pub above: f32,
    /// Extent below the origin.
    pub below: f32,
    /// Colour, 0..1.
    pub color: [f32; 3],
    /// Opacity, 0..1.
    pub alpha: f32,
    /// Drawn at all.
    pub visible: bool,
}

/// What a format's ribbon emitter reports over time.
pub trait RibbonSource {
    /// The emitter `time` seconds after the animation's start.
    fn state(&self, time: f32) -> RibbonState;
}

/// One edge of the strip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// Top end.
    pub top: [f32; 3],
    /// Bottom end.
    pub bottom: [f32; 3],
    /// Seconds since it was laid.
    pub age: f32,
    /// Downward speed.
    pub fall: f32,
    /// Colour it was laid with, 0..1.
    pub color: [f32; 3],
    /// Opacity it was laid with, 0..1.
    pub alpha: f32,
}

fn edge_of(s: &RibbonState) -> Edge {
    let finite = |v: f32| {
        if v.is_finite() {
            v.clamp(-1e4, 1e4)
        } else {
            0.0
        }
    };
    Edge {
        top: add3(s.origin, scale3(s.up, finite(s.above))),
        bottom: sub3(s.origin, scale3(s.up, finite(s.below))),
        age: 0.0,
        fall: 0.0,
        color: s.color.map(|c| finite(c).clamp(0.0, 2.0)),
        alpha: finite(s.alpha).clamp(0.0, 1.0),
    }
}

/// The live edges `time` seconds in, newest first, starting with the emitter's own edge.
pub fn edges(def: &RibbonDef, src: &dyn RibbonSource, time: f32) -> Vec<Edge> {
    edges_all(&[(def, src)], time).pop().expect("one ribbon")
}

/// [`edges`] of each of a model's ribbons, stepped together (one step of each before the next
/// step of any, so a source sampled for one ribbon is sampled for the next at the same moment
/// and a model's pose can be shared). Each ribbon is stepped only over the steps whose edges
/// can still live at `time` (its edge life, and two steps more): an edge's fall counts only
/// the steps since it was laid, and whether a step lays one depends only on the fraction
/// owed, carried over the steps before by itself. So a frame costs an edge life of steps, not
/// every step since the start.
pub fn edges_all(ribbons: &[(&RibbonDef, &dyn RibbonSource)], time: f32) -> Vec<Vec<Edge>> {
    let steps = steps_to(time);
    let mut runs: Vec<Run> = ribbons
        .iter()
        .map(|(def, _)| Run::new(def, steps))
        .collect();
    let first = runs.iter().map(|r| r.k).min().unwrap_or(steps);
    for k in first..steps {
        for (run, (_, src)) in runs.iter_mut().zip(ribbons) {
            if run.k == k {
                run.step(*src);
            }
        }
    }
    (runs.into_iter().zip(ribbons))
        .map(|(run, (_, src))| run.finish(*src, steps))
        .collect()
}

/// One ribbon's edges as its steps go by.
struct Run {
    /// The next step.
    k: u32,
    /// Edges alive, oldest first, with the step each was laid in.
    laid: Vec<(u32, Edge)>,
    /// The fraction of an edge owed.
    owed: f32,
    rate: f32,
    life: f32,
    gravity: f32,
}

impl Run {
    /// A ribbon of `def` to be stepped up to step `steps`, from the first step whose edge may
    /// live until then.
    fn new(def: &RibbonDef, steps: u32) -> Run {
        let rate = sane(def.edges_per_second, 0.0, STEP_HZ as f32);
        let life = sane(def.edge_life, 0.0, super::MAX_LIFE);
        let gravity = sane(def.gravity, -1e4, 1e4);
        // An edge laid in step b is gone after step k once (k + 1 − b)·dt ≥ life: those laid
        // more than an edge life (and two steps, for rounding) before the end are.
        let window = (life * STEP_HZ as f32).ceil() as u32 + 2;
        let first = steps.saturating_sub(window);
        let dt = 1.0 / STEP_HZ as f32;
        let mut owed = 0.0f32;
        for _ in 0..first {
            owed += rate * dt;
            if owed + 1e-4 >= 1.0 {
                owed -= 1.0;
            }
        }
        Run {
            k: first,
            laid: Vec::new(),
            owed,
            rate,
            life,
            gravity,
        }
    }

    /// Step `self.k`: the live edges fall, a new one is laid when one is owed, the dead and
    /// (past the pool) the oldest go.
    fn step(&mut self, src: &dyn RibbonSource) {
        let dt = 1.0 / STEP_HZ as f32;
        let k = self.k;
        for (_, e) in &mut self.laid {
            e.fall += self.gravity * dt;
            e.top[1] -= e.fall * dt;
            e.bottom[1] -= e.fall * dt;
        }
        self.owed += self.rate * dt;
        if self.owed + 1e-4 >= 1.0 {
            self.owed -= 1.0;
            let s = src.state(super::step_time(k));
            if s.visible {
                self.laid.push((k, edge_of(&s)));
            }
        }
        let life = self.life;
        self.laid
            .retain(|(born, _)| ((k + 1 - born) as f32 * dt) < life);
        if self.laid.len() > POOL_PER_EMITTER {
            self.laid.remove(0);
        }
        self.k += 1;
    }

    /// The edges at step `steps`, newest first, the emitter's own first.
    fn finish(self, src: &dyn RibbonSource, steps: u32) -> Vec<Edge> {
        let dt = 1.0 / STEP_HZ as f32;
        let head = src.state(super::step_time(steps));
        let mut out = Vec::with_capacity(self.laid.len() + 1);
        if head.visible {
            out.push(edge_of(&head));
        }
        for (born, mut e) in self.laid.into_iter().rev() {
            e.age = (steps - born) as f32 * dt;
            out.push(e);
        }
        out
    }
}

/// The strip's quads `time` seconds in.
pub fn ribbon_sprites(def: &RibbonDef, src: &dyn RibbonSource, time: f32) -> Vec<Sprite> {
    strip(def, &edges(def, src, time))
}

/// The quads of the strip through `e` (from [`edges`]), all in the colour and opacity of the
/// head edge (the emitter's now), as WebWowViewerCpp's `CRibbonEmitter` colours the whole
/// ribbon with the current track values.
pub fn strip(def: &RibbonDef, e: &[Edge]) -> Vec<Sprite> {
    let life = def.edge_life.max(1e-3);
    let Some(head) = e.first() else {
        return Vec::new();
    };
    let Some((blend, color)) = super::sprites::drawn(def.blend, head.color, head.alpha) else {
        return Vec::new();
    };
    e.windows(2)
        .map(|w| {
            let (new, old) = (&w[0], &w[1]);
            let (u0, u1) = (new.age / life, old.age / life);
            Sprite {
                corners: [new.top, old.top, new.bottom, old.bottom],
                uv: [[u0, 0.0], [u1, 0.0], [u0, 1.0], [u1, 1.0]],
                color,
                texture: def.texture,
                blend,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An emitter moving along +X at 1 unit/s, 1 up and 0.5 down, white, opaque.
    struct Moving;
    impl RibbonSource for Moving {
        fn state(&self, time: f32) -> RibbonState {
            RibbonState {
                origin: [time, 0.0, 0.0],
                up: [0.0, 1.0, 0.0],
                above: 1.0,
                below: 0.5,
                color: [1.0; 3],
                alpha: 0.5,
                visible: true,
            }
        }
    }

    /// A ribbon that wobbles, blinks (hidden a fifth of the time) and changes colour.
    struct Wobbly(f32);
    impl RibbonSource for Wobbly {
        fn state(&self, time: f32) -> RibbonState {
            RibbonState {
                origin: [time.sin() * self.0, time * 0.3, 0.0],
                up: [0.0, 1.0, 0.0],
                above: 1.0 + (2.0 * time).cos(),
                below: 0.5,
                color: [time.fract(), 0.5, 0.25],
                alpha: 0.75,
                visible: !((time * 5.0) as u32).is_multiple_of(5),
            }
        }
    }

    /// The edges as first written: every step from the animation's start, one ribbon alone.
    fn edges_from_the_start(def: &RibbonDef, src: &dyn RibbonSource, time: f32) -> Vec<Edge> {
        let steps = steps_to(time);
        let mut run = Run::new(def, 0);
        while run.k < steps {
            run.step(src);
        }
        run.finish(src, steps)
    }

    /// Stepping only the steps whose edges can still live, several ribbons together, gives
    /// the edges every step from the start gives, bit for bit.
    #[test]
    fn the_window_of_live_edges_gives_the_edges_of_a_run_from_the_start() {
        let def = |rate: f32, life: f32, gravity: f32| RibbonDef {
            name: "r".into(),
            edges_per_second: rate,
            edge_life: life,
            gravity,
            texture: None,
            blend: Blend::Opaque,
        };
        let defs = [
            def(10.0, 0.5, 0.0),
            def(60.0, 3.0, 9.8),
            def(7.3, 1.0 / 60.0, -2.0),
            def(25.0, 0.0, 1.0),
            def(60.0, 60.0, 0.5),
            def(0.7, 2.5, 0.0),
        ];
        let srcs = [
            Wobbly(1.0),
            Wobbly(2.0),
            Wobbly(0.5),
            Wobbly(1.5),
            Wobbly(3.0),
            Wobbly(1.0),
        ];
        let each: Vec<(&RibbonDef, &dyn RibbonSource)> =
            defs.iter().zip(&srcs).map(|(d, s)| (d, s as _)).collect();
        for time in [0.0, 0.01, 0.5, 1.0, 2.95, 3.05, 17.4, 61.0, 125.3, 700.0] {
            let got = edges_all(&each, time);
            for (i, (d, s)) in each.iter().enumerate() {
                assert_eq!(
                    got[i],
                    edges_from_the_start(d, *s, time),
                    "ribbon {i}, {time} s"
                );
            }
        }
    }

    #[test]
    fn a_moving_emitter_leaves_a_strip_of_edges() {
        let def = RibbonDef {
            name: "r".into(),
            edges_per_second: 10.0,
            edge_life: 0.5,
            gravity: 0.0,
            texture: Some(0),
            blend: Blend::Additive,
        };
        // Edges laid every 6 steps (0.1 s), the first in step 5; at 1 s the ones younger than
        // 0.5 s remain: laid at 0.55, 0.65, 0.75, 0.85, 0.95 s (steps 59, 53, 47, 41, 35).
        let e = edges(&def, &Moving, 1.0);
        assert_eq!(e.len(), 1 + 5);
        assert_eq!(e[0].top, [1.0, 1.0, 0.0]);
        assert_eq!(e[0].bottom, [1.0, -0.5, 0.0]);
        let xs: Vec<f32> = e.iter().map(|x| (x.top[0] * 60.0).round()).collect();
        assert_eq!(xs, [60.0, 59.0, 53.0, 47.0, 41.0, 35.0]);
        let s = ribbon_sprites(&def, &Moving, 1.0);
        assert_eq!(s.len(), 5);
        assert_eq!(s[0].corners[0], [1.0, 1.0, 0.0]);
        assert_eq!(s[0].uv[0], [0.0, 0.0]);
        assert!((s[0].uv[1][0] - 1.0 / 30.0).abs() < 1e-5);
        assert_eq!(s[0].color, [64; 3]);
    }

    #[test]
    fn the_whole_ribbon_takes_the_current_colour() {
        // WebWowViewerCpp CRibbonEmitter: one colour for the ribbon, the track's value now. The
        // wobbly ribbon's red is the time's fraction: at 2.5 s every quad is 0.5 × 0.75 red.
        let def = RibbonDef {
            name: "r".into(),
            edges_per_second: 30.0,
            edge_life: 1.0,
            gravity: 0.0,
            texture: None,
            blend: Blend::Additive,
        };
        let s = ribbon_sprites(&def, &Wobbly(1.0), 2.5);
        assert!(s.len() > 10);
        let want = [0.5, 0.5, 0.25].map(|c: f32| (c * 0.75 * 128.0).round() as u8);
        assert!(s.iter().all(|q| q.color == want), "{:?}", s[0].color);
    }
}
