//! The notes as the builder writes them and as a launcher asks of them: programs that hold
//! exactly when the kernel's own test does, the note of each entry read from the PTX, and the
//! parameters as a launch passes them.

use super::super::{entry_test_holds, entry_test_of};
use super::{ONE, Random, holds};
use crate::vocabulary::entry_test::syntax::EntryTest;
use crate::vocabulary::params::ParamBuffer;

#[test]
fn the_example_holds_exactly_when_its_reference_does() {
    let program = "zext 64 $4:32;zext 64 $5:32;mul.nuw 64 %0 %1;icmp.ule 64 %2 $1:64;\
                   icmp.ult 32 $4:32 1073741824;and 1 %3 %4";
    let test = EntryTest::parse(program).expect("parses");
    let mut random = Random(1);
    let mut seen = [0; 2];
    for _ in 0..20_000 {
        let (nx, ny) = (random.value(32), random.value(32));
        // The length near the product, or anything.
        let len = match random.next() % 3 {
            0 => (nx * ny).wrapping_add(random.next() % 3).wrapping_sub(1),
            1 => nx * ny,
            _ => random.value(64),
        };
        let mut params = ParamBuffer::default();
        params.push(0xdead_0000u64);
        params.push(len);
        params.push(0u64);
        params.push(3u32);
        params.push(nx as u32);
        params.push(ny as u32);
        params.push(7u64);
        let expected = nx.checked_mul(ny).is_some_and(|n| n <= len) && nx < 1 << 30;
        assert_eq!(test.holds(&params, ONE), expected, "{nx} {ny} {len}");
        seen[usize::from(expected)] += 1;
    }
    assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
}

/// The note `nvptx-builder` writes for a 2-D kernel `taps(image, out, w: u32, h: u32)`
/// whose guards bound its reads by `h * w` and its writes by `w` (the program its unit test
/// `a_kernel_with_a_launch_token_takes_the_fast_copy_on_its_bit` pins, verbatim): the two
/// crates agree on the format when this holds exactly when the kernel's test does.
#[test]
fn the_builders_note_holds_exactly_when_the_kernels_test_does() {
    let program = "zext 64 $5:32;zext 64 $4:32;and 64 $1:64 4294967295;mul.nuw 64 %0 %1;\
                   icmp.ule 64 %3 %2;and 64 $3:64 4294967295;icmp.ule 64 %1 %5;\
                   icmp.ult 32 $5:32 1073741824;icmp.ult 32 $4:32 1073741824;and 1 %4 %6;\
                   and 1 %9 %7;and 1 %10 %8";
    let test = EntryTest::parse(program).expect("parses");
    let mut random = Random(11);
    let mut seen = [0; 2];
    for _ in 0..20_000 {
        let (w, h) = match random.next() % 3 {
            0 => (random.value(32), random.value(32)),
            _ => (random.next() % 5000, random.next() % 5000),
        };
        let near = |n: u64, random: &mut Random| match random.next() % 3 {
            0 => n.wrapping_add(random.next() % 3).wrapping_sub(1),
            1 => n,
            _ => random.value(32),
        };
        let image_len = near(w.wrapping_mul(h) & 0xffff_ffff, &mut random);
        let out_len = near(w, &mut random);
        let mut params = ParamBuffer::default();
        params.push(0xdead_0000u64);
        params.push(image_len);
        params.push(0xbeef_0000u64);
        params.push(out_len);
        params.push(w as u32);
        params.push(h as u32);
        params.push(7u64);
        // The kernel's test, on the lengths as its entry reads them (below 2^32).
        let (image_len, out_len) = (image_len & 0xffff_ffff, out_len & 0xffff_ffff);
        let expected = h * w <= image_len && w <= out_len && h < 1 << 30 && w < 1 << 30;
        assert_eq!(
            test.holds(&params, ONE),
            expected,
            "{w} {h} {image_len} {out_len}"
        );
        seen[usize::from(expected)] += 1;
    }
    assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
}

