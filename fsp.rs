// SPDX-License-Identifier: GPL-2.0

//! The FSP (Hopper and later, `docs/fsp-chain.md`): the falcon that verifies GSP-FMC and starts
//! it, GSP-RM's starter on these chips. The driver waits for its boot status, then talks to it
//! through its EMEM and two queues: one message, the chain of trust ([`protocol::Cot`]), and
//! one reply, which must accept it.
//!
//! Every wait has one deadline, whatever the FSP writes; every value it gives goes through a
//! validator of [`protocol`].

use kernel::{
    device,
    io::{
        poll::read_poll_timeout,
        Io, //
    },
    prelude::*,
    time::Delta, //
};

use crate::{
    bar0::SharedBar0,
    family::{
        BootStatusReg,
        FspHal, //
    },
    untrusted::Untrusted, //
};

pub(crate) mod protocol;
pub(crate) mod regs;

use protocol::{
    BootStatus,
    Consumed,
    Cot,
    CotAccepted,
    NotReady,
    Pending,
    QueueError,
    QueuePointers,
    ReplyError,
    COT_MESSAGE_SIZE,
    NVDM_TYPE_COT, //
};

/// How long the FSP may take to say it is ready once the device is bound: nova-core's bound
/// (`nova-core/fsp.rs`, `wait_secure_boot`, 5 s); nouveau reads 4000 times 1 to 2 ms apart
/// (`nvkm/subdev/fsp/gh100.c`, `gh100_fsp_wait_secure_boot`).
const BOOT_TIMEOUT: Delta = Delta::from_secs(5);
/// How long the FSP may take to take the driver's message off its queue: nouveau reads 1000 times 1
/// to 2 ms apart (`nvkm/subdev/fsp/gh100.c`, `gh100_fsp_send`); nova-core does not wait for it.
const CONSUME_TIMEOUT: Delta = Delta::from_secs(2);
/// How long the FSP may take to reply: nova-core's bound (`nova-core/falcon/fsp.rs`, `FSP_MSG_TIMEOUT_MS`, 2 s);
/// nouveau reads 1000 times 1 to 2 ms apart (`nvkm/subdev/fsp/gh100.c`, `gh100_fsp_wait`).
const REPLY_TIMEOUT: Delta = Delta::from_secs(2);
/// How often the FSP's registers are read while waiting.
const POLL: Delta = Delta::from_millis(1);

/// The FSP of a bound device.
pub(crate) struct Fsp<'a> {
    bar: &'a SharedBar0,
    hal: &'static FspHal,
}

impl<'a> Fsp<'a> {
    pub(crate) fn new(bar: &'a SharedBar0, hal: &'static FspHal) -> Self {
        Fsp { bar, hal }
    }

    /// The boot status as the device answers it.
    fn boot_status(&self) -> Result<Result<BootStatus, NotReady>> {
        let raw = self.bar.with(|bar| {
            Untrusted::new_untrusted(match self.hal.boot_status {
                BootStatusReg::Therm => bar
                    .read(regs::NV_THERM_I2CS_SCRATCH_FSP_BOOT_STATUS)
                    .into_raw(),
                BootStatusReg::ThermGb202 => bar
                    .read(regs::NV_THERM_I2CS_SCRATCH_FSP_BOOT_STATUS_GB202)
                    .into_raw(),
            })
        })?;
        Ok(raw.validate::<BootStatus>())
    }

    /// Waits until the FSP says it can take messages: not by [`BOOT_TIMEOUT`] fails with
    /// `ETIMEDOUT` and the status it gave.
    pub(crate) fn wait_ready(&self, dev: &device::Device) -> Result {
        let status = read_poll_timeout(
            || self.boot_status(),
            |s| s.is_ok(),
            Delta::from_millis(10),
            BOOT_TIMEOUT,
        )
        .or_else(|_| self.boot_status())?;
        status.map(|_| ()).map_err(|NotReady(raw)| {
            dev_err!(
                dev,
                "FSP not ready within {} ms: boot status {:#x}, not {:#x}\n",
                BOOT_TIMEOUT.as_millis(),
                raw,
                protocol::BOOT_STATUS_READY
            );
            ETIMEDOUT
        })
    }

    /// Whether the FSP took the last command, as the command queue's pointers say.
    fn command_consumed(&self) -> Result<bool> {
        let pointers = self.bar.with(|bar| {
            Untrusted::new_untrusted(QueuePointers {
                head: bar.read(regs::NV_PFSP_QUEUE_HEAD).into_raw(),
                tail: bar.read(regs::NV_PFSP_QUEUE_TAIL).into_raw(),
            })
        })?;
        Ok(pointers.validate::<Consumed>().is_ok())
    }

