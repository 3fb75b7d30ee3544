// SPDX-License-Identifier: GPL-2.0

//! Tests of the GSP's lies (`--gsp-fault`): each is told at the message it
//! names, exactly as documented, and logged; the messages before it are
//! honest.

use super::fault::{FLOOD_EVENT, LIES, REPLY_STATUS, UNKNOWN_FUNCTION};
use super::tests::{boot, boot_commands, Driver, STATQ_OFF};
use super::wire::*;

/// The raw elements of the next status message, as the GSP wrote them.
fn raw_next(d: &Driver) -> Vec<u8> {
    let first = d.get(STATQ_OFF + 0x1000 + u64::from(d.stat_rptr) * 4096, 4096);
    let count = get_u32(&first, elem::ELEM_COUNT).clamp(1, 16);
    let mut msg = Vec::new();
    for i in 0..count {
        let idx = (d.stat_rptr + i) % 63;
        msg.extend(d.get(STATQ_OFF + 0x1000 + u64::from(idx) * 4096, 4096));
    }
    msg
}

fn status_write_ptr(d: &Driver) -> u32 {
    d.get_u32(STATQ_OFF + tx_header::WRITE_PTR)
}

/// Boots honestly (message 0, GSP_INIT_DONE), then asks for the static
/// information (message 1, where the lies are told by default).
fn lie_at_static_info(fault: &str) -> Driver {
    let mut d = Driver::lying(Version::R570_144, fault);
    boot(&mut d);
    d.send_static_info();
    let name = fault.split('@').next().unwrap_or(fault);
    assert!(
        d.log().contains(&format!("fault {name} at message 1")),
        "{fault}: {}",
        d.log()
    );
    d
}

#[test]
fn header_lies_change_one_field_and_keep_the_checksum_right() {
    let r = elem::SIZE_OF;
    let cases: &[(&str, usize, u32)] = &[
        ("count-zero", elem::ELEM_COUNT, 0),
        ("count-huge", elem::ELEM_COUNT, 17),
        ("count-unwritten", elem::ELEM_COUNT, 2),
        ("length-huge", r + rpc::LENGTH, 4096 - 48 + 1),
        ("length-short", r + rpc::LENGTH, 31),
        // RUN_CPU_SEQUENCER is status message 0, GSP_INIT_DONE 1, the reply 2.
        ("seq-repeat", elem::SEQ_NUM, 1),
        ("seq-skip", elem::SEQ_NUM, 3),
        ("function-unknown", r + rpc::FUNCTION, UNKNOWN_FUNCTION),
        ("reply-function", r + rpc::FUNCTION, function::SET_REGISTRY),
        ("reply-status", r + rpc::RPC_RESULT, REPLY_STATUS),
    ];
    for &(fault, at, value) in cases {
        let d = lie_at_static_info(fault);
        let mut msg = raw_next(&d);
        assert_eq!(get_u32(&msg, at), value, "{fault}");
        let stored = get_u32(&msg, elem::CHECKSUM);
        put_u32(&mut msg, elem::CHECKSUM, 0);
        // The element count lies change how many elements make the message;
        // the checksum covers the one element written.
        assert_eq!(checksum(&msg[..4096]), stored, "{fault}: checksum resealed");
        assert_eq!(status_write_ptr(&d), 3, "{fault}: one element posted");
    }
}

#[test]
fn reply_sequence_gives_the_reply_a_number_its_call_did_not_carry() {
    let mut d = Driver::lying(Version::R570_144, "reply-sequence@9");
    boot(&mut d);
    d.send_static_info();
    let honest = raw_next(&d);
    let lying = raw_next(&lie_at_static_info("reply-sequence"));
    let at = elem::SIZE_OF + rpc::SEQUENCE;
    assert_eq!(get_u32(&lying, at), get_u32(&honest, at) ^ 0x4000_0000);
    let mut msg = lying;
    let stored = get_u32(&msg, elem::CHECKSUM);
    put_u32(&mut msg, elem::CHECKSUM, 0);
    assert_eq!(checksum(&msg[..4096]), stored, "checksum resealed");
}

