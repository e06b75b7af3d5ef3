//! [`ArgBinder::bind`], where argument binding meets [`KernelArg`]: in its own file so that the
//! binder and the argument kinds do not import each other.

use crate::device::abi::KernelParam;
use crate::launch::args::KernelArg;
use crate::launch::binder::ArgBinder;
use crate::vocabulary::error::Result;

impl<'a> ArgBinder<'a> {
    /// Binds the next argument.
    pub fn bind<P: KernelParam, A: KernelArg<'a, P>>(&mut self, arg: A) -> Result<()> {
        arg.bind(self)?;
        self.bound += 1;
        Ok(())
    }
}
