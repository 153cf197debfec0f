// The cluster of a request: plain API-shaped JSON (what schedspec.cluster.load produces) decoded
// into k8s.io/api types, defaulted as the API server would (pkg/apis/core/v1 defaults) and
// validated with the API server's own validation (pkg/apis/core/validation) so that objects the
// real API would reject are refused instead of scheduled.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1conv "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	schedvalidation "k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

type clusterJSON struct {
	Nodes           []json.RawMessage `json:"nodes"`
	Pods            []json.RawMessage `json:"pods"`
	PDBs            []json.RawMessage `json:"pdbs"`
	Namespaces      []json.RawMessage `json:"namespaces"`
	PriorityClasses []json.RawMessage `json:"priorityClasses"`
	// What PodTopologySpread's default constraints take their selector from
	// (helper.DefaultSelector): Services and the pod controllers it looks up.
	Services               []json.RawMessage `json:"services"`
	ReplicationControllers []json.RawMessage `json:"replicationControllers"`
	ReplicaSets            []json.RawMessage `json:"replicaSets"`
	StatefulSets           []json.RawMessage `json:"statefulSets"`
	SchedulerConfig        json.RawMessage   `json:"schedulerConfig"`
}

type cluster struct {
	nodes           []*v1.Node
	pods            []*v1.Pod
	pdbs            []*policyv1.PodDisruptionBudget
	namespaces      []*v1.Namespace
	priorityClasses []*schedulingv1.PriorityClass
	selecting       []runtime.Object // Services, ReplicationControllers, ReplicaSets, StatefulSets
	config          *schedconfig.KubeSchedulerConfiguration
}

func (c *cluster) objects() []runtime.Object {
	var objs []runtime.Object
	for _, o := range c.namespaces {
		objs = append(objs, o)
	}
	for _, o := range c.priorityClasses {
		objs = append(objs, o)
	}
	for _, o := range c.nodes {
		objs = append(objs, o)
	}
	for _, o := range c.pdbs {
		objs = append(objs, o)
	}
	objs = append(objs, c.selecting...)
	for _, o := range c.pods {
		// kube-scheduler's pod informer lists with the field selector
		// status.phase!=Succeeded,status.phase!=Failed (pkg/scheduler/scheduler.go,
		// newPodInformer), so terminal pods never reach it. The fake clientset ignores field
		// selectors; the API server's side of that selector is applied here.
		if o.Status.Phase == v1.PodSucceeded || o.Status.Phase == v1.PodFailed {
			continue
		}
		objs = append(objs, o)
	}
	return objs
}

