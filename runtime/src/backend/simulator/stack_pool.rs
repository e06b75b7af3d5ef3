//! Coroutine stacks for simulated threads, reused across threads, blocks and launches.
//!
//! A stack is `mmap`ed once (with a guard page below it) and goes back to the pool as soon as its
//! thread finishes, so a block whose threads never wait reuses one cache-warm stack for all of
//! them, and a block that waits at barriers holds one stack per thread.

use corosensei::stack::DefaultStack;

/// The stacks a launch draws from.
pub(super) struct StackPool {
    /// Free stacks.
    free: Vec<DefaultStack>,
    /// The size of a new stack, in bytes.
    stack_bytes: usize,
}

impl StackPool {
    /// A pool holding `free` stacks, making new ones of `stack_bytes` bytes when empty.
    pub(super) fn new(free: Vec<DefaultStack>, stack_bytes: usize) -> Self {
        StackPool { free, stack_bytes }
    }

    /// A free stack, new if none is left; the error is the stack size and the system's reason.
    pub(super) fn take(&mut self) -> Result<DefaultStack, (usize, String)> {
        match self.free.pop() {
            Some(stack) => Ok(stack),
            None => {
                DefaultStack::new(self.stack_bytes).map_err(|e| (self.stack_bytes, e.to_string()))
            }
        }
    }

    /// Gives a stack back for reuse.
    pub(super) fn put(&mut self, stack: DefaultStack) {
        self.free.push(stack);
    }

    /// The free stacks, to keep for the next launch.
    pub(super) fn into_stacks(self) -> Vec<DefaultStack> {
        self.free
    }
}
