// Command openapi-gen writes the OpenAPI definitions of every kind registered in client-go's
// kubernetes scheme (k8s.io/client-go/kubernetes/scheme), and of every type they reach, as the
// embedded API server of informer-testing serves them at /openapi/v2 and /openapi/v3.
//
// The schemas are reflected from the Go types of k8s.io/api and k8s.io/apimachinery: JSON names
// and omitempty from the json tags, patch strategies from the patchStrategy and patchMergeKey
// tags, and descriptions, +optional, +listType, +listMapKey, +mapType, +structType and +enum
// from the doc comments of the sources, read with go/parser and go/doc. Definitions are named as
// kube-apiserver names them (OpenAPIModelName, else the reversed package path), and every kind
// carries its x-kubernetes-group-version-kind.
//
// Usage: openapi-gen -src GOPATH_SRC_DIR -out FILE.json.gz
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// generatorVersion changes whenever the output of the same sources changes.
const generatorVersion = "kinformer-openapi-gen/1"

// sourceVersion names the k8s.io/api release the definitions are generated from.
const sourceVersion = "k8s.io/api v0.36.4"

type obj = map[string]interface{}

// fset positions every parsed source file.
var fset = token.NewFileSet()

type fieldDoc struct {
	doc string
}

type typeDoc struct {
	doc     string // the description
	markers string // the generator marker lines of the doc comment
	fields  map[string]fieldDoc
	consts  []string // for +enum types: the constant values, sorted
	// enumLines describe the constants as kube-openapi appends them to a field's description.
	enumLines []string
}

type generator struct {
	src       string
	pkgs      map[string]map[string]*typeDoc // package path -> type name -> docs
	defs      map[string]obj                 // definition name -> v2 schema
	v3        map[string]obj                 // definition name -> v3 schema, where it differs
	gvks      map[string][]obj
	inProcess map[string]bool
}

func main() {
	src := flag.String("src", "", "the GOPATH src directory holding k8s.io/api and k8s.io/apimachinery")
	out := flag.String("out", "", "the .json.gz file to write")
	flag.Parse()
	if *src == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: openapi-gen -src DIR -out FILE.json.gz")
		os.Exit(2)
	}
	g := &generator{src: *src, pkgs: map[string]map[string]*typeDoc{},
		defs: map[string]obj{}, v3: map[string]obj{}, gvks: map[string][]obj{},
		inProcess: map[string]bool{}}
	if err := g.run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-gen:", err)
		os.Exit(1)
	}
}

// optionKinds are registered in every group version as query parameter types; kube-apiserver
// publishes no definition for them.
func isOptionKind(kind string) bool {
	return strings.HasSuffix(kind, "Options") && kind != "DeleteOptions"
}

