//! The GPU's own helper threads: they sleep until given a job, run it once each, and sleep
//! again.
//!
//! Threads of a general pool (rayon's) look for other work for a while before they sleep, so
//! every batch drawn in the background would cost a helper that spell of busy looking each
//! time it ran dry; these threads go straight to sleep on a condition variable, and a job wakes
//! them all. The job itself (claiming bands of a batch, `canvas.rs`) decides who does what.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Work every helper runs once.
pub(crate) type Job = Arc<dyn Fn() + Send + Sync>;

/// What the helpers wait on.
#[derive(Default)]
struct Board {
    /// The newest job and its number (0: none yet).
    job: Option<Job>,
    number: u64,
    /// Set when the crew is dropped.
    quit: bool,
}

#[derive(Default)]
struct Post {
    board: Mutex<Board>,
    posted: Condvar,
}

/// Helper threads, joined when dropped.
pub(crate) struct Crew {
    post: Arc<Post>,
    threads: Vec<JoinHandle<()>>,
}

impl Crew {
    /// `n` helper threads, asleep. Fewer if the system refuses to start more.
    pub fn new(n: usize) -> Crew {
        let post = Arc::new(Post::default());
        let threads = (0..n)
            .map_while(|i| {
                let post = Arc::clone(&post);
                std::thread::Builder::new()
                    .name(format!("gpu-helper-{i}"))
                    .spawn(move || serve(&post))
                    .ok()
            })
            .collect();
        Crew { post, threads }
    }

    /// Number of helper threads.
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// Wakes every helper to run `job` once. A helper still running an earlier job runs only
    /// the newest one next, so a job must not count on every helper running it.
    pub fn run(&self, job: Job) {
        let mut board = self
            .post
            .board
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        board.job = Some(job);
        board.number += 1;
        drop(board);
        self.post.posted.notify_all();
    }
}

/// A helper's life: sleep until a job newer than the last one run is posted, run it, repeat;
/// return when the crew is dropped.
fn serve(post: &Post) {
    let mut done = 0;
    loop {
        let job = {
            let mut board = post.board.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if board.quit {
                    return;
                }
                if board.number != done {
                    done = board.number;
                    break board.job.clone();
                }
                board = post
                    .posted
                    .wait(board)
                    .unwrap_or_else(PoisonError::into_inner);
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
    fn drop(&mut self) {
        let mut board = self
            .post
            .board
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        board.quit = true;
        board.job = None;
        drop(board);
        self.post.posted.notify_all();
        for t in self.threads.drain(..) {
            // Helpers return normally (a panic in a job aborts), so there is nothing to report.
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Every helper runs a posted job once; dropping the crew ends the threads.
    #[test]
    fn each_helper_runs_the_job_once() {
        let crew = Crew::new(3);
        assert_eq!(crew.len(), 3);
        let ran = Arc::new((Mutex::new(0usize), Condvar::new()));
        let count = Arc::new(AtomicUsize::new(0));
        let job: Job = {
            let (ran, count) = (Arc::clone(&ran), Arc::clone(&count));
            Arc::new(move || {
                count.fetch_add(1, Ordering::Relaxed);
                let mut n = ran.0.lock().unwrap();
                *n += 1;
                ran.1.notify_all();
            })
        };
        crew.run(job);
        let mut n = ran.0.lock().unwrap();
        while *n < 3 {
            n = ran.1.wait(n).unwrap();
        }
        drop(n);
        drop(crew);
        assert_eq!(count.load(Ordering::Relaxed), 3, "each of 3 helpers, once");
    }
}
