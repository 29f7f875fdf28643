package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// protoField is one field of a message of a generated.proto file.
type protoField struct {
	label, typ, key, val string // label: optional, repeated or map
	number               int
}

var (
	protoFieldRe = regexp.MustCompile(`^(optional|repeated) +([.\w]+) +(\w+) *= *(\d+) *;$`)
	protoMapRe   = regexp.MustCompile(`^map<(\w+), *([.\w]+)> +(\w+) *= *(\d+) *;$`)
)

// protoMessages reads the generated.proto of a Go package: message name → field name → field.
func (g *generator) protoMessages(pkg string) map[string]map[string]protoField {
	if m, ok := g.protoFiles[pkg]; ok {
		return m
	}
	out := map[string]map[string]protoField{}
	g.protoFiles[pkg] = out
	path := filepath.Join(g.src, pkg, "generated.proto")
	data, err := os.ReadFile(path)
	if err != nil {
		g.fail("%s: %v", pkg, err)
		return out
	}
	protoPkg := ""
	inComment := false
	var cur map[string]protoField
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if inComment {
			inComment = !strings.Contains(line, "*/")
			continue
		}
		if strings.HasPrefix(line, "/*") {
			inComment = !strings.Contains(line, "*/")
			continue
		}
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		qualify := func(t string) string {
			if strings.HasPrefix(t, ".") {
				return t[1:]
			}
			if t[0] >= 'A' && t[0] <= 'Z' {
				return protoPkg + "." + t
			}
			return t
		}
		switch {
		case strings.HasPrefix(line, "package "):
			protoPkg = strings.TrimSuffix(strings.TrimPrefix(line, "package "), ";")
		case strings.HasPrefix(line, "message ") && strings.HasSuffix(line, "{"):
			cur = map[string]protoField{}
			out[protoPkg+"."+strings.Fields(line)[1]] = cur
		case line == "}":
			cur = nil
		case cur != nil && line != "":
			if m := protoFieldRe.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[4])
				cur[m[3]] = protoField{label: m[1], typ: qualify(m[2]), number: n}
			} else if m := protoMapRe.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[4])
				cur[m[3]] = protoField{label: "map", key: m[1], val: qualify(m[2]), number: n}
			} else {
				g.fail("%s: line %q is not understood", path, line)
			}
		}
	}
	return out
}

// message adds the message of a struct (or named slice) type and of its fields, and returns its
// name. Field numbers and types come from the package's generated.proto, which the generated Go
// marshalling is made from; the Go field is found by the protobuf name in its struct tag, since
// the tags' wire types and labels are not always what go-to-protobuf wrote.
func (g *generator) message(t reflect.Type) string {
	name := protoName(t)
	if _, ok := g.messages[name]; ok {
		return name
	}
	if s, ok := specials[t]; ok {
		g.messages[name] = &Message{Special: s}
		return name
	}
	m := &Message{}
	g.messages[name] = m
	pm, ok := g.protoMessages(t.PkgPath())[name]
	if !ok {
		g.fail("%s: not in %s/generated.proto", name, t.PkgPath())
		return name
	}
	if t.Kind() == reflect.Slice {
		m.Items = true
		f := Field{Number: 1, Name: "items", JSON: "items"}
		g.typed(&f, pm["items"], t, name+".items")
		m.Fields = []Field{f}
		return name
	}
	if t.Kind() != reflect.Struct {
		g.fail("%s: a message type must be a struct or a slice, is %s", name, t.Kind())
		return name
	}
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		g.fail("%s: has its own MarshalJSON and is not among the special types", name)
	}
	matched := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		where := name + "." + sf.Name
		jsonTag, hasJSON := sf.Tag.Lookup("json")
		pbTag, hasPB := sf.Tag.Lookup("protobuf")
		jsonName, jsonOpts, _ := strings.Cut(jsonTag, ",")
		if jsonName == "-" && jsonOpts == "" {
			if hasPB {
				g.fail("%s: in protobuf but not in JSON", where)
			}
			continue
		}
		if !hasPB {
			// TypeMeta: kind and apiVersion come from the envelope, not from the message.
			if sf.Anonymous && sf.Type == reflect.TypeOf(metav1.TypeMeta{}) || !sf.IsExported() {
				continue
			}
			g.fail("%s: in JSON but has no protobuf tag", where)
			continue
		}
		f := Field{}
		for _, p := range strings.Split(pbTag, ",") {
			if v, ok := strings.CutPrefix(p, "name="); ok {
				f.Name = v
			}
		}
		if f.Name == "" { // go-to-protobuf's default: the Go name, lower camel case
			f.Name = strings.ToLower(sf.Name[:1]) + sf.Name[1:]
		}
		pf, ok := pm[f.Name]
		if !ok {
			g.fail("%s: protobuf name %q is not a field of the message", where, f.Name)
			continue
		}
		matched[f.Name] = true
		f.Number = pf.number
		for _, o := range strings.Split(jsonOpts, ",") {
			switch o {
			case "omitempty":
				f.OmitEmpty = true
			case "omitzero":
				f.OmitZero = true
			case "inline", "":
			default:
				g.fail("%s: json option %q is not supported", where, o)
			}
		}
		switch {
		case !hasJSON && sf.Anonymous, jsonName == "" && sf.Anonymous,
			strings.Contains(","+jsonOpts+",", ",inline,"):
			f.Inline = true
		case jsonName == "":
			f.JSON = sf.Name
		default:
			f.JSON = jsonName
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.Ptr = true
			ft = ft.Elem()
		}
		if f.Inline && (ft.Kind() != reflect.Struct || f.Ptr) {
			g.fail("%s: inlined field is not a struct", where)
		}
		g.typed(&f, pf, ft, where)
		m.Fields = append(m.Fields, f)
	}
	for pname := range pm {
		if !matched[pname] {
			g.fail("%s: protobuf field %q has no Go field", name, pname)
		}
	}
	sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Number < m.Fields[j].Number })
	return name
}

