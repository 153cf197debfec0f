// schedule: real scheduling cycles (Scheduler.ScheduleOne, pkg/scheduler/schedule_one.go) driven
// one at a time until the queue is quiescent, as scheduler.Run would drive them but without its
// free-running goroutine: after every cycle the loop waits until the binding (or the failure's API
// calls) has reached the informers, so the next cycle sees a settled cache.
package main

import (
	"context"
	"errors"
	"math/rand"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"
)

const settleTimeout = 10 * time.Second

type failure struct {
	message string
	code    string
	plugins []string
}

// run is the bookkeeping of one schedule request (the wrappers below write it, the loop reads it).
type run struct {
	e           *env
	reportTies  bool
	cycles      int
	lastPod     string
	lastHost    string
	lastFailed  bool
	failures    map[string]failure
	nominations map[string]string
	ties        map[string][]string
	pods        map[string]*v1.Pod
	seed        int64
}

func scheduleOp(c *cluster, seed int64, reportTies bool, record *queueRequest) (map[string]any, error) {
	//nolint:staticcheck // the global source is what selectHost and preemption draw from
	rand.Seed(seed)
	if record != nil {
		return scheduleRecorded(c, seed, reportTies, record)
	}
	e, err := newEnv(c)
	if err != nil {
		return nil, err
	}
	defer e.close()
	r := newRun(e, c, seed, reportTies)
	e.sched.SchedulingQueue.Run(e.logger)
	if e.sched.APIDispatcher != nil {
		e.sched.APIDispatcher.Run(e.logger)
	}
	quiescent := r.loop(len(c.pods)*20 + 100)
	return r.result(c, quiescent), nil
}

// newRun is the bookkeeping of a request on e, with the Scheduler's hooks wrapped.
func newRun(e *env, c *cluster, seed int64, reportTies bool) *run {
	r := &run{e: e, reportTies: reportTies, failures: map[string]failure{},
		nominations: map[string]string{}, ties: map[string][]string{}, pods: map[string]*v1.Pod{}, seed: seed}
	for _, p := range c.pods {
		r.pods[podKey(p)] = p
	}
	r.wrap()
	return r
}

// scheduleRecorded is scheduleOp with the queue recorded in virtual time (queue_record.go).
func scheduleRecorded(c *cluster, seed int64, reportTies bool, q *queueRequest) (map[string]any, error) {
	later, err := decodeLater(q)
	if err != nil {
		return nil, err
	}
	clk := testingclock.NewFakeClock(clockBase)
	rec := newQueueRecorder(c, clk)
	e, err := newEnv(c, envOptions{clock: clk, beforeStart: rec.install})
	if err != nil {
		return nil, err
	}
	defer e.close()
	r := newRun(e, c, seed, reportTies)
	if e.sched.APIDispatcher != nil {
		e.sched.APIDispatcher.Run(e.logger)
	}
	quiescent := r.loopRecorded(rec, q, later, (len(c.pods)+len(later))*40+100)
	out := r.result(c, quiescent)
	out["queue"] = rec.result()
	return out, nil
}

// wrap interposes on the Scheduler's two public hooks: SchedulePod (to learn the outcome of the
// scheduling cycle and the tied nodes) and FailureHandler (the FitError message and plugins).
func (r *run) wrap() {
	sched := r.e.sched
	schedulePod := sched.SchedulePod
	sched.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod) (scheduler.ScheduleResult, error) {
		res, err := schedulePod(ctx, fw, state, pod)
		r.lastPod, r.lastHost = podKey(pod), res.SuggestedHost
		if err == nil && r.reportTies && res.FeasibleNodes > 1 {
			if ties := r.maxScoreNodes(ctx, fw, state, pod); ties != nil {
				r.ties[podKey(pod)] = ties
			}
		}
		return res, err
	}
	handler := sched.FailureHandler
	sched.FailureHandler = func(ctx context.Context, fw framework.Framework, pi *framework.QueuedPodInfo, status *fwk.Status, ni *framework.NominatingInfo, start time.Time) {
		handler(ctx, fw, pi, status, ni, start)
		key := podKey(pi.Pod)
		r.lastFailed = true
		f := failure{message: status.Message(), code: status.Code().String()}
		var fitErr *framework.FitError
		if errors.As(status.AsError(), &fitErr) {
			f.message = fitErr.Error()
		}
		f.plugins = sets.List(pi.UnschedulablePlugins.Union(pi.PendingPlugins))
		r.failures[key] = f
		if ni != nil && ni.Mode() == framework.ModeOverride && ni.NominatedNodeName != "" {
			r.nominations[key] = ni.NominatedNodeName
		}
	}
}

