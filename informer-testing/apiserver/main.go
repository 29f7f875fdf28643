// Command kinformer-apiserver is a test API server made of Kubernetes' own server machinery.
//
// It serves a part of core/v1 (namespaces, pods with pods/status, configmaps, secrets, services,
// serviceaccounts, nodes with nodes/status, events) through k8s.io/apiserver's generic registry,
// behind the apiextensions server, which serves CustomResourceDefinitions and custom resources
// and delegates every other path to the core server. Storage is etcd. Storage, the watch cache,
// bookmarks, streaming lists, pagination, resourceVersion expiry and the authentication and
// authorization filters are therefore upstream's code; what this file adds is the registry of
// kinds and their strategies.
//
// What it is not: there are no controllers (no kubelet, no namespace finalizer, no service IP
// allocation, no garbage collector), no admission plugins, no defaulting of core/v1 fields, and
// its OpenAPI documents describe core/v1 kinds only loosely (metadata typed, the rest free-form).
//
// It listens on loopback only. Clients authenticate with a bearer token from --token-auth-file
// or with a client certificate signed by --client-ca-file; every authenticated request is
// allowed.
//
// Build: build.sh beside this file (GOPATH mode, Debian's packaged Go sources).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"

	"github.com/spf13/pflag"
	noopoteltrace "go.opentelemetry.io/otel/trace/noop"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apiextensionsoptions "k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/pkg/server/healthz"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/klog/v2"
	"k8s.io/kube-openapi/pkg/common"
	openapiutil "k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
	netutils "k8s.io/utils/net"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "kinformer-apiserver: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("kinformer-apiserver", pflag.ContinueOnError)
	runOptions := genericoptions.NewServerRunOptions()
	runOptions.AddUniversalFlags(fs)
	secure := genericoptions.NewSecureServingOptions().WithLoopback()
	secure.BindAddress = netutils.ParseIPSloppy("127.0.0.1")
	secure.AddFlags(fs)
	etcd := genericoptions.NewEtcdOptions(storagebackend.NewDefaultConfig("/registry", nil))
	etcd.AddFlags(fs)
	tokenFile := fs.String("token-auth-file", "", "CSV file of bearer tokens: token,user,uid,\"group1,group2\"")
	clientCAFile := fs.String("client-ca-file", "", "CA bundle that signs accepted client certificates")
	klog.InitFlags(nil)
	fs.AddGoFlagSet(flag.CommandLine)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := runOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	if !secure.BindAddress.IsLoopback() {
		return fmt.Errorf("--bind-address %v is not a loopback address", secure.BindAddress)
	}
	if *tokenFile == "" && *clientCAFile == "" {
		return errors.New("give --token-auth-file, --client-ca-file or both")
	}
	if err := runOptions.Complete(); err != nil {
		return err
	}
	var errs []error
	errs = append(errs, runOptions.Validate()...)
	errs = append(errs, secure.Validate()...)
	errs = append(errs, etcd.Validate()...)
	if len(errs) > 0 {
		return fmt.Errorf("invalid flags: %v", errs)
	}
	if err := secure.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
		return fmt.Errorf("creating self-signed certificates: %w", err)
	}

	// One generic configuration, shared by both servers of the chain as kube-apiserver shares
	// it: one listener, one loopback client (whose token both must accept), one filter chain.
	coreConfig := genericapiserver.NewRecommendedConfig(coreCodecs)
	if err := runOptions.ApplyTo(&coreConfig.Config); err != nil {
		return err
	}
	if err := secure.ApplyTo(&coreConfig.SecureServing, &coreConfig.LoopbackClientConfig); err != nil {
		return err
	}
	if err := applyAuth(&coreConfig.Config, *tokenFile, *clientCAFile); err != nil {
		return err
	}
	coreConfig.AdmissionControl = admission.NewChainHandler()

	crdConfig := *coreConfig
	crdConfig.PostStartHooks = map[string]genericapiserver.PostStartHookConfigEntry{}
	crdConfig.HealthzChecks = append([]healthz.HealthChecker(nil), coreConfig.HealthzChecks...)
	crdConfig.LivezChecks = append([]healthz.HealthChecker(nil), coreConfig.LivezChecks...)
	crdConfig.ReadyzChecks = append([]healthz.HealthChecker(nil), coreConfig.ReadyzChecks...)
	crdConfig.Serializer = apiextensionsapiserver.Codecs

	// core/v1 in etcd, as JSON, under /registry/<resource>.
	coreResources := serverstorage.NewResourceConfig()
	coreResources.EnableVersions(corev1.SchemeGroupVersion)
	coreConfig.MergedResourceConfig = coreResources
	storageFactory := serverstorage.NewDefaultStorageFactory(etcd.StorageConfig, runtime.ContentTypeJSON,
		coreCodecs, serverstorage.NewDefaultResourceEncodingConfig(coreScheme), coreResources, nil)
	if err := etcd.ApplyWithStorageFactoryTo(storageFactory, &coreConfig.Config); err != nil {
		return err
	}
	coreConfig.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(coreOpenAPIDefinitions,
		openapinamer.NewDefinitionNamer(coreScheme))
	coreConfig.OpenAPIV3Config.Info.Title = "kinformer-apiserver"

	// The apiextensions server's own configuration, as its stock command builds it.
	crdEtcd := *etcd
	crdEtcd.SkipHealthEndpoints = true
	crdEtcd.StorageConfig.Codec = apiextensionsapiserver.Codecs.LegacyCodec(
		apiextensionsv1beta1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
	if err := crdEtcd.ApplyTo(&crdConfig.Config); err != nil {
		return err
	}
	crdConfig.MergedResourceConfig = apiextensionsapiserver.DefaultAPIResourceConfigSource()
	crdConfig.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(
		openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(apiextensionsopenapi.GetOpenAPIDefinitions),
		openapinamer.NewDefinitionNamer(apiextensionsapiserver.Scheme))
	extensions := &apiextensionsapiserver.Config{
		GenericConfig: &crdConfig,
		ExtraConfig: apiextensionsapiserver.ExtraConfig{
			CRDRESTOptionsGetter: apiextensionsoptions.NewCRDRESTOptionsGetter(*etcd,
				crdConfig.ResourceTransformers, crdConfig.StorageObjectCountTracker),
			ServiceResolver: noServices{},
			AuthResolverWrapper: webhook.NewDefaultAuthenticationInfoResolverWrapper(nil, nil,
				crdConfig.LoopbackClientConfig, noopoteltrace.NewTracerProvider()),
		},
	}
	coreServer, err := coreConfig.Complete().New("kinformer-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return fmt.Errorf("core server: %w", err)
	}
	group, err := coreAPIGroup(coreConfig.RESTOptionsGetter)
	if err != nil {
		return err
	}
	if err := coreServer.InstallLegacyAPIGroup(genericapiserver.DefaultLegacyAPIPrefix, group); err != nil {
		return fmt.Errorf("installing /api: %w", err)
	}
	// The apiextensions server is in front: it serves /apis (its discovery lists the CRD groups)
	// and hands every path it does not serve, /api among them, to the core server.
	completed := extensions.Complete()
	// Complete turns discovery off, since behind kube-apiserver's aggregator the aggregator serves
	// /apis. Here the apiextensions server is the front, so it serves /apis itself: its group and,
	// in the aggregated form, every CRD group. The completed configuration points at crdConfig.
	crdConfig.EnableDiscovery = true
	crdServer, err := completed.New(coreServer)
	if err != nil {
		return fmt.Errorf("apiextensions server: %w", err)
	}
	return crdServer.GenericAPIServer.PrepareRun().RunWithContext(ctx)
}

