---------------------------- MODULE scheduler ----------------------------
(***************************************************************************)
(* kube-scheduler v1.34, default feature gates, under the profile that     *)
(* schedules the pod: its filters, scores and preemption victims as        *)
(* predicates over the real API shape (docs/scheduler-view.md;             *)
(* spec/kube/scheduler_view.py). Profiles comes from the input's           *)
(* KubeSchedulerConfiguration, or is the default profile                   *)
(* (spec/kube/profiles.py says what it reads and what it refuses).         *)
(*                                                                         *)
(* One definition per rule, named as the impl's plugins name them. Each    *)
(* section cites the upstream file it formalises: paths are in             *)
(* k8s.io/kubernetes v1.34 unless another module is named. The textbook    *)
(* spec (textbook.tla) differs from this one in the 44 ways of the         *)
(* reference's section 2; tests/spec/scenarios pin them.                   *)
(*                                                                         *)
(* Placements. A placement W maps every node name to the pods counted on   *)
(* it. Snapshot is the cluster's own; Feasible's two-pass rule adds        *)
(* nominated pods, and preemption removes victims. Filters that read other *)
(* pods take W (FitOKIn, ...), and their two-argument forms (FitOK, ...)   *)
(* read Snapshot.                                                          *)
(*                                                                         *)
(* Constants from the view: Pods, Nodes, PodsOn, NamespaceLabels, PDBs,    *)
(* Services, Controllers, Now, Profiles.                                   *)
(*                                                                         *)
(* Declared, not modelled: volume plugins and DynamicResources (out of     *)
(* scope); the sampling of nodes to score (numFeasibleNodesToFind) and     *)
(* the candidate sampling of preemption: this spec judges every node.      *)
(***************************************************************************)

\* ======================================================================
\* Values
\* ======================================================================

Elems(s) ≝ {s[i] : i ∈ DOMAIN s}

Get(f, k) ≝ IF k ∈ DOMAIN f THEN f[k] ELSE 0

Labels(x) ≝ x.metadata.labels

NodeName(n) ≝ n.metadata.name

Priority(q) ≝ q.spec.priority

ArgMin(S, F) ≝ {x ∈ S : ∀ y ∈ S : F(x) ≤ F(y)}

ArgMax(S, F) ≝ {x ∈ S : ∀ y ∈ S : F(y) ≤ F(x)}

\* ======================================================================
\* The profile that schedules p: the one its schedulerName names (a pod no
\* profile names is left to another scheduler: the view does not list it
\* as pending). A plugin disabled at an extension point neither rejects
\* nor scores there.
\* upstream: pkg/scheduler/profile/profile.go, framework/runtime/framework.go
\* (expandMultiPointPlugins, getScoreWeights)
\* ======================================================================

Profile(p) ≝
  IF p.spec.schedulerName ∈ DOMAIN Profiles THEN Profiles[p.spec.schedulerName]
  ELSE Profiles["default-scheduler"]

Runs(p, point, plugin) ≝ plugin ∈ Profile(p)[point]

\* ======================================================================
\* Which pods count on a node: the scheduler cache's NodeInfo.
\* upstream: pkg/scheduler/scheduler.go (newPodInformer drops Succeeded and
\* Failed pods), pkg/scheduler/backend/cache/cache.go, framework/types.go
\* ======================================================================

Terminal(q) ≝ q.status.phase ∈ {"Succeeded", "Failed"}

Terminating(q) ≝ q.metadata.deletionTimestamp ≠ ""

Snapshot ≝ [m ∈ DOMAIN PodsOn ↦ {q ∈ PodsOn[m] : ¬Terminal(q)}]

On(W, n) ≝ W[NodeName(n)]

PendingPods ≝ {q ∈ Pods : q.spec.nodeName = "" ∧ ¬Terminal(q)}

Place(W, n, S) ≝ [m ∈ DOMAIN W ↦ IF m = NodeName(n) THEN W[m] ∪ S ELSE W[m]]

Without(W, n, S) ≝ [m ∈ DOMAIN W ↦ IF m = NodeName(n) THEN W[m] \ S ELSE W[m]]

\* ======================================================================
\* Label selectors.
\* upstream: k8s.io/apimachinery pkg/labels/selector.go (Requirement.Matches,
\* NewRequirement), pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector)
\* A nil selector (the field absent) matches nothing; {} matches everything.
\* ======================================================================

\* LabelSelectorAsSelector builds one NewRequirement per matchLabels entry
\* (Equals, one value) and per match expression; each checks the key's and
\* every value's label syntax, so a selector the API server would refuse
\* (a hand-written manifest may hold one) fails to convert.
SelectorValid(s) ≝
  ∧ ∀ k ∈ DOMAIN s.matchLabels : IsLabelKey(k) ∧ IsLabelValue(s.matchLabels[k])
  ∧ ∀ r ∈ s.matchExpressions :
      ∧ IsLabelKey(r.key)
      ∧ ∀ v ∈ r.values : IsLabelValue(v)
      ∧ CASE r.operator ∈ {"In", "NotIn"}           → r.values ≠ {}
          [] r.operator ∈ {"Exists", "DoesNotExist"} → r.values = {}
          [] OTHER                                   → FALSE

SelectorRequirementOK(r, L) ≝
  CASE r.operator = "In"           → r.key ∈ DOMAIN L ∧ L[r.key] ∈ r.values
    [] r.operator = "NotIn"        → r.key ∉ DOMAIN L ∨ L[r.key] ∉ r.values
    [] r.operator = "Exists"       → r.key ∈ DOMAIN L
    [] r.operator = "DoesNotExist" → r.key ∉ DOMAIN L
    [] OTHER                       → FALSE

SelectorMatches(s, L) ≝
  ∧ SelectorValid(s)
  ∧ ∀ k ∈ DOMAIN s.matchLabels : k ∈ DOMAIN L ∧ L[k] = s.matchLabels[k]
  ∧ ∀ r ∈ s.matchExpressions : SelectorRequirementOK(r, L)

SelectorEmpty(s) ≝ DOMAIN s.matchLabels = {} ∧ s.matchExpressions = {}

\* ======================================================================
\* NodeUnschedulable.
\* upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
\* Tolerations: k8s.io/api core/v1/toleration.go ToleratesTaint (v0.34)
\* ======================================================================

Tolerates(t, x) ≝
  ∧ t.effect = "" ∨ t.effect = x.effect
  ∧ t.key = "" ∨ t.key = x.key
  ∧ CASE t.operator ∈ {"", "Equal"} → t.value = x.value
      [] t.operator = "Exists"       → TRUE
      [] OTHER                       → FALSE

UnschedulableTaint ≝
  [key ↦ "node.kubernetes.io/unschedulable", value ↦ "", effect ↦ "NoSchedule"]

NodeUnschedulableOK(p, n) ≝
  ∨ ¬n.spec.unschedulable
  ∨ ∃ t ∈ p.spec.tolerations : Tolerates(t, UnschedulableTaint)

\* ======================================================================
\* NodeName.  upstream: pkg/scheduler/framework/plugins/nodename/node_name.go
\* ======================================================================

NodeNameOK(p, n) ≝ p.spec.nodeName = "" ∨ p.spec.nodeName = NodeName(n)

\* ======================================================================
\* TaintToleration (Filter).
\* upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go,
\* plugins/helper/taint.go DoNotScheduleTaintsFilterFunc; component-helpers
\* scheduling/corev1/helpers.go FindMatchingUntoleratedTaint
\* Only NoSchedule and NoExecute taints filter; PreferNoSchedule only scores.
\* ======================================================================

FilteringTaint(x) ≝ x.effect ∈ {"NoSchedule", "NoExecute"}

Tolerated(p, x) ≝ ∃ t ∈ p.spec.tolerations : Tolerates(t, x)

TaintsOK(p, n) ≝ ∀ x ∈ n.spec.taints : FilteringTaint(x) ⇒ Tolerated(p, x)

UntoleratedTaints(p, n) ≝ {x ∈ n.spec.taints : FilteringTaint(x) ∧ ¬Tolerated(p, x)}

\* ======================================================================
\* NodeAffinity (Filter): nodeSelector ∧ required node affinity.
\* upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go;
\* component-helpers scheduling/corev1/nodeaffinity/nodeaffinity.go
\* (NewLazyErrorNodeSelector: empty terms skipped, a term that fails to
\* parse is skipped, the rest ORed; nodeSelectorRequirementsAsFieldSelector)
\* ======================================================================

\* labels.NewRequirement: the key's and every value's label syntax (so a Gt
\* value "-1" parses as an integer and is still refused), then the counts.
NodeRequirementValid(r) ≝
  ∧ IsLabelKey(r.key)
  ∧ ∀ i ∈ DOMAIN r.values : IsLabelValue(r.values[i])
  ∧ CASE r.operator ∈ {"In", "NotIn"}           → Len(r.values) > 0
      [] r.operator ∈ {"Exists", "DoesNotExist"} → Len(r.values) = 0
      [] r.operator ∈ {"Gt", "Lt"}               → Len(r.values) = 1 ∧ IsInt(r.values[1])
      [] OTHER                                   → FALSE

NodeRequirementOK(r, L) ≝
  CASE r.operator = "In"           → r.key ∈ DOMAIN L ∧ L[r.key] ∈ Elems(r.values)
    [] r.operator = "NotIn"        → r.key ∉ DOMAIN L ∨ L[r.key] ∉ Elems(r.values)
    [] r.operator = "Exists"       → r.key ∈ DOMAIN L
    [] r.operator = "DoesNotExist" → r.key ∉ DOMAIN L
    [] r.operator = "Gt"           → ∧ r.key ∈ DOMAIN L
                                      ∧ IsInt(L[r.key])
                                      ∧ ToInt(L[r.key]) > ToInt(r.values[1])
    [] r.operator = "Lt"           → ∧ r.key ∈ DOMAIN L
                                      ∧ IsInt(L[r.key])
                                      ∧ ToInt(L[r.key]) < ToInt(r.values[1])
    [] OTHER                       → FALSE

\* A node's only field is metadata.name; any other field key reads "".
FieldValue(n, k) ≝ IF k = "metadata.name" THEN NodeName(n) ELSE ""

FieldRequirementValid(f) ≝ f.operator ∈ {"In", "NotIn"} ∧ Len(f.values) = 1

FieldRequirementOK(f, n) ≝
  IF f.operator = "In" THEN FieldValue(n, f.key) = f.values[1]
                       ELSE FieldValue(n, f.key) ≠ f.values[1]

TermEmpty(T) ≝ T.matchExpressions = {} ∧ T.matchFields = {}

TermValid(T) ≝
  ∧ ∀ r ∈ T.matchExpressions : NodeRequirementValid(r)
  ∧ ∀ f ∈ T.matchFields : FieldRequirementValid(f)

NodeTermMatches(T, n) ≝
  ∧ ¬TermEmpty(T)
  ∧ TermValid(T)
  ∧ ∀ r ∈ T.matchExpressions : NodeRequirementOK(r, Labels(n))
  ∧ ∀ f ∈ T.matchFields : FieldRequirementOK(f, n)

NodeSelectorOK(p, n) ≝
  ∀ k ∈ DOMAIN p.spec.nodeSelector :
    k ∈ DOMAIN Labels(n) ∧ Labels(n)[k] = p.spec.nodeSelector[k]

HasRequiredNodeAffinity(p) ≝
  "requiredDuringSchedulingIgnoredDuringExecution" ∈ DOMAIN p.spec.affinity.nodeAffinity

RequiredNodeTerms(p) ≝
  Elems(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)

RequiredNodeAffinityOK(p, n) ≝
  ∨ ¬HasRequiredNodeAffinity(p)
  ∨ ∃ T ∈ RequiredNodeTerms(p) : NodeTermMatches(T, n)

\* The pod's own: what spread's nodeAffinityPolicy Honor reads too
\* (component-helpers nodeaffinity.GetRequiredNodeAffinity).
PodNodeAffinityOK(p, n) ≝ NodeSelectorOK(p, n) ∧ RequiredNodeAffinityOK(p, n)

\* The profile's NodeAffinityArgs.addedAffinity: its required terms apply to
\* every pod, checked before the pod's own (Filter: "node(s) didn't match
\* scheduler-enforced node affinity").
AddedAffinity(p) ≝ Profile(p).addedAffinity

AddedAffinityOK(p, n) ≝
  ∨ "requiredDuringSchedulingIgnoredDuringExecution" ∉ DOMAIN AddedAffinity(p)
  ∨ ∃ T ∈ Elems(AddedAffinity(p).requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) :
      NodeTermMatches(T, n)

\* The NodeAffinity plugin's Filter.
NodeAffinityOK(p, n) ≝ AddedAffinityOK(p, n) ∧ PodNodeAffinityOK(p, n)

\* PreFilter's node names: per required term, the nodes its matchFields
\* "metadata.name In" requirements all name; no restriction when a term has
\* none; an empty union rejects the pod ("pod affinity terms conflict").
\* Implied by the Filter; it decides alone when the profile disables
\* NodeAffinity's Filter but not its PreFilter.
\* upstream: plugins/nodeaffinity/node_affinity.go (PreFilter)
NameRequirements(T) ≝ {f ∈ T.matchFields : f.key = "metadata.name" ∧ f.operator = "In"}

TermNodeNames(T) ≝
  {x ∈ {x : f ∈ NameRequirements(T), x ∈ Elems(f.values)} :
     ∀ g ∈ NameRequirements(T) : x ∈ Elems(g.values)}

NodeAffinityRestricts(p) ≝
  ∧ HasRequiredNodeAffinity(p)
  ∧ RequiredNodeTerms(p) ≠ {}
  ∧ ∀ T ∈ RequiredNodeTerms(p) : NameRequirements(T) ≠ {}

PreFilterNodeNames(p) ≝ {x : T ∈ RequiredNodeTerms(p), x ∈ TermNodeNames(T)}

NodeAffinityConflict(p) ≝ NodeAffinityRestricts(p) ∧ PreFilterNodeNames(p) = {}

NodeAffinityPreFilterOK(p, n) ≝
  ¬NodeAffinityRestricts(p) ∨ NodeName(n) ∈ PreFilterNodeNames(p)

\* ======================================================================
\* NodePorts.
\* upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go,
\* pkg/scheduler/util/utils.go GetHostPorts (sidecars' ports count),
\* k8s.io/kube-scheduler framework/types.go HostPortInfo.CheckConflict
\* ======================================================================

RunningContainers(p) ≝
  Elems(p.spec.containers) ∪ {c ∈ Elems(p.spec.initContainers) : c.restartPolicy = "Always"}

HostPort(pt) ≝
  [ip ↦ IF pt.hostIP = "" THEN "0.0.0.0" ELSE pt.hostIP,
   protocol ↦ pt.protocol,
   port ↦ pt.hostPort]

HostPorts(p) ≝
  {HostPort(pt) : c ∈ RunningContainers(p), pt ∈ {pt ∈ c.ports : pt.hostPort > 0}}

UsedPorts(n, W) ≝ {hp : q ∈ On(W, n), hp ∈ HostPorts(q)}

PortConflict(w, U) ≝
  ∃ u ∈ U : ∧ u.protocol = w.protocol
            ∧ u.port = w.port
            ∧ w.ip = "0.0.0.0" ∨ u.ip ∈ {"0.0.0.0", w.ip}

ConflictingPorts(p, n, W) ≝ {w ∈ HostPorts(p) : PortConflict(w, UsedPorts(n, W))}

PortsOKIn(p, n, W) ≝ ∀ w ∈ HostPorts(p) : ¬PortConflict(w, UsedPorts(n, W))

PortsOK(p, n) ≝ PortsOKIn(p, n, Snapshot)

\* ======================================================================
\* Effective pod requests.
\* upstream: k8s.io/component-helpers resource/helpers.go PodRequests,
\* AggregateContainerRequests (v0.34): app containers and sidecars summed;
\* each init container adds the sidecars started before it; the larger
\* wins; pod-level requests (PodLevelResources, beta, on) replace cpu,
\* memory and hugepages; overhead is added. D gives the per-container
\* defaults for missing requests (scoring's non-zero requests).
\* ======================================================================

NoDefaults ≝ [r ∈ {} ↦ r]

\* schedutil.DefaultMilliCPURequest and DefaultMemoryRequest (200 MiB)
NonZeroDefaults ≝ [cpu ↦ 100, memory ↦ 209715200]

\* In-place resize (InPlacePodVerticalScaling, beta, on in 1.34): a container
\* with a status counts the largest of its spec, actuated and allocated
\* requests, or only the status ones while the resize is Infeasible.
\* Only app containers and sidecars read their status.
ResizeInfeasible(q) ≝
  ∃ c ∈ q.status.conditions : c.type = "PodResizePending" ∧ c.reason = "Infeasible"

MaxList(a, b) ≝ [r ∈ DOMAIN a ∪ DOMAIN b ↦ Max({Get(a, r), Get(b, r)})]

ContainerRequests(q, c, useStatus) ≝
  IF useStatus ∧ "statusResources" ∈ DOMAIN c
  THEN LET st ≝ MaxList(c.statusResources.requests, c.statusResources.allocatedResources)
       IN  IF ResizeInfeasible(q) THEN st ELSE MaxList(c.resources.requests, st)
  ELSE c.resources.requests

ContainerRequest(q, c, useStatus, r, D) ≝
  LET reqs ≝ ContainerRequests(q, c, useStatus)
  IN  IF r ∈ DOMAIN reqs THEN reqs[r] ELSE Get(D, r)

Sidecar(c) ≝ c.restartPolicy = "Always"

SidecarRequestsBefore(p, i, r, D) ≝
  LET inits ≝ p.spec.initContainers
  IN  Sum(LAMBDA j : IF Sidecar(inits[j]) THEN ContainerRequest(p, inits[j], TRUE, r, D) ELSE 0,
          {j ∈ DOMAIN inits : j < i})

ContainersRequest(p, r, D) ≝
  LET inits ≝ p.spec.initContainers
      apps  ≝ p.spec.containers
      app   ≝ Sum(LAMBDA i : ContainerRequest(p, apps[i], TRUE, r, D), DOMAIN apps)
      side  ≝ SidecarRequestsBefore(p, Len(inits) + 1, r, D)
  IN  Max({app + side} ∪
          {ContainerRequest(p, inits[i], Sidecar(inits[i]), r, D)
             + SidecarRequestsBefore(p, i, r, D) : i ∈ DOMAIN inits})

PodLevelResource(r) ≝ r ∈ {"cpu", "memory"} ∨ StartsWith(r, "hugepages-")

PodLevelRequest(p, r) ≝ PodLevelResource(r) ∧ r ∈ DOMAIN p.spec.resources.requests

PodRequest(p, r, D) ≝
  (IF PodLevelRequest(p, r) THEN p.spec.resources.requests[r] ELSE ContainersRequest(p, r, D))
  + Get(p.spec.overhead, r)

RequestedNames(p) ≝
  {r : c ∈ Elems(p.spec.containers) ∪ Elems(p.spec.initContainers),
       r ∈ DOMAIN ContainerRequests(p, c, TRUE)}
  ∪ DOMAIN p.spec.overhead
  ∪ {r ∈ DOMAIN p.spec.resources.requests : PodLevelResource(r)}

Requests(p) ≝ [r ∈ RequestedNames(p) ↦ PodRequest(p, r, NoDefaults)]

Requested(n, W, r) ≝ Sum(LAMBDA q : Get(Requests(q), r), On(W, n))

Allocatable(n, r) ≝ Get(n.status.allocatable, r)

\* ======================================================================
\* NodeResourcesFit (Filter).
\* upstream: pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest;
\* pkg/scheduler/util/utils.go IsScalarResourceName
\* The pod count is always checked; a resource is checked only when the pod
\* requests more than 0 of it; an unadvertised extended resource has 0.
\* ======================================================================

ScalarResource(r) ≝
  ∨ Contains(r, "/") ∧ ¬StartsWith(r, "requests.")
  ∨ StartsWith(r, "hugepages-")
  ∨ StartsWith(r, "attachable-volumes-")

FitResource(r) ≝ r ∈ {"cpu", "memory", "ephemeral-storage"} ∨ ScalarResource(r)

\* NodeResourcesFitArgs.ignoredResources and ignoredResourceGroups skip
\* extended resources only (v1helper.IsExtendedResourceName).
ExtendedResource(r) ≝
  Contains(r, "/") ∧ ¬Contains(r, "kubernetes.io/") ∧ ¬StartsWith(r, "requests.")

IgnoredResource(p, r) ≝
  ∧ ExtendedResource(r)
  ∧ ∨ r ∈ Profile(p).ignoredResources
    ∨ ∃ g ∈ Profile(p).ignoredResourceGroups : BeforeSlashIs(r, g)

TooManyPods(n, W) ≝ Cardinality(On(W, n)) + 1 > Allocatable(n, "pods")

InsufficientResources(p, n, W) ≝
  {r ∈ DOMAIN Requests(p) : ∧ FitResource(r)
                            ∧ ¬IgnoredResource(p, r)
                            ∧ Requests(p)[r] > 0
                            ∧ Requests(p)[r] > Allocatable(n, r) - Requested(n, W, r)}

FitOKIn(p, n, W) ≝ ¬TooManyPods(n, W) ∧ InsufficientResources(p, n, W) = {}

FitOK(p, n) ≝ FitOKIn(p, n, Snapshot)

\* v1.34: a request larger than the whole allocatable cannot be helped by preemption.
FitUnresolvable(p, n, W) ≝
  ∃ r ∈ InsufficientResources(p, n, W) : Requests(p)[r] > Allocatable(n, r)

\* ======================================================================
\* PodTopologySpread (Filter: DoNotSchedule constraints).
\* upstream: pkg/scheduler/framework/plugins/podtopologyspread/common.go
\* (filterTopologySpreadConstraints, mergeLabelSetWithSelector,
\* countPodsMatchSelector), filtering.go (calPreFilterState, Filter)
\* ======================================================================

\* A pod without constraints of its own gets the profile's default ones
\* (defaultingType System: hostname maxSkew 3 and zone maxSkew 5, both
\* ScheduleAnyway), all with one selector deduced from what selects the pod,
\* and none when that selector is empty. upstream: common.go
\* (buildDefaultConstraints), plugin.go (systemDefaultConstraints,
\* getConstraints), helper/spread.go (DefaultSelector, GetPodServices)
Spread(p) ≝
  IF DefaultSelectorEmpty(p) ∨ p.spec.topologySpreadConstraints ≠ ⟨⟩
  THEN p.spec.topologySpreadConstraints
  ELSE Profile(p).spreadDefaults

SpreadIndices(p, action) ≝ {i ∈ DOMAIN Spread(p) : Spread(p)[i].whenUnsatisfiable = action}

\* The Services of p's namespace whose selector matches p's labels (a nil
\* selector selects nothing, an empty one every pod).
SelectingServices(p) ≝
  {s ∈ Services : ∧ s.metadata.namespace = p.metadata.namespace
                  ∧ "selector" ∈ DOMAIN s.spec
                  ∧ ∀ k ∈ DOMAIN s.spec.selector :
                      k ∈ DOMAIN Labels(p) ∧ Labels(p)[k] = s.spec.selector[k]}

\* The ReplicationController, ReplicaSet or StatefulSet of p's namespace that
\* p's controller owner reference names, when it exists (at most one).
PodController(p) ≝
  {c ∈ Controllers : ∧ c.metadata.namespace = p.metadata.namespace
                     ∧ ∃ r ∈ p.metadata.ownerReferences :
                         ∧ r.controller
                         ∧ r.apiVersion = c.apiVersion ∧ r.kind = c.kind
                         ∧ r.name = c.metadata.name}

\* The label set: every Services' selector merged (they all match p, so they
\* agree), then a ReplicationController's selector over it.
RCSelectsKey(p, k) ≝
  ∃ c ∈ PodController(p) :
    c.kind = "ReplicationController" ∧ k ∈ DOMAIN c.spec.selector.matchLabels

DefaultLabelSetOK(p, L) ≝
  ∧ ∀ s ∈ SelectingServices(p) : ∀ k ∈ DOMAIN s.spec.selector :
      RCSelectsKey(p, k) ∨ (k ∈ DOMAIN L ∧ L[k] = s.spec.selector[k])
  ∧ ∀ c ∈ PodController(p) :
      c.kind = "ReplicationController" ⇒
        ∀ k ∈ DOMAIN c.spec.selector.matchLabels :
          k ∈ DOMAIN L ∧ L[k] = c.spec.selector.matchLabels[k]

\* A ReplicaSet's or StatefulSet's selector adds its requirements (one that
\* does not parse adds none).
DefaultSelects(p, L) ≝
  ∧ DefaultLabelSetOK(p, L)
  ∧ ∀ c ∈ PodController(p) :
      c.kind ≠ "ReplicationController" ∧ SelectorValid(c.spec.selector)
        ⇒ SelectorMatches(c.spec.selector, L)

DefaultSelectorEmpty(p) ≝
  ∧ ∀ s ∈ SelectingServices(p) : DOMAIN s.spec.selector = {}
  ∧ ∀ c ∈ PodController(p) :
      IF c.kind = "ReplicationController" THEN DOMAIN c.spec.selector.matchLabels = {}
      ELSE ¬SelectorValid(c.spec.selector) ∨ SelectorEmpty(c.spec.selector)

\* The constraint's selector with matchLabelKeys merged from p's labels; nil
\* stays nil. A default constraint's is the deduced one.
SpreadSelects(p, c, L) ≝
  IF "defaulted" ∈ DOMAIN c THEN DefaultSelects(p, L)
  ELSE ∧ "labelSelector" ∈ DOMAIN c
       ∧ SelectorMatches(c.labelSelector, L)
       ∧ ∀ k ∈ c.matchLabelKeys :
           k ∈ DOMAIN Labels(p) ⇒ k ∈ DOMAIN L ∧ L[k] = Labels(p)[k]

SpreadSelectorEmpty(p, c) ≝
  ∧ "labelSelector" ∈ DOMAIN c
  ∧ SelectorEmpty(c.labelSelector)
  ∧ ∀ k ∈ c.matchLabelKeys : k ∉ DOMAIN Labels(p)

SpreadValid(p, action) ≝
  ∀ i ∈ SpreadIndices(p, action) :
    "labelSelector" ∉ DOMAIN Spread(p)[i] ∨ SelectorValid(Spread(p)[i].labelSelector)

\* Pods on m that constraint c counts: p's namespace, not terminating, selected.
\* The count PreFilter takes from the snapshot skips an empty selector and
\* terminating pods (common.go countPodsMatchSelector); pods added to or
\* removed from W afterwards (nominated pods, preemption victims) go through
\* AddPod/RemovePod (filtering.go updateWithPod), which check neither. Found
\* by the crosscheck: a nominated pod counts against an empty selector.
SpreadCount(p, c, m, S, W) ≝
  LET snap    ≝ On(S, m)
      base    ≝ IF SpreadSelectorEmpty(p, c) THEN 0
                ELSE Cardinality({q ∈ snap : ∧ q.metadata.namespace = p.metadata.namespace
                                             ∧ ¬Terminating(q)
                                             ∧ SpreadSelects(p, c, Labels(q))})
      added   ≝ {q ∈ On(W, m) \ snap : ∧ q.metadata.namespace = p.metadata.namespace
                                      ∧ SpreadSelects(p, c, Labels(q))}
      removed ≝ {q ∈ snap \ On(W, m) : ∧ q.metadata.namespace = p.metadata.namespace
                                      ∧ SpreadSelects(p, c, Labels(q))}
  IN  base + Cardinality(added) - Cardinality(removed)

HasSpreadKeys(p, m, action) ≝
  ∀ i ∈ SpreadIndices(p, action) : Spread(p)[i].topologyKey ∈ DOMAIN Labels(m)

InclusionPoliciesOK(p, c, m) ≝
  ∧ c.nodeAffinityPolicy = "Honor" ⇒ PodNodeAffinityOK(p, m)
  ∧ c.nodeTaintsPolicy = "Honor" ⇒ TaintsOK(p, m)

SpreadDomainCountsAt(p, i, N, S, W) ≝
  LET c ≝ Spread(p)[i]
  IN  SumBy(LAMBDA m : SpreadCount(p, c, m, S, W),
            LAMBDA m : Labels(m)[c.topologyKey],
            {m ∈ N : HasSpreadKeys(p, m, "DoNotSchedule") ∧ InclusionPoliciesOK(p, c, m)})

SpreadMinMatchAt(p, i, N, S, W) ≝
  LET d ≝ SpreadDomainCountsAt(p, i, N, S, W)
  IN  IF Cardinality(DOMAIN d) < Spread(p)[i].minDomains THEN 0
      ELSE Min({d[v] : v ∈ DOMAIN d})

SpreadSkewAt(p, i, n, N, S, W) ≝
  LET c ≝ Spread(p)[i]
  IN  Get(SpreadDomainCountsAt(p, i, N, S, W), Labels(n)[c.topologyKey])
      + (IF SpreadSelects(p, c, Labels(p)) THEN 1 ELSE 0)
      - SpreadMinMatchAt(p, i, N, S, W)

SpreadConstraintOKAt(p, i, n, N, S, W) ≝
  ∧ Spread(p)[i].topologyKey ∈ DOMAIN Labels(n)
  ∧ SpreadSkewAt(p, i, n, N, S, W) ≤ Spread(p)[i].maxSkew

SpreadOKAt(p, n, N, S, W) ≝
  ∧ SpreadValid(p, "DoNotSchedule")
  ∧ ∀ i ∈ SpreadIndices(p, "DoNotSchedule") : SpreadConstraintOKAt(p, i, n, N, S, W)

\* The scheduling cycle's world: every node, PreFilter counting from Snapshot.
SpreadMinMatch(p, i, W) ≝ SpreadMinMatchAt(p, i, Nodes, Snapshot, W)

SpreadSkew(p, i, n, W) ≝ SpreadSkewAt(p, i, n, Nodes, Snapshot, W)

SpreadConstraintOK(p, i, n, W) ≝ SpreadConstraintOKAt(p, i, n, Nodes, Snapshot, W)

SpreadOKIn(p, n, W) ≝ SpreadOKAt(p, n, Nodes, Snapshot, W)

SpreadOK(p, n) ≝ SpreadOKIn(p, n, Snapshot)

\* The first failing constraint decides the status: a missing key is Unresolvable.
SpreadUnresolvableAt(p, n, N, S, W) ≝
  LET failing ≝ {i ∈ SpreadIndices(p, "DoNotSchedule") : ¬SpreadConstraintOKAt(p, i, n, N, S, W)}
  IN  failing ≠ {} ∧ Spread(p)[Min(failing)].topologyKey ∉ DOMAIN Labels(n)

SpreadUnresolvable(p, n, W) ≝ SpreadUnresolvableAt(p, n, Nodes, Snapshot, W)

\* ======================================================================
\* InterPodAffinity (Filter).
\* upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go;
\* k8s.io/kube-scheduler framework/types.go AffinityTerm.Matches;
\* pkg/scheduler/framework/types.go (getNamespacesFromPodAffinityTerm).
\* matchLabelKeys/mismatchLabelKeys are merged into the labelSelector by
\* the API server at pod creation (KEP-3633); the spec merges them here.
\* ======================================================================

AffinityTerms(q, kind) ≝ q.spec.affinity[kind].requiredDuringSchedulingIgnoredDuringExecution

WeightedAffinityTerms(q, kind) ≝ q.spec.affinity[kind].preferredDuringSchedulingIgnoredDuringExecution

TermNamespaces(owner, t) ≝
  IF t.namespaces = {} ∧ "namespaceSelector" ∉ DOMAIN t
  THEN {owner.metadata.namespace} ELSE t.namespaces

PodTermSelects(owner, t, L) ≝
  ∧ "labelSelector" ∈ DOMAIN t
  ∧ SelectorMatches(t.labelSelector, L)
  ∧ ∀ k ∈ t.matchLabelKeys :
      k ∈ DOMAIN Labels(owner) ⇒ k ∈ DOMAIN L ∧ L[k] = Labels(owner)[k]
  ∧ ∀ k ∈ t.mismatchLabelKeys :
      k ∈ DOMAIN Labels(owner) ⇒ k ∉ DOMAIN L ∨ L[k] ≠ Labels(owner)[k]

\* Does the term t, carried by owner, select pod q?
PodTermMatches(owner, t, q) ≝
  ∧ ∨ q.metadata.namespace ∈ TermNamespaces(owner, t)
    ∨ ∧ "namespaceSelector" ∈ DOMAIN t
      ∧ SelectorMatches(t.namespaceSelector, NamespaceLabels[q.metadata.namespace])
  ∧ PodTermSelects(owner, t, Labels(q))

PodTermValid(t) ≝
  ∧ "labelSelector" ∉ DOMAIN t ∨ SelectorValid(t.labelSelector)
  ∧ "namespaceSelector" ∉ DOMAIN t ∨ SelectorValid(t.namespaceSelector)

\* NewPodInfo parses every term; one that fails rejects the pod at PreFilter.
AffinityTermsValid(p) ≝
  ∀ kind ∈ {"podAffinity", "podAntiAffinity"} :
    ∧ ∀ t ∈ AffinityTerms(p, kind) : PodTermValid(t)
    ∧ ∀ w ∈ Elems(WeightedAffinityTerms(p, kind)) : PodTermValid(w.podAffinityTerm)

\* podMatchesAllAffinityTerms: ONE pod must match ALL of p's required terms.
MatchesAllAffinityTerms(p, q) ≝
  LET A ≝ AffinityTerms(p, "podAffinity")
  IN  A ≠ {} ∧ ∀ t ∈ A : PodTermMatches(p, t, q)

Domain(m, k) ≝ ⟨k, Labels(m)[k]⟩

\* PreFilter's affinityCounts: the topology pairs holding a pod that matches all terms.
AffinityDomains(p, N, W) ≝
  {Domain(m, t.topologyKey) :
     m ∈ {m ∈ N : ∃ q ∈ On(W, m) : MatchesAllAffinityTerms(p, q)},
     t ∈ {t ∈ AffinityTerms(p, "podAffinity") : t.topologyKey ∈ DOMAIN Labels(m)}}

AntiAffinityDomains(p, N, W) ≝
  {Domain(m, t.topologyKey) :
     m ∈ N,
     q ∈ On(W, m),
     t ∈ {t ∈ AffinityTerms(p, "podAntiAffinity") :
            t.topologyKey ∈ DOMAIN Labels(m) ∧ PodTermMatches(p, t, q)}}

\* existingAntiAffinityCounts: domains of existing pods whose required anti-affinity selects p.
ExistingAntiAffinityDomains(p, N, W) ≝
  {Domain(m, t.topologyKey) :
     m ∈ N,
     q ∈ On(W, m),
     t ∈ {t ∈ AffinityTerms(q, "podAntiAffinity") :
            t.topologyKey ∈ DOMAIN Labels(m) ∧ PodTermMatches(q, t, p)}}

PodAffinityOKAt(p, n, N, W) ≝
  LET A ≝ AffinityTerms(p, "podAffinity")
      D ≝ AffinityDomains(p, N, W)
  IN  ∧ ∀ t ∈ A : t.topologyKey ∈ DOMAIN Labels(n)
      ∧ ∨ ∀ t ∈ A : Domain(n, t.topologyKey) ∈ D
        ∨ D = {} ∧ MatchesAllAffinityTerms(p, p)

PodAntiAffinityOKAt(p, n, N, W) ≝
  ∀ t ∈ AffinityTerms(p, "podAntiAffinity") :
    t.topologyKey ∈ DOMAIN Labels(n) ⇒ Domain(n, t.topologyKey) ∉ AntiAffinityDomains(p, N, W)

ExistingAntiAffinityOKAt(p, n, N, W) ≝
  ∀ k ∈ DOMAIN Labels(n) : Domain(n, k) ∉ ExistingAntiAffinityDomains(p, N, W)

\* PreFilter returns Skip when, on the snapshot, no existing pod's required
\* anti-affinity selects p and p has no required terms of its own; the Filter
\* and the AddPod/RemovePod extensions are then not run, so pods nominated
\* to n (or removed by preemption) cannot make the plugin reject p. Found by
\* the 100,000-cluster crosscheck (a nominated pod whose anti-affinity
\* selects every pod).
InterPodAffinitySkippedAt(p, N, S) ≝
  ∧ ExistingAntiAffinityDomains(p, N, S) = {}
  ∧ AffinityTerms(p, "podAffinity") = {}
  ∧ AffinityTerms(p, "podAntiAffinity") = {}

InterPodAffinityOKAt(p, n, N, S, W) ≝
  ∧ AffinityTermsValid(p)
  ∧ ∨ InterPodAffinitySkippedAt(p, N, S)
    ∨ ∧ PodAffinityOKAt(p, n, N, W)
      ∧ PodAntiAffinityOKAt(p, n, N, W)
      ∧ ExistingAntiAffinityOKAt(p, n, N, W)

\* The scheduling cycle's world (see SpreadOKIn).
InterPodAffinitySkipped(p) ≝ InterPodAffinitySkippedAt(p, Nodes, Snapshot)

PodAffinityOKIn(p, n, W) ≝ PodAffinityOKAt(p, n, Nodes, W)

PodAntiAffinityOKIn(p, n, W) ≝ PodAntiAffinityOKAt(p, n, Nodes, W)

ExistingAntiAffinityOKIn(p, n, W) ≝ ExistingAntiAffinityOKAt(p, n, Nodes, W)

InterPodAffinityOKIn(p, n, W) ≝ InterPodAffinityOKAt(p, n, Nodes, Snapshot, W)

\* Witnesses for explanations: the pods that repel p from n, found per
\* topology domain (all pods grouped once per topology key).
PodsByDomain(k) ≝
  GroupBy(LAMBDA x : Labels(x[1])[k],
          {⟨m, q⟩ : m ∈ {m ∈ Nodes : k ∈ DOMAIN Labels(m)}, q ∈ Snapshot[NodeName(m)]})

PodsInDomain(k, v) ≝ IF v ∈ DOMAIN PodsByDomain(k) THEN {x[2] : x ∈ PodsByDomain(k)[v]} ELSE {}

AntiAffinityRepellersIn(p, t, v) ≝ {q ∈ PodsInDomain(t.topologyKey, v) : PodTermMatches(p, t, q)}

AntiAffinityRepellers(p, n) ≝
  {q : t ∈ {t ∈ AffinityTerms(p, "podAntiAffinity") : t.topologyKey ∈ DOMAIN Labels(n)},
       q ∈ AntiAffinityRepellersIn(p, t, Labels(n)[t.topologyKey])}

ExistingAntiAffinityRepellersIn(p, k, v) ≝
  {q ∈ PodsInDomain(k, v) :
     ∃ t ∈ AffinityTerms(q, "podAntiAffinity") : t.topologyKey = k ∧ PodTermMatches(q, t, p)}

ExistingAntiAffinityRepellers(p, n) ≝
  {q : k ∈ DOMAIN Labels(n), q ∈ ExistingAntiAffinityRepellersIn(p, k, Labels(n)[k])}

PodAffinityOK(p, n) ≝ PodAffinityOKIn(p, n, Snapshot)

PodAntiAffinityOK(p, n) ≝ PodAntiAffinityOKIn(p, n, Snapshot)

ExistingAntiAffinityOK(p, n) ≝ ExistingAntiAffinityOKIn(p, n, Snapshot)

InterPodAffinityOK(p, n) ≝ InterPodAffinityOKIn(p, n, Snapshot)

\* ======================================================================
\* Feasible: the Filter plugins in profile order, with nominated pods.
\* upstream: pkg/scheduler/framework/runtime/framework.go
\* (RunFilterPluginsWithNominatedPods, addGENominatedPods)
\* Pass 1 adds the pods nominated to n whose priority is at least p's; if
\* any were added and pass 1 succeeds, pass 2 runs without them. Both must
\* pass: the nominated pods reserve room, yet p may not rely on them.
\* ======================================================================

\* FiltersAt is one pass in a world: the nodes N, the placement S that
\* PreFilter counts from, and W, which is S after AddPod/RemovePod. The
\* scheduling cycle's world is (Nodes, Snapshot, W); the cluster autoscaler
\* runs the same plugins in worlds it simulates (autoscaler.tla), where
\* PreFilter sees the simulated placement itself (S = W). Each rule runs
\* when the pod's profile runs its plugin there; PreFilter's own verdicts
\* (PreFilterOK) stand when the plugin's Filter is disabled.
PreFilterOK(p, n) ≝
  ∧ Runs(p, "preFilters", "NodeAffinity") ⇒ NodeAffinityPreFilterOK(p, n)
  ∧ Runs(p, "preFilters", "PodTopologySpread") ⇒ SpreadValid(p, "DoNotSchedule")
  ∧ Runs(p, "preFilters", "InterPodAffinity") ⇒ AffinityTermsValid(p)

FiltersAt(p, n, N, S, W) ≝
  ∧ PreFilterOK(p, n)
  ∧ Runs(p, "filters", "NodeUnschedulable") ⇒ NodeUnschedulableOK(p, n)
  ∧ Runs(p, "filters", "NodeName") ⇒ NodeNameOK(p, n)
  ∧ Runs(p, "filters", "TaintToleration") ⇒ TaintsOK(p, n)
  ∧ Runs(p, "filters", "NodeAffinity") ⇒ NodeAffinityOK(p, n)
  ∧ Runs(p, "filters", "NodePorts") ⇒ PortsOKIn(p, n, W)
  ∧ Runs(p, "filters", "NodeResourcesFit") ⇒ FitOKIn(p, n, W)
  ∧ Runs(p, "filters", "PodTopologySpread") ⇒ SpreadOKAt(p, n, N, S, W)
  ∧ Runs(p, "filters", "InterPodAffinity") ⇒ InterPodAffinityOKAt(p, n, N, S, W)

FiltersIn(p, n, W) ≝ FiltersAt(p, n, Nodes, Snapshot, W)

\* A gated pod's nomination reserves nothing: the queue records nominations
\* only for pods that pass PreEnqueue into activeQ (backend/queue/
\* scheduling_queue.go moveToActiveQ). Found by the three-way crosscheck.
NominatedFor(p, n) ≝
  {q ∈ PendingPods : ∧ q.status.nominatedNodeName = NodeName(n)
                     ∧ q.spec.schedulingGates = {}
                     ∧ Priority(q) ≥ Priority(p)
                     ∧ q.metadata.uid ≠ p.metadata.uid}

FeasibleIn(p, n, W) ≝
  IF NominatedFor(p, n) = {} THEN FiltersIn(p, n, W)
  ELSE FiltersIn(p, n, Place(W, n, NominatedFor(p, n))) ∧ FiltersIn(p, n, W)

Feasible(p, n) ≝ FeasibleIn(p, n, Snapshot)

FeasibleNodes(p) ≝ {n ∈ Nodes : Feasible(p, n)}

\* The status code of the first plugin that rejects p on n: PreFilter first
\* (NodeAffinity's conflict, PodTopologySpread's Error, InterPodAffinity's
\* parse error, then a node outside NodeAffinity's PreFilter names), then
\* the Filter plugins. Which plugin is first changes the message, never the
\* verdict, so the profile's order is not modelled: the default order is.
FilterStatusIn(p, n, W) ≝
  CASE Runs(p, "preFilters", "NodeAffinity") ∧ NodeAffinityConflict(p)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "preFilters", "PodTopologySpread") ∧ ¬SpreadValid(p, "DoNotSchedule")
         → "Error"
    [] Runs(p, "preFilters", "InterPodAffinity") ∧ ¬AffinityTermsValid(p)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "preFilters", "NodeAffinity") ∧ ¬NodeAffinityPreFilterOK(p, n)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "filters", "NodeUnschedulable") ∧ ¬NodeUnschedulableOK(p, n)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "filters", "NodeName") ∧ ¬NodeNameOK(p, n)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "filters", "TaintToleration") ∧ ¬TaintsOK(p, n)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "filters", "NodeAffinity") ∧ ¬NodeAffinityOK(p, n)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "filters", "NodePorts") ∧ ¬PortsOKIn(p, n, W)
         → "Unschedulable"
    [] Runs(p, "filters", "NodeResourcesFit") ∧ ¬FitOKIn(p, n, W)
         → IF FitUnresolvable(p, n, W) THEN "UnschedulableAndUnresolvable" ELSE "Unschedulable"
    [] Runs(p, "filters", "PodTopologySpread") ∧ ¬SpreadOKIn(p, n, W)
         → IF SpreadUnresolvable(p, n, W) THEN "UnschedulableAndUnresolvable" ELSE "Unschedulable"
    [] Runs(p, "filters", "InterPodAffinity") ∧ ¬PodAffinityOKIn(p, n, W)
         → "UnschedulableAndUnresolvable"
    [] Runs(p, "filters", "InterPodAffinity") ∧ ¬InterPodAffinityOKIn(p, n, W)
         → "Unschedulable"
    [] OTHER → "Success"

