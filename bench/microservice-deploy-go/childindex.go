package main

// What the controller knows about the children it writes, without asking the API server: each child's
// resourceVersion and controller (fed by event handlers on the informers the controller's Owns() watches already
// use, so it costs no watch of its own) and what this process last applied to it. With it a reconcile skips the
// server-side apply of a child whose desired content is what this process last applied, when no event since showed
// another resourceVersion than the one that apply returned: the same rule as rkb_runtime::child_index.
//
// After a restart, also as rkb_runtime::child_index: each apply records the fingerprint of its content in the
// child's contentAnnotation, and a child this process has not applied yet is taken as applied with that content
// when this field manager's Apply is the last write to the child's content (later than every other manager's
// managedFields entry outside subresources). Without it a restarted twin would re-apply every child, and the
// benchmark's restart would compare different writes (see steady_state's restart.rs).

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type childKey struct {
	kind, namespace, name string
}

// contentAnnotation holds the fingerprint of the content an apply sent (hexadecimal), rkb's annotation.
const contentAnnotation = "rkb.dev/applied-content"

type seenChild struct {
	resourceVersion string
	controllerUID   types.UID // empty when nothing controls it
	// appliedLast: the content fingerprint in contentAnnotation, when this field manager made the last write to
	// the child's content (hasAppliedLast false otherwise).
	appliedLast    uint64
	hasAppliedLast bool
}

type appliedChild struct {
	content         uint64
	resourceVersion string
	// dirty: an event showed another resourceVersion after this apply; someone else may have changed the child.
	dirty bool
}

// ChildIndex is shared by the reconciles and the informer event handlers of one controller.
type ChildIndex struct {
	mu       sync.Mutex
	seen     map[childKey]seenChild
	applied  map[childKey]appliedChild
	statuses map[childKey]uint64
	// listed: one per watched kind, true once the handler has taken in the informer's initial objects.
	listed    []func() bool
	allListed atomic.Bool
}

// NewChildIndex returns an empty index.
func NewChildIndex() *ChildIndex {
	return &ChildIndex{
		seen:     map[childKey]seenChild{},
		applied:  map[childKey]appliedChild{},
		statuses: map[childKey]uint64{},
	}
}

// fingerprint hashes what would be sent.
func fingerprint(v any) uint64 {
	body, _ := json.Marshal(v)
	h := fnv.New64a()
	_, _ = h.Write(body)
	return h.Sum64()
}

// newer says whether resourceVersion a is later than b (etcd revisions; any difference counts when they are not
// integers, which costs an apply, never a missed one).
func newer(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return a != b
	}
	return x > y
}

// IsCurrent says whether the child was last applied with content and no event since shows another change.
func (i *ChildIndex) IsCurrent(key childKey, content uint64) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	a, ok := i.applied[key]
	return ok && a.content == content && !a.dirty
}

// RecordApplied records what was applied and the resourceVersion the API server returned for it.
func (i *ChildIndex) RecordApplied(key childKey, content uint64, resourceVersion string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if resourceVersion == "" {
		delete(i.applied, key)
		return
	}
	// An event newer than this apply may already be in (its reconcile then finds the child dirty).
	s, ok := i.seen[key]
	dirty := ok && newer(s.resourceVersion, resourceVersion)
	i.applied[key] = appliedChild{content: content, resourceVersion: resourceVersion, dirty: dirty}
}

// Forget drops what was applied to a child (after deleting it).
func (i *ChildIndex) Forget(key childKey) {
	i.mu.Lock()
	defer i.mu.Unlock()
	delete(i.applied, key)
}

// Exists says whether the child is known to exist.
func (i *ChildIndex) Exists(key childKey) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	_, ok := i.seen[key]
	return ok
}

// ControllerUID is the uid of the child's controller; known is false when the child is not known.
func (i *ChildIndex) ControllerUID(key childKey) (uid types.UID, known bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	s, ok := i.seen[key]
	return s.controllerUID, ok
}