// applyAuth authenticates with a static token file and/or client certificates, and allows every
// authenticated request; the loopback client's token is added as kube-apiserver adds it.
func applyAuth(c *genericapiserver.Config, tokenFile, clientCAFile string) error {
	var authenticators []authenticator.Request
	if tokenFile != "" {
		tokens, err := tokenfile.NewCSV(tokenFile)
		if err != nil {
			return fmt.Errorf("--token-auth-file: %w", err)
		}
		authenticators = append(authenticators, bearertoken.New(tokens))
	}
	if clientCAFile != "" {
		ca, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca-bundle", clientCAFile)
		if err != nil {
			return fmt.Errorf("--client-ca-file: %w", err)
		}
		c.SecureServing.ClientCA = ca
		authenticators = append(authenticators,
			x509request.NewDynamic(ca.VerifyOptions, x509request.CommonNameUserConversion))
	}
	c.Authentication.Authenticator = union.New(authenticators...)
	c.Authorization.Authorizer = authorizerfactory.NewAlwaysAllowAuthorizer()
	genericapiserver.AuthorizeClientBearerToken(c.LoopbackClientConfig, &c.Authentication, &c.Authorization)
	return nil
}

// noServices resolves no service: conversion and admission webhooks need a service network,
// which a test server without kube-proxy does not have.
type noServices struct{}

