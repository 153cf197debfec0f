// The validate op: one object put through what the API server does to it on `kubectl create`
// (field validation Strict, kubectl's default) before it would be stored, and every error that
// comes out. The path is upstream's, step by step:
//
//  1. decode: the JSON serializer of k8s.io/apimachinery in strict mode, into the versioned type
//     of the object's apiVersion/kind (a wrong type is a decode error, an unknown or duplicated
//     field a strict-decoding error, as `fieldValidation=Strict` turns it into a 400);
//  2. default: the scheme's defaulting functions (pkg/apis/core/v1 etc.), as the decoder does;
//  3. convert to the internal type (the hub version the registry validates);
//  4. the registry's create strategy (pkg/registry/.../strategy.go PrepareForCreate — a pod's
//     status is reset to Pending with its QoS class, its affinity terms' and spread constraints'
//     matchLabelKeys merged into their selectors; a PDB's status cleared; a namespace made Active
//     with the kubernetes finalizer; a node's configSource dropped) and its Validate
//     (ValidatePodCreate, ValidateNode, ValidateNamespace, ValidatePodDisruptionBudget,
//     ValidatePriorityClass), then k8s.io/apiserver's rest.BeforeCreate's common ObjectMeta check;
//  5. for a Pod or PodDisruptionBudget whose input has a status: the status subresource update
//     that would have written it onto the created object (podStatusStrategy.PrepareForUpdate and
//     ValidatePodStatusUpdate; ValidatePodDisruptionBudgetStatusUpdate) — the only way a status
//     reaches those objects, since create discards it.
//
// The registry packages themselves are not linked (they pull in etcd's client); the few lines of
// their strategies used here are copied, with where they come from.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/helper/qos"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/policy"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	policyvalidation "k8s.io/kubernetes/pkg/apis/policy/validation"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	schedulingvalidation "k8s.io/kubernetes/pkg/apis/scheduling/validation"
)

// The request body decoder of an API server asked for fieldValidation=Strict.
var strictDecoder = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory,
	legacyscheme.Scheme, legacyscheme.Scheme, kjson.SerializerOptions{Strict: true})

