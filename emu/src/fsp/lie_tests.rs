// SPDX-License-Identifier: GPL-2.0

//! Every lie of `--fsp-fault`, told to a driver that does what nova-core does.

use super::channel::*;
use super::gsp_fmc::FMC_ERROR;
use super::tests::*;
use super::FspLie;
use crate::falcon::PRIV_LOCKED;
use crate::gsp::tests::BASE;

/// A chain of `chip` lying `lie`, prepared, its COT sent and the FSP ticked once.
fn lying(chip: &str, lie: FspLie) -> Chain {
    let mut c = Chain::fake(chip, Some(lie));
    c.prepare();
    c.send(&c.cot());
    c.tick();
    let log = c.log();
    assert!(
        log.contains(&format!("FSP: fault {}: {}", lie.name(), lie.describe())),
        "{log}"
    );
    c
}

/// Ticks a while; asserts that the FSP accepted the request behind the lie: GSP-FMC ran and
/// released the lockdown (the driver cannot tell from the response).
fn starts_all_the_same(c: &mut Chain) {
    for _ in 0..100 {
        c.tick();
    }
    let log = c.log();
    assert!(log.contains("FSP: GSP-FMC starts all the same"), "{log}");
    assert!(log.contains("GSP-FMC: lockdown released"), "{log}");
}

/// Ticks a while; asserts that GSP-RM never started.
fn never_starts(c: &mut Chain) {
    for _ in 0..100 {
        c.tick();
    }
    assert!(c.d.dev.gsp().is_some_and(|g| !g.running()), "{}", c.log());
    assert!(!c.log().contains("lockdown released"));
}

#[test]
fn never_ready() {
    let mut c = Chain::fake("gb202", Some(FspLie::NeverReady));
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(c.boot_status(), 0);
    assert!(!c.log().contains("boot status ready"));
}

#[test]
fn no_reply() {
    let mut c = lying("gh100", FspLie::NoReply);
    assert_eq!(
        c.read(NV_PFSP_QUEUE_HEAD),
        c.read(NV_PFSP_QUEUE_TAIL),
        "consumed"
    );
    assert!(c.receive().is_none());
    starts_all_the_same(&mut c);
    assert!(c.receive().is_none());
}

#[test]
fn replies_that_lie_about_their_pointers() {
    for (lie, head, tail) in [
        (FspLie::ReplyShort, 0, 8),
        (FspLie::ReplyHuge, 0, 0x1000),
        (FspLie::ReplyReversed, 16, 0),
    ] {
        let mut c = lying("gh100", lie);
        assert_eq!(
            (c.read(NV_PFSP_MSGQ_HEAD), c.read(NV_PFSP_MSGQ_TAIL)),
            (head, tail),
            "{lie:?}"
        );
        starts_all_the_same(&mut c);
    }
    let mut c = lying("gb100", FspLie::ReplyShort);
    assert_eq!(c.receive(), Some(vec![0xc000_0000, 0x1510_de7e, 0]));
}

#[test]
fn replies_that_lie_in_their_words() {
    for (lie, at, value) in [
        (FspLie::ReplyNotEom, 0, 0x8000_0000),
        (FspLie::ReplyWrongType, 1, 0x1410_de7e),
        (FspLie::ReplyWrongCommand, 3, 0x13),
        (FspLie::ReplyError, 4, 0x2f),
    ] {
        let mut c = lying("gb203", lie);
        let mut want = vec![0xc000_0000, 0x1510_de7e, 0, 0x14, 0];
        want[at] = value;
        assert_eq!(c.receive(), Some(want), "{lie:?}");
        if lie == FspLie::ReplyError {
            // A refusal: nothing starts.
            assert_ne!(c.read(NV_PGSP_FALCON_HWCFG2), PRIV_LOCKED, "{lie:?}");
            never_starts(&mut c);
            assert_eq!(c.read(NV_PRISCV_RISCV_CPUCTL), HALTED);
        } else {
            assert_eq!(c.read(NV_PGSP_FALCON_HWCFG2), PRIV_LOCKED, "{lie:?}");
            starts_all_the_same(&mut c);
        }
    }
}

#[test]
fn lockdown_stuck() {
    let mut c = lying("gh100", FspLie::LockdownStuck);
    assert_eq!(c.receive().map(|r| r[4]), Some(0));
    never_starts(&mut c);
    assert_eq!(c.read(NV_PGSP_FALCON_HWCFG2), PRIV_LOCKED);
    assert_eq!(c.read(NV_PGSP_FALCON_MAILBOX0), PRIV_LOCKED);
}

#[test]
fn mailbox_stuck() {
    let mut c = lying("gb102", FspLie::MailboxStuck);
    never_starts(&mut c);
    let params = BASE + PARAMS_OFF;
    assert_eq!(c.read(NV_PGSP_FALCON_MAILBOX0), params as u32);
    assert_eq!(c.read(NV_PGSP_FALCON_MAILBOX1), (params >> 32) as u32);
    assert_ne!(c.read(NV_PGSP_FALCON_HWCFG2) & (1 << 13), 0);
    // GSP-FMC still runs on the core: it is not halted.
    assert_eq!(c.read(NV_PRISCV_RISCV_CPUCTL), ACTIVE_STAT);
}

#[test]
fn fmc_error() {
    let mut c = lying("gb206", FspLie::FmcError);
    never_starts(&mut c);
    assert_eq!(c.read(NV_PGSP_FALCON_MAILBOX0), FMC_ERROR);
    assert_eq!(c.read(NV_PGSP_FALCON_HWCFG2) & (1 << 13), 0);
    assert_eq!(
        c.read(NV_PRISCV_RISCV_CPUCTL),
        HALTED,
        "the unload's halt wait ends"
    );
    assert!(c
        .log()
        .contains("GSP-FMC: fault fmc-error: stops with 0xb1 in MAILBOX0"));
}

#[test]
fn never_halts() {
    let mut c = Chain::fake("gh100", Some(FspLie::NeverHalts));
    c.boot();
    c.unload();
    assert_eq!(c.read(NV_PRISCV_RISCV_CPUCTL), ACTIVE_STAT);
    assert!(c
        .log()
        .contains("GSP: fault never-halts: the RISC-V core stays active after unload"));
    // A rebind finds the core still running.
    let r = c.exchange(&c.cot()).expect("a response");
    assert_eq!(r[4], super::cot::code::BUSY);
    assert!(c.log().contains("halted vs its RISC-V core active"));
}

#[test]
fn names_parse_and_an_unknown_one_lists_them() {
    for &l in FspLie::ALL {
        assert_eq!(l.name().parse(), Ok(l));
    }
    let e = "nope".parse::<FspLie>().unwrap_err().to_string();
    assert!(e.contains("never-ready, no-reply, reply-short"), "{e}");
    assert!(e.contains("fmc-error, never-halts"), "{e}");
}

#[test]
fn boot_parameters_changed_under_gsp_fmc_stop_it() {
    let mut c = Chain::fake("gb202", None);
    c.prepare();
    c.send(&c.cot());
    c.tick();
    assert_eq!(c.receive().map(|r| r[4]), Some(0));
    // The driver freed the boot parameters and the memory was used again.
    c.d.put(PARAMS_OFF, &[0xa5; 80]);
    never_starts(&mut c);
    let log = c.log();
    assert!(
        log.contains("GSP-FMC: refused: the boot parameters changed while it read them"),
        "{log}"
    );
    assert_eq!(c.read(NV_PGSP_FALCON_MAILBOX0), FMC_ERROR);
    assert_eq!(c.read(NV_PRISCV_RISCV_CPUCTL), HALTED);
}
