//! [`ArgBinder::bind`], where argument binding meets [`KernelArg`]: in its own file so that the
//! binder and the argument kinds do not import each other.

use crate::device::abi::KernelParam;
use crate::launch::args::KernelArg;
use crate::launch::binder::ArgBinder;
use crate::vocabulary::error::Result;

impl<'a> ArgBinder<'a> {
    /// Binds the next argument.
    pub fn bind<P: KernelParam, A: KernelArg<'a, P>>(&mut self, arg: A) -> Result<()> {
        let written = self.params.count();
        arg.bind(self)?;
        // The `KernelArg` impl wrote through the shape's layout (`KernelParam::write`).
        debug_assert_eq!(self.params.count() - written, P::ENTRY_PARAMS);
        self.bound += 1;
        Ok(())
    }
}
