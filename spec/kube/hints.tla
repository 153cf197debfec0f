---------------------------- MODULE hints ----------------------------
(***************************************************************************)
(* What each in-tree plugin's QueueingHint answers in kube-scheduler v1.34 *)
(* (SchedulerQueueingHints on): given the pod a plugin rejected, a cluster *)
(* event and the event's old and new objects, TRUE for Queue and FALSE for *)
(* QueueSkip. Pods and nodes are the real-shape records of scheduler.tla's *)
(* view (spec/kube/scheduler_view.py); an absent object (the old one of an *)
(* add, the new one of a delete) is Nil. Events are named as queue.tla     *)
(* names them; which plugin registers which event is                       *)
(* spec/kube/queue_view.py's REGISTERED.                                   *)
(*                                                                         *)
(* Each definition cites the upstream function it states (paths under     *)
(* pkg/scheduler/framework/plugins/ unless another is named). The profile  *)
(* read (NodeAffinity's addedAffinity) is the constant Profiles, as in     *)
(* scheduler.tla. Pod updates (UpdatePodToleration, UpdatePodScaleDown)    *)
(* are not here: queue.tla does not model pod updates.                     *)
(*                                                                         *)
(* Left out: VolumeBinding and DynamicResources (not in impl).           *)
(***************************************************************************)
EXTENDS scheduler

Nil ≝ [nil ↦ TRUE]

IsNil(x) ≝ "nil" ∈ DOMAIN x

\* ======================================================================
\* The catch-all: pkg/scheduler/scheduler.go buildQueueingHintMap gives a
\* registration without a hint function, and the UpdateNodeTaint it adds
\* for a plugin registering Node/Add but not UpdateNodeTaint
\* (kubernetes#109437), defaultQueueingHintFn: always Queue.
\* ======================================================================

AlwaysQueue ≝ TRUE

\* ======================================================================
\* NodeResourcesFit.  noderesources/fit.go (EventsToRegister,
\* isSchedulableAfterPodEvent, isSchedulableAfterNodeChange, isFit,
\* haveAnyRequestedResourcesIncreased)
\* ======================================================================

\* isFit: the pod alone on a node built from the new object (no other pod
\* counted); Fits passes no ignored resources.
FitsAlone(p, n) ≝
  ∧ 1 ≤ Allocatable(n, "pods")
  ∧ ∀ r ∈ DOMAIN Requests(p) :
      (FitResource(r) ∧ Requests(p)[r] > 0) ⇒ Requests(p)[r] ≤ Allocatable(n, r)

\* More pods allowed, or more of a resource the pod requests (> 0).
RequestedResourcesIncreased(p, old, new) ≝
  ∨ Allocatable(new, "pods") > Allocatable(old, "pods")
  ∨ ∃ r ∈ DOMAIN Requests(p) :
      ∧ FitResource(r)
      ∧ Requests(p)[r] > 0
      ∧ Allocatable(new, r) > Allocatable(old, r)

\* A node added that fits the pod alone, or updated so that it fits and a
\* requested resource (or the pod count) grew.
FitHintNode(p, old, new) ≝
  ∧ FitsAlone(p, new)
  ∧ IsNil(old) ∨ RequestedResourcesIncreased(p, old, new)

\* A deleted pod frees room unless it was neither scheduled nor nominated.
FitHintPodDeleted(old) ≝ ¬(old.spec.nodeName = "" ∧ old.status.nominatedNodeName = "")

FitHint(e, p, old, new) ≝
  CASE e = "AssignedPodDelete"                          → FitHintPodDeleted(old)
    [] e ∈ {"NodeAdd", "NodeAllocatableUpdate"}         → FitHintNode(p, old, new)
    [] OTHER                                            → AlwaysQueue

\* ======================================================================
\* NodeAffinity.  nodeaffinity/node_affinity.go (EventsToRegister,
\* isSchedulableAfterNodeChange): the profile's added affinity must match
\* the new node, then the pod's required affinity and nodeSelector; an
\* update counts only when the old node did not match.
\* ======================================================================

NodeAffinityHintNode(p, old, new) ≝
  ∧ AddedAffinityOK(p, new)
  ∧ PodNodeAffinityOK(p, new)
  ∧ IsNil(old) ∨ ¬PodNodeAffinityOK(p, old)

NodeAffinityHint(e, p, old, new) ≝
  IF e ∈ {"NodeAdd", "NodeLabelUpdate"} THEN NodeAffinityHintNode(p, old, new)
  ELSE AlwaysQueue

\* ======================================================================
\* TaintToleration.  tainttoleration/taint_toleration.go (EventsToRegister,
\* isSchedulableAfterNodeChange): Queue when the new node's NoSchedule and
\* NoExecute taints are all tolerated and the old node's were not (an
\* added node counts as not tolerated before).
\* ======================================================================

TaintTolerationHint(p, old, new) ≝ TaintsOK(p, new) ∧ (IsNil(old) ∨ ¬TaintsOK(p, old))

\* ======================================================================
\* NodeUnschedulable.  nodeunschedulable/node_unschedulable.go
\* (EventsToRegister, isSchedulableAfterNodeChange): a schedulable node
\* added, or a node updated from unschedulable to schedulable. Whether the
\* pod tolerates the unschedulable taint is not read.
\* ======================================================================

NodeUnschedulableHint(old, new) ≝
  ∧ ¬new.spec.unschedulable
  ∧ IsNil(old) ∨ old.spec.unschedulable

\* ======================================================================
\* NodePorts.  nodeports/node_ports.go (EventsToRegister,
\* isSchedulableAfterPodDeleted): Node/Add has no hint function; a deleted
\* pod helps only if it was scheduled or nominated and one of its host
\* ports conflicts with one the pod wants.
\* ======================================================================

NodePortsHintPodDeleted(p, old) ≝
  ∧ ¬(old.spec.nodeName = "" ∧ old.status.nominatedNodeName = "")
  ∧ ∃ w ∈ HostPorts(p) : PortConflict(w, HostPorts(old))

NodePortsHint(e, p, old) ≝
  IF e = "AssignedPodDelete" THEN NodePortsHintPodDeleted(p, old) ELSE AlwaysQueue

\* ======================================================================
\* InterPodAffinity.  interpodaffinity/plugin.go (EventsToRegister,
\* isSchedulableAfterPodChange, isSchedulableAfterNodeChange),
\* filtering.go podMatchesAllAffinityTerms; pkg/scheduler/framework/
\* types.go (GetAffinityTerms, AffinityTerm.Matches). The hint matches a
\* term's namespaceSelector against no namespace labels at all.
\* ======================================================================

NoLabels ≝ [_k ∈ {} ↦ ""]

HintTermMatches(owner, t, q) ≝
  ∧ ∨ q.metadata.namespace ∈ TermNamespaces(owner, t)
    ∨ "namespaceSelector" ∈ DOMAIN t ∧ SelectorMatches(t.namespaceSelector, NoLabels)
  ∧ PodTermSelects(owner, t, Labels(q))

\* podMatchesAllAffinityTerms: no terms match nothing.
MatchesAllTerms(p, kind, q) ≝
  AffinityTerms(p, kind) ≠ {} ∧ ∀ t ∈ AffinityTerms(p, kind) : HintTermMatches(p, t, q)

\* GetAffinityTerms fails on a selector that does not convert: the hint says Queue.
RequiredTermsValid(p) ≝
  ∀ kind ∈ {"podAffinity", "podAntiAffinity"} : ∀ t ∈ AffinityTerms(p, kind) : PodTermValid(t)

\* An unscheduled pod's add or delete never helps; an assigned pod's add
\* helps when it matches all the affinity terms, its delete when it matched
\* all the anti-affinity terms.
AffinityHintPod(p, old, new) ≝
  IF (¬IsNil(new) ∧ new.spec.nodeName = "") ∨ (¬IsNil(old) ∧ old.spec.nodeName = "") THEN FALSE
  ELSE IF ¬RequiredTermsValid(p) THEN TRUE
  ELSE IF ¬IsNil(old) ∧ ¬IsNil(new)
       THEN ∨ ¬MatchesAllTerms(p, "podAffinity", old) ∧ MatchesAllTerms(p, "podAffinity", new)
            ∨ MatchesAllTerms(p, "podAntiAffinity", old) ∧ ¬MatchesAllTerms(p, "podAntiAffinity", new)
  ELSE IF ¬IsNil(new) THEN MatchesAllTerms(p, "podAffinity", new)
  ELSE MatchesAllTerms(p, "podAntiAffinity", old)

\* A node added with an affinity term's topology key, or updated so that it
\* gains the key or changes its value; for anti-affinity, any added node,
\* or an update that drops the key or changes its value.
AffinityHintNode(p, old, new) ≝
  LET keyOf(m, t) ≝ t.topologyKey ∈ DOMAIN Labels(m)
      changed(t)  ≝ keyOf(old, t) ∧ keyOf(new, t) ∧ Labels(old)[t.topologyKey] ≠ Labels(new)[t.topologyKey]
  IN  ∨ ¬RequiredTermsValid(p)
      ∨ ∃ t ∈ AffinityTerms(p, "podAffinity") :
          IF IsNil(old) THEN keyOf(new, t) ELSE (¬keyOf(old, t) ∧ keyOf(new, t)) ∨ changed(t)
      ∨ ∃ t ∈ AffinityTerms(p, "podAntiAffinity") :
          IsNil(old) ∨ (keyOf(old, t) ∧ ¬keyOf(new, t)) ∨ changed(t)

AffinityHint(e, p, old, new) ≝
  CASE e ∈ {"AssignedPodAdd", "AssignedPodDelete"} → AffinityHintPod(p, old, new)
    [] e ∈ {"NodeAdd", "NodeLabelUpdate"}          → AffinityHintNode(p, old, new)
    [] OTHER                                      → AlwaysQueue

\* ======================================================================
\* PodTopologySpread.  podtopologyspread/plugin.go (EventsToRegister,
\* involvedInTopologySpreading, getConstraints, isSchedulableAfterPodChange,
\* isSchedulableAfterNodeChange, checkTopologyKeyLabelsChanged), common.go
\* (nodeLabelsMatchSpreadConstraints, podLabelsMatchSpreadConstraints).
\* The hint reads the DoNotSchedule constraints: the pod's own, or the
\* profile's defaults, which are ScheduleAnyway in the default profile
\* (a profile with DoNotSchedule defaults is not stated here).
\* ======================================================================

HardSpread(p) ≝
  {c ∈ Elems(p.spec.topologySpreadConstraints) : c.whenUnsatisfiable = "DoNotSchedule"}

\* filterTopologySpreadConstraints fails on a selector that does not convert.
HardSpreadValid(p) ≝
  ∀ c ∈ HardSpread(p) : "labelSelector" ∉ DOMAIN c ∨ SelectorValid(c.labelSelector)

Involved(x, p) ≝
  ∨ x.metadata.uid = p.metadata.uid
  ∨ x.spec.nodeName ≠ "" ∧ x.metadata.namespace = p.metadata.namespace

SpreadLabelsMatch(p, L) ≝ ∃ c ∈ HardSpread(p) : SpreadSelects(p, c, L)

\* A pod of p's namespace added or deleted on a node (or p itself) whose
\* labels some constraint selects.
SpreadHintPod(p, old, new) ≝
  IF (¬IsNil(new) ∧ ¬Involved(new, p)) ∨ (¬IsNil(old) ∧ ¬Involved(old, p)) THEN FALSE
  ELSE IF ¬HardSpreadValid(p) THEN TRUE
  ELSE IF ¬IsNil(new) ∧ ¬IsNil(old)
       THEN ∃ c ∈ HardSpread(p) : SpreadSelects(p, c, Labels(old)) ≠ SpreadSelects(p, c, Labels(new))
  ELSE IF ¬IsNil(new) THEN SpreadLabelsMatch(p, Labels(new))
  ELSE SpreadLabelsMatch(p, Labels(old))

NodeHasSpreadKeys(p, m) ≝ ∀ c ∈ HardSpread(p) : c.topologyKey ∈ DOMAIN Labels(m)

LabelOr(L, k) ≝ IF k ∈ DOMAIN L THEN L[k] ELSE ""

SpreadKeysChanged(p, old, new) ≝
  ∃ c ∈ HardSpread(p) : LabelOr(Labels(old), c.topologyKey) ≠ LabelOr(Labels(new), c.topologyKey)

\* Added: the node has every constraint's key; deleted: it had; updated:
\* it gained or lost them, or has them and a key's value or its taints
\* changed (the taints compared as a set).
SpreadHintNode(p, old, new) ≝
  IF ¬HardSpreadValid(p) THEN TRUE
  ELSE IF ¬IsNil(old) ∧ ¬IsNil(new)
       THEN ∨ NodeHasSpreadKeys(p, old) ≠ NodeHasSpreadKeys(p, new)
            ∨ ∧ NodeHasSpreadKeys(p, new)
              ∧ SpreadKeysChanged(p, old, new) ∨ old.spec.taints ≠ new.spec.taints
  ELSE IF ¬IsNil(new) THEN NodeHasSpreadKeys(p, new)
  ELSE NodeHasSpreadKeys(p, old)

SpreadHint(e, p, old, new) ≝
  IF e ∈ {"AssignedPodAdd", "AssignedPodDelete"} THEN SpreadHintPod(p, old, new)
  ELSE SpreadHintNode(p, old, new)

\* ======================================================================
\* The answer of plugin pl, which registered event e, for pod p.
\* ======================================================================

Hint(pl, e, p, old, new) ≝
  CASE pl = "NodeResourcesFit"  → FitHint(e, p, old, new)
    [] pl = "NodeAffinity"      → NodeAffinityHint(e, p, old, new)
    [] pl = "TaintToleration"   → TaintTolerationHint(p, old, new)
    [] pl = "NodeUnschedulable" → NodeUnschedulableHint(old, new)
    [] pl = "NodePorts"         → NodePortsHint(e, p, old)
    [] pl = "InterPodAffinity"  → AffinityHint(e, p, old, new)
    [] pl = "PodTopologySpread" → SpreadHint(e, p, old, new)
    [] OTHER                    → AlwaysQueue

=============================================================================
