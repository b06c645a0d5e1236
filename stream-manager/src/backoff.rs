//! Exponential backoff between reconnection attempts.

use std::time::Duration;

const FIRST: Duration = Duration::from_millis(50);
const MAX: Duration = Duration::from_secs(2);

pub(crate) struct Backoff {
    next: Duration,
}

impl Backoff {
    pub fn new() -> Self {
        Self { next: FIRST }
    }

    /// Called after a success: the next failure retries quickly again.
    pub fn reset(&mut self) {
        self.next = FIRST;
    }

    pub async fn wait(&mut self) {
        tokio::time::sleep(self.next).await;
        self.next = (self.next * 2).min(MAX);
    }
}
