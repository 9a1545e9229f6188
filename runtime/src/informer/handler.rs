//! Event handlers and their delivery: each registered handler gets its own queue and task, so a
//! slow handler delays only itself (client-go's processorListener), and sees events in order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

/// Reacts to changes of the informer's cache. All methods default to doing nothing.
///
/// Methods run on the handler's own task, one event at a time, in the order the cache changed.
pub trait EventHandler<K>: Send + Sync + 'static {
    /// `obj` entered the cache; `is_in_initial_list` is true for objects of the first list
    /// (or of the cache as it was when this handler was registered).
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        let _ = (obj, is_in_initial_list);
    }
    /// `old` was replaced by `new` (also sent with `old == new` on every resync).
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        let _ = (old, new);
    }
    /// `obj` left the cache; it is the last state the informer knew.
    fn on_delete(&self, obj: &Arc<K>) {
        let _ = obj;
    }
}

type AddFn<K> = Box<dyn Fn(&Arc<K>, bool) + Send + Sync>;
type UpdateFn<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync>;
type DeleteFn<K> = Box<dyn Fn(&Arc<K>) + Send + Sync>;

/// An [`EventHandler`] from closures (client-go's `ResourceEventHandlerFuncs`).
pub struct HandlerFuncs<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
}

impl<K> Default for HandlerFuncs<K> {
    fn default() -> Self {
        HandlerFuncs {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K> HandlerFuncs<K> {
    /// No reactions yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Called with each added object and whether it came with the initial list.
    pub fn on_add(mut self, f: impl Fn(&Arc<K>, bool) + Send + Sync + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    /// Called with old and new state of each updated object.
    pub fn on_update(mut self, f: impl Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Called with the last known state of each deleted object.
    pub fn on_delete(mut self, f: impl Fn(&Arc<K>) + Send + Sync + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K: Send + Sync + 'static> EventHandler<K> for HandlerFuncs<K> {
    fn on_add(&self, obj: &Arc<K>, initial: bool) {
        if let Some(f) = &self.add {
            f(obj, initial)
        }
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if let Some(f) = &self.update {
            f(old, new)
        }
    }
    fn on_delete(&self, obj: &Arc<K>) {
        if let Some(f) = &self.delete {
            f(obj)
        }
    }
}

/// One queued event for one handler.
pub(crate) enum Notification<K> {
    Add(Arc<K>, bool),
    Update(Arc<K>, Arc<K>),
    Delete(Arc<K>),
    /// Everything of the initial list has been queued before this.
    Synced,
}

/// The informer's side of one registered handler.
pub(crate) struct Listener<K> {
    pub(crate) id: u64,
    pub(crate) tx: mpsc::UnboundedSender<Notification<K>>,
}

impl<K> Listener<K> {
    pub(crate) fn send(&self, n: Notification<K>) {
        // A closed queue means the handler was removed; nothing to deliver to.
        let _ = self.tx.send(n);
    }
}

/// Starts the task that feeds `handler` from a fresh queue.
pub(crate) fn spawn_listener<K: Send + Sync + 'static>(
    id: u64,
    handler: impl EventHandler<K>,
) -> (Listener<K>, Arc<AtomicBool>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Notification<K>>();
    let synced = Arc::new(AtomicBool::new(false));
    let flag = synced.clone();
    tokio::spawn(async move {
        while let Some(n) = rx.recv().await {
            match n {
                Notification::Add(o, initial) => handler.on_add(&o, initial),
                Notification::Update(old, new) => handler.on_update(&old, &new),
                Notification::Delete(o) => handler.on_delete(&o),
                Notification::Synced => flag.store(true, Ordering::Release),
            }
        }
    });
    (Listener { id, tx }, synced)
}

/// Returned by `add_event_handler`: tells whether this handler has seen the initial list.
#[derive(Clone, Debug)]
pub struct HandlerRegistration {
    pub(crate) id: u64,
    pub(crate) synced: Arc<AtomicBool>,
}

impl HandlerRegistration {
    /// True once the handler has processed every object of the initial list.
    pub fn has_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }
}
