// Command kinformer-clientgo-informer runs one client-go 0.36.4 ConfigMap informer and reports,
// one JSON object a line on stdout, what its handler sees, so that a test can run client-go
// beside kinformer against the same server and compare them:
//
//	{"kind":"request","method":"GET","path":"/api/v1/namespaces/x/configmaps","query":"..."}
//	{"kind":"synced"}
//	{"kind":"add"|"update"|"delete","name":"...","rv":"...","initial":true|false,"tombstone":bool}
//	{"kind":"cache","name":"...","rv":"..."}   (once per cached object when stdin ends)
//	{"kind":"end"}
//
// It stops when its standard input ends (or on SIGTERM), after writing the cache.
//
// Usage: kinformer-clientgo-informer --kubeconfig FILE --namespace NS
// With KUBE_FEATURE_WatchListClient=false in the environment the informer lists and then
// watches instead of starting with a streaming list.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"

	corev1 "k8s.io/api/core/v1"
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
		fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: writing stdout: %v\n", err)
		os.Exit(1)
	}
}

// recorder reports every request the informer sends.
type recorder struct{ next http.RoundTripper }

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	emit(map[string]any{"kind": "request", "method": req.Method, "path": req.URL.Path,
		"query": req.URL.RawQuery})
	return r.next.RoundTrip(req)
}

func object(kind string, obj any, initial bool) map[string]any {
	tombstone := false
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, tombstone = t.Obj, true
	}
	cm := obj.(*corev1.ConfigMap)
	return map[string]any{"kind": kind, "name": cm.Name, "rv": cm.ResourceVersion,
		"initial": initial, "tombstone": tombstone}
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "the namespace to watch")
	flag.Parse()
	if *kubeconfig == "" || *namespace == "" {
		fmt.Fprintln(os.Stderr, "usage: kinformer-clientgo-informer --kubeconfig FILE --namespace NS")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: %v\n", err)
		os.Exit(1)
	}
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return recorder{rt} }
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: %v\n", err)
		os.Exit(1)
	}

	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(*namespace))
	informer := factory.Core().V1().ConfigMaps().Informer()
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { emit(object("add", obj, initial)) },
		UpdateFunc: func(_, obj any) { emit(object("update", obj, false)) },
		DeleteFunc: func(obj any) { emit(object("delete", obj, false)) },
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: %v\n", err)
		os.Exit(1)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, informer.HasSynced) {
		os.Exit(1)
	}
	emit(map[string]any{"kind": "synced"})

	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-signals:
	}

	items := informer.GetStore().List()
	sort.Slice(items, func(i, j int) bool {
		return items[i].(*corev1.ConfigMap).Name < items[j].(*corev1.ConfigMap).Name
	})
	for _, item := range items {
		cm := item.(*corev1.ConfigMap)
		emit(map[string]any{"kind": "cache", "name": cm.Name, "rv": cm.ResourceVersion})
	}
	emit(map[string]any{"kind": "end"})
	close(stop)
	factory.Shutdown()
}