// maxScoreNodes recomputes, on a clone of the cycle state, the nodes whose total score ties with
// the maximum (selectHost picks one of them at random). Only when every node was searched.
func (r *run) maxScoreNodes(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod) []string {
	all, err := fw.SnapshotSharedLister().NodeInfos().List()
	if err != nil || len(all) >= 100 {
		return nil
	}
	st := state.Clone()
	var feasible []fwk.NodeInfo
	for _, ni := range all {
		if fw.RunFilterPluginsWithNominatedPods(ctx, st, pod, ni).IsSuccess() {
			feasible = append(feasible, ni)
		}
	}
	if !fw.RunPreScorePlugins(ctx, st, pod, feasible).IsSuccess() {
		return nil
	}
	scores, s := fw.RunScorePlugins(ctx, st, pod, feasible)
	if !s.IsSuccess() || len(scores) == 0 {
		return nil
	}
	best := scores[0].TotalScore
	for _, ns := range scores {
		best = max(best, ns.TotalScore)
	}
	var out []string
	for _, ns := range scores {
		if ns.TotalScore == best {
			out = append(out, ns.Name)
		}
	}
	sort.Strings(out)
	return out
}

// loop runs cycles while the activeQ or the backoffQ holds a pod (Pop takes from the backoffQ
// when the activeQ is empty: SchedulerPopFromBackoffQ), and stops when both stay empty once
// everything in flight has settled.
func (r *run) loop(maxCycles int) bool {
	q := r.e.sched.SchedulingQueue
	for r.cycles < maxCycles {
		if len(q.PodsInActiveQ())+len(q.PodsInBackoffQ()) == 0 {
			r.quiet(5 * time.Millisecond)
			if len(q.PodsInActiveQ())+len(q.PodsInBackoffQ()) == 0 {
				return true
			}
		}
		r.lastPod, r.lastHost, r.lastFailed = "", "", false
		r.e.sched.ScheduleOne(r.e.ctx)
		r.cycles++
		r.settle()
	}
	return false
}

// settle waits for what the last cycle started: its binding to land in the cache (bound, no
// longer assumed), or, after a failure, the API calls it made (status patches, preemption
// deletions) to stop and their events to reach the cache and the queue.
func (r *run) settle() {
	deadline := time.Now().Add(settleTimeout)
	if r.lastHost != "" && !r.lastFailed {
		for time.Now().Before(deadline) && !r.bound(r.lastPod) && !r.lastFailed {
			time.Sleep(50 * time.Microsecond)
		}
	}
	for time.Now().Before(deadline) && len(r.e.sched.SchedulingQueue.InFlightPods()) > 0 {
		time.Sleep(50 * time.Microsecond)
	}
	if r.lastFailed {
		r.quiet(3 * time.Millisecond)
	}
}

// bound: the binding reached the API and the informer delivered it (the cache confirmed the pod).
func (r *run) bound(key string) bool {
	r.e.mu.Lock()
	_, ok := r.e.bindings[key]
	r.e.mu.Unlock()
	pod := r.pods[key]
	if !ok || pod == nil {
		return false
	}
	cached, err := r.e.sched.Cache.GetPod(pod)
	if err != nil || cached.Spec.NodeName == "" {
		return false
	}
	assumed, err := r.e.sched.Cache.IsAssumedPod(pod)
	return err == nil && !assumed
}

// quiet waits until no API call happened for d and every deleted pod has left the cache.
func (r *run) quiet(d time.Duration) {
	deadline := time.Now().Add(settleTimeout)
	last, since := r.e.actions.Load(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Microsecond)
		if n := r.e.actions.Load(); n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) >= d && r.deletionsSettled() {
			return
		}
	}
}

func (r *run) deletionsSettled() bool {
	r.e.mu.Lock()
	deleted := append([]string(nil), r.e.deleted...)
	r.e.mu.Unlock()
	for _, key := range deleted {
		if pod := r.pods[key]; pod != nil {
			if _, err := r.e.sched.Cache.GetPod(pod); err == nil {
				return false
			}
		}
	}
	return true
}

func (r *run) result(c *cluster, quiescent bool) map[string]any {
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	deleted := sets.New(e.deleted...)
	unschedulable := map[string]any{}
	for _, p := range c.pods {
		key := podKey(p)
		if p.Spec.NodeName != "" || e.bindings[key] != "" || deleted.Has(key) ||
			p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		f, ok := r.failures[key]
		if !ok {
			f = failure{message: "never attempted (not in the active queue: e.g. gated, or another schedulerName)", plugins: []string{}}
		}
		unschedulable[key] = map[string]any{"message": f.message, "plugins": f.plugins, "code": f.code}
	}
	nominations := map[string]string{}
	for key, node := range r.nominations {
		if _, pending := unschedulable[key]; pending || e.bindings[key] != "" {
			nominations[key] = node
		}
	}
	ties := map[string]any{}
	for key, nodes := range r.ties {
		if e.bindings[key] != "" {
			ties[key] = nodes
		}
	}
	return map[string]any{
		"bindings":      e.bindings,
		"binding_order": e.bindOrder,
		"unschedulable": unschedulable,
		"preempted":     sets.List(deleted),
		"nominations":   nominations,
		"ties":          ties,
		"cycles":        r.cycles,
		"quiescent":     quiescent,
		"seed":          r.seed,
	}
}
