// SPDX-License-Identifier: GPL-2.0

//! Builds the crate once without features (the control must compile) and once per case of
//! `src/cases.rs`, each of which must be refused by the compiler with its expected error.

use std::{
    path::PathBuf,
    process::Command, //
};

/// Feature, expected error code, and a fragment of the expected message.
const CASES: &[(&str, &str, &str)] = &[
    (
        "field",
        "E0616",
        "field `0` of struct `Untrusted` is private",
    ),
    ("pattern", "E0532", "contains private fields"),
    ("accessor", "E0599", "no method named `untrusted`"),
    (
        "into-inner",
        "E0599",
        "no method named `into_inner_untrusted`",
    ),
    ("deref", "E0614", "cannot be dereferenced"),
    ("deref-owner", "E0614", "cannot be dereferenced"),
    ("element", "E0308", "expected `u8`, found `Untrusted<u8>`"),
    (
        "compare",
        "E0369",
        "binary operation `==` cannot be applied",
    ),
    ("debug", "E0277", "doesn't implement `Debug`"),
    ("input", "E0277", "Sealed` is not satisfied"),
    ("sealed", "E0603", "module `sealed` is private"),
];

/// `cargo check` of this crate with `features`; returns whether it built and what it said.
fn check(features: &str) -> (bool, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // A target folder of its own: the outer `cargo test` holds the lock of its folder.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cases");
    let mut cmd = Command::new(cargo);
    cmd.args([
        "check",
        "--offline",
        "--locked",
        "--color",
        "never",
        "--quiet",
    ])
    .arg("--manifest-path")
    .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
    .env("CARGO_TARGET_DIR", target);
    if !features.is_empty() {
        cmd.args(["--features", features]);
    }
    let out = cmd.output().expect("cargo runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn control_builds() {
    let (ok, stderr) = check("");
    assert!(ok, "the control does not build:\n{stderr}");
}

#[test]
fn every_way_of_reading_an_untrusted_outside_a_validator_is_refused() {
    let mut wrong = Vec::new();
    for &(feature, code, message) in CASES {
        let (ok, stderr) = check(feature);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error[")).collect();
        let expected = format!("error[{code}]");
        if ok {
            wrong.push(format!("{feature}: compiled"));
        } else if errors.len() != 1
            || !errors[0].starts_with(&expected)
            || !stderr.contains(message)
        {
            wrong.push(format!(
                "{feature}: expected one {expected} ({message}), got:\n{stderr}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
