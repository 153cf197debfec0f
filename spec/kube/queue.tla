---- MODULE queue ----
(* kube-scheduler v1.34's scheduling queue as a state machine (the PriorityQueue with
   SchedulerQueueingHints, GA, and SchedulerPopFromBackoffQ, KEP-5142, beta and on by default;
   the constant PopFromBackoffQ switches the latter).

   Each pod is in one place: not yet added ("none"), "activeQ", "backoffQ", "unschedulable"
   (unschedulablePods), "inFlight" (popped, its scheduling cycle running), "binding" (assumed,
   its binding cycle running; the queue still counts it in flight), "bound" or "deleted" (a
   preemption victim). Time is whole seconds in `now`; the backoff queue's ordering window is
   one second, so upstream's alignment of times to the window is the identity here.

   Abstractions, stated once: the order within activeQ and backoffQ (priority, timestamps) is
   not modelled, so Pop may take any pod there (every real order is one of these behaviours);
   the periodic flushes may run at any moment, not only on their 1 s / 30 s ticks; a
   QueueingHint's verdict for a pod and a plugin is chosen freely for each event (the `verdict`
   variable records the choice); PreEnqueue gating, pod updates and Activate are not modelled.

   The names mirror impl/queue/ (scheduling_queue.py, active_queue.py, backoff_queue.py). *)

CONSTANTS Pods, Plugins, Nodes, Events, Registered, PluginSets, Verdicts, Delays,
          PopFromBackoffQ

\* Registered[pl]: the events plugin pl's EventsToRegister lists (spec/kube/queue_view.py).
\* PluginSets: every [Plugins -> BOOLEAN]; Verdicts: every [Pods -> [Plugins -> BOOLEAN]].

VARIABLES now, where, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
          backoffExpiry, rejecting, pending, inFlightEvents, verdict, lastEvent, prev, waiting

\* attempts[p]             pInfo.Attempts: how often p was popped
\* unschedulableCount[p]   pInfo.UnschedulableCount: attempts that ended with a rejecting plugin
\* errorCount[p]           pInfo.ConsecutiveErrorsCount: attempts in a row that ended in an error
\* timestamp[p]            pInfo.Timestamp: when p was added or its last attempt failed
\* backoffExpiry[p]        pInfo.BackoffExpiration: when its backoff ends, set at the failure
\* rejecting[p], pending[p] pInfo.UnschedulablePlugins / PendingPlugins of the last attempt
\* inFlightEvents[p][pl]   while p is in flight, an event pl registered arrived and pl's hint
\*                         for p said Queue (the in-flight event list, replayed at the failure)
\* verdict[p][pl]          the hint pl gave p for the last cluster event
\* lastEvent, prev         history: the event of the last step ("" for none) and each pod's
\*                         place before it; the invariants read them
\* waiting                 the scheduling loop is blocked in Pop (activeQueue.cond.Wait)

\* ---- constants of the v1.34 defaults -------------------------------------------------------

\* pkg/scheduler/backend/queue/scheduling_queue.go: DefaultPodInitialBackoffDuration (1 s),
\* DefaultPodMaxBackoffDuration (10 s), DefaultPodMaxInUnschedulablePodsDuration (5 min).
InitialBackoff == 1
MaxBackoff == 10
MaxInUnschedulable == 300

Places == {"none", "activeQ", "backoffQ", "unschedulable", "inFlight", "binding", "bound",
           "deleted"}

\* ---- helpers ------------------------------------------------------------------------------

Set(f, k, v) == [x \in DOMAIN f |-> IF x = k THEN v ELSE f[x]]
NoPlugins == [_pl \in Plugins |-> FALSE]
Rejectors(p) == {pl \in Plugins : rejecting[p][pl] \/ pending[p][pl]}
InFlight == {p \in Pods : where[p] = "inFlight"}
ActiveQEmpty == \A p \in Pods : where[p] # "activeQ"

\* 2^k for the counts that matter: from k = 4 on, 2^k s is past the 10 s cap either way.
Pow2(k) == CASE k <= 0 -> 1 [] k = 1 -> 2 [] k = 2 -> 4 [] k = 3 -> 8 [] OTHER -> 16

