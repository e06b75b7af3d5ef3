//! The memo: a repeated launch reuses the last answer, which depends only on the grid and the
//! parameters the program reads; a clone starts without one.

use super::buffer;
use crate::vocabulary::entry_test::syntax::EntryTest;

#[test]
fn a_repeated_launch_reuses_the_last_answer() {
    // `^x < $0`: holds while the grid is no wider than the parameter.
    let test = EntryTest::parse("icmp.ult 32 ^x $0:32").expect("parses");
    let params = |limit: u64| buffer(&[(limit, 32)]);
    assert!(test.holds(&params(10), [10, 1, 1]));
    assert!(test.holds(&params(10), [10, 1, 1]));
    assert!(!test.holds(&params(10), [11, 1, 1]));
    assert!(test.holds(&params(10), [10, 1, 1]));
    assert!(!test.holds(&params(9), [10, 1, 1]));
    assert!(test.holds(&params(11), [11, 1, 1]));
    assert!(test.holds(&params(11), [11, 2, 1]));
    // The answer kept is the one given: a planted wrong one is returned for the same
    // inputs (a repeat is only a comparison), and not for others.
    let mut memo = test.memo.0.lock().unwrap_or_else(|e| e.into_inner());
    let (grid, values, answer) = memo.clone().expect("an answer");
    assert_eq!(
        (grid, values.as_slice(), answer),
        ([11, 2, 1], &[Some(11)][..], true)
    );
    *memo = Some(([11, 2, 1], values, false));
    drop(memo);
    assert!(!test.holds(&params(11), [11, 2, 1]));
    assert!(test.holds(&params(12), [11, 2, 1]));
    // A parameter the program does not read (a buffer's address) is not part of it.
    let test = EntryTest::parse("icmp.ult 32 ^x $1:32").expect("parses");
    let with = |address: u64| buffer(&[(address, 64), (10, 32)]);
    assert!(test.holds(&with(0xdead_0000), [10, 1, 1]));
    *test.memo.0.lock().unwrap_or_else(|e| e.into_inner()) =
        Some(([10, 1, 1], [Some(10)].into_iter().collect(), false));
    assert!(!test.holds(&with(0xbeef_0000), [10, 1, 1]));
    // A clone starts without an answer and equals its original; the test is shared by
    // the threads launching its kernel.
    assert!(test.memo.0.lock().is_ok_and(|memo| memo.is_some()));
    let clone = test.clone();
    assert!(clone.memo.0.lock().is_ok_and(|memo| memo.is_none()));
    assert_eq!(clone, test);
    fn shared<T: Send + Sync>(_: &T) {}
    shared(&test);
}
