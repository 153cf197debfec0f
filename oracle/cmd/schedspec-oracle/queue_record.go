// recordQueue: the real scheduling queue observed step by step, in virtual time.
//
// With "recordQueue" in a schedule request, the scheduler is built with a fake clock
// (scheduler.WithClock, k8s.io/utils/clock/testing) and its SchedulingQueue is wrapped: every
// holder of the queue that can change a pod's place goes through the wrapper (the Scheduler's
// SchedulingQueue field, which the event handlers and ScheduleOne call; NextPod, which
// scheduler.New binds to the queue's Pop; each profile's PodActivator). The wrapper serializes
// those calls, diffs the queue's places around each one (a "move" record per pod that changed
// place, labelled with the call's cluster event or queue cause) and takes an observation of
// every pod after it: its place, and the QueuedPodInfo fields the queue keeps (Attempts,
// UnschedulableCount, ConsecutiveErrorsCount, Timestamp, BackoffExpiration,
// UnschedulablePlugins, PendingPlugins).
//
// The queue's two periodic flushes are not left to PriorityQueue.Run's goroutines (the 30 s
// one runs on wait.Until, real time): the loop calls the queue's own flushBackoffQCompleted and
// flushUnschedulablePodsLeftover (pkg/scheduler/backend/queue/scheduling_queue.go) at the
// virtual times Run would — every whole second, every 30 s from the start — and advances the
// fake clock only when nothing can be popped, so a run goes past the 5-minute
// UnschedulableTimeout in milliseconds of wall time.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
	_ "unsafe" // go:linkname of the queue's flushes

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	corev1conv "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/scheduler"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"
)

//go:linkname flushBackoffQCompleted k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func flushBackoffQCompleted(p *internalqueue.PriorityQueue, logger klog.Logger)

//go:linkname flushUnschedulablePodsLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulablePodsLeftover
func flushUnschedulablePodsLeftover(p *internalqueue.PriorityQueue, logger klog.Logger)

// queueRequest is the "recordQueue" object of a schedule request.
type queueRequest struct {
	// Idle: the run stops when the next timer is more than Idle virtual seconds after the last
	// progress (a binding, a deletion, an object created), as impl's Scheduler.run does.
	Idle float64 `json:"idle"`
	// Horizon: never past this many virtual seconds.
	Horizon float64 `json:"horizon"`
	// Later: nodes created at virtual times.
	Later []struct {
		At   float64         `json:"at"`
		Node json.RawMessage `json:"node"`
		// Update: the node replaces the existing one of its name (an update, not a create).
		Update bool `json:"update"`
	} `json:"later"`
}

const (
	flushLeftoverPeriod = 30 // PriorityQueue.Run's wait.Until period, seconds
	defaultIdle         = 60
	defaultHorizon      = 3600
)

var clockBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// podView is a pod's queue fields, frozen while it is in flight (the scheduling cycle writes
// the failure's plugins into the QueuedPodInfo before handing it back to the queue).
type podView struct {
	attempts, unschedulable, errors int
	timestamp, expiry               time.Time
	rejecting, pending              []string
}

func viewOf(pi *framework.QueuedPodInfo) podView {
	return podView{pi.Attempts, pi.UnschedulableCount, pi.ConsecutiveErrorsCount, pi.Timestamp,
		pi.BackoffExpiration, sets.List(pi.UnschedulablePlugins), sets.List(pi.PendingPlugins)}
}

// queueRecorder is the wrapper's bookkeeping; mu serializes every wrapped call.
type queueRecorder struct {
	mu       sync.Mutex
	real     internalqueue.SchedulingQueue
	pq       *internalqueue.PriorityQueue
	sched    *scheduler.Scheduler
	clock    *testingclock.FakeClock
	logger   klog.Logger
	pods     map[string]*v1.Pod // every pod of the request, by key
	infos    map[string]*framework.QueuedPodInfo
	frozen   map[string]podView // at Pop, until the pod is back in a queue
	prebound map[string]float64 // bound before the run: when the scheduler's cache had it
	bound    map[string]string  // seen bound in the cache: node
	events   map[string]int     // MoveAllToActiveOrBackoffQueue calls by event label
	records  [][]any
	trace    []map[string]any
}

