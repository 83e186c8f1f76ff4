package redact

import (
	"encoding/json"
	"reflect"
)

var rawMessage = reflect.TypeFor[json.RawMessage]()

// Value returns a copy of v with the secrets in its strings replaced (the
// exported string fields of structs, the elements of slices and maps, and
// JSON held as json.RawMessage), and how many were; v itself is not
// changed. It is for event data of any type.
func (r *Redactor) Value(v any) (any, int) {
	if v == nil {
		return nil, 0
	}
	in := reflect.ValueOf(v)
	out, n := r.walk(in)
	if n == 0 {
		return v, 0
	}
	return out.Interface(), n
}

// walk returns v, or a redacted copy of it when anything in it changed.
func (r *Redactor) walk(v reflect.Value) (reflect.Value, int) {
	switch v.Kind() {
	case reflect.String:
		s, n := r.String(v.String())
		if n == 0 {
			return v, 0
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(s)
		return out, n
	case reflect.Slice:
		if v.Type() == rawMessage {
			return r.json(v)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v, 0 // bytes that are not JSON: left as they are
		}
		var out reflect.Value
		total := 0
		for i := range v.Len() {
			e, n := r.walk(v.Index(i))
			if n == 0 {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(out, v)
			}
			out.Index(i).Set(e)
			total += n
		}
		if total == 0 {
			return v, 0
		}
		return out, total
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		total := 0
		for i := range v.Len() {
			if e, n := r.walk(v.Index(i)); n > 0 {
				out.Index(i).Set(e)
				total += n
			}
		}
		return out, total
	case reflect.Map:
		if v.IsNil() {
			return v, 0
		}
		var out reflect.Value
		total := 0
		for it := v.MapRange(); it.Next(); {
			e, n := r.walk(it.Value())
			if n == 0 {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for it2 := v.MapRange(); it2.Next(); {
					out.SetMapIndex(it2.Key(), it2.Value())
				}
			}
			out.SetMapIndex(it.Key(), e)
			total += n
		}
		if total == 0 {
			return v, 0
		}
		return out, total
	case reflect.Struct:
		var out reflect.Value
		total := 0
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			e, n := r.walk(v.Field(i))
			if n == 0 {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			out.Field(i).Set(e)
			total += n
		}
		if total == 0 {
			return v, 0
		}
		return out, total
	case reflect.Pointer:
		if v.IsNil() {
			return v, 0
		}
		e, n := r.walk(v.Elem())
		if n == 0 {
			return v, 0
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(e)
		return out, n
	case reflect.Interface:
		if v.IsNil() {
			return v, 0
		}
		e, n := r.walk(v.Elem())
		if n == 0 {
			return v, 0
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(e)
		return out, n
	}
	return v, 0
}

// json redacts the strings of a json.RawMessage, keeping it valid JSON.
func (r *Redactor) json(v reflect.Value) (reflect.Value, int) {
	raw := v.Bytes()
	if _, n := r.String(string(raw)); n == 0 {
		return v, 0 // nothing that looks like a secret, even across escapes
	}
	var x any
	if json.Unmarshal(raw, &x) != nil {
		s, n := r.String(string(raw))
		return reflect.ValueOf(json.RawMessage(s)).Convert(v.Type()), n
	}
	y, n := r.walk(reflect.ValueOf(&x).Elem())
	if n == 0 {
		return v, 0
	}
	b, err := json.Marshal(y.Interface())
	if err != nil {
		return v, 0
	}
	return reflect.ValueOf(json.RawMessage(b)).Convert(v.Type()), n
}