\* ---- backoff: pkg/scheduler/backend/queue/backoff_queue.go ----------------------------------

\* getBackoffTime counts the consecutive errors if the last attempt erred, else the
\* unschedulable attempts; calculateBackoffDuration doubles the initial backoff per count past
\* the first and stops at the maximum (upstream compares against max >> shift to avoid
\* overflow; with whole seconds and a 1 s start the two agree).
Count(p) == IF errorCount[p] > 0 THEN errorCount[p] ELSE unschedulableCount[p]

BackoffDuration(c) ==
  IF c = 0 THEN 0
  ELSE IF InitialBackoff * Pow2(c - 1) > MaxBackoff THEN MaxBackoff
  ELSE InitialBackoff * Pow2(c - 1)

\* isPodBackingoff: still backing off while the expiry is not before now (window equality
\* counts as backing off).
BackingOff(p) == Count(p) > 0 /\ backoffExpiry[p] >= now

\* add: a pod whose last attempt had no rejecting or pending plugin (an error) waits in
\* podErrorBackoffQ, which popBackoff never takes from.
InPodBackoffQ(p) == where[p] = "backoffQ" /\ errorCount[p] = 0

\* ---- popping: pkg/scheduler/backend/queue/active_queue.go (unlockedPop) ----------------------

\* activeQ's head, or, with KEP-5142 and activeQ empty, podBackoffQ's head even if its backoff
\* is not over.
Poppable(p) == where[p] = "activeQ" \/ (PopFromBackoffQ /\ ActiveQEmpty /\ InPodBackoffQ(p))

\* The scheduling loop pops only between scheduling cycles (binding cycles run apart).
Pop(p) ==
  /\ InFlight = {}
  /\ Poppable(p)
  /\ where' = Set(where, p, "inFlight")
  /\ attempts' = Set(attempts, p, attempts[p] + 1)
  /\ rejecting' = Set(rejecting, p, NoPlugins)
  /\ pending' = Set(pending, p, NoPlugins)
  /\ inFlightEvents' = Set(inFlightEvents, p, NoPlugins)
  /\ waiting' = FALSE
  /\ prev' = where
  /\ lastEvent' = IF where[p] = "activeQ" THEN "Pop" ELSE "PopFromBackoffQ"
  /\ UNCHANGED <<now, nodeOf, unschedulableCount, errorCount, timestamp, backoffExpiry,
                 verdict>>

\* Pop finds nothing to take and waits on the queue's condition variable.
Block ==
  /\ ~waiting
  /\ InFlight = {}
  /\ \A p \in Pods : ~Poppable(p)
  /\ waiting' = TRUE
  /\ prev' = where
  /\ lastEvent' = ""
  /\ UNCHANGED <<now, where, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
                 backoffExpiry, rejecting, pending, inFlightEvents, verdict>>

\* activeQueue.broadcast after a move: a pod entered activeQ, or backoffQ with KEP-5142.
Woken == \E p \in Pods : /\ where'[p] # where[p]
                         /\ \/ where'[p] = "activeQ"
                            \/ PopFromBackoffQ /\ where'[p] = "backoffQ"
Broadcast == waiting' = (waiting /\ ~Woken)

\* ---- entering: scheduling_queue.go (Add, moveToActiveQ) --------------------------------------

Add(p) ==
  /\ where[p] = "none"
  /\ where' = Set(where, p, "activeQ")
  /\ timestamp' = Set(timestamp, p, now)
  /\ Broadcast
  /\ prev' = where
  /\ lastEvent' = "UnscheduledPodAdd"
  /\ UNCHANGED <<now, nodeOf, attempts, unschedulableCount, errorCount, backoffExpiry,
                 rejecting, pending, inFlightEvents, verdict>>

\* ---- a failed scheduling cycle: scheduling_queue.go (AddUnschedulableIfNotPresent, ---------
\* ---- determineSchedulingHintForInFlightPod, requeuePodWithQueueingStrategy) ----------------