// apiError is one reason the API server would refuse the object.
type apiError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`   // field.ErrorType (FieldValueInvalid, ...), or Decode, UnknownField, DuplicateField
	Detail string `json:"detail"` // upstream's detail (for a field error) or message
	Phase  string `json:"phase"`  // decode, create, status
	Error  string `json:"error"`  // the whole message as the API server prints it
}

func validateOp(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("malformed request: \"validate\" needs \"object\"")
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(raw, &object); err != nil {
		return nil, fmt.Errorf("malformed request: \"object\" is not a JSON object: %v", err)
	}
	_ = json.Unmarshal(raw, &head) // best effort: names an object that fails to decode
	name := head.Metadata.Name
	switch head.Kind {
	case "Pod", "PodDisruptionBudget":
		if head.Metadata.Namespace == "" {
			head.Metadata.Namespace = "default"
		}
		name = head.Metadata.Namespace + "/" + name
	}
	switch head.APIVersion + " " + head.Kind {
	case "v1 Pod", "v1 Node", "v1 Namespace", "policy/v1 PodDisruptionBudget", "scheduling.k8s.io/v1 PriorityClass":
	default:
		return nil, fmt.Errorf("validate: unsupported object %q %q (want v1 Pod, Node or Namespace, "+
			"policy/v1 PodDisruptionBudget, scheduling.k8s.io/v1 PriorityClass)", head.APIVersion, head.Kind)
	}
	var errs []apiError
	obj, _, err := strictDecoder.Decode(raw, nil, nil)
	if err != nil {
		strict, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || obj == nil {
			return answer(head.Kind, name, append(errs, decodeError(err))), nil
		}
		for _, e := range strict.Errors() {
			errs = append(errs, strictError(e))
		}
	}
	var warnings []string
	switch o := obj.(type) {
	case *v1.Pod:
		name, warnings, errs = validatePodAsCreated(o, errs)
	case *v1.Node:
		name, errs = validateNodeAsCreated(o, errs)
	case *v1.Namespace:
		name, errs = validateNamespaceAsCreated(o, errs)
	case *policyv1.PodDisruptionBudget:
		name, errs = validatePDBAsCreated(o, errs)
	case *schedulingv1.PriorityClass:
		name, errs = validatePriorityClassAsCreated(o, errs)
	default:
		return nil, fmt.Errorf("validate: decoded %T", obj)
	}
	resp := answer(head.Kind, name, errs)
	if len(warnings) > 0 {
		resp["warnings"] = warnings
	}
	return resp, nil
}

func answer(kind, name string, errs []apiError) map[string]any {
	if errs == nil {
		errs = []apiError{}
	}
	return map[string]any{"kind": kind, "name": name, "valid": len(errs) == 0, "errors": errs}
}

var (
	goFieldRe  = regexp.MustCompile(`Go struct field [A-Za-z0-9_]+\.(\S+) of type`)
	strictRe   = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)
	quantityRe = regexp.MustCompile(`quantities must match the regular expression`)
)

func decodeError(err error) apiError {
	msg := err.Error()
	e := apiError{Type: "Decode", Detail: msg, Phase: "decode", Error: msg}
	if m := goFieldRe.FindStringSubmatch(msg); m != nil {
		e.Field = m[1]
	}
	if quantityRe.MatchString(msg) {
		e.Type = "DecodeQuantity"
	}
	return e
}

func strictError(err error) apiError {
	msg := err.Error()
	e := apiError{Type: "UnknownField", Detail: msg, Phase: "decode", Error: "strict decoding error: " + msg}
	if m := strictRe.FindStringSubmatch(msg); m != nil {
		e.Field = m[2]
		if m[1] == "duplicate" {
			e.Type = "DuplicateField"
		}
	}
	return e
}

// fieldErrors appends list's errors, each once: the status update re-validates the metadata the
// create already checked.
func fieldErrors(errs []apiError, phase string, list field.ErrorList) []apiError {
	seen := map[string]bool{}
	for _, e := range errs {
		seen[e.Error] = true
	}
	for _, e := range list {
		if seen[e.Error()] {
			continue
		}
		seen[e.Error()] = true
		errs = append(errs, apiError{
			Field: e.Field, Type: string(e.Type), Detail: e.Detail, Phase: phase, Error: e.Error(),
		})
	}
	return errs
}

func convert(in, out runtime.Object) error {
	if err := legacyscheme.Scheme.Convert(in, out, nil); err != nil {
		return fmt.Errorf("converting to the internal version: %v", err)
	}
	return nil
}

// fillSystemFields is rest.FillObjectMetaSystemFields with a fixed uid.
func fillSystemFields(meta *metav1.ObjectMeta, kind string) {
	meta.CreationTimestamp = metav1.Now()
	meta.UID = types.UID("schedspec-oracle/validate/" + kind + "/" + meta.Namespace + "/" + meta.Name)
}

// objectMeta is rest.BeforeCreate's common check, run after the kind's own validation.
func objectMeta(errs []apiError, meta *metav1.ObjectMeta, namespaced bool) []apiError {
	return fieldErrors(errs, "create", apimachineryvalidation.ValidateObjectMetaAccessor(
		meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata")))
}

func validatePodAsCreated(p *v1.Pod, errs []apiError) (string, []string, []apiError) {
	if p.Namespace == "" { // the request's namespace (rest.EnsureObjectNamespaceMatchesRequestNamespace)
		p.Namespace = "default"
	}
	name := p.Namespace + "/" + p.Name
	legacyscheme.Scheme.Default(p)
	in := &core.Pod{}
	if err := convert(p, in); err != nil {
		return name, nil, append(errs, decodeError(err))
	}
	given := in.Status
	created := in.DeepCopy()
	fillSystemFields(&created.ObjectMeta, "Pod")
	// pkg/registry/core/pod/strategy.go podStrategy.PrepareForCreate
	created.Generation = 1
	created.Status = core.PodStatus{Phase: core.PodPending, QOSClass: qos.GetPodQOS(created)}
	podutil.DropDisabledPodFields(created, nil)
	applySchedulingGatedCondition(created)
	mutatePodAffinity(created)
	mutateTopologySpreadConstraints(created)
	// podStrategy.Validate
	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&created.Spec, nil, &created.ObjectMeta, nil)
	opts.ResourceIsPod = true
	errs = fieldErrors(errs, "create", validation.ValidatePodCreate(created, opts))
	errs = objectMeta(errs, &created.ObjectMeta, true)
	warnings := podutil.GetWarningsForPod(context.Background(), created, nil)

	if !apiequality.Semantic.DeepEqual(given, core.PodStatus{}) {
		created.ResourceVersion = "1" // as stored
		updated := created.DeepCopy()
		updated.Status = given
		// podStatusStrategy.PrepareForUpdate
		if updated.Status.QOSClass == "" {
			updated.Status.QOSClass = created.Status.QOSClass
		}
		podutil.DropDisabledPodFields(updated, created)
		opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&updated.Spec, &created.Spec,
			&updated.ObjectMeta, &created.ObjectMeta)
		opts.ResourceIsPod = true
		errs = fieldErrors(errs, "status", validation.ValidatePodStatusUpdate(updated, created, opts))
	}
	return name, warnings, errs
}

// applySchedulingGatedCondition is pkg/registry/core/pod/strategy.go's.
func applySchedulingGatedCondition(pod *core.Pod) {
	if len(pod.Spec.SchedulingGates) == 0 {
		return
	}
	for _, condition := range pod.Status.Conditions {
		if condition.Type == core.PodScheduled {
			return
		}
	}
	podutil.UpdatePodCondition(&pod.Status, &core.PodCondition{
		Type:    core.PodScheduled,
		Status:  core.ConditionFalse,
		Reason:  v1.PodReasonSchedulingGated,
		Message: "Scheduling is blocked due to non-empty scheduling gates",
	})
}

// mutatePodAffinity and mutateTopologySpreadConstraints are pkg/registry/core/pod/strategy.go's
// (MatchLabelKeysInPodAffinity is GA, MatchLabelKeysInPodTopologySpread and its
// SelectorMerge are on by default in v1.34).
func mutatePodAffinity(pod *core.Pod) {
	a := pod.Spec.Affinity
	if a == nil {
		return
	}
	var terms []*core.PodAffinityTerm
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
		if (len(t.MatchLabelKeys) == 0 && len(t.MismatchLabelKeys) == 0) || t.LabelSelector == nil {
			continue
		}
		applyLabelKeys(t.LabelSelector, t.MatchLabelKeys, metav1.LabelSelectorOpIn, pod.Labels)
		applyLabelKeys(t.LabelSelector, t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn, pod.Labels)
	}
}

func mutateTopologySpreadConstraints(pod *core.Pod) {
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if len(c.MatchLabelKeys) == 0 || c.LabelSelector == nil {
			continue
		}
		applyLabelKeys(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn, pod.Labels)
	}
}

func applyLabelKeys(sel *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator, labels map[string]string) {
	for _, key := range keys {
		if value, ok := labels[key]; ok {
			sel.MatchExpressions = append(sel.MatchExpressions,
				metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: []string{value}})
		}
	}
}

func validateNodeAsCreated(n *v1.Node, errs []apiError) (string, []apiError) {
	n.Namespace = "" // cluster-scoped: rest.EnsureObjectNamespaceMatchesRequestNamespace clears it
	legacyscheme.Scheme.Default(n)
	in := &core.Node{}
	if err := convert(n, in); err != nil {
		return n.Name, append(errs, decodeError(err))
	}
	fillSystemFields(&in.ObjectMeta, "Node")
	// pkg/registry/core/node/strategy.go nodeStrategy.PrepareForCreate (dropDisabledFields)
	in.Spec.ConfigSource = nil
	in.Status.Config = nil
	errs = fieldErrors(errs, "create", validation.ValidateNode(in))
	return n.Name, objectMeta(errs, &in.ObjectMeta, false)
}

func validateNamespaceAsCreated(ns *v1.Namespace, errs []apiError) (string, []apiError) {
	ns.Namespace = ""
	legacyscheme.Scheme.Default(ns)
	in := &core.Namespace{}
	if err := convert(ns, in); err != nil {
		return ns.Name, append(errs, decodeError(err))
	}
	fillSystemFields(&in.ObjectMeta, "Namespace")
	// pkg/registry/core/namespace/strategy.go namespaceStrategy.PrepareForCreate
	in.Status = core.NamespaceStatus{Phase: core.NamespaceActive}
	hasKube := false
	for _, f := range in.Spec.Finalizers {
		hasKube = hasKube || f == core.FinalizerKubernetes
	}
	if !hasKube {
		in.Spec.Finalizers = append(in.Spec.Finalizers, core.FinalizerKubernetes)
	}
	errs = fieldErrors(errs, "create", validation.ValidateNamespace(in))
	return ns.Name, objectMeta(errs, &in.ObjectMeta, false)
}

func validatePDBAsCreated(pdb *policyv1.PodDisruptionBudget, errs []apiError) (string, []apiError) {
	if pdb.Namespace == "" {
		pdb.Namespace = "default"
	}
	name := pdb.Namespace + "/" + pdb.Name
	legacyscheme.Scheme.Default(pdb)
	in := &policy.PodDisruptionBudget{}
	if err := convert(pdb, in); err != nil {
		return name, append(errs, decodeError(err))
	}
	given := in.Status
	fillSystemFields(&in.ObjectMeta, "PodDisruptionBudget")
	// pkg/registry/policy/poddisruptionbudget/strategy.go PrepareForCreate and Validate
	in.Status = policy.PodDisruptionBudgetStatus{}
	in.Generation = 1
	opts := policyvalidation.PodDisruptionBudgetValidationOptions{AllowInvalidLabelValueInSelector: false}
	errs = fieldErrors(errs, "create", policyvalidation.ValidatePodDisruptionBudget(in, opts))
	errs = objectMeta(errs, &in.ObjectMeta, true)
	if !apiequality.Semantic.DeepEqual(given, policy.PodDisruptionBudgetStatus{}) {
		errs = fieldErrors(errs, "status", policyvalidation.ValidatePodDisruptionBudgetStatusUpdate(
			given, in.Status, field.NewPath("status"), policyv1.SchemeGroupVersion))
	}
	return name, errs
}

func validatePriorityClassAsCreated(pc *schedulingv1.PriorityClass, errs []apiError) (string, []apiError) {
	pc.Namespace = ""
	legacyscheme.Scheme.Default(pc)
	in := &scheduling.PriorityClass{}
	if err := convert(pc, in); err != nil {
		return pc.Name, append(errs, decodeError(err))
	}
	fillSystemFields(&in.ObjectMeta, "PriorityClass")
	in.Generation = 1 // pkg/registry/scheduling/priorityclass/strategy.go PrepareForCreate
	errs = fieldErrors(errs, "create", schedulingvalidation.ValidatePriorityClass(in))
	return pc.Name, objectMeta(errs, &in.ObjectMeta, false)
}