NodeStatusIn(p, n, W) ≝
  IF NominatedFor(p, n) = {} THEN FilterStatusIn(p, n, W)
  ELSE LET first ≝ FilterStatusIn(p, n, Place(W, n, NominatedFor(p, n)))
       IN  IF first ≠ "Success" THEN first ELSE FilterStatusIn(p, n, W)

NodeStatus(p, n) ≝ NodeStatusIn(p, n, Snapshot)

\* ======================================================================
\* Scores, normalised over the feasible nodes, then weighted.
\* upstream: pkg/scheduler/framework/runtime/framework.go RunScorePlugins;
\* plugins/helper/normalize_score.go DefaultNormalizeScore;
\* pkg/scheduler/apis/config/v1/default_plugins.go (weights)
\* ======================================================================

\* TaintToleration: intolerable PreferNoSchedule taints, reversed.
\* upstream: plugins/tainttoleration/taint_toleration.go
PreferTolerations(p) ≝ {t ∈ p.spec.tolerations : t.effect ∈ {"", "PreferNoSchedule"}}

IntolerablePreferTaints(p, n) ≝
  Cardinality({x ∈ n.spec.taints : ∧ x.effect = "PreferNoSchedule"
                                   ∧ ¬∃ t ∈ PreferTolerations(p) : Tolerates(t, x)})

