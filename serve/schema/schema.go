package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Schema is the subset of JSON Schema this project generates.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Default              any                `json:"default,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	// AnyOf lists the forms a value may take (a [StringList]: one string or
	// an array of them).
	AnyOf []*Schema `json:"anyOf,omitempty"`
	// Nullable adds "null" to Type: an output field that is a pointer
	// without omitempty is sent as null when unset (a last page's next).
	Nullable bool `json:"-"`
}

// MarshalJSON writes Type as ["type","null"] when the schema is nullable
// (JSON Schema 2020-12, OpenAPI 3.1).
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	if !s.Nullable || s.Type == "" {
		return json.Marshal((*plain)(s))
	}
	return json.Marshal(struct {
		Type []string `json:"type"`
		*plain
	}{[]string{s.Type, "null"}, (*plain)(s)})
}

// Where says where an HTTP request carries a parameter.
type Where string

const (
	InPath  Where = "path"
	InQuery Where = "query"
	InBody  Where = "body"
)

// Field is one input parameter.
type Field struct {
	Name     string
	In       Where // "" means the endpoint's default (query for GET, body otherwise)
	Required bool
	Schema   *Schema
	index    []int
	kind     reflect.Kind
	elem     reflect.Kind // for slices
	pattern  *regexp.Regexp
	typ      reflect.Type
	// list is the array form of a slice field: Schema itself, or the
	// array branch of a StringList's anyOf.
	list *Schema
}

// StringList is an input field that takes one string or an array of
// strings. Its schema is anyOf a string and an array of strings; the enum,
// pattern, minLength and maxLength tags apply to each string and minItems
// and maxItems to the array (a single string counts as one item).
type StringList []string

var stringListType = reflect.TypeOf(StringList(nil))

// Input describes an input struct type.
type Input struct {
	Type   reflect.Type
	Fields []*Field
	byName map[string]*Field
}

var cache sync.Map // reflect.Type → *Input

// InputOf returns the description of the struct type of v (a struct or a
// pointer to one). It panics on a malformed tag: that is a programming error
// found by any test that builds the registry.
func InputOf(v any) *Input {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if in, ok := cache.Load(t); ok {
		return in.(*Input)
	}
	in, err := describe(t)
	if err != nil {
		panic(fmt.Sprintf("schema: %v: %v", t, err))
	}
	actual, _ := cache.LoadOrStore(t, in)
	return actual.(*Input)
}

// Field returns the field with the given JSON name, or nil.
func (in *Input) Field(name string) *Field { return in.byName[name] }

// Object returns the JSON Schema of the whole input, for MCP and request
// bodies. Fields in exclude (usually path parameters) are left out.
func (in *Input) Object(exclude ...Where) *Schema {
	s := &Schema{Type: "object", Properties: map[string]*Schema{}, AdditionalProperties: false}
	for _, f := range in.Fields {
		if contains(exclude, f.In) {
			continue
		}
		s.Properties[f.Name] = f.Schema
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

func contains(ws []Where, w Where) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func describe(t reflect.Type) (*Input, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("input must be a struct")
	}
	in := &Input{Type: t, byName: map[string]*Field{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := &Field{
			Name:     name,
			In:       Where(sf.Tag.Get("in")),
			Required: !strings.Contains(","+opts+",", ",omitempty,") && sf.Type.Kind() != reflect.Pointer,
			index:    sf.Index,
			typ:      sf.Type,
		}
		switch f.In {
		case "", InPath, InQuery, InBody:
		default:
			return nil, fmt.Errorf("field %s: bad in tag %q", name, f.In)
		}
		if f.In == InPath {
			f.Required = true
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		f.kind = ft.Kind()
		s, err := fieldSchema(sf, ft)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		if ft.Kind() == reflect.Slice {
			f.elem = ft.Elem().Kind()
			f.list = s
		}
		for _, p := range []*Schema{s, s.Items} {
			if p != nil && p.Pattern != "" {
				if _, err := regexp.Compile(p.Pattern); err != nil {
					return nil, fmt.Errorf("field %s: pattern: %w", name, err)
				}
			}
		}
		if s.Pattern != "" {
			re, err := regexp.Compile(s.Pattern)
			if err != nil {
				return nil, fmt.Errorf("field %s: pattern: %w", name, err)
			}
			f.pattern = re
		}
		if ft == stringListType {
			s = oneOrList(s)
		}
		f.Schema = s
		in.Fields = append(in.Fields, f)
		in.byName[name] = f
	}
	return in, nil
}

func fieldSchema(sf reflect.StructField, ft reflect.Type) (*Schema, error) {
	s := Of(ft)
	tag := sf.Tag
	s.Description = tag.Get("doc")
	if v := tag.Get("format"); v != "" {
		s.Format = v
	}
	target := s
	if s.Type == "array" && s.Items != nil {
		target = s.Items
	}
	var err error
	num := func(key string) *float64 {
		v := tag.Get(key)
		if v == "" || err != nil {
			return nil
		}
		f, e := strconv.ParseFloat(v, 64)
		if e != nil {
			err = fmt.Errorf("%s: %w", key, e)
			return nil
		}
		return &f
	}
	integer := func(key string) *int {
		v := tag.Get(key)
		if v == "" || err != nil {
			return nil
		}
		n, e := strconv.Atoi(v)
		if e != nil {
			err = fmt.Errorf("%s: %w", key, e)
			return nil
		}
		return &n
	}
	target.Minimum, target.Maximum = num("min"), num("max")
	target.MinLength, target.MaxLength = integer("minLength"), integer("maxLength")
	s.MinItems, s.MaxItems = integer("minItems"), integer("maxItems")
	if p := tag.Get("pattern"); p != "" {
		target.Pattern = p
	}
	if e := tag.Get("enum"); e != "" {
		for _, v := range strings.Split(e, "|") {
			cv, e := coerce(v, target.Type)
			if e != nil {
				return nil, fmt.Errorf("enum %q: %v", v, e)
			}
			target.Enum = append(target.Enum, cv)
		}
	}
	if d, ok := tag.Lookup("default"); ok {
		if s.Type == "array" {
			var items []any
			for _, v := range strings.Split(d, "|") {
				cv, e := coerce(v, target.Type)
				if e != nil {
					return nil, fmt.Errorf("default %q: %v", v, e)
				}
				items = append(items, cv)
			}
			s.Default = items
		} else {
			cv, e := coerce(d, s.Type)
			if e != nil {
				return nil, fmt.Errorf("default %q: %v", d, e)
			}
			s.Default = cv
		}
	}
	return s, err
}

// oneOrList turns the array schema of a StringList field into anyOf its
// item (one string) and the array, the description and default staying on
// top.
func oneOrList(list *Schema) *Schema {
	one := *list.Items
	s := &Schema{Description: list.Description, Default: list.Default, AnyOf: []*Schema{&one, list}}
	list.Description, list.Default = "", nil
	return s
}

func coerce(v, typ string) (any, error) {
	switch typ {
	case "integer":
		return strconv.ParseInt(v, 10, 64)
	case "number":
		return strconv.ParseFloat(v, 64)
	case "boolean":
		return strconv.ParseBool(v)
	}
	return v, nil
}

var timeType = reflect.TypeOf(time.Time{})
var rawType = reflect.TypeOf(json.RawMessage(nil))

// Of returns the JSON Schema of a Go type, for documenting outputs. Struct
// fields use their json names; fields without omitempty (or omitzero) are
// required unless tagged required:"false".
func Of(t reflect.Type) *Schema {
	return of(t, map[reflect.Type]bool{})
}

func of(t reflect.Type, seen map[reflect.Type]bool) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return &Schema{Type: "string", Format: "date-time"}
	}
	if t == rawType {
		return &Schema{}
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer"}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: "string", Format: "byte"}
		}
		return &Schema{Type: "array", Items: of(t.Elem(), seen)}
	case reflect.Map:
		return &Schema{Type: "object", AdditionalProperties: of(t.Elem(), seen)}
	case reflect.Interface:
		return &Schema{}
	case reflect.Struct:
		if seen[t] {
			// Recursive types (nested sections) are described once.
			return &Schema{Type: "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		s := &Schema{Type: "object", Properties: map[string]*Schema{}}
		addStructFields(s, t, seen)
		return s
	}
	return &Schema{}
}

func addStructFields(s *Schema, t reflect.Type, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addStructFields(s, ft, seen)
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		fs := of(sf.Type, seen)
		if d := sf.Tag.Get("doc"); d != "" {
			fs.Description = d
		}
		s.Properties[name] = fs
		// required:"false" marks a field an answer may leave out although
		// its JSON tag does not (a field that select= removes).
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") &&
			sf.Tag.Get("required") != "false" {
			s.Required = append(s.Required, name)
			if sf.Type.Kind() == reflect.Pointer && sf.Type.Elem() != rawType {
				fs.Nullable = true
			}
		}
	}
}