\* The attempt's rejecting (Unschedulable) and pending (Pending) plugins are chosen freely, a
\* plugin being one or the other; neither: an error.
Fail(p) ==
  /\ where[p] = "inFlight"
  /\ rejecting' \in {Set(rejecting, p, r) : r \in PluginSets}
  /\ pending' \in {Set(pending, p, r) : r \in {s \in PluginSets : \A pl \in Plugins : ~(s[pl] /\ rejecting'[p][pl])}}
  /\ LET rej == rejecting'[p]
         pen == pending'[p]
         errored == \A pl \in Plugins : ~rej[pl] /\ ~pen[pl]
         count == IF errored THEN errorCount[p] + 1 ELSE unschedulableCount[p] + 1
         \* a pending plugin's Queue skips backoff; any rejector's Queue requeues after
         \* backoff; with no Queue among the events seen in flight the pod is parked
         immediately == \E pl \in Plugins : pen[pl] /\ inFlightEvents[p][pl]
         queued == \E pl \in Plugins : (rej[pl] \/ pen[pl]) /\ inFlightEvents[p][pl]
         \* the backoff just started (count > 0, expiry >= now): after backoff is backoffQ
         to == IF errored THEN "backoffQ"
               ELSE IF immediately THEN "activeQ"
               ELSE IF queued THEN "backoffQ"
               ELSE "unschedulable"
     IN /\ where' = Set(where, p, to)
        /\ unschedulableCount' = IF errored THEN unschedulableCount
                                 ELSE Set(unschedulableCount, p, count)
        /\ errorCount' = Set(errorCount, p, IF errored THEN count ELSE 0)
        /\ backoffExpiry' = Set(backoffExpiry, p, now + BackoffDuration(count))
  /\ timestamp' = Set(timestamp, p, now)
  /\ Broadcast
  /\ prev' = where
  /\ lastEvent' = "ScheduleAttemptFailure"
  /\ UNCHANGED <<now, nodeOf, attempts, inFlightEvents, verdict>>

\* ---- the binding cycle: pkg/scheduler/schedule_one.go (assume, bind, handleBindingCycleError) -

Assume(p, n) ==
  /\ where[p] = "inFlight"
  /\ where' = Set(where, p, "binding")
  /\ nodeOf' = Set(nodeOf, p, n)
  /\ UNCHANGED <<waiting>>
  /\ prev' = where
  /\ lastEvent' = ""
  /\ UNCHANGED <<now, attempts, unschedulableCount, errorCount, timestamp, backoffExpiry,
                 rejecting, pending, inFlightEvents, verdict>>

BindSucceeded(p) ==
  /\ where[p] = "binding"
  /\ where' = Set(where, p, "bound")
  /\ prev' = where
  /\ lastEvent' = ""
  /\ UNCHANGED <<now, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
                 backoffExpiry, rejecting, pending, inFlightEvents, verdict, waiting>>

\* A binding error has no rejecting plugin: the pod is requeued as an error, after backoff.
\* Forgetting the assumed pod frees its room, which handleBindingCycleError announces as an
\* AssignedPodDelete (MoveAllToActiveOrBackoffQueue with the assumed pod as the old object)
\* before requeueing the pod itself: the other unschedulable pods whose plugins registered it
\* and whose hint says Queue move.
BindFailed(p) ==
  /\ where[p] = "binding"
  /\ EventStep("AssignedPodDelete", p, "backoffQ")
  /\ nodeOf' = Set(nodeOf, p, "")
  /\ errorCount' = Set(errorCount, p, errorCount[p] + 1)
  /\ timestamp' = Set(timestamp, p, now)
  /\ backoffExpiry' = Set(backoffExpiry, p, now + BackoffDuration(errorCount[p] + 1))
  /\ UNCHANGED <<now, attempts, unschedulableCount, rejecting, pending>>

\* ---- cluster events: scheduling_queue.go (MoveAllToActiveOrBackoffQueue, isPodWorthRequeuing)