func (noServices) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return nil, fmt.Errorf("service %s/%s: this test server resolves no services", namespace, name)
}

var (
	// coreScheme holds core/v1 both as the external version v1 and, the same Go types, as the
	// internal version the registry works in: conversion between the two is then a copy, since
	// there are no internal core types outside kubernetes/kubernetes.
	coreScheme = runtime.NewScheme()
	coreCodecs = serializer.NewCodecFactory(coreScheme)
)

func init() {
	must(corev1.AddToScheme(coreScheme))
	internal := schema.GroupVersion{Version: runtime.APIVersionInternal}
	for _, k := range kinds {
		coreScheme.AddKnownTypes(internal, k.newObj(), k.newList())
		gvk := corev1.SchemeGroupVersion.WithKind(k.kind)
		allowed := k.fieldLabels
		must(coreScheme.AddFieldLabelConversionFunc(gvk, func(label, value string) (string, string, error) {
			if label == "metadata.name" || label == "metadata.namespace" {
				return label, value, nil
			}
			for _, l := range allowed {
				if l == label {
					return label, value, nil
				}
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		}))
	}
	metav1.AddToGroupVersion(coreScheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Version: "v1"}
	coreScheme.AddUnversionedTypes(unversioned, &metav1.Status{}, &metav1.APIVersions{},
		&metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	must(coreScheme.SetVersionPriority(corev1.SchemeGroupVersion))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// kind describes one served core/v1 resource.
type kind struct {
	resource, singular, kind string
	shortNames               []string
	namespaced               bool
	newObj, newList          func() runtime.Object
	// nameIsLabel: the name must be a DNS label (namespaces), else a DNS subdomain.
	nameIsLabel bool
	// fieldLabels are the field selectors served beyond metadata.name and metadata.namespace.
	fieldLabels []string
	// fields adds the values of fieldLabels for obj.
	fields func(obj runtime.Object, set fields.Set)
	// prepareForCreate resets what a client may not set on create (the status).
	prepareForCreate func(obj runtime.Object)
	// keepStatus, when not nil, gives the kind a status subresource: an update of the main
	// resource keeps the stored status (keepStatus(new, old)) and an update of /status keeps
	// the stored spec (keepSpec(new, old)).
	keepStatus, keepSpec func(obj, old runtime.Object)
	// graceful, when not nil, decides the grace period of a delete (pods).
	graceful func(obj runtime.Object, options *metav1.DeleteOptions) bool
}

var kinds = []kind{
	{resource: "namespaces", shortNames: []string{"ns"}, singular: "namespace", kind: "Namespace", nameIsLabel: true,
		newObj: func() runtime.Object { return &corev1.Namespace{} }, newList: func() runtime.Object { return &corev1.NamespaceList{} },
		fieldLabels: []string{"status.phase"},
		fields: func(obj runtime.Object, set fields.Set) {
			set["status.phase"] = string(obj.(*corev1.Namespace).Status.Phase)
		},
		prepareForCreate: func(obj runtime.Object) {
			obj.(*corev1.Namespace).Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		},
		keepStatus: func(obj, old runtime.Object) {
			obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
		},
		keepSpec: func(obj, old runtime.Object) {
			obj.(*corev1.Namespace).Spec = old.(*corev1.Namespace).Spec
		}},
	{resource: "pods", shortNames: []string{"po"}, singular: "pod", kind: "Pod", namespaced: true,
		newObj: func() runtime.Object { return &corev1.Pod{} }, newList: func() runtime.Object { return &corev1.PodList{} },
		fieldLabels: []string{"spec.nodeName", "spec.serviceAccountName", "status.phase", "status.podIP"},
		fields: func(obj runtime.Object, set fields.Set) {
			pod := obj.(*corev1.Pod)
			set["spec.nodeName"] = pod.Spec.NodeName
			set["spec.serviceAccountName"] = pod.Spec.ServiceAccountName
			set["status.phase"] = string(pod.Status.Phase)
			set["status.podIP"] = pod.Status.PodIP
		},
		prepareForCreate: func(obj runtime.Object) {
			obj.(*corev1.Pod).Status = corev1.PodStatus{Phase: corev1.PodPending}
		},
		keepStatus: func(obj, old runtime.Object) {
			obj.(*corev1.Pod).Status = old.(*corev1.Pod).Status
		},
		keepSpec: func(obj, old runtime.Object) {
			pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
			pod.Spec = oldPod.Spec
			pod.OwnerReferences = oldPod.OwnerReferences
		},
		graceful: podGracefulDelete},
	{resource: "configmaps", shortNames: []string{"cm"}, singular: "configmap", kind: "ConfigMap", namespaced: true,
		newObj: func() runtime.Object { return &corev1.ConfigMap{} }, newList: func() runtime.Object { return &corev1.ConfigMapList{} }},
	{resource: "secrets", singular: "secret", kind: "Secret", namespaced: true,
		newObj: func() runtime.Object { return &corev1.Secret{} }, newList: func() runtime.Object { return &corev1.SecretList{} },
		fieldLabels: []string{"type"},
		fields: func(obj runtime.Object, set fields.Set) {
			set["type"] = string(obj.(*corev1.Secret).Type)
		},
		prepareForCreate: func(obj runtime.Object) {
			if s := obj.(*corev1.Secret); s.Type == "" {
				s.Type = corev1.SecretTypeOpaque
			}
		}},
	{resource: "services", shortNames: []string{"svc"}, singular: "service", kind: "Service", namespaced: true,
		newObj: func() runtime.Object { return &corev1.Service{} }, newList: func() runtime.Object { return &corev1.ServiceList{} },
		prepareForCreate: func(obj runtime.Object) {
			obj.(*corev1.Service).Status = corev1.ServiceStatus{}
		},
		keepStatus: func(obj, old runtime.Object) {
			obj.(*corev1.Service).Status = old.(*corev1.Service).Status
		},
		keepSpec: func(obj, old runtime.Object) {
			obj.(*corev1.Service).Spec = old.(*corev1.Service).Spec
		}},
	{resource: "serviceaccounts", shortNames: []string{"sa"}, singular: "serviceaccount", kind: "ServiceAccount", namespaced: true,
		newObj: func() runtime.Object { return &corev1.ServiceAccount{} }, newList: func() runtime.Object { return &corev1.ServiceAccountList{} }},
	{resource: "nodes", shortNames: []string{"no"}, singular: "node", kind: "Node",
		newObj: func() runtime.Object { return &corev1.Node{} }, newList: func() runtime.Object { return &corev1.NodeList{} },
		fieldLabels: []string{"spec.unschedulable"},
		fields: func(obj runtime.Object, set fields.Set) {
			set["spec.unschedulable"] = fmt.Sprint(obj.(*corev1.Node).Spec.Unschedulable)
		},
		keepStatus: func(obj, old runtime.Object) {
			obj.(*corev1.Node).Status = old.(*corev1.Node).Status
		},
		keepSpec: func(obj, old runtime.Object) {
			obj.(*corev1.Node).Spec = old.(*corev1.Node).Spec
		}},
	{resource: "events", shortNames: []string{"ev"}, singular: "event", kind: "Event", namespaced: true,
		newObj: func() runtime.Object { return &corev1.Event{} }, newList: func() runtime.Object { return &corev1.EventList{} },
		fieldLabels: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
			"involvedObject.uid", "reason", "type"},
		fields: func(obj runtime.Object, set fields.Set) {
			e := obj.(*corev1.Event)
			set["involvedObject.kind"] = e.InvolvedObject.Kind
			set["involvedObject.namespace"] = e.InvolvedObject.Namespace
			set["involvedObject.name"] = e.InvolvedObject.Name
			set["involvedObject.uid"] = string(e.InvolvedObject.UID)
			set["reason"] = e.Reason
			set["type"] = e.Type
		}},
}

// podGracefulDelete follows kube-apiserver's pod strategy: the grace period is the request's, or
// else the pod's terminationGracePeriodSeconds; a pod that is not bound to a node or has
// finished is deleted at once (still through an update setting deletionTimestamp, so watchers
// see MODIFIED, then DELETED).
func podGracefulDelete(obj runtime.Object, options *metav1.DeleteOptions) bool {
	if options == nil {
		return false
	}
	pod := obj.(*corev1.Pod)
	period := int64(0)
	if options.GracePeriodSeconds != nil {
		period = *options.GracePeriodSeconds
	} else if pod.Spec.TerminationGracePeriodSeconds != nil {
		period = *pod.Spec.TerminationGracePeriodSeconds
	} else {
		period = corev1.DefaultTerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	options.GracePeriodSeconds = &period
	return true
}

// strategy is the create, update and delete strategy of one kind; status selects the
// /status subresource's update rules.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	k      *kind
	status bool
}

func (s strategy) NamespaceScoped() bool { return s.k.namespaced }

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	if s.k.prepareForCreate != nil {
		s.k.prepareForCreate(obj)
	}
}

func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	switch {
	case s.status && s.k.keepSpec != nil:
		s.k.keepSpec(obj, old)
	case !s.status && s.k.keepStatus != nil:
		s.k.keepStatus(obj, old)
	}
}