#[test]
fn header_lies_at_message_0_are_told_on_gsp_init_done() {
    // The boot commands get no reply: message 0 is GSP_INIT_DONE, status message 1 after
    // RUN_CPU_SEQUENCER (the rows lie-seq-skip and lie-length-short lie there).
    let r = elem::SIZE_OF;
    for (fault, at, value) in [
        ("seq-skip@0", elem::SEQ_NUM, 2),
        ("length-short@0", r + rpc::LENGTH, 31),
        ("count-huge@0", elem::ELEM_COUNT, 17),
    ] {
        let mut d = Driver::lying(Version::R570_144, fault);
        boot_commands(&mut d);
        assert_eq!(d.start(), 0, "{fault}: {}", d.log());
        let name = fault.split('@').next().unwrap_or(fault);
        assert!(
            d.log().contains(&format!("fault {name} at message 0")),
            "{fault}: {}",
            d.log()
        );
        let msg = raw_next(&d);
        assert_eq!(
            get_u32(&msg, r + rpc::FUNCTION),
            function::GSP_INIT_DONE,
            "{fault}"
        );
        assert_eq!(get_u32(&msg, at), value, "{fault}");
        assert_eq!(status_write_ptr(&d), 2, "{fault}: one element posted");
    }
}

#[test]
fn checksum_lie_leaves_everything_else_intact() {
    let d = lie_at_static_info("checksum");
    let msg = raw_next(&d);
    let err = decode(&msg).expect_err("the checksum is wrong");
    assert!(err.contains("checksum"), "{err}");
    assert_eq!(get_u32(&msg, elem::SEQ_NUM), 2);
    assert_eq!(
        get_u32(&msg, elem::SIZE_OF + rpc::FUNCTION),
        function::GET_GSP_STATIC_INFO
    );
}

#[test]
fn pointer_lies() {
    let d = lie_at_static_info("write-ptr-range");
    assert_eq!(status_write_ptr(&d), 63 + 7);

    let d = lie_at_static_info("write-ptr-back");
    assert_eq!(status_write_ptr(&d), 1, "one behind where the reply began");
    assert_eq!(raw_next(&d), vec![0u8; 4096], "the reply is not written");

    let mut d = lie_at_static_info("read-ptr-range");
    assert_eq!(d.get_u32(STATQ_OFF + 0x20), 66);
    assert_eq!(d.receive().len(), 1, "the reply itself is honest");
    // It stays out of range after the next command is consumed.
    d.send_static_info();
    assert_eq!(d.get_u32(STATQ_OFF + 0x20), 66);
}

#[test]
fn payload_lies() {
    let v = Version::R570_144;
    let mut d = lie_at_static_info("reply-short");
    assert_eq!(d.receive()[0].payload.len(), v.static_info_size() / 2);
    let mut d = lie_at_static_info("reply-long");
    assert_eq!(d.receive()[0].payload.len(), v.static_info_size() + 64);
    let mut d = lie_at_static_info("other-version");
    let m = d.receive();
    assert_eq!(m[0].payload.len(), v.other().static_info_size());
    let at = v.other().static_info_name_offset();
    assert_eq!(&m[0].payload[at..at + 6], b"NVIDIA");
}

#[test]
fn flood_fills_the_queue_with_events_before_each_message() {
    let mut d = Driver::lying(Version::R535_113_01, "flood@1");
    boot(&mut d);
    d.send_static_info();
    let msgs = d.receive();
    // 62 free elements, one for the reply: 30 events, then the reply.
    assert_eq!(msgs.len(), 31);
    assert!(msgs[..30].iter().all(|m| m.function == FLOOD_EVENT));
    assert_eq!(msgs[30].function, function::GET_GSP_STATIC_INFO);
    let seqs: Vec<u32> = msgs.iter().map(|m| m.seq).collect();
    assert_eq!(
        seqs,
        (2..33).collect::<Vec<_>>(),
        "consecutive sequence numbers"
    );
    // And again for the next message.
    d.send(function::UNLOADING_GUEST_DRIVER, &[]);
    let msgs = d.receive();
    assert_eq!(msgs.len(), 31);
    assert_eq!(msgs[30].function, function::UNLOADING_GUEST_DRIVER);
}

#[test]
fn an_unknown_event_comes_once_before_the_message() {
    let mut d = Driver::lying(Version::R570_144, "event-unknown@1");
    boot(&mut d);
    d.send_static_info();
    let got: Vec<(u32, u32)> = d.receive().iter().map(|m| (m.seq, m.function)).collect();
    assert_eq!(
        got,
        [
            (2, super::fault::UNKNOWN_EVENT),
            (3, function::GET_GSP_STATIC_INFO)
        ],
        "{}",
        d.log()
    );
    assert!(d
        .log()
        .contains("fault event-unknown at message 1: event 0x1fff first"));
    d.send(function::UNLOADING_GUEST_DRIVER, &[0; 8]);
    let got: Vec<u32> = d.receive().iter().map(|m| m.function).collect();
    assert_eq!(got, [function::UNLOADING_GUEST_DRIVER], "told once");
}