\* Some rejecting or pending plugin of q registered e and its hint said Queue.
Helps(q, e, v) ==
  \E pl \in Plugins : (rejecting[q][pl] \/ pending[q][pl]) /\ e \in Registered[pl] /\ v[q][pl]

Immediately(q, e, v) == \E pl \in Plugins : pending[q][pl] /\ e \in Registered[pl] /\ v[q][pl]

\* requeuePodWithQueueingStrategy: after backoff means activeQ once the backoff is over.
Requeued(q, e, v) == IF Immediately(q, e, v) \/ ~BackingOff(q) THEN "activeQ" ELSE "backoffQ"

AfterEvent(q, e, v) ==
  IF where[q] = "unschedulable" /\ Helps(q, e, v) THEN Requeued(q, e, v) ELSE where[q]

\* The hints that can matter: a plugin that registered e, for a pod in flight or an
\* unschedulable pod it rejected; every other verdict is left FALSE (QueueSkip).
Asked(q, pl, e) ==
  /\ e \in Registered[pl]
  /\ \/ where[q] = "inFlight"
     \/ where[q] = "unschedulable" /\ pl \in Rejectors(q)

\* Event e reaches the unschedulable pods and is recorded for the pods in flight; the pod
\* `self` the step itself changes ("" for none) goes to `to` instead.
EventStep(e, self, to) ==
  /\ verdict' \in {v \in Verdicts : \A q \in Pods, pl \in Plugins : v[q][pl] => Asked(q, pl, e)}
  /\ where' = [q \in Pods |-> IF q = self THEN to ELSE AfterEvent(q, e, verdict')]
  /\ inFlightEvents' =
       [q \in Pods |->
          IF where[q] = "inFlight"
          THEN [pl \in Plugins |-> inFlightEvents[q][pl] \/ (e \in Registered[pl] /\ verdict'[q][pl])]
          ELSE inFlightEvents[q]]
  /\ Broadcast
  /\ prev' = where
  /\ lastEvent' = e

\* gone is the pod the event removes ("" for none).
Deliver(e, gone) ==
  /\ EventStep(e, gone, "deleted")
  /\ UNCHANGED <<now, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
                 backoffExpiry, rejecting, pending>>

\* Any event but a deleted assigned pod, which AssignedPodDeleted below delivers.
ClusterEvent(e) == e # "AssignedPodDelete" /\ Deliver(e, "")

\* A bound pod is deleted: in particular DefaultPreemption's victims (deleted asynchronously in
\* v1.34), whose AssignedPodDelete event requeues the pods their resources may now fit.
AssignedPodDeleted(v) ==
  /\ where[v] = "bound"
  /\ Deliver("AssignedPodDelete", v)

\* ---- periodic flushes: scheduling_queue.go (Run, flushBackoffQCompleted, -------------------
\* ---- flushUnschedulablePodsLeftover) ---------------------------------------------------------

BackoffCompleted(q) == where[q] = "backoffQ" /\ ~BackingOff(q)

FlushBackoffQCompleted ==
  /\ \E q \in Pods : BackoffCompleted(q)
  /\ where' = [q \in Pods |-> IF BackoffCompleted(q) THEN "activeQ" ELSE where[q]]
  /\ Broadcast
  /\ prev' = where
  /\ lastEvent' = "BackoffComplete"
  /\ UNCHANGED <<now, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
                 backoffExpiry, rejecting, pending, inFlightEvents, verdict>>

\* Unschedulable for longer than 5 minutes: moved with the wildcard UnschedulableTimeout event,
\* which bypasses the hints (after backoff).
Stale(q) == where[q] = "unschedulable" /\ now - timestamp[q] > MaxInUnschedulable

FlushUnschedulablePodsLeftover ==
  /\ \E q \in Pods : Stale(q)
  /\ where' = [q \in Pods |->
                 IF ~Stale(q) THEN where[q]
                 ELSE IF BackingOff(q) THEN "backoffQ" ELSE "activeQ"]
  /\ Broadcast
  /\ prev' = where
  /\ lastEvent' = "UnschedulableTimeout"
  /\ UNCHANGED <<now, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
                 backoffExpiry, rejecting, pending, inFlightEvents, verdict>>

