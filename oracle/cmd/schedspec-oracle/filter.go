// filter and score: the real plugins of the profile, asked one by one, next to the framework's own
// verdict (RunPreFilterPlugins / RunFilterPluginsWithNominatedPods / RunPreScorePlugins /
// RunScorePlugins in pkg/scheduler/framework/runtime/framework.go) and the FitError message that
// pkg/scheduler/schedule_one.go (findNodesThatFitPod) would build from it.
package main

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// orSuccess: a nil status means Success (as Go's nil); the copies below may set a plugin on it.
func orSuccess(s *fwk.Status) *fwk.Status {
	if s == nil {
		return fwk.NewStatus(fwk.Success)
	}
	return s
}

func statusJSON(s *fwk.Status) map[string]any {
	s = orSuccess(s)
	out := map[string]any{"code": s.Code().String()}
	if reasons := s.Reasons(); len(reasons) > 0 {
		out["reasons"] = reasons
	} else {
		out["reasons"] = []string{}
	}
	if s.Plugin() != "" {
		out["plugin"] = s.Plugin()
	}
	if err := s.AsError(); err != nil && s.Code() == fwk.Error {
		out["error"] = err.Error()
	}
	return out
}

// evaluation is one pod's filter pass over every node of the snapshot.
type evaluation struct {
	env      *env
	fw       framework.Framework
	snap     *internalcache.Snapshot
	pod      *v1.Pod
	plugins  map[string]framework.Plugin
	nodes    []fwk.NodeInfo
	state    fwk.CycleState // the framework's own cycle (PreFilter → Filter → PreScore → Score)
	feasible []fwk.NodeInfo
	result   map[string]any
	// preFilter holds the PreFilter part of the result (per plugin, and the framework's).
	preFilter map[string]any
}

// newEvaluation prepares one pod's pass on a running scheduler: the pod's profile with its
// snapshot brought up to date, and a second copy of each of its plugins.
func newEvaluation(e *env, c *cluster, pod *v1.Pod) (*evaluation, error) {
	fw, snap, err := e.framework(pod)
	if err != nil {
		return nil, err
	}
	plugins, err := e.plugins(fw)
	if err != nil {
		return nil, err
	}
	nodes, err := snap.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	ev := &evaluation{env: e, fw: fw, snap: snap, pod: pod, plugins: plugins}
	ev.nodes = inInputOrder(nodes, c)
	return ev, nil
}

// inInputOrder lists the snapshot's nodes in the order of the request (the snapshot interleaves
// zones); the framework itself is not affected by this order here since every node is evaluated.
func inInputOrder(nodes []fwk.NodeInfo, c *cluster) []fwk.NodeInfo {
	index := map[string]int{}
	for i, n := range c.nodes {
		index[n.Name] = i
	}
	out := append([]fwk.NodeInfo(nil), nodes...)
	sort.SliceStable(out, func(a, b int) bool { return index[out[a].Node().Name] < index[out[b].Node().Name] })
	return out
}

func filterOp(c *cluster, podName string) (map[string]any, error) {
	return evaluateOne(c, podName, false)
}

func scoreOp(c *cluster, podName string) (map[string]any, error) {
	return evaluateOne(c, podName, true)
}

// evaluateOne answers filter (scoring: score) for one pod on a scheduler of its own.
func evaluateOne(c *cluster, podName string, scoring bool) (map[string]any, error) {
	pod, err := c.findPod(podName)
	if err != nil {
		return nil, err
	}
	e, err := newEnv(c)
	if err != nil {
		return nil, err
	}
	defer e.close()
	return evaluate(e, c, pod, scoring)
}

func evaluate(e *env, c *cluster, pod *v1.Pod, scoring bool) (map[string]any, error) {
	ev, err := newEvaluation(e, c, pod)
	if err != nil {
		return nil, err
	}
	ev.run()
	if scoring {
		ev.score()
	}
	return ev.result, nil
}

