// The real scheduler of one request, as the integration tests build it
// (test/integration/util InitTestSchedulerWithOptions): scheduler.New over a fake clientset
// holding the cluster, the shared informers synced, the event handlers synced, so the scheduler's
// cache and queue hold exactly the request's objects.
package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/utils/clock"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// env is one in-process kube-scheduler with its fake API server.
type env struct {
	ctx     context.Context
	cancel  context.CancelFunc
	logger  klog.Logger
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	sched   *scheduler.Scheduler
	cfg     *schedconfig.KubeSchedulerConfiguration

	mu        sync.Mutex
	bindings  map[string]string // ns/name -> node, as the pods/binding subresource received them
	bindOrder []string
	deleted   []string // ns/name of pods deleted through the API (preemption victims)
	actions   atomic.Int64

	copies map[string]map[string]framework.Plugin // profile name -> plugins (see plugins)
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// envOptions change how newEnv builds the scheduler; the zero value is the default build.
type envOptions struct {
	clock       clock.WithTicker           // the scheduling queue's clock (scheduler.WithClock)
	beforeStart func(*scheduler.Scheduler) // called after scheduler.New, before the informers start
}

func newEnv(c *cluster, opts ...envOptions) (*env, error) {
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{
		ctx:      ctx,
		cancel:   cancel,
		logger:   klog.FromContext(ctx),
		client:   fake.NewClientset(c.objects()...),
		cfg:      c.config,
		bindings: map[string]string{},
	}
	e.installReactors()
	e.factory = scheduler.NewInformerFactory(e.client, 0)
	recorders := func(string) events.EventRecorder { return &events.FakeRecorder{} }
	// Parallelism 1: the feasible-node list (and so the reservoir sampling of selectHost) comes
	// out in a fixed order, which makes a run reproducible under a seed.
	schedOpts := []scheduler.Option{
		scheduler.WithProfiles(c.config.Profiles...),
		scheduler.WithParallelism(1),
		scheduler.WithPercentageOfNodesToScore(c.config.PercentageOfNodesToScore),
		scheduler.WithPodInitialBackoffSeconds(c.config.PodInitialBackoffSeconds),
		scheduler.WithPodMaxBackoffSeconds(c.config.PodMaxBackoffSeconds),
	}
	var opt envOptions
	if len(opts) > 0 {
		opt = opts[0]
	}
	if opt.clock != nil {
		schedOpts = append(schedOpts, scheduler.WithClock(opt.clock))
	}
	sched, err := scheduler.New(ctx, e.client, e.factory, nil, recorders, schedOpts...)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("building the scheduler: %v", err)
	}
	e.sched = sched
	if opt.beforeStart != nil {
		opt.beforeStart(sched)
	}
	e.factory.Start(ctx.Done())
	if err := e.waitForSync(30 * time.Second); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

// waitForSync waits until every started informer has listed and the scheduler's event handlers
// have seen every listed object. client-go's WaitForCacheSync and the scheduler's
// WaitForHandlersSync check at once and then every 100 ms; a fake clientset lists in
// microseconds, so those first 100 ms were most of a request. Here the same conditions are
// checked every 100 µs: one immediate check each, under an already-closed stop channel.
func (e *env) waitForSync(limit time.Duration) error {
	done := make(chan struct{})
	close(done)
	closedCtx, cancel := context.WithCancel(e.ctx)
	cancel()
	deadline := time.Now().Add(limit)
	for {
		synced := true
		for _, ok := range e.factory.WaitForCacheSync(done) {
			synced = synced && ok
		}
		if synced && e.sched.WaitForHandlersSync(closedCtx) == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("syncing the scheduler's informers and event handlers: not done after %v", limit)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func (e *env) close() {
	e.cancel()
	if e.sched != nil {
		e.sched.SchedulingQueue.Close()
	}
	e.factory.Shutdown()
}

// installReactors makes the fake API server behave where the scheduler needs it: a pods/binding
// create sets spec.nodeName (as the API server's binding REST does), deletions are recorded, and
// every API call is counted (to know when the informers have something left to deliver).
func (e *env) installReactors() {
	e.client.PrependReactor("*", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		e.actions.Add(1)
		return false, nil, nil
	})
	e.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteAction)
		e.mu.Lock()
		e.deleted = append(e.deleted, d.GetNamespace()+"/"+d.GetName())
		e.mu.Unlock()
		return false, nil, nil
	})
	e.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		create := a.(clienttesting.CreateAction)
		if create.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binding := create.GetObject().(*v1.Binding)
		obj, err := e.client.Tracker().Get(podsGVR, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		if pod.Spec.NodeName != "" {
			return true, nil, fmt.Errorf("pod %s/%s is already assigned to node %q", pod.Namespace, pod.Name, pod.Spec.NodeName)
		}
		pod.Spec.NodeName = binding.Target.Name
		if err := e.client.Tracker().Update(podsGVR, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		e.mu.Lock()
		key := binding.Namespace + "/" + binding.Name
		e.bindings[key] = binding.Target.Name
		e.bindOrder = append(e.bindOrder, key)
		e.mu.Unlock()
		return true, binding, nil
	})
}

