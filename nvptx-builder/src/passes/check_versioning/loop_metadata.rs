//! The loop metadata of a module, and `llvm.loop.unroll.disable` for the loops of a fast copy
//! that held a proved check.

/// The metadata nodes the fast copies' loops get, appended to the module.
pub(super) struct LoopMetadata<'a> {
    /// The next free metadata number.
    pub(super) next: &'a mut usize,
    /// The number of `!{!"llvm.loop.unroll.disable"}`, once emitted.
    pub(super) unroll_disable: &'a mut Option<usize>,
    /// The node definitions emitted so far.
    pub(super) nodes: &'a mut String,
}

impl LoopMetadata<'_> {
    /// A new distinct loop ID that disables unrolling.
    pub(super) fn nounroll_loop(&mut self) -> usize {
        let disable = match *self.unroll_disable {
            Some(n) => n,
            None => {
                let n = *self.next;
                *self.next += 1;
                self.nodes
                    .push_str(&format!("!{n} = !{{!\"llvm.loop.unroll.disable\"}}\n"));
                *self.unroll_disable = Some(n);
                n
            }
        };
        let id = *self.next;
        *self.next += 1;
        self.nodes
            .push_str(&format!("!{id} = distinct !{{!{id}, !{disable}}}\n"));
        id
    }
}

/// The terminator `text` with a new loop ID that disables unrolling (replacing any it had).
pub(super) fn disable_unrolling(text: &str, loops: &mut LoopMetadata<'_>) -> String {
    let id = loops.nounroll_loop();
    let body = text.trim_end();
    let kept: String = match body.find(", !llvm.loop !") {
        Some(at) => {
            let after = &body[at + ", !llvm.loop !".len()..];
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            format!("{}{}", &body[..at], &after[digits..])
        }
        None => body.to_string(),
    };
    format!("{kept}, !llvm.loop !{id}\n")
}