// run fills result with the per-plugin PreFilter and Filter statuses and the framework verdict.
func (ev *evaluation) run() {
	perPlugin := ev.perPlugin()
	verdict, fitError := ev.frameworkVerdict()
	nodes := make([]map[string]any, 0, len(ev.nodes))
	for _, ni := range ev.nodes {
		name := ni.Node().Name
		nodes = append(nodes, map[string]any{
			"node":    name,
			"filters": perPlugin[name],
			"verdict": verdict[name],
		})
	}
	feasible := make([]string, 0, len(ev.feasible))
	for _, ni := range ev.feasible {
		feasible = append(feasible, ni.Node().Name)
	}
	ev.result = map[string]any{
		"pod":      podKey(ev.pod),
		"profile":  ev.fw.ProfileName(),
		"nodes":    nodes,
		"feasible": feasible,
	}
	for k, v := range ev.preFilter {
		ev.result[k] = v
	}
	if fitError != "" {
		ev.result["fit_error"] = fitError
	}
}

// perPlugin runs each PreFilter plugin on its own (no short-circuit), then each Filter plugin on
// each node (so every rejecting plugin is reported, not only the first). Nominated pods are not
// added here; the framework verdict accounts for them.
func (ev *evaluation) perPlugin() map[string][]map[string]any {
	state := framework.NewCycleState()
	listed := ev.fw.ListPlugins()
	skipped := sets.New[string]()
	rejected := map[string]*fwk.Status{}
	var preFilter []map[string]any
	for _, p := range listed.PreFilter.Enabled {
		pl := ev.plugins[p.Name].(framework.PreFilterPlugin)
		res, s := pl.PreFilter(ev.env.ctx, state, ev.pod, ev.nodes)
		s = orSuccess(s)
		s.SetPlugin(p.Name)
		entry := map[string]any{"plugin": p.Name, "status": statusJSON(s)}
		if res != nil && !res.AllNodes() {
			entry["node_names"] = sets.List(res.NodeNames)
		}
		preFilter = append(preFilter, entry)
		switch {
		case s.IsSkip():
			skipped.Insert(p.Name)
		case !s.IsSuccess():
			rejected[p.Name] = s
		}
	}
	state.SetSkipFilterPlugins(skipped)
	out := map[string][]map[string]any{}
	for _, ni := range ev.nodes {
		var row []map[string]any
		for _, p := range listed.Filter.Enabled {
			entry := map[string]any{"plugin": p.Name}
			switch {
			case skipped.Has(p.Name):
				entry["code"], entry["reasons"], entry["skipped_by_prefilter"] = "Skip", []string{}, true
			case rejected[p.Name] != nil:
				// Its PreFilter rejected the pod: upstream never calls Filter, every node gets
				// the PreFilter status.
				for k, v := range statusJSON(rejected[p.Name]) {
					entry[k] = v
				}
				entry["from_prefilter"] = true
			default:
				s := ev.plugins[p.Name].(framework.FilterPlugin).Filter(ev.env.ctx, state, ev.pod, ni)
				for k, v := range statusJSON(s) {
					entry[k] = v
				}
				entry["plugin"] = p.Name
			}
			row = append(row, entry)
		}
		out[ni.Node().Name] = row
	}
	ev.preFilter = map[string]any{"prefilter": preFilter, "prefilter_skipped": sets.List(skipped)}
	return out
}

// frameworkVerdict is the framework's own chain on every node (first rejecting plugin wins), with
// nominated pods, and the FitError message when no node fits.
func (ev *evaluation) frameworkVerdict() (map[string]map[string]any, string) {
	ctx := ev.env.ctx
	ev.state = framework.NewCycleState()
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	preRes, s, pluginsWithNodes := ev.fw.RunPreFilterPlugins(ctx, ev.state, ev.pod)
	diagnosis.UnschedulablePlugins = pluginsWithNodes
	verdict := map[string]map[string]any{}
	ev.preFilterVerdict(preRes, s)
	if !s.IsSuccess() {
		diagnosis.NodeToStatus.SetAbsentNodesStatus(s)
		diagnosis.PreFilterMsg = s.Message()
		diagnosis.AddPluginStatus(s)
		for _, ni := range ev.nodes {
			verdict[ni.Node().Name] = statusJSON(s)
		}
		return verdict, ev.fitError(diagnosis)
	}
	for _, ni := range ev.nodes {
		name := ni.Node().Name
		var st *fwk.Status
		if !preRes.AllNodes() && !preRes.NodeNames.Has(name) {
			st = fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
				fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(pluginsWithNodes)))
		} else {
			st = ev.fw.RunFilterPluginsWithNominatedPods(ctx, ev.state, ev.pod, ni)
		}
		verdict[name] = statusJSON(st)
		if st.IsSuccess() {
			ev.feasible = append(ev.feasible, ni)
			continue
		}
		diagnosis.NodeToStatus.Set(name, st)
		diagnosis.AddPluginStatus(st)
	}
	if len(ev.feasible) > 0 {
		return verdict, ""
	}
	return verdict, ev.fitError(diagnosis)
}

