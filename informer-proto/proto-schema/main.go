// Command proto-schema writes the protobuf schema of Kubernetes' built-in types, as the decoder of
// informer-proto reads it, from the Go struct tags of k8s.io/api and k8s.io/apimachinery: for
// every type registered in k8s.io/client-go/kubernetes/scheme and the closure of its fields, the
// field numbers and wire types (the protobuf tag, which go-to-protobuf generated the Go marshalling
// from) together with what the JSON encoding needs and the protobuf does not carry: the JSON name,
// omitempty and omitzero, whether the Go field is a pointer, and which embedded structs JSON inlines.
//
// With -fixtures it also writes, for every kind of the scheme, objects filled by randfill, each as
// its protobuf message and as the JSON the API server would write for it, for the differential test.
//
// Usage: proto-schema -schema FILE.json.gz [-fixtures FILE.json.gz] [-check]
// With -check nothing is written: the files are compared with what would be written and the
// command fails if they differ.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// Types whose protobuf and JSON encodings are written by hand rather than derived from their
// fields; the decoder knows each by its "special" name.
var specials = map[reflect.Type]string{
	reflect.TypeOf(metav1.Time{}):          "time",
	reflect.TypeOf(metav1.MicroTime{}):     "microtime",
	reflect.TypeOf(metav1.Duration{}):      "duration",
	reflect.TypeOf(intstr.IntOrString{}):   "intorstring",
	reflect.TypeOf(resource.Quantity{}):    "quantity",
	reflect.TypeOf(runtime.RawExtension{}): "rawextension",
	reflect.TypeOf(metav1.FieldsV1{}):      "fieldsv1",
}

// Field is one protobuf field of a message.
type Field struct {
	Number int    `json:"n"`
	Type   string `json:"type"`           // string bool int32 int64 bytes message map
	Name   string `json:"name"`           // the protobuf name
	JSON   string `json:"json,omitempty"` // the JSON name; empty for an inlined struct
	Inline bool   `json:"inline,omitempty"`
	Rep    bool   `json:"rep,omitempty"` // repeated (a Go slice)
	Ptr    bool   `json:"ptr,omitempty"` // a Go pointer: written only when not nil
	// A Go slice or map is null in JSON when nil; a pointer is null when nil.
	OmitEmpty bool   `json:"omitempty,omitempty"`
	OmitZero  bool   `json:"omitzero,omitempty"`
	Message   string `json:"msg,omitempty"` // the message type of a message field, or of a map's values
	MapKey    string `json:"key,omitempty"` // the scalar type of a map's keys
	MapVal    string `json:"val,omitempty"` // the type of a map's values
}

// Message is one protobuf message. Special names a hand-written encoding; Items marks a Go named
// slice type, a message whose repeated field 1 is the value (a JSON array).
type Message struct {
	Special string  `json:"special,omitempty"`
	Items   bool    `json:"items,omitempty"`
	Fields  []Field `json:"fields,omitempty"`
}

// Kind maps a group/version/kind of the scheme to its message.
type Kind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	Message string `json:"msg"`
}

// Schema is the file written.
type Schema struct {
	Comment  string              `json:"comment"`
	Kinds    []Kind              `json:"kinds"`
	Messages map[string]*Message `json:"messages"`
}

type generator struct {
	src        string // the GOPATH src directory with the generated.proto files
	messages   map[string]*Message
	protoFiles map[string]map[string]map[string]protoField
	errs       []string
}

func protoName(t reflect.Type) string {
	return strings.ReplaceAll(t.PkgPath(), "/", ".") + "." + t.Name()
}

func (g *generator) fail(format string, args ...any) {
	g.errs = append(g.errs, fmt.Sprintf(format, args...))
}

var jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

