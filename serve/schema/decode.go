package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openshelf/openshelf/serve/apierr"
)

// Validator is implemented by inputs with rules that span fields. Validate
// runs after every field has been decoded and checked.
type Validator interface {
	Validate() error
}

// DecodeStrings fills dst, a pointer to the input struct, from string values:
// an HTTP query string and path parameters. An unknown query parameter is
// refused (a typo must never cost money); everything else is checked
// against the schema.
func (in *Input) DecodeStrings(dst any, query map[string][]string, path map[string]string) error {
	for k := range query {
		if f := in.byName[k]; f == nil || f.In == InPath {
			return in.unknown(k)
		}
	}
	raw := make(map[string]any, len(query)+len(path))
	for _, f := range in.Fields {
		if f.In == InPath {
			if v, ok := path[f.Name]; ok {
				raw[f.Name] = v
			}
			continue
		}
		vs, ok := query[f.Name]
		if !ok || len(vs) == 0 {
			continue
		}
		if f.kind == reflect.Slice {
			var items []any
			for _, v := range vs {
				for _, p := range strings.Split(v, ",") {
					if p = strings.TrimSpace(p); p != "" {
						items = append(items, p)
					}
				}
			}
			raw[f.Name] = items
			continue
		}
		if len(vs) > 1 {
			return apierr.Invalid(f.Name, "given more than once")
		}
		raw[f.Name] = vs[0]
	}
	return in.decode(dst, raw, true)
}

// DecodeJSON fills dst from a JSON object (a request body or MCP tool
// arguments) and path parameters. Unknown properties are refused. An empty
// body is an empty object.
func (in *Input) DecodeJSON(dst any, body []byte, path map[string]string) error {
	raw := map[string]any{}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return apierr.Invalid("", "body is not valid JSON: "+err.Error())
		}
		if dec.More() {
			return apierr.Invalid("", "body has data after the JSON object")
		}
		obj, ok := v.(map[string]any)
		if !ok {
			if v == nil {
				obj = map[string]any{}
			} else {
				return apierr.Invalid("", "body must be a JSON object")
			}
		}
		raw = obj
	}
	for k := range raw {
		f := in.byName[k]
		if f == nil || f.In == InPath {
			return in.unknown(k)
		}
	}
	for k, v := range path {
		raw[k] = v
	}
	return in.decode(dst, raw, false)
}

// unknown is the error for a parameter the input does not have, naming the
// ones it does.
func (in *Input) unknown(name string) error {
	var allowed []string
	for _, f := range in.Fields {
		if f.In != InPath {
			allowed = append(allowed, f.Name)
		}
	}
	msg := name + ": unknown parameter; this endpoint takes none"
	if len(allowed) > 0 {
		msg = name + ": unknown parameter; allowed: " + strings.Join(allowed, ", ")
	}
	e := apierr.New(apierr.ErrInvalidInput, "unknown_parameter", msg)
	e.Field = name
	return e
}

// decode converts, checks and stores every field. fromStrings says that
// scalar values arrive as text (query strings) and must be parsed.
func (in *Input) decode(dst any, raw map[string]any, fromStrings bool) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Type() != in.Type {
		return fmt.Errorf("schema: decode into %T, want *%v", dst, in.Type)
	}
	rv = rv.Elem()
	for _, f := range in.Fields {
		v, present := raw[f.Name]
		if present && v == nil && !fromStrings {
			present = false // JSON null is absence
		}
		if !present {
			if f.Required {
				return apierr.Invalid(f.Name, "is required")
			}
			if f.Schema.Default == nil {
				continue
			}
			v = f.Schema.Default
		}
		fv := rv.FieldByIndex(f.index)
		if err := f.set(fv, v, fromStrings && present); err != nil {
			return err
		}
	}
	if val, ok := dst.(Validator); ok {
		if err := val.Validate(); err != nil {
			if _, isAPI := errors.AsType[*apierr.Error](err); !isAPI {
				return apierr.Invalid("", err.Error())
			}
			return err
		}
	}
	return nil
}

func (f *Field) set(fv reflect.Value, v any, text bool) error {
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		if err := f.set(p.Elem(), v, text); err != nil {
			return err
		}
		fv.Set(p)
		return nil
	}
	switch fv.Kind() {
	case reflect.Slice:
		if fv.Type() == rawType {
			b, err := json.Marshal(v)
			if err != nil {
				return apierr.Invalid(f.Name, "is not valid JSON")
			}
			fv.SetBytes(b)
			return nil
		}
		return f.setList(fv, v, text)
	case reflect.Map, reflect.Interface:
		if text {
			return apierr.Invalid(f.Name, "must be given in a JSON body")
		}
		if fv.Kind() == reflect.Map {
			obj, ok := v.(map[string]any)
			if !ok {
				return apierr.Invalid(f.Name, "must be a JSON object")
			}
			b, _ := json.Marshal(obj)
			p := reflect.New(fv.Type())
			if err := json.Unmarshal(b, p.Interface()); err != nil {
				return apierr.Invalid(f.Name, "has the wrong shape: "+err.Error())
			}
			fv.Set(p.Elem())
			return nil
		}
		fv.Set(reflect.ValueOf(v))
		return nil
	}
	return f.scalar(fv, v, text, f.Schema, f.Name)
}

