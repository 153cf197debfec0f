// rand.Seed must take effect: selectHost and preemption draw from math/rand's global source.
//
//go:debug randseednop=0

// schedspec-oracle answers questions about the real kube-scheduler (k8s.io/kubernetes v1.34.2),
// built in-process with the default profile, over a JSON-lines protocol on stdin/stdout.
//
// One request per line, one response per line:
//
//	{"op":"version"}
//	{"op":"filter","cluster":{...},"pod":"ns/name"}
//	{"op":"score","cluster":{...},"pod":"ns/name"}
//	{"op":"score","cluster":{...},"pods":["ns/a","ns/b"]}    (also filter: one answer per pod)
//	{"op":"schedule","cluster":{...},"seed":N}
//	{"op":"validate","object":{...}}
//
// Every response carries "ok"; a failed request answers {"ok":false,"error":"..."} and the bridge
// keeps serving. docs/oracle.md describes the shapes. Upstream code driven here:
// pkg/scheduler/scheduler.go (New), pkg/scheduler/schedule_one.go (ScheduleOne),
// pkg/scheduler/framework/runtime/framework.go (Run*Plugins).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"k8s.io/klog/v2"
)

type request struct {
	Op      string          `json:"op"`
	ID      json.RawMessage `json:"id,omitempty"`
	Cluster json.RawMessage `json:"cluster,omitempty"`
	Pod     string          `json:"pod,omitempty"`
	Seed    int64           `json:"seed,omitempty"`
	// Ties asks schedule to report, per binding, every node with the maximal total score
	// (only computed when all nodes are searched, i.e. fewer than 100 nodes).
	Ties *bool `json:"ties,omitempty"`
	// RecordQueue asks schedule to run in virtual time and return the queue's trace
	// (queue_record.go); absent, schedule is unchanged.
	RecordQueue *queueRequest `json:"recordQueue,omitempty"`
	// Pods asks filter or score about several pods of the cluster at once (batch.go).
	Pods []string `json:"pods,omitempty"`
	// Object is the one object of a validate request.
	Object json.RawMessage `json:"object,omitempty"`
}

func main() {
	flag.Parse()
	// The scheduler logs through klog; keep stdout for the protocol and stderr quiet.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)

	// SCHEDSPEC_ORACLE_CPUPROFILE=path writes a Go CPU profile of the whole session there
	// (go tool pprof), to see where a campaign's requests spend the bridge's time.
	if path := os.Getenv("SCHEDSPEC_ORACLE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
		}
	}
	// Each request builds a scheduler, answers and drops it: a small live heap turned over
	// fast, so at Go's default GOGC=100 the collector runs every few requests. The bridge
	// trades memory for CPU, up to a soft limit past which it collects as often as it must
	// (GOGC and GOMEMLIMIT in the environment still decide when set).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	lines := make(chan []byte, readAhead)
	go readLines(os.Stdin, lines)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for line := range lines {
		writeResponse(out, serve(line))
	}
}

// readAhead is how many requests the bridge reads before it has answered them. A client may
// send the next request before reading the last answer (the three-way campaign does): stdin
// keeps being drained while a long answer waits for the client to read it, so neither side
// blocks on a full pipe.
const readAhead = 64

// gcPercent and memoryLimit are the bridge's GOGC and GOMEMLIMIT unless the environment sets them:
// at 10 nodes × 10 pods the collector took about a fifth of the bridge's CPU time at GOGC=100
// (a three-way campaign's bridge answers 10% faster at 400), and the soft limit keeps a large
// cluster's heap from growing fivefold past 2 GiB.
const (
	gcPercent   = 400
	memoryLimit = 2 << 30
)

// readLines sends every non-blank line of in, in order, and closes lines at EOF.
func readLines(in io.Reader, lines chan<- []byte) {
	defer close(lines)
	r := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && !isBlank(line) {
			lines <- line
		}
		if err != nil {
			return
		}
	}
}

func isBlank(line []byte) bool {
	for _, b := range line {
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return false
		}
	}
	return true
}

func writeResponse(out *bufio.Writer, resp map[string]any) {
	data, err := json.Marshal(resp)
	if err != nil {
		data, _ = json.Marshal(map[string]any{"ok": false, "error": "encoding the response: " + err.Error()})
	}
	_, _ = out.Write(append(data, '\n'))
	_ = out.Flush()
}

// serve answers one request line; it never panics.
func serve(line []byte) (resp map[string]any) {
	var req request
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "panic while serving %q: %v\n%s\n", req.Op, r, debug.Stack())
			resp = fail(fmt.Errorf("internal error (Go panic) while serving %q: %v", req.Op, r))
		}
		if req.ID != nil {
			resp["id"] = req.ID
		}
	}()
	if err := json.Unmarshal(line, &req); err != nil {
		return fail(fmt.Errorf("malformed request: %v", err))
	}
	var (
		body map[string]any
		err  error
	)
	switch req.Op {
	case "version":
		body = version()
	case "filter", "score":
		body, err = withCluster(req, func(c *cluster) (map[string]any, error) { return podsOp(req, c) })
	case "schedule":
		ties := req.Ties == nil || *req.Ties
		body, err = withCluster(req, func(c *cluster) (map[string]any, error) { return scheduleOp(c, req.Seed, ties, req.RecordQueue) })
	case "validate":
		body, err = validateOp(req.Object)
	case "":
		err = fmt.Errorf("malformed request: missing \"op\"")
	default:
		err = fmt.Errorf("unknown op %q (want version, filter, score, schedule or validate)", req.Op)
	}
	if err != nil {
		return fail(err)
	}
	body["ok"] = true
	return body
}

func withCluster(req request, run func(*cluster) (map[string]any, error)) (map[string]any, error) {
	if len(req.Cluster) == 0 {
		return nil, fmt.Errorf("malformed request: %q needs \"cluster\"", req.Op)
	}
	c, err := decodeCluster(req.Cluster)
	if err != nil {
		return nil, err
	}
	return run(c)
}

// podsOp answers filter or score for the request's "pod", or for each of its "pods".
func podsOp(req request, c *cluster) (map[string]any, error) {
	scoring := req.Op == "score"
	switch {
	case req.Pods == nil:
		if scoring {
			return scoreOp(c, req.Pod)
		}
		return filterOp(c, req.Pod)
	case req.Pod != "":
		return nil, fmt.Errorf("malformed request: give \"pod\" or \"pods\", not both")
	}
	return evaluateEach(c, req.Pods, scoring)
}

func fail(err error) map[string]any {
	return map[string]any{"ok": false, "error": err.Error()}
}
