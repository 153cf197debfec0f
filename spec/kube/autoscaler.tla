---------------------------- MODULE autoscaler ----------------------------
(***************************************************************************)
(* cluster-autoscaler 1.34, default flags: one RunOnce loop on a snapshot  *)
(* (docs/autoscaler.md) — the scale-up it decides and the scale-down       *)
(* planner's verdict on each node. Paths are in kubernetes/autoscaler,     *)
(* folder cluster-autoscaler/.                                             *)
(*                                                                         *)
(* CA embeds the scheduler: its predicate checker runs the framework's     *)
(* PreFilter and Filter on a cluster snapshot of its own. Here that is     *)
(* scheduler.tla's FiltersAt(p, n, N, W, W) in a simulated world: the      *)
(* nodes N and the placement W (node name ↦ pods), PreFilter counting from *)
(* W itself. No rule of the scheduler is written twice.                    *)
(*                                                                         *)
(* Constants from the view (spec/kube/autoscaler_view.py), besides the     *)
(* scheduler's: Groups (the node groups, each with its template node, its  *)
(* DaemonSet/mirror pods and the copies a scale-up may add), Options (the  *)
(* flags), Order (ranks: pods by namespace/name, nodes and groups by       *)
(* name), Clock (CA's now, Unix seconds).                                  *)
(*                                                                         *)
(* Both backends: `find` asks Z3 for clusters with node groups             *)
(* (spec/kube/symbolic/autoscaler_shape.py: scale-from-zero Cluster API    *)
(* groups, so scale-down questions there are about ungrouped nodes only).  *)
(* Ordered steps are written so that Z3 can build them: new nodes named by *)
(* their copy number, folds over sorted sets taken candidate by candidate. *)
(***************************************************************************)

EXTENDS scheduler

\* ======================================================================
\* The snapshot CA simulates.
\* upstream: core/static_autoscaler.go (RunOnce: expendable pods are left
\* out of the snapshot, so their room counts as free),
\* utils/kubernetes/listers.go (terminal pods are never listed)
\* ======================================================================

Expendable(q) ≝ Priority(q) < Options.expendableCutoff

World0 ≝ [m ∈ DOMAIN Snapshot ↦ {q ∈ Snapshot[m] : ¬Expendable(q)}]

PodBefore(a, b) ≝ Order.pods[a.metadata.uid] < Order.pods[b.metadata.uid]

NodeSeq ≝ SortSet(Nodes, LAMBDA a, b : Order.nodes[NodeName(a)] < Order.nodes[NodeName(b)])

PlaceOn(W, m, S) ≝ [x ∈ DOMAIN W ↦ IF x = m THEN W[x] ∪ S ELSE W[x]]

\* A new node with pods S on it joins the world.
WithNode(W, t, S) ≝ [x ∈ DOMAIN W ∪ {NodeName(t)} ↦ IF x = NodeName(t) THEN S ELSE W[x]]

\* The first node of C, in its order, that takes p: upstream searches from a
\* rotating index, in parallel (simulator/clustersnapshot/predicate/
\* plugin_runner.go RunFiltersUntilPassingNode); declared: C's order.
\* Unschedulable nodes are passed over before any filter runs.
FirstFit(p, C, N, W) ≝
  LET fit ≝ {i ∈ DOMAIN C : ¬C[i].spec.unschedulable ∧ FiltersAt(p, C[i], N, W, W)}
  IN  IF fit = {} THEN "" ELSE NodeName(C[Min(fit)])

\* ======================================================================
\* Pods a scale-up is for.
\* upstream: core/podlistprocessor (filter_out_expendable.go,
\* filter_out_schedulable.go, filter_out_daemonset.go), core/utils/
\* expendable.go. Every pending pod is a candidate (declared: upstream
\* lists PodScheduled=False/Unschedulable; filter-out-schedulable drops
\* those the scheduler would place anyway).
\* ======================================================================

DaemonSetPod(q) ≝ ∃ o ∈ q.metadata.ownerReferences : o.controller ∧ o.kind = "DaemonSet"

MirrorPod(q) ≝ "kubernetes.io/config.mirror" ∈ DOMAIN q.metadata.annotations

NominatedNode(q) ≝
  ∧ q.status.nominatedNodeName ≠ ""
  ∧ ∃ n ∈ Nodes : NodeName(n) = q.status.nominatedNodeName

\* Why a pending pod is not a scale-up candidate; "" when it is.
ScaleUpDropped(p) ≝
  CASE Terminating(p)                → "terminating"
    [] p.spec.schedulingGates ≠ {}   → "gated"
    [] Expendable(p)                 → "expendable"
    [] NominatedNode(p)              → "nominated"
    [] OTHER                         → ""

Candidates ≝ {p ∈ PendingPods : ScaleUpDropped(p) = ""}

ByPriority(S) ≝
  SortSet(S, LAMBDA a, b : ∨ Priority(a) > Priority(b)
                           ∨ Priority(a) = Priority(b) ∧ PodBefore(a, b))

\* Nominated pods wait on their node, placed there unchecked.
World1 ≝
  [m ∈ DOMAIN World0 ↦
     World0[m] ∪ {q ∈ PendingPods : ScaleUpDropped(q) = "nominated" ∧ q.status.nominatedNodeName = m}]

FilterOutStep(acc, q) ≝
  LET m ≝ FirstFit(q, NodeSeq, Nodes, acc.world)
  IN  IF m = "" THEN [world ↦ acc.world, placed ↦ acc.placed, left ↦ acc.left ∪ {q}]
      ELSE [world ↦ PlaceOn(acc.world, m, {q}), placed ↦ acc.placed ∪ {⟨q, m⟩}, left ↦ acc.left]

\* Candidates by priority, each placed first-fit on the existing nodes;
\* what is placed stays for the pods after it (and for scale-down).
FilterOut ≝
  FoldLeft(LAMBDA acc, q : FilterOutStep(acc, q),
           [world ↦ World1, placed ↦ {}, left ↦ {}],
           ByPriority(Candidates))

\* The node filter-out-schedulable placed p on, as a set (empty or one name).
PlacedExisting(p) ≝ {x[2] : x ∈ {x ∈ FilterOut.placed : x[1] = p}}

\* A DaemonSet pod left over is dropped, not scaled up for.
UnschedulablePods ≝ {p ∈ FilterOut.left : ¬DaemonSetPod(p)}

WorldU ≝ FilterOut.world

\* ======================================================================
\* Node groups: which may grow.
\* upstream: core/scaleup/orchestrator/orchestrator.go
\* (filterValidScaleUpNodeGroups), core/scaleup/orchestrator/
\* skippedreasons.go, core/scaleup/resource/manager.go. Cores are node
\* capacity rounded up to whole cores, memory capacity in bytes.
\* ======================================================================

Cores(n) ≝ (Get(n.status.capacity, "cpu") + 999) ÷ 1000

MemoryBytes(n) ≝ Get(n.status.capacity, "memory")

Ungrouped ≝ {n ∈ Nodes : ∀ g ∈ Groups : NodeName(n) ∉ g.nodes}

CoresTotal ≝ Sum(LAMBDA g : g.target * Cores(g.template), Groups) + Sum(LAMBDA n : Cores(n), Ungrouped)

MemoryTotal ≝
  Sum(LAMBDA g : g.target * MemoryBytes(g.template), Groups) + Sum(LAMBDA n : MemoryBytes(n), Ungrouped)

LimitLeft(max, total) ≝ IF max - total > 0 THEN max - total ELSE 0

\* The limited resources one more node of g would exceed.
LimitsExceeded(g) ≝
  {r ∈ {"cpu", "memory"} :
     CASE r = "cpu" → Options.coresMax > 0 ∧ Cores(g.template) > LimitLeft(Options.coresMax, CoresTotal)
       [] OTHER     → Options.memoryMax > 0
                      ∧ MemoryBytes(g.template) > LimitLeft(Options.memoryMax, MemoryTotal)}

SkipReason(g) ≝
  CASE g.target ≥ g.max                          → "max node group size reached"
    [] LimitsExceeded(g) = {"cpu"}               → "max cluster cpu limit reached"
    [] LimitsExceeded(g) = {"memory"}            → "max cluster memory limit reached"
    [] LimitsExceeded(g) = {"cpu", "memory"}     → "max cluster cpu, memory limit reached"
    [] OTHER                                     → ""

ValidGroups ≝ {g ∈ Groups : SkipReason(g) = ""}

\* ======================================================================
\* Does a new node of g take p? The world plus g's template node with its
\* DaemonSet and mirror pods.
\* upstream: core/scaleup/orchestrator/orchestrator.go
\* (SchedulablePodGroups), simulator/clustersnapshot/scheduling_error.go
\* (a PreFilter rejection has no reasons). Every pod is asked (declared:
\* upstream asks one pod per equivalence group).
\* ======================================================================

TemplateWorld(g) ≝ WithNode(WorldU, g.template, g.templatePods)

TemplateNodes(g) ≝ Nodes ∪ {g.template}

TemplateAccepts(p, g) ≝
  FiltersAt(p, g.template, TemplateNodes(g), TemplateWorld(g), TemplateWorld(g))

\* The plugin whose Filter rejects p on n first, in the profile's order;
\* "PreFilter" for a rejection before any node is filtered.
RejectingPluginAt(p, n, N, S, W) ≝
  CASE ¬SpreadValid(p, "DoNotSchedule") ∨ ¬AffinityTermsValid(p) → "PreFilter"
    [] ¬NodeUnschedulableOK(p, n)               → "NodeUnschedulable"
    [] ¬NodeNameOK(p, n)                        → "NodeName"
    [] ¬TaintsOK(p, n)                          → "TaintToleration"
    [] ¬NodeAffinityOK(p, n)                    → "NodeAffinity"
    [] ¬PortsOKIn(p, n, W)                      → "NodePorts"
    [] ¬FitOKIn(p, n, W)                        → "NodeResourcesFit"
    [] ¬SpreadOKAt(p, n, N, S, W)               → "PodTopologySpread"
    [] ¬InterPodAffinityOKAt(p, n, N, S, W)     → "InterPodAffinity"
    [] OTHER                                    → ""

TemplateRejection(p, g) ≝
  RejectingPluginAt(p, g.template, TemplateNodes(g), TemplateWorld(g), TemplateWorld(g))

\* ======================================================================
\* The binpacking estimate.
\* upstream: estimator/binpacking_estimator.go, decreasing_pod_orderer.go,
\* threshold_based_limiter.go, sng_capacity_threshold.go,
\* cluster_capacity_threshold.go. Pods by cpu/alloc + mem/alloc of the
\* template, compared exactly (upstream: float64; declared).
\* ======================================================================

AppRequest(p, r) ≝ Sum(LAMBDA i : Get(p.spec.containers[i].resources.requests, r), DOMAIN p.spec.containers)

\* cpu/A_cpu + mem/A_mem scaled by A_cpu·A_mem (a term with no allocatable left out).
PackScore(p, g) ≝
  LET ac ≝ Allocatable(g.template, "cpu")
      am ≝ Allocatable(g.template, "memory")
  IN  (IF ac > 0 THEN AppRequest(p, "cpu") * (IF am > 0 THEN am ELSE 1) ELSE 0)
      + (IF am > 0 THEN AppRequest(p, "memory") * (IF ac > 0 THEN ac ELSE 1) ELSE 0)

PackOrder(g) ≝
  SortSet({p ∈ UnschedulablePods : TemplateAccepts(p, g)},
          LAMBDA a, b : ∨ PackScore(a, g) > PackScore(b, g)
                        ∨ ∧ PackScore(a, g) = PackScore(b, g)
                          ∧ ∨ Priority(a) > Priority(b)
                            ∨ Priority(a) = Priority(b) ∧ PodBefore(a, b))

\* How many new nodes of g the limiter allows (the room of g and, with
\* --balance-similar-node-groups, of its similar groups).
NodeLimit(g) ≝
  LET sng     ≝ Sum(LAMBDA h : Max({h.max - h.target, 0}), {g} ∪ SimilarGroups(g))
      cluster ≝ Options.maxNodesTotal - Cardinality(Nodes)
  IN  IF sng ≤ 0 ∨ (Options.maxNodesTotal > 0 ∧ cluster ≤ 0) THEN 0
      ELSE Min({Options.maxNodesPerScaleUp, sng} ∪ (IF Options.maxNodesTotal > 0 THEN {cluster} ELSE {}))

\* The names of g's copies numbered in I.
CopyNames(g, I) ≝ {NodeName(g.copies[i]) : i ∈ I}

\* The estimator's world: the simulated one, and an empty place for every
\* copy of g (a copy not added yet is in no node set, so no filter reads it).
EstimateWorld(g) ≝
  [x ∈ DOMAIN WorldU ∪ CopyNames(g, DOMAIN g.copies) ↦ IF x ∈ DOMAIN WorldU THEN WorldU[x] ELSE {}]

PlaceOnAll(W, M, S) ≝ [x ∈ DOMAIN W ↦ IF x ∈ M THEN W[x] ∪ S ELSE W[x]]

EstimateState(world, added, used, placed, open) ≝
  [world ↦ world, added ↦ added, used ↦ used, placed ↦ placed, open ↦ open]

\* One pod: the first new node already added that takes it, else (while
\* nodes may be added) the next copy of the template — unless the last one
\* added took no pod. The copies added are the first st.added, each named
\* through its number (a set of names: one, or none), never a chosen record.
EstimateStep(g, st, p) ≝
  LET k    ≝ st.added
      have ≝ {i ∈ DOMAIN g.copies : i ≤ k}
      N    ≝ Nodes ∪ {g.copies[i] : i ∈ have}
      fit  ≝ {i ∈ have : FiltersAt(p, g.copies[i], N, st.world, st.world)}
      next ≝ {i ∈ DOMAIN g.copies : i = k + 1}
      new  ≝ CopyNames(g, next)
      W    ≝ PlaceOnAll(st.world, new, g.templatePods)
  IN  IF fit ≠ {}
      THEN LET m ≝ CopyNames(g, {i ∈ fit : ∀ j ∈ fit : i ≤ j})
           IN  EstimateState(PlaceOnAll(st.world, m, {p}), k, st.used ∪ m,
                             st.placed ∪ {⟨p, x⟩ : x ∈ m}, st.open)
      ELSE IF ¬st.open ∨ (k > 0 ∧ CopyNames(g, {i ∈ have : i = k}) ∩ st.used = {}) THEN st
      ELSE IF k ≥ NodeLimit(g) THEN EstimateState(st.world, k, st.used, st.placed, FALSE)
      ELSE IF ∃ i ∈ next : FiltersAt(p, g.copies[i], N ∪ {g.copies[i]}, W, W)
      THEN EstimateState(PlaceOnAll(W, new, {p}), k + 1, st.used ∪ new,
                         st.placed ∪ {⟨p, x⟩ : x ∈ new}, TRUE)
      ELSE EstimateState(W, k + 1, st.used, st.placed, TRUE)

Estimate(g) ≝
  FoldLeft(LAMBDA st, p : EstimateStep(g, st, p),
           EstimateState(EstimateWorld(g), 0, {}, {}, TRUE),
           PackOrder(g))

EstimatedNodes(g) ≝ Cardinality(Estimate(g).used)

EstimatedPods(g) ≝ {x[1] : x ∈ Estimate(g).placed}

\* The new node the estimator put p on, as a set (empty or one name).
EstimatedNode(p, g) ≝ {x[2] : x ∈ {x ∈ Estimate(g).placed : x[1] = p}}

ScaleUpOptions ≝ {g ∈ ValidGroups : EstimatedNodes(g) > 0}

\* ======================================================================
\* Expanders, chained: each keeps its best options; one left ends the
\* chain; what is left at the end is random's to pick from.
\* upstream: expander/factory/chain.go, expander/mostpods, expander/waste
\* (node capacity, exact rationals here: declared), expander/priority
\* (the view matches the ConfigMap's regexes: g.priority is the highest
\* priority whose regex matches g.name, g.prioritized whether any does).
\* The price expander needs a pricing model: impl only (declared), so it
\* keeps every option here.
\* ======================================================================

\* Σ over cpu and memory of (capacity × count − pod requests)/(capacity ×
\* count), as num/den. A resource the template has no capacity of is left
\* out (upstream divides by zero: a NaN waste; impl leaves it out, declared).
Waste(g) ≝
  LET c  ≝ Get(g.template.status.capacity, "cpu") * EstimatedNodes(g)
      m  ≝ MemoryBytes(g.template) * EstimatedNodes(g)
      pc ≝ Sum(LAMBDA p : AppRequest(p, "cpu"), EstimatedPods(g))
      pm ≝ Sum(LAMBDA p : AppRequest(p, "memory"), EstimatedPods(g))
      dc ≝ IF c > 0 THEN c ELSE 1
      dm ≝ IF m > 0 THEN m ELSE 1
  IN  [num ↦ (IF c > 0 THEN (c - pc) * dm ELSE 0) + (IF m > 0 THEN (m - pm) * dc ELSE 0),
       den ↦ dc * dm]

WasteNum(g) ≝ Waste(g).num

WasteDen(g) ≝ Waste(g).den

LeastWaste(S) ≝ {g ∈ S : ∀ h ∈ S : WasteNum(g) * WasteDen(h) ≤ WasteNum(h) * WasteDen(g)}

MostPods(S) ≝ ArgMax(S, LAMBDA g : Cardinality(EstimatedPods(g)))

\* Upstream starts from priority -1: lower priorities are never kept; when
\* nothing is kept (none matched, or none reached -1), every option is.
PriorityBest(S) ≝
  LET P ≝ {g ∈ S : g.prioritized ∧ g.priority ≥ -1}
  IN  IF P = {} THEN S ELSE ArgMax(P, LAMBDA g : g.priority)

Expand(e, S) ≝
  CASE e = "most-pods"   → MostPods(S)
    [] e = "least-waste" → LeastWaste(S)
    [] e = "priority"    → PriorityBest(S)
    [] OTHER             → S

BestOptions ≝
  FoldLeft(LAMBDA S, e : IF Cardinality(S) ≤ 1 THEN S ELSE Expand(e, S),
           ScaleUpOptions, Options.expanders)

\* ======================================================================
\* Similar node groups, with --balance-similar-node-groups.
\* upstream: processors/nodegroupset/compare_nodegroups.go
\* (IsCloudProviderNodeInfoSimilar, BasicIgnoredLabels), orchestrator.go
\* (ComputeSimilarNodeGroups: valid groups that take every pod g takes).
\* "Within r": larger − smaller ≤ larger · r, exactly (upstream: float64).
\* ======================================================================

Within(a, b, num, den) ≝ den * (Max({a, b}) - Min({a, b})) ≤ num * Max({a, b})

BalancingIgnoredLabels ≝
  {"kubernetes.io/hostname", "failure-domain.beta.kubernetes.io/zone",
   "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/zone",
   "topology.kubernetes.io/region", "beta.kubernetes.io/fluentd-ds-ready",
   "kops.k8s.io/instancegroup"}

KeptLabels(n) ≝
  [k ∈ DOMAIN Labels(n) \ (BalancingIgnoredLabels ∪ Options.balancingIgnoreLabels) ↦ Labels(n)[k]]

\* Allocatable less the template pods' requests, for every resource requested.
TemplateFree(g) ≝
  LET names ≝ {"cpu", "memory", "ephemeral-storage"} ∪ {r : q ∈ g.templatePods, r ∈ DOMAIN Requests(q)}
  IN  [r ∈ names ↦ Allocatable(g.template, r) - Sum(LAMBDA q : Get(Requests(q), r), g.templatePods)]

Similar(g, h) ≝
  LET ca ≝ g.template.status.capacity
      cb ≝ h.template.status.capacity
      aa ≝ g.template.status.allocatable
      ab ≝ h.template.status.allocatable
      fa ≝ TemplateFree(g)
      fb ≝ TemplateFree(h)
  IN  ∧ DOMAIN ca = DOMAIN cb
      ∧ ∀ r ∈ DOMAIN ca : IF r = "memory" THEN Within(ca[r], cb[r], 15, 1000) ELSE ca[r] = cb[r]
      ∧ DOMAIN aa = DOMAIN ab
      ∧ ∀ r ∈ DOMAIN aa : Within(aa[r], ab[r], 5, 100)
      ∧ ∀ r ∈ DOMAIN fa ∩ DOMAIN fb : Within(fa[r], fb[r], 5, 100)
      ∧ KeptLabels(g.template) = KeptLabels(h.template)

Accepted(g) ≝ {p ∈ UnschedulablePods : TemplateAccepts(p, g)}

SimilarGroups(g) ≝
  IF ¬Options.balance THEN {}
  ELSE {h ∈ ValidGroups : h ≠ g ∧ Accepted(g) ⊆ Accepted(h) ∧ Similar(g, h)}

\* BalanceScaleUpBetweenGroups (balancing_processor.go), step by step: the
\* groups below max, by size (stable: the chosen group first, then by name);
\* a node to the group at the cursor if below its max, else that group is
\* swapped to the front and left out; the cursor moves on while its group
\* outgrows the next one, else back to the first open place.
SetAt(s, k, v) ≝ [i ∈ DOMAIN s ↦ IF i = k THEN v ELSE s[i]]

Swapped(s, a, b) ≝ [i ∈ DOMAIN s ↦ IF i = a THEN s[b] ELSE IF i = b THEN s[a] ELSE s[i]]

BalanceStep(st) ≝
  LET c    ≝ st.arr[st.cur]
      grow ≝ c.size < c.max
      arr  ≝ IF grow THEN SetAt(st.arr, st.cur, [name ↦ c.name, from ↦ c.from, size ↦ c.size + 1, max ↦ c.max])
              ELSE Swapped(st.arr, st.cur, st.start)
      start ≝ IF grow THEN st.start ELSE st.start + 1
      left ≝ IF grow THEN st.left - 1 ELSE st.left
      cur  ≝ IF st.cur < Cardinality(DOMAIN arr) ∧ arr[st.cur].size > arr[st.cur + 1].size THEN st.cur + 1 ELSE start
  IN  [arr ↦ arr, start ↦ start, cur ↦ cur, left ↦ left]

BalanceOrder(g, S) ≝
  SortSet(S, LAMBDA a, b : ∨ a.target < b.target
                          ∨ ∧ a.target = b.target
                            ∧ ∨ a = g
                              ∨ a ≠ g ∧ b ≠ g ∧ Order.groups[a.name] < Order.groups[b.name])

BalancedPlan(g, new) ≝
  LET open  ≝ {h ∈ {g} ∪ SimilarGroups(g) : h.target < h.max}
      n     ≝ Min({new, Sum(LAMBDA h : h.max - h.target, open)})
      ord   ≝ BalanceOrder(g, open)
      arr   ≝ [i ∈ DOMAIN ord ↦ [name ↦ ord[i].name, from ↦ ord[i].target,
                                  size ↦ ord[i].target, max ↦ ord[i].max]]
      done  ≝ FoldLeft(LAMBDA st, k : IF st.left > 0 ∧ k > 0 THEN BalanceStep(st) ELSE st,
                       [arr ↦ arr, start ↦ 1, cur ↦ 1, left ↦ n],
                       SortSet(1..(n + Cardinality(open)), LAMBDA a, b : a < b))
  IN  {⟨x.name, x.from, x.size⟩ : x ∈ {x ∈ Elems(done.arr) : x.size ≠ x.from}}

\* ======================================================================
\* The plan for the chosen option g: capped by --max-nodes-total, the
\* cores/memory left and g's max (BalanceScaleUpBetweenGroups on one group).
\* upstream: core/scaleup/orchestrator/orchestrator.go (GetCappedNewNodeCount),
\* core/scaleup/resource/manager.go (ApplyLimits), processors/nodegroupset/
\* balancing_processor.go. Balancing between similar groups: impl only.
\* ======================================================================

CappedByTotal(new) ≝
  IF Options.maxNodesTotal > 0 ∧ new + Cardinality(Nodes) > Options.maxNodesTotal
  THEN Options.maxNodesTotal - Cardinality(Nodes) ELSE new

CappedByLimit(new, max, total, delta) ≝
  IF max > 0 ∧ delta > 0 ∧ new * delta > LimitLeft(max, total)
  THEN LimitLeft(max, total) ÷ delta ELSE new

CappedNodes(g) ≝
  LET a ≝ CappedByTotal(EstimatedNodes(g))
      b ≝ CappedByLimit(a, Options.coresMax, CoresTotal, Cores(g.template))
      c ≝ CappedByLimit(b, Options.memoryMax, MemoryTotal, MemoryBytes(g.template))
  IN  IF Min({a, b, c}) < 1 THEN 0 ELSE c

\* The plan when g is chosen: {⟨group name, from, to⟩} for each group that grows.
\* With no similar group the balancer has one group to fill: it gets the new
\* nodes up to its max (the walk above, done in one step).
Plan(g) ≝
  LET new ≝ Min({CappedNodes(g), g.max - g.target})
  IN  CASE CappedNodes(g) = 0 ∨ new ≤ 0 → {}
        [] SimilarGroups(g) = {}        → {⟨g.name, g.target, g.target + new⟩}
        [] OTHER                        → BalancedPlan(g, CappedNodes(g))

\* The chosen group's own new nodes.
PlannedNodes(g) ≝ Sum(LAMBDA x : x[3] - x[2], {x ∈ Plan(g) : x[1] = g.name})

\* A pod no valid group's template takes did not trigger a scale-up.
TriggersNothing(p) ≝ p ∈ UnschedulablePods ∧ ∀ g ∈ ValidGroups : ¬TemplateAccepts(p, g)

\* ======================================================================
\* After the scale-up: the cluster as the scheduler then sees it — g's
\* first PlannedNodes(g) copies added, each with g's DaemonSet/mirror pods,
\* every other pod where it is bound (expendable pods included, no pod CA
\* only simulated). Not a rule of CA: the question asked of it ("scaled
\* up, pod still pending": CA simulated a fit the scheduler does not
\* find), for find and the decision properties.
\* ======================================================================

NewNodeNumbers(g) ≝ {i ∈ DOMAIN g.copies : i ≤ PlannedNodes(g)}

GrownNodes(g) ≝ Nodes ∪ {g.copies[i] : i ∈ NewNodeNumbers(g)}

GrownSnapshot(g) ≝
  [x ∈ DOMAIN Snapshot ∪ CopyNames(g, NewNodeNumbers(g)) ↦
     IF x ∈ DOMAIN Snapshot THEN Snapshot[x] ELSE g.templatePods]

\* p is one of the pods g's scale-up is for (the estimator packed it on a
\* new node of g), g grows, and yet no node of the grown cluster passes the
\* scheduler's Filter for p.
PendingAfterScaleUp(p, g) ≝
  ∧ p ∈ EstimatedPods(g)
  ∧ PlannedNodes(g) > 0
  ∧ ∀ n ∈ GrownNodes(g) : ¬FiltersAt(p, n, GrownNodes(g), GrownSnapshot(g), GrownSnapshot(g))

\* ======================================================================
\* Scale-down: eligibility.
\* upstream: processors/nodes/pre_filtering_processor.go (no group, group
\* at min size), core/scaledown/eligibility/eligibility.go,
\* core/scaledown/actuation/delete_in_batch.go (IsNodeBeingDeleted: a
\* ToBeDeleted taint younger than 5 minutes), simulator/utilization/info.go.
\* The planner sees the world after filter-out-schedulable: pending pods
\* that will land on a node keep it.
\* ======================================================================

GroupsOf(n) ≝ {g ∈ Groups : NodeName(n) ∈ g.nodes}

BeingDeleted(n) ≝
  ∃ x ∈ n.spec.taints : ∧ x.key = "ToBeDeletedByClusterAutoscaler"
                        ∧ IsInt(x.value)
                        ∧ Clock - ToInt(x.value) < 300

ScaleDownDisabled(n) ≝
  ∧ "cluster-autoscaler.kubernetes.io/scale-down-disabled" ∈ DOMAIN n.metadata.annotations
  ∧ n.metadata.annotations["cluster-autoscaler.kubernetes.io/scale-down-disabled"] = "true"

LongTerminating(q) ≝
  q.metadata.deletionTimestamp ≠ "" ∧ q.metadata.deletionTime + q.spec.terminationGracePeriodSeconds + 30 < Clock

CountedPods(n) ≝ {q ∈ WorldU[NodeName(n)] : ¬LongTerminating(q)}

UsedBy(n, r) ≝ Sum(LAMBDA q : Get(Requests(q), r), CountedPods(n))

GpuNode(n) ≝ Allocatable(n, "nvidia.com/gpu") > 0

AtLeast(used, alloc, t) ≝ t.den * used ≥ t.num * alloc

\* utilization ≥ threshold; an absent or zero allocatable counts as 0 (upstream logs the error).
NotUnderutilized(n) ≝
  IF GpuNode(n)
  THEN AtLeast(UsedBy(n, "nvidia.com/gpu"), Allocatable(n, "nvidia.com/gpu"), Options.gpuThreshold)
  ELSE ∧ Allocatable(n, "cpu") > 0
       ∧ Allocatable(n, "memory") > 0
       ∧ ∨ AtLeast(UsedBy(n, "cpu"), Allocatable(n, "cpu"), Options.threshold)
         ∨ AtLeast(UsedBy(n, "memory"), Allocatable(n, "memory"), Options.threshold)

\* The utilization CA reports, ⟨resource, requested, allocatable⟩: a GPU
\* node's GPU; else the larger of the cpu and memory ratios (memory on a
\* tie); ⟨"", 0, 0⟩ when cpu or memory allocatable is absent or zero.
Utilization(n) ≝
  LET c ≝ UsedBy(n, "cpu")
      m ≝ UsedBy(n, "memory")
  IN  CASE GpuNode(n) → ⟨"nvidia.com/gpu", UsedBy(n, "nvidia.com/gpu"), Allocatable(n, "nvidia.com/gpu")⟩
        [] Allocatable(n, "cpu") = 0 ∨ Allocatable(n, "memory") = 0 → ⟨"", 0, 0⟩
        [] c * Allocatable(n, "memory") > m * Allocatable(n, "cpu") → ⟨"cpu", c, Allocatable(n, "cpu")⟩
        [] OTHER → ⟨"memory", m, Allocatable(n, "memory")⟩

Ineligible(n) ≝
  CASE GroupsOf(n) = {}                              → "NotAutoscaled"
    [] ∃ g ∈ GroupsOf(n) : g.target ≤ g.min          → "NodeGroupMinSizeReached"
    [] BeingDeleted(n)                               → "CurrentlyBeingDeleted"
    [] ScaleDownDisabled(n)                          → "ScaleDownDisabledAnnotation"
    [] NotUnderutilized(n)                           → "NotUnderutilized"
    [] OTHER                                         → ""

\* ======================================================================
\* Scale-down: drainability, first rule with an outcome wins.
\* upstream: simulator/drain.go (GetPodsToMove), simulator/drainability/
\* rules/rules.go (the order), rules/* , utils/drain/drain.go
\* (BlockingPodReason). The replica-count rule needs the controllers'
\* objects: not modelled (declared).
\* ======================================================================

Annotation(q, k) ≝ IF k ∈ DOMAIN q.metadata.annotations THEN q.metadata.annotations[k] ELSE ""

SafeToEvict(q) ≝ Annotation(q, "cluster-autoscaler.kubernetes.io/safe-to-evict")

Replicated(q) ≝
  IF Options.skipCustomControllerPods
  THEN ∃ o ∈ q.metadata.ownerReferences :
         o.controller ∧ o.kind ∈ {"ReplicationController", "Job", "ReplicaSet", "StatefulSet"}
  ELSE ∃ o ∈ q.metadata.ownerReferences : o.controller

\* LabelSelectorAsSelector: a nil selector matches nothing, {} everything.
PdbMatches(d, q) ≝
  ∧ d.metadata.namespace = q.metadata.namespace
  ∧ "selector" ∈ DOMAIN d.spec
  ∧ SelectorMatches(d.spec.selector, Labels(q))

LocalStorage(q) ≝
  ∃ v ∈ q.spec.volumes : ∧ v.hostPath ∨ v.emptyDir ∧ v.medium ≠ "Memory"
                         ∧ v.name ∉ q.metadata.safeLocalVolumes

\* [outcome ↦ "skip" | "stay" | "move" | "block", reason ↦ BlockingPodReason].
Drain(q, budget) ≝
  LET out(o, r) ≝ [outcome ↦ o, reason ↦ r]
  IN  CASE MirrorPod(q)                                 → out("skip", "")
        [] LongTerminating(q)                           → out("skip", "")
        [] DaemonSetPod(q)                              → out("stay", "")
        [] SafeToEvict(q) = "true"                      → out("move", "")
        [] ¬Replicated(q)                               → out("block", "NotReplicated")
        [] ∧ Options.skipSystemPods
           ∧ q.metadata.namespace = "kube-system"
           ∧ ∀ d ∈ PDBs : ¬PdbMatches(d, q)             → out("block", "UnmovableKubeSystemPod")
        [] SafeToEvict(q) = "false"                     → out("block", "NotSafeToEvictAnnotation")
        [] Options.skipLocalStorage ∧ LocalStorage(q)   → out("block", "LocalStorageRequested")
        [] ∃ d ∈ PDBs : PdbMatches(d, q) ∧ budget[d] < 1 → out("block", "NotEnoughPdb")
        [] OTHER                                        → out("move", "")

InitialBudget ≝ [d ∈ PDBs ↦ d.status.disruptionsAllowed]

PodSeq(S) ≝ SortSet(S, LAMBDA a, b : PodBefore(a, b))

\* The first pod on n (in order) whose drain blocks, as ⟨pod, reason⟩; ⟨⟩ if none.
BlockingPod(W, n, budget) ≝
  LET s     ≝ PodSeq(W[NodeName(n)])
      block ≝ {i ∈ DOMAIN s : Drain(s[i], budget).outcome = "block"}
  IN  IF block = {} THEN ⟨⟩ ELSE ⟨s[Min(block)], Drain(s[Min(block)], budget).reason⟩

PodsToMove(W, n, budget) ≝ {q ∈ W[NodeName(n)] : Drain(q, budget).outcome = "move"}

\* ======================================================================
\* Scale-down: the planner's pass, cumulative.
\* upstream: core/scaledown/planner/planner.go (categorizeNodes),
\* simulator/cluster.go (SimulateNodeRemoval, findPlaceFor), core/
\* scaledown/pdb/basic.go (RemovePods), core/scaledown/unneeded/nodes.go
\* (RemovableAt: empty nodes first, group sizes lowered one by one).
\* ======================================================================

Eligible ≝ {n ∈ Nodes : Ineligible(n) = ""}

Empty(n) ≝ PodsToMove(WorldU, n, InitialBudget) = {} ∧ BlockingPod(WorldU, n, InitialBudget) = ⟨⟩

\* Empty nodes first, then by name (upstream's sort is unstable: declared).
CandidateSeq ≝
  SortSet(Eligible, LAMBDA a, b : ∨ Empty(a) ∧ ¬Empty(b)
                                  ∨ Empty(a) = Empty(b) ∧ Order.nodes[NodeName(a)] < Order.nodes[NodeName(b)])

\* The copy of q findPlaceFor schedules: bound to no node.
Unbound(q) ≝
  [metadata ↦ q.metadata,
   spec     ↦ [f ∈ DOMAIN q.spec ↦ IF f = "nodeName" THEN "" ELSE q.spec[f]],
   status   ↦ q.status]

\* Move the pods of S one by one, first-fit on the nodes of D.
MoveAll(S, D, W) ≝
  FoldLeft(LAMBDA acc, q :
             IF ¬acc.ok THEN acc
             ELSE LET u ≝ Unbound(q)
                      m ≝ FirstFit(u, D, Nodes, acc.world)
                  IN  IF m = "" THEN [world ↦ acc.world, ok ↦ FALSE, to ↦ acc.to]
                      ELSE [world ↦ PlaceOn(acc.world, m, {u}), ok ↦ TRUE, to ↦ acc.to ∪ {⟨q, m⟩}],
           [world ↦ W, ok ↦ TRUE, to ↦ {}],
           PodSeq(S))

Spent(budget, S) ≝ [d ∈ DOMAIN budget ↦ budget[d] - Cardinality({q ∈ S : PdbMatches(d, q)})]

PlanState(world, budget, removable, verdicts, moves) ≝
  [world ↦ world, budget ↦ budget, removable ↦ removable, verdicts ↦ verdicts, moves ↦ moves]

\* One candidate: blocked, no place for a pod, or removable — then its pods
\* stay moved, it is no destination for later candidates, and each PDB
\* loses a disruption per moved pod it selects.
PlanStep(st, n) ≝
  LET blocker ≝ BlockingPod(st.world, n, st.budget)
      move    ≝ PodsToMove(st.world, n, st.budget)
      dests   ≝ SortSet({m ∈ Nodes : m ≠ n ∧ NodeName(m) ∉ st.removable},
                        LAMBDA a, b : Order.nodes[NodeName(a)] < Order.nodes[NodeName(b)])
      moved   ≝ MoveAll(move, dests, Without(st.world, n, move))
  IN  IF blocker ≠ ⟨⟩
      THEN PlanState(st.world, st.budget, st.removable,
                     st.verdicts ∪ {⟨n, "BlockedByPod", blocker, FALSE, {}⟩}, st.moves)
      ELSE IF ¬moved.ok
      THEN PlanState(st.world, st.budget, st.removable,
                     st.verdicts ∪ {⟨n, "NoPlaceToMovePods", ⟨⟩, FALSE, {}⟩}, st.moves)
      ELSE PlanState(moved.world, Spent(st.budget, move), st.removable ∪ {NodeName(n)},
                     st.verdicts ∪ {⟨n, "", ⟨⟩, move = {}, moved.to⟩}, st.moves ∪ moved.to)

Planner ≝
  FoldLeft(LAMBDA st, n : PlanStep(st, n), PlanState(WorldU, InitialBudget, {}, {}, {}), CandidateSeq)

Simulated(n) ≝ {v ∈ Planner.verdicts : v[1] = n}

EmptyRemoval(n) ≝ ∃ v ∈ Simulated(n) : v[2] = "" ∧ v[4]

RemovalOrder ≝
  SortSet({n ∈ Nodes : NodeName(n) ∈ Planner.removable},
          LAMBDA a, b : ∨ EmptyRemoval(a) ∧ ¬EmptyRemoval(b)
                        ∨ ∧ EmptyRemoval(a) = EmptyRemoval(b)
                          ∧ ∨ Empty(a) ∧ ¬Empty(b)
                            ∨ Empty(a) = Empty(b) ∧ Order.nodes[NodeName(a)] < Order.nodes[NodeName(b)])

GroupSize(x) ≝ Sum(LAMBDA g : g.target, {g ∈ Groups : g.name = x})

\* Each removal lowers its group's size; none may take it to min or below.
RemovalStep(acc, n) ≝
  IF ∃ g ∈ GroupsOf(n) : acc.size[g.name] ≤ g.min
  THEN [size ↦ acc.size, minned ↦ acc.minned ∪ {NodeName(n)}]
  ELSE [size ↦ [x ∈ DOMAIN acc.size ↦ IF ∃ g ∈ GroupsOf(n) : g.name = x THEN acc.size[x] - 1
                                       ELSE acc.size[x]],
        minned ↦ acc.minned]

Removal ≝
  FoldLeft(LAMBDA acc, n : RemovalStep(acc, n),
           [size ↦ [x ∈ {g.name : g ∈ Groups} ↦ GroupSize(x)], minned ↦ {}],
           RemovalOrder)

\* The verdict on n: "" removable, else CA's UnremovableReason.
ScaleDownReason(n) ≝
  CASE Ineligible(n) ≠ ""                                → Ineligible(n)
    [] ∃ v ∈ Simulated(n) : v[2] = "BlockedByPod"         → "BlockedByPod"
    [] ∃ v ∈ Simulated(n) : v[2] = "NoPlaceToMovePods"    → "NoPlaceToMovePods"
    [] NodeName(n) ∈ Removal.minned                       → "NodeGroupMinSizeReached"
    [] OTHER                                              → ""

\* The pod that blocks n's drain and why, as a set of ⟨pod, reason⟩ (empty or one).
ScaleDownBlocker(n) ≝ {v[3] : v ∈ {v ∈ Simulated(n) : v[2] = "BlockedByPod"}}

\* Where the planner moves n's pods when n is removable: {⟨pod, node name⟩} — the
\* pods on n at its turn, those earlier removals moved there included.
ScaleDownMoves(n) ≝ {x : v ∈ Simulated(n), x ∈ v[5]}

====