#[test]
fn a_raw_launcher_asks_with_8_byte_slots() {
    let ptx = "// ferrocuda entry test: k zext 64 $2:32;icmp.ule 64 %0 $1:64\n.version 7.8\n";
    // `n <= len`, `n` a 32-bit parameter in the low half of its slot.
    assert_eq!(
        entry_test_holds(ptx, "k", &[0xdead, 10, 10, 7], ONE),
        Some(true)
    );
    assert_eq!(
        entry_test_holds(ptx, "k", &[0xdead, 10, 11, 7], ONE),
        Some(false)
    );
    assert_eq!(
        entry_test_holds(ptx, "k", &[0xdead, 10, (1 << 32) | 3, 7], ONE),
        Some(true)
    );
    // Too few parameters: the test cannot hold. No note: no test.
    assert_eq!(entry_test_holds(ptx, "k", &[0xdead, 10], ONE), Some(false));
    assert_eq!(
        entry_test_holds(ptx, "other", &[0xdead, 10, 10, 7], ONE),
        None
    );
}

#[test]
fn a_parameter_missing_or_of_another_size_fails_the_test() {
    let narrow = "icmp.eq 32 $0:32 5";
    let wide = "icmp.eq 64 $0:64 5";
    assert!(holds(narrow, &[(5, 32)]));
    assert!(holds(wide, &[(5, 64)]));
    assert!(!holds(narrow, &[(5, 64)]));
    assert!(!holds(wide, &[(5, 32)]));
    // Parameter 1 is the token (a u64); parameter 2 does not exist.
    assert!(holds("icmp.eq 64 $1:64 7", &[(5, 32)]));
    assert!(!holds("icmp.eq 64 $2:64 7", &[(5, 32)]));
    assert!(!holds("icmp.eq 32 $4294967295:32 7", &[(5, 32)]));
    // A parameter of 2 or 16 bytes is neither.
    let mut params = ParamBuffer::default();
    params.push(5u16);
    params.push([5u64, 0]);
    params.push(5u64);
    for program in [narrow, wide, "icmp.eq 64 $1:64 5", "icmp.eq 32 $1:32 5"] {
        assert!(
            !EntryTest::parse(program).unwrap().holds(&params, ONE),
            "{program}"
        );
    }
    assert!(
        EntryTest::parse("icmp.eq 64 $2:64 5")
            .unwrap()
            .holds(&params, ONE)
    );
}

#[test]
fn entry_test_of_reads_the_note_of_its_entry() {
    let module = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n\
        // ferrocuda fast math: stencil contract\n\
        // ferrocuda entry test: stencil icmp.ult 32 $0:32 10\n\
        // ferrocuda entry test: conv icmp.ugt 32 $0:32 10\n\
        // ferrocuda entry test: broken add 32 $0:32 1\n\
        // ferrocuda entry test: twice icmp.ult 32 $0:32 10\n\
        // ferrocuda entry test: twice icmp.ult 32 $0:32 10\n\
        .version 7.0\n.target sm_70\n\
        // ferrocuda entry test: late icmp.ult 32 $0:32 10\n";
    let params = |value: u32| {
        let mut params = ParamBuffer::default();
        params.push(value);
        params.push(1u64);
        params
    };
    let stencil = entry_test_of(module, "stencil").expect("stencil's note");
    assert!(stencil.holds(&params(3), ONE) && !stencil.holds(&params(30), ONE));
    let conv = entry_test_of(module, "conv").expect("conv's note");
    assert!(!conv.holds(&params(3), ONE) && conv.holds(&params(30), ONE));
    // A malformed note, two notes, no note, a prefix of a name, a note after `.version`.
    for name in ["broken", "twice", "plain", "sten", "late"] {
        assert_eq!(entry_test_of(module, name), None, "{name}");
    }
    // A note with a carriage return at its end.
    let crlf = "// ferrocuda entry test: k icmp.eq 32 $0:32 3\r\n.version 7.0\r\n";
    assert!(
        entry_test_of(crlf, "k")
            .expect("k's note")
            .holds(&params(3), ONE)
    );
}