// setList stores an array, or for a StringList a single string as one
// item, checking the count and each item.
func (f *Field) setList(fv reflect.Value, v any, text bool) error {
	items, ok := v.([]any)
	str, one := v.(string)
	one = one && fv.Type() == stringListType
	if one {
		items, ok = []any{str}, true
	}
	if !ok {
		if fv.Type() == stringListType {
			return apierr.Invalid(f.Name, "must be a string or an array of strings")
		}
		return apierr.Invalid(f.Name, "must be an array")
	}
	list := f.list
	if list.MinItems != nil && len(items) < *list.MinItems {
		return apierr.Invalid(f.Name, fmt.Sprintf("must have at least %d items", *list.MinItems))
	}
	if list.MaxItems != nil && len(items) > *list.MaxItems {
		return apierr.Invalid(f.Name, fmt.Sprintf("must have at most %d items", *list.MaxItems))
	}
	out := reflect.MakeSlice(fv.Type(), len(items), len(items))
	for i, it := range items {
		name := fmt.Sprintf("%s[%d]", f.Name, i)
		if one {
			name = f.Name
		}
		if err := f.scalar(out.Index(i), it, text, list.Items, name); err != nil {
			return err
		}
	}
	fv.Set(out)
	return nil
}

// scalar stores one string, number or boolean after checking it against s.
func (f *Field) scalar(fv reflect.Value, v any, text bool, s *Schema, name string) error {
	switch fv.Kind() {
	case reflect.String:
		str, ok := v.(string)
		if !ok {
			return apierr.Invalid(name, "must be a string")
		}
		if !utf8.ValidString(str) {
			return apierr.Invalid(name, "must be valid UTF-8")
		}
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			if *s.MinLength == 1 {
				return apierr.Invalid(name, "must not be empty")
			}
			return apierr.Invalid(name, fmt.Sprintf("must be at least %d characters", *s.MinLength))
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return apierr.Invalid(name, fmt.Sprintf("must be at most %d characters", *s.MaxLength))
		}
		re := f.pattern
		if s != f.Schema && s.Pattern != "" {
			re = compiled(s.Pattern)
		}
		if re != nil && !re.MatchString(str) {
			return apierr.Invalid(name, "must match "+s.Pattern)
		}
		if len(s.Enum) > 0 && !inEnum(s.Enum, str) {
			return apierr.Invalid(name, "must be one of "+enumList(s.Enum))
		}
		fv.SetString(str)
		return nil
	case reflect.Bool:
		switch x := v.(type) {
		case bool:
			fv.SetBool(x)
			return nil
		case string:
			if text && (x == "true" || x == "false") {
				fv.SetBool(x == "true")
				return nil
			}
		}
		return apierr.Invalid(name, "must be true or false")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := toInt(v, text)
		if !ok {
			return apierr.Invalid(name, "must be an integer")
		}
		if err := bounds(name, float64(n), s); err != nil {
			return err
		}
		if fv.OverflowInt(n) {
			return apierr.Invalid(name, "is out of range")
		}
		if len(s.Enum) > 0 && !inEnum(s.Enum, n) {
			return apierr.Invalid(name, "must be one of "+enumList(s.Enum))
		}
		fv.SetInt(n)
		return nil
	case reflect.Float32, reflect.Float64:
		x, ok := toFloat(v, text)
		if !ok {
			return apierr.Invalid(name, "must be a number")
		}
		if err := bounds(name, x, s); err != nil {
			return err
		}
		fv.SetFloat(x)
		return nil
	}
	return fmt.Errorf("schema: field %s: unsupported kind %v", name, fv.Kind())
}

func bounds(name string, x float64, s *Schema) error {
	if s.Minimum != nil && x < *s.Minimum {
		return apierr.Invalid(name, "must be at least "+strconv.FormatFloat(*s.Minimum, 'f', -1, 64))
	}
	if s.Maximum != nil && x > *s.Maximum {
		return apierr.Invalid(name, "must be at most "+strconv.FormatFloat(*s.Maximum, 'f', -1, 64))
	}
	return nil
}

func toInt(v any, text bool) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		return n, err == nil
	case string:
		if !text {
			return 0, false
		}
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func toFloat(v any, text bool) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case string:
		if !text {
			return 0, false
		}
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if e == v {
			return true
		}
	}
	return false
}

func enumList(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		parts[i] = fmt.Sprint(e)
	}
	return strings.Join(parts, ", ")
}

// DecodeArguments fills dst from a JSON object that carries every field,
// path parameters included: MCP tool arguments.
func (in *Input) DecodeArguments(dst any, args []byte) error {
	path := map[string]string{}
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(args)) > 0 && json.Unmarshal(args, &obj) == nil {
		for _, f := range in.Fields {
			if f.In != InPath {
				continue
			}
			raw, ok := obj[f.Name]
			if !ok {
				continue
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return apierr.Invalid(f.Name, "must be a string")
			}
			path[f.Name] = s
			delete(obj, f.Name)
		}
		args, _ = json.Marshal(obj)
	}
	return in.DecodeJSON(dst, args, path)
}
