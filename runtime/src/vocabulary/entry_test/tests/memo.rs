//! The memo: a repeated launch reuses the last answer, which depends only on the grid and the
//! parameters the program reads; a clone starts without one.

use super::buffer;
use crate::vocabulary::entry_test::memo::{Key, MEMO_VALUES};
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
    let key = |grid: [u32; 3], value: u64| {
        let mut values = [0; MEMO_VALUES];
        values[0] = value;
        Key {
            grid,
            values,
            count: 1,
        }
    };
    assert_eq!(test.memo.get(&key([11, 2, 1], 11)), Some(true));
    assert_eq!(test.memo.get(&key([11, 2, 1], 12)), None);
    test.memo.put(&key([11, 2, 1], 11), false);
    assert!(!test.holds(&params(11), [11, 2, 1]));
    assert!(test.holds(&params(12), [11, 2, 1]));
    // A parameter the program does not read (a buffer's address) is not part of it.
    let test = EntryTest::parse("icmp.ult 32 ^x $1:32").expect("parses");
    let with = |address: u64| buffer(&[(address, 64), (10, 32)]);
    assert!(test.holds(&with(0xdead_0000), [10, 1, 1]));
    test.memo.put(&key([10, 1, 1], 10), false);
    assert!(!test.holds(&with(0xbeef_0000), [10, 1, 1]));
    // A program without block indices keeps its answer whatever the grid: planted, it is
    // returned for another grid, and a changed parameter is evaluated afresh.
    let test = EntryTest::parse("icmp.ule 64 $0:64 $1:64").expect("parses");
    let lengths = |n: u64, len: u64| buffer(&[(n, 64), (len, 64)]);
    assert!(test.holds(&lengths(5, 5), [3, 1, 1]));
    let mut values = [0; MEMO_VALUES];
    values[..2].copy_from_slice(&[5, 5]);
    let both = Key {
        grid: [0; 3],
        values,
        count: 2,
    };
    assert_eq!(test.memo.get(&both), Some(true));
    test.memo.put(&both, false);
    assert!(!test.holds(&lengths(5, 5), [7, 1, 1]));
    assert!(test.holds(&lengths(4, 5), [7, 1, 1]));
    assert!(!test.holds(&lengths(6, 5), [7, 1, 1]));
    // More parameters than the memo keeps: evaluated at every launch, never kept.
    let program: Vec<String> = (0..=MEMO_VALUES)
        .map(|i| format!("icmp.ule 64 $0:64 ${}:64", i + 1))
        .chain((0..MEMO_VALUES).map(|i| {
            let previous = if i == 0 { 0 } else { MEMO_VALUES + i };
            format!("and 1 %{previous} %{}", i + 1)
        }))
        .collect();
    let wide = EntryTest::parse(&program.join(";")).expect("parses");
    let all: Vec<(u64, u32)> = (0..=MEMO_VALUES as u64 + 1).map(|v| (v, 64)).collect();
    assert!(wide.holds(&buffer(&all), [1, 1, 1]));
    assert!(wide.memo_key(&buffer(&all), [1, 1, 1]).is_none());
    // A clone starts without an answer and equals its original; the test is shared by
    // the threads launching its kernel.
    let kept = test.memo_key(&lengths(6, 5), [7, 1, 1]).expect("a key");
    assert_eq!(test.memo.get(&kept), Some(false));
    let clone = test.clone();
    assert_eq!(clone.memo.get(&kept), None);
    assert_eq!(clone, test);
    fn shared<T: Send + Sync>(_: &T) {}
    shared(&test);
}

#[test]
fn threads_launching_one_kernel_each_get_the_answer_for_their_own_parameters() {
    // `n <= len`: each thread launches with its own `n`, half of them past the length, so
    // the memo is written and read by all of them at once; an answer kept for another
    // thread's parameters must never be returned.
    let test = EntryTest::parse("icmp.ule 64 $0:64 $1:64").expect("parses");
    std::thread::scope(|scope| {
        for thread in 0..4u64 {
            let test = &test;
            scope.spawn(move || {
                for round in 0..20_000u64 {
                    let n = (thread * 7 + round) % 16;
                    let holds = test.holds(&buffer(&[(n, 64), (8, 64)]), [1, 1, 1]);
                    assert_eq!(holds, n <= 8, "thread {thread}, round {round}, n = {n}");
                }
            });
        }
    });
}
