//! Crash states of a recorded workload, checked one by one: the SCFTL
//! paper's thesis as a tool.
//!
//! A snapshot-consistent device *determinizes* crash behavior: after a
//! power cut it holds the state of one of its flushes (or internal epoch
//! barriers). An order-preserving (prefix) disk may hold the state after
//! any write; an ordinary disk with a volatile cache, any subset of the
//! writes since the last flush. This crate takes a [`trace::Trace`] of
//! what a program wrote (recorded below `scftl serve --record` by
//! [`trace::Recorder`]), lists the crash states each contract allows
//! ([`states`]), writes each as an image file ([`image`]), runs the user's
//! check on it ([`check`]), and reports the failing states, minimized, with
//! the command that replays each ([`run`]).
//!
//! What it must never do: report a state as passing that was not checked
//! (verdicts are reused only for byte-identical content), or hand a check
//! an image that differs from the state it names.

pub mod check;
pub mod image;
pub mod run;
pub mod states;
pub mod trace;