TaintTolerationMax(p) ≝ Max({IntolerablePreferTaints(p, m) : m ∈ FeasibleNodes(p)} ∪ {0})

TaintTolerationScore(p, n) ≝
  IF TaintTolerationMax(p) = 0 THEN 100
  ELSE 100 - (100 * IntolerablePreferTaints(p, n)) ÷ TaintTolerationMax(p)

\* NodeAffinity: weights of the matching preferred terms, the pod's and the
\* profile's addedAffinity's, max-normalised.
\* upstream: plugins/nodeaffinity/node_affinity.go (Score); component-helpers
\* nodeaffinity.go NewPreferredSchedulingTerms (weight 0 and empty terms skipped)
PreferredNodeTerms(p) ≝ p.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution

PreferredTermsScore(w, n) ≝
  Sum(LAMBDA i : IF w[i].weight ≠ 0 ∧ NodeTermMatches(w[i].preference, n) THEN w[i].weight ELSE 0,
      DOMAIN w)

NodeAffinityRaw(p, n) ≝
  PreferredTermsScore(PreferredNodeTerms(p), n)
  + PreferredTermsScore(AddedAffinity(p).preferredDuringSchedulingIgnoredDuringExecution, n)

\* NewPreferredSchedulingTerms parses every term it keeps (weight ≠ 0, not
\* empty); one that fails makes NodeAffinity's PreScore fail the cycle.
PreferredNodeTermsValid(p) ≝
  LET w ≝ PreferredNodeTerms(p)
  IN  ∀ i ∈ DOMAIN w : w[i].weight = 0 ∨ TermEmpty(w[i].preference) ∨ TermValid(w[i].preference)

