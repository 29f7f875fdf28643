// Command crosscheck compares the definitions openapi-gen reflects with those kube-openapi's own
// generator wrote for k8s.io/apiextensions-apiserver (pkg/generated/openapi), which include the
// meta/v1 types, the autoscaling/v1 scale types and others: every definition both have must be
// equal, but for the "default" values kube-openapi adds and openapi-gen leaves out.
//
// Usage: crosscheck FILE.json.gz
package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"

	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// minCommon keeps the check from passing with nothing compared.
const minCommon = 30

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crosscheck FILE.json.gz")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(1)
	}
}

func run(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	var ours struct {
		Definitions map[string]interface{} `json:"definitions"`
	}
	if err := json.NewDecoder(zr).Decode(&ours); err != nil {
		return err
	}
	ref := func(path string) spec.Ref { return spec.MustCreateRef("#/definitions/" + path) }
	var names []string
	upstream := map[string]interface{}{}
	for name, d := range apiextensionsopenapi.GetOpenAPIDefinitions(ref) {
		if _, ok := ours.Definitions[name]; !ok {
			continue
		}
		s := d.Schema
		if v2, ok := d.Schema.Extensions[common.ExtensionV2Schema].(spec.Schema); ok {
			s = v2
		}
		raw, err := json.Marshal(s)
		if err != nil {
			return err
		}
		var generic interface{}
		if err := json.Unmarshal(raw, &generic); err != nil {
			return err
		}
		upstream[name] = normalize(generic)
		names = append(names, name)
	}
	sort.Strings(names)
	var differ []string
	for _, name := range names {
		if !reflect.DeepEqual(upstream[name], normalize(ours.Definitions[name])) {
			a, _ := json.MarshalIndent(upstream[name], "", " ")
			b, _ := json.MarshalIndent(normalize(ours.Definitions[name]), "", " ")
			fmt.Fprintf(os.Stderr, "%s differs\nkube-openapi:\n%s\nopenapi-gen:\n%s\n", name, a, b)
			differ = append(differ, name)
		}
	}
	if len(differ) > 0 {
		return fmt.Errorf("%d of %d definitions differ from kube-openapi's: %v", len(differ), len(names), differ)
	}
	if len(names) < minCommon {
		return fmt.Errorf("only %d definitions in common with kube-openapi's, expected at least %d", len(names), minCommon)
	}
	fmt.Fprintf(os.Stderr, "crosscheck: %d definitions equal kube-openapi's\n", len(names))
	return nil
}

// normalize drops what kube-openapi adds and openapi-gen does not: "default" values, and the
// x-kubernetes-group-version-kind of kinds (openapi-gen adds those from the scheme).
func normalize(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, e := range x {
			if k == "default" || k == "x-kubernetes-group-version-kind" {
				continue
			}
			out[k] = normalize(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}