func (s strategy) nameFunc() apimachineryvalidation.ValidateNameFunc {
	if s.k.nameIsLabel {
		return apimachineryvalidation.NameIsDNSLabel
	}
	return apimachineryvalidation.NameIsDNSSubdomain
}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	accessor, err := meta(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), err)}
	}
	return apimachineryvalidation.ValidateObjectMetaAccessor(accessor, s.k.namespaced, s.nameFunc(), field.NewPath("metadata"))
}

func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	accessor, err := meta(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), err)}
	}
	oldAccessor, err := meta(old)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), err)}
	}
	errs := apimachineryvalidation.ValidateObjectMetaAccessorUpdate(accessor, oldAccessor, field.NewPath("metadata"))
	return append(errs, s.Validate(ctx, obj)...)
}

func (s strategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string { return nil }
func (s strategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}
func (s strategy) Canonicalize(obj runtime.Object) {}
func (s strategy) AllowCreateOnUpdate() bool       { return false }
func (s strategy) AllowUnconditionalUpdate() bool  { return true }

// gracefulStrategy adds graceful deletion to a kind's strategy.
type gracefulStrategy struct{ strategy }

func (s gracefulStrategy) CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	return s.k.graceful(obj, options)
}

func meta(obj runtime.Object) (metav1.Object, error) {
	accessor, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", obj)
	}
	return accessor, nil
}