Tick(d) ==
  /\ now' = now + d
  /\ prev' = where
  /\ lastEvent' = ""
  /\ UNCHANGED <<where, nodeOf, attempts, unschedulableCount, errorCount, timestamp,
                 backoffExpiry, rejecting, pending, inFlightEvents, verdict, waiting>>

\* ---- the state machine ------------------------------------------------------------------

Init ==
  /\ now = 0
  /\ where = [_p \in Pods |-> "none"]
  /\ nodeOf = [_p \in Pods |-> ""]
  /\ attempts = [_p \in Pods |-> 0]
  /\ unschedulableCount = [_p \in Pods |-> 0]
  /\ errorCount = [_p \in Pods |-> 0]
  /\ timestamp = [_p \in Pods |-> 0]
  /\ backoffExpiry = [_p \in Pods |-> 0]
  /\ rejecting = [_p \in Pods |-> NoPlugins]
  /\ pending = [_p \in Pods |-> NoPlugins]
  /\ inFlightEvents = [_p \in Pods |-> NoPlugins]
  /\ verdict = [_p \in Pods |-> NoPlugins]
  /\ lastEvent = ""
  /\ prev = where
  /\ waiting = FALSE

Next ==
  \/ \E p \in Pods : Add(p)
  \/ \E p \in Pods : Pop(p)
  \/ Block
  \/ \E p \in Pods : Fail(p)
  \/ \E p \in Pods, n \in Nodes : Assume(p, n)
  \/ \E p \in Pods : BindSucceeded(p)
  \/ \E p \in Pods : BindFailed(p)
  \/ \E e \in Events : ClusterEvent(e)
  \/ \E v \in Pods : AssignedPodDeleted(v)
  \/ FlushBackoffQCompleted
  \/ FlushUnschedulablePodsLeftover
  \/ \E d \in Delays : Tick(d)

\* ---- invariants (schedspec bmc checks every definition whose name ends in Inv) ------------

\* Exactly one place per pod (structural: `where` is a function), a known one; one scheduling
\* cycle at a time.
OnePlaceInv ==
  /\ \A p \in Pods : where[p] \in Places
  /\ Cardinality(InFlight) <= 1

\* No pod is lost: once added it never leaves the model but by being bound or deleted, and no
\* pod waits in unschedulablePods with nothing that could move it but the 5-minute flush.
NoLostPodInv ==
  \A p \in Pods :
    /\ prev[p] # "none" => where[p] # "none"
    /\ prev[p] = "bound" => where[p] \in {"bound", "deleted"}
    /\ where[p] = "unschedulable" => Rejectors(p) # {}
    /\ where[p] \in {"binding", "bound"} => nodeOf[p] \in Nodes

\* A pod leaves unschedulablePods for activeQ or backoffQ only on an event one of its rejecting
\* or pending plugins registered and whose hint said Queue, or on the 5-minute flush.
EventGatedInv ==
  \A p \in Pods :
    (prev[p] = "unschedulable" /\ where[p] \in {"activeQ", "backoffQ"}) =>
      \/ lastEvent = "UnschedulableTimeout"
      \/ /\ lastEvent \in Events
         /\ \E pl \in Plugins : (rejecting[p][pl] \/ pending[p][pl])
                                /\ lastEvent \in Registered[pl] /\ verdict[p][pl]

\* backoff = min(1 s * 2^(count - 1), 10 s) for every pod in backoffQ.
BackoffCapInv ==
  \A p \in Pods :
    where[p] = "backoffQ" =>
      backoffExpiry[p] - timestamp[p] = Min({InitialBackoff * Pow2(Count(p) - 1), MaxBackoff})

\* KEP-5142: the scheduling loop never sits blocked while activeQ holds a pod, nor, with
\* PopFromBackoffQ, while podBackoffQ does.
PopFromBackoffQInv ==
  waiting =>
    /\ ActiveQEmpty
    /\ PopFromBackoffQ => \A p \in Pods : ~InPodBackoffQ(p)

====