func (ev *evaluation) preFilterVerdict(preRes *framework.PreFilterResult, s *fwk.Status) {
	out := map[string]any{"status": statusJSON(s)}
	if preRes != nil && !preRes.AllNodes() {
		out["node_names"] = sets.List(preRes.NodeNames)
	}
	ev.preFilter["prefilter_verdict"] = out
}

func (ev *evaluation) fitError(d framework.Diagnosis) string {
	fitErr := &framework.FitError{Pod: ev.pod, NumAllNodes: len(ev.nodes), Diagnosis: d}
	return fitErr.Error()
}

// score runs PreScore and Score over the feasible nodes: the framework's weighted totals and, per
// plugin, the raw and normalised scores of the plugin on its own.
func (ev *evaluation) score() {
	ctx := ev.env.ctx
	ev.result["scoring_skipped_upstream"] = len(ev.feasible) < 2
	if len(ev.feasible) == 0 {
		ev.result["scores"] = []any{}
		return
	}
	if s := ev.fw.RunPreScorePlugins(ctx, ev.state, ev.pod, ev.feasible); !s.IsSuccess() {
		ev.result["score_error"] = statusJSON(s)
		return
	}
	totals, s := ev.fw.RunScorePlugins(ctx, ev.state, ev.pod, ev.feasible)
	if !s.IsSuccess() {
		ev.result["score_error"] = statusJSON(s)
		return
	}
	perPlugin := ev.pluginScores()
	var best int64 = -1 << 62
	scores := make([]map[string]any, 0, len(totals))
	for _, t := range totals {
		weighted := map[string]int64{}
		for _, ps := range t.Scores {
			weighted[ps.Name] = ps.Score
		}
		scores = append(scores, map[string]any{
			"node": t.Name, "total": t.TotalScore, "weighted": weighted, "plugins": perPlugin[t.Name],
		})
		best = max(best, t.TotalScore)
	}
	var top []string
	for _, t := range totals {
		if t.TotalScore == best {
			top = append(top, t.Name)
		}
	}
	ev.result["scores"] = scores
	ev.result["max_score_nodes"] = top
	skipped := ev.state.GetSkipScorePlugins()
	ev.result["prescore_skipped"] = sets.List(sets.New(skipped.UnsortedList()...))
}

// pluginScores: each non-skipped score plugin's raw Score per node, its NormalizeScore, its weight.
func (ev *evaluation) pluginScores() map[string][]map[string]any {
	ctx := ev.env.ctx
	skipped := ev.state.GetSkipScorePlugins()
	out := map[string][]map[string]any{}
	for _, p := range ev.fw.ListPlugins().Score.Enabled {
		if skipped.Has(p.Name) {
			continue
		}
		pl := ev.plugins[p.Name].(framework.ScorePlugin)
		raw := make(framework.NodeScoreList, len(ev.feasible))
		for i, ni := range ev.feasible {
			score, s := pl.Score(ctx, ev.state, ev.pod, ni)
			if !s.IsSuccess() {
				score = -1
			}
			raw[i] = framework.NodeScore{Name: ni.Node().Name, Score: score}
		}
		normalized := append(framework.NodeScoreList(nil), raw...)
		if ext := pl.ScoreExtensions(); ext != nil {
			ext.NormalizeScore(ctx, ev.state, ev.pod, normalized)
		}
		weight := int64(p.Weight)
		for i := range raw {
			out[raw[i].Name] = append(out[raw[i].Name], map[string]any{
				"plugin": p.Name, "raw": raw[i].Score, "normalized": normalized[i].Score,
				"weight": weight, "weighted": normalized[i].Score * weight,
			})
		}
	}
	return out
}