func newQueueRecorder(c *cluster, clk *testingclock.FakeClock) *queueRecorder {
	rec := &queueRecorder{clock: clk, pods: map[string]*v1.Pod{},
		infos: map[string]*framework.QueuedPodInfo{}, frozen: map[string]podView{},
		prebound: map[string]float64{}, bound: map[string]string{}, events: map[string]int{}}
	for _, p := range c.pods {
		rec.pods[podKey(p)] = p
	}
	return rec
}

// install wraps the scheduler's queue (called between scheduler.New and the informers' start).
func (rec *queueRecorder) install(sched *scheduler.Scheduler) {
	rec.sched = sched
	rec.real = sched.SchedulingQueue
	rec.pq, _ = sched.SchedulingQueue.(*internalqueue.PriorityQueue)
	rec.logger = klog.Background()
	w := &recQueue{SchedulingQueue: sched.SchedulingQueue, rec: rec}
	sched.SchedulingQueue = w
	sched.NextPod = w.Pop
	for _, fw := range sched.Profiles {
		fw.SetPodActivator(w)
	}
	rec.trace = append(rec.trace, rec.observation(rec.places()))
}

func (rec *queueRecorder) now() float64 {
	return rec.clock.Now().Sub(clockBase).Seconds()
}

func secs(t time.Time) float64 { return t.Sub(clockBase).Seconds() }

// places: each queued pod's place, as impl's queue names them.
func (rec *queueRecorder) places() map[string]string {
	out := map[string]string{}
	for _, p := range rec.real.InFlightPods() {
		out[podKey(p)] = "inFlight"
	}
	for _, p := range rec.real.UnschedulablePods() {
		out[podKey(p)] = "unschedulablePods"
	}
	for _, p := range rec.real.PodsInBackoffQ() {
		out[podKey(p)] = "backoffQ"
	}
	for _, p := range rec.real.PodsInActiveQ() {
		out[podKey(p)] = "activeQ"
	}
	return out
}

// step runs one call of the real queue under the recorder's lock: the moves it made, labelled
// event, then an observation.
func (rec *queueRecorder) step(event string, call func()) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.stepLocked(event, call)
}

func (rec *queueRecorder) stepLocked(event string, call func()) {
	before := rec.places()
	call()
	after := rec.places()
	keys := sets.KeySet(before).Union(sets.KeySet(after)).UnsortedList()
	sort.Strings(keys)
	for _, k := range keys {
		if before[k] != after[k] {
			rec.records = append(rec.records, []any{"move", k, before[k], after[k], event})
		}
	}
	for k, place := range after {
		if pod, known := rec.pods[k]; known && place != "inFlight" {
			delete(rec.frozen, k)
			if pi, ok := rec.real.GetPod(pod.Name, pod.Namespace); ok {
				rec.infos[k] = pi
			}
		}
	}
	rec.trace = append(rec.trace, rec.observation(after))
	rec.records = nil
}

// observe takes an observation with no queue call (after a scheduling cycle, a clock advance).
func (rec *queueRecorder) observe() {
	rec.step("", func() {})
}

func (rec *queueRecorder) observation(places map[string]string) map[string]any {
	pods := map[string]any{}
	for key, pod := range rec.pods {
		if v := rec.podState(key, pod, places[key]); v != nil {
			pods[key] = v
		}
	}
	return map[string]any{"t": rec.now(), "records": append([][]any{}, rec.records...), "pods": pods}
}

