//! Dominators and natural loops of a function's control-flow graph ([`crate::ir::cfg`]).

use std::collections::HashSet;

/// The immediate dominator of each block reachable from the entry (block 0), by the
/// iterative algorithm of Cooper, Harvey and Kennedy over the reverse postorder.
pub(crate) fn immediate_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succ[node].get(*next) {
            *next += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(node);
            stack.pop();
        }
    }
    order.reverse();
    let mut rank = vec![usize::MAX; n];
    for (r, &b) in order.iter().enumerate() {
        rank[b] = r;
    }
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut x) => {
                        let mut y = p;
                        while x != y {
                            while rank[x] > rank[y] {
                                x = idom[x].unwrap_or(0);
                            }
                            while rank[y] > rank[x] {
                                y = idom[y].unwrap_or(0);
                            }
                        }
                        x
                    }
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The natural loops: for each back edge `latch -> header` (the header dominates the latch),
/// the latch and the blocks of the loop (those that reach the latch without the header).
pub(crate) fn natural_loops(
    succ: &[Vec<usize>],
    idom: &[Option<usize>],
) -> Vec<(usize, HashSet<usize>)> {
    let dominates = |a: usize, b: usize| dominates(idom, a, b);
    let mut loops = Vec::new();
    for (latch, targets) in succ.iter().enumerate() {
        if idom[latch].is_none() {
            continue;
        }
        for &header in targets {
            if !dominates(header, latch) {
                continue;
            }
            let mut body: HashSet<usize> = [header, latch].into_iter().collect();
            let mut stack = vec![latch];
            while let Some(b) = stack.pop() {
                if b == header {
                    continue;
                }
                for (p, ss) in succ.iter().enumerate() {
                    if ss.contains(&b) && idom[p].is_some() && body.insert(p) {
                        stack.push(p);
                    }
                }
            }
            loops.push((latch, body));
        }
    }
    loops
}

/// Whether block `a` dominates block `b` (each block dominates itself), by the immediate
/// dominators [`immediate_dominators`] gives.
pub(crate) fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(d) if d != b => b = d,
            _ => return false,
        }
    }
}
