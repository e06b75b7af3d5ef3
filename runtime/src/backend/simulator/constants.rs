//! The simulated device's constant memory: one stable copy of each `#[constant]` symbol.

use super::shared_memory::AlignedBuffer;
use std::sync::Mutex;

/// Alignment of each constant-memory symbol's storage.
const CONSTANT_ALIGN: usize = 16;

/// One constant-memory symbol's storage: the simulated device's copy of the symbol.
struct ConstantSymbol {
    /// The symbol's name.
    name: &'static str,
    /// Its size in bytes.
    len: usize,
    /// Its storage, at a stable address for the life of the simulator.
    storage: AlignedBuffer,
}

/// The constant-memory symbols of the simulator, by name and size.
#[derive(Default)]
pub(super) struct ConstantStore {
    /// The symbols allocated so far.
    symbols: Mutex<Vec<ConstantSymbol>>,
}

impl ConstantStore {
    /// The simulated device's copy of the constant-memory symbol `name` of `init.len()` bytes:
    /// allocated and initialised from `init` on first use, then at the same address for the life
    /// of the simulator. Kernels read it through the `constant` hook; the host writes through it.
    pub(super) fn storage(&self, name: &'static str, init: &[u8]) -> *mut u8 {
        let mut constants = self.symbols.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(symbol) = constants
            .iter()
            .find(|s| s.name == name && s.len == init.len())
        {
            return symbol.storage.as_ptr();
        }
        let storage = AlignedBuffer::new(init.len(), CONSTANT_ALIGN, 0);
        // SAFETY: the buffer holds at least `init.len()` bytes and is new, so does not overlap.
        unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), storage.as_ptr(), init.len()) };
        let ptr = storage.as_ptr();
        constants.push(ConstantSymbol {
            name,
            len: init.len(),
            storage,
        });
        ptr
    }
}