func (rec *queueRecorder) podState(key string, pod *v1.Pod, place string) map[string]any {
	sched := rec.sched
	cached, err := sched.Cache.GetPod(pod)
	inCache := err == nil && cached.Spec.NodeName != ""
	assumed := false
	if inCache {
		assumed, _ = sched.Cache.IsAssumedPod(pod)
	}
	if seen, ok := rec.prebound[key]; ok || (pod.Spec.NodeName != "" && inCache) {
		if !ok {
			seen = math.Floor(rec.now())
			rec.prebound[key] = seen
		}
		where := "deleted"
		if inCache {
			where = "bound"
		}
		return map[string]any{"place": where, "node": pod.Spec.NodeName, "prebound": true, "seen": seen}
	}
	pi, known := rec.infos[key]
	if !known {
		return nil
	}
	view := viewOf(pi)
	if f, ok := rec.frozen[key]; ok {
		view = f
	}
	out := map[string]any{"attempts": view.attempts, "unschedulableCount": view.unschedulable,
		"errorCount": view.errors, "timestamp": secs(view.timestamp), "rejecting": view.rejecting,
		"pending": view.pending, "node": ""}
	if !view.expiry.IsZero() {
		out["backoffExpiration"] = secs(view.expiry)
	}
	switch {
	case place != "" && place != "inFlight":
	case inCache && !assumed:
		place = "bound"
		rec.bound[key] = cached.Spec.NodeName
		out["node"] = cached.Spec.NodeName
	case inCache:
		place = "binding"
		out["node"] = cached.Spec.NodeName
	case rec.bound[key] != "":
		place = "deleted"
		out["node"] = rec.bound[key]
	case place == "inFlight":
	default:
		place = "gone"
	}
	out["place"] = place
	return out
}

// poppable: Pop would not block (activeQ holds a pod, or podBackoffQ does: KEP-5142 pops its
// head when activeQ is empty; podErrorBackoffQ is never popped).
func (rec *queueRecorder) poppable() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.poppableLocked()
}

func (rec *queueRecorder) poppableLocked() bool {
	if len(rec.real.PodsInActiveQ()) > 0 {
		return true
	}
	for _, p := range rec.real.PodsInBackoffQ() {
		if pi, ok := rec.real.GetPod(p.Name, p.Namespace); ok && pi.UnschedulablePlugins.Union(pi.PendingPlugins).Len() > 0 {
			return true
		}
	}
	return false
}

func (rec *queueRecorder) backoffNonEmpty() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.real.PodsInBackoffQ()) > 0
}

func (rec *queueRecorder) eventCount(label string) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.events[label]
}

// recQueue is the SchedulingQueue the scheduler sees: every call that can move a pod is
// recorded; the rest (nominator, listing, PatchPodStatus) go straight to the real queue.
type recQueue struct {
	internalqueue.SchedulingQueue
	rec *queueRecorder
}

func (w *recQueue) Add(logger klog.Logger, pod *v1.Pod) {
	w.rec.step(framework.EventUnscheduledPodAdd.Label(), func() { w.SchedulingQueue.Add(logger, pod) })
}

func (w *recQueue) Pop(logger klog.Logger) (pi *framework.QueuedPodInfo, err error) {
	rec := w.rec
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !rec.poppableLocked() {
		return nil, nil // ScheduleOne returns at once; the loop only pops when something is there
	}
	rec.stepLocked("Pop", func() {
		pi, err = w.SchedulingQueue.Pop(logger)
		if pi != nil {
			key := podKey(pi.Pod)
			rec.infos[key] = pi
			rec.frozen[key] = viewOf(pi)
		}
	})
	return pi, err
}

func (w *recQueue) Done(uid types.UID) {
	w.rec.step("Done", func() { w.SchedulingQueue.Done(uid) })
}

func (w *recQueue) AddUnschedulableIfNotPresent(logger klog.Logger, pi *framework.QueuedPodInfo, cycle int64) (err error) {
	w.rec.step(framework.ScheduleAttemptFailure, func() {
		err = w.SchedulingQueue.AddUnschedulableIfNotPresent(logger, pi, cycle)
		w.rec.infos[podKey(pi.Pod)] = pi
	})
	return err
}