NodeAffinityMax(p) ≝ Max({NodeAffinityRaw(p, m) : m ∈ FeasibleNodes(p)} ∪ {0})

NodeAffinityScore(p, n) ≝
  IF NodeAffinityMax(p) = 0 THEN NodeAffinityRaw(p, n)
  ELSE (100 * NodeAffinityRaw(p, n)) ÷ NodeAffinityMax(p)

\* InterPodAffinity: per matching pod, p's preferred terms toward it and its
\* terms toward p (required affinity at the profile's hardPodAffinityWeight),
\* summed per topology domain; min-max normalised in float64. With
\* ignorePreferredTermsOfExistingPods, a pod without preferred terms of its
\* own is not scored (PreScore Skip).
\* upstream: plugins/interpodaffinity/scoring.go (PreScore, processExistingPod,
\* Score, NormalizeScore)
HardPodAffinityWeight(p) ≝ Profile(p).hardPodAffinityWeight

InterPodAffinityScoreSkipped(p) ≝
  ∧ Profile(p).ignorePreferredTermsOfExistingPods
  ∧ Len(WeightedAffinityTerms(p, "podAffinity")) = 0
  ∧ Len(WeightedAffinityTerms(p, "podAntiAffinity")) = 0

SignedTerms(q, kind, sign) ≝
  LET w ≝ WeightedAffinityTerms(q, kind)
  IN  {[i ↦ i, weight ↦ sign * w[i].weight, term ↦ w[i].podAffinityTerm] : i ∈ DOMAIN w}

IncomingScoreTerms(p) ≝ SignedTerms(p, "podAffinity", 1) ∪ SignedTerms(p, "podAntiAffinity", -1)

ExistingScoreTerms(p, q) ≝
  {[i ↦ 0, weight ↦ HardPodAffinityWeight(p), term ↦ t] : t ∈ AffinityTerms(q, "podAffinity")}
  ∪ SignedTerms(q, "podAffinity", 1)
  ∪ SignedTerms(q, "podAntiAffinity", -1)

AffinityScoreItems(p) ≝
  {[node ↦ m, pod ↦ q, from ↦ "incoming", st ↦ x] :
     m ∈ Nodes,
     q ∈ Snapshot[NodeName(m)],
     x ∈ {x ∈ IncomingScoreTerms(p) :
            x.term.topologyKey ∈ DOMAIN Labels(m) ∧ PodTermMatches(p, x.term, q)}}
  ∪ {[node ↦ m, pod ↦ q, from ↦ "existing", st ↦ x] :
       m ∈ Nodes,
       q ∈ Snapshot[NodeName(m)],
       x ∈ {x ∈ ExistingScoreTerms(p, q) :
              x.term.topologyKey ∈ DOMAIN Labels(m) ∧ PodTermMatches(q, x.term, p)}}

TopologyScore(p) ≝
  SumBy(LAMBDA it : it.st.weight,
        LAMBDA it : Domain(it.node, it.st.term.topologyKey),
        AffinityScoreItems(p))

InterPodAffinityRaw(p, n) ≝
  IF InterPodAffinityScoreSkipped(p) THEN 0
  ELSE LET ts ≝ TopologyScore(p)
       IN  Sum(LAMBDA k : Get(ts, Domain(n, k)), DOMAIN Labels(n))

InterPodAffinityMax(p) ≝ Max({InterPodAffinityRaw(p, m) : m ∈ FeasibleNodes(p)})

InterPodAffinityMin(p) ≝ Min({InterPodAffinityRaw(p, m) : m ∈ FeasibleNodes(p)})

InterPodAffinityScore(p, n) ≝
  IF InterPodAffinityMax(p) - InterPodAffinityMin(p) > 0
  THEN FloatScale(100, InterPodAffinityRaw(p, n) - InterPodAffinityMin(p),
                  InterPodAffinityMax(p) - InterPodAffinityMin(p))
  ELSE 0

\* PodTopologySpread: ScheduleAnyway constraints; fewer matching pods in the
\* node's domain score higher. upstream: plugins/podtopologyspread/scoring.go
SoftSpread(p) ≝ SpreadIndices(p, "ScheduleAnyway")

\* Nodes missing a constraint's key are not scored, unless the pod's
\* constraints are the system defaults: then a node without the zone label
\* still gets hostname spreading, and counts toward the domain "".
\* (With no default constraint for p there is nothing this changes: the third
\* disjunct spares the solver the domain "" when no Service can select p.)
RequireAllTopologies(p) ≝
  ∨ ¬Profile(p).spreadSystemDefaulted
  ∨ DefaultSelectorEmpty(p)
  ∨ p.spec.topologySpreadConstraints ≠ ⟨⟩

SpreadScoreIgnored(p, n) ≝ RequireAllTopologies(p) ∧ ¬HasSpreadKeys(p, n, "ScheduleAnyway")

SpreadScoredNodes(p) ≝ {n ∈ FeasibleNodes(p) : ¬SpreadScoreIgnored(p, n)}

\* The node's value of constraint i's key, "" when it has none (a Go map read;
\* a scored node has every key unless the constraints are the system defaults).
SpreadDomain(p, i, n) ≝
  IF RequireAllTopologies(p) ∨ Spread(p)[i].topologyKey ∈ DOMAIN Labels(n)
  THEN Labels(n)[Spread(p)[i].topologyKey] ELSE ""

SpreadScoreDomains(p, i) ≝ {SpreadDomain(p, i, n) : n ∈ SpreadScoredNodes(p)}

SpreadWeightSize(p, i) ≝
  IF Spread(p)[i].topologyKey = "kubernetes.io/hostname"
  THEN Cardinality(SpreadScoredNodes(p)) ELSE Cardinality(SpreadScoreDomains(p, i))

SpreadScoreCounts(p, i) ≝
  LET c ≝ Spread(p)[i]
  IN  SumBy(LAMBDA m : SpreadCount(p, c, m, Snapshot, Snapshot),
            LAMBDA m : SpreadDomain(p, i, m),
            {m ∈ Nodes : ∧ ¬SpreadScoreIgnored(p, m)
                         ∧ InclusionPoliciesOK(p, c, m)
                         ∧ SpreadDomain(p, i, m) ∈ SpreadScoreDomains(p, i)})

SpreadNodeCount(p, i, n) ≝
  IF Spread(p)[i].topologyKey = "kubernetes.io/hostname"
  THEN SpreadCount(p, Spread(p)[i], n, Snapshot, Snapshot)
  ELSE Get(SpreadScoreCounts(p, i), SpreadDomain(p, i, n))

\* A constraint whose key the node lacks adds nothing to its score.
SpreadRaw(p, n) ≝
  SpreadScore([i ∈ {i ∈ SoftSpread(p) : ∨ RequireAllTopologies(p)
                                          ∨ Spread(p)[i].topologyKey ∈ DOMAIN Labels(n)} ↦
                 ⟨SpreadNodeCount(p, i, n), SpreadWeightSize(p, i), Spread(p)[i].maxSkew⟩])

SpreadRawMax(p) ≝ Max({SpreadRaw(p, m) : m ∈ SpreadScoredNodes(p)} ∪ {0})

SpreadRawMin(p) ≝ Min({SpreadRaw(p, m) : m ∈ SpreadScoredNodes(p)})

PodTopologySpreadScore(p, n) ≝
  CASE SoftSpread(p) = {}       → 0
    [] SpreadScoreIgnored(p, n) → 0
    [] SpreadRawMax(p) = 0      → 100
    [] OTHER → (100 * (SpreadRawMax(p) + SpreadRawMin(p) - SpreadRaw(p, n))) ÷ SpreadRawMax(p)

\* NodeResourcesFit: the profile's scoring strategy (LeastAllocated,
\* MostAllocated or RequestedToCapacityRatio) over its resources (default
\* cpu and memory, weight 1), weighted; cpu and memory on non-zero requests.
\* A resource the node does not advertise, or an extended one the pod does
\* not request, is left out.
\* upstream: plugins/noderesources/least_allocated.go, most_allocated.go,
\* requested_to_capacity_ratio.go, resource_allocation.go (score,
\* calculateResourceAllocatableRequest); plugins/helper/shape_score.go;
\* pkg/scheduler/framework/types.go (NonZeroRequested)
NonZeroRequested(n, r) ≝ Sum(LAMBDA q : PodRequest(q, r, NonZeroDefaults), Snapshot[NodeName(n)])