// StatusWritten says whether content is the status last written for owner.
func (i *ChildIndex) StatusWritten(owner childKey, content uint64) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	written, ok := i.statuses[owner]
	return ok && written == content
}

// RecordStatus records the status written for owner.
func (i *ChildIndex) RecordStatus(owner childKey, content uint64) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.statuses[owner] = content
}

// WaitListed returns once every watched kind's initial objects are in the index (at once after the first time), so
// a reconcile right after a restart finds what earlier processes applied; false when ctx ends first.
func (i *ChildIndex) WaitListed(ctx context.Context) bool {
	for !i.allListed.Load() {
		done := true
		for _, listed := range i.listed {
			done = done && listed()
		}
		if done {
			i.allListed.Store(true)
			break
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// appliedLast is the content fingerprint in m's contentAnnotation when manager's Apply is the last write to m's
// content: later than every other manager's entry outside subresources (an entry from the same second is not).
func appliedLast(m metav1.Object, manager string) (uint64, bool) {
	annotation, ok := m.GetAnnotations()[contentAnnotation]
	if !ok {
		return 0, false
	}
	var ours *metav1.Time
	for _, e := range m.GetManagedFields() {
		if e.Subresource == "" && e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply {
			ours = e.Time
		}
	}
	if ours == nil {
		return 0, false
	}
	for _, e := range m.GetManagedFields() {
		isOurs := e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply
		if e.Subresource == "" && !isOurs && (e.Time == nil || !e.Time.Before(ours)) {
			return 0, false
		}
	}
	content, err := strconv.ParseUint(annotation, 16, 64)
	return content, err == nil
}

func (i *ChildIndex) changed(key childKey, s seenChild) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if _, ok := i.applied[key]; !ok && s.hasAppliedLast {
		// Applied by an earlier process, and nobody wrote its content since.
		i.applied[key] = appliedChild{content: s.appliedLast, resourceVersion: s.resourceVersion}
	}
	if a, ok := i.applied[key]; ok {
		// Events come in resourceVersion order: ours clears what came before it, a later one is someone else's
		// change, an earlier one was overwritten by ours.
		if s.resourceVersion == a.resourceVersion {
			a.dirty = false
		} else if newer(s.resourceVersion, a.resourceVersion) {
			a.dirty = true
		}
		i.applied[key] = a
	}
	i.seen[key] = s
}

func (i *ChildIndex) deleted(key childKey) {
	i.mu.Lock()
	defer i.mu.Unlock()
	delete(i.seen, key)
	delete(i.applied, key)
}

// Watch feeds the index from the cache's informer for obj's kind (the one Owns() uses), for the objects labelled
// as this controller's children. A relist arrives as updates and deletions, so nothing needs special handling.
func (i *ChildIndex) Watch(ctx context.Context, c cache.Cache, kind string, obj client.Object) error {
	informer, err := c.GetInformer(ctx, obj)
	if err != nil {
		return err
	}
	entry := func(o any) (childKey, seenChild, bool) {
		if tombstone, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
			o = tombstone.Obj
		}
		m, ok := o.(metav1.Object)
		if !ok || m.GetLabels()[managedLabel] != "true" {
			return childKey{}, seenChild{}, false
		}
		s := seenChild{resourceVersion: m.GetResourceVersion()}
		s.appliedLast, s.hasAppliedLast = appliedLast(m, fieldOwner)
		if ref := metav1.GetControllerOfNoCopy(m); ref != nil {
			s.controllerUID = ref.UID
		}
		return childKey{kind: kind, namespace: m.GetNamespace(), name: m.GetName()}, s, true
	}
	registration, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if key, s, ok := entry(o); ok {
				i.changed(key, s)
			}
		},
		UpdateFunc: func(_, o any) {
			if key, s, ok := entry(o); ok {
				i.changed(key, s)
			}
		},
		DeleteFunc: func(o any) {
			if key, _, ok := entry(o); ok {
				i.deleted(key)
			}
		},
	})
	if err != nil {
		return err
	}
	i.listed = append(i.listed, registration.HasSynced)
	return nil
}