func (w *recQueue) Update(logger klog.Logger, oldPod, newPod *v1.Pod) {
	w.rec.step(framework.EventUnscheduledPodUpdate.Label(), func() { w.SchedulingQueue.Update(logger, oldPod, newPod) })
}

func (w *recQueue) Delete(pod *v1.Pod) {
	w.rec.step("Delete", func() { w.SchedulingQueue.Delete(pod) })
}

func (w *recQueue) Activate(logger klog.Logger, pods map[string]*v1.Pod) {
	w.rec.step(framework.ForceActivate, func() { w.SchedulingQueue.Activate(logger, pods) })
}

func (w *recQueue) MoveAllToActiveOrBackoffQueue(logger klog.Logger, event fwk.ClusterEvent, oldObj, newObj interface{}, preCheck internalqueue.PreEnqueueCheck) {
	label := event.Label()
	w.rec.step(label, func() {
		w.rec.events[label]++
		w.rec.records = append(w.rec.records, []any{"deliver", label, w.rec.delivery(oldObj, newObj, preCheck != nil)})
		if len(w.SchedulingQueue.InFlightPods()) > 0 {
			// the queue keeps it for the pods in flight (activeQueue.addEventIfAnyInFlight)
			w.rec.records = append(w.rec.records, []any{"event", label})
		}
		w.SchedulingQueue.MoveAllToActiveOrBackoffQueue(logger, event, oldObj, newObj, preCheck)
	})
}

func (w *recQueue) AssignedPodAdded(logger klog.Logger, pod *v1.Pod) {
	w.rec.step(framework.EventAssignedPodAdd.Label(), func() { w.SchedulingQueue.AssignedPodAdded(logger, pod) })
}

func (w *recQueue) AssignedPodUpdated(logger klog.Logger, oldPod, newPod *v1.Pod, event fwk.ClusterEvent) {
	w.rec.step(event.Label(), func() { w.SchedulingQueue.AssignedPodUpdated(logger, oldPod, newPod, event) })
}

// delivery: what a QueueingHint of this event reads — its old and new objects, and the pending
// pods as the queue holds them (pInfo.Pod) — and whether a pre-check narrows the pods.
func (rec *queueRecorder) delivery(oldObj, newObj interface{}, prechecked bool) map[string]any {
	pods := map[string]any{}
	for key, pi := range rec.infos {
		if _, bound := rec.bound[key]; !bound && pi.Pod.Spec.NodeName == "" {
			pods[key] = pi.Pod
		}
	}
	return map[string]any{"old": apiObject(oldObj), "new": apiObject(newObj), "pods": pods, "prechecked": prechecked}
}

func apiObject(obj interface{}) any {
	switch o := obj.(type) {
	case *v1.Node:
		return o
	case *v1.Pod:
		return o
	}
	return nil
}

// ---- the virtual-time loop ---------------------------------------------------------------

type laterNode struct {
	at     float64
	node   *v1.Node
	update bool
}