func (g *generator) run(out string) error {
	known := scheme.Scheme.AllKnownTypes()
	var gvks []schema.GroupVersionKind
	for gvk := range known {
		if gvk.Version == runtime.APIVersionInternal || isOptionKind(gvk.Kind) {
			continue
		}
		gvks = append(gvks, gvk)
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	for _, gvk := range gvks {
		t := known[gvk]
		name, err := g.ref(t)
		if err != nil {
			return fmt.Errorf("%s: %w", gvk, err)
		}
		g.gvks[name] = append(g.gvks[name],
			obj{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
	}
	// The body of every PATCH operation, referenced by the paths; not a kind.
	if _, err := g.ref(reflect.TypeOf(metav1.Patch{})); err != nil {
		return err
	}
	for name, list := range g.gvks {
		sort.Slice(list, func(i, j int) bool {
			a, b := list[i], list[j]
			for _, k := range []string{"group", "version", "kind"} {
				if a[k].(string) != b[k].(string) {
					return a[k].(string) < b[k].(string)
				}
			}
			return false
		})
		g.defs[name]["x-kubernetes-group-version-kind"] = list
		if s, ok := g.v3[name]; ok {
			s["x-kubernetes-group-version-kind"] = list
		}
	}
	doc := obj{
		"generator":     generatorVersion,
		"source":        sourceVersion,
		"definitions":   g.defs,
		"definitionsV3": g.v3,
	}
	raw, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(append(raw, '\n')); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// definitionName is the name kube-apiserver gives the definition of t.
func definitionName(t reflect.Type) string {
	if n, ok := reflect.Zero(t).Interface().(interface{ OpenAPIModelName() string }); ok {
		return n.OpenAPIModelName()
	}
	parts := strings.Split(t.PkgPath()+"."+t.Name(), "/")
	if strings.Contains(parts[0], ".") {
		d := strings.Split(parts[0], ".")
		for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
			d[i], d[j] = d[j], d[i]
		}
		parts[0] = strings.Join(d, ".")
	}
	return strings.Join(parts, ".")
}

// ref makes sure t (a named struct, or a type with its own OpenAPI type) has a definition and
// returns its name.
func (g *generator) ref(t reflect.Type) (string, error) {
	for t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	name := definitionName(t)
	if _, ok := g.defs[name]; ok || g.inProcess[name] {
		return name, nil
	}
	g.inProcess[name] = true
	defer delete(g.inProcess, name)
	td := g.typeDoc(t)
	s := obj{}
	if td.doc != "" {
		s["description"] = td.doc
	}
	zero := reflect.New(t).Elem().Interface()
	if st, ok := zero.(interface{ OpenAPISchemaType() []string }); ok {
		s["type"] = st.OpenAPISchemaType()[0]
		if f, ok := zero.(interface{ OpenAPISchemaFormat() string }); ok && f.OpenAPISchemaFormat() != "" {
			s["format"] = f.OpenAPISchemaFormat()
		}
		if one, ok := zero.(interface{ OpenAPIV3OneOfTypes() []string }); ok {
			v3 := obj{}
			if td.doc != "" {
				v3["description"] = td.doc
			}
			var alts []interface{}
			for _, typ := range one.OpenAPIV3OneOfTypes() {
				alts = append(alts, obj{"type": typ})
			}
			v3["oneOf"] = alts
			if f, ok := s["format"]; ok {
				v3["format"] = f
			}
			if name == "io.k8s.apimachinery.pkg.util.intstr.IntOrString" {
				v3["x-kubernetes-int-or-string"] = true
			}
			g.v3[name] = v3
		}
		g.defs[name] = s
		return name, nil
	}
	if t.Kind() != reflect.Struct {
		return "", fmt.Errorf("%s is not a struct", t)
	}
	s["type"] = "object"
	props := obj{}
	var required []string
	if err := g.fields(t, td, props, &required); err != nil {
		return "", err
	}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required // in field order, as kube-openapi lists them
	}
	for k, v := range markers(td.markers, true) {
		s[k] = v
	}
	g.defs[name] = s
	return name, nil
}

// fields adds the JSON properties of struct t (with inlined embedded structs) to props.
func (g *generator) fields(t reflect.Type, td *typeDoc, props obj, required *[]string) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		parts := strings.Split(tag, ",")
		jsonName := parts[0]
		inline := false
		omit := false
		for _, p := range parts[1:] {
			switch p {
			case "inline":
				inline = true
			case "omitempty", "omitzero":
				omit = true
			}
		}
		ft := f.Type
		for ft.Kind() == reflect.Ptr {
			ft = ft.Elem()
		}
		if f.Anonymous && jsonName == "" && ft.Kind() == reflect.Struct {
			inline = true
		}
		if inline {
			if err := g.fields(ft, g.typeDoc(ft), props, required); err != nil {
				return err
			}
			continue
		}
		if jsonName == "" {
			jsonName = f.Name
		}
		fd := td.fields[f.Name]
		raw := fd.doc
		if et := derefNamed(f.Type); et != nil {
			if lines := g.typeDoc(et).enumLines; len(lines) > 0 {
				raw = strings.TrimRight(raw, "\n") + "\n\nPossible enum values:\n" + strings.Join(lines, "\n")
			}
		}
		fs, err := g.schema(f.Type)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		if d := description(raw); d != "" {
			fs["description"] = d
		}
		for k, v := range markers(raw, false) {
			fs[k] = v
		}
		if ps := f.Tag.Get("patchStrategy"); ps != "" {
			fs["x-kubernetes-patch-strategy"] = ps
		}
		if pk := f.Tag.Get("patchMergeKey"); pk != "" {
			fs["x-kubernetes-patch-merge-key"] = pk
		}
		props[jsonName] = fs
		if hasMarker(raw, "+required") || !omit && !hasMarker(raw, "+optional") {
			*required = append(*required, jsonName)
		}
	}
	return nil
}