func (k *kind) attrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	accessor, err := meta(obj)
	if err != nil {
		return nil, nil, err
	}
	set := fields.Set{"metadata.name": accessor.GetName()}
	if k.namespaced {
		set["metadata.namespace"] = accessor.GetNamespace()
	}
	if k.fields != nil {
		k.fields(obj, set)
	}
	return labels.Set(accessor.GetLabels()), set, nil
}

// kindREST is a kind's store, with the short names kubectl resolves ("ns", "po", ...).
type kindREST struct {
	*genericregistry.Store
	k *kind
}

func (r *kindREST) ShortNames() []string { return r.k.shortNames }

// statusREST is the /status subresource: the kind's store with the status update strategy.
type statusREST struct{ store *genericregistry.Store }

func (r *statusREST) New() runtime.Object { return r.store.New() }
func (r *statusREST) Destroy()            {}
func (r *statusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}
func (r *statusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo,
	createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc,
	forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Subresources never create.
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}
func (r *statusREST) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

func coreAPIGroup(optsGetter generic.RESTOptionsGetter) (*genericapiserver.APIGroupInfo, error) {
	group := genericapiserver.NewDefaultAPIGroupInfo("", coreScheme, runtime.NewParameterCodec(coreScheme), coreCodecs)
	resources := map[string]rest.Storage{}
	for i := range kinds {
		k := &kinds[i]
		gr := corev1.Resource(k.resource)
		s := strategy{ObjectTyper: coreScheme, NameGenerator: names.SimpleNameGenerator, k: k}
		var deleteStrategy rest.RESTDeleteStrategy = s
		if k.graceful != nil {
			deleteStrategy = gracefulStrategy{s}
		}
		store := &genericregistry.Store{
			NewFunc:                   k.newObj,
			NewListFunc:               k.newList,
			DefaultQualifiedResource:  gr,
			SingularQualifiedResource: corev1.Resource(k.singular),
			CreateStrategy:            s,
			UpdateStrategy:            s,
			DeleteStrategy:            deleteStrategy,
			TableConvertor:            rest.NewDefaultTableConvertor(gr),
		}
		options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: k.attrs}
		if k.resource == "pods" {
			options.TriggerFunc = storage.IndexerFuncs{"spec.nodeName": func(obj runtime.Object) string {
				return obj.(*corev1.Pod).Spec.NodeName
			}}
		}
		if err := store.CompleteWithOptions(options); err != nil {
			return nil, fmt.Errorf("%s: %w", k.resource, err)
		}
		resources[k.resource] = &kindREST{Store: store, k: k}
		if k.keepStatus != nil {
			statusStore := *store
			statusStrategy := strategy{ObjectTyper: coreScheme, NameGenerator: names.SimpleNameGenerator, k: k, status: true}
			statusStore.UpdateStrategy = statusStrategy
			resources[k.resource+"/status"] = &statusREST{store: &statusStore}
		}
	}
	group.VersionedResourcesStorageMap[corev1.SchemeGroupVersion.Version] = resources
	return &group, nil
}

