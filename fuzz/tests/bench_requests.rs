// SPDX-License-Identifier: GPL-2.0

//! The `bench` file's requests against the standard library's parsing (the oracle in
//! `check::bench_request`): every count of up to five digits, with and without the blanks and
//! newline `echo` adds, and the texts around the edges.

use nova_core_parse::check;

#[test]
fn every_short_count_is_read_as_the_standard_library_reads_it() {
    let mut accepted = 0;
    for n in 0..100_000u32 {
        for text in [format!("{n}"), format!("{n}\n"), format!(" {n:05} \n")] {
            if check::bench_request(text.as_bytes()).is_some() {
                accepted += 1;
            }
        }
    }
    // 1 to 10000, in each of the three forms.
    assert_eq!(accepted, 3 * 10_000);
}

#[test]
fn texts_around_the_edges() {
    for text in [
        &b""[..],
        b"\n",
        b"+1",
        b"-1",
        b"1 2",
        b"0x10",
        b"\xff1",
        b"4294967297",
        b"340282366920938463463374607431768211456",
        b"\t10\r\n",
    ] {
        check::bench_request(text);
    }
    assert_eq!(check::bench_request(b"\t10\r\n"), Some(10));
    assert_eq!(check::bench_request(b"4294967297"), None);
}