    /// Sends `msg` (whole dwords): into EMEM from offset 0, then the command queue's tail (its
    /// last dword), then its head, which hands it over. The FSP must have taken the previous
    /// command, within [`CONSUME_TIMEOUT`]. A failure means nothing was sent: the writes run in
    /// one access to BAR0, which either makes them all or, revoked, none.
    fn send(&self, dev: &device::Device, msg: &[u8]) -> Result {
        let last = msg
            .len()
            .checked_sub(4)
            .filter(|_| msg.len() % 4 == 0)
            .and_then(|last| u32::try_from(last).ok())
            .ok_or(EINVAL)?;
        read_poll_timeout(
            || self.command_consumed(),
            |&consumed| consumed,
            POLL,
            CONSUME_TIMEOUT,
        )
        .map_err(|e| {
            if e != ETIMEDOUT {
                return e;
            }
            dev_err!(
                dev,
                "FSP: the command queue is still busy after {} ms\n",
                CONSUME_TIMEOUT.as_millis()
            );
            EBUSY
        })?;
        self.bar.with(|bar| {
            bar.write_reg(regs::NV_PFSP_EMEMC::zeroed().with_aincw(true));
            for dword in msg.chunks_exact(4) {
                let mut b = [0u8; 4];
                b.copy_from_slice(dword);
                bar.write_reg(regs::NV_PFSP_EMEMD::from_raw(u32::from_le_bytes(b)));
            }
            bar.write_reg(regs::NV_PFSP_QUEUE_TAIL::from_raw(last));
            // The message starts at EMEM offset 0.
            bar.write_reg(regs::NV_PFSP_QUEUE_HEAD::zeroed());
        })
    }

    /// The message queue's pointers as the device answers them, validated.
    fn pending(&self) -> Result<Result<Pending, QueueError>> {
        let pointers = self.bar.with(|bar| {
            Untrusted::new_untrusted(QueuePointers {
                head: bar.read(regs::NV_PFSP_MSGQ_HEAD).into_raw(),
                tail: bar.read(regs::NV_PFSP_MSGQ_TAIL).into_raw(),
            })
        })?;
        Ok(pointers.validate::<Pending>())
    }

    /// Waits for the FSP's reply, at most [`REPLY_TIMEOUT`], and reads it from EMEM offset 0;
    /// then empties the message queue.
    fn receive(&self, dev: &device::Device) -> Result<Untrusted<KVec<u8>>> {
        let pending = read_poll_timeout(
            || self.pending(),
            |p| !matches!(p, Err(QueueError::Empty)),
            POLL,
            REPLY_TIMEOUT,
        )
        .inspect_err(|&e| {
            if e == ETIMEDOUT {
                dev_err!(
                    dev,
                    "FSP: no reply within {} ms\n",
                    REPLY_TIMEOUT.as_millis()
                );
            }
        })?
        .map_err(|e| {
            dev_err!(dev, "FSP: {}\n", e);
            EIO
        })?;
        let mut reply = Untrusted::new_untrusted(KVec::from_elem(0u8, pending.len, GFP_KERNEL)?);
        let mut fill = reply.overwrite();
        self.bar.with(|bar| {
            bar.write_reg(regs::NV_PFSP_EMEMC::zeroed().with_aincr(true));
            for dword in fill.bytes().chunks_exact_mut(4) {
                dword.copy_from_slice(&bar.read(regs::NV_PFSP_EMEMD).into_raw().to_le_bytes());
            }
            // Both pointers back at EMEM offset 0: the queue is empty.
            bar.write_reg(regs::NV_PFSP_MSGQ_TAIL::zeroed());
            bar.write_reg(regs::NV_PFSP_MSGQ_HEAD::zeroed());
        })?;
        Ok(reply)
    }

    /// Sends the chain-of-trust message `cot` and checks the FSP's reply: accepted, GSP-FMC
    /// runs. Anything else fails, saying whether the FSP may have taken the message and started
    /// GSP-FMC all the same ([`CotFailure`]).
    pub(crate) fn chain_of_trust(
        &self,
        dev: &device::Device,
        cot: &Cot<'_>,
    ) -> core::result::Result<(), CotFailure> {
        let not_sent = |error| CotFailure {
            error,
            may_run: false,
        };
        let mut msg =
            KBox::new([0u8; COT_MESSAGE_SIZE], GFP_KERNEL).map_err(|e| not_sent(e.into()))?;
        cot.write(&mut msg).map_err(|e| {
            dev_err!(dev, "FSP: {}\n", e);
            not_sent(EINVAL)
        })?;
        // A failed send sent nothing (see `send`): the FSP never had the message.
        self.send(dev, &msg[..]).map_err(not_sent)?;
        // From here on the FSP has the message: only a well-formed refusal says it did not
        // start GSP-FMC.
        let reply = self.receive(dev).map_err(|error| CotFailure {
            error,
            may_run: true,
        })?;
        let reply: &Untrusted<[u8]> = &reply;
        reply
            .validate_ref_against::<CotAccepted, _>(NVDM_TYPE_COT)
            .map(|_| ())
            .map_err(|e| {
                dev_err!(dev, "FSP refused the chain of trust: {}\n", e);
                CotFailure {
                    error: EIO,
                    may_run: !matches!(e, ReplyError::Refused(_)),
                }
            })
    }
}

/// Why the chain of trust did not go through.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CotFailure {
    pub(crate) error: Error,
    /// The FSP may have taken the message and started GSP-FMC (no reply, or one the driver
    /// cannot read): what the message names may still be read.
    pub(crate) may_run: bool,
}