// schema is the schema of a field of type t: a $ref for named structs, else inline.
func (g *generator) schema(t reflect.Type) (obj, error) {
	for t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	if t.PkgPath() != "" && t.Name() != "" {
		zero := reflect.New(t).Elem().Interface()
		_, own := zero.(interface{ OpenAPISchemaType() []string })
		if own || t.Kind() == reflect.Struct {
			name, err := g.ref(t)
			if err != nil {
				return nil, err
			}
			return obj{"$ref": "#/definitions/" + name}, nil
		}
	}
	s := obj{}
	switch t.Kind() {
	case reflect.String:
		s["type"] = "string"
	case reflect.Bool:
		s["type"] = "boolean"
	case reflect.Int, reflect.Int32, reflect.Int16, reflect.Int8, reflect.Uint16, reflect.Uint8:
		s["type"] = "integer"
		s["format"] = "int32"
	case reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Uint:
		s["type"] = "integer"
		s["format"] = "int64"
	case reflect.Float32:
		s["type"] = "number"
		s["format"] = "float"
	case reflect.Float64:
		s["type"] = "number"
		s["format"] = "double"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			s["type"] = "string"
			s["format"] = "byte"
			break
		}
		items, err := g.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		s["type"] = "array"
		s["items"] = items
	case reflect.Map:
		v, err := g.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		s["type"] = "object"
		s["additionalProperties"] = v
	case reflect.Interface:
		s["x-kubernetes-preserve-unknown-fields"] = true
	default:
		return nil, fmt.Errorf("unsupported type %s", t)
	}
	if t.PkgPath() != "" && t.Name() != "" {
		td := g.typeDoc(t)
		if len(td.consts) > 0 {
			var e []interface{}
			for _, c := range td.consts {
				e = append(e, c)
			}
			s["enum"] = e
		}
		for k, v := range markers(td.markers, false) {
			s[k] = v
		}
	}
	return s, nil
}

// typeDoc reads (once per package) the documentation of the named type t from its sources.
func (g *generator) typeDoc(t reflect.Type) *typeDoc {
	pkg := t.PkgPath()
	types, ok := g.pkgs[pkg]
	if !ok {
		types = g.parse(pkg)
		g.pkgs[pkg] = types
	}
	if td, ok := types[t.Name()]; ok {
		return td
	}
	return &typeDoc{fields: map[string]fieldDoc{}}
}

func (g *generator) parse(pkg string) map[string]*typeDoc {
	out := map[string]*typeDoc{}
	dir := filepath.Join(g.src, filepath.FromSlash(pkg))
	parsed, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		fmt.Fprintf(os.Stderr, "openapi-gen: reading %s: %v\n", dir, err)
		os.Exit(1)
	}
	var names []string
	for n := range parsed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasSuffix(n, "_test") {
			continue
		}
		d := doc.New(parsed[n], pkg, doc.AllDecls|doc.PreserveAST)
		for _, dt := range d.Types {
			td := &typeDoc{fields: map[string]fieldDoc{}}
			raw := dt.Doc
			// Markers may sit in a comment group of their own above the doc comment.
			for _, spec := range dt.Decl.Specs {
				ts := spec.(*ast.TypeSpec)
				if ts.Name.Name != dt.Name {
					continue
				}
				if ts.Doc != nil && raw == "" {
					raw = ts.Doc.Text()
				}
				raw = leadingMarkers(parsed[n], dt.Decl) + raw
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, f := range st.Fields.List {
						text := ""
						if f.Doc != nil {
							text = f.Doc.Text()
						}
						if len(f.Names) == 0 {
							td.fields[embeddedName(f.Type)] = fieldDoc{doc: text}
						}
						for _, fn := range f.Names {
							td.fields[fn.Name] = fieldDoc{doc: text}
						}
					}
				}
			}
			td.doc = description(raw)
			td.markers = markerText(raw)
			if hasMarker(raw, "+enum") {
				described := map[string]string{}
				for _, c := range dt.Consts {
					for _, spec := range c.Decl.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, v := range vs.Values {
							lit, ok := v.(*ast.BasicLit)
							if !ok || lit.Kind != token.STRING || i >= len(vs.Names) {
								continue
							}
							value, err := strconv.Unquote(lit.Value)
							if err != nil {
								continue
							}
							comment := ""
							if vs.Doc != nil {
								comment = vs.Doc.Text()
							}
							td.consts = append(td.consts, value)
							described[value] = enumValueLine(vs.Names[i].Name, value, comment)
						}
					}
				}
				sort.Strings(td.consts)
				for _, v := range td.consts {
					td.enumLines = append(td.enumLines, described[v])
				}
			}
			out[dt.Name] = td
		}
	}
	return out
}

