---------------------------- MODULE textbook ----------------------------
(***************************************************************************)
(* The "textbook" scheduler predicates of seed 001 (after Andrew Chen and  *)
(* Dominik Tornow, "The Kubernetes Scheduler"), transcribed AS THE SEED    *)
(* WROTE THEM, defects included. They are a teaching model; the real      *)
(* kube-scheduler v1.34 rules are in scheduler.tla, and the reference's    *)
(* section 2 lists the 44 ways the two differ.                             *)
(*                                                                         *)
(* Values come from the textbook view (docs/textbook-view.md): records in *)
(* the seed's own spelling; the constant Objects is the set of every Pod   *)
(* and Node record of the cluster.                                         *)
(*                                                                         *)
(* Every edit made to the seed's text, and nothing else:                  *)
(*  E1. `\\*` and `\\in` de-escaped to `\*` and `\in`.                     *)
(*  E2. Indentation restored: the bullets of each junction list aligned on *)
(*      one column, CASE arms and quantifier bodies indented under them.  *)
(*  E3. The five definitions all named `Filter` renamed FilterLifecycle    *)
(*      (1. schedulability and lifecycle), FilterNodeSelector (3),         *)
(*      FilterTaints (4) and FilterAffinity (5); a new definition Filter   *)
(*      conjoins them with Resources (2), the seed's "all filter functions *)
(*      must be true".                                                     *)
(*  E4. Resources: the line `∧ ...` ("and so on for other resources")     *)
(*      removed.                                                           *)
(*  E5. Viability: the schematic tuple `<<Rating_1(Pod, Node, Snapshot),   *)
(*      Rating_2(Pod, Node, Snapshot), ...>>` written as `<<Rating(Pod,    *)
(*      Node)>>`, the one rating the seed defines (with its arity).        *)
(*  E6. Section prose between the definitions turned into \* comments.     *)
(* Kept as written, and reported by `schedspec check`: "Exits"; the        *)
(* unbound `p` in Resources; `_NodeSelectorRequirement` and                *)
(* `_LabelSelectorRequirement` (Markdown residue, unbound); the unused     *)
(* `Other` and the 2-argument BoundTo in P_Affinity; `objects`, `Pod.kind` *)
(* and `LabelSelectorRequirement.key` (spelt differently elsewhere).       *)
(***************************************************************************)

BoundTo(Pod, Node, Snapshot) ≝
  ∧ Pod ∈ Snapshot
  ∧ Pod.Kind = "Pod"
  ∧ Node ∈ Snapshot
  ∧ Node.Kind = "Node"
  ∧ Pod.Spec.NodeName = Node.Name

Bound(Pod, Snapshot) ≝
  ∃ Node ∈ Snapshot:
    BoundTo(Pod, Node, Snapshot)

\* 1. Schedulability and lifecycle phase
FilterLifecycle(Pod, Node) ≝
  \* Only consider Nodes that accept new Pods
  ∧ Node.Spec.Unschedulable = False
  \* Only consider Nodes that are ready to accept new Pods (Lifecycle Phase)
  ∧ Node.Status.Phase = "Running"

\* 2. Resource requirements and resource availability
Resources(Pod, Node) ≝
  ∧ 1 ≤ Node.Status.Allocatable["pods"]
  \* Use the maximum resource requirements of init containers
  ∧ Max({ i \in DOMAIN p.Spec.InitContainer : p.Spec.InitContainer[i].Resources.Required["cpu"] }) ≤ Node.Status.Allocatable["cpu"]
  ∧ Max({ i \in DOMAIN p.Spec.InitContainer : p.Spec.InitContainer[i].Resources.Required["mem"] }) ≤ Node.Status.Allocatable["mem"]
  \* Use the sum of resource requirements of main containers
  ∧ Sum({ i \in DOMAIN p.Spec.Container : p.Spec.Container[i].Resources.Required["cpu"] }) ≤ Node.Status.Allocatable["cpu"]
  ∧ Sum({ i \in DOMAIN p.Spec.Container : p.Spec.Container[i].Resources.Required["mem"] }) ≤ Node.Status.Allocatable["mem"]

\* 3. Node selector
FilterNodeSelector(Pod, Node) ==
  ∀ Label ∈ DOMAIN(Pod.Spec.NodeSelector):
    ∧ Label ∈ DOMAIN(Node.Labels)
    ∧ Pod.Spec.NodeSelector[Label] = Node.Labels[Label]

\* 4. Node taints and pod tolerations
FilterTaints(Pod, Node) ==
  ∀ Taint ∈ Node.Spec.Taints:
    ∃ Toleration ∈ Pod.Spec.Tolerations: Match(Toleration, Taint)

Match(Toleration, Taint) ==
  ∧ CASE Toleration.Operator = "Exists"
           ⟶ Toleration.key = Taint.key
      [] Toleration.Operator = "Equal"
           ⟶ Toleration.key = Taint.key ∧ Toleration.value = Taint.value
      [] OTHER
           ⟶ FALSE
  ∧ Toleration.Effect = Taint.Effect

\* 5. Required affinity
FilterAffinity(Pod, Node) ≝
  \* Node, Affinity
  ∧ ∃ NodeSelectorTerm ∈ Pod.Spec.Affinity.NodeAffinity.Required.NodeSelectorTerms :
      Match_NS(NodeSelectorTerm, Node)
  \* Pod, Affinity
  ∧ ∀ PodAffinityTerm ∈ Pod.Spec.Affinity.PodAffinity.Required :
      P_Affinity(PodAffinityTerm, Node)
  \* Pod, Anit-Affinity
  ∧ ∀ PodAffinityTerm ∈ Pod.Spec.Affinity.AntiPodAffinity.Required :
      ¬ P_Affinity(PodAffinityTerm, Node)

\* All filter functions must be true for the Node to be feasible (E3).
Filter(Pod, Node) ≝
  ∧ FilterLifecycle(Pod, Node)
  ∧ Resources(Pod, Node)
  ∧ FilterNodeSelector(Pod, Node)
  ∧ FilterTaints(Pod, Node)
  ∧ FilterAffinity(Pod, Node)

\* Node, Affinity, Match Node Selector Term
Match_NS(NodeSelectorRequirement, Node) ≝
  CASE NodeSelectorRequirement.Operator = "In"
         ⟶ (NodeSelectorRequirement.Key ∈ DOMAIN(Node.Labels) ∧ Node.Labels[NodeSelectorRequirement.Key] ∈ NodeSelectorRequirement.Value)
    [] NodeSelectorRequirement.Operator = "NotIn"
         ⟶ ¬ (NodeSelectorRequirement.Key ∈ DOMAIN(Node.Labels) ∧ Node.Labels[NodeSelectorRequirement.Key] ∈ NodeSelectorRequirement.Value)
    [] NodeSelectorRequirement.Operator = "Exits"
         ⟶ (NodeSelectorRequirement.Key ∈ DOMAIN(Node.Labels))
    [] NodeSelectorRequirement.Operator = "DoesNotExist"
         ⟶ ¬ (NodeSelectorRequirement.Key ∈ DOMAIN(Node.Labels))
    [] _NodeSelectorRequirement.Operator = "Gt" ∧ ∀ Value ∈ NodeSelectorRequirement.Value: Value ∈ Int
         ⟶ (NodeSelectorRequirement.Key ∈ DOMAIN(Node.Labels) ∧ Node.Labels[NodeSelectorRequirement.Key] ∈ Int ∧ Node.Labels[NodeSelectorRequirement.Key] > Max(NodeSelectorRequirement.Value))
    [] _NodeSelectorRequirement.Operator = "Lt" ∧ ∀ Value ∈ NodeSelectorRequirement.Value: Value ∈ Int
         ⟶ (NodeSelectorRequirement.Key ∈ DOMAIN(Node.Labels) ∧ Node.Labels[NodeSelectorRequirement.Key] ∈ Int ∧ Node.Labels[NodeSelectorRequirement.Key] < Min(NodeSelectorRequirement.Value))
    [] OTHER
         ⟶ FALSE

\* Pod, (Anti)Affinity, Match Pod Affinity Term
P_Affinity(PodAffinityTerm, Node) ==
  IF PodAffinityTerm.TopologyKey \in DOMAIN(Node.Labels) THEN
    ∃ Other ∈ {Other ∈ Objects : Other.Kind = "Node" ∧ PodAffinityTerm.TopologyKey ∈ DOMAIN(Other.Labels) ∧ Other.Labels[PodAffinityTerm.TopologyKey] = Node.Labels[PodAffinityTerm.TopologyKey]}:
      ∃ Pod ∈ {Pod ∈ objects : Pod.kind = "Pod" ∧ BoundTo(Pod, Node) ∧ Pod.Namespace ∈ PodAffinityTerm.Namespaces}:
        Match_LS(PodAffinityTerm.LabelSelector, Pod.Labels)
  ELSE
    FALSE

\* Pod, (Anti)Affinity, Match Label Selector
Match_LS(LabelSelector, Labels) ≝
  ∧ ∀ Key ∈ DOMAIN(LabelSelector) : Key ∈ DOMAIN(Labels) ∧ LabelSelector[Key] = Labels[Key]
  ∧ ∀ LabelSelectorRequirement ∈ LabelSelector.MatchExpression:
      CASE LabelSelectorRequirement.Operator = "In"
             ⟶ (LabelSelectorRequirement.Key ∈ DOMAIN(Labels) ∧ Labels[LabelSelectorRequirement.Key] ∈ LabelSelectorRequirement.Values)
        [] _LabelSelectorRequirement.Operator = "NotIn"
             ⟶ ¬ (LabelSelectorRequirement.Key ∈ DOMAIN(Labels) ∧ Labels[LabelSelectorRequirement.key] ∈ LabelSelectorRequirement.Values)
        [] _LabelSelectorRequirement.Operator = "Exists"
             ⟶ (LabelSelectorRequirement.Key ∈ DOMAIN(Labels))
        [] _LabelSelectorRequirement.Operator = "DoesNotExist"
             ⟶ ¬ (LabelSelectorRequirement.Key ∈ DOMAIN(Labels))

\* Viability: the sum of the ratings of a (Pod, Node) pair.
Viability(Pod, Node, Snapshot) ==
  Sum(<<Rating(Pod, Node)>>)

\* Preferred affinity: node affinity, pod affinity and pod anti-affinity term weights.
Rating(Pod, Node) ≝
  Sum(<<
    Sum(LAMBDA Term: Term.Weight, {NodeSelectorTerm ∈ Pod.Spec.Affinity.NodeAffinity.Preferred.NodeSelectorTerms : Match_NS(NodeSelectorTerm, Node) }),
    Sum(LAMBDA Term: Term.Weight, {PodAffinityTerm ∈ Pod.Spec.Affinity.PodAffinity.Preferred : P_Affinity(PodAffinityTerm, Node) }),
    Sum(LAMBDA Term: Term.Weight, {PodAffinityTerm ∈ Pod.Spec.Affinity.AntiPodAffinity.Preferred : ~ P_Affinity(PodAffinityTerm, Node)})
  >>)
=============================================================================
