//! The GPU's own helper threads: they sleep until given a job, run it, and sleep again.
//!
//! Threads of a general pool (rayon's) look for other work for a while before they sleep, so
//! every batch drawn in the background would cost a helper that spell of busy looking each
//! time it ran dry; these threads go straight to sleep on a condition variable, and a job wakes
//! them. The job itself (claiming bands of a batch, `canvas.rs`) decides who does what.
//!
//! A GPU dropped hands its helpers back to a process-wide list of idle ones, and the next GPU
//! that needs helpers takes them from there: a program that makes GPU after GPU (a replay per
//! run, a render per frame) starts threads once, and its helpers are already placed on their
//! cores by the scheduler.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Work every helper runs once.
pub(crate) type Job = Arc<dyn Fn() + Send + Sync>;

/// What a helper waits on.
#[derive(Default)]
struct Board {
    /// The newest job and its number (0: none yet).
    job: Option<Job>,
    number: u64,
    /// Set when the helper is to end.
    quit: bool,
}

/// One helper thread and its board.
struct Helper {
    post: Arc<(Mutex<Board>, Condvar)>,
    thread: JoinHandle<()>,
}

impl Helper {
    /// A new helper thread, asleep; `None` if the system refuses to start one.
    fn start() -> Option<Helper> {
        let post = Arc::new((Mutex::new(Board::default()), Condvar::new()));
        let theirs = Arc::clone(&post);
        let thread = std::thread::Builder::new()
            .name("gpu-helper".into())
            .spawn(move || serve(&theirs))
            .ok()?;
        Some(Helper { post, thread })
    }

    /// Changes the board and wakes the helper.
    fn post(&self, change: impl FnOnce(&mut Board)) {
        let (board, posted) = &*self.post;
        change(&mut board.lock().unwrap_or_else(PoisonError::into_inner));
        posted.notify_one();
    }
}

/// Idle helpers of dropped GPUs, for the next GPU to take.
static IDLE: Mutex<Vec<Helper>> = Mutex::new(Vec::new());

/// Idle helpers kept per core; more are ended.
const IDLE_PER_CORE: usize = 4;

/// Helper threads, handed back to the idle list (or ended) when dropped.
pub(crate) struct Crew {
    helpers: Vec<Helper>,
}

impl Crew {
    /// `n` helper threads, asleep: idle ones first, then new ones. Fewer if the system
    /// refuses to start more.
    pub fn new(n: usize) -> Crew {
        let mut helpers = {
            let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
            let at = idle.len().saturating_sub(n);
            idle.split_off(at)
        };
        while helpers.len() < n {
            match Helper::start() {
                Some(h) => helpers.push(h),
                None => break,
            }
        }
        Crew { helpers }
    }

    /// Number of helper threads.
    pub fn len(&self) -> usize {
        self.helpers.len()
    }

    /// Wakes every helper to run `job` once. A helper still running an earlier job runs only
    /// the newest one next, so a job must not count on every helper running it.
    pub fn run(&self, job: Job) {
        for h in &self.helpers {
            h.post(|b| {
                b.job = Some(Arc::clone(&job));
                b.number += 1;
            });
        }
    }
}

/// A helper's life: sleep until a job newer than the last one run is posted, run it, repeat;
/// return when told to quit.
fn serve(post: &(Mutex<Board>, Condvar)) {
    let (board, posted) = post;
    let mut done = 0;
    loop {
        let job = {
            let mut b = board.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if b.quit {
                    return;
                }
                if b.number != done {
                    done = b.number;
                    break b.job.clone();
                }
                b = posted.wait(b).unwrap_or_else(PoisonError::into_inner);
            }
        };
        if let Some(job) = job {
            // A helper that panicked would leave bands undrawn that the caller then waits for
            // forever: end the process instead, as rayon does after a panic in a spawned job.
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job())).is_err() {
                std::process::abort();
            }
        }
    }
}

impl Drop for Crew {
    /// Helpers go back to the idle list, their last job dropped; past its limit they end.
    fn drop(&mut self) {
        let keep = IDLE_PER_CORE * crate::cores();
        let mut ending = Vec::new();
        {
            let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
            for h in self.helpers.drain(..) {
                h.post(|b| b.job = None);
                match idle.len() < keep {
                    true => idle.push(h),
                    false => ending.push(h),
                }
            }
        }
        for h in ending {
            h.post(|b| b.quit = true);
            // Helpers return normally (a panic in a job aborts): nothing to report.
            let _ = h.thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every helper runs a posted job once, and a crew made after one is dropped (its helpers
    /// idle) runs the next job once per helper again.
    #[test]
    fn each_helper_runs_the_job_once() {
        let ran = Arc::new((Mutex::new(0usize), Condvar::new()));
        let job: Job = {
            let ran = Arc::clone(&ran);
            Arc::new(move || {
                *ran.0.lock().unwrap() += 1;
                ran.1.notify_all();
            })
        };
        for round in 1..=2 {
            let crew = Crew::new(3);
            assert_eq!(crew.len(), 3);
            crew.run(Arc::clone(&job));
            let mut n = ran.0.lock().unwrap();
            while *n < 3 * round {
                n = ran.1.wait(n).unwrap();
            }
            drop(n);
            drop(crew);
        }
        // Give a helper that would run the job twice the time to do it.
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            *ran.0.lock().unwrap(),
            6,
            "each of 3 helpers, once per round"
        );
    }
}