// coreOpenAPIDefinitions describes the meta types precisely (from the apiextensions server's
// generated definitions) and each served core/v1 kind loosely: typed metadata, every other
// field free-form. Server-side apply then treats spec and status as deduced (atomic-free)
// maps, and kubectl needs --validate=false.
func coreOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := apiextensionsopenapi.GetOpenAPIDefinitions(ref)
	objectMeta := metav1.ObjectMeta{}.OpenAPIModelName()
	listMeta := metav1.ListMeta{}.OpenAPIModelName()
	str := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}}
	for _, k := range kinds {
		name := openapiutil.GetCanonicalTypeName(k.newObj())
		listName := openapiutil.GetCanonicalTypeName(k.newList())
		defs[name] = common.OpenAPIDefinition{
			Schema: spec.Schema{
				SchemaProps: spec.SchemaProps{
					Description: k.kind + " (core/v1), described loosely by this test server",
					Type:        []string{"object"},
					Properties: map[string]spec.Schema{
						"apiVersion": str,
						"kind":       str,
						"metadata":   {SchemaProps: spec.SchemaProps{Ref: ref(objectMeta)}},
					},
				},
				VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
					"x-kubernetes-preserve-unknown-fields": true,
				}},
			},
			Dependencies: []string{objectMeta},
		}
		defs[listName] = common.OpenAPIDefinition{
			Schema: spec.Schema{
				SchemaProps: spec.SchemaProps{
					Type: []string{"object"},
					Properties: map[string]spec.Schema{
						"apiVersion": str,
						"kind":       str,
						"metadata":   {SchemaProps: spec.SchemaProps{Ref: ref(listMeta)}},
						"items": {SchemaProps: spec.SchemaProps{Type: []string{"array"},
							Items: &spec.SchemaOrArray{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Ref: ref(name)}}}}},
					},
					Required: []string{"items"},
				},
			},
			Dependencies: []string{listMeta, name},
		}
	}
	return defs
}