func (c *cluster) findPod(key string) (*v1.Pod, error) {
	if key == "" {
		return nil, fmt.Errorf("malformed request: \"pod\" (ns/name) is required")
	}
	ns, name, found := strings.Cut(key, "/")
	if !found {
		ns, name = "default", key
	}
	for _, p := range c.pods {
		if p.Namespace == ns && p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no Pod %s/%s in the cluster", ns, name)
}

func decodeCluster(raw json.RawMessage) (*cluster, error) {
	var cj clusterJSON
	if err := strictUnmarshal(raw, &cj); err != nil {
		return nil, fmt.Errorf("malformed cluster: %v", err)
	}
	c := &cluster{}
	for i, data := range cj.Nodes {
		n := &v1.Node{}
		if err := decodeInto(data, n, "nodes", i); err != nil {
			return nil, err
		}
		corev1conv.SetObjectDefaults_Node(n)
		if err := validateNode(n); err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	for i, data := range cj.Pods {
		p := &v1.Pod{}
		if err := decodeInto(data, p, "pods", i); err != nil {
			return nil, err
		}
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if p.UID == "" {
			p.UID = types.UID("schedspec-oracle/" + p.Namespace + "/" + p.Name)
		}
		corev1conv.SetObjectDefaults_Pod(p)
		mergeAffinityLabelKeys(p)
		if err := validatePod(p); err != nil {
			return nil, err
		}
		c.pods = append(c.pods, p)
	}
	for i, data := range cj.Namespaces {
		ns := &v1.Namespace{}
		if err := decodeInto(data, ns, "namespaces", i); err != nil {
			return nil, err
		}
		if err := validateNamespace(ns); err != nil {
			return nil, err
		}
		c.namespaces = append(c.namespaces, ns)
	}
	for i, data := range cj.PDBs {
		pdb := &policyv1.PodDisruptionBudget{}
		if err := decodeInto(data, pdb, "pdbs", i); err != nil {
			return nil, err
		}
		if pdb.Namespace == "" {
			pdb.Namespace = "default"
		}
		what := fmt.Sprintf("PodDisruptionBudget %s/%s", pdb.Namespace, pdb.Name)
		if err := metaErrors(what, &pdb.ObjectMeta, true); err != nil {
			return nil, err
		}
		c.pdbs = append(c.pdbs, pdb)
	}
	for i, data := range cj.PriorityClasses {
		pc := &schedulingv1.PriorityClass{}
		if err := decodeInto(data, pc, "priorityClasses", i); err != nil {
			return nil, err
		}
		if err := metaErrors("PriorityClass "+pc.Name, &pc.ObjectMeta, false); err != nil {
			return nil, err
		}
		c.priorityClasses = append(c.priorityClasses, pc)
	}
	selecting := []struct {
		list  string
		items []json.RawMessage
		make  func() (runtime.Object, *metav1.ObjectMeta)
	}{
		{"services", cj.Services, func() (runtime.Object, *metav1.ObjectMeta) {
			o := &v1.Service{}
			return o, &o.ObjectMeta
		}},
		{"replicationControllers", cj.ReplicationControllers, func() (runtime.Object, *metav1.ObjectMeta) {
			o := &v1.ReplicationController{}
			return o, &o.ObjectMeta
		}},
		{"replicaSets", cj.ReplicaSets, func() (runtime.Object, *metav1.ObjectMeta) {
			o := &appsv1.ReplicaSet{}
			return o, &o.ObjectMeta
		}},
		{"statefulSets", cj.StatefulSets, func() (runtime.Object, *metav1.ObjectMeta) {
			o := &appsv1.StatefulSet{}
			return o, &o.ObjectMeta
		}},
	}
	for _, kind := range selecting {
		for i, data := range kind.items {
			obj, meta := kind.make()
			if err := decodeInto(data, obj, kind.list, i); err != nil {
				return nil, err
			}
			if meta.Namespace == "" {
				meta.Namespace = "default"
			}
			what := fmt.Sprintf("%s[%d] %s/%s", kind.list, i, meta.Namespace, meta.Name)
			if err := metaErrors(what, meta, true); err != nil {
				return nil, err
			}
			c.selecting = append(c.selecting, obj)
		}
	}
	cfg, err := decodeConfig(cj.SchedulerConfig)
	if err != nil {
		return nil, err
	}
	c.config = cfg
	return c, nil
}

func strictUnmarshal(data []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

func decodeInto(data []byte, obj any, list string, i int) error {
	if err := json.Unmarshal(data, obj); err != nil {
		return fmt.Errorf("%s[%d]: not a valid object: %v", list, i, err)
	}
	return nil
}

// decodeConfig reads a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration (defaulted and
// validated as kube-scheduler's --config would be); none means the default configuration.
func decodeConfig(raw json.RawMessage) (*schedconfig.KubeSchedulerConfiguration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return latest.Default()
	}
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(raw, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("KubeSchedulerConfiguration: %v", err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("KubeSchedulerConfiguration: got %v", gvk)
	}
	if err := schedvalidation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, fmt.Errorf("KubeSchedulerConfiguration: %v", err)
	}
	return cfg, nil
}

func validateNode(n *v1.Node) error {
	internal := &core.Node{}
	if err := corev1conv.Convert_v1_Node_To_core_Node(n, internal, nil); err != nil {
		return fmt.Errorf("Node %s: %v", n.Name, err)
	}
	return asError("Node "+n.Name, validation.ValidateNode(internal))
}

func validatePod(p *v1.Pod) error {
	what := fmt.Sprintf("Pod %s/%s", p.Namespace, p.Name)
	internal := &core.Pod{}
	if err := corev1conv.Convert_v1_Pod_To_core_Pod(p, internal, nil); err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&internal.Spec, nil, &internal.ObjectMeta, nil)
	return asError(what, validation.ValidatePodCreate(internal, opts))
}

func validateNamespace(ns *v1.Namespace) error {
	internal := &core.Namespace{}
	if err := corev1conv.Convert_v1_Namespace_To_core_Namespace(ns, internal, nil); err != nil {
		return fmt.Errorf("Namespace %s: %v", ns.Name, err)
	}
	return asError("Namespace "+ns.Name, validation.ValidateNamespace(internal))
}

// metaErrors checks what every object needs (name, namespace, label and annotation syntax) for
// the kinds whose full validation is not wired in (PodDisruptionBudget, PriorityClass).
func metaErrors(what string, meta *metav1.ObjectMeta, namespaced bool) error {
	errs := apimachineryvalidation.ValidateObjectMeta(meta, namespaced,
		apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return asError(what, errs)
}

func asError(what string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return fmt.Errorf("invalid %s: %s", what, strings.Join(msgs, "; "))
}

// mergeAffinityLabelKeys does what the API server does to a pod it creates
// (pkg/registry/core/pod/strategy.go PrepareForCreate, mutatePodAffinity; the
// MatchLabelKeysInPodAffinity gate is GA and locked on in v1.34): for every pod
// (anti-)affinity term with a label selector, each matchLabelKeys key the pod
// carries becomes a `key In (value)` requirement and each mismatchLabelKeys key a
// `key NotIn (value)` one. kube-scheduler reads only the selector, so a bridge
// that skipped this step would ignore both lists. Found by the three-way
// crosscheck (spec and impl merge them; the bridge did not).
func mergeAffinityLabelKeys(p *v1.Pod) {
	a := p.Spec.Affinity
	if a == nil {
		return
	}
	var terms []*v1.PodAffinityTerm
	if a.PodAffinity != nil {
		for i := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
		for i := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		for i := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
		for i := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if t.LabelSelector == nil { // a nil selector matches nothing: left alone
			continue
		}
		for _, keys := range []struct {
			names []string
			op    metav1.LabelSelectorOperator
		}{{t.MatchLabelKeys, metav1.LabelSelectorOpIn}, {t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn}} {
			for _, key := range keys.names {
				if value, ok := p.Labels[key]; ok {
					t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
						metav1.LabelSelectorRequirement{Key: key, Operator: keys.op, Values: []string{value}})
				}
			}
		}
	}
}
