// Command kinformer-realserver-clientgo is the client-go 0.36 side of the real-server benchmark
// (io.kinformer.benchmarks.realserver in informer-benchmarks): one pods informer on all
// namespaces, through client-go's typed SharedInformerFactory, measured the way the kinformer
// side measures itself. It writes one JSON object a line on stdout:
//
//	{"kind":"synced","syncMillis":..,"syncCpuSeconds":..,"processCpuSeconds":..,
//	 "baselineMillis":..,"accept":"..","watchListClient":true|false}
//	{"kind":"heap","heapBytesPerObject":..,"threads":..}
//	{"kind":"armed"}
//	{"kind":"burst","events":M,"burstMillis":..,"burstCpuSeconds":..}
//
// "synced" is written as soon as the informer has synced and its handler has seen N adds;
// processCpuSeconds and baselineMillis leave out the heap baseline taken before the informer
// starts (two runtime.GC calls). After "heap" it reads commands from stdin: "burst M" makes it answer "armed", then report
// once its handler has seen M more updates (the harness writes them after "armed"); the end of stdin ends the program.
//
// Usage: kinformer-realserver-clientgo --kubeconfig FILE --pods N [--json]
// --json asks for JSON (Content-Type and Accept application/json) instead of client-go's
// default, protobuf. KUBE_FEATURE_WatchListClient=false in the environment makes the informer
// list and then watch instead of starting with a streaming list.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	outMu sync.Mutex
	out   = json.NewEncoder(os.Stdout)
)

func emit(v map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	if err := out.Encode(v); err != nil {
		fail(fmt.Errorf("writing stdout: %w", err))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "kinformer-realserver-clientgo: %v\n", err)
	os.Exit(1)
}

// cpuSeconds is the CPU (user and system) this process has used since it started.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// heapInUse is the heap in use after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// threads is the number of OS threads of this process.
func threads() int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// acceptRecorder keeps the Accept header of the first request.
type acceptRecorder struct {
	next   http.RoundTripper
	accept atomic.Value
}

func (r *acceptRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.accept.CompareAndSwap(nil, req.Header.Get("Accept"))
	return r.next.RoundTrip(req)
}

// counter counts handler calls and wakes await when the count reaches its target, so that
// waiting costs no CPU (the Java side waits the same way).
type counter struct {
	n, target atomic.Int64
	reached   chan struct{}
}

func newCounter() *counter {
	c := &counter{reached: make(chan struct{}, 1)}
	c.target.Store(-1)
	return c
}

func (c *counter) add() {
	if c.n.Add(1) == c.target.Load() {
		select {
		case c.reached <- struct{}{}:
		default:
		}
	}
}

// await returns once the count is at least target; the timer covers a count that passed the
// target before it was set.
func (c *counter) await(target int64) {
	c.target.Store(target)
	for c.n.Load() < target {
		select {
		case <-c.reached:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	pods := flag.Int("pods", 0, "how many pods the server holds (the sync waits for as many adds)")
	asJSON := flag.Bool("json", false, "ask for JSON instead of protobuf")
	flag.Parse()
	if *kubeconfig == "" || *pods <= 0 {
		fmt.Fprintln(os.Stderr, "usage: kinformer-realserver-clientgo --kubeconfig FILE --pods N [--json]")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	// As a controller would be configured for a large informer: no client-side throttling.
	config.QPS = -1
	if *asJSON {
		config.ContentType = "application/json"
		config.AcceptContentTypes = "application/json"
	}
	recorder := &acceptRecorder{}
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		recorder.next = rt
		return recorder
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Core().V1().Pods().Informer()
	adds, updates := newCounter(), newCounter()
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { adds.add() },
		UpdateFunc: func(_, _ any) { updates.add() },
	})
	if err != nil {
		fail(err)
	}
	// The heap baseline's time and CPU are not the program's: the harness subtracts them from
	// the figures since process start.
	baselineStart, baselineCPU := time.Now(), cpuSeconds()
	heap0 := heapInUse()
	cpu0 := cpuSeconds()
	t0 := time.Now()
	baselineMillis := float64(t0.Sub(baselineStart).Microseconds()) / 1e3
	baselineCPU = cpu0 - baselineCPU
	stop := make(chan struct{})
	factory.Start(stop)
	// Not cache.WaitForCacheSync: it polls every 100 ms, too coarse a clock.
	adds.await(int64(*pods))
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	syncMillis := float64(time.Since(t0).Microseconds()) / 1e3
	cpu1 := cpuSeconds()
	accept, _ := recorder.accept.Load().(string)
	emit(map[string]any{"kind": "synced", "syncMillis": syncMillis,
		"syncCpuSeconds": cpu1 - cpu0, "processCpuSeconds": cpu1 - baselineCPU,
		"baselineMillis": baselineMillis, "accept": accept,
		"watchListClient": clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)})
	heap1 := heapInUse()
	emit(map[string]any{"kind": "heap",
		"heapBytesPerObject": (float64(heap1) - float64(heap0)) / float64(len(informer.GetStore().ListKeys())),
		"threads": threads()})

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		count, ok := strings.CutPrefix(in.Text(), "burst ")
		if !ok {
			fail(fmt.Errorf("unknown command %q", in.Text()))
		}
		m, err := strconv.ParseInt(count, 10, 64)
		if err != nil {
			fail(err)
		}
		target := updates.n.Load() + m
		cpu2 := cpuSeconds()
		t2 := time.Now()
		emit(map[string]any{"kind": "armed"})
		updates.await(target)
		emit(map[string]any{"kind": "burst", "events": m,
			"burstMillis":     float64(time.Since(t2).Microseconds()) / 1e3,
			"burstCpuSeconds": cpuSeconds() - cpu2, "threads": threads()})
	}
	close(stop)
	factory.Shutdown()
}