// typed sets the type of f from the protobuf field pf, checked against the Go type t.
func (g *generator) typed(f *Field, pf protoField, t reflect.Type, where string) {
	switch pf.label {
	case "map":
		if t.Kind() != reflect.Map {
			g.fail("%s: a protobuf map, but Go %s", where, t)
			return
		}
		f.Type = "map"
		var none string
		g.scalarOrMessage(&f.MapKey, &none, pf.key, t.Key(), where+" key")
		g.scalarOrMessage(&f.MapVal, &f.Message, pf.val, t.Elem(), where+" value")
	case "repeated":
		f.Rep = true
		if t.Kind() != reflect.Slice {
			g.fail("%s: repeated, but Go %s", where, t)
			return
		}
		g.scalarOrMessage(&f.Type, &f.Message, pf.typ, t.Elem(), where)
	case "optional":
		g.scalarOrMessage(&f.Type, &f.Message, pf.typ, t, where)
	default:
		g.fail("%s: no protobuf field", where)
	}
}

var goKinds = map[string][]reflect.Kind{
	"string": {reflect.String}, "bool": {reflect.Bool}, "int32": {reflect.Int32},
	"int64": {reflect.Int64, reflect.Int}, "bytes": {reflect.Slice},
}

// scalarOrMessage sets *typ (and *msg for a message) from the protobuf type pt of a Go value of type t.
func (g *generator) scalarOrMessage(typ, msg *string, pt string, t reflect.Type, where string) {
	if t.Kind() == reflect.Pointer {
		g.fail("%s: pointer inside a slice or map", where)
		t = t.Elem()
	}
	if kinds, scalar := goKinds[pt]; scalar {
		*typ = pt
		if pt == "bytes" && (t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Uint8) ||
			pt != "bytes" && !slices.Contains(kinds, t.Kind()) {
			g.fail("%s: protobuf %s, but Go %s", where, pt, t)
		}
		if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
			g.fail("%s: %s has its own MarshalJSON", where, t)
		}
		return
	}
	if !strings.Contains(pt, ".") {
		g.fail("%s: protobuf type %s is not supported", where, pt)
		return
	}
	if t.Kind() != reflect.Struct && t.Kind() != reflect.Slice {
		g.fail("%s: protobuf message %s, but Go %s", where, pt, t)
		return
	}
	*typ = "message"
	*msg = g.message(t)
	if *msg != pt {
		g.fail("%s: protobuf message %s, but Go %s", where, pt, *msg)
	}
}
