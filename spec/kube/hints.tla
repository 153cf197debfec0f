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
(* Left out: InterPodAffinity and PodTopologySpread (their hints read the  *)
(* other pods' labels and the topology; not stated yet), VolumeBinding and *)
(* DynamicResources (not in impl).                                         *)
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
\* The answer of plugin pl, which registered event e, for pod p.
\* ======================================================================

Hint(pl, e, p, old, new) ≝
  CASE pl = "NodeResourcesFit"  → FitHint(e, p, old, new)
    [] pl = "NodeAffinity"      → NodeAffinityHint(e, p, old, new)
    [] pl = "TaintToleration"   → TaintTolerationHint(p, old, new)
    [] pl = "NodeUnschedulable" → NodeUnschedulableHint(old, new)
    [] pl = "NodePorts"         → NodePortsHint(e, p, old)
    [] OTHER                    → AlwaysQueue

=============================================================================
