package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
)

func runtimeserializerCodecs() runtimeserializer.CodecFactory {
	return scheme.Codecs
}

// fixtureFuncs fill the types whose random values would not survive the API server: an
// IntOrString is an int or a string, an embedded object is JSON.
func fixtureFuncs() []any {
	return []any{
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
		func(v *runtime.RawExtension, c randfill.Continue) {
			v.Raw = []byte(`{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"v"}}`)
		},
	}
}