#[test]
fn flood_from_the_start_still_lets_the_gsp_come_up() {
    let mut d = Driver::lying(Version::R570_144, "flood@0");
    boot_commands(&mut d);
    assert_eq!(d.start(), 0);
    let msgs = d.receive();
    let replies: Vec<u32> = msgs
        .iter()
        .map(|m| m.function)
        .filter(|&f| f != FLOOD_EVENT)
        .collect();
    // The boot commands get no reply: GSP_INIT_DONE is the only message, after the events.
    assert_eq!(replies, [function::GSP_INIT_DONE], "{}", d.log());
    // 62 free elements, one for GSP_INIT_DONE: 30 events first.
    assert_eq!(msgs.len(), 31, "flooded: {} messages", msgs.len());
    assert_eq!(msgs[30].function, function::GSP_INIT_DONE);
}

#[test]
fn mute_stops_answering_but_keeps_running() {
    // mute@1: up, then silent.
    let mut d = Driver::lying(Version::R570_144, "mute@1");
    boot(&mut d);
    d.set_phase(7);
    d.send_static_info();
    assert!(d.receive().is_empty());
    assert!(d.log().contains("fault mute at message 1"), "{}", d.log());
    d.set_phase(8);
    d.doorbell();
    d.doorbell();
    assert_eq!(
        d.sysmem(8),
        (2, 0),
        "a mute GSP only polls its command queue's write pointer, once a tick"
    );
    assert!(d.tick(), "still running: only a reset stops it");

    // mute@0: never comes up.
    let mut d = Driver::lying(Version::R570_144, "mute@0");
    boot_commands(&mut d);
    assert_eq!(d.start(), 0);
    assert_eq!(
        status_write_ptr(&d),
        1,
        "RUN_CPU_SEQUENCER, not even GSP_INIT_DONE"
    );
    assert_eq!(d.get_u32(STATQ_OFF + 0x20), 0, "no command consumed");
    assert!(d.receive().is_empty());
}