\* The incoming pod's request skips pod-level resources here: the scorer that
\* fit.go's nodeResourceStrategyTypeMap builds never sets enablePodLevelResources
\* (v1.34.2), so PodRequests runs with SkipPodLevelResources. Found by the
\* three-way crosscheck against kube-scheduler itself.
FitScoreRequest(p, r) ≝ ContainersRequest(p, r, NonZeroDefaults) + Get(p.spec.overhead, r)

\* ⟨allocatable, requested with p⟩ of r; ⟨0, 0⟩ leaves r out.
FitScoreShare(p, n, r) ≝
  CASE r ∈ {"cpu", "memory"}
         → ⟨Allocatable(n, r), NonZeroRequested(n, r) + FitScoreRequest(p, r)⟩
    [] r = "ephemeral-storage" ∨ ScalarResource(r) ∧ FitScoreRequest(p, r) ≠ 0
         → ⟨Allocatable(n, r), Requested(n, Snapshot, r) + FitScoreRequest(p, r)⟩
    [] OTHER → ⟨0, 0⟩

LeastRequested(req, alloc) ≝ IF alloc = 0 ∨ req > alloc THEN 0 ELSE ((alloc - req) * 100) ÷ alloc

MostRequested(req, alloc) ≝
  IF alloc = 0 THEN 0 ELSE (100 * (IF req > alloc THEN alloc ELSE req)) ÷ alloc