func buildSchema(src string) (*Schema, error) {
	g := &generator{src: src, messages: map[string]*Message{}, protoFiles: map[string]map[string]map[string]protoField{}}
	var kinds []Kind
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || t.PkgPath() == "k8s.io/apimachinery/pkg/apis/meta/v1" ||
			strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/") {
			continue // the meta types (options, WatchEvent, Status) registered in every group
		}
		kinds = append(kinds, Kind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Message: g.message(t)})
	}
	// Status and WatchEvent frame the protobuf responses of every group.
	g.message(reflect.TypeOf(metav1.Status{}))
	g.message(reflect.TypeOf(metav1.WatchEvent{}))
	sort.Slice(kinds, func(i, j int) bool {
		a, b := kinds[i], kinds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	if len(g.errs) > 0 {
		sort.Strings(g.errs)
		return nil, fmt.Errorf("the Go types do not map onto the schema:\n  %s", strings.Join(g.errs, "\n  "))
	}
	return &Schema{
		Comment: "Generated by informer-proto/proto-schema/gen.sh from the Go struct tags of " +
			"k8s.io/api and k8s.io/apimachinery; do not edit.",
		Kinds:    kinds,
		Messages: g.messages,
	}, nil
}

// Fixture is one object of a kind: its protobuf message (base64) and the JSON of the same object.
type Fixture struct {
	Group    string          `json:"group"`
	Version  string          `json:"version"`
	Kind     string          `json:"kind"`
	Message  string          `json:"msg"`
	Protobuf string          `json:"protobuf"`
	JSON     json.RawMessage `json:"json"`
}

type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

func buildFixtures(kinds []Kind, perKind int) ([]Fixture, error) {
	codecs := runtimeserializerCodecs()
	var out []Fixture
	for i, k := range kinds {
		if strings.HasSuffix(k.Kind, "List") {
			continue // a list's items are the messages of its kind, which have their own fixtures
		}
		gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
		f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(int64(i+1)), codecs).
			NilChance(.2).NumElements(1, 1).MaxDepth(10).Funcs(fixtureFuncs()...)
		// perKind filled objects, then the empty one: every field at its zero value.
		for j := 0; j <= perKind; j++ {
			obj, err := scheme.Scheme.New(gvk)
			if err != nil {
				return nil, err
			}
			if j < perKind {
				f.Fill(obj)
			}
			pm, ok := obj.(protoMessage)
			if !ok {
				return nil, fmt.Errorf("%v: not a protobuf message", gvk)
			}
			pb, err := pm.Marshal()
			if err != nil {
				return nil, fmt.Errorf("%v: %w", gvk, err)
			}
			// What the server writes is decoded from its protobuf storage: nil and empty slices
			// and maps are alike, zero times are dropped, so the JSON is of the object read back.
			back, _ := scheme.Scheme.New(gvk)
			if err := back.(protoMessage).Unmarshal(pb); err != nil {
				return nil, fmt.Errorf("%v: reading back: %w", gvk, err)
			}
			js, err := json.Marshal(back)
			if err != nil {
				return nil, fmt.Errorf("%v: %w", gvk, err)
			}
			out = append(out, Fixture{Group: k.Group, Version: k.Version, Kind: k.Kind, Message: k.Message,
				Protobuf: base64.StdEncoding.EncodeToString(pb), JSON: js})
		}
	}
	return out, nil
}

func gzipJSON(v any) ([]byte, error) {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// emit writes data to path, or with check compares the uncompressed contents.
func emit(path string, data []byte, check bool) error {
	if !check {
		return os.WriteFile(path, data, 0o644)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	a, err := gunzip(old)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	b, _ := gunzip(data)
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%s is out of date: run informer-proto/proto-schema/gen.sh", path)
	}
	return nil
}

func main() {
	schemaOut := flag.String("schema", "", "the schema file to write (.json.gz)")
	fixturesOut := flag.String("fixtures", "", "the differential fixtures file to write (.json.gz)")
	perKind := flag.Int("per-kind", 2, "fixture objects per kind")
	srcDir := flag.String("src", "", "the GOPATH src directory with k8s.io/api and k8s.io/apimachinery")
	check := flag.Bool("check", false, "compare with the files instead of writing them")
	flag.Parse()
	if *schemaOut == "" {
		fmt.Fprintln(os.Stderr, "usage: proto-schema -schema FILE.json.gz [-fixtures FILE.json.gz] [-check]")
		os.Exit(2)
	}
	s, err := buildSchema(*srcDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proto-schema:", err)
		os.Exit(1)
	}
	data, err := gzipJSON(s)
	if err == nil {
		err = emit(*schemaOut, data, *check)
	}
	if err == nil && *fixturesOut != "" {
		var fx []Fixture
		fx, err = buildFixtures(s.Kinds, *perKind)
		if err == nil {
			data, err = gzipJSON(fx)
		}
		if err == nil {
			err = emit(*fixturesOut, data, *check)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proto-schema:", err)
		os.Exit(1)
	}
}