func decodeLater(q *queueRequest) ([]laterNode, error) {
	var out []laterNode
	for i, l := range q.Later {
		n := &v1.Node{}
		if err := decodeInto(l.Node, n, "recordQueue.later", i); err != nil {
			return nil, err
		}
		corev1conv.SetObjectDefaults_Node(n)
		if err := validateNode(n); err != nil {
			return nil, err
		}
		if l.At < 0 || l.At != math.Floor(l.At) {
			return nil, fmt.Errorf("recordQueue.later[%d].at: %v is not a whole number of seconds ≥ 0", i, l.At)
		}
		out = append(out, laterNode{l.At, n, l.Update})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out, nil
}

// loopRecorded runs cycles while a pod can be popped; otherwise it advances the fake clock to
// the next timer (a whole second while backoffQ holds a pod, the 30 s flush, a later node) and
// runs what is due then. It stops when the next timer is more than idle seconds after the last
// progress, or at the horizon (then not quiescent).
func (r *run) loopRecorded(rec *queueRecorder, q *queueRequest, later []laterNode, maxCycles int) bool {
	idle, horizon := q.Idle, q.Horizon
	if idle <= 0 {
		idle = defaultIdle
	}
	if horizon <= 0 {
		horizon = defaultHorizon
	}
	now := 0.0
	lastProgress := 0.0
	progress := func() int {
		r.e.mu.Lock()
		defer r.e.mu.Unlock()
		return len(r.e.bindings) + len(r.e.deleted)
	}
	seen := progress()
	r.flushLeftover(rec) // wait.Until runs its function at once
	quietAt := int64(-1)
	for r.cycles < maxCycles {
		if n := r.e.actions.Load(); n != quietAt { // an API call since: let the informers deliver it
			r.quiet(time.Millisecond)
			quietAt = r.e.actions.Load()
		}
		if n := progress(); n != seen {
			seen, lastProgress = n, now
		}
		if rec.poppable() {
			r.lastPod, r.lastHost, r.lastFailed = "", "", false
			r.e.sched.ScheduleOne(r.e.ctx)
			r.cycles++
			r.settle()
			rec.observe()
			continue
		}
		next := math.Floor(now/flushLeftoverPeriod)*flushLeftoverPeriod + flushLeftoverPeriod
		if len(later) > 0 {
			next = math.Min(next, later[0].at)
		}
		if rec.backoffNonEmpty() {
			next = math.Min(next, math.Floor(now)+1)
		}
		if len(later) == 0 && next > lastProgress+idle {
			return true
		}
		if next > horizon {
			return false
		}
		now = next
		rec.clock.SetTime(clockBase.Add(time.Duration(now * float64(time.Second))))
		for len(later) > 0 && later[0].at <= now {
			r.create(rec, later[0])
			later = later[1:]
			lastProgress = now
		}
		if rec.backoffNonEmpty() {
			rec.step(framework.BackoffComplete, func() { flushBackoffQCompleted(rec.pq, rec.logger) })
		}
		if math.Mod(now, flushLeftoverPeriod) == 0 {
			r.flushLeftover(rec)
		}
	}
	return false
}

func (r *run) flushLeftover(rec *queueRecorder) {
	rec.step(framework.EventUnschedulableTimeout.Label(), func() { flushUnschedulablePodsLeftover(rec.pq, rec.logger) })
}

// create adds (or updates) a node through the API and waits until the scheduler's handler has
// announced it to the queue: addNodeToCache's MoveAllToActiveOrBackoffQueue with NodeAdd; for an
// update, the cache holding the new node (updateNodeInCache then moves with the update's events).
func (r *run) create(rec *queueRecorder, l laterNode) {
	label := fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}.Label()
	before := rec.eventCount(label)
	nodes := r.e.client.CoreV1().Nodes()
	var err error
	if l.update {
		_, err = nodes.Update(r.e.ctx, l.node.DeepCopy(), metav1.UpdateOptions{})
	} else {
		_, err = nodes.Create(r.e.ctx, l.node.DeepCopy(), metav1.CreateOptions{})
	}
	if err != nil {
		return
	}
	deadline := time.Now().Add(settleTimeout)
	for time.Now().Before(deadline) {
		if l.update {
			if ni, ok := r.e.sched.Cache.Dump().Nodes[l.node.Name]; ok && equality.Semantic.DeepEqual(ni.Node().Labels, l.node.Labels) && equality.Semantic.DeepEqual(ni.Node().Status.Allocatable, l.node.Status.Allocatable) {
				r.quiet(time.Millisecond)
				return
			}
		} else if rec.eventCount(label) != before {
			return
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// queueResult is what recordQueue adds to a schedule response.
func (rec *queueRecorder) result() map[string]any {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return map[string]any{"trace": rec.trace, "virtualSeconds": rec.now()}
}