\* Go's integer division, which truncates toward zero (b > 0).
Quot(a, b) ≝ IF a ≥ 0 THEN a ÷ b ELSE -((-a) ÷ b)

\* BuildBrokenLinearFunction over the shape's points, their scores (0..10)
\* scaled to 0..100: the first point at or above u interpolates from the one
\* before it; below the first or above the last, that point's score.
ShapeScore(shape, u) ≝
  LET at ≝ {k ∈ DOMAIN shape : u ≤ shape[k].utilization}
  IN  IF at = {} THEN 10 * shape[Len(shape)].score
      ELSE LET k ≝ Min(at)
           IN  IF k = 1 THEN 10 * shape[1].score
               ELSE 10 * shape[k - 1].score
                    + Quot(10 * (shape[k].score - shape[k - 1].score)
                             * (u - shape[k - 1].utilization),
                           shape[k].utilization - shape[k - 1].utilization)

RatioRequested(shape, req, alloc) ≝
  IF alloc = 0 ∨ req > alloc THEN ShapeScore(shape, 100) ELSE ShapeScore(shape, (req * 100) ÷ alloc)

FitResourceScore(p, n, r) ≝
  LET s ≝ FitScoreShare(p, n, r)
  IN  CASE Profile(p).fitStrategy = "MostAllocated" → MostRequested(s[2], s[1])
        [] Profile(p).fitStrategy = "RequestedToCapacityRatio"
             → RatioRequested(Profile(p).fitShape, s[2], s[1])
        [] OTHER → LeastRequested(s[2], s[1])