// framework returns the profile named by the pod's schedulerName with its snapshot brought up to
// date from the scheduler's cache (what schedulePod does at the start of a cycle).
func (e *env) framework(pod *v1.Pod) (framework.Framework, *internalcache.Snapshot, error) {
	fw, ok := e.sched.Profiles[pod.Spec.SchedulerName]
	if !ok {
		return nil, nil, fmt.Errorf("Pod %s: spec.schedulerName %q names no profile of the scheduler", podKey(pod), pod.Spec.SchedulerName)
	}
	snap, ok := fw.SnapshotSharedLister().(*internalcache.Snapshot)
	if !ok {
		return nil, nil, fmt.Errorf("unexpected snapshot type %T", fw.SnapshotSharedLister())
	}
	if err := e.sched.Cache.UpdateSnapshot(e.logger, snap); err != nil {
		return nil, nil, fmt.Errorf("updating the snapshot: %v", err)
	}
	return fw, snap, nil
}

// profileOf is the configuration profile behind a framework (for plugin args).
func (e *env) profileOf(fw framework.Framework) *schedconfig.KubeSchedulerProfile {
	for i := range e.cfg.Profiles {
		if e.cfg.Profiles[i].SchedulerName == fw.ProfileName() {
			return &e.cfg.Profiles[i]
		}
	}
	return nil
}

// plugins instantiates, from the in-tree registry, a second copy of every plugin of a profile
// so each can be called on its own (the framework only runs them as a chain). Plugins keep their
// per-cycle data in the CycleState, so the copies read what the framework's PreFilter/PreScore
// wrote and vice versa. They are made once per profile and reused for every pod the scheduler is
// asked about, as the framework reuses its own instances from cycle to cycle.
func (e *env) plugins(fw framework.Framework) (map[string]framework.Plugin, error) {
	if made, ok := e.copies[fw.ProfileName()]; ok {
		return made, nil
	}
	out, err := e.newPlugins(fw)
	if err != nil {
		return nil, err
	}
	if e.copies == nil {
		e.copies = map[string]map[string]framework.Plugin{}
	}
	e.copies[fw.ProfileName()] = out
	return out, nil
}

func (e *env) newPlugins(fw framework.Framework) (map[string]framework.Plugin, error) {
	prof := e.profileOf(fw)
	args := map[string]runtime.Object{}
	if prof != nil {
		for _, pc := range prof.PluginConfig {
			args[pc.Name] = pc.Args
		}
	}
	registry := frameworkplugins.NewInTreeRegistry()
	listed := fw.ListPlugins()
	out := map[string]framework.Plugin{}
	for _, set := range []schedconfig.PluginSet{listed.PreFilter, listed.Filter, listed.PreScore, listed.Score} {
		for _, p := range set.Enabled {
			if _, done := out[p.Name]; done {
				continue
			}
			factory, ok := registry[p.Name]
			if !ok {
				return nil, fmt.Errorf("plugin %q is not in the in-tree registry", p.Name)
			}
			pl, err := factory(e.ctx, args[p.Name], fw)
			if err != nil {
				return nil, fmt.Errorf("instantiating plugin %q: %v", p.Name, err)
			}
			out[p.Name] = pl
		}
	}
	return out, nil
}
