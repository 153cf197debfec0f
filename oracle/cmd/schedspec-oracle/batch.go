// filter and score for several pods of one cluster in one request ("pods" instead of "pod"): one
// scheduler answers them all. A pod's evaluation changes nothing the next one reads: it runs
// PreFilter, Filter, PreScore and Score on a CycleState of its own and stops before Reserve, so
// the cache, the queue and the nominator stay as the informers left them. Each answer is the one
// a request for that pod alone would get, its error included.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
)

// evaluateEach answers filter (scoring: score) for each pod of keys, in order: the pod's answer
// with "ok": true, or {"ok": false, "error": ...} as a request for that pod alone would fail.
func evaluateEach(c *cluster, keys []string, scoring bool) (map[string]any, error) {
	b := &batch{cluster: c, scoring: scoring}
	defer b.close()
	answers := make([]map[string]any, 0, len(keys))
	for _, key := range keys {
		answers = append(answers, b.answer(key))
	}
	return map[string]any{"answers": answers}, nil
}

// batch holds the scheduler its pods share, built at the first pod that needs it and again
// after a pod's evaluation panicked (it may have left the scheduler half-way through a call).
type batch struct {
	cluster *cluster
	scoring bool
	env     *env
	envErr  error
}

func (b *batch) answer(key string) (resp map[string]any) {
	op := "filter"
	if b.scoring {
		op = "score"
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "panic while serving %q for %s: %v\n%s\n", op, key, r, debug.Stack())
			resp = fail(fmt.Errorf("internal error (Go panic) while serving %q: %v", op, r))
			b.close()
		}
	}()
	pod, err := b.cluster.findPod(key)
	if err != nil {
		return fail(err)
	}
	if b.env == nil && b.envErr == nil {
		b.env, b.envErr = newEnv(b.cluster)
	}
	if b.envErr != nil {
		return fail(b.envErr)
	}
	body, err := evaluate(b.env, b.cluster, pod, b.scoring)
	if err != nil {
		return fail(err)
	}
	body["ok"] = true
	return body
}

func (b *batch) close() {
	if b.env != nil {
		b.env.close()
	}
	b.env, b.envErr = nil, nil
}