\* RequestedToCapacityRatio counts only resources scoring above 0, and rounds
\* the weighted mean (math.Round); the others truncate it.
NodeResourcesFitScore(p, n) ≝
  LET rs    ≝ Profile(p).fitResources
      ratio ≝ Profile(p).fitStrategy = "RequestedToCapacityRatio"
      on    ≝ {i ∈ DOMAIN rs : ∧ FitScoreShare(p, n, rs[i].name)[1] ≠ 0
                               ∧ ratio ⇒ FitResourceScore(p, n, rs[i].name) > 0}
      ws    ≝ Sum(LAMBDA i : rs[i].weight, on)
      total ≝ Sum(LAMBDA i : rs[i].weight * FitResourceScore(p, n, rs[i].name), on)
  IN  CASE ws = 0 → 0
        [] ratio  → (2 * total + ws) ÷ (2 * ws)
        [] OTHER  → total ÷ ws

\* NodeResourcesBalancedAllocation: 1 − the spread of cpu and memory
\* fractions, on real requests; Skip for a pod requesting neither.
\* upstream: plugins/noderesources/balanced_allocation.go
BalancedAllocationScore(p, n) ≝
  IF Get(Requests(p), "cpu") = 0 ∧ Get(Requests(p), "memory") = 0 THEN 0
  ELSE BalancedScore(⟨⟨Requested(n, Snapshot, "cpu") + Get(Requests(p), "cpu"),
                       Allocatable(n, "cpu")⟩,
                      ⟨Requested(n, Snapshot, "memory") + Get(Requests(p), "memory"),
                       Allocatable(n, "memory")⟩⟩)

\* ImageLocality: sizes of the pod's images already on n, scaled by how
\* many nodes have them. upstream: plugins/imagelocality/image_locality.go
Mebibyte ≝ 1048576

ImageNodeCount(img) ≝ Cardinality({m ∈ Nodes : ∃ i ∈ m.status.images : img ∈ i.names})

ImageScoreOn(n, img) ≝
  LET sizes ≝ {i.sizeBytes : i ∈ {i ∈ n.status.images : img ∈ i.names}}
  IN  IF sizes = {} THEN 0 ELSE FloatScale(Max(sizes), ImageNodeCount(img), Cardinality(Nodes))

ImageLocalityScore(p, n) ≝
  LET inits ≝ p.spec.initContainers
      apps  ≝ p.spec.containers
      sum   ≝ Sum(LAMBDA i : ImageScoreOn(n, inits[i].image), DOMAIN inits)
              + Sum(LAMBDA i : ImageScoreOn(n, apps[i].image), DOMAIN apps)
      low   ≝ 23 * Mebibyte
      high  ≝ 1000 * Mebibyte * (Len(inits) + Len(apps))
      clamp ≝ IF sum < low THEN low ELSE IF sum > high THEN high ELSE sum
  IN  (100 * (clamp - low)) ÷ (high - low)

