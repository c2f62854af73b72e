//! The locks, condition variable and atomics `SharedDevice` uses: parking_lot's and std's in
//! every real build, and with the `shuttle` feature (tests only) shuttle's,
//! behind the same small API, so that shuttle's scheduler decides every
//! interleaving of the concurrent crash test and a failing schedule
//! replays from its seed.

#[cfg(not(feature = "shuttle"))]
pub(crate) use parking_lot::{Mutex, RwLock};

/// parking_lot's `Condvar`, with `wait` taking and giving back the guard
/// (the shape shuttle's has too).
#[cfg(not(feature = "shuttle"))]
pub(crate) struct Condvar(parking_lot::Condvar);

#[cfg(not(feature = "shuttle"))]
impl Condvar {
    pub(crate) fn new() -> Condvar {
        Condvar(parking_lot::Condvar::new())
    }
    pub(crate) fn wait<'a, T>(
        &self,
        mut guard: parking_lot::MutexGuard<'a, T>,
    ) -> parking_lot::MutexGuard<'a, T> {
        self.0.wait(&mut guard);
        guard
    }
    pub(crate) fn notify_all(&self) {
        self.0.notify_all();
    }
}
#[cfg(not(feature = "shuttle"))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64};

#[cfg(feature = "shuttle")]
pub(crate) use shuttle::sync::atomic::{AtomicBool, AtomicU64};

#[cfg(feature = "shuttle")]
mod shim {
    /// parking_lot's `RwLock` API over shuttle's (a panic while a guard
    /// is held fails the test anyway, so poisoning is unwrapped).
    pub(crate) struct RwLock<T>(shuttle::sync::RwLock<T>);

    impl<T> RwLock<T> {
        pub(crate) fn new(v: T) -> RwLock<T> {
            RwLock(shuttle::sync::RwLock::new(v))
        }
        pub(crate) fn read(&self) -> shuttle::sync::RwLockReadGuard<'_, T> {
            self.0.read().expect("a thread panicked holding the lock")
        }
        pub(crate) fn write(&self) -> shuttle::sync::RwLockWriteGuard<'_, T> {
            self.0.write().expect("a thread panicked holding the lock")
        }
        pub(crate) fn into_inner(self) -> T {
            self.0
                .into_inner()
                .expect("a thread panicked holding the lock")
        }
        pub(crate) fn get_mut(&mut self) -> &mut T {
            self.0
                .get_mut()
                .expect("a thread panicked holding the lock")
        }
    }

    /// parking_lot's `Mutex` API over shuttle's.
    pub(crate) struct Mutex<T>(shuttle::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub(crate) fn new(v: T) -> Mutex<T> {
            Mutex(shuttle::sync::Mutex::new(v))
        }
        pub(crate) fn lock(&self) -> shuttle::sync::MutexGuard<'_, T> {
            self.0.lock().expect("a thread panicked holding the lock")
        }
        pub(crate) fn try_lock(&self) -> Option<shuttle::sync::MutexGuard<'_, T>> {
            self.0.try_lock().ok()
        }
    }

    /// The `Condvar` API of the real build over shuttle's.
    pub(crate) struct Condvar(shuttle::sync::Condvar);

    impl Condvar {
        pub(crate) fn new() -> Condvar {
            Condvar(shuttle::sync::Condvar::new())
        }
        pub(crate) fn wait<'a, T>(
            &self,
            guard: shuttle::sync::MutexGuard<'a, T>,
        ) -> shuttle::sync::MutexGuard<'a, T> {
            self.0
                .wait(guard)
                .expect("a thread panicked holding the lock")
        }
        pub(crate) fn notify_all(&self) {
            self.0.notify_all();
        }
    }
}

#[cfg(feature = "shuttle")]
pub(crate) use shim::{Condvar, Mutex, RwLock};
