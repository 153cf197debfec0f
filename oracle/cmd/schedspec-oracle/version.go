// version: which kube-scheduler answers, with which feature gates, and what it does not cover.
package main

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	_ "k8s.io/kubernetes/pkg/features" // registers the kube feature gates
)

// schedulingGate selects the feature gates that change what the scheduler decides.
var schedulingGate = regexp.MustCompile(`Scheduler|Scheduling|DRA|DynamicResource|PodLevelResources|` +
	`Sidecar|InPlacePodVerticalScaling|MatchLabelKeys|NodeInclusionPolicy|TopologySpread|Affinity|` +
	`Preempt|NominatedNodeName|StorageCapacityScoring|VolumeAttributesClass|Taint|Toleration|` +
	`PodDisruptionConditions|PodObservedGenerationTracking|HonorPVReclaimPolicy|VolumeCapacityPriority|` +
	`SELinuxMount|CSIMigration|ReadWriteOncePod`)

var declaredOutOfScope = []string{
	"volumes: no PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode or CSIDriver objects are accepted; " +
		"VolumeRestrictions, NodeVolumeLimits, VolumeBinding and VolumeZone stay enabled and see none",
	"dynamic resource allocation: no ResourceClaim, ResourceSlice or DeviceClass objects are accepted; " +
		"DynamicResources stays enabled and sees none",
	"scheduler extenders and out-of-tree plugins",
	"filter/score evaluate every node (numFeasibleNodesToFind sampling applies only to schedule)",
	"filter/score report PreFilter/Filter/PreScore/Score only: no PostFilter (preemption), Reserve, Permit or Bind",
	"per-plugin filter statuses are computed without nominated pods; the framework verdict includes them",
	"schedule: the API server is client-go's fake clientset (pods/binding sets spec.nodeName); " +
		"no kubelet, so bound pods never run and victims are deleted at once",
	"schedule: time does not pass beyond the run; pods in unschedulablePods stay there (no 5-minute flush) unless recordQueue asks for virtual time",
}

func version() map[string]any {
	k8s, schedulerMod := "unknown", "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			switch dep.Path {
			case "k8s.io/kubernetes":
				k8s = dep.Version
			case "k8s.io/kube-scheduler":
				schedulerMod = dep.Version
				if dep.Replace != nil {
					schedulerMod = dep.Replace.Version
				}
			}
		}
	}
	gates := map[string]bool{}
	var names []string
	for name := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if schedulingGate.MatchString(string(name)) {
			gates[string(name)] = utilfeature.DefaultFeatureGate.Enabled(name)
			names = append(names, string(name))
		}
	}
	sort.Strings(names)
	return map[string]any{
		"kubernetes":            k8s,
		"kube_scheduler_module": schedulerMod,
		"go":                    runtime.Version(),
		"feature_gates":         gates,
		"profile":               "default (kubescheduler.config.k8s.io/v1 defaults) unless the cluster carries a KubeSchedulerConfiguration",
		"tie_break":             "deterministic: parallelism 1 and math/rand seeded with the request's seed; schedule also reports the max-score node set per binding when every node is searched (< 100 nodes)",
		"declared_out_of_scope": declaredOutOfScope,
	}
}