\* Each Score plugin the profile runs, by name; the total weighs each by the
\* profile's weight (default: TaintToleration 3, NodeAffinity 2,
\* PodTopologySpread 2, InterPodAffinity 2, the others 1).
PluginScore(p, n, x) ≝
  CASE x = "TaintToleration"                 → TaintTolerationScore(p, n)
    [] x = "NodeAffinity"                    → NodeAffinityScore(p, n)
    [] x = "PodTopologySpread"               → PodTopologySpreadScore(p, n)
    [] x = "InterPodAffinity"                → InterPodAffinityScore(p, n)
    [] x = "NodeResourcesFit"                → NodeResourcesFitScore(p, n)
    [] x = "NodeResourcesBalancedAllocation" → BalancedAllocationScore(p, n)
    [] x = "ImageLocality"                   → ImageLocalityScore(p, n)
    [] OTHER                                 → 0

ScoreWeights(p) ≝ Profile(p).scores

Viability(p, n) ≝
  Sum(LAMBDA x : ScoreWeights(p)[x] * PluginScore(p, n, x), DOMAIN ScoreWeights(p))

BestViability(p) ≝ Max({Viability(p, m) : m ∈ FeasibleNodes(p)})

\* A PreScore plugin that fails ends the cycle with Error (prioritizeNodes),
\* before any Score runs: NodeAffinity on a preferred term that does not parse,
\* PodTopologySpread on a ScheduleAnyway selector LabelSelectorAsSelector
\* refuses (scoring.go initPreScoreState). PreScore only runs on feasible nodes.
\* upstream: pkg/scheduler/schedule_one.go (prioritizeNodes),
\* plugins/nodeaffinity/node_affinity.go and plugins/podtopologyspread/scoring.go (PreScore)
ScoreError(p) ≝
  ∧ FeasibleNodes(p) ≠ {}
  ∧ ∨ Runs(p, "preScores", "NodeAffinity") ∧ ¬PreferredNodeTermsValid(p)
    ∨ Runs(p, "preScores", "PodTopologySpread") ∧ ¬SpreadValid(p, "ScheduleAnyway")

\* selectHost: a node of highest total, ties broken at random. schedulePod binds
\* a lone feasible node without scoring it, so a scoring error only stops the
\* cycle when two or more nodes are feasible: then the pod binds nowhere.
Best(p) ≝
  IF ScoreError(p) ∧ Cardinality(FeasibleNodes(p)) > 1 THEN {}
  ELSE {NodeName(n) : n ∈ {n ∈ FeasibleNodes(p) : Viability(p, n) = BestViability(p)}}

\* ======================================================================
\* DefaultPreemption (PostFilter), as predicates a checker can judge a
\* preemption decision with.
\* upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
\* (PodEligibleToPreemptOthers, SelectVictimsOnNode, filterPodsWithPDBViolation),
\* pkg/scheduler/framework/preemption/preemption.go (pickOneNodeForPreemption),
\* pkg/scheduler/util/utils.go (MoreImportantPod, GetEarliestPodStartTime)
\* ======================================================================

TerminatingByPreemption(q) ≝
  ∧ Terminating(q)
  ∧ ∃ c ∈ q.status.conditions : ∧ c.type = "DisruptionTarget"
                                ∧ c.status = "True"
                                ∧ c.reason = "PreemptionByScheduler"

EligibleToPreempt(p) ≝
  ∧ p.spec.preemptionPolicy ≠ "Never"
  ∧ ∀ m ∈ {m ∈ Nodes : NodeName(m) = p.status.nominatedNodeName} :
      ∨ NodeStatus(p, m) = "UnschedulableAndUnresolvable"
      ∨ ¬∃ q ∈ Snapshot[NodeName(m)] : Priority(q) < Priority(p) ∧ TerminatingByPreemption(q)

PotentialVictims(p, n) ≝ {q ∈ Snapshot[NodeName(n)] : Priority(q) < Priority(p)}

\* Higher priority first; then the earlier start (a missing start counts as Now).
MoreImportant(a, b) ≝
  ∨ Priority(a) > Priority(b)
  ∨ Priority(a) = Priority(b) ∧ a.status.startTime < b.status.startTime

ByImportance(S) ≝ SortSet(S, LAMBDA a, b : MoreImportant(a, b))

PDBSelects(d, q) ≝
  ∧ d.metadata.namespace = q.metadata.namespace
  ∧ DOMAIN Labels(q) ≠ {}
  ∧ "selector" ∈ DOMAIN d.spec
  ∧ ¬SelectorEmpty(d.spec.selector)
  ∧ SelectorMatches(d.spec.selector, Labels(q))
  ∧ q.metadata.name ∉ d.status.disruptedPods

\* Walk the victims by importance, spending each selecting PDB's budget;
\* a pod that drives a budget below zero violates it.
PDBSplit(order) ≝
  FoldLeft(LAMBDA acc, q :
             LET hits    ≝ {d ∈ PDBs : PDBSelects(d, q)}
                 allowed ≝ [d ∈ PDBs ↦ IF d ∈ hits THEN acc.allowed[d] - 1 ELSE acc.allowed[d]]
             IN  IF ∃ d ∈ hits : allowed[d] < 0
                 THEN [allowed ↦ allowed, violating ↦ Append(acc.violating, q),
                       nonViolating ↦ acc.nonViolating]
                 ELSE [allowed ↦ allowed, violating ↦ acc.violating,
                       nonViolating ↦ Append(acc.nonViolating, q)],
           [allowed ↦ [d ∈ PDBs ↦ d.status.disruptionsAllowed],
            violating ↦ ⟨⟩, nonViolating ↦ ⟨⟩],
           order)

\* Put q back if p still fits without it.
Reprieve(p, n, removed, q) ≝
  IF FeasibleIn(p, n, Without(Snapshot, n, removed \ {q})) THEN removed \ {q} ELSE removed

SelectVictims(p, n) ≝
  LET all   ≝ PotentialVictims(p, n)
      split ≝ PDBSplit(ByImportance(all))
      kept  ≝ FoldLeft(LAMBDA r, q : Reprieve(p, n, r, q), all, split.violating)
  IN  [victims ↦ FoldLeft(LAMBDA r, q : Reprieve(p, n, r, q), kept, split.nonViolating),
       violating ↦ Elems(split.violating)]

\* n is a candidate: rejected by a resolvable filter, and p fits once every
\* lower-priority pod is gone.
PreemptionCandidate(p, n) ≝
  ∧ Runs(p, "postFilters", "DefaultPreemption")
  ∧ EligibleToPreempt(p)
  ∧ NodeStatus(p, n) = "Unschedulable"
  ∧ PotentialVictims(p, n) ≠ {}
  ∧ FeasibleIn(p, n, Without(Snapshot, n, PotentialVictims(p, n)))

Victims(p, n) ≝ SelectVictims(p, n).victims

NumPDBViolations(p, n) ≝ Cardinality(Victims(p, n) ∩ SelectVictims(p, n).violating)

\* A victim set a checker accepts: all lower priority, on n, and enough.
ValidVictims(p, n, V) ≝
  ∧ V ⊆ PotentialVictims(p, n)
  ∧ FeasibleIn(p, n, Without(Snapshot, n, V))

\* ... and none of them could have stayed.
MinimalVictims(p, n, V) ≝
  ∧ ValidVictims(p, n, V)
  ∧ ∀ q ∈ V : ¬FeasibleIn(p, n, Without(Snapshot, n, V \ {q}))

HighestVictimPriority(p, n) ≝ Max({Priority(q) : q ∈ Victims(p, n)})

VictimPrioritySum(p, n) ≝ Sum(LAMBDA q : Priority(q) + 2147483648, Victims(p, n))

EarliestStartOfHighest(p, n) ≝
  Min({q.status.startTime : q ∈ {q ∈ Victims(p, n) : Priority(q) = HighestVictimPriority(p, n)}})

\* pickOneNodeForPreemption: lexicographic, each rule narrowing the last.
PreemptionNodes(p) ≝
  LET c0 ≝ {n ∈ Nodes : PreemptionCandidate(p, n)}
      c1 ≝ ArgMin(c0, LAMBDA n : NumPDBViolations(p, n))
      c2 ≝ ArgMin(c1, LAMBDA n : HighestVictimPriority(p, n))
      c3 ≝ ArgMin(c2, LAMBDA n : VictimPrioritySum(p, n))
      c4 ≝ ArgMin(c3, LAMBDA n : Cardinality(Victims(p, n)))
      c5 ≝ ArgMax(c4, LAMBDA n : EarliestStartOfHighest(p, n))
  IN  {NodeName(n) : n ∈ c5}

\* The last step of a preemption onto n (prepareCandidate and its async twin,
\* getLowerPriorityNominatedPods in framework/preemption/preemption.go): the
\* pods the nominator holds for n with a priority below p's lose their
\* nominatedNodeName, so the room p was promised is not also reserved for them.
\* As in NominatedFor, a gated pod is not in the nominator.
LowerPriorityNominated(p, n) ≝
  {q ∈ PendingPods : ∧ q.status.nominatedNodeName = NodeName(n)
                     ∧ q.spec.schedulingGates = {}
                     ∧ Priority(q) < Priority(p)}

=============================================================================
