// Command kinformer-clientgo-informer runs one client-go 0.36.4 informer (of configmaps, pods or a
// custom resource) and reports,
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
// Usage: kinformer-clientgo-informer --kubeconfig FILE --namespace NS [--resource R]
// R is configmaps (the default) or pods, each through the typed SharedInformerFactory, or
// GROUP/VERSION/RESOURCE of a custom resource, through the dynamic informer factory.
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
	"strings"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
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
	m := accessor(obj)
	return map[string]any{"kind": kind, "name": m.GetName(), "rv": m.GetResourceVersion(),
		"initial": initial, "tombstone": tombstone}
}

func accessor(obj any) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: %T: %v\n", obj, err)
		os.Exit(1)
	}
	return m
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: %v\n", err)
	os.Exit(1)
}

// factory is what the typed and the dynamic informer factories have in common.
type factory interface {
	Start(stop <-chan struct{})
	Shutdown()
}

// newInformer returns the informer of resource in namespace, and the factory that runs it.
func newInformer(resource, namespace string, typed kubernetes.Interface,
	dyn dynamic.Interface) (cache.SharedIndexInformer, factory, error) {
	switch resource {
	case "configmaps", "pods":
		f := informers.NewSharedInformerFactoryWithOptions(typed, 0, informers.WithNamespace(namespace))
		if resource == "pods" {
			return f.Core().V1().Pods().Informer(), f, nil
		}
		return f.Core().V1().ConfigMaps().Informer(), f, nil
	}
	parts := strings.Split(resource, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return nil, nil, fmt.Errorf("--resource %q: want configmaps, pods or GROUP/VERSION/RESOURCE", resource)
	}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, namespace, nil)
	gvr := schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]}
	return f.ForResource(gvr).Informer(), f, nil
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "the namespace to watch")
	resource := flag.String("resource", "configmaps",
		"configmaps, pods, or GROUP/VERSION/RESOURCE of a custom resource")
	flag.Parse()
	if *kubeconfig == "" || *namespace == "" {
		fmt.Fprintln(os.Stderr, "usage: kinformer-clientgo-informer --kubeconfig FILE --namespace NS [--resource R]")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return recorder{rt} }
	typed, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	informer, factory, err := newInformer(*resource, *namespace, typed, dyn)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kinformer-clientgo-informer: %v\n", err)
		os.Exit(2)
	}
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { emit(object("add", obj, initial)) },
		UpdateFunc: func(_, obj any) { emit(object("update", obj, false)) },
		DeleteFunc: func(obj any) { emit(object("delete", obj, false)) },
	})
	if err != nil {
		fail(err)
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
		return accessor(items[i]).GetName() < accessor(items[j]).GetName()
	})
	for _, item := range items {
		m := accessor(item)
		emit(map[string]any{"kind": "cache", "name": m.GetName(), "rv": m.GetResourceVersion()})
	}
	emit(map[string]any{"kind": "end"})
	close(stop)
	factory.Shutdown()
}
