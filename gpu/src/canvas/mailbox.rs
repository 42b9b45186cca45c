//! The hand-over between the caller and the job running queues in the background: at most
//! one queue waiting its turn, and what the job leaves when it ends.

use std::any::Any;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::Stage;
use crate::prepare::Queue;

/// What a job gives back: the stage, the last queue it ran (its allocations are reused) and
/// the panic that stopped it, if one did.
pub(super) struct Done {
    pub stage: Box<Stage>,
    pub queue: Queue,
    pub panic: Option<Box<dyn Any + Send>>,
}

/// What the caller and the job in the background share: at most one queue waiting its turn,
/// and the stage once the job has ended.
#[derive(Default)]
pub(super) struct Mailbox {
    post: Mutex<Post>,
    /// Wakes the caller: a waiting queue was taken, or the job ended.
    wake: Condvar,
}

#[derive(Default)]
struct Post {
    /// The queue the job runs next.
    waiting: Option<Queue>,
    /// Queues the job has run, emptied, for the caller to fill again.
    empty: Vec<Queue>,
    /// The job takes no more queues.
    ending: bool,
    /// The job has ended.
    done: Option<Done>,
}

impl Mailbox {
    fn post(&self) -> MutexGuard<'_, Post> {
        self.post.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The caller hands `queue` to the job, leaving an empty one in its place, after the
    /// queue waiting before it (if any) has been taken. False if the job is ending: it takes
    /// no more, and `queue` is untouched.
    pub(super) fn hand_over(&self, queue: &mut Queue) -> bool {
        let mut post = self.post();
        loop {
            if post.ending {
                return false;
            }
            if post.waiting.is_none() {
                let empty = post.empty.pop().unwrap_or_default();
                post.waiting = Some(std::mem::replace(queue, empty));
                return true;
            }
            post = self.wake.wait(post).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The job takes the waiting queue, if there is one.
    pub(super) fn take_waiting(&self) -> Option<Queue> {
        let q = self.post().waiting.take();
        if q.is_some() {
            self.wake.notify_all();
        }
        q
    }

    /// The job takes the waiting queue, or, if there is none, ends: it takes no more.
    pub(super) fn take_waiting_or_end(&self) -> Option<Queue> {
        let mut post = self.post();
        let q = post.waiting.take();
        post.ending = q.is_none();
        drop(post);
        self.wake.notify_all();
        q
    }

    /// The job gives back a queue it has run (emptied).
    pub(super) fn give_back(&self, queue: Queue) {
        let mut post = self.post();
        if post.empty.len() < 2 {
            post.empty.push(queue);
        }
    }

    /// The job has ended.
    pub(super) fn put(&self, done: Done) {
        let mut post = self.post();
        post.ending = true;
        post.waiting = None;
        post.done = Some(done);
        drop(post);
        self.wake.notify_all();
    }

    /// Sleeps until the job has ended, and takes what it left.
    pub(super) fn take(&self) -> Done {
        let mut post = self.post();
        loop {
            if let Some(done) = post.done.take() {
                return done;
            }
            post = self.wake.wait(post).unwrap_or_else(PoisonError::into_inner);
        }
    }
}