// leadingMarkers returns the marker lines of a comment group that ends at most one line above
// decl's doc comment (or decl), where +enum and +structType often stand apart from the doc.
func leadingMarkers(p *ast.Package, decl *ast.GenDecl) string {
	top := decl.Pos()
	if decl.Doc != nil {
		top = decl.Doc.Pos()
	}
	var b strings.Builder
	for _, f := range p.Files {
		if decl.Pos() < f.Pos() || decl.Pos() >= f.End() {
			continue
		}
		for _, cg := range f.Comments {
			if cg == decl.Doc || cg.End() >= top {
				continue
			}
			if fset.Position(cg.End()).Line+2 >= fset.Position(top).Line {
				b.WriteString(markerText(cg.Text()))
			}
		}
	}
	return b.String()
}

func markerText(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "+") {
			b.WriteString(strings.TrimSpace(l) + "\n")
		}
	}
	return b.String()
}

// derefNamed is the named non-struct type of a field (through pointers), or nil.
func derefNamed(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	if t.PkgPath() == "" || t.Name() == "" || t.Kind() == reflect.Struct {
		return nil
	}
	return t
}

var whitespace = regexp.MustCompile(`\s+`)

// enumValueLine describes one constant of an +enum type as kube-openapi does: its quoted value
// and its doc comment without the constant's name, on one line.
func enumValueLine(name, value, comment string) string {
	comment = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(comment), name))
	comment = whitespace.ReplaceAllString(comment, " ")
	return fmt.Sprintf(" - `%q` %s", value, comment)
}

func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// description formats a doc comment as kube-openapi does: generator markers and one-line TODOs
// dropped, everything after "---" ignored, lines joined into paragraphs, indented lines kept.
func description(raw string) string {
	raw = strings.Split(raw, "---")[0]
	var b strings.Builder
	trimLast := func() {
		s := b.String()
		if len(s) > 0 {
			b.Reset()
			b.WriteString(s[:len(s)-1])
		}
	}
	for _, line := range strings.Split(raw, "\n") {
		line = strings.TrimRight(line, " ")
		leading := strings.TrimLeft(line, " ")
		switch {
		case len(line) == 0:
			trimLast()
			b.WriteString("\n\n")
		case strings.HasPrefix(leading, "TODO"):
		case strings.HasPrefix(leading, "+"):
		default:
			if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
				trimLast()
				line = "\n" + line + "\n"
			} else {
				line += " "
			}
			b.WriteString(line)
		}
	}
	return strings.TrimSpace(b.String())
}

func hasMarker(raw, marker string) bool {
	for _, l := range strings.Split(raw, "\n") {
		l = strings.TrimSpace(l)
		if l == marker || strings.HasPrefix(l, marker+"=") {
			return true
		}
	}
	return false
}

// markers turns the +listType, +listMapKey, +mapType and +structType markers into their
// x-kubernetes-* extensions (structType only on a type's own definition).
func markers(raw string, typeLevel bool) obj {
	out := obj{}
	var keys []interface{}
	for _, l := range strings.Split(raw, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "+") {
			continue
		}
		kv := strings.SplitN(l[1:], "=", 2)
		if len(kv) != 2 {
			continue
		}
		switch kv[0] {
		case "listType":
			out["x-kubernetes-list-type"] = kv[1]
		case "listMapKey":
			keys = append(keys, kv[1])
		case "mapType":
			out["x-kubernetes-map-type"] = kv[1]
		case "structType":
			if typeLevel {
				out["x-kubernetes-map-type"] = kv[1]
			}
		}
	}
	if len(keys) > 0 {
		out["x-kubernetes-list-map-keys"] = keys
	}
	return out
}
