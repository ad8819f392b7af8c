//! A per-process map whose values are made once per key, for the CUDA path's caches (compiled
//! kernels, loaded functions, device attributes, occupancy answers).
//!
//! Engines call `blasst_attn_run` from several threads at once, and the first use of a kernel
//! variant compiles it (NVRTC, 0.2-1.5 s). With one lock around the whole map, that compile
//! held up every other thread's launch, even of kernels loaded long before. Here:
//! * a value that is made is read under a read lock only (no caller waits for a making);
//! * callers of the same key wait for the first one's making (one compile per key), callers of
//!   other keys make theirs at the same time (NVRTC compiles different programs concurrently);
//! * a failed making is not kept: the next caller of the key tries again;
//! * a panic inside a making (caught at the C boundary) poisons nothing: the locks' poison is
//!   ignored, and the key is simply not made.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, RwLock};

pub(crate) struct OnceMap<K, V> {
    ready: RwLock<HashMap<K, V>>,
    /// One gate per key being (or once) made; held while making that key.
    gates: Mutex<HashMap<K, Arc<Mutex<()>>>>,
}

impl<K: Eq + Hash + Clone, V: Clone> Default for OnceMap<K, V> {
    fn default() -> Self {
        OnceMap {
            ready: RwLock::new(HashMap::new()),
            gates: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> OnceMap<K, V> {
    /// The value of `key`, made by `make` if no caller has made it yet.
    pub(crate) fn get_or_try_make<E>(
        &self,
        key: &K,
        make: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        if let Some(v) = self.get(key) {
            return Ok(v);
        }
        let gate = self
            .gates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default()
            .clone();
        let _making = gate.lock().unwrap_or_else(|e| e.into_inner());
        // Made by the caller that held the gate before us?
        if let Some(v) = self.get(key) {
            return Ok(v);
        }
        let v = make()?;
        self.ready
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.clone(), v.clone());
        Ok(v)
    }

    /// The value of `key` if it has been made.
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.ready
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::OnceMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier, mpsc};
    use std::time::Duration;

    #[test]
    fn one_making_per_key_and_failures_are_not_kept() {
        let m: OnceMap<u32, u32> = OnceMap::default();
        let calls = AtomicUsize::new(0);
        assert_eq!(
            m.get_or_try_make(&1, || {
                calls.fetch_add(1, Ordering::SeqCst);
                Err::<u32, &str>("no")
            }),
            Err("no")
        );
        assert_eq!(m.get(&1), None);
        for _ in 0..3 {
            let v = m.get_or_try_make(&1, || {
                calls.fetch_add(1, Ordering::SeqCst);
                Ok::<u32, &str>(7)
            });
            assert_eq!(v, Ok(7));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    /// Threads of one key wait for its one making; a making in progress holds up no reader of
    /// a key made before (if it did, the readers below could not finish while key 0 is being
    /// made, and its making, which waits for them, would give up after 10 s).
    #[test]
    fn threads_wait_only_for_their_own_key() {
        let m: Arc<OnceMap<u32, u32>> = Arc::new(OnceMap::default());
        m.get_or_try_make(&1, || Ok::<u32, ()>(11)).unwrap();
        let (started_tx, started) = mpsc::channel();
        let (readers_done, done_rx) = mpsc::channel::<()>();
        let maker = {
            let m = m.clone();
            std::thread::spawn(move || {
                m.get_or_try_make(&0, || {
                    started_tx.send(()).unwrap();
                    done_rx.recv_timeout(Duration::from_secs(10)).map(|_| 10)
                })
            })
        };
        started.recv().unwrap();
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    m.get_or_try_make(&1, || Ok::<u32, mpsc::RecvTimeoutError>(0))
                })
            })
            .collect();
        for r in readers {
            assert_eq!(r.join().unwrap(), Ok(11));
        }
        readers_done.send(()).unwrap();
        assert_eq!(maker.join().unwrap(), Ok(10));

        // Eight threads at once on one new key: one making.
        let made = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(8));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (m, made, start) = (m.clone(), made.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    m.get_or_try_make(&2, || {
                        made.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(50));
                        Ok::<u32, ()>(12)
                    })
                })
            })
            .collect();
        for h in threads {
            assert_eq!(h.join().unwrap(), Ok(12));
        }
        assert_eq!(made.load(Ordering::SeqCst), 1);
    }
}