#[test]
fn record_writes_every_posted_message() {
    let dir = super::firmware::tests::temp_dir("record");
    let mut d = Driver::recording(Version::R570_144, dir.clone());
    boot(&mut d);
    d.send_static_info();
    assert_eq!(d.receive().len(), 1);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("record folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["status-00000.bin", "status-00001.bin", "status-00002.bin"]
    );
    // RUN_CPU_SEQUENCER, GSP_INIT_DONE (the boot commands get no reply), the reply.
    let last = std::fs::read(dir.join("status-00002.bin")).expect("read");
    let m = decode(&last).expect("a recorded message is the message posted");
    assert_eq!(m.function, function::GET_GSP_STATIC_INFO);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_lies_before_their_message_are_honest() {
    // Whatever the lie, message 0 of the boot (GSP_INIT_DONE) is valid.
    for (name, _, _) in LIES {
        let mut d = Driver::lying(Version::R570_144, &format!("{name}@1"));
        boot(&mut d);
        assert!(!d.log().contains("fault"), "{name}: {}", d.log());
    }
}

#[test]
fn stream_posts_events_without_end_and_never_the_reply() {
    let mut d = Driver::lying(Version::R570_144, "stream@1");
    boot(&mut d);
    d.send_static_info();
    assert!(d.log().contains("fault stream at message 1"), "{}", d.log());
    let mut events = 0;
    for _ in 0..5 {
        let msgs = d.receive();
        assert_eq!(msgs.len(), 62, "the whole free room, every tick");
        assert!(msgs.iter().all(|m| m.function == FLOOD_EVENT));
        events += msgs.len();
        d.tick();
    }
    assert_eq!(events, 5 * 62);
    // Sequence numbers stay consecutive across ticks.
    let seqs: Vec<u32> = d.receive().iter().map(|m| m.seq).collect();
    assert_eq!(seqs.first(), Some(&(2 + 5 * 62)));
    // The unload is not answered either.
    d.send(function::UNLOADING_GUEST_DRIVER, &[]);
    assert!(d.receive().iter().all(|m| m.function == FLOOD_EVENT));
    assert!(d.tick());
}

#[test]
fn chatter_interleaves_events_with_every_reply() {
    let mut d = Driver::lying(Version::R570_144, "chatter@1");
    boot(&mut d);
    d.send_static_info();
    assert!(
        d.log().contains("fault chatter at message 1"),
        "{}",
        d.log()
    );
    let msgs = d.receive();
    let functions: Vec<u32> = msgs.iter().map(|m| m.function).collect();
    assert_eq!(
        functions.iter().filter(|&&f| f != FLOOD_EVENT).count(),
        1,
        "{functions:x?}"
    );
    let reply = functions
        .iter()
        .position(|&f| f == function::GET_GSP_STATIC_INFO)
        .expect("the reply");
    assert!(
        reply > 0 && functions[reply - 1] == FLOOD_EVENT,
        "an event right before the reply: {functions:x?}"
    );
    // Ticks of its own add one event each while there is room.
    for _ in 0..3 {
        d.tick();
    }
    let msgs = d.receive();
    assert_eq!(msgs.len(), 3);
    assert!(msgs.iter().all(|m| m.function == FLOOD_EVENT));
}

#[test]
fn unstoppable_runs_through_resets_and_the_unload() {
    let mut d = Driver::lying(Version::R570_144, "unstoppable");
    boot(&mut d);
    d.falcon_reset();
    assert!(
        d.log()
            .contains("fault unstoppable at message 1: falcon reset ignored"),
        "{}",
        d.log()
    );
    assert!(!d.halted());
    d.send(function::UNLOADING_GUEST_DRIVER, &[]);
    assert_eq!(d.receive().len(), 1, "the unload is acknowledged");
    d.set_phase(5);
    assert!(d.tick(), "and yet it runs");
    assert_ne!(d.sysmem(5), (0, 0), "touching memory");
    assert!(!d.halted());
}

#[test]
fn irq_storm_raises_swgen0_at_every_tick_with_nothing_posted() {
    let mut d = Driver::lying(Version::R570_144, "irq-storm@1");
    boot(&mut d);
    d.take_swgen0();
    d.tick();
    assert!(!d.take_swgen0(), "honest before message 1");
    d.send_static_info();
    assert!(
        d.log().contains(
            "fault irq-storm at message 1: SWGEN0 raised at every tick and again at each clear \
             from now on, nothing posted (fault irq-storm@1)"
        ),
        "{}",
        d.log()
    );
    assert_eq!(d.receive().len(), 1);
    for _ in 0..3 {
        assert!(d.take_swgen0());
        d.tick();
    }
    assert_eq!(status_write_ptr(&d), d.stat_rptr, "nothing more posted");
    assert_eq!(
        d.log().matches("fault irq-storm at").count(),
        1,
        "logged once"
    );
}

#[test]
fn irq_never_posts_without_swgen0() {
    let mut d = Driver::lying(Version::R570_144, "irq-never@1");
    boot(&mut d);
    assert!(d.take_swgen0(), "GSP_INIT_DONE, message 0, raises it");
    d.send_static_info();
    assert_eq!(d.receive().len(), 1);
    assert!(!d.take_swgen0(), "message 1 comes without SWGEN0");
    assert!(
        d.log()
            .contains("fault irq-never at message 1: SWGEN0 never raised from now on"),
        "{}",
        d.log()
    );
    d.send_static_info();
    assert_eq!(d.receive().len(), 1);
    assert!(!d.take_swgen0());
}

#[test]
fn irq_stuck_keeps_swgen0_through_irqsclr() {
    let mut d = Driver::lying(Version::R570_144, "irq-stuck@1");
    boot(&mut d);
    assert!(d.take_swgen0());
    assert!(!d.take_swgen0(), "IRQSCLR still clears before message 1");
    d.send_static_info();
    assert!(
        d.log()
            .contains("fault irq-stuck at message 1: IRQSCLR no longer clears SWGEN0"),
        "{}",
        d.log()
    );
    for _ in 0..3 {
        assert!(d.take_swgen0(), "pending whatever IRQSCLR says");
        d.tick();
    }
    // A falcon reset stops GSP-RM and clears the status: the lie goes with it.
    d.falcon_reset();
    d.tick();
    assert!(!d.take_swgen0());
}

#[test]
fn the_events_of_a_lie_raise_swgen0_too() {
    let mut d = Driver::lying(Version::R570_144, "chatter@1");
    boot(&mut d);
    d.send_static_info();
    d.receive();
    assert!(d.take_swgen0());
    d.tick();
    assert_eq!(d.receive().len(), 1, "an event of the chatter");
    assert!(d.take_swgen0());
}
